// SPDX-License-Identifier: LGPL-3.0-or-later
/* test_handle_codec: wire handle MAC, parsing of hostile handles, the secret file. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handle_codec.h"

static const uint8_t key[DC_KEY_LEN] = { 0, 1, 2,  3,  4,  5,  6,  7,
					 8, 9, 10, 11, 12, 13, 14, 15 };

/* Reference vectors of SipHash-2-4 with 128-bit output (key 00..0f, message 00..len-1). */
static void test_siphash_vectors(void)
{
	static const uint8_t empty[16] = { 0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25,
					   0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14,
					   0xc7, 0x55, 0x02, 0x93 };
	static const uint8_t one[16] = { 0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99,
					 0xaf, 0x44, 0x34, 0x76, 0x59, 0x11,
					 0x9b, 0x22, 0xfc, 0x45 };
	uint8_t msg[1] = { 0 }, out[16];

	dc_siphash128(key, msg, 0, out);
	CU_ASSERT_EQUAL(memcmp(out, empty, 16), 0);
	dc_siphash128(key, msg, 1, out);
	CU_ASSERT_EQUAL(memcmp(out, one, 16), 0);
}

/* an ext4-like fsid (two 32-bit halves: ganesha's FSID_TWO_UINT32 = 4) */
static const uint8_t fsid8[8] = {
	0xa1, 0xb2, 0xc3, 0xd4, 0x01, 0x02, 0x03, 0x04
};

static void make_fh(struct dc_fh *fh)
{
	uint8_t kh[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

	CU_ASSERT_EQUAL_FATAL(dc_fh_from_kernel(fh, 4, fsid8, sizeof(fsid8), 1,
						kh, sizeof(kh)),
			      0);
}

static void test_roundtrip(void)
{
	struct dc_fh fh, back;
	uint8_t wire[DC_FH_WIRE_MAX];
	int n, h;

	make_fh(&fh);
	n = dc_fh_to_wire(&fh, key, wire, sizeof(wire));
	CU_ASSERT_EQUAL(n, DC_FH_HDR + 8 + 8 + DC_FH_TAG);
	h = dc_fh_verify_wire(wire, (size_t)n, key);
	CU_ASSERT_EQUAL(h, fh.len);
	CU_ASSERT_EQUAL_FATAL(dc_fh_parse_host(wire, (size_t)h, &back), 0);
	CU_ASSERT_EQUAL(dc_fh_fsid_type(&back), 4);
	CU_ASSERT_EQUAL(dc_fh_fsid_len(&back), 8);
	CU_ASSERT_EQUAL(memcmp(dc_fh_fsid_bytes(&back), fsid8, 8), 0);
	CU_ASSERT_EQUAL(dc_fh_type(&back), 1);
	CU_ASSERT_EQUAL(dc_fh_kernel_len(&back), 8);
	CU_ASSERT_EQUAL(
		memcmp(dc_fh_kernel_bytes(&back), dc_fh_kernel_bytes(&fh), 8),
		0);
	/* too small an output buffer */
	CU_ASSERT_EQUAL(dc_fh_to_wire(&fh, key, wire, (size_t)n - 1), -1);
}

static void test_every_bit_flip_rejected(void)
{
	struct dc_fh fh;
	uint8_t wire[DC_FH_WIRE_MAX];
	int n, rejected = 0, tries = 0;

	make_fh(&fh);
	n = dc_fh_to_wire(&fh, key, wire, sizeof(wire));
	for (int i = 0; i < n; i++) {
		for (int b = 0; b < 8; b++) {
			wire[i] ^= (uint8_t)(1u << b);
			tries++;
			rejected += dc_fh_verify_wire(wire, (size_t)n, key) < 0;
			wire[i] ^= (uint8_t)(1u << b);
		}
	}
	CU_ASSERT_EQUAL(rejected, tries);
	CU_ASSERT(dc_fh_verify_wire(wire, (size_t)n, key) > 0);
}

static void test_wrong_key_rejected(void)
{
	struct dc_fh fh;
	uint8_t wire[DC_FH_WIRE_MAX], other[DC_KEY_LEN];
	int n;

	make_fh(&fh);
	memcpy(other, key, sizeof(other));
	other[15] ^= 0x80;
	n = dc_fh_to_wire(&fh, key, wire, sizeof(wire));
	CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, (size_t)n, other), -1);
}

static void test_lengths_rejected(void)
{
	struct dc_fh fh;
	uint8_t wire[256] = { 0 };
	int n;

	make_fh(&fh);
	n = dc_fh_to_wire(&fh, key, wire, sizeof(wire));
	for (int len = 0; len < n; len++)
		CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, (size_t)len, key), -1);
	CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, (size_t)n + 1, key), -1);
	CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, sizeof(wire), key), -1);
	CU_ASSERT_EQUAL(dc_fh_verify_wire(NULL, 20, key), -1);
	/* fsid + kernel handle that do not fit an NFSv3 handle are refused */
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 4, wire, 8, 1, wire,
					  DC_FH_MAX_PAYLOAD - 8 + 1),
			-1);
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 4, wire, 8, 1, wire, 0), -1);
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 4, wire, 8, 300, wire, 8), -1);
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 300, wire, 8, 1, wire, 8), -1);
	CU_ASSERT_EQUAL(
		dc_fh_from_kernel(&fh, 4, wire, DC_FH_FSID_MAX + 1, 1, wire, 8),
		-1);
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 4, wire, 8, 1, wire,
					  DC_FH_MAX_PAYLOAD - 8),
			0);
	CU_ASSERT_EQUAL(fh.len, DC_FH_HOST_MAX);
	/* a btrfs handle (20 bytes) with a 16-byte fsid fits */
	CU_ASSERT_EQUAL(dc_fh_from_kernel(&fh, 5, wire, 16, 0x4d, wire, 20), 0);
}

/* The root of every fresh ext4 has the same kernel handle: the fsid keeps
 * two filesystems' objects apart in MDCACHE (the host form is its key). */
static void test_fsid_separates_filesystems(void)
{
	uint8_t root[8] = { 2, 0, 0, 0, 0, 0, 0, 0 }, other[8];
	struct dc_fh a, b, c;

	memcpy(other, fsid8, sizeof(other));
	other[7] ^= 1;
	CU_ASSERT_EQUAL_FATAL(
		dc_fh_from_kernel(&a, 4, fsid8, 8, 1, root, sizeof(root)), 0);
	CU_ASSERT_EQUAL_FATAL(
		dc_fh_from_kernel(&b, 4, other, 8, 1, root, sizeof(root)), 0);
	CU_ASSERT_EQUAL_FATAL(
		dc_fh_from_kernel(&c, 4, fsid8, 8, 1, root, sizeof(root)), 0);
	CU_ASSERT_FALSE(dc_fh_eq(&a, &b));
	CU_ASSERT_TRUE(dc_fh_eq(&a, &c));
	/* same bytes, another fsid type */
	CU_ASSERT_EQUAL_FATAL(
		dc_fh_from_kernel(&b, 1, fsid8, 8, 1, root, sizeof(root)), 0);
	CU_ASSERT_FALSE(dc_fh_eq(&a, &b));
}

static void test_random_garbage_rejected(void)
{
	uint8_t buf[DC_FH_WIRE_MAX];
	int accepted = 0;

	srand(12345);
	for (int i = 0; i < 200000; i++) {
		size_t len = (size_t)(rand() % (int)sizeof(buf)) + 1;

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rand();
		/* make some look structurally valid so the MAC is what rejects them */
		if (i & 1 && len > DC_FH_HDR + DC_FH_TAG) {
			buf[0] = DC_FH_VERSION;
			buf[2] = 0;
			buf[3] = 1;
			buf[4] = (uint8_t)(len - DC_FH_HDR - DC_FH_TAG);
		}
		accepted += dc_fh_verify_wire(buf, len, key) >= 0;
	}
	CU_ASSERT_EQUAL(accepted, 0);
}

static void test_host_parse(void)
{
	struct dc_fh fh, out;
	uint8_t bad[DC_FH_HOST_MAX];

	make_fh(&fh);
	CU_ASSERT_EQUAL(dc_fh_parse_host(fh.host, fh.len, &out), 0);
	CU_ASSERT_EQUAL(dc_fh_parse_host(fh.host, fh.len - 1, &out), -1);
	memcpy(bad, fh.host, fh.len);
	bad[0] = 9;
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
	/* a version 1 handle (no fsid) is not taken for a version 2 one */
	bad[0] = 1;
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
	memcpy(bad, fh.host, fh.len);
	bad[2] = 7; /* fsid length */
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
	memcpy(bad, fh.host, fh.len);
	bad[2] = 200;
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
	memcpy(bad, fh.host, fh.len);
	bad[3 + 8 + 1] = 7; /* kernel handle length */
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
	bad[3 + 8 + 1] = 0;
	CU_ASSERT_EQUAL(dc_fh_parse_host(bad, fh.len, &out), -1);
}

static void test_key_file(void)
{
	char dir[] = "/tmp/dckeyXXXXXX", path[64];
	uint8_t k1[DC_KEY_LEN], k2[DC_KEY_LEN];
	struct stat st;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/export.key", dir);
	CU_ASSERT_EQUAL(dc_key_load(path, k1), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(st.st_size, DC_KEY_LEN);
	/* survives a "restart": same key loaded again */
	CU_ASSERT_EQUAL(dc_key_load(path, k2), 0);
	CU_ASSERT_EQUAL(memcmp(k1, k2, DC_KEY_LEN), 0);
	/* a truncated key file is an error, never a new key */
	CU_ASSERT_EQUAL(truncate(path, 5), 0);
	CU_ASSERT_EQUAL(dc_key_load(path, k2), EINVAL);
	unlink(path);
	/* a directory in the way */
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	CU_ASSERT_NOT_EQUAL(dc_key_load(path, k2), 0);
	rmdir(path);
	/* missing parent directory */
	snprintf(path, sizeof(path), "%s/nodir/export.key", dir);
	CU_ASSERT_EQUAL(dc_key_load(path, k2), ENOENT);
	fd = open(dir, O_RDONLY);
	CU_ASSERT(fd >= 0);
	close(fd);
	rmdir(dir);
}

/* A secret others can read, or that another user owns, is refused: anyone who
 * reads it can forge handles. Nothing is rewritten. */
static void test_key_file_perms(void)
{
	char dir[] = "/tmp/dckeyXXXXXX", path[64];
	uint8_t k1[DC_KEY_LEN], k2[DC_KEY_LEN];
	struct stat st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/export.key", dir);
	CU_ASSERT_EQUAL_FATAL(dc_key_load(path, k1), 0);
	CU_ASSERT_EQUAL(chmod(path, 0640), 0);
	CU_ASSERT_EQUAL(dc_key_load(path, k2), EPERM);
	CU_ASSERT_EQUAL(chmod(path, 0604), 0);
	CU_ASSERT_EQUAL(dc_key_load(path, k2), EPERM);
	CU_ASSERT_EQUAL(chmod(path, 0400), 0);
	CU_ASSERT_EQUAL(dc_key_load(path, k2), 0);
	CU_ASSERT_EQUAL(memcmp(k1, k2, DC_KEY_LEN), 0);
	CU_ASSERT_EQUAL(chmod(path, 0600), 0);
	if (geteuid() == 0) {
		CU_ASSERT_EQUAL(chown(path, 1000, 1000), 0);
		CU_ASSERT_EQUAL(dc_key_load(path, k2), EPERM);
	}
	/* refused, not replaced */
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, DC_KEY_LEN);
	unlink(path);
	rmdir(dir);
}

/* Per-export keys from one secret: another export id or another root gives
 * another key, so a handle MACed for one export fails in the other. */
static void test_key_bind(void)
{
	static const uint8_t root1[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t root2[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
	uint8_t a[DC_KEY_LEN], b[DC_KEY_LEN], c[DC_KEY_LEN], d[DC_KEY_LEN];
	uint8_t wire[DC_FH_WIRE_MAX];
	struct dc_fh fh;
	int n;

	dc_key_bind(key, 1, root1, sizeof(root1), a);
	dc_key_bind(key, 2, root1, sizeof(root1), b);
	dc_key_bind(key, 1, root2, sizeof(root2), c);
	dc_key_bind(key, 1, root1, sizeof(root1), d);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, DC_KEY_LEN), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, DC_KEY_LEN), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, key, DC_KEY_LEN), 0);
	CU_ASSERT_EQUAL(memcmp(a, d, DC_KEY_LEN), 0);
	CU_ASSERT_EQUAL_FATAL(dc_fh_from_kernel(&fh, 4, fsid8, sizeof(fsid8), 1,
						root1, sizeof(root1)),
			      0);
	n = dc_fh_to_wire(&fh, a, wire, sizeof(wire));
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT(dc_fh_verify_wire(wire, (size_t)n, a) > 0);
	CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, (size_t)n, b), -1);
	CU_ASSERT_EQUAL(dc_fh_verify_wire(wire, (size_t)n, c), -1);
}

int main(void)
{
	CU_pSuite s;
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("handle_codec", NULL, NULL);
	CU_add_test(s, "siphash128 reference vectors", test_siphash_vectors);
	CU_add_test(s, "encode/verify/parse round trip", test_roundtrip);
	CU_add_test(s, "every single-bit flip rejected",
		    test_every_bit_flip_rejected);
	CU_add_test(s, "another export's key rejected",
		    test_wrong_key_rejected);
	CU_add_test(s, "truncated and oversized rejected",
		    test_lengths_rejected);
	CU_add_test(s, "random garbage rejected", test_random_garbage_rejected);
	CU_add_test(s, "host form parsing", test_host_parse);
	CU_add_test(s, "the fsid keeps filesystems apart",
		    test_fsid_separates_filesystems);
	CU_add_test(s, "secret file create/reload/corrupt", test_key_file);
	CU_add_test(s, "secret file readable by others refused",
		    test_key_file_perms);
	CU_add_test(s, "per-export key binding", test_key_bind);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
