// SPDX-License-Identifier: LGPL-3.0-or-later
#include "report.h"
#include <string.h>
#include <math.h>

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void jlat(FILE *f, const char *name, const struct hist *h, int last)
{
	fprintf(f,
		"    \"%s\": {\"count\": %llu, \"min\": %.1f, \"mean\": %.1f, \"p50\": %.1f, "
		"\"p90\": %.1f, \"p99\": %.1f, \"p99.9\": %.1f, \"p99.99\": %.1f, \"max\": %.1f}%s\n",
		name, (unsigned long long)h->count, h->count ? us(h->min) : 0.0,
		hist_mean(h) / 1000.0, us(hist_percentile(h, 50)),
		us(hist_percentile(h, 90)), us(hist_percentile(h, 99)),
		us(hist_percentile(h, 99.9)), us(hist_percentile(h, 99.99)),
		us(h->max), last ? "" : ",");
}

enum sfield {
	F_CACHED,
	F_DIRTY,
	F_WB,
	F_CG_CACHE,
	F_CG_DIRTY,
	F_CG_WB,
	F_CG_USAGE,
	F_SCPU,
	F_KCPU,
	F_FRES,
	F_FDIRTY,
	F_HOT,
	F_RSS
};

static double field(const struct dcb_sample *s, enum sfield k)
{
	switch (k) {
	case F_CACHED:
		return s->cached_kib / 1024.0;
	case F_DIRTY:
		return s->dirty_kib / 1024.0;
	case F_WB:
		return s->writeback_kib / 1024.0;
	case F_CG_CACHE:
		return s->cg_cache_kib < 0 ? NAN : s->cg_cache_kib / 1024.0;
	case F_CG_DIRTY:
		return s->cg_dirty_kib < 0 ? NAN : s->cg_dirty_kib / 1024.0;
	case F_CG_WB:
		return s->cg_writeback_kib < 0 ? NAN
					       : s->cg_writeback_kib / 1024.0;
	case F_CG_USAGE:
		return s->cg_usage_kib < 0 ? NAN : s->cg_usage_kib / 1024.0;
	case F_SCPU:
		return s->server_cpu_pct < 0 ? NAN : s->server_cpu_pct;
	case F_KCPU:
		return s->kswapd_cpu_pct < 0 ? NAN : s->kswapd_cpu_pct;
	case F_FRES:
		return s->files_resident_kib / 1024.0;
	case F_FDIRTY:
		return s->files_dirty_kib / 1024.0;
	case F_HOT:
		return s->hot_resident_pct < 0 ? NAN : s->hot_resident_pct;
	case F_RSS:
		return s->server_rss_kib < 0 ? NAN : s->server_rss_kib / 1024.0;
	}
	return NAN;
}

static void jnum(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.2f", v);
}

static void jnum4(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.4f", v);
}

static void jseries(FILE *f, const char *name, const struct dcb_sampler *sp,
		    enum sfield k, int last)
{
	double peak = NAN, sum = 0, lastv = NAN, first = NAN;
	int n = 0;
	for (int i = 0; i < sp->n; i++) {
		double v = field(&sp->s[i], k);
		if (isnan(v))
			continue;
		if (isnan(first))
			first = v; /* dcb_sampler_start's, before the workload */
		if (isnan(peak) || v > peak)
			peak = v;
		sum += v;
		n++;
		lastv = v;
	}
	fprintf(f, "      \"%s\": {\"peak\": ", name);
	jnum(f, peak);
	fputs(", \"mean\": ", f);
	jnum(f, n ? sum / n : NAN);
	fputs(", \"end\": ", f);
	jnum(f, lastv);
	fputs(", \"start\": ", f);
	jnum(f, first);
	fprintf(f, "}%s\n", last ? "" : ",");
}

static uint64_t end_or(const struct dcb_results *r)
{
	return r->end_ns > r->measure_start_ns ? r->end_ns
					       : r->measure_start_ns;
}

void dcb_write_json(FILE *f, const struct dcb_opts *o,
		    const struct dcb_results *r, const struct dcb_sampler *sp,
		    const struct dcb_conn_info *ci, int nconns,
		    const struct dcb_run_info *ri)
{
	uint64_t end = end_or(r);
	uint64_t dend = r->durable_ns > end ? r->durable_ns : end;
	fputs("{\n  \"tool\": \"dcbench\", \"format\": 1,\n  \"label\": ", f);
	jstr(f, o->label ? o->label : "");
	fputs(",\n  \"config\": {\"urls\": [", f);
	for (int i = 0; i < o->nurls; i++) {
		if (i)
			fputs(", ", f);
		jstr(f, o->urls[i]);
	}
	fprintf(f,
		"], \"conns\": %d, \"qd\": %d, \"bs\": %llu, \"size\": %llu, \"time_s\": %.3f, "
		"\"pattern\": \"%s\", \"stable\": \"%s\", \"commit_every\": %llu, \"final_commit\": %s, "
		"\"readers\": %d, \"read_qd\": %d, \"read_bs\": %llu, \"read_pattern\": \"%s\", "
		"\"hot_files\": %d, \"hot_size\": %llu, \"read_iops\": %.1f, \"warmup_s\": %.3f, "
		"\"min_bytes\": %llu, "
		"\"writemax\": %llu, \"readmax\": %llu},\n",
		o->conns, o->qd, (unsigned long long)o->bs,
		(unsigned long long)o->size, o->time_s,
		o->pattern == PAT_SEQ ? "seq" : "rand",
		dcb_stable_name(o->stable), (unsigned long long)o->commit_every,
		o->final_commit ? "true" : "false", o->readers, o->read_qd,
		(unsigned long long)o->read_bs,
		o->read_pattern == PAT_SEQ ? "seq" : "rand", o->hot_files,
		(unsigned long long)o->hot_size, o->read_iops, o->warmup_s,
		(unsigned long long)o->min_bytes,
		(unsigned long long)ri->writemax,
		(unsigned long long)ri->readmax);
	fprintf(f, "  \"finished\": %s, \"stop_reason\": ",
		ri->finished ? "true" : "false");
	jstr(f, ri->stop_reason ? ri->stop_reason : "");
	fprintf(f,
		",\n  \"elapsed_s\": %.3f, \"measured_s\": %.3f, \"measured_durable_s\": %.3f,\n",
		ri->elapsed_s, (double)(end - r->measure_start_ns) / 1e9,
		(double)(dend - r->measure_start_ns) / 1e9);
	fprintf(f,
		"  \"write\": {\"bytes_asked\": %llu, \"bytes_written\": %llu, \"bytes_total\": %llu, "
		"\"ops\": %llu, \"measured_bytes\": %llu, \"mbps\": %.2f, \"mbps_durable\": %.2f, "
		"\"iops\": %.1f, \"bytes_resent\": %llu, \"writes_resent\": %llu, \"short_writes\": %llu, "
		"\"stability_downgrades\": %llu, \"jukebox_retries\": %llu},\n",
		(unsigned long long)r->bytes_asked,
		(unsigned long long)r->bytes_written,
		(unsigned long long)r->bytes[OP_WRITE],
		(unsigned long long)r->ops[OP_WRITE],
		(unsigned long long)r->m_bytes[OP_WRITE],
		dcb_rate_mbps(r, OP_WRITE, end),
		dcb_rate_mbps(r, OP_WRITE, dend),
		dcb_rate_iops(r, OP_WRITE, end),
		(unsigned long long)r->bytes_resent,
		(unsigned long long)r->writes_resent,
		(unsigned long long)r->short_writes,
		(unsigned long long)r->stability_downgrades,
		(unsigned long long)r->jukebox_retries);
	fprintf(f,
		"  \"commit\": {\"ops\": %llu, \"measured_ops\": %llu, \"failures\": %llu},\n",
		(unsigned long long)r->ops[OP_COMMIT],
		(unsigned long long)r->m_ops[OP_COMMIT],
		(unsigned long long)r->commit_failures);
	fprintf(f,
		"  \"read\": {\"bytes\": %llu, \"ops\": %llu, \"measured_bytes\": %llu, \"mbps\": %.2f, "
		"\"iops\": %.1f},\n",
		(unsigned long long)r->bytes[OP_READ],
		(unsigned long long)r->ops[OP_READ],
		(unsigned long long)r->m_bytes[OP_READ],
		dcb_rate_mbps(r, OP_READ, end), dcb_rate_iops(r, OP_READ, end));
	fputs("  \"latency_us\": {\n", f);
	jlat(f, "write", &r->lat[OP_WRITE], 0);
	jlat(f, "commit", &r->lat[OP_COMMIT], 0);
	jlat(f, "read", &r->lat[OP_READ], 1);
	fputs("  },\n", f);
	fprintf(f,
		"  \"verifier\": {\"changes\": %llu, \"writes_resent\": %llu, \"bytes_resent\": %llu},\n",
		(unsigned long long)r->verf_changes,
		(unsigned long long)r->writes_resent,
		(unsigned long long)r->bytes_resent);
	fprintf(f,
		"  \"errors\": {\"rpc\": %llu, \"nfs_total\": %llu, \"nfs\": {",
		(unsigned long long)r->rpc_errors,
		(unsigned long long)dcb_nfs_errors_total(r));
	for (int i = 0; i < r->n_nfs_err; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
			dcb_nfs_status_name(r->nfs_err[i].status),
			(unsigned long long)r->nfs_err[i].count);
	fputs("}},\n", f);

	/* per URL aggregates */
	fputs("  \"per_url\": [", f);
	for (int u = 0; u < o->nurls; u++) {
		uint64_t wb = 0, rb = 0;
		int nw = 0;
		for (int i = 0; i < nconns; i++)
			if (ci[i].url == u) {
				wb += r->conn[i].m_bytes[OP_WRITE];
				rb += r->conn[i].m_bytes[OP_READ];
				nw += ci[i].role == ROLE_WRITER;
			}
		double w = (double)(end - r->measure_start_ns) / 1e9;
		fprintf(f, "%s\n    {\"url\": ", u ? "," : "");
		jstr(f, o->urls[u]);
		fprintf(f,
			", \"writers\": %d, \"write_mbps\": %.2f, \"read_mbps\": %.2f}",
			nw, w > 0 ? wb / 1e6 / w : 0, w > 0 ? rb / 1e6 / w : 0);
	}
	fputs("\n  ],\n  \"per_conn\": [", f);
	for (int i = 0; i < nconns; i++) {
		const struct dcb_conn_stats *c = &r->conn[i];
		double w = (double)(end - r->measure_start_ns) / 1e9;
		int rd = ci[i].role == ROLE_READER;
		fprintf(f,
			"%s\n    {\"id\": %d, \"role\": \"%s\", \"url\": %d, \"file\": ",
			i ? "," : "", i, rd ? "reader" : "writer", ci[i].url);
		jstr(f, ci[i].file ? ci[i].file : "");
		fprintf(f,
			", \"bytes\": %llu, \"ops\": %llu, \"commits\": %llu, \"mbps\": %.2f, "
			"\"iops\": %.1f, \"errors\": %llu, \"failed\": %s}",
			(unsigned long long)c->bytes[rd ? OP_READ : OP_WRITE],
			(unsigned long long)c->ops[rd ? OP_READ : OP_WRITE],
			(unsigned long long)c->ops[OP_COMMIT],
			w > 0 ? c->m_bytes[rd ? OP_READ : OP_WRITE] / 1e6 / w
			      : 0,
			w > 0 ? c->m_ops[rd ? OP_READ : OP_WRITE] / w : 0,
			(unsigned long long)c->errors,
			ci[i].failed ? "true" : "false");
	}
	fputs("\n  ],\n", f);

	fprintf(f,
		"  \"server\": {\n    \"sampled\": %d, \"residency_method\": \"%s\", "
		"\"hot_resident_pct_start\": ",
		sp->n, ri->use_cachestat ? "cachestat" : "mincore");
	jnum(f, sp->nhot && sp->hot_start_pct >= 0 ? sp->hot_start_pct : NAN);
	fputs(", \"hot_resident_pct_end\": ", f);
	jnum(f, sp->n && sp->nhot ? field(&sp->s[sp->n - 1], F_HOT) : NAN);
	fputs(",\n    \"mib\": {\n", f);
	jseries(f, "cached", sp, F_CACHED, 0);
	jseries(f, "dirty", sp, F_DIRTY, 0);
	jseries(f, "writeback", sp, F_WB, 0);
	jseries(f, "cgroup_cache", sp, F_CG_CACHE, 0);
	jseries(f, "cgroup_dirty", sp, F_CG_DIRTY, 0);
	jseries(f, "cgroup_writeback", sp, F_CG_WB, 0);
	jseries(f, "cgroup_usage", sp, F_CG_USAGE, 0);
	jseries(f, "files_resident", sp, F_FRES, 0);
	jseries(f, "files_dirty", sp, F_FDIRTY, 0);
	jseries(f, "server_rss", sp, F_RSS, 1);
	fputs("    },\n    \"server_hwm_mib\": ", f);
	jnum(f, sp->server_hwm_kib < 0 ? NAN : sp->server_hwm_kib / 1024.0);
	/* ganesha's CPU from the start of the measured phase (after the hot set was warmed) to
	 * the end of the run (final COMMITs answered), per 10^9 bytes it moved meanwhile
	 * (WRITE and READ payload, warm-up seconds and resends included) */
	double cpu_s = dcb_sampler_server_cpu_s(sp);
	double gb = (double)(r->bytes[OP_WRITE] + r->bytes[OP_READ]) / 1e9;
	fputs(",\n    \"cpu_s\": ", f);
	jnum4(f, cpu_s < 0 ? NAN : cpu_s);
	fputs(", \"cpu_s_per_gb\": ", f);
	jnum4(f, cpu_s < 0 || gb <= 0 ? NAN : cpu_s / gb);
	/* the machine's CPU less the client's over the same window: ganesha and
	 * the kernel threads doing its writeback, I/O completion and page drops */
	double host_s = dcb_sampler_host_cpu_s(sp);
	fputs(",\n    \"host_cpu_s\": ", f);
	jnum4(f, host_s < 0 ? NAN : host_s);
	fputs(", \"host_cpu_s_per_gb\": ", f);
	jnum4(f, host_s < 0 || gb <= 0 ? NAN : host_s / gb);
	/* ganesha's minor page faults over the same window, per MiB moved: 256
	 * would be every 4 KiB page of every WRITE buffer touched anew (a buffer
	 * malloc gave back to the kernel and took again) */
	double mf = dcb_sampler_server_minflt(sp);
	if (mf < 0)
		fputs(",\n    \"minor_faults\": null", f);
	else
		fprintf(f, ",\n    \"minor_faults\": %.0f", mf);
	fputs(", \"minor_faults_per_mib\": ", f);
	jnum(f, mf < 0 || gb <= 0 ? NAN : mf / (gb * 1e9 / 1048576.0));
	fprintf(f,
		", \"cpu_window_s\": %.3f, \"bytes_moved\": %llu,\n    \"cpu_pct\": {\n",
		sp->n ? sp->s[sp->n - 1].t : 0.0,
		(unsigned long long)(r->bytes[OP_WRITE] + r->bytes[OP_READ]));
	jseries(f, "server", sp, F_SCPU, 0);
	jseries(f, "kswapd", sp, F_KCPU, 1);
	fputs("    },\n    \"hot_resident_pct\": {\n", f);
	jseries(f, "series", sp, F_HOT, 1);
	double iv = (double)r->tl_ns / 1e9;
	fprintf(f, "    }\n  },\n  \"interval_s\": %.3f,\n  \"timeline\": [",
		iv);
	for (int i = 0; i < r->ntl; i++) {
		const struct dcb_tl *t = &r->tl[i];
		fprintf(f,
			"%s\n    {\"t\": %.3f, \"write_mbps\": %.2f, \"read_mbps\": %.2f, \"write_iops\": %llu, "
			"\"read_iops\": %llu, \"commits\": %llu, \"write_lat_max_us\": %.1f, "
			"\"commit_lat_max_us\": %.1f",
			i ? "," : "", (i + 1) * iv,
			t->bytes[OP_WRITE] / 1e6 / iv,
			t->bytes[OP_READ] / 1e6 / iv,
			(unsigned long long)t->ops[OP_WRITE],
			(unsigned long long)t->ops[OP_READ],
			(unsigned long long)t->ops[OP_COMMIT],
			us(t->lat_max_ns[OP_WRITE]),
			us(t->lat_max_ns[OP_COMMIT]));
		/* the sample taken at the end of this second */
		const struct dcb_sample *s = NULL;
		for (int k = 0; k < sp->n; k++)
			if (fabs(sp->s[k].t - (i + 1) * iv) < iv / 2) {
				s = &sp->s[k];
				break;
			}
		if (s) {
			fprintf(f,
				", \"cached_mib\": %.1f, \"dirty_mib\": %.1f, \"writeback_mib\": %.1f, "
				"\"files_resident_mib\": %.1f, \"hot_resident_pct\": ",
				field(s, F_CACHED), field(s, F_DIRTY),
				field(s, F_WB), field(s, F_FRES));
			jnum(f, field(s, F_HOT));
			fputs(", \"cgroup_cache_mib\": ", f);
			jnum(f, field(s, F_CG_CACHE));
			fputs(", \"server_cpu_pct\": ", f);
			jnum(f, field(s, F_SCPU));
			fputs(", \"kswapd_cpu_pct\": ", f);
			jnum(f, field(s, F_KCPU));
			fputs(", \"server_rss_mib\": ", f);
			jnum(f, field(s, F_RSS));
		}
		fputs("}", f);
	}
	fputs("\n  ],\n  \"complete\": true\n}\n", f);
}

void dcb_write_timeline_csv(FILE *f, const struct dcb_results *r,
			    const struct dcb_sampler *sp)
{
	fputs("t,write_mbps,read_mbps,commits,write_lat_max_us,cached_mib,dirty_mib,writeback_mib,"
	      "cgroup_cache_mib,files_resident_mib,hot_resident_pct,server_cpu_pct,kswapd_cpu_pct,"
	      "server_rss_mib\n",
	      f);
	int n = r->ntl;
	double iv = (double)r->tl_ns / 1e9;
	for (int i = 0; i < n; i++) {
		const struct dcb_tl *t = &r->tl[i];
		const struct dcb_sample *s = NULL;
		for (int k = 0; k < sp->n; k++)
			if (fabs(sp->s[k].t - (i + 1) * iv) < iv / 2) {
				s = &sp->s[k];
				break;
			}
		fprintf(f, "%.3f,%.2f,%.2f,%llu,%.1f", (i + 1) * iv,
			t->bytes[OP_WRITE] / 1e6 / iv,
			t->bytes[OP_READ] / 1e6 / iv,
			(unsigned long long)t->ops[OP_COMMIT],
			us(t->lat_max_ns[OP_WRITE]));
		if (s) {
			double v[] = { field(s, F_CACHED), field(s, F_DIRTY),
				       field(s, F_WB),	   field(s, F_CG_CACHE),
				       field(s, F_FRES),   field(s, F_HOT),
				       field(s, F_SCPU),   field(s, F_KCPU),
				       field(s, F_RSS) };
			for (unsigned k = 0; k < sizeof(v) / sizeof(v[0]); k++)
				isnan(v[k]) ? fputs(",", f)
					    : fprintf(f, ",%.2f", v[k]);
			fputc('\n', f);
		} else {
			fputs(",,,,,,,,,\n", f);
		}
	}
}
