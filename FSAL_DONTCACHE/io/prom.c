// SPDX-License-Identifier: LGPL-3.0-or-later
/* dcio_export_stats_prom: the export's figures in Prometheus text format
 * (for node_exporter's textfile collector). The same counters as the JSON
 * (json.c); latencies as cumulative histograms derived from the log-linear
 * ones at fixed bounds. */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "flusher.h"

#define LD(v) ((unsigned long long)__atomic_load_n(&(v), __ATOMIC_RELAXED))

/* Histogram bounds (seconds, as Prometheus wants them), in ns. */
static const uint64_t le_ns[] = {
	50000,	       100000,	       250000,	  500000,     1000000,
	2500000,       5000000,	       10000000,  25000000,   50000000,
	100000000,     250000000,      500000000, 1000000000, 2500000000ull,
	5000000000ull, 10000000000ull,
};
#define NR_LE (sizeof(le_ns) / sizeof(le_ns[0]))

struct out {
	FILE *o;
	const char *labels; /* "" or k="v",... */
};

char *dcio_prom_escape(const char *in, char *out, size_t outlen)
{
	size_t n = 0;

	if (outlen == 0)
		return out;
	for (; *in; in++) {
		const char *rep = NULL;
		char one[2] = { *in, '\0' };

		if (*in == '\\')
			rep = "\\\\";
		else if (*in == '"')
			rep = "\\\"";
		else if (*in == '\n')
			rep = "\\n";
		else
			rep = one;
		size_t l = strlen(rep);

		if (n + l >= outlen)
			break;
		memcpy(out + n, rep, l);
		n += l;
	}
	out[n] = '\0';
	return out;
}

static void family(struct out *w, const char *name, const char *type,
		   const char *help)
{
	fprintf(w->o, "# HELP dontcache_%s %s\n# TYPE dontcache_%s %s\n", name,
		help, name, type);
}

/* one sample; extra: "" or k="v" to add to the export's labels */
static void sample(struct out *w, const char *name, const char *extra,
		   unsigned long long v)
{
	bool l = w->labels[0] != '\0', e = extra[0] != '\0';

	fprintf(w->o, "dontcache_%s", name);
	if (l || e)
		fprintf(w->o, "{%s%s%s}", w->labels, l && e ? "," : "", extra);
	fprintf(w->o, " %llu\n", v);
}

static void counter(struct out *w, const char *name, const char *help,
		    unsigned long long v)
{
	family(w, name, "counter", help);
	sample(w, name, "", v);
}

static void gauge(struct out *w, const char *name, const char *help,
		  unsigned long long v)
{
	family(w, name, "gauge", help);
	sample(w, name, "", v);
}

static void put_le(struct out *w, const char *name, const char *le,
		   uint64_t cum)
{
	fprintf(w->o, "dontcache_%s_bucket{%s%sle=\"%s\"} %llu\n", name,
		w->labels, w->labels[0] ? "," : "", le,
		(unsigned long long)cum);
}

/* One pass over the buckets, so that the cumulative counts are monotonic and
 * +Inf equals _count even while the histogram is being updated. A log-linear
 * bucket counts under a bound when its midpoint (what the quantiles report)
 * is at or below it: < 0.4% off the exact value. */
static void histogram(struct out *w, const char *name, const char *help,
		      const struct dcio_hist *h)
{
	uint64_t cum = 0;
	unsigned int k = 0;
	char le[32];

	family(w, name, "histogram", help);
	for (unsigned int i = 0; i < H_BUCKETS; i++) {
		uint64_t c = __atomic_load_n(&h->b[i], __ATOMIC_RELAXED);

		if (c == 0)
			continue;
		while (k < NR_LE && hist_bucket_mid(i) > le_ns[k]) {
			snprintf(le, sizeof(le), "%g", le_ns[k] / 1e9);
			put_le(w, name, le, cum);
			k++;
		}
		cum += c;
	}
	for (; k < NR_LE; k++) {
		snprintf(le, sizeof(le), "%g", le_ns[k] / 1e9);
		put_le(w, name, le, cum);
	}
	put_le(w, name, "+Inf", cum);
	fprintf(w->o, "dontcache_%s_sum%s%s%s %.9f\n", name,
		w->labels[0] ? "{" : "", w->labels, w->labels[0] ? "}" : "",
		__atomic_load_n(&h->sum, __ATOMIC_RELAXED) / 1e9);
	fprintf(w->o, "dontcache_%s_count%s%s%s %llu\n", name,
		w->labels[0] ? "{" : "", w->labels, w->labels[0] ? "}" : "",
		(unsigned long long)cum);
}

static void by_mode(struct out *w, const char *name, const char *help,
		    const uint64_t *v)
{
	char extra[64];

	family(w, name, "counter", help);
	for (int m = 0; m < DCIO_NR_WMODES; m++) {
		snprintf(extra, sizeof(extra), "mode=\"%s\"",
			 dcio_write_mode_name(m));
		sample(w, name, extra, LD(v[m]));
	}
}

static void errors(struct out *w, struct dcio_stats *s)
{
	char extra[64];

	family(w, "errors_total", "counter",
	       "Error events (failed writes, flushes, sync_file_range, reads) by errno.");
	for (int i = 0; i <= DCIO_ERRNO_MAX; i++) {
		unsigned long long n = LD(s->errors[i]);
		const char *name = i ? strerrorname_np(i) : NULL;

		if (!n)
			continue;
		if (name)
			snprintf(extra, sizeof(extra), "errno=\"%s\"", name);
		else
			snprintf(extra, sizeof(extra), "errno=\"errno_%d\"", i);
		sample(w, "errors_total", extra, n);
	}
}

void dcio_export_stats_prom(struct dcio_export *x, const char *labels, FILE *o)
{
	struct dcio_stats *s = &x->st;
	struct out w = { o, labels ? labels : "" };
	char info[256];

	pthread_mutex_lock(&x->mu);
	unsigned long long inflight = x->inflight, peak = x->peak;

	pthread_mutex_unlock(&x->mu);

	family(&w, "export_info", "gauge",
	       "Always 1: the export's configured modes as labels.");
	snprintf(info, sizeof(info),
		 "write_mode=\"%s\",read_mode=\"%s\",flush_mode=\"%s\"",
		 dcio_write_mode_name(XP(x, write_mode)),
		 dcio_read_mode_name(XP(x, read_mode)),
		 dcio_flush_mode_name(XP(x, flush_mode)));
	sample(&w, "export_info", info, 1);
	gauge(&w, "fallback",
	      "1 when RWF_DONTCACHE was refused and the export runs as dropbehind (or buffered reads).",
	      dcio_export_fallback(x));
	gauge(&w, "verifier_generation",
	      "Write verifier generation: bumped by every write-back error.",
	      (unsigned long long)dcio_export_verifier_gen(x));

	by_mode(&w, "writes_total",
		"WRITEs by the write mode they were accepted in.", s->w_ops);
	by_mode(&w, "write_bytes_total",
		"WRITE bytes by the write mode they were accepted in.",
		s->w_bytes);
	by_mode(&w, "issued_bytes_total",
		"WRITE bytes by the mode each piece actually went out in.",
		s->leaf_bytes);
	counter(&w, "worker_writes_total",
		"WRITEs issued on the ganesha worker thread.",
		LD(s->w_worker_ops));
	counter(&w, "worker_write_bytes_total",
		"Bytes of WRITEs issued on the worker thread.",
		LD(s->w_worker_bytes));
	counter(&w, "worker_kicked_writes_total",
		"Worker-thread WRITEs issued RWF_DONTCACHE with the kernel's kick.",
		LD(s->kick_ops));
	counter(&w, "worker_kick_stops_total",
		"Times kicked WRITEs grew slower than Kick_Us_Per_MiB.",
		LD(s->kick_stops));
	counter(&w, "worker_kick_resumes_total",
		"Times kicks were tried again after the flusher caught up.",
		LD(s->kick_resumes));
	gauge(&w, "worker_kick_us_per_mib",
	      "Recent kicked WRITEs' syscall time per MiB (microseconds).",
	      (unsigned long long)atomic_load_explicit(&x->kick.ns_per_mib,
						       memory_order_relaxed) /
		      1000);
	counter(&w, "reads_total", "READs.", LD(s->r_ops));
	counter(&w, "read_bytes_total", "Bytes read.", LD(s->r_bytes));
	counter(&w, "reads_nowait_total",
		"READs answered on the worker thread from cached pages.",
		LD(s->r_nowait));

	family(&w, "fallbacks_total", "counter",
	       "I/Os resubmitted another way: dontcache_write, dontcache_read, direct.");
	sample(&w, "fallbacks_total", "kind=\"dontcache_write\"",
	       LD(s->fb_write));
	sample(&w, "fallbacks_total", "kind=\"dontcache_read\"",
	       LD(s->fb_read));
	sample(&w, "fallbacks_total", "kind=\"direct\"", LD(s->fb_direct));

	counter(&w, "flusher_passes_total", "Flusher passes.",
		LD(s->fl_passes));
	counter(&w, "flusher_files_total",
		"Files written back by flusher passes.", LD(s->fl_files));
	counter(&w, "flusher_writes_total",
		"WRITEs coalesced into flusher passes.", LD(s->fl_writes));
	counter(&w, "flusher_ranges_total",
		"Merged ranges the flusher wrote back.", LD(s->fl_ranges));
	counter(&w, "flusher_bytes_total", "Bytes the flusher wrote back.",
		LD(s->fl_bytes));
	counter(&w, "sync_file_range_calls_total", "sync_file_range calls.",
		LD(s->fl_sfr_calls));
	counter(&w, "dontneed_calls_total",
		"posix_fadvise(POSIX_FADV_DONTNEED) calls.",
		LD(s->fl_dontneed));
	counter(&w, "flusher_drops_retried_total",
		"Drops a COMMIT's flush overlapped, done again at the next pass.",
		LD(s->fl_retried));
	counter(&w, "flusher_busy_starts_total",
		"Writeback started for a file while its pass still waited.",
		LD(s->fl_busy_starts));
	counter(&w, "flusher_inline_kicks_total",
		"Flush_Mode=inline: writeback kicked by the writer.",
		LD(s->fl_inline_kicks));
	counter(&w, "flusher_throttled_total",
		"WRITEs that waited for the flusher (over Cache_Budget_Bytes).",
		LD(s->fl_throttled));
	counter(&w, "flusher_throttle_milliseconds_total",
		"Time WRITEs waited for the flusher.",
		LD(s->fl_throttle_us) / 1000);
	gauge(&w, "flusher_budget_bytes",
	      "Cache_Budget_Bytes in effect (written, not yet dropped).",
	      (unsigned long long)flusher_budget(x));
	gauge(&w, "flusher_held_bytes",
	      "Bytes written and not yet dropped by the flusher.",
	      (unsigned long long)__atomic_load_n(&x->fl.held,
						  __ATOMIC_RELAXED));
	gauge(&w, "flusher_held_peak_bytes",
	      "Most bytes written and not yet dropped at any time.",
	      LD(s->fl_held_peak));
	counter(&w, "stable_reply_joined_total",
		"UNSTABLE WRITEs that joined a group flush (Stable_Reply_Ms).",
		LD(s->sr_joined));
	counter(&w, "stable_reply_durable_total",
		"UNSTABLE WRITEs answered FILE_SYNC (Stable_Reply_Ms).",
		LD(s->sr_durable));

	counter(&w, "group_commit_batches_total",
		"Group-commit flushes (batches).", LD(s->gc_batches));
	counter(&w, "group_commit_requests_total",
		"COMMITs and stable WRITEs served by group commit.",
		LD(s->gc_requests));
	counter(&w, "group_commit_syscalls_total",
		"fdatasync/fsync calls of group commit.", LD(s->gc_syscalls));
	counter(&w, "group_commit_nothing_dirty_total",
		"COMMITs answered without a syscall (nothing written since the last flush).",
		LD(s->gc_nodirty));
	counter(&w, "group_commit_settles_total",
		"Extra flushes consuming write-back errors after a failure.",
		LD(s->gc_settles));
	counter(&w, "lost_range_reports_total",
		"COMMITs or stable WRITEs failed because their range was lost earlier.",
		LD(s->gc_lost_reports));
	counter(&w, "lost_in_flight_total",
		"WRITEs in flight when an error was recorded (their range is lost).",
		LD(s->gc_lost_inflight));
	errors(&w, s);

	counter(&w, "inflight_waits_total",
		"WRITEs that waited for room under Max_Inflight_Bytes.",
		LD(s->inflight_waits));
	counter(&w, "inflight_eagain_total",
		"WRITEs answered JUKEBOX/DELAY after Inflight_Wait_Ms.",
		LD(s->eagain));
	gauge(&w, "inflight_bytes", "WRITE bytes submitted and not completed.",
	      inflight);
	gauge(&w, "inflight_peak_bytes", "Highest inflight_bytes seen.", peak);
	gauge(&w, "inflight_limit_bytes", "Max_Inflight_Bytes.",
	      (unsigned long long)XP(x, max_inflight_bytes));

	histogram(
		&w, "write_latency_seconds",
		"WRITE latency, submit to completion (stable ones include their flush).",
		&s->lat_w);
	histogram(&w, "read_latency_seconds", "READ latency.", &s->lat_r);
	histogram(&w, "commit_latency_seconds", "COMMIT latency.", &s->lat_c);
}
