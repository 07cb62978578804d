/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* errmem.c: a file's error memory: pending and lost ranges, the error
 * generation, the sync_file_range bracket, truncate trimming. */
#ifndef DCIO_ERRMEM_H
#define DCIO_ERRMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "errmem_types.h"

struct dcio_file;

/* Called with gc.mu held. */
/* A flush is due after a failed or lost write (the settle flush) */
void em_want_settle(struct dcio_file *f);
void em_note_error(struct dcio_file *f, int err);
void em_lose(struct dcio_file *f, uint64_t lo, uint64_t hi, int err);
void em_lose_pending(struct dcio_file *f, int err);

/* A write reads the error generation before its first syscall and hands it
 * to em_acked: an error in between may have consumed its writeback error. */
uint64_t em_write_begin(struct dcio_file *f);
void em_acked(struct dcio_file *f, uint64_t off, uint64_t len, uint64_t gen);
void em_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err);
/* A writeback syscall outside group commit (sync_file_range, `how` its
 * flags), bracketed: a COMMIT waits until its error, if any, is recorded,
 * because the syscall already consumed the kernel's one report of it. */
void em_sync_file_range(struct dcio_file *f, uint64_t off, uint64_t len,
			unsigned int how);
int em_lost_err(struct dcio_file *f);
int em_take_unreported(struct dcio_file *f);
void em_truncate_begin(struct dcio_file *f);
void em_truncate_end(struct dcio_file *f, uint64_t size, bool done);
void em_fini(struct dcio_file *f);

#endif
