// SPDX-License-Identifier: LGPL-3.0-or-later
/* ha_lock4: a second NFSv4.1 client (its own client id and session, on
 * tests/lib/nfs4c) that asks the server for a write lock on a whole file,
 * for tests/ha/reclaim_v41.sh: while another client holds a POSIX lock on the
 * file, the server must answer NFS4ERR_DENIED. Unlike a second process on
 * the holder's own client, this cannot be answered from a client's local
 * lock table: the server's lock state is what is checked.
 *
 * ha_lock4 -H host -p port -e dir -n name [-w secs]
 *   OPEN (NOCREATE, read+write) dir/name, then LOCK WRITE_LT [0, all) with a
 *   new lock owner. While the server answers NFS4ERR_GRACE (a head in its
 *   grace period refuses every non-reclaim OPEN and LOCK), it asks again
 *   every 500 ms, for at most secs (30). Prints
 *   ha_lock4: lock=DENIED|GRANTED|<status> grace_waits=N waited_ms=M
 *   Exit 0: DENIED (someone holds the lock); 1: GRANTED (the lock was
 *   released: it is unlocked again here); 2: anything else.
 */
#include "nfs4c.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr,
		"usage: ha_lock4 -H host -p port -e dir -n name [-w secs]\n");
	exit(2);
}

static long long now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* LOCK WRITE_LT over the whole file with a new lock owner; the lock stateid
 * in *lsid when granted. */
static int lock_whole(struct nfs4c *c, struct nfs4c_file *f, stateid4 *lsid)
{
	struct nfs4c_cpd p;
	char owner[32];
	int st;
	LOCK4args *la = &nfs4c_fop(c, &p, f, NFS4_OP_LOCK)->nfs_argop4_u.oplock;
	open_to_lock_owner4 *ol = &la->locker.locker4_u.open_owner;

	snprintf(owner, sizeof(owner), "ha_lock4-%d", (int)getpid());
	la->locktype = WRITE_LT;
	la->reclaim = FALSE;
	la->offset = 0;
	la->length = NFS4_UINT64_MAX;
	la->locker.new_lock_owner = TRUE;
	ol->open_seqid = 0;
	ol->open_stateid = f->sid;
	ol->lock_seqid = 0;
	ol->lock_owner.clientid = c->clid;
	ol->lock_owner.owner.owner_len = strlen(owner);
	ol->lock_owner.owner.owner_val = owner;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK)
		*lsid = nfs4c_res(&p, 2)
				->nfs_resop4_u.oplock.LOCK4res_u.resok4
				.lock_stateid;
	nfs4c_done(&p);
	return st;
}

static int unlock_whole(struct nfs4c *c, struct nfs4c_file *f, stateid4 *lsid)
{
	struct nfs4c_cpd p;
	int st;
	LOCKU4args *ua =
		&nfs4c_fop(c, &p, f, NFS4_OP_LOCKU)->nfs_argop4_u.oplocku;

	ua->locktype = WRITE_LT;
	ua->seqid = 0;
	ua->lock_stateid = *lsid;
	ua->offset = 0;
	ua->length = NFS4_UINT64_MAX;
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

/* DESTROY_SESSION, DESTROY_CLIENTID: the server forgets this client at once,
 * its recovery record included (a record left behind would be one more
 * client the next head waits for in its grace period). */
static void destroy_client(struct nfs4c *c)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o;

	nfs4c_init(c, &p);
	o = nfs4c_add(&p, NFS4_OP_DESTROY_SESSION);
	memcpy(o->nfs_argop4_u.opdestroy_session.dsa_sessionid, c->sid,
	       sizeof(c->sid));
	nfs4c_run(c, &p);
	nfs4c_done(&p);
	nfs4c_init(c, &p);
	o = nfs4c_add(&p, NFS4_OP_DESTROY_CLIENTID);
	o->nfs_argop4_u.opdestroy_clientid.dca_clientid = c->clid;
	nfs4c_run(c, &p);
	nfs4c_done(&p);
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	const char *name = NULL;
	char owner[64];
	struct nfs4c c;
	struct nfs4c_file dir, f;
	stateid4 lsid;
	int opt, st, waits = 0, rc, secs = 30, opened = 0;
	long long t0, end;

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "n:w:")) != -1) {
		if (opt == 'n')
			name = optarg;
		else if (opt == 'w')
			secs = atoi(optarg);
		else if (!nfs4c_common_opt(&o, opt, optarg))
			usage();
	}
	if (o.export == NULL || name == NULL)
		usage();
	snprintf(owner, sizeof(owner), "ha_lock4.%d", (int)getpid());
	if (nfs4c_connect(&c, o.host, o.port, 1, owner) != 0)
		return 2;
	t0 = now_ms();
	end = t0 + (long long)secs * 1000;
	for (;;) {
		st = nfs4c_lookup_dir(&c, o.export, &dir);
		if (st == NFS4_OK && !opened) {
			st = nfs4c_open(&c, &dir, name, false,
					OPEN4_SHARE_ACCESS_BOTH, &f);
			opened = st == NFS4_OK;
		}
		if (st == NFS4_OK)
			st = lock_whole(&c, &f, &lsid);
		if (st != NFS4ERR_GRACE || now_ms() >= end)
			break;
		waits++;
		usleep(500000);
	}
	if (st == NFS4_OK) {
		unlock_whole(&c, &f, &lsid);
		rc = 1;
	} else {
		rc = st == NFS4ERR_DENIED ? 0 : 2;
	}
	printf("ha_lock4: lock=%s grace_waits=%d waited_ms=%lld\n",
	       st == NFS4_OK	      ? "GRANTED"
	       : st == NFS4ERR_DENIED ? "DENIED"
				      : nfs4c_st(st),
	       waits, now_ms() - t0);
	if (opened)
		nfs4c_close_file(&c, &f);
	destroy_client(&c);
	nfs4c_close(&c);
	return rc;
}
