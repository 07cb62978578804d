// SPDX-License-Identifier: LGPL-3.0-or-later
/* The engine's messages: the caller's sink (the FSAL routes them to its log)
 * or stderr, and a per-site rate limit for warnings that can repeat. */
#include <stdarg.h>
#include <stdio.h>

#include "util.h"
#include "log.h"

static const char *const level_name[] = { "CRIT", "WARN", "INFO" };

void dcio_log_stderr(int level, const char *fmt, ...)
{
	va_list ap;

	if (level < DCIO_LOG_CRIT || level > DCIO_LOG_INFO)
		level = DCIO_LOG_WARN;
	fprintf(stderr, "dcio %s: ", level_name[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool dcio_ratelimit(struct dcio_ratelimit *rl, unsigned int seconds,
		    uint64_t *suppressed)
{
	uint64_t now = now_ns();
	uint64_t next = __atomic_load_n(&rl->next_ns, __ATOMIC_RELAXED);

	for (;;) {
		if (next != 0 && now < next) {
			__atomic_fetch_add(&rl->suppressed, 1,
					   __ATOMIC_RELAXED);
			return false;
		}
		if (__atomic_compare_exchange_n(
			    &rl->next_ns, &next,
			    now + (uint64_t)seconds * 1000000000ull, false,
			    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	if (suppressed)
		*suppressed = __atomic_exchange_n(&rl->suppressed, 0,
						  __ATOMIC_RELAXED);
	else
		__atomic_store_n(&rl->suppressed, 0, __ATOMIC_RELAXED);
	return true;
}
