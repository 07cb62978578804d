// SPDX-License-Identifier: LGPL-3.0-or-later
#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <ctype.h>

void dcb_opts_defaults(struct dcb_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->conns = 1;
	o->qd = 8;
	o->bs = 1 << 20;
	o->size = 256ULL << 20;
	o->pattern = PAT_SEQ;
	o->stable = 0;
	o->final_commit = 1;
	o->read_qd = 1;
	o->read_bs = 4096;
	o->read_pattern = PAT_RAND;
	o->hot_files = 4;
	o->hot_size = 64ULL << 20;
	o->hot_warm = 1;
	o->max_time_s = 600;
	o->rpc_timeout_s = 60;
	o->drain_s = 30;
	o->interval_s = 1;
	o->prefix = "dcb";
	o->hot_prefix = "hot";
	o->seed = 1;
}

int dcb_parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 0:
		break;
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	case 'b':
	case 'B':
		break;
	default:
		return -1;
	}
	if (shift && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int dcb_parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

int dcb_parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

const char *dcb_stable_name(int stable)
{
	switch (stable) {
	case 0:
		return "unstable";
	case 1:
		return "datasync";
	case 2:
		return "filesync";
	}
	return "?";
}

void dcb_usage(FILE *f)
{
	fputs("usage: dcbench --url nfs://HOST/EXPORT?version=3&nfsport=N&mountport=M [options]\n"
	      "Writers (one file and one TCP connection each):\n"
	      "  --url URL            NFSv3 export URL (repeatable; connections round-robin over URLs)\n"
	      "  --server-path DIR    local directory of the export on this machine (per --url, for\n"
	      "                       page-cache residency sampling)\n"
	      "  --conns N            writer connections, 0..1024 (default 1)\n"
	      "  --qd N               outstanding WRITEs per connection, 1..1024 (default 8)\n"
	      "  --bs SIZE            write size, 512..16M (default 1M)\n"
	      "  --size SIZE          bytes per writer file (default 256M)\n"
	      "  --time SECONDS       run for this long instead of until --size is written\n"
	      "                       (offsets wrap at --size)\n"
	      "  --min-bytes SIZE     with --time: go on past it until the writers wrote SIZE in\n"
	      "                       all (within --max-time; else the run is not finished)\n"
	      "  --pattern seq|rand   access pattern (default seq)\n"
	      "  --stable unstable|datasync|filesync   stable_how of WRITEs (default unstable)\n"
	      "  --commit-every SIZE  COMMIT after SIZE acknowledged unstable bytes per connection\n"
	      "  --no-final-commit    skip the COMMIT at the end of each writer\n"
	      "Readers (hot set of files re-read at random offsets):\n"
	      "  --readers N          reader connections (default 0)\n"
	      "  --read-bs SIZE       read size (default 4K)\n"
	      "  --read-qd N          outstanding READs per reader (default 1)\n"
	      "  --read-pattern seq|rand (default rand)\n"
	      "  --hot-files N        files in the hot set (default 4), created if missing\n"
	      "  --hot-size SIZE      size of each hot file (default 64M)\n"
	      "  --read-iops N        rate limit per reader connection (default unlimited)\n"
	      "  --no-hot-warm        do not read the hot set once before measuring\n"
	      "General:\n"
	      "  --warmup SECONDS     exclude the first SECONDS from rates and latencies\n"
	      "  --max-time SECONDS   stop a size-based run after this long (default 600)\n"
	      "  --rpc-timeout SECONDS  an RPC unanswered this long fails its connection (default 60)\n"
	      "  --interval SECONDS   timeline and server sampling interval, 0.1..60 (default 1)\n"
	      "  --drain-timeout SECONDS  wait this long for outstanding requests at the end (default 30)\n"
	      "  --prefix NAME        writer file prefix (default dcb)  --hot-prefix NAME (default hot)\n"
	      "  --json PATH          write the JSON report here\n"
	      "  --timeline-csv PATH  write the per-second timeline as CSV\n"
	      "  --cdf-prefix PATH    write latency CDFs to PATH.{write,commit,read}.cdf\n"
	      "  --server-pid PID     sample this server process's CPU\n"
	      "  --cgroup DIR         sample this memory cgroup's memory.stat (v1 or v2)\n"
	      "  --label TEXT         free text copied into the report\n"
	      "  --seed N             random seed (default 1)\n"
	      "  --quiet              no live per-second progress\n",
	      f);
}

enum {
	O_URL = 256,
	O_SPATH,
	O_CONNS,
	O_QD,
	O_BS,
	O_SIZE,
	O_TIME,
	O_MIN_BYTES,
	O_PATTERN,
	O_STABLE,
	O_COMMIT_EVERY,
	O_NO_FINAL_COMMIT,
	O_READERS,
	O_READ_BS,
	O_READ_QD,
	O_READ_PATTERN,
	O_HOT_FILES,
	O_HOT_SIZE,
	O_READ_IOPS,
	O_NO_HOT_WARM,
	O_WARMUP,
	O_MAX_TIME,
	O_PREFIX,
	O_HOT_PREFIX,
	O_RPC_TIMEOUT,
	O_DRAIN,
	O_INTERVAL,
	O_JSON,
	O_TL,
	O_CDF,
	O_SPID,
	O_CGROUP,
	O_LABEL,
	O_SEED,
	O_QUIET,
	O_HELP
};

static const struct option longopts[] = {
	{ "url", required_argument, 0, O_URL },
	{ "server-path", required_argument, 0, O_SPATH },
	{ "conns", required_argument, 0, O_CONNS },
	{ "qd", required_argument, 0, O_QD },
	{ "bs", required_argument, 0, O_BS },
	{ "size", required_argument, 0, O_SIZE },
	{ "time", required_argument, 0, O_TIME },
	{ "min-bytes", required_argument, 0, O_MIN_BYTES },
	{ "pattern", required_argument, 0, O_PATTERN },
	{ "stable", required_argument, 0, O_STABLE },
	{ "commit-every", required_argument, 0, O_COMMIT_EVERY },
	{ "no-final-commit", no_argument, 0, O_NO_FINAL_COMMIT },
	{ "readers", required_argument, 0, O_READERS },
	{ "read-bs", required_argument, 0, O_READ_BS },
	{ "read-qd", required_argument, 0, O_READ_QD },
	{ "read-pattern", required_argument, 0, O_READ_PATTERN },
	{ "hot-files", required_argument, 0, O_HOT_FILES },
	{ "hot-size", required_argument, 0, O_HOT_SIZE },
	{ "read-iops", required_argument, 0, O_READ_IOPS },
	{ "no-hot-warm", no_argument, 0, O_NO_HOT_WARM },
	{ "warmup", required_argument, 0, O_WARMUP },
	{ "max-time", required_argument, 0, O_MAX_TIME },
	{ "prefix", required_argument, 0, O_PREFIX },
	{ "rpc-timeout", required_argument, 0, O_RPC_TIMEOUT },
	{ "drain-timeout", required_argument, 0, O_DRAIN },
	{ "interval", required_argument, 0, O_INTERVAL },
	{ "hot-prefix", required_argument, 0, O_HOT_PREFIX },
	{ "json", required_argument, 0, O_JSON },
	{ "timeline-csv", required_argument, 0, O_TL },
	{ "cdf-prefix", required_argument, 0, O_CDF },
	{ "server-pid", required_argument, 0, O_SPID },
	{ "cgroup", required_argument, 0, O_CGROUP },
	{ "label", required_argument, 0, O_LABEL },
	{ "seed", required_argument, 0, O_SEED },
	{ "quiet", no_argument, 0, O_QUIET },
	{ "help", no_argument, 0, O_HELP },
	{ 0, 0, 0, 0 }
};

static int bad(char *err, size_t len, const char *opt, const char *val,
	       const char *why)
{
	snprintf(err, len, "invalid value '%s' for --%s: %s", val ? val : "",
		 opt, why);
	return -1;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
		    *s != '.')
			return 0;
	return 1;
}

int dcb_opts_parse(struct dcb_opts *o, int argc, char **argv, char *err,
		   size_t len)
{
	int c, idx;
	uint64_t u;
	double d;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
		const char *a = optarg;
		switch (c) {
		case O_URL:
			if (o->nurls >= DCB_MAX_URLS)
				return bad(err, len, "url", a,
					   "too many URLs (max 8)");
			if (strncmp(a, "nfs://", 6) != 0)
				return bad(err, len, "url", a,
					   "must start with nfs://");
			if (strstr(a, "version=4"))
				return bad(err, len, "url", a,
					   "dcbench speaks NFSv3 only");
			o->urls[o->nurls++] = a;
			break;
		case O_SPATH:
			if (o->nserver_paths >= DCB_MAX_URLS)
				return bad(err, len, "server-path", a,
					   "too many paths (max 8)");
			if (a[0] != '/')
				return bad(err, len, "server-path", a,
					   "must be an absolute path");
			o->server_paths[o->nserver_paths++] = a;
			break;
		case O_CONNS:
			if (dcb_parse_int(a, 0, 1024, &o->conns))
				return bad(err, len, "conns", a,
					   "expected an integer 0..1024");
			break;
		case O_QD:
			if (dcb_parse_int(a, 1, 1024, &o->qd))
				return bad(err, len, "qd", a,
					   "expected an integer 1..1024");
			break;
		case O_BS:
			if (dcb_parse_size(a, &u) || u < 512 || u > (16u << 20))
				return bad(err, len, "bs", a,
					   "expected a size 512..16M");
			o->bs = u;
			break;
		case O_SIZE:
			if (dcb_parse_size(a, &u) || u == 0 || u > (1ULL << 50))
				return bad(err, len, "size", a,
					   "expected a size > 0");
			o->size = u;
			break;
		case O_MIN_BYTES:
			if (dcb_parse_size(a, &u) || u == 0 || u > (1ULL << 50))
				return bad(err, len, "min-bytes", a,
					   "expected a size > 0");
			o->min_bytes = u;
			break;
		case O_TIME:
			if (dcb_parse_double(a, &d) || d <= 0 || d > 86400)
				return bad(err, len, "time", a,
					   "expected seconds in (0, 86400]");
			o->time_s = d;
			break;
		case O_PATTERN:
		case O_READ_PATTERN: {
			int p;
			if (!strcmp(a, "seq"))
				p = PAT_SEQ;
			else if (!strcmp(a, "rand") || !strcmp(a, "random"))
				p = PAT_RAND;
			else
				return bad(err, len,
					   c == O_PATTERN ? "pattern"
							  : "read-pattern",
					   a, "expected seq or rand");
			if (c == O_PATTERN)
				o->pattern = p;
			else
				o->read_pattern = p;
			break;
		}
		case O_STABLE:
			if (!strcasecmp(a, "unstable"))
				o->stable = 0;
			else if (!strcasecmp(a, "datasync") ||
				 !strcasecmp(a, "data_sync"))
				o->stable = 1;
			else if (!strcasecmp(a, "filesync") ||
				 !strcasecmp(a, "file_sync"))
				o->stable = 2;
			else
				return bad(
					err, len, "stable", a,
					"expected unstable, datasync or filesync");
			break;
		case O_COMMIT_EVERY:
			if (dcb_parse_size(a, &u))
				return bad(err, len, "commit-every", a,
					   "expected a size (0 = never)");
			o->commit_every = u;
			break;
		case O_NO_FINAL_COMMIT:
			o->final_commit = 0;
			break;
		case O_READERS:
			if (dcb_parse_int(a, 0, 1024, &o->readers))
				return bad(err, len, "readers", a,
					   "expected an integer 0..1024");
			break;
		case O_READ_BS:
			if (dcb_parse_size(a, &u) || u < 1 || u > (16u << 20))
				return bad(err, len, "read-bs", a,
					   "expected a size 1..16M");
			o->read_bs = u;
			break;
		case O_READ_QD:
			if (dcb_parse_int(a, 1, 1024, &o->read_qd))
				return bad(err, len, "read-qd", a,
					   "expected an integer 1..1024");
			break;
		case O_HOT_FILES:
			if (dcb_parse_int(a, 1, 4096, &o->hot_files))
				return bad(err, len, "hot-files", a,
					   "expected an integer 1..4096");
			break;
		case O_HOT_SIZE:
			if (dcb_parse_size(a, &u) || u == 0)
				return bad(err, len, "hot-size", a,
					   "expected a size > 0");
			o->hot_size = u;
			break;
		case O_READ_IOPS:
			if (dcb_parse_double(a, &d))
				return bad(err, len, "read-iops", a,
					   "expected a number >= 0");
			o->read_iops = d;
			break;
		case O_NO_HOT_WARM:
			o->hot_warm = 0;
			break;
		case O_WARMUP:
			if (dcb_parse_double(a, &d) || d > 3600)
				return bad(err, len, "warmup", a,
					   "expected seconds 0..3600");
			o->warmup_s = d;
			break;
		case O_MAX_TIME:
			if (dcb_parse_double(a, &d) || d <= 0)
				return bad(err, len, "max-time", a,
					   "expected seconds > 0");
			o->max_time_s = d;
			break;
		case O_RPC_TIMEOUT:
			if (dcb_parse_double(a, &d) || d < 1 || d > 3600)
				return bad(err, len, "rpc-timeout", a,
					   "expected seconds 1..3600");
			o->rpc_timeout_s = d;
			break;
		case O_INTERVAL:
			if (dcb_parse_double(a, &d) || d < 0.1 || d > 60)
				return bad(err, len, "interval", a,
					   "expected seconds 0.1..60");
			o->interval_s = d;
			break;
		case O_DRAIN:
			if (dcb_parse_double(a, &d) || d > 3600)
				return bad(err, len, "drain-timeout", a,
					   "expected seconds 0..3600");
			o->drain_s = d;
			break;
		case O_PREFIX:
			if (!valid_name(a))
				return bad(err, len, "prefix", a,
					   "use 1..64 of [A-Za-z0-9._-]");
			o->prefix = a;
			break;
		case O_HOT_PREFIX:
			if (!valid_name(a))
				return bad(err, len, "hot-prefix", a,
					   "use 1..64 of [A-Za-z0-9._-]");
			o->hot_prefix = a;
			break;
		case O_JSON:
			o->json_path = a;
			break;
		case O_TL:
			o->timeline_csv = a;
			break;
		case O_CDF:
			o->cdf_prefix = a;
			break;
		case O_SPID:
			if (dcb_parse_int(a, 1, 0x7fffffff, &o->server_pid))
				return bad(err, len, "server-pid", a,
					   "expected a process id");
			break;
		case O_CGROUP:
			o->cgroup_dir = a;
			break;
		case O_LABEL:
			o->label = a;
			break;
		case O_SEED: {
			char *end;
			errno = 0;
			o->seed = strtoull(a, &end, 0);
			if (errno || *end || !*a)
				return bad(err, len, "seed", a,
					   "expected an integer");
			break;
		}
		case O_QUIET:
			o->quiet = 1;
			break;
		case O_HELP:
			return 1;
		case ':':
			snprintf(err, len, "option %s needs a value",
				 argv[optind - 1]);
			return -1;
		default:
			if (optopt && optopt >= 256)
				snprintf(err, len, "option %s needs a value",
					 argv[optind - 1]);
			else
				snprintf(err, len, "unknown option '%s'",
					 argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->nurls == 0) {
		snprintf(err, len, "--url is required");
		return -1;
	}
	if (o->nserver_paths && o->nserver_paths != o->nurls) {
		snprintf(err, len,
			 "give one --server-path per --url (%d URLs, %d paths)",
			 o->nurls, o->nserver_paths);
		return -1;
	}
	if (o->conns == 0 && o->readers == 0) {
		snprintf(err, len, "nothing to do: --conns 0 and --readers 0");
		return -1;
	}
	if (o->conns && o->bs > o->size) {
		snprintf(err, len, "--bs (%llu) is larger than --size (%llu)",
			 (unsigned long long)o->bs,
			 (unsigned long long)o->size);
		return -1;
	}
	if (o->pattern == PAT_RAND && o->conns && o->size % o->bs) {
		snprintf(err, len,
			 "random writes need --size to be a multiple of --bs");
		return -1;
	}
	if (o->readers && o->read_bs > o->hot_size) {
		snprintf(err, len, "--read-bs is larger than --hot-size");
		return -1;
	}
	if (o->readers && o->conns == 0 && o->time_s == 0) {
		snprintf(err, len, "readers without writers need --time");
		return -1;
	}
	if (o->min_bytes && (o->time_s == 0 || o->conns == 0)) {
		snprintf(err, len, "--min-bytes needs --time and writers");
		return -1;
	}
	if (o->time_s > 0 && o->warmup_s >= o->time_s) {
		snprintf(err, len, "--warmup must be shorter than --time");
		return -1;
	}
	if (o->stable && o->commit_every) {
		snprintf(err, len,
			 "--commit-every makes no sense with stable writes");
		return -1;
	}
	return 0;
}
