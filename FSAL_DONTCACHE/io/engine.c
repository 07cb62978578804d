// SPDX-License-Identifier: LGPL-3.0-or-later
/* The process-wide engine: its syscall table (sys.c), the pool (the I/O
 * handed off the caller's thread, group-commit flushes) and the
 * flusher. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bounce.h"
#include "cred.h"
#include "core.h"
#include "flusher.h"
#include "log.h"
#include "pool.h"
#include "sys.h"

int dcio_engine_create(const struct dcio_engine_params *p,
		       const struct dcio_syscalls *sys,
		       struct dcio_engine **out)
{
	if (!p || !out)
		return EINVAL;
	struct dcio_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return ENOMEM;
	sys_fill(&e->sys, sys);
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	e->threads = p->threads ? p->threads : 1;
	e->nice = p->nice;
	e->kick = (unsigned int)p->kick <= DCIO_KICK_DEFERRED ? p->kick
							      : DCIO_KICK_AUTO;
	atomic_init(&e->verifier_gen, 1);
	/* probed here, not on the first write's request path */
	(void)cred_can_switch();
	long page = sysconf(_SC_PAGESIZE);

	e->page = page > 0 ? (uint32_t)page : 4096;
	bounce_init(&e->bounce, e->page);
	e->log = p->log ? p->log : dcio_log_stderr;

	int rc = pool_start(&e->pool, e->threads, "dcio-pool", e->nice, e->log);

	if (!rc)
		rc = flusher_start(e);
	if (rc) {
		if (e->pool.tids)
			pool_stop(&e->pool);
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void dcio_engine_destroy(struct dcio_engine *e)
{
	if (!e)
		return;
	count_wait_zero(&e->mu, &e->cv, &e->outstanding);
	flusher_stop(e);
	pool_stop(&e->pool);
	bounce_fini(&e->bounce);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->mu);
	free(e);
}
