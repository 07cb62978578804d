// SPDX-License-Identifier: LGPL-3.0-or-later
/* Wire handle encoding, MAC and secret file: see handle_codec.h. */
#include "handle_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

void (*dc_codec_debug)(const char *fmt, ...);

/* a failing step of the key file, with its errno */
#define KEY_DEBUG(fmt, ...)                                 \
	do {                                                \
		if (dc_codec_debug != NULL)                 \
			dc_codec_debug(fmt, ##__VA_ARGS__); \
	} while (0)

#define ROTL(x, b) ((uint64_t)(((x) << (b)) | ((x) >> (64 - (b)))))

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

static void absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

void dc_siphash128(const uint8_t key[DC_KEY_LEN], const void *msg, size_t len,
		   uint8_t out[16])
{
	const uint8_t *p = msg;
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL,
			  k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	size_t full = len & ~(size_t)7;
	uint64_t last = (uint64_t)len << 56;

	v[1] ^= 0xee;
	for (size_t i = 0; i < full; i += 8)
		absorb(v, le64(p + i));
	for (size_t i = 0; i < (len & 7); i++)
		last |= (uint64_t)p[full + i] << (8 * i);
	absorb(v, last);

	v[2] ^= 0xee;
	for (int i = 0; i < 4; i++)
		sipround(v);
	put_le64(out, v[0] ^ v[1] ^ v[2] ^ v[3]);
	v[1] ^= 0xdd;
	for (int i = 0; i < 4; i++)
		sipround(v);
	put_le64(out + 8, v[0] ^ v[1] ^ v[2] ^ v[3]);
}

/* where the kernel handle's two header bytes start */
static unsigned int kernel_at(const uint8_t *host)
{
	return 3 + host[2];
}

int dc_fh_from_kernel(struct dc_fh *fh, int fsid_type, const void *fsid,
		      unsigned int fsid_len, int fh_type, const void *f_handle,
		      unsigned int fh_len)
{
	unsigned int k = 3 + fsid_len;

	if (fsid_type < 0 || fsid_type > 255 || fh_type < 0 || fh_type > 255 ||
	    fsid_len > DC_FH_FSID_MAX || fh_len == 0 ||
	    fsid_len + fh_len > DC_FH_MAX_PAYLOAD)
		return -1;
	fh->host[0] = DC_FH_VERSION;
	fh->host[1] = (uint8_t)fsid_type;
	fh->host[2] = (uint8_t)fsid_len;
	if (fsid_len != 0)
		memcpy(fh->host + 3, fsid, fsid_len);
	fh->host[k] = (uint8_t)fh_type;
	fh->host[k + 1] = (uint8_t)fh_len;
	memcpy(fh->host + k + 2, f_handle, fh_len);
	fh->len = (uint8_t)(DC_FH_HDR + fsid_len + fh_len);
	return 0;
}

int dc_fh_to_wire(const struct dc_fh *fh, const uint8_t key[DC_KEY_LEN],
		  void *buf, size_t buflen)
{
	size_t n = (size_t)fh->len + DC_FH_TAG;

	if (buflen < n)
		return -1;
	memcpy(buf, fh->host, fh->len);
	dc_siphash128(key, fh->host, fh->len, (uint8_t *)buf + fh->len);
	return (int)n;
}

int dc_fh_parse_host(const void *host, size_t len, struct dc_fh *out)
{
	const uint8_t *h = host;

	if (len < DC_FH_HDR + 1 || len > DC_FH_HOST_MAX)
		return -1;
	if (h[0] != DC_FH_VERSION || h[2] > DC_FH_FSID_MAX ||
	    (size_t)h[2] + DC_FH_HDR + 1 > len)
		return -1;
	/* the kernel handle: not empty, and exactly the rest */
	if (h[kernel_at(h) + 1] == 0 ||
	    (size_t)h[2] + h[kernel_at(h) + 1] + DC_FH_HDR != len)
		return -1;
	memcpy(out->host, h, len);
	out->len = (uint8_t)len;
	return 0;
}

/* Constant-time compare: the tag check must not leak how many bytes matched. */
static int tag_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	for (int i = 0; i < DC_FH_TAG; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

int dc_fh_verify_wire(const void *wire, size_t len,
		      const uint8_t key[DC_KEY_LEN])
{
	struct dc_fh fh;
	uint8_t tag[DC_FH_TAG];

	if (wire == NULL || len <= DC_FH_TAG || len > DC_FH_WIRE_MAX)
		return -1;
	if (dc_fh_parse_host(wire, len - DC_FH_TAG, &fh) != 0)
		return -1;
	dc_siphash128(key, fh.host, fh.len, tag);
	if (!tag_equal(tag, (const uint8_t *)wire + fh.len))
		return -1;
	return fh.len;
}

int dc_fh_fsid_type(const struct dc_fh *fh)
{
	return fh->host[1];
}

unsigned int dc_fh_fsid_len(const struct dc_fh *fh)
{
	return fh->host[2];
}

const uint8_t *dc_fh_fsid_bytes(const struct dc_fh *fh)
{
	return fh->host + 3;
}

int dc_fh_type(const struct dc_fh *fh)
{
	return fh->host[kernel_at(fh->host)];
}

unsigned int dc_fh_kernel_len(const struct dc_fh *fh)
{
	return fh->host[kernel_at(fh->host) + 1];
}

const uint8_t *dc_fh_kernel_bytes(const struct dc_fh *fh)
{
	return fh->host + kernel_at(fh->host) + 2;
}

static int read_key(const char *path, int fd, uint8_t key[DC_KEY_LEN])
{
	struct stat st;
	ssize_t n;
	int err;

	if (fstat(fd, &st) != 0) {
		err = errno;
		KEY_DEBUG("key file %s: fstat: %s", path, strerror(err));
		return err;
	}
	if (!S_ISREG(st.st_mode) || st.st_size != DC_KEY_LEN) {
		KEY_DEBUG(
			"key file %s: mode 0%o, %lld bytes: not a regular file of %d bytes",
			path, (unsigned int)st.st_mode, (long long)st.st_size,
			DC_KEY_LEN);
		return EINVAL;
	}
	/* a secret others can read (or that another user could replace)
	 * lets them forge handles */
	if (st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		KEY_DEBUG(
			"key file %s: owner %u, mode 0%o: must be owned by %u with no group or other bits",
			path, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777),
			(unsigned int)geteuid());
		return EPERM;
	}
	n = pread(fd, key, DC_KEY_LEN, 0);
	if (n < 0) {
		err = errno;
		KEY_DEBUG("key file %s: pread: %s", path, strerror(err));
		return err;
	}
	if (n != DC_KEY_LEN)
		KEY_DEBUG("key file %s: read %zd bytes of %d", path, n,
			  DC_KEY_LEN);
	return n == DC_KEY_LEN ? 0 : EINVAL;
}

/* A crash right after the first start must not lose the new key: that
 * would turn every handle clients hold into BADHANDLE. */
static int sync_parent(const char *path)
{
	char dir[4096];
	char *slash;
	int fd, rc = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		KEY_DEBUG("key directory %s: open: %s", dir, strerror(rc));
		return rc;
	}
	if (fsync(fd) != 0) {
		rc = errno;
		KEY_DEBUG("key directory %s: fsync: %s", dir, strerror(rc));
	}
	close(fd);
	return rc;
}

static int create_key(const char *path, uint8_t key[DC_KEY_LEN])
{
	char tmp[4096];
	int fd, rc = 0;

	errno = 0;
	if (getrandom(key, DC_KEY_LEN, 0) != DC_KEY_LEN) {
		rc = errno ? errno : EIO;
		KEY_DEBUG("key file %s: getrandom: %s", path, strerror(rc));
		return rc;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path,
			     (int)getpid()) >= sizeof(tmp)) {
		KEY_DEBUG("key file %s: path too long", path);
		return ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = errno;
		KEY_DEBUG("key file %s: creating %s: %s", path, tmp,
			  strerror(rc));
		return rc;
	}
	errno = 0;
	if (write(fd, key, DC_KEY_LEN) != DC_KEY_LEN || fsync(fd) != 0) {
		rc = errno ? errno : EIO;
		KEY_DEBUG("key file %s: writing %s: %s", path, tmp,
			  strerror(rc));
	}
	close(fd);
	/* link() rather than rename(): a racing creator keeps the first key. */
	if (rc == 0 && link(tmp, path) != 0) {
		rc = errno;
		KEY_DEBUG("key file %s: link from %s: %s", path, tmp,
			  strerror(rc));
	}
	unlink(tmp);
	if (rc == 0)
		rc = sync_parent(path);
	return rc;
}

int dc_key_load(const char *path, uint8_t key[DC_KEY_LEN])
{
	int fd, rc;

	for (int attempt = 0; attempt < 2; attempt++) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			rc = read_key(path, fd, key);
			close(fd);
			return rc;
		}
		if (errno != ENOENT) {
			rc = errno;
			KEY_DEBUG("key file %s: open: %s", path, strerror(rc));
			return rc;
		}
		KEY_DEBUG("key file %s: absent: creating it", path);
		rc = create_key(path, key);
		if (rc != EEXIST)
			return rc;
	}
	KEY_DEBUG("key file %s: created and removed by someone else twice",
		  path);
	return EEXIST;
}

void dc_key_bind(const uint8_t secret[DC_KEY_LEN], uint16_t export_id,
		 const void *root_fh, size_t root_len, uint8_t key[DC_KEY_LEN])
{
	static const char label[8] = "dcexport";
	uint8_t msg[sizeof(label) + 2 + 128];
	size_t n = root_len < 128 ? root_len : 128;

	memcpy(msg, label, sizeof(label));
	msg[sizeof(label)] = (uint8_t)(export_id >> 8);
	msg[sizeof(label) + 1] = (uint8_t)export_id;
	memcpy(msg + sizeof(label) + 2, root_fh, n);
	dc_siphash128(secret, msg, sizeof(label) + 2 + n, key);
}
