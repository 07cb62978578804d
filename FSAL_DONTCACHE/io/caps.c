// SPDX-License-Identifier: LGPL-3.0-or-later
/* Capabilities. capset(2) on pid 0 changes the calling thread only (Linux
 * keeps credentials per thread; libcap's cap_set_proc does the same), so
 * ganesha's lower_my_caps, run on its main thread after the exports were
 * read, leaves CAP_SYS_RESOURCE (quota hard limits, ext4's root reserve)
 * with every thread created before it: the engine's pool and flusher
 * are. Each of them drops it itself when it starts, and a write
 * issued as a caller other than root runs with an empty effective set, so
 * that no path depends on when ganesha dropped what. */
#include <errno.h>
#include <pthread.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

static int caps_sys(int set, struct caps_sets *s)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	long rc;

	if (set) {
		for (int i = 0; i < 2; i++) {
			d[i].effective = s->eff[i];
			d[i].permitted = s->prm[i];
			d[i].inheritable = s->inh[i];
		}
		rc = syscall(SYS_capset, &h, d);
	} else {
		memset(d, 0, sizeof(d));
		rc = syscall(SYS_capget, &h, d);
		for (int i = 0; rc == 0 && i < 2; i++) {
			s->eff[i] = d[i].effective;
			s->prm[i] = d[i].permitted;
			s->inh[i] = d[i].inheritable;
		}
	}
	return rc == 0 ? 0 : errno;
}

int caps_get(struct caps_sets *s)
{
	return caps_sys(0, s);
}

bool caps_has(const uint32_t set[2], unsigned int cap)
{
	return cap < 64 && (set[cap / 32] & (1u << (cap % 32))) != 0;
}

int caps_drop_resource(void)
{
	const unsigned int w = CAP_SYS_RESOURCE / 32;
	const uint32_t bit = 1u << (CAP_SYS_RESOURCE % 32);
	struct caps_sets s;
	int err = caps_get(&s);

	if (err)
		return err;
	if (!((s.eff[w] | s.prm[w] | s.inh[w]) & bit))
		return 0;
	s.eff[w] &= ~bit;
	s.prm[w] &= ~bit;
	s.inh[w] &= ~bit;
	return caps_sys(1, &s);
}

int caps_enter(uid_t uid, struct caps_saved *s)
{
	struct caps_sets none;
	int err;

	s->cleared = false;
	if (uid == 0)
		return 0;
	err = caps_get(&s->was);
	if (err)
		return err;
	if (s->was.eff[0] == 0 && s->was.eff[1] == 0)
		return 0;
	none = s->was;
	none.eff[0] = none.eff[1] = 0;
	err = caps_sys(1, &none);
	if (err)
		return err;
	s->cleared = true;
	return 0;
}

void caps_leave(struct caps_saved *s)
{
	int e = errno;

	if (s->cleared)
		(void)caps_sys(1, &s->was);
	s->cleared = false;
	errno = e;
}

/* First thing on every thread the engine creates (pool, flusher):
 * CAP_SYS_RESOURCE goes, as ganesha takes it from its main thread
 * (lower_my_caps), which it does after the engine's threads were made
 * (above). */
void thread_caps(dcio_log_fn log)
{
	int err = caps_drop_resource();

	if (err) {
		char name[16] = "?";

		pthread_getname_np(pthread_self(), name, sizeof(name));
		log(DCIO_LOG_CRIT,
		    "dcio: engine thread %s keeps CAP_SYS_RESOURCE (capset: %s): its writes as root pass quota limits and ext4's reserve",
		    name, strerror(err));
	}
}
