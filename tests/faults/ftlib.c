/* Fault-test helpers: see ftlib.h. */
#include "ftlib.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t ft_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ft_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

bool ft_common_opt(struct ft_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'H': o->host = arg; return true;
	case 'p': o->nfsport = atoi(arg); return true;
	case 'M': o->mntport = atoi(arg); return true;
	case 'e': o->export = arg; return true;
	}
	return false;
}

const char *ft_st(int st)
{
	static __thread char buf[32];

	switch (st) {
	case -1: return "RPC_ERROR";
	case NFS3_OK: return "OK";
	case NFS3ERR_PERM: return "PERM";
	case NFS3ERR_NOENT: return "NOENT";
	case NFS3ERR_IO: return "IO";
	case NFS3ERR_NXIO: return "NXIO";
	case NFS3ERR_ACCES: return "ACCES";
	case NFS3ERR_EXIST: return "EXIST";
	case NFS3ERR_XDEV: return "XDEV";
	case NFS3ERR_NODEV: return "NODEV";
	case NFS3ERR_NOTDIR: return "NOTDIR";
	case NFS3ERR_ISDIR: return "ISDIR";
	case NFS3ERR_INVAL: return "INVAL";
	case NFS3ERR_FBIG: return "FBIG";
	case NFS3ERR_NOSPC: return "NOSPC";
	case NFS3ERR_ROFS: return "ROFS";
	case NFS3ERR_MLINK: return "MLINK";
	case NFS3ERR_NAMETOOLONG: return "NAMETOOLONG";
	case NFS3ERR_NOTEMPTY: return "NOTEMPTY";
	case NFS3ERR_DQUOT: return "DQUOT";
	case NFS3ERR_STALE: return "STALE";
	case NFS3ERR_REMOTE: return "REMOTE";
	case NFS3ERR_BADHANDLE: return "BADHANDLE";
	case NFS3ERR_NOT_SYNC: return "NOT_SYNC";
	case NFS3ERR_BAD_COOKIE: return "BAD_COOKIE";
	case NFS3ERR_NOTSUPP: return "NOTSUPP";
	case NFS3ERR_TOOSMALL: return "TOOSMALL";
	case NFS3ERR_SERVERFAULT: return "SERVERFAULT";
	case NFS3ERR_BADTYPE: return "BADTYPE";
	case NFS3ERR_JUKEBOX: return "JUKEBOX";
	}
	snprintf(buf, sizeof(buf), "%d", st);
	return buf;
}

void ft_call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct ft_call *k = priv;

	(void)rpc;
	k->rpc_status = status;
	if (status == RPC_STATUS_SUCCESS && data) {
		k->st = *(int *)data; /* every NFSv3 result starts with nfsstat3 */
		if (k->copy)
			k->copy(k, data);
	} else {
		k->st = -1;
	}
	k->done = 1;
}

static void conn_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct ft_call *k = priv;

	(void)rpc;
	(void)data;
	k->rpc_status = status;
	k->st = status == RPC_STATUS_SUCCESS ? 0 : -1;
	k->done = 1;
}

int ft_pump(struct ft_conn *c, int ms)
{
	struct pollfd p;
	int r;

	if (c->dead)
		return -1;
	p.fd = rpc_get_fd(c->rpc);
	p.events = rpc_which_events(c->rpc);
	p.revents = 0;
	r = poll(&p, 1, ms);
	if (r < 0 && errno != EINTR) {
		snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
		c->dead = 1;
		rpc_disconnect(c->rpc, c->err);
		return -1;
	}
	if (rpc_service(c->rpc, r > 0 ? p.revents : 0) < 0) {
		snprintf(c->err, sizeof(c->err), "rpc_service: %s", rpc_get_error(c->rpc));
		c->dead = 1;
		rpc_disconnect(c->rpc, c->err);
		return -1;
	}
	return 0;
}

int ft_wait(struct ft_conn *c, struct ft_call *k)
{
	uint64_t deadline = ft_now_ms() + (c->timeout_ms ? c->timeout_ms : FT_TIMEOUT_MS);

	while (!k->done && !c->dead) {
		if (ft_pump(c, 100) < 0)
			break;
		if (!k->done && ft_now_ms() > deadline) {
			snprintf(c->err, sizeof(c->err), "no reply within %d ms",
				 c->timeout_ms ? c->timeout_ms : FT_TIMEOUT_MS);
			c->dead = 1;
			rpc_disconnect(c->rpc, c->err); /* fails every pending call now */
			break;
		}
	}
	if (!k->done) {
		/* dead connection: libnfs already failed the pending calls */
		k->st = -1;
		k->done = 1;
		return -1;
	}
	return k->rpc_status == RPC_STATUS_SUCCESS ? 0 : -1;
}

#define RUN(c, k, START)                                                        \
	do {                                                                    \
		if ((c)->dead) {                                                \
			(k).st = -1;                                            \
			break;                                                  \
		}                                                               \
		if ((START) != 0) {                                             \
			snprintf((c)->err, sizeof((c)->err), "could not queue: %s", \
				 rpc_get_error((c)->rpc));                      \
			(k).st = -1;                                            \
			break;                                                  \
		}                                                               \
		if (ft_wait((c), &(k)) != 0)                                    \
			(k).st = -1;                                            \
	} while (0)

static void mnt_copy(struct ft_call *k, void *data)
{
	mountres3 *r = data;

	if (r->fhs_status == MNT3_OK) {
		k->fh->len = r->mountres3_u.mountinfo.fhandle.fhandle3_len;
		if (k->fh->len > FT_FHMAX)
			k->fh->len = FT_FHMAX;
		memcpy(k->fh->data, r->mountres3_u.mountinfo.fhandle.fhandle3_val, k->fh->len);
	}
}

int ft_connect(struct ft_conn *c, const struct ft_opts *o)
{
	struct ft_conn m = { 0 };
	struct ft_call k = { 0 };

	memset(c, 0, sizeof(*c));
	m.rpc = rpc_init_context();
	if (!m.rpc)
		return -1;
	m.timeout_ms = 10000;
	RUN(&m, k, rpc_connect_port_async(m.rpc, o->host, o->mntport, MOUNT_PROGRAM, MOUNT_V3,
					  conn_cb, &k));
	if (k.st != 0) {
		snprintf(c->err, sizeof(c->err), "connect to mountd %.40s:%d: %.180s", o->host, o->mntport,
			 m.err);
		rpc_destroy_context(m.rpc);
		return -1;
	}
	memset(&k, 0, sizeof(k));
	k.copy = mnt_copy;
	k.fh = &c->root;
	RUN(&m, k, rpc_mount3_mnt_async(m.rpc, ft_call_cb, (char *)o->export, &k));
	rpc_destroy_context(m.rpc);
	if (k.st != 0) {
		snprintf(c->err, sizeof(c->err), "MNT %.100s: status %d %.100s", o->export, k.st, m.err);
		return -1;
	}
	c->rpc = rpc_init_context();
	if (!c->rpc)
		return -1;
	memset(&k, 0, sizeof(k));
	RUN(c, k, rpc_connect_port_async(c->rpc, o->host, o->nfsport, NFS_PROGRAM, NFS_V3,
					 conn_cb, &k));
	if (k.st != 0) {
		rpc_destroy_context(c->rpc);
		c->rpc = NULL;
		return -1;
	}
	return 0;
}

void ft_disconnect(struct ft_conn *c)
{
	if (c->rpc)
		rpc_destroy_context(c->rpc);
	c->rpc = NULL;
}

void ft_fh_to3(const struct ft_fh *fh, nfs_fh3 *out)
{
	out->data.data_len = fh->len;
	out->data.data_val = (char *)fh->data;
}

void ft_fh_from3(struct ft_fh *fh, const nfs_fh3 *in)
{
	fh->len = in->data.data_len > FT_FHMAX ? FT_FHMAX : in->data.data_len;
	memcpy(fh->data, in->data.data_val, fh->len);
}

int ft_null(struct ft_conn *c)
{
	struct ft_call k = { 0 };

	RUN(c, k, rpc_nfs3_null_async(c->rpc, conn_cb, &k));
	return k.st;
}

static void getattr_copy(struct ft_call *k, void *data)
{
	GETATTR3res *r = data;

	if (r->status == NFS3_OK && k->attr)
		*k->attr = r->GETATTR3res_u.resok.obj_attributes;
}

int ft_getattr(struct ft_conn *c, const struct ft_fh *fh, fattr3 *attr)
{
	struct ft_call k = { 0 };
	GETATTR3args a;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(fh, &a.object);
	k.copy = getattr_copy;
	k.attr = attr;
	RUN(c, k, rpc_nfs3_getattr_async(c->rpc, ft_call_cb, &a, &k));
	return k.st;
}

static void lookup_copy(struct ft_call *k, void *data)
{
	LOOKUP3res *r = data;

	if (r->status == NFS3_OK && k->fh)
		ft_fh_from3(k->fh, &r->LOOKUP3res_u.resok.object);
}

int ft_lookup(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out)
{
	struct ft_call k = { 0 };
	LOOKUP3args a;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(dir, &a.what.dir);
	a.what.name = (char *)name;
	k.copy = lookup_copy;
	k.fh = out;
	RUN(c, k, rpc_nfs3_lookup_async(c->rpc, ft_call_cb, &a, &k));
	return k.st;
}

int ft_lookup_path(struct ft_conn *c, const char *path, struct ft_fh *out)
{
	char buf[4096], *save = NULL, *tok;
	struct ft_fh cur = c->root;
	int st;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		struct ft_fh next;

		st = ft_lookup(c, &cur, tok, &next);
		if (st != NFS3_OK)
			return st;
		cur = next;
	}
	*out = cur;
	return NFS3_OK;
}

static void create_copy(struct ft_call *k, void *data)
{
	CREATE3res *r = data;

	if (r->status == NFS3_OK && k->fh) {
		if (r->CREATE3res_u.resok.obj.handle_follows)
			ft_fh_from3(k->fh, &r->CREATE3res_u.resok.obj.post_op_fh3_u.handle);
		else
			k->fh->len = 0;
	}
}

int ft_create(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out)
{
	struct ft_call k = { 0 };
	CREATE3args a;
	int st;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = 1;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	k.copy = create_copy;
	k.fh = out;
	RUN(c, k, rpc_nfs3_create_async(c->rpc, ft_call_cb, &a, &k));
	st = k.st;
	if (st == NFS3_OK && out->len == 0)
		st = ft_lookup(c, dir, name, out);
	return st;
}

static void mkdir_copy(struct ft_call *k, void *data)
{
	MKDIR3res *r = data;

	if (r->status == NFS3_OK && k->fh) {
		if (r->MKDIR3res_u.resok.obj.handle_follows)
			ft_fh_from3(k->fh, &r->MKDIR3res_u.resok.obj.post_op_fh3_u.handle);
		else
			k->fh->len = 0;
	}
}

int ft_mkdir(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out)
{
	struct ft_call k = { 0 };
	MKDIR3args a;
	int st;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	a.attributes.mode.set_it = 1;
	a.attributes.mode.set_mode3_u.mode = 0755;
	k.copy = mkdir_copy;
	k.fh = out;
	RUN(c, k, rpc_nfs3_mkdir_async(c->rpc, ft_call_cb, &a, &k));
	st = k.st;
	if ((st == NFS3_OK && out->len == 0) || st == NFS3ERR_EXIST)
		st = ft_lookup(c, dir, name, out);
	return st;
}

int ft_remove(struct ft_conn *c, const struct ft_fh *dir, const char *name)
{
	struct ft_call k = { 0 };
	REMOVE3args a;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(dir, &a.object.dir);
	a.object.name = (char *)name;
	RUN(c, k, rpc_nfs3_remove_async(c->rpc, ft_call_cb, &a, &k));
	return k.st;
}

static void read_copy(struct ft_call *k, void *data)
{
	READ3res *r = data;

	if (r->status == NFS3_OK) {
		uint32_t n = r->READ3res_u.resok.data.data_len;

		if (n > k->cap)
			n = k->cap;
		memcpy(k->buf, r->READ3res_u.resok.data.data_val, n);
		k->count = n;
		k->committed = (int)r->READ3res_u.resok.count; /* the count field itself */
		k->eof = r->READ3res_u.resok.eof;
	}
}

int ft_read(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, uint32_t count, void *buf,
	    uint32_t *got, bool *eof)
{
	struct ft_call k = { 0 };
	READ3args a;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = count;
	k.copy = read_copy;
	k.buf = buf;
	k.cap = count;
	RUN(c, k, rpc_nfs3_read_async(c->rpc, ft_call_cb, &a, &k));
	if (got)
		*got = k.count;
	if (eof)
		*eof = k.eof;
	return k.st;
}

static void write_copy(struct ft_call *k, void *data)
{
	WRITE3res *r = data;

	if (r->status == NFS3_OK) {
		k->count = r->WRITE3res_u.resok.count;
		k->committed = r->WRITE3res_u.resok.committed;
		memcpy(k->verf, r->WRITE3res_u.resok.verf, 8);
	}
}

int ft_write_async(struct ft_conn *c, struct ft_call *k, const struct ft_fh *fh, uint64_t off,
		   const void *buf, uint32_t len, int stable)
{
	WRITE3args a;

	memset(k, 0, sizeof(*k));
	memset(&a, 0, sizeof(a));
	ft_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = len;
	a.stable = stable;
	a.data.data_len = len;
	a.data.data_val = (char *)buf;
	k->copy = write_copy;
	if (c->dead)
		return -1;
	return rpc_nfs3_write_async(c->rpc, ft_call_cb, &a, k);
}

int ft_write(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, const void *buf,
	     uint32_t len, int stable, uint32_t *count, int *committed, char verf[8])
{
	struct ft_call k;

	if (ft_write_async(c, &k, fh, off, buf, len, stable) != 0) {
		snprintf(c->err, sizeof(c->err), "could not queue: %s", rpc_get_error(c->rpc));
		return -1;
	}
	if (ft_wait(c, &k) != 0)
		k.st = -1;
	if (count)
		*count = k.count;
	if (committed)
		*committed = k.committed;
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

static void commit_copy(struct ft_call *k, void *data)
{
	COMMIT3res *r = data;

	if (r->status == NFS3_OK)
		memcpy(k->verf, r->COMMIT3res_u.resok.verf, 8);
}

int ft_commit_async(struct ft_conn *c, struct ft_call *k, const struct ft_fh *fh, uint64_t off,
		    uint32_t count)
{
	COMMIT3args a;

	memset(k, 0, sizeof(*k));
	memset(&a, 0, sizeof(a));
	ft_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = count;
	k->copy = commit_copy;
	if (c->dead)
		return -1;
	return rpc_nfs3_commit_async(c->rpc, ft_call_cb, &a, k);
}

int ft_commit(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, uint32_t count,
	      char verf[8])
{
	struct ft_call k;

	if (ft_commit_async(c, &k, fh, off, count) != 0)
		return -1;
	if (ft_wait(c, &k) != 0)
		k.st = -1;
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

static void fsinfo_copy(struct ft_call *k, void *data)
{
	FSINFO3res *r = data;

	if (r->status == NFS3_OK)
		*(FSINFO3resok *)k->buf = r->FSINFO3res_u.resok;
}

int ft_fsinfo(struct ft_conn *c, const struct ft_fh *fh, FSINFO3resok *out)
{
	struct ft_call k = { 0 };
	FSINFO3args a;

	memset(&a, 0, sizeof(a));
	ft_fh_to3(fh, &a.fsroot);
	k.copy = fsinfo_copy;
	k.buf = out;
	RUN(c, k, rpc_nfs3_fsinfo_async(c->rpc, ft_call_cb, &a, &k));
	return k.st;
}

/* ---- pattern ---- */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t ft_seed(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	return mix64(h);
}

void ft_pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	while (i < len) {
		uint64_t o = off + i;
		uint64_t w = mix64(seed ^ (o >> 3) * 0x2545f4914f6cdd1dULL);
		unsigned b = (unsigned)(o & 7);

		if (b == 0 && len - i >= 8) {
			memcpy(p + i, &w, 8); /* little-endian host: same bytes as below */
			i += 8;
			continue;
		}
		p[i++] = (unsigned char)(w >> (8 * b));
	}
}

void ft_verf_hex(const char verf[8], char out[17])
{
	for (int i = 0; i < 8; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)verf[i]);
}

bool ft_verf_parse(const char *hex, char verf[8])
{
	for (int i = 0; i < 8; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		verf[i] = (char)v;
	}
	return true;
}
