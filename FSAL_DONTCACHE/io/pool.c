// SPDX-License-Identifier: LGPL-3.0-or-later
/* A job queue served by a few threads: the pwritev2/preadv2 I/O handed off
 * the caller's thread, and group-commit flushes. */
#include <errno.h>
#include <stdlib.h>

#include "caps.h"
#include "pool.h"
#include "queue.h"
#include "util.h"

static void *pool_main(void *arg)
{
	struct dcio_pool *p = arg;

	thread_caps(p->log);
	thread_nice(p->nice);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->head)
			break;
		struct dcio_job *j = p->head;

		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->mu);
		j->run(j);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int pool_start(struct dcio_pool *p, unsigned int n, const char *name, int nice,
	       dcio_log_fn log)
{
	p->nice = nice;
	p->log = log;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->head = p->tail = NULL;
	p->stop = false;
	p->n = 0;
	p->tids = calloc(n, sizeof(*p->tids));
	if (!p->tids)
		return ENOMEM;
	int rc = threads_start(p->tids, n, pool_main, p, name, &p->n);

	if (rc)
		pool_stop(p);
	return rc;
}

void pool_post(struct dcio_pool *p, struct dcio_job *j)
{
	pthread_mutex_lock(&p->mu);
	QUEUE_APPEND(p->head, p->tail, j);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* Runs what is queued, then joins the threads. */
void pool_stop(struct dcio_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (unsigned int i = 0; i < p->n; i++)
		pthread_join(p->tids[i], NULL);
	free(p->tids);
	p->tids = NULL;
	p->n = 0;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}
