/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* sys.c: the syscall table's defaults. */
#ifndef DCIO_SYS_H
#define DCIO_SYS_H

#include "dcio.h"

/* d = s (NULL: all empty), each empty entry the real syscall */
void sys_fill(struct dcio_syscalls *d, const struct dcio_syscalls *s);

#endif
