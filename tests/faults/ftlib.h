/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fault-test helpers on top of the shared NFSv3 client core (tests/lib/nfsc.h): common
 * options, connecting, the deterministic data pattern and the acknowledged-data record format
 * shared by ft_writer and ft_verify.
 *
 * Data pattern: the byte at offset o of a file whose pattern seed is s is a pure function of
 * (s, o) (ft_pattern_fill), so rewriting a range never changes what it must contain and the
 * record needs only ranges, not data.
 *
 * Record (one text file per NFS file, appended in event order by a single thread):
 *   F <path> <seed>                       header: file path in the export, pattern seed
 *   U <n> <off> <len> <verf>              WRITE UNSTABLE answered OK (n = index of this ack)
 *   S <n> <off> <len> <verf> <committed>  WRITE answered DATA_SYNC/FILE_SYNC (asked so, or
 *                                          asked UNSTABLE and promoted by the server)
 *   E <off> <len> <status>                WRITE failed (status = nfsstat3 or -1 RPC error)
 *   C <off> <count> <status> <verf> <acks> COMMIT reply; acks = U/S lines acknowledged
 *                                          before the COMMIT was sent (those it covers)
 *   R <path>                              file removed through NFS (ignore it from here)
 * verf is 16 hex digits. A range is "acknowledged durable" when an S line covers it, or a U
 * line with n < acks of an OK COMMIT with the same verifier whose range overlaps it.
 */
#ifndef FT_LIB_H
#define FT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "nfsc.h"

/* Forged handles stay within NFSv3's 64-byte limit (longer ones are not valid XDR). */
#define FT_FHMAX 64

void ft_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Parses -H host -p nfsport -M mntport -e export (common options) from a getopt loop. */
bool ft_common_opt(struct nfsc_opts *o, int opt, const char *arg);
#define FT_COMMON_OPTS "H:p:M:e:"

/* nfsc_connect without AUTH_SYS ids, waiting up to 10 s for the MNT. */
int ft_connect(struct nfsc_conn *c, const struct nfsc_opts *o);

/* Walks a '/'-separated path below the root. */
int ft_lookup_path(struct nfsc_conn *c, const char *path, struct nfsc_fh *out);
/* UNCHECKED CREATE mode 0644 / MKDIR mode 0755 (an existing directory is fine); the handle
 * is looked up when the reply has none. */
int ft_create(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	      struct nfsc_fh *out);
int ft_mkdir(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	     struct nfsc_fh *out);

/* Pattern. */
uint64_t ft_seed(const char *path);
void ft_pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len);

void ft_verf_hex(const char verf[8], char out[17]);
bool ft_verf_parse(const char *hex, char verf[8]);

#endif
