/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* rangelock.c: overlapping writes of direct-mode files run in turn. */
#ifndef DCIO_RANGELOCK_H
#define DCIO_RANGELOCK_H

struct dcio_req;

void rl_start(struct dcio_req *q);
void rl_release(struct dcio_req *q);

#endif
