/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shared helpers of the integration test programs, on top of the shared NFSv3 client core
 * (tests/lib/nfsc.h): common options, TAP-like reporting, nfs:// URLs and high-level mounts.
 *
 * Every program takes the common options
 *   -H host (127.0.0.1)  -p nfs port (12049)  -M mount port (12050)  -e export path (required)
 * and prints one "ok - ..." / "not ok - ..." line per check, a summary, and exits
 * 0 (all passed), 1 (a check failed), 2 (usage / could not connect) or 77 (skipped). */
#ifndef DC_ITLIB_H
#define DC_ITLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nfsc.h"
#include "tcheck.h"

struct it_opts {
	const char *host;
	int nfsport;
	int mntport;
	const char *export;
	int verbose;
};

/* ---- reporting ---- */
/* one check: tc_ok (tests/lib/tcheck.h), counted for it_summary */
void it_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int it_summary(const char *prog); /* prints summary, returns exit status */
const char *it_st(int st); /* nfsstat3 (or -1 = RPC failure) as a string */
/* Check that st is one of the listed statuses (terminated by -100). */
bool it_expect_st(int st, const char *what, ...);
#define IT_END (-100)

/* ---- options ---- */
/* Parses the common options; returns optind. extra is a getopt string of the program's own
 * options, handled by cb (may be NULL). */
int it_parse(int argc, char **argv, struct it_opts *o, const char *extra,
	     void (*cb)(int opt, const char *arg));
char *it_url(const struct it_opts *o, const char *path, int vers, int uid,
	     int gid);

/* ---- raw connection ---- */
/* nfsc_connect with the export of o; prints why on failure. */
int it_connect(struct nfsc_conn *c, const struct it_opts *o, int uid, int gid);
/* NULL procedure: true if the server answers. */
bool it_ping(struct nfsc_conn *c);

/* Bounded event loop for the high-level API's async calls is not needed: the sync high-level
 * calls are used with nfs_set_timeout(). */
struct nfs_context *it_hl_mount(const struct it_opts *o, int vers, int uid,
				int gid);

/* One check of a high-level call: r = CALL, then tc_ok(COND, FMT, ...) (r in scope). */
#define IT_HL(call, ...)            \
	do {                        \
		r = (call);         \
		tc_ok(__VA_ARGS__); \
	} while (0)

/* The attributes a client sets on path: chmod, chown, truncate and utimes (tv as
 * nfs_utimes takes it), then a stat that sees all four: five checks. */
void it_hl_setattrs(struct nfs_context *nfs, const char *path, int mode,
		    int uid, int gid, uint64_t size, struct timeval tv[2]);

#endif
