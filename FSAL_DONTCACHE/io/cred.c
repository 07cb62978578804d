// SPDX-License-Identifier: LGPL-3.0-or-later
/* Writes as the caller: the thread that issues a write's syscall takes the
 * caller's fsuid, fsgid and groups around it (per-thread syscalls only). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"
#include "dcio.h"

struct cred_copy *cred_copy_new(const struct dcio_cred *c, int *err)
{
	struct cred_copy *k;

	*err = 0;
	if (c == NULL)
		return NULL;
	if (c->ngroups > DCIO_CRED_MAX_GROUPS ||
	    (c->ngroups && c->groups == NULL)) {
		*err = EINVAL;
		return NULL;
	}
	k = malloc(sizeof(*k) + (size_t)c->ngroups * sizeof(gid_t));
	if (k == NULL) {
		*err = ENOMEM;
		return NULL;
	}
	k->uid = c->uid;
	k->gid = c->gid;
	k->ngroups = c->ngroups;
	if (c->ngroups)
		memcpy(k->groups, c->groups, c->ngroups * sizeof(gid_t));
	return k;
}

bool cred_copy_eq(const struct cred_copy *a, const struct cred_copy *b)
{
	return a->uid == b->uid && a->gid == b->gid &&
	       a->ngroups == b->ngroups &&
	       memcmp(a->groups, b->groups, a->ngroups * sizeof(gid_t)) == 0;
}

static bool can_switch;
/* The server's own fsuid/fsgid (a new thread's, at the probe): the ids a
 * worker most likely holds when a caller with them writes */
static uid_t home_uid;
static gid_t home_gid;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

/* On a thread of its own: nothing of the caller's changes either way. */
static void *probe_thread(void *arg)
{
	bool *ok = arg;
	long was = syscall(SYS_setfsuid, 65534);
	long now = syscall(SYS_setfsuid, -1);
	long gwas = syscall(SYS_setfsgid, 65534);
	long gnow = syscall(SYS_setfsgid, -1);

	home_uid = (uid_t)was;
	home_gid = (gid_t)gwas;
	*ok = now == 65534 && gnow == 65534 &&
	      syscall(SYS_setgroups, 0, NULL) == 0;
	return NULL;
}

/* Whether the thread holds c's fsuid and fsgid already. Asked only for a
 * caller with the server's ids (root, on a server run as root): a read is
 * an id of -1, which the kernel answers before preparing new credentials,
 * where a switch to the same id prepares and discards them (about three
 * times the cost, twice, and twice more to go back). */
static bool ids_held(const struct dcio_syscalls *sys, const struct cred_copy *c,
		     struct cred_saved *s)
{
	if (c->uid != home_uid || c->gid != home_gid)
		return false;
	s->gid = (gid_t)sys->setfsgid((gid_t)-1);
	s->uid = (uid_t)sys->setfsuid((uid_t)-1);
	return s->gid == c->gid && s->uid == c->uid;
}

static void probe(void)
{
	pthread_t t;
	bool ok = false;

	if (pthread_create(&t, NULL, probe_thread, &ok) != 0)
		return;
	pthread_join(t, NULL);
	can_switch = ok;
}

bool cred_can_switch(void)
{
	pthread_once(&probe_once, probe);
	return can_switch;
}

int cred_enter(const struct dcio_syscalls *sys, const struct cred_copy *c,
	       struct cred_saved *s)
{
	long n;

	if (!cred_can_switch())
		return EPERM;
	s->groups = s->small;
	n = syscall(SYS_getgroups, CRED_SAVED_SMALL, s->small);
	if (n < 0 && errno == EINVAL) {
		n = syscall(SYS_getgroups, 0, NULL);
		if (n < 0)
			return errno;
		s->groups = malloc((size_t)(n ? n : 1) * sizeof(gid_t));
		if (s->groups == NULL)
			return ENOMEM;
		n = syscall(SYS_getgroups, n, s->groups);
	}
	if (n < 0) {
		int err = errno;

		if (s->groups != s->small)
			free(s->groups);
		return err;
	}
	s->ngroups = (int)n;
	/* the same list (a squashed caller has none, as a server run
	 * without supplementary groups): nothing to change or restore */
	s->groups_kept =
		(unsigned int)n == c->ngroups &&
		memcmp(s->groups, c->groups, c->ngroups * sizeof(gid_t)) == 0;
	if (!s->groups_kept &&
	    syscall(SYS_setgroups, c->ngroups, c->groups) != 0) {
		int err = errno;

		if (s->groups != s->small)
			free(s->groups);
		return err;
	}
	/* Both return the previous id whether or not they switched: read
	 * each back (-1 changes nothing) and refuse a switch that did not
	 * take, rather than write with the server's identity. Ids the thread
	 * holds already (read, not assumed) are neither switched nor
	 * restored. */
	s->caps.cleared = false;
	s->ids_kept = ids_held(sys, c, s);
	if (!s->ids_kept) {
		s->gid = (gid_t)sys->setfsgid(c->gid);
		s->uid = (uid_t)sys->setfsuid(c->uid);
		if ((gid_t)sys->setfsgid((gid_t)-1) != c->gid ||
		    (uid_t)sys->setfsuid((uid_t)-1) != c->uid) {
			cred_leave(sys, s);
			return EPERM;
		}
	}
	int err = caps_enter(c->uid, &s->caps);

	if (err) {
		cred_leave(sys, s);
		return err;
	}
	return 0;
}

void cred_leave(const struct dcio_syscalls *sys, struct cred_saved *s)
{
	int e = errno;

	caps_leave(&s->caps); /* setgroups needs CAP_SETGID back */
	if (!s->ids_kept) {
		(void)sys->setfsuid(s->uid);
		(void)sys->setfsgid(s->gid);
	}
	if (!s->groups_kept)
		(void)syscall(SYS_setgroups, s->ngroups, s->groups);
	if (s->groups != s->small)
		free(s->groups);
	errno = e;
}
