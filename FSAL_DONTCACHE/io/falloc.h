/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* falloc.c: a write is tracked from dcio_write until its data syscalls are
 * done and recorded (pending or lost); fallocate waits for the overlapping
 * ones submitted before it. */
#ifndef DCIO_FALLOC_H
#define DCIO_FALLOC_H

struct dcio_req;

void falloc_track(struct dcio_req *q);
void falloc_untrack(struct dcio_req *q);

#endif
