// SPDX-License-Identifier: LGPL-3.0-or-later
/* Prometheus text (dcio_export_stats_prom): every line parses as the text
 * exposition format, every family is declared, names are prefixed and
 * counters end in _total, histogram buckets are cumulative with +Inf equal to
 * _count, the figures equal the JSON's; the families and README.md's table
 * match both ways; label escaping; the engine's log sink and the rate limit of
 * repeated messages. */
#include <CUnit/Basic.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcio_testlib.h"
#include "io/core.h"

#define MAXS 512

struct psample {
	char name[96];
	char labels[512]; /* as written, between the braces */
	double v;
};

struct parsed {
	struct psample s[MAXS];
	int n;
	char fam[128][96];
	char type[128][16];
	int nfam;
	int bad; /* malformed lines */
};

static char *prom_text(struct dcio_export *x, const char *labels)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	dcio_export_stats_prom(x, labels, f);
	fclose(f);
	return buf;
}

static const char *fam_type(struct parsed *p, const char *name)
{
	for (int i = 0; i < p->nfam; i++)
		if (strcmp(p->fam[i], name) == 0)
			return p->type[i];
	return NULL;
}

/* labels: k="v" pairs, values escaped (\\, \", \n only) */
static bool labels_ok(const char *l)
{
	while (*l) {
		if (!(isalpha((unsigned char)*l) || *l == '_'))
			return false;
		while (isalnum((unsigned char)*l) || *l == '_')
			l++;
		if (*l++ != '=' || *l++ != '"')
			return false;
		while (*l && *l != '"') {
			if (*l == '\\') {
				l++;
				if (*l != '\\' && *l != '"' && *l != 'n')
					return false;
			} else if (*l == '\n') {
				return false;
			}
			l++;
		}
		if (*l++ != '"')
			return false;
		if (*l == ',')
			l++;
		else if (*l)
			return false;
	}
	return true;
}

static void parse(const char *text, struct parsed *p)
{
	char *copy = strdup(text), *save = NULL;

	memset(p, 0, sizeof(*p));
	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# HELP ", 7) == 0)
			continue;
		if (strncmp(line, "# TYPE ", 7) == 0) {
			char name[96], type[16];
			if (sscanf(line + 7, "%95s %15s", name, type) != 2 ||
			    p->nfam == 128 || fam_type(p, name)) {
				p->bad++;
				continue;
			}
			strcpy(p->fam[p->nfam], name);
			strcpy(p->type[p->nfam++], type);
			continue;
		}
		struct psample *s = &p->s[p->n];
		const char *c = line;
		size_t k = 0;
		if (!(isalpha((unsigned char)*c) || *c == '_' || *c == ':')) {
			p->bad++;
			continue;
		}
		while ((isalnum((unsigned char)*c) || *c == '_' || *c == ':') &&
		       k < sizeof(s->name) - 1)
			s->name[k++] = *c++;
		s->name[k] = '\0';
		s->labels[0] = '\0';
		if (*c == '{') {
			const char *end = c + 1;
			/* the closing brace outside any quoted value */
			bool q = false;
			for (; *end && (q || *end != '}'); end++) {
				if (*end == '\\' && q)
					end++;
				else if (*end == '"')
					q = !q;
			}
			if (*end != '}' ||
			    (size_t)(end - c - 1) >= sizeof(s->labels)) {
				p->bad++;
				continue;
			}
			memcpy(s->labels, c + 1, end - c - 1);
			s->labels[end - c - 1] = '\0';
			if (!labels_ok(s->labels)) {
				p->bad++;
				continue;
			}
			c = end + 1;
		}
		char *e;
		if (*c++ != ' ') {
			p->bad++;
			continue;
		}
		s->v = strtod(c, &e);
		if (e == c || *e != '\0' || p->n == MAXS - 1) {
			p->bad++;
			continue;
		}
		p->n++;
	}
	free(copy);
}

/* value of the sample named name whose labels contain extra ("" = any) */
static double get(struct parsed *p, const char *name, const char *extra)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->s[i].name, name) == 0 &&
		    strstr(p->s[i].labels, extra))
			return p->s[i].v;
	return -1;
}

/* checks the histogram family base: le ascending, counts cumulative, +Inf ==
 * _count; returns _count */
static double check_hist(struct parsed *p, const char *base)
{
	char bname[128], cname[128];
	double prev_le = -1, prev = -1, inf = -1;
	int nb = 0;

	snprintf(bname, sizeof(bname), "%s_bucket", base);
	snprintf(cname, sizeof(cname), "%s_count", base);
	CU_ASSERT_STRING_EQUAL(fam_type(p, base) ? fam_type(p, base) : "",
			       "histogram");
	for (int i = 0; i < p->n; i++) {
		if (strcmp(p->s[i].name, bname) != 0)
			continue;
		const char *le = strstr(p->s[i].labels, "le=\"");
		CU_ASSERT_PTR_NOT_NULL_FATAL(le);
		double lv = strncmp(le + 4, "+Inf", 4) == 0
				    ? INFINITY
				    : strtod(le + 4, NULL);
		CU_ASSERT_TRUE(lv > prev_le);
		CU_ASSERT_TRUE(p->s[i].v >= prev);
		prev_le = lv;
		prev = p->s[i].v;
		if (isinf(lv))
			inf = p->s[i].v;
		nb++;
	}
	CU_ASSERT_TRUE(nb >= 10);
	CU_ASSERT_TRUE(isinf(prev_le));
	CU_ASSERT_EQUAL(inf, get(p, cname, ""));
	return get(p, cname, "");
}

static int fail_fdatasync(int fd)
{
	(void)fd;
	errno = EIO;
	return -1;
}

/* The workload behind the Prometheus cases: 32 dropbehind writes of 64 KiB
 * (the flusher runs), 3 reads, 2 COMMITs failing with EIO, the file closed;
 * the export stays for its figures. */
static void workload(struct tl_ctx *c)
{
	struct dcio_engine_params ep = { .threads = 2 };
	static const struct dcio_syscalls t = { .fdatasync = fail_fdatasync };
	struct dcio_export_params prm =
		tl_params(DCIO_WRITE_DROPBEHIND, DCIO_READ_BUFFERED,
			  DCIO_FLUSH_COALESCED);
	static char buf[65536];
	size_t got;

	prm.flush_file_bytes = 256 * 1024;
	tl_ctx_open(c, &(struct tl_setup){ .ep = &ep,
					   .sys = &t,
					   .p = &prm,
					   .name = "export-7",
					   .flags = O_TRUNC });
	for (int i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(tl_write(c->f, buf, sizeof(buf),
					 (uint64_t)i * sizeof(buf),
					 DCIO_UNSTABLE),
				0);
	/* the flusher's first pass (the file is due at flush_file_bytes) runs
	 * on its own thread: a loaded machine may not run it before close */
	tl_wait_stat(c->x, "flusher.passes", TL_AT_LEAST, 1, 10000);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(tl_read(c->f, buf, sizeof(buf), 0, &got), 0);
	CU_ASSERT_EQUAL(dcio_commit(c->f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_commit(c->f, 0, 0), EIO);
	CU_ASSERT_EQUAL(dcio_file_close(c->f), 0);
	c->f = NULL;
}

/* the labels every sample carries: export_id and an escaped path */
static const char *const raw_path = "/srv/a \"q\"\\b\nc";

static void labels_for(char *lab, size_t len, char *path, size_t plen)
{
	char esc[128];

	dcio_prom_escape(raw_path, esc, sizeof(esc));
	snprintf(lab, len, "export_id=\"7\",path=\"%s\"", esc);
	snprintf(path, plen, "path=\"%s\"", esc);
}

/* The workload, then its Prometheus text parsed into p: labelled as labels_for
 * says (the path label back in path) unless path is NULL. */
static char *scrape(struct tl_ctx *c, struct parsed *p, char *path, size_t plen)
{
	char lab[256];

	workload(c);
	if (path)
		labels_for(lab, sizeof(lab), path, plen);
	char *text = prom_text(c->x, path ? lab : NULL);
	parse(text, p);
	return text;
}

static void t_prom_escape(void)
{
	char esc[128];

	dcio_prom_escape(raw_path, esc, sizeof(esc));
	CU_ASSERT_STRING_EQUAL(esc, "/srv/a \\\"q\\\"\\\\b\\nc");
}

/* every sample parses, is prefixed, labelled, declared; counters _total */
static void t_prom_wellformed(void)
{
	static struct parsed p;
	struct tl_ctx c;
	char path[256];
	char *text = scrape(&c, &p, path, sizeof(path));

	CU_ASSERT_EQUAL(p.bad, 0);
	CU_ASSERT_TRUE(p.n > 60);
	for (int i = 0; i < p.n; i++) {
		char base[96];
		struct psample *s = &p.s[i];
		CU_ASSERT_EQUAL(strncmp(s->name, "dontcache_", 10), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(s->labels, "export_id=\"7\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(s->labels, path));
		snprintf(base, sizeof(base), "%s", s->name);
		const char *ty = fam_type(&p, base);
		if (!ty) {
			char *u = strrchr(base, '_');
			if (u && (!strcmp(u, "_bucket") || !strcmp(u, "_sum") ||
				  !strcmp(u, "_count")))
				*u = '\0';
			ty = fam_type(&p, base);
			CU_ASSERT_STRING_EQUAL(ty ? ty : "", "histogram");
		}
		CU_ASSERT_PTR_NOT_NULL(ty);
		if (ty && !strcmp(ty, "counter")) {
			size_t l = strlen(s->name);
			CU_ASSERT_TRUE(l > 6 &&
				       !strcmp(s->name + l - 6, "_total"));
		}
		CU_ASSERT_TRUE(s->v >= 0);
	}

	free(text);
	tl_ctx_close(&c);
}

static void t_prom_equals_json(void)
{
	static struct parsed p;
	struct tl_ctx c;
	char path[256];
	char *text = scrape(&c, &p, path, sizeof(path));
	char *js = tl_stats(c.x);

	CU_ASSERT_EQUAL(p.bad, 0);
	/* the same figures as the JSON */
	static const struct {
		const char *prom, *extra, *json;
	} same[] = {
		{ "dontcache_writes_total", "mode=\"dropbehind\"",
		  "writes.dropbehind.ops" },
		{ "dontcache_write_bytes_total", "mode=\"dropbehind\"",
		  "writes.dropbehind.bytes" },
		{ "dontcache_writes_total", "mode=\"dontcache\"",
		  "writes.dontcache.ops" },
		{ "dontcache_issued_bytes_total", "mode=\"dropbehind\"",
		  "writes.dropbehind.issued_bytes" },
		{ "dontcache_worker_writes_total", "", "worker_writes.ops" },
		{ "dontcache_reads_total", "", "reads.ops" },
		{ "dontcache_read_bytes_total", "", "reads.bytes" },
		{ "dontcache_reads_nowait_total", "", "reads.nowait" },
		{ "dontcache_fallbacks_total", "kind=\"dontcache_write\"",
		  "fallbacks.dontcache_write" },
		{ "dontcache_flusher_passes_total", "", "flusher.passes" },
		{ "dontcache_flusher_writes_total", "",
		  "flusher.writes_coalesced" },
		{ "dontcache_sync_file_range_calls_total", "",
		  "flusher.sync_file_range_calls" },
		{ "dontcache_group_commit_batches_total", "",
		  "group_commit.batches" },
		{ "dontcache_group_commit_requests_total", "",
		  "group_commit.requests" },
		{ "dontcache_group_commit_syscalls_total", "",
		  "group_commit.syscalls" },
		{ "dontcache_lost_range_reports_total", "",
		  "group_commit.lost_range_reports" },
		{ "dontcache_errors_total", "errno=\"EIO\"", "errors.EIO" },
		{ "dontcache_flusher_throttled_total", "",
		  "flusher.throttled" },
		{ "dontcache_flusher_throttle_milliseconds_total", "",
		  "flusher.throttle_ms" },
		{ "dontcache_flusher_budget_bytes", "",
		  "flusher.budget_bytes" },
		{ "dontcache_stable_reply_joined_total", "",
		  "stable_reply.joined" },
		{ "dontcache_stable_reply_durable_total", "",
		  "stable_reply.durable" },
		{ "dontcache_inflight_waits_total", "", "inflight.waits" },
		{ "dontcache_inflight_eagain_total", "", "inflight.eagain" },
		{ "dontcache_inflight_bytes", "", "inflight.bytes" },
		{ "dontcache_inflight_peak_bytes", "", "inflight.peak" },
		{ "dontcache_inflight_limit_bytes", "", "inflight.limit" },
		{ "dontcache_verifier_generation", "", "verifier_gen" },
		{ "dontcache_write_latency_seconds_count", "",
		  "latency.write.count" },
		{ "dontcache_read_latency_seconds_count", "",
		  "latency.read.count" },
		{ "dontcache_commit_latency_seconds_count", "",
		  "latency.commit.count" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		double a = get(&p, same[i].prom, same[i].extra),
		       b = tl_json_num(js, same[i].json);
		if (a != b || a < 0)
			fprintf(stderr, "%s{%s} = %g, JSON %s = %g\n",
				same[i].prom, same[i].extra, a, same[i].json,
				b);
		CU_ASSERT_TRUE(a == b && a >= 0);
	}
	CU_ASSERT_EQUAL(
		get(&p, "dontcache_writes_total", "mode=\"dropbehind\""), 32);
	CU_ASSERT_EQUAL(get(&p, "dontcache_errors_total", "errno=\"EIO\""), 1);
	CU_ASSERT_TRUE(get(&p, "dontcache_flusher_passes_total", "") > 0);
	CU_ASSERT_EQUAL(get(&p, "dontcache_fallback", ""), 0);
	CU_ASSERT_EQUAL(
		get(&p, "dontcache_export_info", "write_mode=\"dropbehind\""),
		1);
	free(text);
	free(js);
	tl_ctx_close(&c);
}

static void t_prom_histograms(void)
{
	static struct parsed p;
	struct tl_ctx c;
	char path[256];
	char *text = scrape(&c, &p, path, sizeof(path));

	CU_ASSERT_EQUAL(check_hist(&p, "dontcache_write_latency_seconds"), 32);
	CU_ASSERT_EQUAL(check_hist(&p, "dontcache_read_latency_seconds"), 3);
	CU_ASSERT_EQUAL(check_hist(&p, "dontcache_commit_latency_seconds"), 2);
	CU_ASSERT_TRUE(get(&p, "dontcache_write_latency_seconds_sum", "") > 0);
	free(text);
	tl_ctx_close(&c);
}

/* no labels at all is well-formed too */
static void t_prom_no_labels(void)
{
	static struct parsed p;
	struct tl_ctx c;
	char *text = scrape(&c, &p, NULL, 0);

	CU_ASSERT_EQUAL(p.bad, 0);
	CU_ASSERT_EQUAL(get(&p, "dontcache_reads_total", ""), 3);
	free(text);
	tl_ctx_close(&c);
}

/* Known latencies land under the right bounds; _sum is their sum. */
static void t_buckets(void)
{
	struct dcio_engine_params ep = { .threads = 1 };
	struct dcio_export_params prm = tl_params(
		DCIO_WRITE_BUFFERED, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct tl_ctx c;

	tl_ctx_open(&c, &(struct tl_setup){ .kind = TL_FS_NONE,
					    .ep = &ep,
					    .p = &prm,
					    .name = "b" });
	struct dcio_export *x = c.x;
	for (int i = 0; i < 1000; i++) {
		hist_add(&x->st.lat_c, 40000); /* 40 us */
		hist_add(&x->st.lat_c, 200000); /* 200 us */
	}
	for (int i = 0; i < 10; i++)
		hist_add(&x->st.lat_c, 20000000000ull); /* 20 s */
	char *text = prom_text(x, "export_id=\"1\"");
	static struct parsed p;
	parse(text, &p);
	CU_ASSERT_EQUAL(p.bad, 0);
	CU_ASSERT_EQUAL(check_hist(&p, "dontcache_commit_latency_seconds"),
			2010);
	const char *b = "dontcache_commit_latency_seconds_bucket";
	CU_ASSERT_EQUAL(get(&p, b, "le=\"5e-05\""), 1000);
	CU_ASSERT_EQUAL(get(&p, b, "le=\"0.0001\""), 1000);
	CU_ASSERT_EQUAL(get(&p, b, "le=\"0.00025\""), 2000);
	CU_ASSERT_EQUAL(get(&p, b, "le=\"10\""), 2000);
	CU_ASSERT_EQUAL(get(&p, b, "le=\"+Inf\""), 2010);
	double sum = get(&p, "dontcache_commit_latency_seconds_sum", "");
	CU_ASSERT_TRUE(fabs(sum - (0.04 + 0.2 + 200)) < 1e-6);
	/* an empty histogram: every bucket 0 */
	CU_ASSERT_EQUAL(check_hist(&p, "dontcache_read_latency_seconds"), 0);
	CU_ASSERT_EQUAL(
		get(&p, "dontcache_read_latency_seconds_bucket", "le=\"10\""),
		0);
	free(text);
	tl_ctx_close(&c);
}

/* ---- the metric families against the top-level README's table (the rows
 * after "| kind | names |"), both ways: each row's kind (counters, gauges,
 * histograms) and the `backticked` names outside parentheses (inside them:
 * labels and remarks), without the dontcache_ prefix the text states once.
 * In the histogram row, `_bucket{le=...}`, `_sum`, `_count` and `+Inf` are
 * suffixes and values, not names: a name starts with a letter. */
static bool metric_name(const char *n)
{
	if (!islower((unsigned char)*n))
		return false;
	for (; *n; n++)
		if (!(islower((unsigned char)*n) ||
		      isdigit((unsigned char)*n) || *n == '_'))
			return false;
	return true;
}

static void t_readme_metrics(void)
{
	char *tab = tl_readme_section(DC_README, "| kind | names |", "\n");
	char *save = NULL, fam[128][96], type[128][16];
	int nd = 0, undocumented = 0, unemitted = 0;
	static struct parsed p;
	struct tl_ctx c;
	static char buf[65536];

	CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
	for (char *row = strtok_r(tab, "\n", &save); row;
	     row = strtok_r(NULL, "\n", &save)) {
		char *cell = strchr(row + 1, '|'), **names;
		const char *ty = !strncmp(row, "| counters", 10) ? "counter"
				 : !strncmp(row, "| gauges", 8)	 ? "gauge"
				 : !strncmp(row, "| histograms", 12)
					 ? "histogram"
					 : NULL;
		size_t n;

		if (!strncmp(row, "|---", 4))
			continue;
		CU_ASSERT_PTR_NOT_NULL(ty);
		if (!ty || !cell)
			continue;
		n = tl_backticked(cell, &names);
		for (size_t i = 0; i < n && nd < 128; i++) {
			if (!metric_name(names[i]))
				continue;
			snprintf(fam[nd], sizeof(fam[nd]), "dontcache_%s",
				 names[i]);
			snprintf(type[nd++], sizeof(type[0]), "%s", ty);
		}
		tl_free_keys(names, n);
	}
	free(tab);

	/* one errno, so that errors_total has a sample */
	struct dcio_syscalls t = { .fdatasync = fail_fdatasync };
	tl_ctx_open(&c, &(struct tl_setup){ .sys = &t,
					    .name = "metrics",
					    .flags = O_TRUNC });
	CU_ASSERT_EQUAL(tl_write(c.f, buf, sizeof(buf), 0, DCIO_UNSTABLE), 0);
	CU_ASSERT_EQUAL(dcio_commit(c.f, 0, 0), EIO);
	char *text = prom_text(c.x, NULL);
	parse(text, &p);
	free(text);
	CU_ASSERT_EQUAL(p.bad, 0);

	for (int i = 0; i < p.nfam; i++) {
		int j = 0;

		while (j < nd && strcmp(fam[j], p.fam[i]))
			j++;
		if (j == nd || strcmp(type[j], p.type[i])) {
			fprintf(stderr, "\n  emitted, not documented: %s %s",
				p.type[i], p.fam[i]);
			undocumented++;
		}
	}
	for (int j = 0; j < nd; j++) {
		const char *ty = fam_type(&p, fam[j]);

		if (!ty || strcmp(ty, type[j])) {
			fprintf(stderr, "\n  documented, not emitted: %s %s",
				type[j], fam[j]);
			unemitted++;
		}
	}
	fprintf(stderr, "\n  metric families: %d documented, %d emitted ", nd,
		p.nfam);
	CU_ASSERT_EQUAL(undocumented, 0);
	CU_ASSERT_EQUAL(unemitted, 0);
	CU_ASSERT_EQUAL(nd, p.nfam);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static void t_ratelimit(void)
{
	static struct dcio_ratelimit rl;
	uint64_t supp = 99;

	CU_ASSERT_TRUE(dcio_ratelimit(&rl, 1, &supp));
	CU_ASSERT_EQUAL(supp, 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_FALSE(dcio_ratelimit(&rl, 1, &supp));
	usleep(1100 * 1000);
	CU_ASSERT_TRUE(dcio_ratelimit(&rl, 1, &supp));
	CU_ASSERT_EQUAL(supp, 5);
	CU_ASSERT_FALSE(dcio_ratelimit(&rl, 1, &supp));
}

static int logged, logged_level;
static char logged_msg[512];

static void capture(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logged_msg, sizeof(logged_msg), fmt, ap);
	va_end(ap);
	logged_level = level;
	__atomic_fetch_add(&logged, 1, __ATOMIC_RELAXED);
}

/* A dontcache write refused at run time (tmpfs, probe skipped) reaches the
 * caller's log sink once, as a warning naming the export; the write path
 * says dropbehind and why. */
static void t_log_sink(void)
{
	struct dcio_engine_params ep = { .threads = 1, .log = capture };
	struct dcio_export_params prm = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	struct tl_ctx c;
	char why[256];

	tl_ctx_open(&c, &(struct tl_setup){ .kind = TL_FS_TMPFS,
					    .tmpfs_mb = 16,
					    .ep = &ep,
					    .p = &prm,
					    .name = "export-9",
					    .flags = O_TRUNC,
					    .no_dirfd = true });
	struct dcio_export *x = c.x;
	struct dcio_file *f = c.f;

	CU_ASSERT_STRING_EQUAL(dcio_export_write_path(x, why, sizeof(why)),
			       "dontcache");
	static char buf[8192];
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tl_write(f, buf, sizeof(buf),
					 (uint64_t)i * sizeof(buf),
					 DCIO_UNSTABLE),
				0);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	c.f = NULL;
	CU_ASSERT_EQUAL(logged, 1);
	CU_ASSERT_EQUAL(logged_level, DCIO_LOG_WARN);
	CU_ASSERT_PTR_NOT_NULL(strstr(logged_msg, "export-9"));
	CU_ASSERT_STRING_EQUAL(dcio_export_write_path(x, why, sizeof(why)),
			       "dropbehind");
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at run time"));
	tl_ctx_close(&c);
}

static const struct tl_case cases[] = {
	{ "label values escaped", t_prom_escape },
	{ "every sample well-formed, prefixed, declared", t_prom_wellformed },
	{ "the figures equal the JSON's", t_prom_equals_json },
	{ "histograms cumulative, +Inf equals _count", t_prom_histograms },
	{ "no labels: well-formed too", t_prom_no_labels },
	{ "every family documented in README.md and back", t_readme_metrics },
	{ "histogram buckets at known latencies", t_buckets },
	{ "rate limit of repeated messages", t_ratelimit },
	{ "engine messages reach the log sink", t_log_sink },
};

int main(void)
{
	/* t_log_sink: a dontcache export on tmpfs, refused at run time */
	tl_require(TL_NEED_TMPFS);
	return TL_RUN_SUITE("prom", cases);
}
