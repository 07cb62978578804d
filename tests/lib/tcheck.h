/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* tcheck: the "ok - ..." / "not ok - ..." line of one check, counted, for the
 * test programs outside the unit tests (tests/run.sh shows the "not ok" lines
 * of a failed scenario). */
#ifndef TCHECK_H
#define TCHECK_H

#include <stdbool.h>

extern int tc_checks, tc_failures;

/* Prints "ok - MSG" or "not ok - MSG" (flushed) and counts it. */
void tc_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
