/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* log.c: the engine's message sink and rate limit. */
#ifndef DCIO_LOG_H
#define DCIO_LOG_H

#include <stdint.h>

#include "dcio.h"

/* A warning of the engine, at most one per `secs` from each call site. */
#define DCIO_LOG_RL(e, level, secs, fmt, ...)                                  \
	do {                                                                   \
		static struct dcio_ratelimit rl_;                              \
		uint64_t supp_;                                                \
		if (dcio_ratelimit(&rl_, (secs), &supp_)) {                    \
			if (supp_)                                             \
				(e)->log(                                      \
					(level),                               \
					fmt                                    \
					" (%llu similar messages suppressed)", \
					##__VA_ARGS__,                         \
					(unsigned long long)supp_);            \
			else                                                   \
				(e)->log((level), fmt, ##__VA_ARGS__);         \
		}                                                              \
	} while (0)

void dcio_log_stderr(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
