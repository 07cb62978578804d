// SPDX-License-Identifier: LGPL-3.0-or-later
/* Modes: every write/read/flush mode round-trips data on ext4 and tmpfs with the right syscall flags; inline completes before dcio_write returns; tmpfs (and a run-time EOPNOTSUPP) falls back to dropbehind/buffered and says so; mode names parse case-insensitively. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "dcio_testlib.h"

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

static atomic_int w_dc, w_plain, r_dc, r_plain, sfr_calls, refuse_dontcache;
static pthread_t submitter;
static atomic_int write_on_submitter;

static ssize_t fake_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	if (pthread_equal(pthread_self(), submitter))
		atomic_fetch_add(&write_on_submitter, 1);
	if (flags & RWF_DONTCACHE) {
		atomic_fetch_add(&w_dc, 1);
		if (atomic_load(&refuse_dontcache)) {
			errno = EOPNOTSUPP;
			return -1;
		}
	} else {
		atomic_fetch_add(&w_plain, 1);
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static ssize_t fake_preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	if (flags & RWF_DONTCACHE) {
		atomic_fetch_add(&r_dc, 1);
		if (atomic_load(&refuse_dontcache)) {
			errno = EOPNOTSUPP;
			return -1;
		}
	} else {
		atomic_fetch_add(&r_plain, 1);
	}
	return preadv2(fd, iov, cnt, off, flags);
}

static int fake_sfr(int fd, off_t off, off_t len, unsigned int flags)
{
	atomic_fetch_add(&sfr_calls, 1);
	return sync_file_range(fd, off, len, flags);
}

static void reset(void)
{
	atomic_store(&w_dc, 0);
	atomic_store(&w_plain, 0);
	atomic_store(&r_dc, 0);
	atomic_store(&r_plain, 0);
	atomic_store(&sfr_calls, 0);
	atomic_store(&write_on_submitter, 0);
	atomic_store(&refuse_dontcache, 0);
	submitter = pthread_self();
}

#define LEN (3 * 65536 + 777)

struct result {
	char *js;
	int inline_early; /* done seen before dcio_write returned */
};

static void roundtrip(bool tmpfs, bool table, enum dcio_write_mode wm,
		      enum dcio_read_mode rm, enum dcio_flush_mode fm,
		      struct result *res)
{
	struct dcio_syscalls t = { .pwritev2 = fake_pwritev2,
				   .preadv2 = fake_preadv2,
				   .sync_file_range = fake_sfr };
	struct dcio_engine_params ep = { .threads = 1 };
	struct dcio_export_params p = tl_params(wm, rm, fm);
	struct tl_ctx c;

	p.flush_file_bytes = 4096;
	reset();
	tl_ctx_open(&c, &(struct tl_setup){ .kind = tmpfs ? TL_FS_TMPFS
							  : TL_FS_EXT4,
					    .tmpfs_mb = 16,
					    .ep = &ep,
					    .sys = table ? &t : NULL,
					    .p = &p,
					    .name = "modes",
					    .flags = O_TRUNC });
	struct dcio_file *f = c.f;

	static char buf[LEN], back[LEN + 100];
	tl_fill(buf, LEN, 333, (unsigned)(wm * 10 + rm));
	struct tl_wait w;
	struct tl_op op = { .w = &w };
	struct iovec iov[2] = { { buf, 1000 }, { buf + 1000, LEN - 1000 } };
	tl_wait_init(&w);
	CU_ASSERT_EQUAL(dcio_write(f, iov, 2, 333, DCIO_UNSTABLE, NULL, NULL,
				   tl_op_done, &op),
			0);
	pthread_mutex_lock(&w.mu);
	res->inline_early = w.n;
	pthread_mutex_unlock(&w.mu);
	tl_wait_for(&w, 1);
	CU_ASSERT_EQUAL(op.err, 0);
	CU_ASSERT_EQUAL(op.bytes, LEN);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);

	size_t got = 0;
	CU_ASSERT_EQUAL(tl_read(f, back, LEN + 100, 333, &got), 0);
	CU_ASSERT_EQUAL(got, LEN);
	CU_ASSERT_EQUAL(memcmp(back, buf, LEN), 0);
	CU_ASSERT_EQUAL(tl_read(f, back, 10, 7, &got), 0);
	CU_ASSERT_EQUAL(got, 10);
	/* a hole before the data reads as zeros */
	CU_ASSERT_EQUAL(memcmp(back, "\0\0\0\0\0\0\0\0\0\0", 10), 0);

	res->js = tl_stats(c.x);
	CU_ASSERT_TRUE(tl_json_valid(res->js));
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* every write, read and flush mode on one filesystem, through the real
 * syscalls or the counting table */
static void all_modes(bool tmpfs, bool table)
{
	char v[32];

	for (int wm = 0; wm < 4; wm++)
		for (int rm = 0; rm < 3; rm++)
			for (int fm = 0; fm < 2; fm++) {
				struct result r;

				roundtrip(tmpfs, table, wm, rm, fm, &r);
				CU_ASSERT_TRUE(tl_json_get(r.js, "write_mode",
							   v, sizeof(v)));
				CU_ASSERT_STRING_EQUAL(
					v, dcio_write_mode_name(wm));
				if (fm == DCIO_FLUSH_INLINE) {
					CU_ASSERT_EQUAL(r.inline_early, 1);
				}
				free(r.js);
			}
}

static void t_all_ext4_real(void)
{
	all_modes(false, false);
}
static void t_all_ext4_pool(void)
{
	all_modes(false, true);
}
static void t_all_tmpfs_real(void)
{
	all_modes(true, false);
}
static void t_all_tmpfs_pool(void)
{
	all_modes(true, true);
}

/* the flags each mode puts on the syscalls (the table, counted) */
static void t_flags_dontcache(void)
{
	struct result r;

	roundtrip(false, true, DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_TRUE(atomic_load(&w_dc) >= 1);
	CU_ASSERT_EQUAL(atomic_load(&w_plain), 0);
	CU_ASSERT_TRUE(atomic_load(&r_dc) >= 1);
	CU_ASSERT_EQUAL(atomic_load(&r_plain), 0);
	CU_ASSERT_EQUAL(atomic_load(&write_on_submitter), 0);
	CU_ASSERT_EQUAL(tl_json_num(r.js, "writes.dontcache.ops"), 1);
	free(r.js);
}

static void t_flags_buffered(void)
{
	struct result r;

	roundtrip(false, true, DCIO_WRITE_BUFFERED, DCIO_READ_BUFFERED,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_EQUAL(atomic_load(&w_dc), 0);
	CU_ASSERT_EQUAL(atomic_load(&r_dc), 0);
	CU_ASSERT_EQUAL(atomic_load(&sfr_calls), 0);
	CU_ASSERT_EQUAL(tl_json_num(r.js, "writes.buffered.ops"), 1);
	free(r.js);
}

/* dropbehind: buffered writes, then the flusher's sync_file_range */
static void t_flags_dropbehind(void)
{
	struct result r;

	roundtrip(false, true, DCIO_WRITE_DROPBEHIND, DCIO_READ_BUFFERED,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_EQUAL(atomic_load(&w_dc), 0);
	CU_ASSERT_TRUE(atomic_load(&w_plain) >= 1);
	CU_ASSERT_EQUAL(tl_json_num(r.js, "writes.dropbehind.ops"), 1);
	free(r.js);
}

/* inline: the caller's thread writes and kicks its own range */
static void t_inline_dropbehind(void)
{
	struct result r;

	roundtrip(false, true, DCIO_WRITE_DROPBEHIND, DCIO_READ_BUFFERED,
		  DCIO_FLUSH_INLINE, &r);
	CU_ASSERT_TRUE(atomic_load(&write_on_submitter) >= 1);
	CU_ASSERT_TRUE(atomic_load(&sfr_calls) >= 1);
	free(r.js);
}

static void t_inline_dontcache(void)
{
	struct result r;

	roundtrip(false, true, DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED,
		  DCIO_FLUSH_INLINE, &r);
	CU_ASSERT_TRUE(atomic_load(&write_on_submitter) >= 1);
	CU_ASSERT_TRUE(atomic_load(&w_dc) >= 1);
	free(r.js);
}

static void t_tmpfs_fallback(void)
{
	struct result r;
	char v[32];
	roundtrip(true, false, DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_TRUE(tl_json_get(r.js, "fallback", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "true");
	CU_ASSERT_TRUE(
		tl_json_get(r.js, "dontcache_write_supported", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "false");
	CU_ASSERT_EQUAL(tl_json_num(r.js, "writes.dropbehind.ops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(r.js, "writes.dontcache.ops"), 0);
	free(r.js);

	/* buffered on tmpfs needs no fallback */
	roundtrip(true, false, DCIO_WRITE_BUFFERED, DCIO_READ_BUFFERED,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_TRUE(tl_json_get(r.js, "fallback", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "false");
	free(r.js);

	roundtrip(false, false, DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
		  DCIO_FLUSH_COALESCED, &r);
	CU_ASSERT_TRUE(tl_json_get(r.js, "fallback", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "false");
	free(r.js);
}

/* ext4 probe says yes, then a write answers EOPNOTSUPP: resubmitted buffered */
static void t_runtime_eopnotsupp(void)
{
	struct dcio_syscalls t = { .pwritev2 = fake_pwritev2,
				   .preadv2 = fake_preadv2 };
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
			  DCIO_FLUSH_COALESCED);
	struct tl_ctx c;

	reset();
	tl_ctx_open(&c, &(struct tl_setup){ .ep = &ep,
					    .sys = &t,
					    .p = &p,
					    .name = "rt",
					    .flags = O_TRUNC });
	CU_ASSERT_FALSE(dcio_export_fallback(c.x));
	struct dcio_file *f = c.f;
	struct dcio_export *x = c.x;
	atomic_store(&refuse_dontcache, 1);
	static char buf[65536], back[65536];
	tl_fill(buf, sizeof(buf), 0, 77);
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), 0, DCIO_DATA_SYNC), 0);
	size_t got;
	CU_ASSERT_EQUAL(tl_read(f, back, sizeof(back), 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	CU_ASSERT_TRUE(dcio_export_fallback(x));
	/* only the first write and read tried RWF_DONTCACHE */
	CU_ASSERT_EQUAL(atomic_load(&w_dc), 1);
	CU_ASSERT_EQUAL(atomic_load(&r_dc), 1);
	char *js = tl_stats(x);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_write"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_read"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dropbehind.issued_bytes"),
			2 * sizeof(buf));
	free(js);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* a read-only filesystem has no room for the probe file: the export still comes up */
static void t_probe_readonly(void)
{
	struct tl_fs fs;
	CU_ASSERT_EQUAL_FATAL(tl_fs_tmpfs(&fs, 4), 0);
	CU_ASSERT_EQUAL_FATAL(
		mount(NULL, fs.dir, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	struct dcio_engine_params ep = { .threads = 1 };
	struct tl_ctx c;

	tl_ctx_open(&c, &(struct tl_setup){ .fs = &fs,
					    .ep = &ep,
					    .name = "ro",
					    .no_file = true });
	char *js = tl_stats(c.x);
	char v[16];
	CU_ASSERT_TRUE(tl_json_get(js, "probe_failed", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "true");
	free(js);
	tl_ctx_close(&c);
	tl_fs_cleanup(&fs);
}

static void t_parse(void)
{
	enum dcio_write_mode w;
	enum dcio_read_mode r;
	enum dcio_flush_mode fl;
	const char *wn[] = { "dontcache", "BUFFERED", "Direct", "dropBehind" };
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(dcio_parse_write_mode(wn[i], &w), 0);
		CU_ASSERT_EQUAL(w, i);
		CU_ASSERT_EQUAL(
			dcio_parse_write_mode(dcio_write_mode_name(i), &w), 0);
		CU_ASSERT_EQUAL(w, i);
	}
	const char *rn[] = { "Buffered", "DONTCACHE", "direct" };
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(dcio_parse_read_mode(rn[i], &r), 0);
		CU_ASSERT_EQUAL(r, i);
		CU_ASSERT_EQUAL(
			dcio_parse_read_mode(dcio_read_mode_name(i), &r), 0);
		CU_ASSERT_EQUAL(r, i);
	}
	CU_ASSERT_EQUAL(dcio_parse_flush_mode("Coalesced", &fl), 0);
	CU_ASSERT_EQUAL(fl, DCIO_FLUSH_COALESCED);
	CU_ASSERT_EQUAL(dcio_parse_flush_mode("INLINE", &fl), 0);
	CU_ASSERT_EQUAL(fl, DCIO_FLUSH_INLINE);
	CU_ASSERT_STRING_EQUAL(dcio_flush_mode_name(DCIO_FLUSH_INLINE),
			       "inline");
	CU_ASSERT_EQUAL(dcio_parse_write_mode("dropbehind ", &w), EINVAL);
	CU_ASSERT_EQUAL(dcio_parse_write_mode("", &w), EINVAL);
	CU_ASSERT_EQUAL(dcio_parse_write_mode(NULL, &w), EINVAL);
	CU_ASSERT_EQUAL(dcio_parse_read_mode("dropbehind", &r), EINVAL);
	CU_ASSERT_EQUAL(dcio_parse_flush_mode("sync", &fl), EINVAL);
}

/* The export's write and read mode names and in-flight limit, from its
 * stats, as "dontcache buffered 67108864". */
static void modes_of(struct tl_ctx *c, char *out, size_t len)
{
	char *js = tl_stats(c->x);
	char w[32] = "", r[32] = "";

	tl_json_get(js, "write_mode", w, sizeof(w));
	tl_json_get(js, "read_mode", r, sizeof(r));
	snprintf(out, len, "%s %s %.0f", w, r,
		 tl_json_num(js, "inflight.limit"));
	free(js);
}

/* dcio_export_update refuses a change to or from DCIO_WRITE_DIRECT or
 * DCIO_READ_DIRECT (files open their O_DIRECT fd when first opened) with
 * EINVAL, and changes nothing then, the other parameters included; every
 * other change is applied (issue 17: export.c relies on both). */
static void t_update_direct(void)
{
	static const struct {
		enum dcio_write_mode w0, w1;
		enum dcio_read_mode r0, r1;
		int want;
	} t[] = {
		{ DCIO_WRITE_DONTCACHE, DCIO_WRITE_DIRECT, DCIO_READ_BUFFERED,
		  DCIO_READ_BUFFERED, EINVAL },
		{ DCIO_WRITE_DIRECT, DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED,
		  DCIO_READ_BUFFERED, EINVAL },
		{ DCIO_WRITE_DIRECT, DCIO_WRITE_BUFFERED, DCIO_READ_DIRECT,
		  DCIO_READ_DIRECT, EINVAL },
		{ DCIO_WRITE_BUFFERED, DCIO_WRITE_BUFFERED, DCIO_READ_BUFFERED,
		  DCIO_READ_DIRECT, EINVAL },
		{ DCIO_WRITE_DIRECT, DCIO_WRITE_DIRECT, DCIO_READ_DIRECT,
		  DCIO_READ_DONTCACHE, EINVAL },
		{ DCIO_WRITE_DONTCACHE, DCIO_WRITE_DROPBEHIND,
		  DCIO_READ_BUFFERED, DCIO_READ_DONTCACHE, 0 },
		{ DCIO_WRITE_DIRECT, DCIO_WRITE_DIRECT, DCIO_READ_DIRECT,
		  DCIO_READ_DIRECT, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct dcio_export_params p0 = tl_params(t[i].w0, t[i].r0,
							 DCIO_FLUSH_COALESCED),
					  p1 = tl_params(t[i].w1, t[i].r1,
							 DCIO_FLUSH_COALESCED);
		char before[128], after[128], want[128];
		struct tl_ctx c;
		int rc;

		tl_ctx_open(&c, &(struct tl_setup){ .kind = TL_FS_EXT4,
						    .p = &p0,
						    .no_file = true });
		modes_of(&c, before, sizeof(before));
		p1.max_inflight_bytes = p0.max_inflight_bytes / 2;
		rc = dcio_export_update(c.x, &p1);
		modes_of(&c, after, sizeof(after));
		snprintf(want, sizeof(want), "%s %s %llu",
			 dcio_write_mode_name(t[i].w1),
			 dcio_read_mode_name(t[i].r1),
			 (unsigned long long)p1.max_inflight_bytes);
		printf("\n# %s -> %s/%s: %d, %s -> %s\n", before,
		       dcio_write_mode_name(t[i].w1),
		       dcio_read_mode_name(t[i].r1), rc, before, after);
		CU_ASSERT_EQUAL(rc, t[i].want);
		if (t[i].want != 0) {
			CU_ASSERT_STRING_EQUAL(after, before);
		} else {
			CU_ASSERT_STRING_EQUAL(after, want);
		}
		tl_ctx_close(&c);
	}
}

static const struct tl_case cases[] = {
	{ "every mode round-trips: ext4, real syscalls", t_all_ext4_real },
	{ "every mode round-trips: ext4, table", t_all_ext4_pool },
	{ "every mode round-trips: tmpfs, real syscalls", t_all_tmpfs_real },
	{ "every mode round-trips: tmpfs, table", t_all_tmpfs_pool },
	{ "dontcache: RWF_DONTCACHE writes and reads", t_flags_dontcache },
	{ "buffered: no flags, no sync_file_range", t_flags_buffered },
	{ "dropbehind: plain writes, then the flusher", t_flags_dropbehind },
	{ "inline dropbehind: the caller writes, kicks", t_inline_dropbehind },
	{ "inline dontcache: the caller writes", t_inline_dontcache },
	{ "tmpfs export falls back and says so", t_tmpfs_fallback },
	{ "run-time EOPNOTSUPP resubmits buffered", t_runtime_eopnotsupp },
	{ "read-only filesystem: probe skipped, export up", t_probe_readonly },
	{ "mode names parse case-insensitively", t_parse },
	{ "export update refuses a change to or from direct, changes nothing",
	  t_update_direct },
};

int main(void)
{
	tl_require(TL_NEED_TMPFS | TL_NEED_DONTCACHE);
	return TL_RUN_SUITE("modes", cases);
}
