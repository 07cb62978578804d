// SPDX-License-Identifier: LGPL-3.0-or-later
/* dcio_export_stats_json: one JSON object per export. */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "flusher.h"

#define LD(v) ((unsigned long long)__atomic_load_n(&(v), __ATOMIC_RELAXED))

void dcio_json_string(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void put_hist(FILE *o, const char *name, const struct dcio_hist *h)
{
	uint64_t n;
	uint64_t p50 = hist_quantile(h, 0.50, &n);
	uint64_t p99 = hist_quantile(h, 0.99, NULL);
	uint64_t p999 = hist_quantile(h, 0.999, NULL);

	fprintf(o,
		"\"%s\":{\"count\":%llu,\"p50_us\":%.3f,\"p99_us\":%.3f,\"p999_us\":%.3f,\"max_us\":%.3f}",
		name, (unsigned long long)n, p50 / 1e3, p99 / 1e3, p999 / 1e3,
		LD(((struct dcio_hist *)h)->max) / 1e3);
}

static void put_errors(FILE *o, struct dcio_stats *s)
{
	bool first = true;

	fputs("\"errors\":{", o);
	for (int i = 0; i <= DCIO_ERRNO_MAX; i++) {
		unsigned long long n = LD(s->errors[i]);

		if (!n)
			continue;
		const char *name = i ? strerrorname_np(i) : NULL;

		fprintf(o, "%s", first ? "" : ",");
		if (name)
			dcio_json_string(o, name);
		else
			fprintf(o, "\"errno_%d\"", i);
		fprintf(o, ":%llu", n);
		first = false;
	}
	fputc('}', o);
}

void dcio_export_stats_json(struct dcio_export *x, FILE *o)
{
	struct dcio_stats *s = &x->st;

	pthread_mutex_lock(&x->mu);
	unsigned long long inflight = x->inflight, peak = x->peak;

	pthread_mutex_unlock(&x->mu);

	fputs("{\"export\":", o);
	dcio_json_string(o, x->name);
	fprintf(o,
		",\"write_mode\":\"%s\",\"read_mode\":\"%s\",\"flush_mode\":\"%s\"",
		dcio_write_mode_name(XP(x, write_mode)),
		dcio_read_mode_name(XP(x, read_mode)),
		dcio_flush_mode_name(XP(x, flush_mode)));
	fprintf(o,
		",\"fallback\":%s,\"dontcache_write_supported\":%s"
		",\"dontcache_read_supported\":%s,\"probe_failed\":%s,\"verifier_gen\":%llu",
		dcio_export_fallback(x) ? "true" : "false",
		x->probed_wok ? "true" : "false",
		x->probed_rok ? "true" : "false",
		x->probe_failed ? "true" : "false",
		(unsigned long long)dcio_export_verifier_gen(x));

	fputs(",\"writes\":{", o);
	for (int m = 0; m < DCIO_NR_WMODES; m++)
		fprintf(o,
			"%s\"%s\":{\"ops\":%llu,\"bytes\":%llu,\"issued_bytes\":%llu}",
			m ? "," : "", dcio_write_mode_name(m), LD(s->w_ops[m]),
			LD(s->w_bytes[m]), LD(s->leaf_bytes[m]));
	fputc('}', o);
	fprintf(o,
		",\"worker_writes\":{\"ops\":%llu,\"bytes\":%llu,\"kicked\":%llu"
		",\"kick_us_per_mib\":%llu,\"kick_stops\":%llu,\"kick_resumes\":%llu"
		",\"kick_hold_ms\":%llu,\"kicking\":%s}",
		LD(s->w_worker_ops), LD(s->w_worker_bytes), LD(s->kick_ops),
		(unsigned long long)atomic_load_explicit(&x->kick.ns_per_mib,
							 memory_order_relaxed) /
			1000,
		LD(s->kick_stops), LD(s->kick_resumes),
		(unsigned long long)atomic_load_explicit(&x->kick.hold_ms,
							 memory_order_relaxed),
		atomic_load_explicit(&x->kick.off_since, memory_order_relaxed)
			? "false"
			: "true");
	fprintf(o, ",\"reads\":{\"ops\":%llu,\"bytes\":%llu,\"nowait\":%llu}",
		LD(s->r_ops), LD(s->r_bytes), LD(s->r_nowait));
	fprintf(o,
		",\"fallbacks\":{\"dontcache_write\":%llu,\"dontcache_read\":%llu,\"direct\":%llu}",
		LD(s->fb_write), LD(s->fb_read), LD(s->fb_direct));
	unsigned long long passes = LD(s->fl_passes), fw = LD(s->fl_writes);

	fprintf(o,
		",\"flusher\":{\"passes\":%llu,\"files\":%llu,\"writes_coalesced\":%llu"
		",\"writes_per_pass\":%.2f,\"max_writes_per_pass\":%llu,\"ranges\":%llu"
		",\"bytes\":%llu,\"sync_file_range_calls\":%llu,\"dontneed_calls\":%llu"
		",\"drops_retried\":%llu,\"busy_starts\":%llu,\"inline_kicks\":%llu,\"throttled\":%llu,\"throttle_ms\":%llu"
		",\"budget_bytes\":%llu,\"held_bytes\":%llu"
		",\"held_peak_bytes\":%llu}",
		passes, LD(s->fl_files), fw, passes ? (double)fw / passes : 0.0,
		LD(s->fl_max_writes), LD(s->fl_ranges), LD(s->fl_bytes),
		LD(s->fl_sfr_calls), LD(s->fl_dontneed), LD(s->fl_retried),
		LD(s->fl_busy_starts), LD(s->fl_inline_kicks),
		LD(s->fl_throttled), LD(s->fl_throttle_us) / 1000,
		(unsigned long long)flusher_budget(x),
		(unsigned long long)__atomic_load_n(&x->fl.held,
						    __ATOMIC_RELAXED),
		LD(s->fl_held_peak));
	unsigned long long b = LD(s->gc_batches), rq = LD(s->gc_requests),
			   sc = LD(s->gc_syscalls);
	fprintf(o,
		",\"group_commit\":{\"batches\":%llu,\"requests\":%llu,\"syscalls\":%llu"
		",\"syscalls_saved\":%llu,\"avg_batch\":%.2f,\"max_batch\":%llu"
		",\"nothing_dirty\":%llu,\"lost_range_reports\":%llu,\"lost_in_flight\":%llu,\"settles\":%llu}",
		b, rq, sc, rq > sc ? rq - sc : 0, b ? (double)rq / b : 0.0,
		LD(s->gc_max_batch), LD(s->gc_nodirty), LD(s->gc_lost_reports),
		LD(s->gc_lost_inflight), LD(s->gc_settles));
	fprintf(o,
		",\"stable_reply\":{\"ms\":%u,\"joined\":%llu,\"durable\":%llu"
		",\"flush_avg_us\":%llu}",
		XP(x, stable_reply_ms), LD(s->sr_joined), LD(s->sr_durable),
		(unsigned long long)(atomic_load(&x->flush_ns_avg) / 1000));
	fputc(',', o);
	put_errors(o, s);
	fprintf(o,
		",\"inflight\":{\"bytes\":%llu,\"peak\":%llu,\"limit\":%llu,\"waits\":%llu"
		",\"eagain\":%llu}",
		inflight, peak, (unsigned long long)XP(x, max_inflight_bytes),
		LD(s->inflight_waits), LD(s->eagain));
	fputs(",\"latency\":{", o);
	put_hist(o, "write", &s->lat_w);
	fputc(',', o);
	put_hist(o, "read", &s->lat_r);
	fputc(',', o);
	put_hist(o, "commit", &s->lat_c);
	fputs("}}", o);
}

/* struct dcio_stats holds only uint64_t counters, histogram buckets and
 * maxima, each updated with relaxed atomics (ST_ADD, ST_MAX): each is
 * cleared the same way, so a reset never tears a counter; an update racing
 * with it may survive. A field of another type would need its own line. */
void dcio_export_stats_reset(struct dcio_export *x)
{
	uint64_t *w = (uint64_t *)&x->st;
	size_t n = sizeof(x->st) / sizeof(*w);

	_Static_assert(sizeof(struct dcio_stats) % sizeof(uint64_t) == 0,
		       "struct dcio_stats is not all uint64_t");
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(&w[i], 0, __ATOMIC_RELAXED);
	/* a hint (stable_reply_ms), shown as stable_reply.flush_avg_us:
	 * learnt again from the next flushes */
	atomic_store(&x->flush_ns_avg, 0);
	pthread_mutex_lock(&x->mu);
	x->peak = x->inflight;
	pthread_mutex_unlock(&x->mu);
}
