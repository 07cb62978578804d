// SPDX-License-Identifier: LGPL-3.0-or-later
/* it_locks: the NLM client of the lock scenario (it_locks.h says what is
 * checked): NLM 4 LOCK/TEST/UNLOCK through libnfs's raw API on the server's
 * NLM port, NFSv3 for the handle and the stateless WRITEs. */
#include "itlib.h"
#include <nfsc/libnfs-raw-nlm.h>

#include "it_locks.h"

static struct nfsc_conn v3, nlm;
static struct nfsc_fh fh;

struct nlm_call {
	int done, rpc_status, st;
	struct lk_denied *den;
};

static void nlm_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct nlm_call *k = priv;

	(void)rpc;
	k->rpc_status = status;
	k->st = -1;
	if (status == RPC_STATUS_SUCCESS && data != NULL)
		k->st = ((NLM4_LOCKres *)data)->status;
	k->done = 1;
}

static void nlm_test_cb(struct rpc_context *rpc, int status, void *data,
			void *priv)
{
	struct nlm_call *k = priv;
	NLM4_TESTres *r = data;

	(void)rpc;
	k->rpc_status = status;
	k->st = -1;
	if (status == RPC_STATUS_SUCCESS && r != NULL) {
		k->st = r->reply.status;
		if (k->st == NLM4_DENIED && k->den != NULL) {
			nlm4_holder *h = &r->reply.nlm4_testreply_u.lock.holder;

			k->den->off = h->l_offset;
			k->den->len = h->l_len;
			k->den->write = h->exclusive;
		}
	}
	k->done = 1;
}

static int nlm_wait(struct nlm_call *k)
{
	uint64_t end = nfsc_now_ms() + NFSC_TIMEOUT_MS;

	while (!k->done && nfsc_now_ms() < end)
		if (nfsc_pump(&nlm, 100) < 0)
			break;
	if (!k->done) {
		lk_note("NLM: no reply: %s", nlm.err);
		return -1;
	}
	return k->st;
}

static char nlm_caller[] = "it-locks";
static char nlm_owner[2][16] = { "it-locks-a", "it-locks-b" };
static char cookie[] = "itl";

static void nlm_fill(nlm_cookie *ck, nlm4_lock *l, int who, uint64_t off,
		     uint64_t len)
{
	ck->data.data_len = sizeof(cookie) - 1;
	ck->data.data_val = cookie;
	l->caller_name = nlm_caller;
	l->fh.data.data_len = fh.len;
	l->fh.data.data_val = (char *)fh.data;
	l->oh = nlm_owner[who];
	l->svid = 4200 + who;
	l->l_offset = off;
	l->l_len = len;
}

static const char *nlm_st(int st)
{
	static const char *const n[] = { "NLM4_GRANTED",	"NLM4_DENIED",
					 "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED",
					 "NLM4_DENIED_GRACE",	"NLM4_DEADLCK",
					 "NLM4_ROFS",		"NLM4_STALE_FH",
					 "NLM4_FBIG",		"NLM4_FAILED" };

	return st >= 0 && st <= 9 ? n[st] : "NLM-RPC-FAILURE";
}

static int verdict(int st)
{
	return st == NLM4_GRANTED ? 0 : st == NLM4_DENIED ? 1 : 2;
}

static int cl_lock(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st)
{
	struct nlm_call k = { 0 };
	NLM4_LOCKargs a;

	(void)den; /* a denied NLM LOCK names no holder */
	memset(&a, 0, sizeof(a));
	a.exclusive = write;
	a.state = 1;
	nlm_fill(&a.cookie, &a.lock, who, off, len);
	k.st = rpc_nlm4_lock_async(nlm.rpc, nlm_cb, &a, &k) == 0 ? nlm_wait(&k)
								 : -1;
	*st = nlm_st(k.st);
	return verdict(k.st);
}

static int cl_test(int who, bool write, uint64_t off, uint64_t len,
		   struct lk_denied *den, const char **st)
{
	struct nlm_call k = { .den = den };
	NLM4_TESTargs a;

	memset(&a, 0, sizeof(a));
	a.exclusive = write;
	nlm_fill(&a.cookie, &a.lock, who, off, len);
	k.st = rpc_nlm4_test_async(nlm.rpc, nlm_test_cb, &a, &k) == 0
		       ? nlm_wait(&k)
		       : -1;
	*st = nlm_st(k.st);
	return verdict(k.st);
}

static int cl_unlock(int who, uint64_t off, uint64_t len, const char **st)
{
	struct nlm_call k = { 0 };
	NLM4_UNLOCKargs a;

	memset(&a, 0, sizeof(a));
	nlm_fill(&a.cookie, &a.lock, who, off, len);
	k.st = rpc_nlm4_unlock_async(nlm.rpc, nlm_cb, &a, &k) == 0
		       ? nlm_wait(&k)
		       : -1;
	*st = nlm_st(k.st);
	return k.st == NLM4_GRANTED ? 0 : 2;
}

static int cl_write(const char *nm, const char **st)
{
	static char buf[4096];
	struct nfsc_fh f;
	fattr3 attr;
	uint32_t count;
	stable_how committed;
	char verf[8];
	int s;

	memset(buf, 'w', sizeof(buf));
	s = nfsc_lookup(&v3, &v3.root, nm, &f, &attr);
	if (s == 0)
		s = nfsc_write(&v3, &f, 8192, buf, sizeof(buf), FILE_SYNC,
			       &count, &committed, verf);
	*st = nfsc_st(s);
	return s;
}

static void cl_connect(void)
{
	struct nfsc_opts no = { lk_host, lk_nfsport, lk_mntport, lk_export };
	struct nfsc_call k = { 0 };
	fattr3 attr;

	if (nfsc_connect(&v3, &no, 0, 0, 30000) != 0) {
		fprintf(stderr, "it_locks: %s\n", v3.err);
		exit(2);
	}
	if (nfsc_lookup(&v3, &v3.root, lk_name, &fh, &attr) != 0) {
		fprintf(stderr, "it_locks: LOOKUP %s failed\n", lk_name);
		exit(2);
	}
	nlm.rpc = rpc_init_context();
	if (nlm.rpc == NULL ||
	    rpc_connect_port_async(nlm.rpc, lk_host, lk_nlmport, NLM_PROGRAM,
				   NLM_V4, nfsc_call_cb, &k) != 0 ||
	    nfsc_wait(&nlm, &k) != 0) {
		fprintf(stderr, "it_locks: NLM connect to port %d failed: %s\n",
			lk_nlmport, nlm.err);
		exit(2);
	}
}

static void cl_finish(void)
{
	nfsc_disconnect(&nlm);
	nfsc_disconnect(&v3);
}

int main(int argc, char **argv)
{
	lk_vers = 3;
	return lk_main(argc, argv);
}
