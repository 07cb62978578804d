// SPDX-License-Identifier: LGPL-3.0-or-later
/* The clock, condition variables on it, threads and counts of outstanding
 * work: what every layer of io/ uses. */
#include <stdio.h>
#include <sys/resource.h>

#include "util.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

struct timespec ts_at_ns(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000ull),
				  (long)(ns % 1000000000ull) };
}

int threads_start(pthread_t *tids, unsigned int n, void *(*fn)(void *),
		  void *arg, const char *prefix, unsigned int *started)
{
	for (unsigned int i = 0; i < n; i++) {
		int rc = pthread_create(&tids[i], NULL, fn, arg);

		if (rc)
			return rc;
		char tn[16];

		snprintf(tn, sizeof(tn), "%s%u", prefix, i);
		pthread_setname_np(tids[i], tn);
		(*started)++;
	}
	return 0;
}

/* For waits on a condition variable made by cond_init_mono. */
void deadline_after(struct timespec *ts, uint32_t ms)
{
	*ts = ts_at_ns(now_ns() + (uint64_t)ms * 1000000ull);
}

/* The engine's own threads (pool, flusher) yield the CPU to ganesha's
 * workers. Called only on a thread the engine created. */
void thread_nice(int nice)
{
	if (nice > 0)
		(void)setpriority(PRIO_PROCESS, 0, nice);
}

/* Counts of outstanding work (engine, export, file): taken per request,
 * the last put wakes whoever waits for zero. */
void count_get(pthread_mutex_t *mu, long *n)
{
	pthread_mutex_lock(mu);
	(*n)++;
	pthread_mutex_unlock(mu);
}

void count_put(pthread_mutex_t *mu, pthread_cond_t *cv, long *n)
{
	pthread_mutex_lock(mu);
	if (--*n == 0)
		pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
}

void count_wait_zero(pthread_mutex_t *mu, pthread_cond_t *cv, const long *n)
{
	pthread_mutex_lock(mu);
	while (*n > 0)
		pthread_cond_wait(cv, mu);
	pthread_mutex_unlock(mu);
}
