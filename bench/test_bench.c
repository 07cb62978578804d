// SPDX-License-Identifier: LGPL-3.0-or-later
/* CUnit tests for dcbench's pure parts: histogram, options, accounting, reports. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "hist.h"
#include "opts.h"
#include "stats.h"
#include "sampler.h"
#include "report.h"

static struct hist H;

static int rel_ok(double got, double want, double tol)
{
	if (want == 0)
		return fabs(got) <= tol;
	return fabs(got - want) / want <= tol;
}

static void test_hist_buckets(void)
{
	/* every value maps into a bucket whose bounds contain it, and the bucket
	 * midpoint is within 1% of the value */
	uint64_t s = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		uint64_t v = s >> (s % 60);
		unsigned idx = hist_index(v);
		CU_ASSERT_FATAL(idx < HIST_BUCKETS);
		uint64_t lo = hist_bucket_low(idx), hi = hist_bucket_high(idx);
		CU_ASSERT_FATAL(lo <= v && v <= hi);
		double mid = (double)lo + (double)(hi - lo) / 2;
		if (v)
			CU_ASSERT_FATAL(fabs(mid - (double)v) / (double)v <=
					0.01);
	}
	CU_ASSERT(hist_index(UINT64_MAX) == HIST_BUCKETS - 1);
	CU_ASSERT(hist_index(0) == 0);
	CU_ASSERT(hist_index(127) == 127);
	CU_ASSERT(hist_bucket_low(hist_index(128)) == 128);
	/* buckets are contiguous */
	for (unsigned i = 1; i < 4000; i++)
		CU_ASSERT_FATAL(hist_bucket_low(i) ==
				hist_bucket_high(i - 1) + 1);
}

static void test_hist_uniform(void)
{
	hist_init(&H);
	for (uint64_t v = 1; v <= 1000000; v++)
		hist_add(&H, v);
	CU_ASSERT(H.count == 1000000);
	CU_ASSERT(H.min == 1 && H.max == 1000000);
	double ps[] = { 50, 90, 99, 99.9, 99.99 };
	for (unsigned i = 0; i < 5; i++)
		CU_ASSERT(rel_ok((double)hist_percentile(&H, ps[i]),
				 ps[i] * 10000.0, 0.01));
	CU_ASSERT(hist_percentile(&H, 100) == 1000000);
	CU_ASSERT(hist_percentile(&H, 0) == 1);
	CU_ASSERT(rel_ok(hist_mean(&H), 500000.5, 1e-9));
}

static void test_hist_exponential(void)
{
	/* deterministic exponential sample with mean 1 ms (in ns): quantiles -ln(1-p) * mean */
	hist_init(&H);
	const int n = 1000000;
	const double mean = 1e6;
	for (int i = 0; i < n; i++) {
		double u = (i + 0.5) / n;
		hist_add(&H, (uint64_t)(-log(1 - u) * mean));
	}
	double ps[] = { 50, 90, 99, 99.9, 99.99 };
	for (unsigned i = 0; i < 5; i++) {
		double want = -log(1 - ps[i] / 100) * mean;
		CU_ASSERT(
			rel_ok((double)hist_percentile(&H, ps[i]), want, 0.01));
	}
}

static void test_hist_bimodal_small_exact(void)
{
	hist_init(&H);
	CU_ASSERT(hist_percentile(&H, 50) == 0);
	/* 99% at 100 us, 1% at 10 ms: p99 sits in the first mode, p99.9 in the second */
	hist_add_n(&H, 100000, 9900);
	hist_add_n(&H, 10000000, 100);
	CU_ASSERT(rel_ok((double)hist_percentile(&H, 50), 100000, 0.01));
	CU_ASSERT(rel_ok((double)hist_percentile(&H, 99), 100000, 0.01));
	CU_ASSERT(rel_ok((double)hist_percentile(&H, 99.9), 10000000, 0.01));
	CU_ASSERT(hist_percentile(&H, 100) == 10000000);
	/* a single value: every percentile is that value, exactly (clamped to min/max) */
	hist_init(&H);
	hist_add(&H, 123456789);
	CU_ASSERT(hist_percentile(&H, 50) == 123456789);
	CU_ASSERT(hist_percentile(&H, 99.99) == 123456789);
	/* small values are exact */
	hist_init(&H);
	for (int v = 0; v < 100; v++)
		hist_add(&H, v);
	CU_ASSERT(hist_percentile(&H, 50) == 49);
	CU_ASSERT(hist_percentile(&H, 90) == 89);
}

static void test_hist_merge(void)
{
	static struct hist a, b, all;
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (uint64_t v = 1; v < 50000; v++) {
		hist_add(v % 2 ? &a : &b, v * 37);
		hist_add(&all, v * 37);
	}
	hist_merge(&a, &b);
	CU_ASSERT(a.count == all.count && a.min == all.min && a.max == all.max);
	CU_ASSERT(memcmp(a.b, all.b, sizeof(a.b)) == 0);
	CU_ASSERT(hist_percentile(&a, 99.9) == hist_percentile(&all, 99.9));
}

/* ---- options ---- */
/* o points into the argument strings: they live in a static buffer until the next call */
static int parse(struct dcb_opts *o, const char *line, char *err)
{
	static char buf[2048];
	static char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof(buf), "dcbench %s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	dcb_opts_defaults(o);
	return dcb_opts_parse(o, argc, argv, err, 512);
}

#define URL "--url nfs://127.0.0.1/x?version=3&nfsport=12049&mountport=12050 "

static void test_opts_good(void)
{
	struct dcb_opts o;
	char err[512] = "";
	CU_ASSERT_FATAL(
		parse(&o,
		      URL
		      "--conns 16 --qd 4 --bs 64k --size 1G --pattern rand "
		      "--stable filesync --json /tmp/x.json --warmup 1 --time 10 "
		      "--min-bytes 2G",
		      err) == 0);
	CU_ASSERT(o.min_bytes == (2ULL << 30));
	CU_ASSERT(o.conns == 16 && o.qd == 4 && o.bs == 65536 &&
		  o.size == (1ULL << 30));
	CU_ASSERT(o.pattern == PAT_RAND && o.stable == 2 && o.time_s == 10 &&
		  o.warmup_s == 1);
	CU_ASSERT(o.nurls == 1 && !strcmp(o.json_path, "/tmp/x.json"));
	CU_ASSERT(
		parse(&o,
		      URL URL
		      "--server-path /a --server-path /b --commit-every 8M --readers 3 "
		      "--read-bs 4k --hot-files 2 --hot-size 16M --read-iops 500",
		      err) == 0);
	CU_ASSERT(o.nurls == 2 && o.commit_every == (8ULL << 20) &&
		  o.readers == 3 && o.read_iops == 500);
	CU_ASSERT(parse(&o, "--help", err) == 1);
	uint64_t v;
	CU_ASSERT(dcb_parse_size("4k", &v) == 0 && v == 4096);
	CU_ASSERT(dcb_parse_size("1MiB", &v) == 0 && v == 1048576);
	CU_ASSERT(dcb_parse_size("2G", &v) == 0 && v == (2ULL << 30));
	CU_ASSERT(dcb_parse_size("512", &v) == 0 && v == 512);
	CU_ASSERT(dcb_parse_size("512b", &v) == 0 && v == 512);
}

static void test_opts_bad(void)
{
	static const char *bad[] = {
		"--conns 4", /* no URL */
		URL "--conns -1",
		URL "--conns abc",
		URL "--conns 5000",
		URL "--qd 0",
		URL "--qd 3x",
		URL "--bs 100",
		URL "--bs 1X",
		URL "--bs 32M",
		URL "--bs 1.5M",
		URL "--size 0",
		URL "--size -5",
		URL "--pattern zigzag",
		URL "--stable maybe",
		URL "--time -1",
		URL "--time 0",
		URL "--time abc",
		URL "--warmup 5 --time 5",
		URL "--min-bytes 1G", /* not a timed run */
		URL "--time 5 --min-bytes 0",
		URL "--conns 0 --readers 1 --time 5 --min-bytes 1M",
		URL "--frobnicate 1",
		"--url http://x/y",
		"--url nfs://h/x?version=4",
		URL "--bs 1M --size 4k",
		URL "--pattern rand --bs 64k --size 100k",
		URL "--server-path /a --server-path /b",
		URL "--server-path relative",
		URL "stray",
		URL "--conns 0",
		URL "--readers x",
		URL "--read-bs 0",
		URL "--readers 2 --read-bs 1M --hot-size 4k",
		URL "--read-iops -3",
		URL "--stable filesync --commit-every 1M",
		URL "--prefix a/b",
		URL "--conns 0 --readers 1",
		URL "--json",
		URL "--seed x1",
		URL "--rpc-timeout 0",
		URL "--interval 0.01",
		URL "--drain-timeout -1",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dcb_opts o;
		char err[512] = "";
		int rc = parse(&o, bad[i], err);
		if (rc != -1)
			fprintf(stderr, "\naccepted bad options: %s\n", bad[i]);
		CU_ASSERT(rc == -1);
		CU_ASSERT(err[0] != 0);
	}
	uint64_t v;
	CU_ASSERT(dcb_parse_size("", &v) == -1);
	CU_ASSERT(dcb_parse_size("k", &v) == -1);
	CU_ASSERT(dcb_parse_size("99999999999999999999", &v) == -1);
	CU_ASSERT(dcb_parse_size("20000000000T", &v) == -1);
	CU_ASSERT(dcb_parse_size("1 M", &v) == -1);
}

/* ---- accounting ---- */
static void test_accounting(void)
{
	static struct dcb_results r;
	CU_ASSERT_FATAL(dcb_results_init(&r, 2, 1000000000ULL) ==
			0); /* 1 s warm-up */
	/* warm-up: counted in totals, not in the measured window or latencies */
	dcb_account(&r, 0, OP_WRITE, 1 << 20, 500000000ULL, 1000);
	/* measured: 10 writes of 1 MiB on conn 0, 5 on conn 1, 2 commits, 3 reads */
	for (int i = 0; i < 10; i++)
		dcb_account(&r, 0, OP_WRITE, 1 << 20,
			    1000000000ULL + i * 100000000ULL, 2000);
	for (int i = 0; i < 5; i++)
		dcb_account(&r, 1, OP_WRITE, 1 << 20, 2500000000ULL, 4000);
	dcb_account(&r, 0, OP_COMMIT, 0, 1500000000ULL, 50000);
	dcb_account(&r, 1, OP_COMMIT, 0, 2900000000ULL, 70000);
	for (int i = 0; i < 3; i++)
		dcb_account(&r, 1, OP_READ, 4096, 2000000000ULL, 300);
	CU_ASSERT(r.bytes[OP_WRITE] == 16ULL << 20);
	CU_ASSERT(r.m_bytes[OP_WRITE] == 15ULL << 20);
	CU_ASSERT(r.ops[OP_WRITE] == 16 && r.m_ops[OP_WRITE] == 15);
	CU_ASSERT(r.lat[OP_WRITE].count == 15 && r.lat[OP_WRITE].min == 2000 &&
		  r.lat[OP_WRITE].max == 4000);
	CU_ASSERT(r.conn[0].bytes[OP_WRITE] == 11ULL << 20 &&
		  r.conn[0].m_bytes[OP_WRITE] == 10ULL << 20);
	CU_ASSERT(r.conn[1].m_ops[OP_READ] == 3 &&
		  r.conn[1].ops[OP_COMMIT] == 1);
	CU_ASSERT(r.lat[OP_COMMIT].count == 2 && r.lat[OP_COMMIT].max == 70000);
	/* timeline: second 0 has the warm-up write, second 1 ten writes and a commit, second 2 ... */
	CU_ASSERT(r.ntl == 3);
	CU_ASSERT(r.tl[0].bytes[OP_WRITE] == 1 << 20);
	CU_ASSERT(r.tl[1].ops[OP_WRITE] == 10 && r.tl[1].ops[OP_COMMIT] == 1);
	CU_ASSERT(r.tl[2].ops[OP_WRITE] == 5 && r.tl[2].ops[OP_READ] == 3 &&
		  r.tl[2].lat_max_ns[OP_COMMIT] == 70000);
	/* rates over the measured window [1 s, 3 s] */
	CU_ASSERT(rel_ok(dcb_rate_mbps(&r, OP_WRITE, 3000000000ULL),
			 (15.0 * 1048576) / 1e6 / 2, 1e-9));
	CU_ASSERT(
		rel_ok(dcb_rate_iops(&r, OP_WRITE, 3000000000ULL), 7.5, 1e-9));
	CU_ASSERT(dcb_rate_mbps(&r, OP_WRITE, 500) == 0);
	/* errors by status */
	dcb_account_nfs_error(&r, 0, 5);
	dcb_account_nfs_error(&r, 0, 5);
	dcb_account_nfs_error(&r, 1, 10008);
	CU_ASSERT(dcb_nfs_error_count(&r, 5) == 2 &&
		  dcb_nfs_error_count(&r, 10008) == 1);
	CU_ASSERT(dcb_nfs_error_count(&r, 28) == 0 &&
		  dcb_nfs_errors_total(&r) == 3);
	CU_ASSERT(r.conn[0].errors == 2 && r.conn[1].errors == 1);
	CU_ASSERT_STRING_EQUAL(dcb_nfs_status_name(10008), "NFS3ERR_JUKEBOX");
	CU_ASSERT_STRING_EQUAL(dcb_nfs_status_name(28), "NFS3ERR_NOSPC");
	/* more distinct statuses than table slots: none lost from the total */
	for (int s = 100; s < 150; s++)
		dcb_account_nfs_error(&r, 0, s);
	CU_ASSERT(dcb_nfs_errors_total(&r) >= 3 + 32 - 2);

	/* the JSON report is complete and carries the accounting */
	struct dcb_opts o;
	char err[512];
	CU_ASSERT_FATAL(parse(&o, URL "--conns 1 --readers 1 --label t", err) ==
			0);
	r.bytes_asked = 16ULL << 20;
	r.bytes_written = 16ULL << 20;
	r.end_ns = 3000000000ULL;
	struct dcb_sampler sp;
	dcb_sampler_init(&sp, dcb_now_ns(), 0, NULL);
	struct dcb_sample smp;
	dcb_sampler_take(&sp, 1.0, &smp);
	struct dcb_conn_info ci[2] = { { ROLE_WRITER, 0, "dcb.0", 0, 0 },
				       { ROLE_READER, 0, NULL, 0, 0 } };
	struct dcb_run_info ri = { .elapsed_s = 3,
				   .finished = 1,
				   .stop_reason = "size" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dcb_write_json(f, &o, &r, &sp, ci, 2, &ri);
	fclose(f);
	CU_ASSERT(strstr(buf, "\"complete\": true") != NULL);
	CU_ASSERT(
		strstr(buf,
		       "\"bytes_asked\": 16777216, \"bytes_written\": 16777216") !=
		NULL);
	CU_ASSERT(strstr(buf, "\"NFS3ERR_IO\": 2") != NULL);
	CU_ASSERT(strstr(buf, "\"p99.99\"") != NULL);
	CU_ASSERT(strstr(buf, "\"finished\": true") != NULL);
	int depth = 0, minus = 0;
	for (char *p = buf; *p; p++) {
		depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
		minus |= depth < 0;
	}
	CU_ASSERT(depth == 0 && !minus);
	CU_ASSERT(strstr(buf, "nan") == NULL && strstr(buf, "inf") == NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	dcb_write_timeline_csv(f, &r, &sp);
	fclose(f);
	CU_ASSERT(strncmp(buf, "t,write_mbps", 12) == 0);
	int lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	CU_ASSERT(lines == 1 + r.ntl);
	free(buf);
	dcb_sampler_free(&sp);
	dcb_results_free(&r);
}

/* Spends secs of this process's CPU time (not wall time: the machine may be busy). */
static void burn_cpu_s(double secs)
{
	struct timespec t0, t;
	volatile uint64_t x = 1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 <
		 secs);
}

/* the server's CPU seconds over the run and its memory, measured on this process */
static void test_server_cpu_rss(void)
{
	int64_t rss = -1, hwm = -1;
	CU_ASSERT(dcb_proc_mem(getpid(), &rss, &hwm) == 0);
	CU_ASSERT(rss > 0 && hwm >= rss);
	CU_ASSERT(dcb_proc_mem(-1, &rss, &hwm) == -1 && rss == -1 && hwm == -1);
	CU_ASSERT(dcb_proc_ticks(-1) == 0);
	CU_ASSERT(dcb_proc_minflt(-1) == 0);
	CU_ASSERT(dcb_proc_minflt(getpid()) > 0);

	struct dcb_sampler sp;
	dcb_sampler_init(&sp, dcb_now_ns(), getpid(), NULL);
	sp.interval_ns = 50000000ULL;
	CU_ASSERT_FATAL(dcb_sampler_start(&sp) == 0);
	/* 0.3 s of this process's CPU time (not wall time: the machine may be busy) */
	burn_cpu_s(0.3);
	/* 2048 pages touched anew: at least as many minor faults (no huge
	 * pages, which would take one fault for 512 of them) */
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), mlen = 2048 * pg;
	char *m = mmap(NULL, mlen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(m != MAP_FAILED);
	madvise(m, mlen, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < mlen; i += pg)
		m[i] = 1;
	munmap(m, mlen);
	dcb_sampler_stop(&sp);
	CU_ASSERT(dcb_sampler_server_minflt(&sp) >= 2048);
	double cpu = dcb_sampler_server_cpu_s(&sp);
	/* clock-tick accounting: within a few ticks of the CPU time used */
	CU_ASSERT(cpu >= 0.2 && cpu <= 1.5);
	CU_ASSERT(sp.server_hwm_kib > 0);
	CU_ASSERT(sp.n >= 2 && sp.s[sp.n - 1].server_rss_kib > 0);

	struct dcb_results r;
	CU_ASSERT_FATAL(dcb_results_init(&r, 1, 0) == 0);
	dcb_account(&r, 0, OP_WRITE, 500000000, 100000000ULL, 2000);
	dcb_account(&r, 0, OP_READ, 500000000, 200000000ULL, 300);
	r.end_ns = 300000000ULL;
	struct dcb_opts o;
	char err[512];
	CU_ASSERT_FATAL(parse(&o, URL "--conns 1 --label t", err) == 0);
	struct dcb_conn_info ci[1] = { { ROLE_WRITER, 0, "dcb.0", 0, 0 } };
	struct dcb_run_info ri = { .elapsed_s = 1,
				   .finished = 1,
				   .stop_reason = "size" };
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dcb_write_json(f, &o, &r, &sp, ci, 1, &ri);
	fclose(f);
	/* 1 GB moved (written + read): CPU-s per GB == CPU-s */
	p = strstr(buf, "\"cpu_s_per_gb\": ");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(rel_ok(strtod(p + 16, NULL), cpu, 0.001));
	/* its minor faults per MiB moved (1 GB = 953.67 MiB) */
	p = strstr(buf, "\"minor_faults_per_mib\": ");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(fabs(strtod(p + 24, NULL) -
		       dcb_sampler_server_minflt(&sp) / (1e9 / 1048576.0)) <
		  0.01);
	CU_ASSERT(strstr(buf, "\"bytes_moved\": 1000000000") != NULL);
	p = strstr(buf, "\"host_cpu_s_per_gb\": ");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(rel_ok(strtod(p + 21, NULL), dcb_sampler_host_cpu_s(&sp),
			 0.001));
	p = strstr(buf, "\"server_hwm_mib\": ");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(strtod(p + 18, NULL) > 0);
	CU_ASSERT(strstr(buf, "\"server_rss\": {\"peak\": ") != NULL);
	CU_ASSERT(strstr(buf, "nan") == NULL && strstr(buf, "inf") == NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	dcb_write_timeline_csv(f, &r, &sp);
	fclose(f);
	/* every line has the header's 14 columns */
	int commas = 0, bad = 0;
	for (p = buf; *p; p++) {
		if (*p == ',')
			commas++;
		else if (*p == '\n') {
			bad |= commas != 13;
			commas = 0;
		}
	}
	CU_ASSERT(!bad);
	CU_ASSERT(strstr(buf, ",server_rss_mib\n") != NULL);
	free(buf);
	dcb_results_free(&r);
	dcb_sampler_free(&sp);
}

static void test_residency(void)
{
	char path[] = "/tmp/dcb_resXXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	static char blk[1 << 20];
	memset(blk, 7, sizeof(blk));
	CU_ASSERT(write(fd, blk, sizeof(blk)) == (ssize_t)sizeof(blk));
	close(fd);
	uint64_t r = 0, d = 0, sz = 0;
	CU_ASSERT(dcb_file_residency(path, 0, &r, &d, &sz) == 0); /* mincore */
	CU_ASSERT(sz == 1024);
	CU_ASSERT(r <= 1024);
	uint64_t r2, d2, sz2;
	CU_ASSERT(dcb_file_residency(path, 1, &r2, &d2, &sz2) ==
		  0); /* cachestat or fallback */
	CU_ASSERT(sz2 == 1024 && r2 <= 1024 + 4);
	CU_ASSERT(dcb_file_residency("/nonexistent/dcb", 1, &r, &d, &sz) == -1);
	unlink(path);
}

/* the machine's busy CPU less the client's: a child's CPU counts, the
 * sampling process's own does not */
static void test_host_cpu(void)
{
	uint64_t t = 0;

	CU_ASSERT(
		dcb_parse_cpu_busy(
			"cpu  3102239 278331 3885086 5511475 1586724 0 272904 7 0 0\n",
			&t) == 0);
	/* user + nice + system + irq + softirq + steal; not idle, iowait */
	CU_ASSERT(t == 3102239ULL + 278331 + 3885086 + 0 + 272904 + 7);
	CU_ASSERT(dcb_parse_cpu_busy("cpu 1 2 3 4\n", &t) == 0 && t == 6);
	CU_ASSERT(dcb_parse_cpu_busy("cpu0 1 2 3 4 5 6 7 8\n", &t) == -1);
	CU_ASSERT(dcb_parse_cpu_busy("intr 1 2 3 4 5\n", &t) == -1);
	CU_ASSERT(dcb_parse_cpu_busy("cpu 1 2\n", &t) == -1);

	struct dcb_sampler sp;
	dcb_sampler_init(&sp, dcb_now_ns(), 0, NULL);
	sp.interval_ns = 50000000ULL;
	CU_ASSERT_FATAL(dcb_sampler_start(&sp) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		burn_cpu_s(0.4);
		_exit(0);
	}
	int st;
	CU_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	double child = dcb_sampler_host_cpu_s(&sp);
	CU_ASSERT(child == -1); /* not stopped yet: unknown */
	/* the client burns as much as the child did: not counted */
	burn_cpu_s(0.4);
	dcb_sampler_stop(&sp);
	double host = dcb_sampler_host_cpu_s(&sp);
	/* the child's 0.4 s in clock ticks; the client's own 0.4 s left out,
	 * so only other load on the machine can raise it past 0.4 + 0.4 */
	CU_ASSERT(host >= 0.3);
	uint64_t client = sp.client_ticks_stop - sp.client_ticks_start;
	CU_ASSERT(client >= (uint64_t)(0.3 * sysconf(_SC_CLK_TCK)));
	dcb_sampler_free(&sp);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite("bench", NULL, NULL);
	CU_add_test(s, "histogram bucket bounds and relative error",
		    test_hist_buckets);
	CU_add_test(s, "histogram uniform percentiles", test_hist_uniform);
	CU_add_test(s, "histogram exponential percentiles",
		    test_hist_exponential);
	CU_add_test(s, "histogram bimodal, empty, single, small exact",
		    test_hist_bimodal_small_exact);
	CU_add_test(s, "histogram merge", test_hist_merge);
	CU_add_test(s, "options accepted", test_opts_good);
	CU_add_test(s, "options rejected", test_opts_bad);
	CU_add_test(s, "result accounting and reports", test_accounting);
	CU_add_test(s, "file residency", test_residency);
	CU_add_test(s, "server CPU seconds and RSS", test_server_cpu_rss);
	CU_add_test(s, "machine CPU less the client's", test_host_cpu);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned fails = CU_get_number_of_failures();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
