/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The bottom of io/: the clock, condition variables on it, threads and
 * counts of outstanding work. Knows no other unit. */
#ifndef DCIO_UTIL_H
#define DCIO_UTIL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC, ns */
uint64_t now_ns(void);
void cond_init_mono(pthread_cond_t *cv);
void deadline_after(struct timespec *ts, uint32_t ms);
/* The CLOCK_MONOTONIC instant now_ns() would read as ns, for a timed wait */
struct timespec ts_at_ns(uint64_t ns);
/* Starts n threads running fn(arg), named "<prefix><i>"; *started counts
 * those running (for the caller to join, on failure too). 0 or the
 * pthread_create error. */
int threads_start(pthread_t *tids, unsigned int n, void *(*fn)(void *),
		  void *arg, const char *prefix, unsigned int *started);
void thread_nice(int nice);
void count_get(pthread_mutex_t *mu, long *n);
void count_put(pthread_mutex_t *mu, pthread_cond_t *cv, long *n);
void count_wait_zero(pthread_mutex_t *mu, pthread_cond_t *cv, const long *n);

#endif
