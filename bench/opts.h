/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* dcbench command-line options: parsing and validation (no libnfs here, unit-tested). */
#ifndef DCB_OPTS_H
#define DCB_OPTS_H
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#define DCB_MAX_URLS 8

enum dcb_pattern { PAT_SEQ = 0, PAT_RAND = 1 };

struct dcb_opts {
	const char *urls[DCB_MAX_URLS];
	int nurls;
	const char *server_paths[DCB_MAX_URLS];
	int nserver_paths;
	int conns; /* writer connections (one file each) */
	int qd; /* outstanding WRITEs per writer connection */
	uint64_t bs; /* write block size */
	uint64_t size; /* bytes per writer file */
	double time_s; /* run for this long (0: until size is written) */
	uint64_t min_bytes; /* with time_s: run on until the writers wrote this
			       much in all (within max_time_s) */
	int pattern; /* enum dcb_pattern */
	int stable; /* 0 UNSTABLE, 1 DATA_SYNC, 2 FILE_SYNC */
	uint64_t
		commit_every; /* COMMIT after this many acked unstable bytes per connection (0: never) */
	int final_commit; /* COMMIT at the end of each writer (default 1) */
	int readers; /* reader connections */
	int read_qd;
	uint64_t read_bs;
	int read_pattern;
	int hot_files;
	uint64_t hot_size;
	double read_iops; /* per reader connection, 0 = unlimited */
	int hot_warm; /* read the hot set once before the measured phase (default 1) */
	double warmup_s; /* excluded from rates and latencies */
	double max_time_s; /* safety stop for size-based runs */
	double rpc_timeout_s; /* any RPC unanswered this long fails its connection */
	double interval_s; /* timeline and sampling interval */
	double drain_s; /* after the deadline, wait this long for outstanding requests */
	const char *prefix; /* writer file name prefix */
	const char *hot_prefix;
	const char *json_path;
	const char *timeline_csv;
	const char *cdf_prefix;
	const char *label;
	const char *cgroup_dir;
	int server_pid;
	int quiet;
	uint64_t seed;
};

void dcb_opts_defaults(struct dcb_opts *o);
/* Returns 0 on success, 1 if --help was asked, -1 on a bad option (message in err). */
int dcb_opts_parse(struct dcb_opts *o, int argc, char **argv, char *err,
		   size_t errlen);

void dcb_usage(FILE *f);
/* Size with optional binary suffix (k, m, g, t, optionally followed by "i"/"ib"/"b"). */
int dcb_parse_size(const char *s, uint64_t *out);
int dcb_parse_double(const char *s, double *out);
int dcb_parse_int(const char *s, int lo, int hi, int *out);
const char *dcb_stable_name(int stable);
#endif
