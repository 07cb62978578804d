// SPDX-License-Identifier: LGPL-3.0-or-later
#include "sampler.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <dirent.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct dcb_cachestat_range {
	uint64_t off, len;
};
struct dcb_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		nr_recently_evicted;
};

uint64_t dcb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long page_kib(void)
{
	return sysconf(_SC_PAGESIZE) / 1024;
}

int dcb_file_residency(const char *path, int use_cachestat, uint64_t *res_kib,
		       uint64_t *dirty_kib, uint64_t *size_kib)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	*size_kib = (uint64_t)st.st_size / 1024;
	*res_kib = *dirty_kib = 0;
	if (use_cachestat) {
		struct dcb_cachestat_range rg = { 0, 0 };
		struct dcb_cachestat cs;
		if (syscall(__NR_cachestat, fd, &rg, &cs, 0) == 0) {
			*res_kib = cs.nr_cache * page_kib();
			*dirty_kib = cs.nr_dirty * page_kib();
			close(fd);
			return 0;
		}
	}
	if (st.st_size > 0) {
		long ps = sysconf(_SC_PAGESIZE);
		size_t len = (size_t)st.st_size;
		void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			size_t np = (len + ps - 1) / ps;
			unsigned char *vec = malloc(np);
			if (vec && mincore(m, len, vec) == 0) {
				uint64_t n = 0;
				for (size_t i = 0; i < np; i++)
					n += vec[i] & 1;
				*res_kib = n * (ps / 1024);
			}
			free(vec);
			munmap(m, len);
		}
	}
	close(fd);
	return 0;
}

static int probe_cachestat(void)
{
	struct dcb_cachestat_range rg = { 0, 0 };
	struct dcb_cachestat cs;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	long rc = syscall(__NR_cachestat, fd, &rg, &cs, 0);
	close(fd);
	return rc == 0;
}

/* /proc/PID/stat's minflt (field 10) and utime + stime (14, 15); -1 if it
 * cannot be read */
static int proc_stat(int pid, uint64_t *minflt, uint64_t *ticks)
{
	char p[64], buf[1024];
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *q = strrchr(buf, ')');
	if (!q)
		return -1;
	unsigned long long mf = 0, ut = 0, st = 0;
	/* after ") ": state(3) ppid pgrp session tty tpgid flags minflt(10) cminflt majflt cmajflt utime(14) stime(15) */
	if (sscanf(q + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %llu %*u %*u %*u %llu %llu",
		   &mf, &ut, &st) != 3)
		return -1;
	*minflt = mf;
	*ticks = ut + st;
	return 0;
}

uint64_t dcb_proc_ticks(int pid)
{
	uint64_t mf, t;

	return proc_stat(pid, &mf, &t) ? 0 : t;
}

uint64_t dcb_proc_minflt(int pid)
{
	uint64_t mf, t;

	return proc_stat(pid, &mf, &t) ? 0 : mf;
}

int dcb_parse_cpu_busy(const char *line, uint64_t *ticks)
{
	unsigned long long v[8] = { 0 };
	int n;

	/* the machine's line, not a "cpuN" one */
	if (strncmp(line, "cpu", 3) || (line[3] != ' ' && line[3] != '\t'))
		return -1;
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);

	if (n < 4)
		return -1;
	/* idle (v[3]) and iowait (v[4]) are not busy */
	*ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return 0;
}

static uint64_t host_busy_ticks(void)
{
	char line[512];
	uint64_t t = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f) || dcb_parse_cpu_busy(line, &t))
		t = 0;
	fclose(f);
	return t;
}

int dcb_proc_mem(int pid, int64_t *rss_kib, int64_t *hwm_kib)
{
	char p[64], line[256];
	unsigned long long v;
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	FILE *f = fopen(p, "re");
	*rss_kib = *hwm_kib = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %llu", &v) == 1)
			*rss_kib = (int64_t)v;
		else if (sscanf(line, "VmHWM: %llu", &v) == 1)
			*hwm_kib = (int64_t)v;
	}
	fclose(f);
	return 0;
}

static void find_kswapd(struct dcb_sampler *sp)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) && sp->nkswapd < 64) {
		int pid = atoi(e->d_name);
		if (pid <= 0)
			continue;
		char p[64], comm[64] = "";
		snprintf(p, sizeof(p), "/proc/%d/comm", pid);
		FILE *f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kswapd", 6))
			sp->kswapd_pids[sp->nkswapd++] = pid;
		fclose(f);
	}
	closedir(d);
}

void dcb_sampler_init(struct dcb_sampler *sp, uint64_t start_ns, int server_pid,
		      const char *cgroup_dir)
{
	memset(sp, 0, sizeof(*sp));
	pthread_mutex_init(&sp->mu, NULL);
	sp->start_ns = start_ns;
	sp->interval_ns = 1000000000ULL;
	sp->server_pid = server_pid;
	sp->cgroup_dir = cgroup_dir;
	sp->use_cachestat = probe_cachestat();
	sp->hot_start_pct = -1;
	sp->server_hwm_kib = -1;
	find_kswapd(sp);
}

void dcb_sampler_add_file(struct dcb_sampler *sp, const char *path, int hot)
{
	char ***v = hot ? &sp->hot : &sp->files;
	int *n = hot ? &sp->nhot : &sp->nfiles;
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));
	if (!nv)
		return;
	nv[*n] = strdup(path);
	*v = nv;
	(*n)++;
}

static void read_meminfo(struct dcb_sample *s)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "Cached: %llu", &v) == 1)
			s->cached_kib = v;
		else if (sscanf(line, "Dirty: %llu", &v) == 1)
			s->dirty_kib = v;
		else if (sscanf(line, "Writeback: %llu", &v) == 1)
			s->writeback_kib = v;
	}
	fclose(f);
}

static void read_cgroup(const char *dir, struct dcb_sample *s)
{
	char p[512], line[256], key[128];
	unsigned long long v;
	s->cg_cache_kib = s->cg_dirty_kib = s->cg_writeback_kib =
		s->cg_usage_kib = -1;
	if (!dir)
		return;
	snprintf(p, sizeof(p), "%s/memory.stat", dir);
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "cache") || !strcmp(key, "file"))
			s->cg_cache_kib = v / 1024;
		else if (!strcmp(key, "dirty") || !strcmp(key, "file_dirty"))
			s->cg_dirty_kib = v / 1024;
		else if (!strcmp(key, "writeback") ||
			 !strcmp(key, "file_writeback"))
			s->cg_writeback_kib = v / 1024;
	}
	fclose(f);
	snprintf(p, sizeof(p), "%s/memory.usage_in_bytes", dir);
	f = fopen(p, "re");
	if (!f) {
		snprintf(p, sizeof(p), "%s/memory.current", dir);
		f = fopen(p, "re");
	}
	if (f) {
		if (fscanf(f, "%llu", &v) == 1)
			s->cg_usage_kib = v / 1024;
		fclose(f);
	}
}

void dcb_sampler_take(struct dcb_sampler *sp, double t, struct dcb_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	read_meminfo(s);
	read_cgroup(sp->cgroup_dir, s);
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t sv = sp->server_pid ? dcb_proc_ticks(sp->server_pid) : 0,
		 kw = 0;
	for (int i = 0; i < sp->nkswapd; i++)
		kw += dcb_proc_ticks(sp->kswapd_pids[i]);
	s->server_cpu_pct = s->kswapd_cpu_pct = -1;
	s->server_rss_kib = -1;
	if (sp->server_pid) {
		int64_t hwm;
		dcb_proc_mem(sp->server_pid, &s->server_rss_kib, &hwm);
	}
	if (sp->have_prev && t > sp->prev_t) {
		double dt = t - sp->prev_t;
		/* a process that went away (or a failed read) gives no number, not an underflow */
		if (sp->server_pid && sv && sv >= sp->prev_server_ticks &&
		    sp->prev_server_ticks)
			s->server_cpu_pct =
				100.0 * (double)(sv - sp->prev_server_ticks) /
				hz / dt;
		if (sp->nkswapd && kw >= sp->prev_kswapd_ticks)
			s->kswapd_cpu_pct =
				100.0 * (double)(kw - sp->prev_kswapd_ticks) /
				hz / dt;
	}
	sp->prev_server_ticks = sv;
	sp->prev_kswapd_ticks = kw;
	sp->prev_t = t;
	sp->have_prev = 1;
	uint64_t r, d, sz;
	for (int i = 0; i < sp->nfiles; i++)
		if (dcb_file_residency(sp->files[i], sp->use_cachestat, &r, &d,
				       &sz) == 0) {
			s->files_resident_kib += r;
			s->files_dirty_kib += d;
		}
	s->hot_resident_pct = -1;
	if (sp->nhot) {
		uint64_t tr = 0, ts = 0;
		for (int i = 0; i < sp->nhot; i++)
			if (dcb_file_residency(sp->hot[i], sp->use_cachestat,
					       &r, &d, &sz) == 0) {
				tr += r < sz ? r : sz;
				ts += sz;
			}
		s->hot_resident_pct = ts ? 100.0 * (double)tr / (double)ts : 0;
	}
}

static void push(struct dcb_sampler *sp, const struct dcb_sample *s)
{
	pthread_mutex_lock(&sp->mu);
	if (sp->n == sp->cap) {
		int cap = sp->cap ? sp->cap * 2 : 128;
		struct dcb_sample *n = realloc(sp->s, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&sp->mu);
			return;
		}
		sp->s = n;
		sp->cap = cap;
	}
	sp->s[sp->n++] = *s;
	pthread_mutex_unlock(&sp->mu);
}

static void *sampler_main(void *arg)
{
	struct dcb_sampler *sp = arg;
	for (int k = 1;; k++) {
		uint64_t due = sp->start_ns + (uint64_t)k * sp->interval_ns;
		for (;;) {
			if (__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
				return NULL;
			uint64_t now = dcb_now_ns();
			if (now >= due)
				break;
			uint64_t w = due - now;
			if (w > 50000000ULL)
				w = 50000000ULL;
			struct timespec ts = { 0, (long)w };
			nanosleep(&ts, NULL);
		}
		struct dcb_sample s;
		dcb_sampler_take(
			sp, (double)(dcb_now_ns() - sp->start_ns) / 1e9, &s);
		push(sp, &s);
	}
}

int dcb_sampler_start(struct dcb_sampler *sp)
{
	struct dcb_sample s;
	dcb_sampler_take(
		sp, 0,
		&s); /* baseline for CPU deltas, and the starting residency */
	sp->hot_start_pct = s.hot_resident_pct;
	sp->server_ticks_start = sp->prev_server_ticks;
	sp->server_minflt_start =
		sp->server_pid ? dcb_proc_minflt(sp->server_pid) : 0;
	sp->host_ticks_start = host_busy_ticks();
	sp->client_ticks_start = dcb_proc_ticks(getpid());
	push(sp, &s);
	if (pthread_create(&sp->thr, NULL, sampler_main, sp))
		return -1;
	sp->running = 1;
	return 0;
}

void dcb_sampler_stop(struct dcb_sampler *sp)
{
	if (sp->running) {
		__atomic_store_n(&sp->stop, 1, __ATOMIC_RELEASE);
		pthread_join(sp->thr, NULL);
		sp->running = 0;
	}
	struct dcb_sample s;
	dcb_sampler_take(sp, (double)(dcb_now_ns() - sp->start_ns) / 1e9, &s);
	push(sp, &s);
	sp->server_ticks_stop = sp->prev_server_ticks;
	sp->server_minflt_stop =
		sp->server_pid ? dcb_proc_minflt(sp->server_pid) : 0;
	sp->host_ticks_stop = host_busy_ticks();
	sp->client_ticks_stop = dcb_proc_ticks(getpid());
	if (sp->server_pid) {
		int64_t rss;
		dcb_proc_mem(sp->server_pid, &rss, &sp->server_hwm_kib);
	}
}

double dcb_sampler_server_cpu_s(const struct dcb_sampler *sp)
{
	if (!sp->server_pid || !sp->server_ticks_start ||
	    !sp->server_ticks_stop ||
	    sp->server_ticks_stop < sp->server_ticks_start)
		return -1;
	return (double)(sp->server_ticks_stop - sp->server_ticks_start) /
	       sysconf(_SC_CLK_TCK);
}

double dcb_sampler_server_minflt(const struct dcb_sampler *sp)
{
	if (!sp->server_minflt_start || !sp->server_minflt_stop ||
	    sp->server_minflt_stop < sp->server_minflt_start)
		return -1;
	return (double)(sp->server_minflt_stop - sp->server_minflt_start);
}

double dcb_sampler_host_cpu_s(const struct dcb_sampler *sp)
{
	uint64_t host, client;

	/* the client's own ticks may be 0 at start (a process that has not
	 * run a tick yet); /proc/stat's never are */
	if (!sp->host_ticks_start || !sp->host_ticks_stop ||
	    sp->host_ticks_stop < sp->host_ticks_start ||
	    sp->client_ticks_stop < sp->client_ticks_start)
		return -1;
	host = sp->host_ticks_stop - sp->host_ticks_start;
	client = sp->client_ticks_stop - sp->client_ticks_start;
	/* two clocks sampled a moment apart: never below zero */
	return host > client ? (double)(host - client) / sysconf(_SC_CLK_TCK)
			     : 0.0;
}

int dcb_sampler_latest(struct dcb_sampler *sp, struct dcb_sample *out)
{
	int ok = 0;
	pthread_mutex_lock(&sp->mu);
	if (sp->n) {
		*out = sp->s[sp->n - 1];
		ok = 1;
	}
	pthread_mutex_unlock(&sp->mu);
	return ok;
}

void dcb_sampler_free(struct dcb_sampler *sp)
{
	for (int i = 0; i < sp->nfiles; i++)
		free(sp->files[i]);
	for (int i = 0; i < sp->nhot; i++)
		free(sp->hot[i]);
	free(sp->files);
	free(sp->hot);
	free(sp->s);
	pthread_mutex_destroy(&sp->mu);
}
