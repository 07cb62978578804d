// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_verf4: the NFSv4 write verifier clients see (issue 10 item 6).
 *
 * ft_verf4 [-H host] [-p port] -e EXPORT -x wb|write [-F CMD] [-R CMD]
 *          [-V victim] [-W bytes] [-L bytes] [-t secs]
 * ft_verf4 [-H host] [-p port] -e EXPORT -x across -F CMD
 *
 * -x across (issue 42 item 9a): the clean phase below, then one more
 * UNSTABLE WRITE of verf_clean (verifier VW), CMD (-F: makes the server
 * forget remembered lost data, it must exit 0), and a COMMIT of
 * verf_clean: it must fail or answer a verifier other than VW (the
 * client resends); "ft_verf4: ... across=changed|same|failed".
 *
 * Over one NFSv4.2 session (tests/lib/nfs4c):
 *   clean     64 UNSTABLE WRITEs of 64 KiB and 16 COMMITs of EXPORT/verf_clean:
 *             every WRITE and COMMIT answers the same verifier V0;
 *   fault     CMD (-F, run with system()) injects the fault; then UNSTABLE
 *             WRITEs of 64 KiB to EXPORT/<victim> (created when missing,
 *             offsets wrapping at -W), with -x wb a COMMIT of the file every
 *             1 MiB, until the first WRITE or COMMIT fails (at most -L bytes,
 *             -t seconds): a failure must come, NOSPC, DQUOT or IO;
 *   after     3 COMMITs of the victim and a COMMIT of verf_clean (nothing
 *             lost there) whose verifier is V1. With -x wb (the fault is a
 *             write-back failure: data the server acknowledged is lost) V1
 *             differs from V0, and no COMMIT of the victim answers OK with the
 *             verifier of a WRITE acknowledged before the failure (a client
 *             would take lost data for committed). With -x write (the fault
 *             is a WRITE refused by the filesystem, which loses nothing
 *             acknowledged) V1 is V0 and a COMMIT of the data acknowledged
 *             before the refused WRITE answers OK with its WRITEs' verifier;
 *   recovered CMD (-R) ends the fault; one more COMMIT of the victim; then
 *             the clean phase again on EXPORT/verf_after: every verifier is
 *             the same, and it is V1 (nothing failed since).
 * One "ok"/"not ok" line per check, then
 *   ft_verf4: checks=N passed=P failed=F v0=.. v1=.. write_errors=.. ...
 * exit 0 when all passed, 1 otherwise, 2 on setup failure.
 */
#include "nfs4c.h"
#include "tcheck.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLK (64u * 1024u)
#define COMMIT_EVERY (1u << 20)
#define ROUNDS 16
#define WRITES_PER_ROUND 4
#define AFTER_COMMITS 3

static char g_buf[BLK];

static const char *vhex(const verifier4 v)
{
	static char b[4][17];
	static int i;
	char *s = b[i++ % 4];

	for (int k = 0; k < NFS4_VERIFIER_SIZE; k++)
		snprintf(s + 2 * k, 3, "%02x", (unsigned char)v[k]);
	return s;
}

static bool same(const verifier4 a, const verifier4 b)
{
	return memcmp(a, b, NFS4_VERIFIER_SIZE) == 0;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_file(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		     struct nfs4c_file *f)
{
	int st = nfs4c_open(c, dir, name, true, OPEN4_SHARE_ACCESS_BOTH, f);

	tc_ok(st == NFS4_OK, "OPEN %s: %s", name, nfs4c_st(st));
	return st;
}

/* Many UNSTABLE WRITEs and COMMITs with nothing failing: one verifier,
 * returned in v. */
static bool steady(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		   verifier4 v)
{
	struct nfs4c_file f;
	struct nfs4c_wres wr;
	verifier4 cv;
	int writes = 0, commits = 0, bad = 0, differ = 0, stable = 0, st;
	bool have = false;

	if (open_file(c, dir, name, &f) != NFS4_OK)
		return false;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < WRITES_PER_ROUND; i++) {
			uint64_t off =
				(uint64_t)(r * WRITES_PER_ROUND + i) * BLK;

			st = nfs4c_write(c, &f, off, g_buf, BLK, UNSTABLE4,
					 &wr);
			writes++;
			if (st != NFS4_OK) {
				bad++;
				continue;
			}
			if (wr.committed != UNSTABLE4)
				stable++;
			if (!have)
				memcpy(v, wr.verf, NFS4_VERIFIER_SIZE);
			have = true;
			differ += !same(wr.verf, v);
		}
		st = nfs4c_commit(c, &f, 0, 0, cv);
		commits++;
		if (st != NFS4_OK)
			bad++;
		else if (have)
			differ += !same(cv, v);
	}
	tc_ok(bad == 0,
	      "%s: %d UNSTABLE WRITEs and %d COMMITs answered OK (%d failed)",
	      name, writes, commits, bad);
	printf("# %s: %d WRITEs answered FILE_SYNC4/DATA_SYNC4\n", name,
	       stable);
	tc_ok(have && differ == 0,
	      "%s: every WRITE and COMMIT verifier is %s (%d differ)", name,
	      have ? vhex(v) : "-", differ);
	return have && bad == 0 && differ == 0;
}

static bool expected_error(int st)
{
	return st == NFS4ERR_NOSPC || st == NFS4ERR_DQUOT || st == NFS4ERR_IO;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ft_verf4 [-H host] [-p port] -e EXPORT -x wb|write|across [-F CMD] [-R CMD] [-V victim] [-W bytes] [-L bytes] [-t secs]\n");
	exit(2);
}

/* -x across: a COMMIT across CMD fails or sees the verifier change */
static int across(struct nfs4c *c, struct nfs4c_file *dir, const char *cmd)
{
	struct nfs4c_file f;
	struct nfs4c_wres wr;
	verifier4 v0, cv;
	const char *what = "failed";
	int st, rc;

	if (!steady(c, dir, "verf_clean", v0) ||
	    open_file(c, dir, "verf_clean", &f) != NFS4_OK)
		return 2;
	st = nfs4c_write(c, &f, 0, g_buf, BLK, UNSTABLE4, &wr);
	tc_ok(st == NFS4_OK, "UNSTABLE WRITE of verf_clean: %s verifier %s",
	      nfs4c_st(st), st == NFS4_OK ? vhex(wr.verf) : "-");
	if (st != NFS4_OK)
		return 2;
	rc = system(cmd);
	printf("# command exited %d: %s\n", rc, cmd);
	tc_ok(rc == 0, "the command ran: exit %d", rc);
	st = nfs4c_commit(c, &f, 0, 0, cv);
	if (st == NFS4_OK)
		what = same(cv, wr.verf) ? "same" : "changed";
	tc_ok(st != NFS4_OK || !same(cv, wr.verf),
	      "the COMMIT across it: %s, verifier %s (the WRITE's %s)",
	      nfs4c_st(st), st == NFS4_OK ? vhex(cv) : "-", vhex(wr.verf));
	nfs4c_close(c);
	printf("ft_verf4: checks=%d passed=%d failed=%d v0=%s vw=%s across=%s\n",
	       tc_checks, tc_checks - tc_failures, tc_failures, vhex(v0),
	       vhex(wr.verf), what);
	return tc_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	const char *fault = NULL, *recover = NULL, *victim = "verf_victim",
		   *mode = NULL;
	uint64_t wrap = 0, limit = 1ull << 30, off = 0, since_commit = 0;
	double secs = 60;
	int opt, st;
	struct nfs4c c;
	struct nfs4c_file dir, clean, vf;
	struct nfs4c_wres wr;
	verifier4 v0, v1, vr, v2, cv, risk = { 0 };
	bool wb, have_risk = false, risk_mixed = false;
	int write_errors = 0, commit_errors = 0, fail_st = NFS4_OK;
	const char *fail_op = "none";
	uint64_t fail_off = 0, acked = 0;

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "x:F:R:V:W:L:t:")) !=
	       -1) {
		switch (opt) {
		case 'x':
			mode = optarg;
			break;
		case 'F':
			fault = optarg;
			break;
		case 'R':
			recover = optarg;
			break;
		case 'V':
			victim = optarg;
			break;
		case 'W':
			wrap = strtoull(optarg, NULL, 0);
			break;
		case 'L':
			limit = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			if (!nfs4c_common_opt(&o, opt, optarg))
				usage();
		}
	}
	if (!o.export || !mode ||
	    (strcmp(mode, "wb") != 0 && strcmp(mode, "write") != 0 &&
	     (strcmp(mode, "across") != 0 || !fault)))
		usage();
	wb = strcmp(mode, "wb") == 0;
	for (size_t i = 0; i < sizeof(g_buf); i++)
		g_buf[i] = (char)(i * 2654435761u >> 13 | 1);
	if (nfs4c_connect(&c, o.host, o.port, 2, "ft_verf4") != 0)
		return 2;
	st = nfs4c_lookup_dir(&c, o.export, &dir);
	if (st != NFS4_OK) {
		fprintf(stderr, "ft_verf4: LOOKUP %s: %s\n", o.export,
			nfs4c_st(st));
		return 2;
	}
	if (strcmp(mode, "across") == 0)
		return across(&c, &dir, fault);

	/* clean */
	if (!steady(&c, &dir, "verf_clean", v0) ||
	    open_file(&c, &dir, "verf_clean", &clean) != NFS4_OK) {
		printf("ft_verf4: checks=%d passed=%d failed=%d (no clean verifier)\n",
		       tc_checks, tc_checks - tc_failures, tc_failures);
		return 1;
	}

	/* fault */
	if (fault) {
		int rc = system(fault);

		printf("# fault command exited %d: %s\n", rc, fault);
	}
	if (open_file(&c, &dir, victim, &vf) != NFS4_OK)
		return 1;
	double end = mono_now() + secs;

	while (acked < limit && mono_now() < end) {
		st = nfs4c_write(&c, &vf, off, g_buf, BLK, UNSTABLE4, &wr);
		if (st != NFS4_OK) {
			write_errors++;
			fail_st = st;
			fail_op = "WRITE";
			fail_off = off;
			break;
		}
		acked += BLK;
		if (!have_risk)
			memcpy(risk, wr.verf, NFS4_VERIFIER_SIZE);
		else if (!same(risk, wr.verf))
			risk_mixed = true;
		have_risk = true;
		off += BLK;
		if (wrap && off >= wrap)
			off = 0;
		since_commit += BLK;
		/* -x write: everything acknowledged stays at risk */
		if (!wb || since_commit < COMMIT_EVERY)
			continue;
		since_commit = 0;
		st = nfs4c_commit(&c, &vf, 0, 0, cv);
		if (st != NFS4_OK) {
			commit_errors++;
			fail_st = st;
			fail_op = "COMMIT";
			fail_off = off;
			break;
		}
		have_risk = false; /* committed: nothing at risk */
	}
	tc_ok(expected_error(fail_st),
	      "a %s failed after %llu bytes acknowledged: %s (want NOSPC/DQUOT/IO)",
	      fail_op, (unsigned long long)acked, nfs4c_st(fail_st));
	if (wb)
		tc_ok(commit_errors > 0,
		      "the failure was reported by a COMMIT (write-back): %s",
		      fail_op);
	else
		tc_ok(write_errors > 0 && commit_errors == 0,
		      "the failure was a WRITE refused (commit errors %d)",
		      commit_errors);
	printf("# %s acknowledged since the last good COMMIT with verifier %s%s\n",
	       have_risk ? "WRITEs" : "nothing", have_risk ? vhex(risk) : "-",
	       risk_mixed ? " (and others)" : "");

	/* after */
	int ok_same = 0, ok_other = 0, failed = 0;

	for (int i = 0; i < AFTER_COMMITS; i++) {
		/* -x write: the data acknowledged before the refused WRITE */
		st = nfs4c_commit(&c, &vf, 0, wb ? 0 : (count4)fail_off, cv);
		if (st != NFS4_OK) {
			failed++;
			printf("# COMMIT %d of %s: %s\n", i, victim,
			       nfs4c_st(st));
		} else if (have_risk && same(cv, risk)) {
			ok_same++;
			printf("# COMMIT %d of %s: OK with the WRITEs' verifier %s\n",
			       i, victim, vhex(cv));
		} else {
			ok_other++;
			printf("# COMMIT %d of %s: OK with verifier %s\n", i,
			       victim, vhex(cv));
		}
	}
	st = nfs4c_commit(&c, &clean, 0, 0, v1);
	tc_ok(st == NFS4_OK, "COMMIT of verf_clean after the fault: %s",
	      nfs4c_st(st));
	if (wb) {
		tc_ok(have_risk && ok_same == 0,
		      "no COMMIT of %s answers OK with the verifier of the lost WRITEs (%d failed, %d OK with another verifier, %d OK with theirs)",
		      victim, failed, ok_other, ok_same);
		tc_ok(st == NFS4_OK && !same(v0, v1),
		      "the verifier changed after the write-back failure: %s -> %s",
		      vhex(v0), vhex(v1));
	} else {
		tc_ok(have_risk && ok_same == AFTER_COMMITS,
		      "COMMITs of the data acknowledged before the refused WRITE answer OK with its verifier (%d failed, %d OK with another verifier, %d OK with it)",
		      failed, ok_other, ok_same);
		tc_ok(st == NFS4_OK && same(v0, v1),
		      "the verifier stayed after a refused WRITE: %s -> %s",
		      vhex(v0), vhex(v1));
	}

	/* recovered */
	if (recover) {
		int rc = system(recover);

		printf("# recover command exited %d: %s\n", rc, recover);
	}
	st = nfs4c_commit(&c, &vf, 0, 0, cv);
	printf("# COMMIT of %s after recovery: %s\n", victim, nfs4c_st(st));
	st = nfs4c_commit(&c, &clean, 0, 0, vr);
	if (steady(&c, &dir, "verf_after", v2))
		tc_ok(st == NFS4_OK && same(vr, v2),
		      "after recovery the verifier stays %s (%s before)",
		      vhex(v2), st == NFS4_OK ? vhex(vr) : nfs4c_st(st));
	nfs4c_close(&c);
	printf("ft_verf4: checks=%d passed=%d failed=%d v0=%s v1=%s write_errors=%d commit_errors=%d failed_on=%s status=%s acked=%llu\n",
	       tc_checks, tc_checks - tc_failures, tc_failures, vhex(v0),
	       vhex(v1), write_errors, commit_errors, fail_op,
	       nfs4c_st(fail_st), (unsigned long long)acked);
	return tc_failures ? 1 : 0;
}
