/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* ft_busy's NFSv3 side (tests/lib/nfsc on libnfs), in a unit of its own: libnfs's and
 * ganesha's (nfs4c) RPC headers do not build together. Statuses are nfsstat3, -1 for a
 * failed RPC. */
#ifndef FT_BUSY3_H
#define FT_BUSY3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct b3;

/* MNT of export and an NFSv3 connection (calls wait up to timeout_ms); NULL with the
 * reason on stderr. */
struct b3 *b3_open(const char *host, int nfsport, int mntport,
		   const char *export, int timeout_ms);
void b3_close(struct b3 *b);
const char *b3_st(int st);
/* name in the export's root CREATEd (UNCHECKED, 0644) and len bytes written UNSTABLE at
 * 0: it becomes b's current file */
int b3_create_write(struct b3 *b, const char *name, uint32_t len);
/* WRITE UNSTABLE / COMMIT (whole file) of the current file */
int b3_write(struct b3 *b, uint64_t off, uint32_t len);
int b3_commit(struct b3 *b);
/* name LOOKed UP, then COMMITted */
int b3_lookup_commit(struct b3 *b, const char *name);

#endif
