// SPDX-License-Identifier: LGPL-3.0-or-later
/* See tcheck.h. */
#include "tcheck.h"

#include <stdarg.h>
#include <stdio.h>

int tc_checks, tc_failures;

void tc_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tc_checks++;
	if (!cond)
		tc_failures++;
	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}
