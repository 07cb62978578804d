// SPDX-License-Identifier: LGPL-3.0-or-later
/* Share reservations across racing OPEN CREATEs of one new name (the nfs4c
 * client core, tests/lib/nfs4c.h; one NFSv4.1 client and session per thread).
 *
 * When OPENs by name of a file not yet cached race, MDCACHE gets a second
 * FSAL handle for the file, keeps its first one and throws the second away,
 * asking the FSAL to merge what the open took on it (obj_ops->merge): an FSAL
 * without merge loses that open's share reservation.
 *
 * For each of N new names, all clients OPEN CREATE UNCHECKED it at once (a
 * barrier before each name): client 0 for READ with deny WRITE, the others
 * for WRITE with deny NONE. A correct server lets the deny-WRITE open and a
 * WRITE open never both succeed (the later one is SHARE_DENIED). Then every
 * open is CLOSEd, and each name must open again for READ+WRITE with deny
 * READ+WRITE (a counter that lost an open and was decremented by its CLOSE
 * anyway refuses that), a READ open by another client beside it is
 * SHARE_DENIED, and after that CLOSE a WRITE open with deny WRITE succeeds.
 *
 * usage: it_share -e DIR [-H host] [-p port] [-n names] [-c clients]
 * Prints "ok - ..." / "not ok - ..." per check and a summary line
 * (names= denier_first= writer_first= both_open= reopen_denied=); exit 0 all
 * passed, 1 a check failed, 2 usage or connection failure. */
#include "nfs4c.h"
#include "tcheck.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CLIENTS 8
#define MAX_NAMES 4000
#define SHOW 5 /* failing names printed per check */
#define NO_DELEG OPEN4_SHARE_ACCESS_WANT_NO_DELEG

struct client {
	struct nfs4c c;
	struct nfs4c_file dir;
	int k;
	pthread_t t;
};

static struct client cl[MAX_CLIENTS];
static int nclients = 4, nnames = 400;
static pthread_barrier_t bar;
static int *ost; /* ost[i * nclients + k]: client k's OPEN of name i */
static int *cst; /* its CLOSE (NFS4_OK when there was nothing to close) */
static struct nfs4c_file *of;

static const char *name_of(int i)
{
	static __thread char b[64];

	snprintf(b, sizeof(b), "share-%d-%d", (int)getpid(), i);
	return b;
}

static void *racer(void *arg)
{
	struct client *me = arg;
	uint32_t access =
		me->k == 0 ? OPEN4_SHARE_ACCESS_READ : OPEN4_SHARE_ACCESS_WRITE;
	uint32_t deny =
		me->k == 0 ? OPEN4_SHARE_DENY_WRITE : OPEN4_SHARE_DENY_NONE;

	for (int i = 0; i < nnames; i++) {
		int at = i * nclients + me->k;

		pthread_barrier_wait(&bar);
		ost[at] = nfs4c_open_deny(&me->c, &me->dir, name_of(i), true,
					  access | NO_DELEG, deny, &of[at]);
	}
	pthread_barrier_wait(&bar);
	for (int i = 0; i < nnames; i++) {
		int at = i * nclients + me->k;

		cst[at] = ost[at] == NFS4_OK ? nfs4c_close_file(&me->c, &of[at])
					     : NFS4_OK;
	}
	return NULL;
}

/* Phase 2 for name i: what a server whose counters are right answers. */
static int check_counters(int i, char *why, size_t len)
{
	struct nfs4c *a = &cl[0].c, *b = &cl[1].c;
	struct nfs4c_file fa, fb;
	int st;

	st = nfs4c_open_deny(a, &cl[0].dir, name_of(i), false,
			     OPEN4_SHARE_ACCESS_BOTH | NO_DELEG,
			     OPEN4_SHARE_DENY_BOTH, &fa);
	if (st != NFS4_OK) {
		snprintf(why, len, "OPEN BOTH deny BOTH after every CLOSE: %s",
			 nfs4c_st(st));
		return -1;
	}
	st = nfs4c_open_deny(b, &cl[1].dir, name_of(i), false,
			     OPEN4_SHARE_ACCESS_READ | NO_DELEG,
			     OPEN4_SHARE_DENY_NONE, &fb);
	if (st == NFS4_OK)
		nfs4c_close_file(b, &fb);
	if (st != NFS4ERR_SHARE_DENIED) {
		nfs4c_close_file(a, &fa);
		snprintf(why, len,
			 "OPEN READ beside a deny BOTH open: %s (SHARE_DENIED)",
			 nfs4c_st(st));
		return -1;
	}
	st = nfs4c_close_file(a, &fa);
	if (st != NFS4_OK) {
		snprintf(why, len, "CLOSE: %s", nfs4c_st(st));
		return -1;
	}
	st = nfs4c_open_deny(b, &cl[1].dir, name_of(i), false,
			     OPEN4_SHARE_ACCESS_WRITE | NO_DELEG,
			     OPEN4_SHARE_DENY_WRITE, &fb);
	if (st != NFS4_OK) {
		snprintf(why, len, "OPEN WRITE deny WRITE after that CLOSE: %s",
			 nfs4c_st(st));
		return -1;
	}
	st = nfs4c_close_file(b, &fb);
	if (st != NFS4_OK) {
		snprintf(why, len, "CLOSE: %s", nfs4c_st(st));
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: it_share -e DIR [-H host] [-p port] "
			"[-n names] [-c clients (2..8)]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	int opt, st, denier_first = 0, writer_first = 0, both = 0, odd = 0;
	int closes = 0, reopen = 0;
	char why[256];

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "n:c:")) != -1) {
		switch (opt) {
		case 'n':
			nnames = atoi(optarg);
			break;
		case 'c':
			nclients = atoi(optarg);
			break;
		default:
			if (!nfs4c_common_opt(&o, opt, optarg))
				usage();
		}
	}
	if (!o.export || nnames < 1 || nnames > MAX_NAMES || nclients < 2 ||
	    nclients > MAX_CLIENTS)
		usage();
	for (int k = 0; k < nclients; k++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "it_share%d", k);
		if (nfs4c_connect(&cl[k].c, o.host, o.port, 1, nm) != 0)
			return 2;
		st = nfs4c_lookup_dir(&cl[k].c, o.export, &cl[k].dir);
		if (st != NFS4_OK) {
			fprintf(stderr, "it_share: LOOKUP %s: %s\n", o.export,
				nfs4c_st(st));
			return 2;
		}
		cl[k].k = k;
	}
	ost = calloc((size_t)nnames * nclients, sizeof(*ost));
	cst = calloc((size_t)nnames * nclients, sizeof(*cst));
	of = calloc((size_t)nnames * nclients, sizeof(*of));
	if (!ost || !cst || !of)
		return 2;
	pthread_barrier_init(&bar, NULL, (unsigned)nclients);
	for (int k = 0; k < nclients; k++)
		if (pthread_create(&cl[k].t, NULL, racer, &cl[k]) != 0)
			return 2;
	for (int k = 0; k < nclients; k++)
		pthread_join(cl[k].t, NULL);

	/* the deny-WRITE open and a WRITE open of one name: never both */
	for (int i = 0; i < nnames; i++) {
		int *s = &ost[i * nclients], writers = 0, bad = 0;

		for (int k = 0; k < nclients; k++) {
			if (s[k] != NFS4_OK && s[k] != NFS4ERR_SHARE_DENIED)
				bad = k + 1;
			if (cst[i * nclients + k] != NFS4_OK && closes++ < SHOW)
				printf("# %s: client %d CLOSE: %s\n",
				       name_of(i), k,
				       nfs4c_st(cst[i * nclients + k]));
			writers += k > 0 && s[k] == NFS4_OK;
		}
		if (bad && odd++ < SHOW)
			printf("# %s: client %d OPEN CREATE: %s\n", name_of(i),
			       bad - 1, nfs4c_st(s[bad - 1]));
		if (s[0] == NFS4_OK && writers > 0) {
			if (both++ < SHOW)
				printf("# %s: the deny-WRITE open and %d WRITE "
				       "open(s) all succeeded\n",
				       name_of(i), writers);
		} else if (s[0] == NFS4_OK) {
			denier_first++;
		} else if (writers > 0) {
			writer_first++;
		}
	}
	tc_ok(odd == 0,
	      "every racing OPEN CREATE answered OK or SHARE_DENIED (%d not)",
	      odd);
	tc_ok(closes == 0, "every granted open CLOSEd (%d CLOSEs failed)",
	      closes);
	tc_ok(both == 0,
	      "of %d names, none had a deny-WRITE open and a WRITE open "
	      "granted at once (%d had)",
	      nnames, both);

	/* every reservation gone after the CLOSEs, and counted again */
	for (int i = 0; i < nnames; i++) {
		if (check_counters(i, why, sizeof(why)) == 0)
			continue;
		if (reopen++ < SHOW)
			printf("# %s: %s\n", name_of(i), why);
	}
	tc_ok(reopen == 0,
	      "after every CLOSE all %d names open with deny BOTH, refuse "
	      "a READ beside it and take a WRITE open afterwards (%d did not)",
	      nnames, reopen);

	for (int k = 0; k < nclients; k++)
		nfs4c_close(&cl[k].c);
	printf("names=%d denier_first=%d writer_first=%d both_open=%d "
	       "reopen_denied=%d\n",
	       nnames, denier_first, writer_first, both, reopen);
	printf("%d checks, %d failed\n", tc_checks, tc_failures);
	return tc_failures ? 1 : 0;
}
