/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Server-side sampling, once per second in its own thread: /proc/meminfo
 * (Cached, Dirty, Writeback), a memory cgroup's memory.stat, CPU of the server
 * process and of kswapd, and page-cache residency of the test files
 * (cachestat(2) where the kernel has it, mincore(2) otherwise). */
#ifndef DCB_SAMPLER_H
#define DCB_SAMPLER_H
#include <stdint.h>
#include <pthread.h>

struct dcb_sample {
	double t; /* seconds since run start */
	uint64_t cached_kib, dirty_kib, writeback_kib; /* /proc/meminfo */
	int64_t cg_cache_kib, cg_dirty_kib, cg_writeback_kib,
		cg_usage_kib; /* -1: no cgroup */
	double server_cpu_pct, kswapd_cpu_pct; /* -1: unknown */
	uint64_t files_resident_kib, files_dirty_kib; /* writer files */
	double hot_resident_pct; /* -1: no hot set */
	int64_t server_rss_kib; /* VmRSS, -1: unknown */
};

struct dcb_stat_sum {
	double peak, mean, last;
	int n;
};

struct dcb_sampler {
	pthread_t thr;
	pthread_mutex_t mu;
	int running, stop;
	uint64_t start_ns;
	uint64_t interval_ns; /* default 1 s */
	int server_pid;
	const char *cgroup_dir;
	int kswapd_pids[64];
	int nkswapd;
	char **files;
	int nfiles; /* writer files (may not exist yet) */
	char **hot;
	int nhot;
	struct dcb_sample *s;
	int n, cap;
	uint64_t prev_server_ticks, prev_kswapd_ticks;
	double prev_t;
	int have_prev;
	int use_cachestat; /* 1 yes, 0 mincore */
	double hot_start_pct;
	/* the server's utime+stime at dcb_sampler_start and dcb_sampler_stop (clock ticks;
	 * 0: unknown) and its VmHWM at stop (-1: unknown) */
	uint64_t server_ticks_start, server_ticks_stop;
	/* the server's minor page faults (all its threads) at start and stop (0: unknown) */
	uint64_t server_minflt_start, server_minflt_stop;
	int64_t server_hwm_kib;
	/* the machine's busy clock ticks (/proc/stat; 0: unknown) and this
	 * process's own (the client's: the sampler runs in it) at start and stop */
	uint64_t host_ticks_start, host_ticks_stop;
	uint64_t client_ticks_start, client_ticks_stop;
};

void dcb_sampler_init(struct dcb_sampler *sp, uint64_t start_ns, int server_pid,
		      const char *cgroup_dir);
void dcb_sampler_add_file(struct dcb_sampler *sp, const char *path, int hot);
int dcb_sampler_start(struct dcb_sampler *sp);
void dcb_sampler_stop(
	struct dcb_sampler *sp); /* joins, then takes one last sample */
/* Latest sample (copy); returns 0 if none yet. */
int dcb_sampler_latest(struct dcb_sampler *sp, struct dcb_sample *out);
void dcb_sampler_take(struct dcb_sampler *sp, double t, struct dcb_sample *out);
/* Residency of one file: resident and dirty KiB. Returns -1 if it cannot be read. */
int dcb_file_residency(const char *path, int use_cachestat, uint64_t *res_kib,
		       uint64_t *dirty_kib, uint64_t *size_kib);
void dcb_sampler_free(struct dcb_sampler *sp);
/* CPU seconds the server used between dcb_sampler_start and dcb_sampler_stop, -1 if unknown. */
double dcb_sampler_server_cpu_s(const struct dcb_sampler *sp);
/* CPU seconds the whole machine was busy between dcb_sampler_start and
 * dcb_sampler_stop, less the client's (this process's) own: the server and the
 * kernel threads that work for it (writeback, I/O completion, page drops).
 * -1 if unknown. */
double dcb_sampler_host_cpu_s(const struct dcb_sampler *sp);
/* Busy clock ticks of a /proc/stat "cpu" line (user, nice, system, irq,
 * softirq, steal; guest time is inside user and nice); -1 if not one. */
int dcb_parse_cpu_busy(const char *line, uint64_t *ticks);
/* utime+stime of a process (all its threads, living and exited) in clock ticks; 0 if unknown. */
uint64_t dcb_proc_ticks(int pid);
/* Minor page faults of a process (all its threads, living and exited); 0 if unknown. */
uint64_t dcb_proc_minflt(int pid);
/* Minor faults of the server between dcb_sampler_start and dcb_sampler_stop, -1 if unknown. */
double dcb_sampler_server_minflt(const struct dcb_sampler *sp);
/* VmRSS and VmHWM of a process in KiB; returns -1 if /proc/PID/status cannot be read. */
int dcb_proc_mem(int pid, int64_t *rss_kib, int64_t *hwm_kib);
uint64_t dcb_now_ns(void);
#endif
