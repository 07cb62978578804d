/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* caps.c: the capabilities of the engine's own threads and of a write's
 * syscall issued as a caller, with the raw per-thread capget/capset. */
#ifndef DCIO_CAPS_H
#define DCIO_CAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dcio.h"

/* One thread's three sets, as capget/capset (version 3) carry them. */
struct caps_sets {
	uint32_t eff[2], prm[2], inh[2];
};

/* The calling thread's sets: 0 or the errno. */
int caps_get(struct caps_sets *s);
bool caps_has(const uint32_t set[2], unsigned int cap);

/* CAP_SYS_RESOURCE out of the calling thread's effective, permitted and
 * inheritable sets, as ganesha's lower_my_caps takes it from its main
 * thread; the engine's threads call it first thing. 0 or the errno. */
int caps_drop_resource(void);
/* caps_drop_resource on a thread the engine creates, first thing; a
 * failure is logged (DCIO_LOG_CRIT). */
void thread_caps(dcio_log_fn log);

/* A write as caller uid runs with no effective capability unless uid is 0,
 * as after ganesha's own switch (setresuid to a non-zero euid): quota
 * limits and ext4's reserve hold for it whatever the thread holds. */
struct caps_saved {
	bool cleared;
	struct caps_sets was;
};
/* After the identity switch (setgroups needs CAP_SETGID): 0 or the errno
 * with the thread's sets unchanged. */
int caps_enter(uid_t uid, struct caps_saved *s);
/* Before switching back: the effective set cleared by caps_enter again. */
void caps_leave(struct caps_saved *s);

#endif
