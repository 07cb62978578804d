// SPDX-License-Identifier: LGPL-3.0-or-later
/* it_locks4: the NFSv4.1 client of the lock scenario (it_locks.h says what
 * is checked), on tests/lib/nfs4c: one session, the file opened for BOTH,
 * a lock owner per "who", WRITEs with the anonymous stateid. */
#include "nfs4c.h"

#include "it_locks.h"

static struct nfs4c c4;
static struct nfs4c_file dir4, f4;
static stateid4 lsid[2];
static bool have_lsid[2];

static int verdict(int st)
{
	return st == NFS4_OK ? 0 : st == NFS4ERR_DENIED ? 1 : 2;
}

static void copy_denied(const LOCK4denied *d, struct lk_denied *den)
{
	if (den == NULL)
		return;
	den->off = d->offset;
	den->len = d->length;
	den->write = d->locktype == WRITE_LT;
}

/* NFSv4 lengths: all ones to the end, as NLM's 0 */
static uint64_t len4(uint64_t len)
{
	return len == 0 ? NFS4_UINT64_MAX : len;
}

static int cl_lock(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st)
{
	struct nfs4c_cpd p;
	char owner[32];
	int s;
	LOCK4args *la =
		&nfs4c_fop(&c4, &p, &f4, NFS4_OP_LOCK)->nfs_argop4_u.oplock;

	snprintf(owner, sizeof(owner), "it-locks-%d", who);
	la->locktype = write ? WRITE_LT : READ_LT;
	la->reclaim = FALSE;
	la->offset = off;
	la->length = len4(len);
	if (have_lsid[who]) {
		la->locker.new_lock_owner = FALSE;
		la->locker.locker4_u.lock_owner.lock_stateid = lsid[who];
		la->locker.locker4_u.lock_owner.lock_seqid = 0;
	} else {
		open_to_lock_owner4 *ol = &la->locker.locker4_u.open_owner;

		la->locker.new_lock_owner = TRUE;
		ol->open_seqid = 0;
		ol->open_stateid = f4.sid;
		ol->lock_seqid = 0;
		ol->lock_owner.clientid = c4.clid;
		ol->lock_owner.owner.owner_len = strlen(owner);
		ol->lock_owner.owner.owner_val = owner;
	}
	s = nfs4c_run(&c4, &p);
	if (s == NFS4_OK) {
		lsid[who] = nfs4c_res(&p, 2)
				    ->nfs_resop4_u.oplock.LOCK4res_u.resok4
				    .lock_stateid;
		have_lsid[who] = true;
	} else if (s == NFS4ERR_DENIED) {
		copy_denied(&nfs4c_res(&p, 2)
				     ->nfs_resop4_u.oplock.LOCK4res_u.denied,
			    den);
	}
	nfs4c_done(&p);
	*st = nfs4c_st(s);
	return verdict(s);
}

static int cl_test(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st)
{
	struct nfs4c_cpd p;
	char owner[32];
	int s;
	LOCKT4args *ta =
		&nfs4c_fop(&c4, &p, &f4, NFS4_OP_LOCKT)->nfs_argop4_u.oplockt;

	snprintf(owner, sizeof(owner), "it-locks-%d", who);
	ta->locktype = write ? WRITE_LT : READ_LT;
	ta->offset = off;
	ta->length = len4(len);
	ta->owner.clientid = c4.clid;
	ta->owner.owner.owner_len = strlen(owner);
	ta->owner.owner.owner_val = owner;
	s = nfs4c_run(&c4, &p);
	if (s == NFS4ERR_DENIED)
		copy_denied(&nfs4c_res(&p, 2)
				     ->nfs_resop4_u.oplockt.LOCKT4res_u.denied,
			    den);
	nfs4c_done(&p);
	*st = nfs4c_st(s);
	return verdict(s);
}

static int cl_unlock(int who, uint64_t off, uint64_t len, const char **st)
{
	struct nfs4c_cpd p;
	int s;
	LOCKU4args *ua =
		&nfs4c_fop(&c4, &p, &f4, NFS4_OP_LOCKU)->nfs_argop4_u.oplocku;

	ua->locktype = WRITE_LT;
	ua->seqid = 0;
	ua->lock_stateid = lsid[who];
	ua->offset = off;
	ua->length = len4(len);
	s = nfs4c_run(&c4, &p);
	if (s == NFS4_OK)
		lsid[who] =
			nfs4c_res(&p, 2)
				->nfs_resop4_u.oplocku.LOCKU4res_u.lock_stateid;
	nfs4c_done(&p);
	*st = nfs4c_st(s);
	return s == NFS4_OK ? 0 : 2;
}

/* WRITE with the anonymous stateid (a companion's handle from an OPEN and
 * CLOSE of it; the locked file's is f4's: its open stays) */
static int cl_write(const char *nm, const char **st)
{
	static char buf[4096];
	struct nfs4c_file f;
	int s = NFS4_OK;

	memset(buf, 'w', sizeof(buf));
	if (strcmp(nm, lk_name) == 0) {
		f = f4;
		f.fh.nfs_fh4_val = f.fhbuf;
	} else {
		s = nfs4c_open(&c4, &dir4, nm, false, OPEN4_SHARE_ACCESS_READ,
			       &f);
		if (s == NFS4_OK)
			s = nfs4c_close_file(&c4, &f);
	}
	if (s == NFS4_OK) {
		memset(&f.sid, 0, sizeof(f.sid));
		s = nfs4c_write(&c4, &f, 8192, buf, sizeof(buf), FILE_SYNC4,
				NULL);
	}
	*st = nfs4c_st(s);
	return s;
}

static void cl_connect(void)
{
	char owner[64];

	snprintf(owner, sizeof(owner), "it_locks4.%d", (int)getpid());
	if (nfs4c_connect(&c4, lk_host, lk_nfsport, 1, owner) != 0 ||
	    nfs4c_lookup_dir(&c4, lk_export, &dir4) != NFS4_OK ||
	    nfs4c_open(&c4, &dir4, lk_name, false, OPEN4_SHARE_ACCESS_BOTH,
		       &f4) != NFS4_OK) {
		fprintf(stderr, "it_locks4: NFSv4.1 OPEN of %s failed\n",
			lk_name);
		exit(2);
	}
}

static void cl_finish(void)
{
	nfs4c_close_file(&c4, &f4);
	nfs4c_close(&c4);
}

int main(int argc, char **argv)
{
	lk_vers = 4;
	return lk_main(argc, argv);
}
