// SPDX-License-Identifier: LGPL-3.0-or-later
/* Stats: log-linear histogram buckets within 1% of any value, quantiles right on known data, and the per-export JSON is valid, escaped, and carries every documented key with consistent values; its keys and those io/README.md names match both ways (exact counts); one workload asserts every counter it drives and the identities between them. */
#include <CUnit/Basic.h>
#include <stdatomic.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"

static void t_bucket_error(void)
{
	double worst = 0;
	for (uint64_t v = 1; v < (1ull << 46); v = v + 1 + v / 997) {
		uint64_t mid = hist_bucket_mid(hist_bucket(v));
		double err = fabs((double)mid - (double)v) / (double)v;
		if (err > worst)
			worst = err;
	}
	CU_ASSERT_TRUE(worst <= 0.01);
	/* buckets are monotonic */
	unsigned prev = 0;
	int bad = 0;
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 / 2 + 1) {
		unsigned b = hist_bucket(v);
		bad += b < prev;
		prev = b;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void t_quantiles(void)
{
	struct dcio_hist *h = calloc(1, sizeof(*h));
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(h, v * 1000);
	uint64_t n;
	double p50 = (double)hist_quantile(h, 0.5, &n);
	CU_ASSERT_EQUAL(n, 100000);
	CU_ASSERT_TRUE(fabs(p50 - 50000e3) / 50000e3 <= 0.01);
	double p99 = (double)hist_quantile(h, 0.99, NULL);
	CU_ASSERT_TRUE(fabs(p99 - 99000e3) / 99000e3 <= 0.01);
	double p999 = (double)hist_quantile(h, 0.999, NULL);
	CU_ASSERT_TRUE(fabs(p999 - 99900e3) / 99900e3 <= 0.01);
	CU_ASSERT_EQUAL(h->max, 100000000);
	CU_ASSERT_EQUAL(hist_quantile(h, 1.0, NULL), 100000000);
	free(h);
}

static const char *keys[] = {
	"export",
	"write_mode",
	"read_mode",
	"flush_mode",
	"fallback",
	"verifier_gen",
	"writes.dontcache.ops",
	"writes.dontcache.bytes",
	"writes.buffered.ops",
	"writes.direct.bytes",
	"writes.dropbehind.ops",
	"reads.ops",
	"reads.bytes",
	"fallbacks.dontcache_write",
	"fallbacks.dontcache_read",
	"fallbacks.direct",
	"flusher.passes",
	"flusher.writes_coalesced",
	"flusher.writes_per_pass",
	"flusher.max_writes_per_pass",
	"group_commit.batches",
	"group_commit.requests",
	"group_commit.syscalls_saved",
	"group_commit.max_batch",
	"inflight.bytes",
	"inflight.peak",
	"inflight.limit",
	"inflight.eagain",
	"latency.write.p50_us",
	"latency.write.p99_us",
	"latency.write.p999_us",
	"latency.write.max_us",
	"latency.read.p50_us",
	"latency.commit.p99_us",
};

static int fail_fdatasync(int fd)
{
	(void)fd;
	errno = EIO;
	return -1;
}

static void t_json(void)
{
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_syscalls t = { .fdatasync = fail_fdatasync };
	const char *name = "odd \"name\"\\ with\ttab";
	struct tl_ctx c;

	tl_ctx_open(&c, &(struct tl_setup){ .ep = &ep,
					    .sys = &t,
					    .name = name,
					    .no_file = true });
	struct dcio_export *x = c.x;

	char *js = tl_stats(x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	char v[64];
	CU_ASSERT_TRUE(tl_json_get(js, "export", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "odd \\\"name\\\"\\\\ with\\u0009tab");
	free(js);

	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(x, tl_open(&c.fs, "f", O_TRUNC), &c.f), 0);
	struct dcio_file *f = c.f;
	static char buf[65536];
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf),
					 (uint64_t)i * sizeof(buf),
					 DCIO_UNSTABLE),
				0);
	size_t got;
	CU_ASSERT_EQUAL(tl_read(f, buf, sizeof(buf), 0, &got), 0);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), EIO);

	js = tl_stats(x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		bool has = tl_json_get(js, keys[i], v, sizeof(v));
		if (!has)
			fprintf(stderr, "missing %s\n", keys[i]);
		CU_ASSERT_TRUE(has);
	}
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.ops"), 20);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.bytes"),
			20 * sizeof(buf));
	CU_ASSERT_EQUAL(tl_json_num(js, "reads.ops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "errors.EIO"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.write.count"), 20);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.commit.count"), 2);
	double p50 = tl_json_num(js, "latency.write.p50_us"),
	       p99 = tl_json_num(js, "latency.write.p99_us");
	double p999 = tl_json_num(js, "latency.write.p999_us"),
	       mx = tl_json_num(js, "latency.write.max_us");
	CU_ASSERT_TRUE(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= mx);
	CU_ASSERT_TRUE(tl_json_num(js, "verifier_gen") >= 2);
	free(js);
	/* the error was reported to a COMMIT already */
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

/* ---- the JSON keys against FSAL_DONTCACHE/io/README.md ("## Stats JSON"),
 * both ways. The section names every key in backticks, outside parentheses
 * (inside them: values and remarks), with {a,b} groups, <mode> for each write
 * mode and <ERRNO NAME> for any errno name. */
struct doc_keys {
	char **k;
	size_t n;
};

static void add_key(struct doc_keys *d, const char *k)
{
	d->k = realloc(d->k, (d->n + 1) * sizeof(*d->k));
	d->k[d->n++] = strdup(k);
}

/* expands the first {a,b,...} or <mode> in name, recursively */
static void expand(struct doc_keys *d, const char *name)
{
	const char *b = strchr(name, '{'), *m = strstr(name, "<mode>");
	char out[256];

	if (m && (!b || m < b)) {
		for (int i = 0; i < 4; i++) {
			snprintf(out, sizeof(out), "%.*s%s%s", (int)(m - name),
				 name, dcio_write_mode_name(i), m + 6);
			expand(d, out);
		}
		return;
	}
	if (!b) {
		add_key(d, name);
		return;
	}
	const char *e = strchr(b, '}');
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	for (const char *a = b + 1; a < e;) {
		const char *z = memchr(a, ',', e - a);

		if (!z)
			z = e;
		snprintf(out, sizeof(out), "%.*s%.*s%s", (int)(b - name), name,
			 (int)(z - a), a, e + 1);
		expand(d, out);
		a = z + 1;
	}
}

/* documented key doc matches emitted key: exactly, or with <ERRNO NAME>
 * standing for one component of capitals and digits */
static bool key_matches(const char *doc, const char *key)
{
	const char *w = strstr(doc, "<ERRNO NAME>");
	size_t pre = w ? (size_t)(w - doc) : 0;

	if (!w)
		return !strcmp(doc, key);
	if (strncmp(doc, key, pre) || !key[pre])
		return false;
	for (const char *p = key + pre; *p; p++)
		if (!(isupper((unsigned char)*p) || isdigit((unsigned char)*p)))
			return false;
	return true;
}

static void t_readme_keys(void)
{
	struct dcio_syscalls t = { .fdatasync = fail_fdatasync };
	struct doc_keys d = { 0 };
	static char buf[65536];
	struct tl_ctx c;
	char **names, **keys;
	size_t got, nn, nk;
	int undocumented = 0, unemitted = 0;

	char *sec = tl_readme_section(DC_IO_README, "## Stats JSON", "## ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
	nn = tl_backticked(sec, &names);
	for (size_t i = 0; i < nn; i++)
		expand(&d, names[i]);
	tl_free_keys(names, nn);
	free(sec);

	/* one errno, so that <ERRNO NAME> stands for one key */
	tl_ctx_open(&c, &(struct tl_setup){
				.sys = &t, .name = "keys", .flags = O_TRUNC });
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_read(c.f, buf, sizeof(buf), 0, &got), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	char *js = tl_stats(c.x);
	nk = tl_json_keys(js, &keys);
	free(js);
	CU_ASSERT_TRUE(nk > 0);

	for (size_t i = 0; i < nk; i++) {
		size_t j = 0;

		while (j < d.n && !key_matches(d.k[j], keys[i]))
			j++;
		if (j == d.n) {
			fprintf(stderr, "\n  emitted, not documented: %s",
				keys[i]);
			undocumented++;
		}
	}
	for (size_t j = 0; j < d.n; j++) {
		size_t i = 0;

		while (i < nk && !key_matches(d.k[j], keys[i]))
			i++;
		if (i == nk) {
			fprintf(stderr, "\n  documented, not emitted: %s",
				d.k[j]);
			unemitted++;
		}
	}
	fprintf(stderr, "\n  JSON keys: %zu documented, %zu emitted ", d.n, nk);
	CU_ASSERT_EQUAL(undocumented, 0);
	CU_ASSERT_EQUAL(unemitted, 0);
	CU_ASSERT_EQUAL(d.n, nk);
	tl_free_keys(keys, nk);
	tl_free_keys(d.k, d.n);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_json_checker(void)
{
	/* the test's own JSON checker must reject what it should */
	CU_ASSERT_TRUE(tl_json_valid(
		"{\"a\":{\"b\":[1,2.5e3,true,null]},\"c\":\"x\"}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":1,}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":01}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":\"\t\"}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":1} x"));
	CU_ASSERT_EQUAL(tl_json_num("{\"a\":{\"b\":42}}", "a.b"), 42);
}

/* One workload on a pool engine whose syscall table refuses the first
 * RWF_DONTCACHE write and read: every documented counter it drives is
 * asserted (exactly where the engine is deterministic, > 0 for the flusher,
 * which runs on its own clock), with the identities between them.
 * lost_in_flight, settles, inflight waits/eagain and errors.* are asserted
 * exactly in test_dcio_errors and test_dcio_inflight. */
static atomic_int refused_w, refused_r;

static ssize_t once_pwritev2(int fd, const struct iovec *iov, int cnt,
			     off_t off, int flags)
{
	if ((flags & RWF_DONTCACHE) && !atomic_exchange(&refused_w, 1)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return pwritev2(fd, iov, cnt, off, flags);
}

static ssize_t once_preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags)
{
	if ((flags & RWF_DONTCACHE) && !atomic_exchange(&refused_r, 1)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return preadv2(fd, iov, cnt, off, flags);
}

#define W 65536
#define NW 8

static double num(struct dcio_export *x, const char *path)
{
	char *js = tl_stats(x);
	double v = tl_json_num(js, path);

	CU_ASSERT_TRUE(tl_json_valid(js));
	free(js);
	return v;
}

static void t_counters(void)
{
	struct dcio_syscalls sys = { .pwritev2 = once_pwritev2,
				     .preadv2 = once_preadv2 };
	struct dcio_engine_params ep = { .threads = 2 };
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
			  DCIO_FLUSH_COALESCED);
	struct tl_ctx c;
	static char buf[W];
	size_t got;

	p.caller_write_max = 4096;
	p.flush_file_bytes = W;
	p.flush_interval_ms = 20;
	p.max_inflight_bytes = 1 << 20;
	tl_ctx_open(&c, &(struct tl_setup){ .ep = &ep,
					    .sys = &sys,
					    .p = &p,
					    .name = "counters",
					    .flags = O_TRUNC,
					    .no_dirfd = true });
	struct dcio_export *x = c.x;
	struct dcio_file *f = c.f;

	tl_fill(buf, W, 0, 9);
	for (int i = 0; i < NW; i++)
		CU_ASSERT_EQUAL(
			tl_write(f, buf, W, (uint64_t)i * W, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_write(f, buf, 4096, 1 << 20, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(tl_read(f, buf, W, 0, &got), 0);
	CU_ASSERT_EQUAL(got, W);
	/* cached by a plain write: answered on this thread */
	CU_ASSERT_EQUAL(pwrite(dcio_file_fd(f), buf, 4096, 2 << 20), 4096);
	struct iovec iov = { buf, 4096 };
	CU_ASSERT_EQUAL(dcio_read_nowait(f, &iov, 1, 2 << 20, &got), 0);
	CU_ASSERT_EQUAL(got, 4096);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);
	/* the flusher's passes take every write, start writeback, then drop:
	 * wait (up to 5 s) until it has done all three */
	for (int i = 0; i < 500; i++) {
		if (num(x, "flusher.writes_coalesced") == NW + 1 &&
		    num(x, "flusher.bytes") == (double)NW * W + 4096 &&
		    num(x, "flusher.dontneed_calls") > 0)
			break;
		usleep(10000);
	}

	char *js = tl_stats(x);
	uint64_t wbytes = (uint64_t)NW * W + 4096;

	/* refused once: that write (accepted as dontcache) went out as
	 * dropbehind, and every later one is accepted as dropbehind */
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.ops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.bytes"), W);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.issued_bytes"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dropbehind.ops"), NW);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dropbehind.bytes"), wbytes - W);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dropbehind.issued_bytes"),
			wbytes);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.buffered.ops"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.direct.ops"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "worker_writes.ops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "worker_writes.bytes"), 4096);
	CU_ASSERT_EQUAL(tl_json_num(js, "reads.ops"), 2);
	CU_ASSERT_EQUAL(tl_json_num(js, "reads.bytes"), W + 4096);
	CU_ASSERT_EQUAL(tl_json_num(js, "reads.nowait"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_write"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_read"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.direct"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallback"), -1); /* a boolean */

	double passes = tl_json_num(js, "flusher.passes");
	double fw = tl_json_num(js, "flusher.writes_coalesced");
	CU_ASSERT_TRUE(passes > 0);
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.files") > 0);
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.files") >= passes);
	CU_ASSERT_EQUAL(fw, NW + 1);
	CU_ASSERT_TRUE(fabs(tl_json_num(js, "flusher.writes_per_pass") -
			    fw / passes) < 0.01);
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.max_writes_per_pass") > 0);
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.max_writes_per_pass") <= fw);
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.ranges") > 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "flusher.bytes"), wbytes);
	/* one WRITE-start per range, one drain per dropped range */
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.sync_file_range_calls") >
		       tl_json_num(js, "flusher.ranges"));
	CU_ASSERT_TRUE(tl_json_num(js, "flusher.dontneed_calls") > 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "flusher.inline_kicks"), 0);

	double b = tl_json_num(js, "group_commit.batches");
	double rq = tl_json_num(js, "group_commit.requests");
	double sc = tl_json_num(js, "group_commit.syscalls");
	CU_ASSERT_EQUAL(b, 1);
	CU_ASSERT_EQUAL(rq, 1);
	CU_ASSERT_EQUAL(b, sc);
	CU_ASSERT_EQUAL(rq - sc,
			tl_json_num(js, "group_commit.syscalls_saved"));
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.avg_batch"), rq / b);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.max_batch"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.nothing_dirty"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.lost_range_reports"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.lost_in_flight"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "group_commit.settles"), 0);

	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.bytes"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.peak"), W);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.limit"), 1 << 20);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.waits"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "inflight.eagain"), 0);
	CU_ASSERT_EQUAL(tl_json_num(js, "verifier_gen"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.write.count"), NW + 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.read.count"), 2);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.commit.count"), 2);
	free(js);

	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "histogram buckets within 1%", t_bucket_error },
	{ "quantiles on known data", t_quantiles },
	{ "export JSON valid with every key", t_json },
	{ "every JSON key documented in io/README.md and back", t_readme_keys },
	{ "JSON checker sanity", t_json_checker },
	{ "one workload: every counter and identity", t_counters },
};

int main(void)
{
	tl_require(0);
	return TL_RUN_SUITE("stats", cases);
}
