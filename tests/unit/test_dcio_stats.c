/* Stats: log-linear histogram buckets within 1% of any value, quantiles right on known data, and the per-export JSON is valid, escaped, and carries every documented key with consistent values. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/engine.h"

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
	"export", "write_mode", "read_mode", "flush_mode", "backend", "fallback", "verifier_gen",
	"writes.dontcache.ops", "writes.dontcache.bytes", "writes.buffered.ops",
	"writes.direct.bytes", "writes.dropbehind.ops", "reads.ops", "reads.bytes",
	"fallbacks.dontcache_write", "fallbacks.dontcache_read", "fallbacks.direct",
	"flusher.passes", "flusher.writes_coalesced", "flusher.writes_per_pass",
	"flusher.max_writes_per_pass", "group_commit.batches", "group_commit.requests",
	"group_commit.syscalls_saved", "group_commit.max_batch", "inflight.bytes",
	"inflight.peak", "inflight.limit", "inflight.eagain",
	"latency.write.p50_us", "latency.write.p99_us", "latency.write.p999_us",
	"latency.write.max_us", "latency.read.p50_us", "latency.commit.p99_us",
};

static int fail_fdatasync(int fd)
{
	(void)fd;
	errno = EIO;
	return -1;
}

static void t_json(void)
{
	struct tl_fs fs;
	CU_ASSERT_EQUAL_FATAL(tl_fs_ext4(&fs), 0);
	struct dcio_engine_params ep = { .threads = 2, .ring_entries = 16, .use_uring = true };
	struct dcio_syscalls t = { .fdatasync = fail_fdatasync };
	struct dcio_engine *e;
	CU_ASSERT_EQUAL_FATAL(dcio_engine_create(&ep, &t, &e), 0);
	int dfd = open(fs.dir, O_RDONLY | O_DIRECTORY);
	struct dcio_export_params p = tl_params(DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED,
						DCIO_FLUSH_COALESCED);
	struct dcio_export *x;
	const char *name = "odd \"name\"\\ with\ttab";
	CU_ASSERT_EQUAL_FATAL(dcio_export_create(e, &p, name, dfd, &x), 0);

	char *js = tl_stats(x);
	CU_ASSERT_TRUE(tl_json_valid(js));
	char v[64];
	CU_ASSERT_TRUE(tl_json_get(js, "export", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "odd \\\"name\\\"\\\\ with\\u0009tab");
	free(js);

	struct dcio_file *f;
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(x, tl_open(&fs, "f", O_TRUNC), &f), 0);
	static char buf[65536];
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf), (uint64_t)i * sizeof(buf), DCIO_UNSTABLE), 0);
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
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.bytes"), 20 * sizeof(buf));
	CU_ASSERT_EQUAL(tl_json_num(js, "reads.ops"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "errors.EIO"), 1);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.write.count"), 20);
	CU_ASSERT_EQUAL(tl_json_num(js, "latency.commit.count"), 2);
	double p50 = tl_json_num(js, "latency.write.p50_us"), p99 = tl_json_num(js, "latency.write.p99_us");
	double p999 = tl_json_num(js, "latency.write.p999_us"), mx = tl_json_num(js, "latency.write.max_us");
	CU_ASSERT_TRUE(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= mx);
	CU_ASSERT_TRUE(tl_json_get(js, "backend", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "io_uring");
	CU_ASSERT_TRUE(tl_json_num(js, "verifier_gen") >= 2);
	free(js);
	/* the error was reported to a COMMIT already */
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	dcio_export_destroy(x);
	dcio_engine_destroy(e);
	close(dfd);
	tl_fs_cleanup(&fs);
}

static void t_json_checker(void)
{
	/* the test's own JSON checker must reject what it should */
	CU_ASSERT_TRUE(tl_json_valid("{\"a\":{\"b\":[1,2.5e3,true,null]},\"c\":\"x\"}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":1,}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":01}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":\"\t\"}"));
	CU_ASSERT_FALSE(tl_json_valid("{\"a\":1} x"));
	CU_ASSERT_EQUAL(tl_json_num("{\"a\":{\"b\":42}}", "a.b"), 42);
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("stats", NULL, NULL);
	CU_add_test(s, "histogram buckets within 1%", t_bucket_error);
	CU_add_test(s, "quantiles on known data", t_quantiles);
	CU_add_test(s, "export JSON valid with every key", t_json);
	CU_add_test(s, "JSON checker sanity", t_json_checker);
	return tl_run_tests();
}
