/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* rangelock.c: overlapping writes of direct-mode files run in turn. */
#ifndef DCIO_RANGELOCK_H
#define DCIO_RANGELOCK_H

#include <stdbool.h>

struct dcio_req;

/* true: q holds its range, its caller starts it now (req_start); false:
 * queued, started by the rl_release that frees its range */
bool rl_start(struct dcio_req *q);
/* The queued requests q's release let hold their ranges, chained by next:
 * the caller starts each (req_start). */
struct dcio_req *rl_release(struct dcio_req *q);

#endif
