// SPDX-License-Identifier: LGPL-3.0-or-later
/* See nfs4c.h. */
#include "nfs4c.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFS_PROG 100003
#define NFSPROC4_COMPOUND 1

/* ganesha's logging and allocation hooks that the XDR routines reference */
static log_levels_t nfs4c_levels[COMPONENT_COUNT];
log_levels_t *component_log_level = nfs4c_levels;

void DisplayLogComponentLevel(log_components_t component, const char *file,
			      int line, const char *function,
			      log_levels_t level, const char *format, ...)
{
	va_list ap;

	(void)component;
	(void)file;
	(void)line;
	(void)function;
	(void)level;
	va_start(ap, format);
	vfprintf(stderr, format, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void LogMallocFailure(const char *file, int line, const char *function,
		      const char *allocator)
{
	fprintf(stderr, "%s:%d %s: %s failed\n", file, line, function,
		allocator);
	abort();
}

/* only the server encodes READ replies */
struct xdr_uio *xdr_READ4res_uio_setup(struct READ4resok *objp)
{
	(void)objp;
	abort();
}

bool nfs4c_common_opt(struct nfs4c_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'H':
		o->host = arg;
		return true;
	case 'p':
		o->port = atoi(arg);
		return true;
	case 'e':
		o->export = arg;
		return true;
	default:
		return false;
	}
}

const char *nfs4c_st(int st)
{
	static char b[32];

	switch (st) {
	case -1:
		return "RPC-FAILURE";
	case NFS4_OK:
		return "NFS4_OK";
	case NFS4ERR_PERM:
		return "NFS4ERR_PERM";
	case NFS4ERR_NOENT:
		return "NFS4ERR_NOENT";
	case NFS4ERR_IO:
		return "NFS4ERR_IO";
	case NFS4ERR_NXIO:
		return "NFS4ERR_NXIO";
	case NFS4ERR_ACCESS:
		return "NFS4ERR_ACCESS";
	case NFS4ERR_EXIST:
		return "NFS4ERR_EXIST";
	case NFS4ERR_INVAL:
		return "NFS4ERR_INVAL";
	case NFS4ERR_FBIG:
		return "NFS4ERR_FBIG";
	case NFS4ERR_NOSPC:
		return "NFS4ERR_NOSPC";
	case NFS4ERR_DQUOT:
		return "NFS4ERR_DQUOT";
	case NFS4ERR_NOTSUPP:
		return "NFS4ERR_NOTSUPP";
	case NFS4ERR_NAMETOOLONG:
		return "NFS4ERR_NAMETOOLONG";
	case NFS4ERR_SERVERFAULT:
		return "NFS4ERR_SERVERFAULT";
	case NFS4ERR_BAD_STATEID:
		return "NFS4ERR_BAD_STATEID";
	case NFS4ERR_OPENMODE:
		return "NFS4ERR_OPENMODE";
	case NFS4ERR_NOXATTR:
		return "NFS4ERR_NOXATTR";
	case NFS4ERR_XATTR2BIG:
		return "NFS4ERR_XATTR2BIG";
	case NFS4ERR_DELAY:
		return "NFS4ERR_DELAY";
	case NFS4ERR_UNION_NOTSUPP:
		return "NFS4ERR_UNION_NOTSUPP";
	case NFS4ERR_GRACE:
		return "NFS4ERR_GRACE";
	case NFS4ERR_NO_GRACE:
		return "NFS4ERR_NO_GRACE";
	case NFS4ERR_RECLAIM_BAD:
		return "NFS4ERR_RECLAIM_BAD";
	case NFS4ERR_RECLAIM_CONFLICT:
		return "NFS4ERR_RECLAIM_CONFLICT";
	case NFS4ERR_BADSESSION:
		return "NFS4ERR_BADSESSION";
	case NFS4ERR_STALE_CLIENTID:
		return "NFS4ERR_STALE_CLIENTID";
	case NFS4ERR_EXPIRED:
		return "NFS4ERR_EXPIRED";
	case NFS4ERR_STALE:
		return "NFS4ERR_STALE";
	case NFS4ERR_BADHANDLE:
		return "NFS4ERR_BADHANDLE";
	default:
		snprintf(b, sizeof(b), "status %d", st);
		return b;
	}
}

/* ---- compounds ---- */

static int compound(struct nfs4c *c, COMPOUND4args *a, COMPOUND4res *r)
{
	memset(r, 0, sizeof(*r));
	if (rpcc_call(&c->r, NFSPROC4_COMPOUND, (xdrproc_t)xdr_COMPOUND4args, a,
		      (xdrproc_t)xdr_COMPOUND4res, r) != 0)
		return -1;
	return (int)r->status;
}

void nfs4c_init(struct nfs4c *c, struct nfs4c_cpd *p)
{
	memset(p, 0, sizeof(*p));
	p->a.minorversion = c->minor;
	p->a.argarray.argarray_val = p->ops;
}

nfs_argop4 *nfs4c_add(struct nfs4c_cpd *p, nfs_opnum4 op)
{
	nfs_argop4 *o;

	if (p->a.argarray.argarray_len >= NFS4C_MAXOPS)
		abort(); /* a test program's own mistake */
	o = &p->ops[p->a.argarray.argarray_len++];
	o->argop = op;
	return o;
}

void nfs4c_add_sequence(struct nfs4c *c, struct nfs4c_cpd *p)
{
	nfs_argop4 *o = nfs4c_add(p, NFS4_OP_SEQUENCE);

	memcpy(o->nfs_argop4_u.opsequence.sa_sessionid, c->sid, sizeof(c->sid));
	o->nfs_argop4_u.opsequence.sa_sequenceid = ++c->seq;
}

void nfs4c_add_putfh(struct nfs4c_cpd *p, nfs_fh4 *fh)
{
	nfs4c_add(p, NFS4_OP_PUTFH)->nfs_argop4_u.opputfh.object = *fh;
}

nfs_argop4 *nfs4c_fop(struct nfs4c *c, struct nfs4c_cpd *p,
		      struct nfs4c_file *f, nfs_opnum4 op)
{
	nfs4c_init(c, p);
	nfs4c_add_sequence(c, p);
	nfs4c_add_putfh(p, &f->fh);
	return nfs4c_add(p, op);
}

nfs_resop4 *nfs4c_res(struct nfs4c_cpd *p, unsigned int i)
{
	return i < p->r.resarray.resarray_len ? &p->r.resarray.resarray_val[i]
					      : NULL;
}

int nfs4c_run(struct nfs4c *c, struct nfs4c_cpd *p)
{
	p->st = compound(c, &p->a, &p->r);
	return p->st;
}

void nfs4c_done(struct nfs4c_cpd *p)
{
	if (p->st != -1)
		xdr_free((xdrproc_t)xdr_COMPOUND4res, &p->r);
}

void nfs4c_component(component4 *cmp, const char *s)
{
	cmp->utf8string_len = strlen(s);
	cmp->utf8string_val = (char *)s;
}

/* ---- session ---- */

/* EXCHANGE_ID as client owner (verifier its first 8 bytes), CREATE_SESSION,
 * and RECLAIM_COMPLETE if reclaim_complete. */
static int setup_session_owner(struct nfs4c *c, const char *owner,
			       bool reclaim_complete)
{
	struct nfs4c_cpd p;
	char verf[NFS4_VERIFIER_SIZE] = { 0 };
	nfs_argop4 *o;

	nfs4c_init(c, &p);
	o = nfs4c_add(&p, NFS4_OP_EXCHANGE_ID);
	memcpy(verf, owner,
	       strlen(owner) < sizeof(verf) ? strlen(owner) : sizeof(verf));
	memcpy(o->nfs_argop4_u.opexchange_id.eia_clientowner.co_verifier, verf,
	       sizeof(verf));
	o->nfs_argop4_u.opexchange_id.eia_clientowner.co_ownerid
		.co_ownerid_len = strlen(owner);
	o->nfs_argop4_u.opexchange_id.eia_clientowner.co_ownerid
		.co_ownerid_val = (char *)owner;
	o->nfs_argop4_u.opexchange_id.eia_flags = EXCHGID4_FLAG_USE_NON_PNFS;
	o->nfs_argop4_u.opexchange_id.eia_state_protect.spa_how = SP4_NONE;
	if (nfs4c_run(c, &p) != NFS4_OK) {
		fprintf(stderr, "EXCHANGE_ID: %s %s\n", nfs4c_st(p.st),
			c->r.err);
		nfs4c_done(&p);
		return -1;
	}
	EXCHANGE_ID4resok *eok = &nfs4c_res(&p, 0)
					  ->nfs_resop4_u.opexchange_id
					  .EXCHANGE_ID4res_u.eir_resok4;
	c->clid = eok->eir_clientid;
	uint32_t csseq = eok->eir_sequenceid;
	nfs4c_done(&p);

	nfs4c_init(c, &p);
	o = nfs4c_add(&p, NFS4_OP_CREATE_SESSION);
	CREATE_SESSION4args *cs = &o->nfs_argop4_u.opcreate_session;
	callback_sec_parms4 sec = { .cb_secflavor = 0 /* AUTH_NONE */ };
	cs->csa_clientid = c->clid;
	cs->csa_sequence = csseq;
	cs->csa_fore_chan_attrs = (channel_attrs4){
		0, NFS4C_BUFSZ - 4096, NFS4C_BUFSZ - 4096, 4096, 16,
		1, { 0, NULL }
	};
	cs->csa_back_chan_attrs =
		(channel_attrs4){ 0, 4096, 4096, 0, 2, 1, { 0, NULL } };
	cs->csa_cb_program = 0x40000000;
	cs->csa_sec_parms.csa_sec_parms_len = 1;
	cs->csa_sec_parms.csa_sec_parms_val = &sec;
	if (nfs4c_run(c, &p) != NFS4_OK) {
		fprintf(stderr, "CREATE_SESSION: %s %s\n", nfs4c_st(p.st),
			c->r.err);
		nfs4c_done(&p);
		return -1;
	}
	memcpy(c->sid,
	       nfs4c_res(&p, 0)
		       ->nfs_resop4_u.opcreate_session.CREATE_SESSION4res_u
		       .csr_resok4.csr_sessionid,
	       sizeof(c->sid));
	c->seq = 0;
	nfs4c_done(&p);

	if (reclaim_complete)
		nfs4c_reclaim_complete(c);
	return 0;
}

int nfs4c_reclaim_complete(struct nfs4c *c)
{
	struct nfs4c_cpd p;
	int st;

	nfs4c_init(c, &p);
	nfs4c_add_sequence(c, &p);
	nfs4c_add(&p, NFS4_OP_RECLAIM_COMPLETE)
		->nfs_argop4_u.opreclaim_complete.rca_one_fs = FALSE;
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

static int setup_session(struct nfs4c *c, const char *name)
{
	char owner[64];

	snprintf(owner, sizeof(owner), "%s.%d.%ld", name, (int)getpid(),
		 (long)time(NULL));
	return setup_session_owner(c, owner, true);
}

int nfs4c_connect(struct nfs4c *c, const char *host, int port, uint32_t minor,
		  const char *name)
{
	memset(c, 0, sizeof(*c));
	c->minor = minor;
	c->r.machine = name;
	if (rpcc_connect(&c->r, host, port, NFS_PROG, 4, NFS4C_BUFSZ) != 0) {
		fprintf(stderr, "%s: %s\n", name, c->r.err);
		return -1;
	}
	return setup_session(c, name);
}

int nfs4c_connect_owner(struct nfs4c *c, const char *host, int port,
			uint32_t minor, const char *owner,
			bool reclaim_complete)
{
	memset(c, 0, sizeof(*c));
	c->minor = minor;
	c->r.machine = owner;
	if (rpcc_connect(&c->r, host, port, NFS_PROG, 4, NFS4C_BUFSZ) != 0) {
		fprintf(stderr, "%s: %s\n", owner, c->r.err);
		return -1;
	}
	return setup_session_owner(c, owner, reclaim_complete);
}

int nfs4c_open_reclaim(struct nfs4c *c, struct nfs4c_file *f, uint32_t access)
{
	struct nfs4c_cpd p;
	char owner[32];
	int st;
	OPEN4args *oa = &nfs4c_fop(c, &p, f, NFS4_OP_OPEN)->nfs_argop4_u.opopen;

	snprintf(owner, sizeof(owner), "owner-%u", c->r.uid);
	oa->share_access = access;
	oa->share_deny = OPEN4_SHARE_DENY_NONE;
	oa->owner.clientid = c->clid;
	oa->owner.owner.owner_len = strlen(owner);
	oa->owner.owner.owner_val = owner;
	oa->openhow.opentype = OPEN4_NOCREATE;
	oa->claim.claim = CLAIM_PREVIOUS;
	oa->claim.open_claim4_u.delegate_type = OPEN_DELEGATE_NONE;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK)
		f->sid =
			nfs4c_res(&p, 2)
				->nfs_resop4_u.opopen.OPEN4res_u.resok4.stateid;
	nfs4c_done(&p);
	return st;
}

int nfs4c_renew(struct nfs4c *c)
{
	struct nfs4c_cpd p;
	int st;

	nfs4c_init(c, &p);
	nfs4c_add_sequence(c, &p);
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

void nfs4c_close(struct nfs4c *c)
{
	rpcc_close(&c->r);
}

/* ---- file operations ---- */

int nfs4c_lookup_dir(struct nfs4c *c, const char *path, struct nfs4c_file *d)
{
	/* the pseudo path can be deep: more LOOKUPs than NFS4C_MAXOPS */
	nfs_argop4 many[64];
	COMPOUND4args a = { .minorversion = c->minor };
	COMPOUND4res r;
	char buf[1024], *save = NULL, *comp;
	int k = 0, st;

	snprintf(buf, sizeof(buf), "%s", path);
	memset(many, 0, sizeof(many));
	many[k].argop = NFS4_OP_SEQUENCE;
	memcpy(many[k].nfs_argop4_u.opsequence.sa_sessionid, c->sid,
	       sizeof(c->sid));
	many[k++].nfs_argop4_u.opsequence.sa_sequenceid = ++c->seq;
	many[k++].argop = NFS4_OP_PUTROOTFH;
	for (comp = strtok_r(buf, "/", &save); comp && k < 62;
	     comp = strtok_r(NULL, "/", &save)) {
		many[k].argop = NFS4_OP_LOOKUP;
		nfs4c_component(&many[k].nfs_argop4_u.oplookup.objname, comp);
		k++;
	}
	many[k++].argop = NFS4_OP_GETFH;
	a.argarray.argarray_len = (u_int)k;
	a.argarray.argarray_val = many;
	st = compound(c, &a, &r);
	if (st == NFS4_OK) {
		nfs_fh4 *fh = &r.resarray.resarray_val[k - 1]
				       .nfs_resop4_u.opgetfh.GETFH4res_u.resok4
				       .object;
		memcpy(d->fhbuf, fh->nfs_fh4_val, fh->nfs_fh4_len);
		d->fh.nfs_fh4_len = fh->nfs_fh4_len;
		d->fh.nfs_fh4_val = d->fhbuf;
		memset(&d->sid, 0, sizeof(d->sid));
	}
	if (st != -1)
		xdr_free((xdrproc_t)xdr_COMPOUND4res, &r);
	return st;
}

static void copy_fh(struct nfs4c_file *f, const nfs_fh4 *fh)
{
	memcpy(f->fhbuf, fh->nfs_fh4_val, fh->nfs_fh4_len);
	f->fh.nfs_fh4_len = fh->nfs_fh4_len;
	f->fh.nfs_fh4_val = f->fhbuf;
}

int nfs4c_open(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
	       bool create, uint32_t access, struct nfs4c_file *f)
{
	return nfs4c_open_deny(c, dir, name, create, access,
			       OPEN4_SHARE_DENY_NONE, f);
}

int nfs4c_open_deny(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		    bool create, uint32_t access, uint32_t deny,
		    struct nfs4c_file *f)
{
	uint32_t mode = htonl(0644);
	fattr4 fa;

	memset(&fa, 0, sizeof(fa));
	fa.attrmask.bitmap4_len = 2;
	fa.attrmask.map[1] = 1u << (FATTR4_MODE - 32);
	fa.attr_vals.attrlist4_len = 4;
	fa.attr_vals.attrlist4_val = (char *)&mode;
	return nfs4c_open_attrs(c, dir, name, create ? &fa : NULL, access, deny,
				f);
}

int nfs4c_open_attrs(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		     const fattr4 *attrs, uint32_t access, uint32_t deny,
		     struct nfs4c_file *f)
{
	struct nfs4c_cpd p;
	char owner[32];
	int st;
	OPEN4args *oa =
		&nfs4c_fop(c, &p, dir, NFS4_OP_OPEN)->nfs_argop4_u.opopen;

	snprintf(owner, sizeof(owner), "owner-%u", c->r.uid);
	oa->share_access = access;
	oa->share_deny = deny;
	oa->owner.clientid = c->clid;
	oa->owner.owner.owner_len = strlen(owner);
	oa->owner.owner.owner_val = owner;
	if (attrs != NULL) {
		oa->openhow.opentype = OPEN4_CREATE;
		oa->openhow.openflag4_u.how.mode = UNCHECKED4;
		oa->openhow.openflag4_u.how.createhow4_u.createattrs = *attrs;
	} else {
		oa->openhow.opentype = OPEN4_NOCREATE;
	}
	oa->claim.claim = CLAIM_NULL;
	nfs4c_component(&oa->claim.open_claim4_u.file, name);
	nfs4c_add(&p, NFS4_OP_GETFH);
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		f->sid =
			nfs4c_res(&p, 2)
				->nfs_resop4_u.opopen.OPEN4res_u.resok4.stateid;
		copy_fh(f, &nfs4c_res(&p, 3)
				    ->nfs_resop4_u.opgetfh.GETFH4res_u.resok4
				    .object);
	}
	nfs4c_done(&p);
	return st;
}

int nfs4c_close_file(struct nfs4c *c, struct nfs4c_file *f)
{
	struct nfs4c_cpd p;
	CLOSE4args *ca =
		&nfs4c_fop(c, &p, f, NFS4_OP_CLOSE)->nfs_argop4_u.opclose;
	int st;

	ca->open_stateid = f->sid;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK)
		memset(&f->sid, 0, sizeof(f->sid));
	nfs4c_done(&p);
	return st;
}

int nfs4c_write(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		const void *buf, uint32_t len, stable_how4 stable,
		struct nfs4c_wres *wr)
{
	struct nfs4c_cpd p;
	WRITE4args *w =
		&nfs4c_fop(c, &p, f, NFS4_OP_WRITE)->nfs_argop4_u.opwrite;
	int st;

	w->stateid = f->sid;
	w->offset = off;
	w->stable = stable;
	w->data.data_len = len;
	w->data.data_val = (char *)buf;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		WRITE4resok *r =
			&nfs4c_res(&p, 2)
				 ->nfs_resop4_u.opwrite.WRITE4res_u.resok4;

		if (wr) {
			wr->count = r->count;
			wr->committed = r->committed;
			memcpy(wr->verf, r->writeverf, sizeof(wr->verf));
		}
		if (r->count != len)
			st = NFS4ERR_IO;
	}
	nfs4c_done(&p);
	return st;
}

int nfs4c_read(struct nfs4c *c, struct nfs4c_file *f, uint64_t off, void *buf,
	       uint32_t len, uint32_t *got)
{
	struct nfs4c_cpd p;
	READ4args *a = &nfs4c_fop(c, &p, f, NFS4_OP_READ)->nfs_argop4_u.opread;
	int st;

	*got = 0;
	a->stateid = f->sid;
	a->offset = off;
	a->count = len;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		READ4resok *r =
			&nfs4c_res(&p, 2)
				 ->nfs_resop4_u.opread.READ4res_u.resok4;
		*got = r->data.data_len <= len ? r->data.data_len : len;
		memcpy(buf, r->data.data_val, *got);
	}
	nfs4c_done(&p);
	return st;
}

int nfs4c_read_range(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		     char *buf, uint32_t len)
{
	uint32_t pos = 0, got;

	while (pos < len) {
		uint32_t n = len - pos > (1u << 20) ? (1u << 20) : len - pos;
		int st = nfs4c_read(c, f, off + pos, buf + pos, n, &got);

		if (st != NFS4_OK)
			return st;
		if (got == 0)
			return NFS4ERR_IO;
		pos += got;
	}
	return NFS4_OK;
}

int nfs4c_commit(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		 count4 count, verifier4 verf)
{
	struct nfs4c_cpd p;
	COMMIT4args *a =
		&nfs4c_fop(c, &p, f, NFS4_OP_COMMIT)->nfs_argop4_u.opcommit;
	int st;

	a->offset = off;
	a->count = count;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK && verf)
		memcpy(verf,
		       nfs4c_res(&p, 2)
			       ->nfs_resop4_u.opcommit.COMMIT4res_u.resok4
			       .writeverf,
		       sizeof(verifier4));
	nfs4c_done(&p);
	return st;
}

int nfs4c_falloc(struct nfs4c *c, struct nfs4c_file *f, bool allocate,
		 uint64_t off, uint64_t len)
{
	struct nfs4c_cpd p;
	nfs_argop4 *o;
	int st;

	if (allocate) {
		o = nfs4c_fop(c, &p, f, NFS4_OP_ALLOCATE);
		o->nfs_argop4_u.opallocate.aa_stateid = f->sid;
		o->nfs_argop4_u.opallocate.aa_offset = off;
		o->nfs_argop4_u.opallocate.aa_length = len;
	} else {
		o = nfs4c_fop(c, &p, f, NFS4_OP_DEALLOCATE);
		o->nfs_argop4_u.opdeallocate.da_stateid = f->sid;
		o->nfs_argop4_u.opdeallocate.da_offset = off;
		o->nfs_argop4_u.opdeallocate.da_length = len;
	}
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

int nfs4c_seek(struct nfs4c *c, struct nfs4c_file *f, uint64_t off, bool data,
	       uint64_t *where, bool *eof)
{
	struct nfs4c_cpd p;
	SEEK4args *a = &nfs4c_fop(c, &p, f, NFS4_OP_SEEK)->nfs_argop4_u.opseek;
	int st;

	a->sa_stateid = f->sid;
	a->sa_offset = off;
	a->sa_what = data ? NFS4_CONTENT_DATA : NFS4_CONTENT_HOLE;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		SEEK4res *r = &nfs4c_res(&p, 2)->nfs_resop4_u.opseek;
		*where = r->sr_resok4.sr_offset;
		*eof = r->sr_resok4.sr_eof;
	}
	nfs4c_done(&p);
	return st;
}

int nfs4c_setxattr(struct nfs4c *c, struct nfs4c_file *f, setxattr_option4 opt,
		   const char *name, const void *val, uint32_t len)
{
	struct nfs4c_cpd p;
	SETXATTR4args *a =
		&nfs4c_fop(c, &p, f, NFS4_OP_SETXATTR)->nfs_argop4_u.opsetxattr;
	int st;

	a->sxa_option = opt;
	nfs4c_component(&a->sxa_key, name);
	a->sxa_value.utf8string_len = len;
	a->sxa_value.utf8string_val = (char *)val;
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

int nfs4c_getxattr(struct nfs4c *c, struct nfs4c_file *f, const char *name,
		   char *val, uint32_t cap, uint32_t *len)
{
	struct nfs4c_cpd p;
	int st;

	*len = 0;
	nfs4c_component(&nfs4c_fop(c, &p, f, NFS4_OP_GETXATTR)
				 ->nfs_argop4_u.opgetxattr.gxa_name,
			name);
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		utf8string *v = &nfs4c_res(&p, 2)
					 ->nfs_resop4_u.opgetxattr
					 .GETXATTR4res_u.resok4.gxr_value;
		*len = v->utf8string_len;
		memcpy(val, v->utf8string_val,
		       v->utf8string_len < cap ? v->utf8string_len : cap);
	}
	nfs4c_done(&p);
	return st;
}

int nfs4c_removexattr(struct nfs4c *c, struct nfs4c_file *f, const char *name)
{
	struct nfs4c_cpd p;
	int st;

	nfs4c_component(&nfs4c_fop(c, &p, f, NFS4_OP_REMOVEXATTR)
				 ->nfs_argop4_u.opremovexattr.rxa_name,
			name);
	st = nfs4c_run(c, &p);
	nfs4c_done(&p);
	return st;
}

int nfs4c_listxattr(struct nfs4c *c, struct nfs4c_file *f, char *out,
		    size_t cap)
{
	struct nfs4c_cpd p;
	LISTXATTR4args *a = &nfs4c_fop(c, &p, f, NFS4_OP_LISTXATTR)
				     ->nfs_argop4_u.oplistxattr;
	int st;

	out[0] = '\0';
	a->lxa_cookie = 0;
	a->lxa_maxcount = 65536;
	st = nfs4c_run(c, &p);
	if (st == NFS4_OK) {
		xattrlist4 *l = &nfs4c_res(&p, 2)
					 ->nfs_resop4_u.oplistxattr
					 .LISTXATTR4res_u.resok4.lxr_names;

		for (count4 i = 0; i < l->xl4_count; i++) {
			size_t n = strlen(out);

			snprintf(out + n, cap - n, "%s%.*s", n ? "," : "",
				 (int)l->xl4_entries[i].utf8string_len,
				 l->xl4_entries[i].utf8string_val);
		}
	}
	nfs4c_done(&p);
	return st;
}
