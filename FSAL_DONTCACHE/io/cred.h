/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* cred.c: a write's syscall issued with its caller's file-system identity
 * (fsuid, fsgid, supplementary groups) on whatever engine or caller thread
 * runs it. */
#ifndef DCIO_CRED_H
#define DCIO_CRED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "caps.h"

struct dcio_cred;
struct dcio_syscalls;

/* The engine's copy of a dcio_cred, owned by the request it came with. */
struct cred_copy {
	uid_t uid;
	gid_t gid;
	unsigned int ngroups;
	gid_t groups[];
};

/* A thread's identity as it was before cred_enter. */
#define CRED_SAVED_SMALL 32
struct cred_saved {
	uid_t uid;
	gid_t gid;
	int ngroups;
	bool groups_kept; /* the caller's groups were the thread's already */
	bool ids_kept; /* so were its fsuid and fsgid (read back, not set) */
	gid_t *groups; /* small, or malloc'd when the thread has more */
	gid_t small[CRED_SAVED_SMALL];
	struct caps_saved caps; /* caps_enter: none effective but for root */
};

/* NULL for NULL; else a malloc'd copy (NULL with *err = ENOMEM/EINVAL). */
struct cred_copy *cred_copy_new(const struct dcio_cred *c, int *err);
bool cred_copy_eq(const struct cred_copy *a, const struct cred_copy *b);
/* Whether this process may switch a thread's fsuid/fsgid/groups
 * (CAP_SETUID and CAP_SETGID); probed once, on a thread of its own. */
bool cred_can_switch(void);
/* The calling thread takes c's identity with per-thread syscalls
 * (setgroups, and sys's setfsgid, setfsuid: glibc's setgroups would change
 * every thread of the process). 0, or the errno with the thread unchanged:
 * EPERM when the fsgid or fsuid read back is not c's (the kernel ignores an
 * id that does not map into the server's user namespace and answers as if
 * it had switched: the write would run as the server). A fsuid other than 0
 * takes the file-system capabilities (CAP_FSETID, CAP_DAC_OVERRIDE...) out
 * of the thread's effective set, as for a local user's write: set-id bits
 * are cleared. A uid other than 0 then runs with an empty effective set
 * (caps_enter), as after ganesha's switch: quota limits and ext4's reserve
 * hold whatever the thread holds. */
int cred_enter(const struct dcio_syscalls *sys, const struct cred_copy *c,
	       struct cred_saved *s);
/* Back to what cred_enter saved. errno is kept. */
void cred_leave(const struct dcio_syscalls *sys, struct cred_saved *s);

#endif
