/* A small NFSv4.2 client for the integration tests (libnfs 4.0 has no NFSv4.2
 * operations): COMPOUNDs are encoded and decoded with ganesha's own XDR
 * routines (nfsv41.h, static inline there) over a plain TCP connection with
 * hand-made ONC RPC framing, AUTH_SYS with a chosen uid.
 *
 * Checks, on the export DIR (its local path LOCAL, for setting up root-owned
 * files and looking at what is on disk):
 *   DEALLOCATE: a punched hole reads back as zeros, the rest intact;
 *   ALLOCATE: data kept, size grown, blocks reserved;
 *   SEEK: DATA/HOLE around a punched hole, unflushed data is data, NXIO past EOF;
 *   hostile ALLOCATE/DEALLOCATE offsets and lengths: INVAL/FBIG, file unchanged;
 *   ALLOCATE/DEALLOCATE as a uid that may not write: refused, file unchanged;
 *   user xattrs: round trip, CREATE/REPLACE semantics, values larger than
 *   ganesha's first buffer, LISTXATTRS, refused to a uid that may not write
 *   (SETXATTR/REMOVEXATTR), allowed to read (GETXATTR) - or NOTSUPP everywhere
 *   with -x notsupp (stock FSAL_VFS).
 *
 * usage: it_v42 -e DIR -l LOCAL [-H host] [-p port] [-u uid] [-x notsupp]
 * Prints "ok - ..." / "not ok - ..." per check; exit 0 all passed, 1 a check
 * failed, 2 usage or connection failure. */
#include "config.h"
#include "nfsv41.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* ganesha's logging and allocation hooks that the XDR routines reference */
static log_levels_t it_levels[COMPONENT_COUNT];
log_levels_t *component_log_level = it_levels;

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

/* ---- reporting ---- */
static int failures, checks;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!cond)
		failures++;
	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *st4(int st)
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
	default:
		snprintf(b, sizeof(b), "status %d", st);
		return b;
	}
}

/* ---- RPC over TCP ---- */
#define NFS_PROG 100003
#define BUFSZ (4u << 20)
#define IO_TIMEOUT_MS 60000

struct cl {
	int sock;
	uint32_t xid;
	uint32_t uid, gid;
	clientid4 clid;
	sessionid4 sid;
	uint32_t seq;
	char *sbuf, *rbuf;
};

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int recv_all(int fd, char *p, size_t n)
{
	while (n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, IO_TIMEOUT_MS) != 1)
			return -1;
		r = recv(fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One COMPOUND call; res is decoded into (free with xdr_free). Returns the
 * COMPOUND status or -1 when the RPC itself failed. */
static int call(struct cl *c, COMPOUND4args *args, COMPOUND4res *res)
{
	char cred[256];
	XDR x, cx;
	uint32_t xid = ++c->xid, v, len, hdr;
	uint32_t stamp = 0, zero = 0, ngids = 0;
	char *mach = "it_v42";
	size_t got = 0;

	/* AUTH_SYS body */
	xdrmem_create(&cx, cred, sizeof(cred), XDR_ENCODE);
	if (!xdr_uint32_t(&cx, &stamp) || !xdr_string(&cx, &mach, 255) ||
	    !xdr_uint32_t(&cx, &c->uid) || !xdr_uint32_t(&cx, &c->gid) ||
	    !xdr_uint32_t(&cx, &ngids))
		return -1;
	len = XDR_GETPOS(&cx);

	xdrmem_create(&x, c->sbuf + 4, BUFSZ - 4, XDR_ENCODE);
	uint32_t hdrv[] = { xid,
			    0 /* CALL */,
			    2,
			    NFS_PROG,
			    4,
			    1 /* COMPOUND */,
			    1 /* AUTH_SYS */,
			    len };
	for (size_t i = 0; i < sizeof(hdrv) / sizeof(hdrv[0]); i++)
		if (!xdr_uint32_t(&x, &hdrv[i]))
			return -1;
	if (!xdr_opaque(&x, cred, len) || !xdr_uint32_t(&x, &zero) ||
	    !xdr_uint32_t(&x, &zero) || !xdr_COMPOUND4args(&x, args))
		return -1;
	len = XDR_GETPOS(&x);
	hdr = htonl(0x80000000u | len);
	memcpy(c->sbuf, &hdr, 4);
	if (send_all(c->sock, c->sbuf, len + 4) != 0)
		return -1;

	/* reply: record fragments until the last one */
	for (;;) {
		if (recv_all(c->sock, (char *)&hdr, 4) != 0)
			return -1;
		hdr = ntohl(hdr);
		len = hdr & 0x7fffffffu;
		if (got + len > BUFSZ ||
		    recv_all(c->sock, c->rbuf + got, len) != 0)
			return -1;
		got += len;
		if (hdr & 0x80000000u)
			break;
	}
	xdrmem_create(&x, c->rbuf, (u_int)got, XDR_DECODE);
	/* xid, REPLY, MSG_ACCEPTED, verifier, SUCCESS */
	if (!xdr_uint32_t(&x, &v) || v != xid || !xdr_uint32_t(&x, &v) ||
	    v != 1 || !xdr_uint32_t(&x, &v) || v != 0 ||
	    !xdr_uint32_t(&x, &v) || !xdr_uint32_t(&x, &len) || len > 400)
		return -1;
	char verf[400];
	if (!xdr_opaque(&x, verf, len) || !xdr_uint32_t(&x, &v) || v != 0)
		return -1;
	memset(res, 0, sizeof(*res));
	if (!xdr_COMPOUND4res(&x, res))
		return -1;
	return (int)res->status;
}

/* ---- compounds ---- */
#define MAXOPS 8

struct cpd {
	COMPOUND4args a;
	nfs_argop4 ops[MAXOPS];
	COMPOUND4res r;
	int st;
};

static void cpd_init(struct cpd *p)
{
	memset(p, 0, sizeof(*p));
	p->a.minorversion = 2;
	p->a.argarray.argarray_val = p->ops;
}

static nfs_argop4 *add(struct cpd *p, nfs_opnum4 op)
{
	nfs_argop4 *o = &p->ops[p->a.argarray.argarray_len++];

	o->argop = op;
	return o;
}

static void add_sequence(struct cl *c, struct cpd *p)
{
	nfs_argop4 *o = add(p, NFS4_OP_SEQUENCE);

	memcpy(o->nfs_argop4_u.opsequence.sa_sessionid, c->sid, sizeof(c->sid));
	o->nfs_argop4_u.opsequence.sa_sequenceid = ++c->seq;
}

static void add_putfh(struct cpd *p, nfs_fh4 *fh)
{
	add(p, NFS4_OP_PUTFH)->nfs_argop4_u.opputfh.object = *fh;
}

/* The result of op i (NULL if the server stopped before it). */
static nfs_resop4 *resop(struct cpd *p, unsigned int i)
{
	return i < p->r.resarray.resarray_len ? &p->r.resarray.resarray_val[i]
					      : NULL;
}

static int run(struct cl *c, struct cpd *p)
{
	p->st = call(c, &p->a, &p->r);
	return p->st;
}

static void done(struct cpd *p)
{
	if (p->st != -1)
		xdr_free((xdrproc_t)xdr_COMPOUND4res, &p->r);
}

static int setup_session(struct cl *c)
{
	struct cpd p;
	char owner[64];
	nfs_argop4 *o;

	cpd_init(&p);
	o = add(&p, NFS4_OP_EXCHANGE_ID);
	snprintf(owner, sizeof(owner), "it_v42.%d.%ld", (int)getpid(),
		 (long)time(NULL));
	memcpy(o->nfs_argop4_u.opexchange_id.eia_clientowner.co_verifier, owner,
	       8);
	o->nfs_argop4_u.opexchange_id.eia_clientowner.co_ownerid
		.co_ownerid_len = strlen(owner);
	o->nfs_argop4_u.opexchange_id.eia_clientowner.co_ownerid
		.co_ownerid_val = owner;
	o->nfs_argop4_u.opexchange_id.eia_flags = EXCHGID4_FLAG_USE_NON_PNFS;
	o->nfs_argop4_u.opexchange_id.eia_state_protect.spa_how = SP4_NONE;
	if (run(c, &p) != NFS4_OK) {
		fprintf(stderr, "EXCHANGE_ID: %s\n", st4(p.st));
		done(&p);
		return -1;
	}
	EXCHANGE_ID4resok *eok = &resop(&p, 0)
					  ->nfs_resop4_u.opexchange_id
					  .EXCHANGE_ID4res_u.eir_resok4;
	c->clid = eok->eir_clientid;
	uint32_t csseq = eok->eir_sequenceid;
	done(&p);

	cpd_init(&p);
	o = add(&p, NFS4_OP_CREATE_SESSION);
	CREATE_SESSION4args *cs = &o->nfs_argop4_u.opcreate_session;
	callback_sec_parms4 sec = { .cb_secflavor = 0 /* AUTH_NONE */ };
	cs->csa_clientid = c->clid;
	cs->csa_sequence = csseq;
	cs->csa_fore_chan_attrs =
		(channel_attrs4){ 0, BUFSZ - 4096, BUFSZ - 4096, 4096, 16,
				  1, { 0, NULL } };
	cs->csa_back_chan_attrs =
		(channel_attrs4){ 0, 4096, 4096, 0, 2, 1, { 0, NULL } };
	cs->csa_cb_program = 0x40000000;
	cs->csa_sec_parms.csa_sec_parms_len = 1;
	cs->csa_sec_parms.csa_sec_parms_val = &sec;
	if (run(c, &p) != NFS4_OK) {
		fprintf(stderr, "CREATE_SESSION: %s\n", st4(p.st));
		done(&p);
		return -1;
	}
	memcpy(c->sid,
	       resop(&p, 0)
		       ->nfs_resop4_u.opcreate_session.CREATE_SESSION4res_u
		       .csr_resok4.csr_sessionid,
	       sizeof(c->sid));
	c->seq = 0;
	done(&p);

	cpd_init(&p);
	add_sequence(c, &p);
	add(&p, NFS4_OP_RECLAIM_COMPLETE)
		->nfs_argop4_u.opreclaim_complete.rca_one_fs = FALSE;
	run(c, &p);
	done(&p);
	return 0;
}

static int connect_to(struct cl *c, const char *host, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int one = 1;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -1;
	c->sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->sock < 0 ||
	    connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	setsockopt(c->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->sbuf = malloc(BUFSZ);
	c->rbuf = malloc(BUFSZ);
	return c->sbuf && c->rbuf ? 0 : -1;
}

/* ---- file operations ---- */
struct file {
	nfs_fh4 fh;
	char fhbuf[NFS4_FHSIZE];
	stateid4 sid; /* open stateid (or all zeros: anonymous) */
};

static void set_component(component4 *cmp, const char *s)
{
	cmp->utf8string_len = strlen(s);
	cmp->utf8string_val = (char *)s;
}

/* The directory's file handle: PUTROOTFH, LOOKUP of each component. */
static int lookup_dir(struct cl *c, const char *path, struct file *d)
{
	struct cpd p;
	char buf[1024], *save = NULL, *comp;
	int n;

	snprintf(buf, sizeof(buf), "%s", path);
	cpd_init(&p);
	add_sequence(c, &p);
	add(&p, NFS4_OP_PUTROOTFH);
	/* the pseudo path can be deep: several LOOKUPs per compound would
	 * exceed MAXOPS, so paths go one LOOKUP per component, GETFH last */
	static nfs_argop4 many[64];
	COMPOUND4args a = { .minorversion = 2 };
	int k = 0;

	many[k++] = p.ops[0];
	many[k++] = p.ops[1];
	for (comp = strtok_r(buf, "/", &save); comp && k < 62;
	     comp = strtok_r(NULL, "/", &save)) {
		many[k].argop = NFS4_OP_LOOKUP;
		set_component(&many[k].nfs_argop4_u.oplookup.objname, comp);
		k++;
	}
	many[k++].argop = NFS4_OP_GETFH;
	a.argarray.argarray_len = (u_int)k;
	a.argarray.argarray_val = many;
	p.st = call(c, &a, &p.r);
	n = p.st;
	if (n == NFS4_OK) {
		nfs_fh4 *fh = &resop(&p, (unsigned)k - 1)
				       ->nfs_resop4_u.opgetfh.GETFH4res_u.resok4
				       .object;
		memcpy(d->fhbuf, fh->nfs_fh4_val, fh->nfs_fh4_len);
		d->fh.nfs_fh4_len = fh->nfs_fh4_len;
		d->fh.nfs_fh4_val = d->fhbuf;
		memset(&d->sid, 0, sizeof(d->sid));
	}
	done(&p);
	return n;
}

/* OPEN (create UNCHECKED mode 0644 if create) for read+write, GETFH. */
static int open_file(struct cl *c, struct file *dir, const char *name,
		     bool create, uint32_t access, struct file *f)
{
	struct cpd p;
	nfs_argop4 *o;
	char owner[32];
	uint32_t mode = htonl(0644);
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &dir->fh);
	o = add(&p, NFS4_OP_OPEN);
	OPEN4args *oa = &o->nfs_argop4_u.opopen;
	snprintf(owner, sizeof(owner), "owner-%u", c->uid);
	oa->share_access = access;
	oa->share_deny = OPEN4_SHARE_DENY_NONE;
	oa->owner.clientid = c->clid;
	oa->owner.owner.owner_len = strlen(owner);
	oa->owner.owner.owner_val = owner;
	if (create) {
		oa->openhow.opentype = OPEN4_CREATE;
		oa->openhow.openflag4_u.how.mode = UNCHECKED4;
		fattr4 *fa =
			&oa->openhow.openflag4_u.how.createhow4_u.createattrs;
		fa->attrmask.bitmap4_len = 2;
		fa->attrmask.map[1] = 1u << (FATTR4_MODE - 32);
		fa->attr_vals.attrlist4_len = 4;
		fa->attr_vals.attrlist4_val = (char *)&mode;
	} else {
		oa->openhow.opentype = OPEN4_NOCREATE;
	}
	oa->claim.claim = CLAIM_NULL;
	set_component(&oa->claim.open_claim4_u.file, name);
	add(&p, NFS4_OP_GETFH);
	st = run(c, &p);
	if (st == NFS4_OK) {
		f->sid =
			resop(&p, 2)
				->nfs_resop4_u.opopen.OPEN4res_u.resok4.stateid;
		nfs_fh4 *fh = &resop(&p, 3)
				       ->nfs_resop4_u.opgetfh.GETFH4res_u.resok4
				       .object;
		memcpy(f->fhbuf, fh->nfs_fh4_val, fh->nfs_fh4_len);
		f->fh.nfs_fh4_len = fh->nfs_fh4_len;
		f->fh.nfs_fh4_val = f->fhbuf;
	}
	done(&p);
	return st;
}

static int write_at(struct cl *c, struct file *f, uint64_t off, const void *buf,
		    uint32_t len)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	o = add(&p, NFS4_OP_WRITE);
	o->nfs_argop4_u.opwrite.stateid = f->sid;
	o->nfs_argop4_u.opwrite.offset = off;
	o->nfs_argop4_u.opwrite.stable = UNSTABLE4;
	o->nfs_argop4_u.opwrite.data.data_len = len;
	o->nfs_argop4_u.opwrite.data.data_val = (char *)buf;
	st = run(c, &p);
	if (st == NFS4_OK &&
	    resop(&p, 2)->nfs_resop4_u.opwrite.WRITE4res_u.resok4.count != len)
		st = NFS4ERR_IO;
	done(&p);
	return st;
}

static int read_at(struct cl *c, struct file *f, uint64_t off, void *buf,
		   uint32_t len, uint32_t *got)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	*got = 0;
	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	o = add(&p, NFS4_OP_READ);
	o->nfs_argop4_u.opread.stateid = f->sid;
	o->nfs_argop4_u.opread.offset = off;
	o->nfs_argop4_u.opread.count = len;
	st = run(c, &p);
	if (st == NFS4_OK) {
		READ4resok *r =
			&resop(&p, 2)->nfs_resop4_u.opread.READ4res_u.resok4;
		*got = r->data.data_len <= len ? r->data.data_len : len;
		memcpy(buf, r->data.data_val, *got);
	}
	done(&p);
	return st;
}

/* READ a whole range (several READs of at most 1 MiB). */
static int read_range(struct cl *c, struct file *f, uint64_t off, char *buf,
		      uint32_t len)
{
	uint32_t pos = 0, got;

	while (pos < len) {
		uint32_t n = len - pos > (1u << 20) ? (1u << 20) : len - pos;
		int st = read_at(c, f, off + pos, buf + pos, n, &got);

		if (st != NFS4_OK)
			return st;
		if (got == 0)
			return NFS4ERR_IO;
		pos += got;
	}
	return NFS4_OK;
}

static int commit_file(struct cl *c, struct file *f)
{
	struct cpd p;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	add(&p, NFS4_OP_COMMIT);
	st = run(c, &p);
	done(&p);
	return st;
}

static int falloc(struct cl *c, struct file *f, bool allocate, uint64_t off,
		  uint64_t len)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	if (allocate) {
		o = add(&p, NFS4_OP_ALLOCATE);
		o->nfs_argop4_u.opallocate.aa_stateid = f->sid;
		o->nfs_argop4_u.opallocate.aa_offset = off;
		o->nfs_argop4_u.opallocate.aa_length = len;
	} else {
		o = add(&p, NFS4_OP_DEALLOCATE);
		o->nfs_argop4_u.opdeallocate.da_stateid = f->sid;
		o->nfs_argop4_u.opdeallocate.da_offset = off;
		o->nfs_argop4_u.opdeallocate.da_length = len;
	}
	st = run(c, &p);
	done(&p);
	return st;
}

static int seek(struct cl *c, struct file *f, uint64_t off, bool data,
		uint64_t *where, bool *eof)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	o = add(&p, NFS4_OP_SEEK);
	o->nfs_argop4_u.opseek.sa_stateid = f->sid;
	o->nfs_argop4_u.opseek.sa_offset = off;
	o->nfs_argop4_u.opseek.sa_what =
		data ? NFS4_CONTENT_DATA : NFS4_CONTENT_HOLE;
	st = run(c, &p);
	if (st == NFS4_OK) {
		SEEK4res *r = &resop(&p, 2)->nfs_resop4_u.opseek;
		*where = r->sr_resok4.sr_offset;
		*eof = r->sr_resok4.sr_eof;
	}
	done(&p);
	return st;
}

static int setxattr4(struct cl *c, struct file *f, setxattr_option4 opt,
		     const char *name, const void *val, uint32_t len)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	o = add(&p, NFS4_OP_SETXATTR);
	o->nfs_argop4_u.opsetxattr.sxa_option = opt;
	set_component(&o->nfs_argop4_u.opsetxattr.sxa_key, name);
	o->nfs_argop4_u.opsetxattr.sxa_value.utf8string_len = len;
	o->nfs_argop4_u.opsetxattr.sxa_value.utf8string_val = (char *)val;
	st = run(c, &p);
	done(&p);
	return st;
}

static int getxattr4(struct cl *c, struct file *f, const char *name, char *val,
		     uint32_t cap, uint32_t *len)
{
	struct cpd p;
	int st;

	*len = 0;
	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	set_component(
		&add(&p, NFS4_OP_GETXATTR)->nfs_argop4_u.opgetxattr.gxa_name,
		name);
	st = run(c, &p);
	if (st == NFS4_OK) {
		utf8string *v = &resop(&p, 2)
					 ->nfs_resop4_u.opgetxattr
					 .GETXATTR4res_u.resok4.gxr_value;
		*len = v->utf8string_len;
		memcpy(val, v->utf8string_val,
		       v->utf8string_len < cap ? v->utf8string_len : cap);
	}
	done(&p);
	return st;
}

static int removexattr4(struct cl *c, struct file *f, const char *name)
{
	struct cpd p;
	int st;

	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	set_component(&add(&p, NFS4_OP_REMOVEXATTR)
			       ->nfs_argop4_u.opremovexattr.rxa_name,
		      name);
	st = run(c, &p);
	done(&p);
	return st;
}

/* LISTXATTRS: the names joined with ',' into out */
static int listxattr4(struct cl *c, struct file *f, char *out, size_t cap)
{
	struct cpd p;
	nfs_argop4 *o;
	int st;

	out[0] = '\0';
	cpd_init(&p);
	add_sequence(c, &p);
	add_putfh(&p, &f->fh);
	o = add(&p, NFS4_OP_LISTXATTR);
	o->nfs_argop4_u.oplistxattr.lxa_cookie = 0;
	o->nfs_argop4_u.oplistxattr.lxa_maxcount = 65536;
	st = run(c, &p);
	if (st == NFS4_OK) {
		xattrlist4 *l = &resop(&p, 2)
					 ->nfs_resop4_u.oplistxattr
					 .LISTXATTR4res_u.resok4.lxr_names;

		for (count4 i = 0; i < l->xl4_count; i++) {
			size_t n = strlen(out);

			snprintf(out + n, cap - n, "%s%.*s", n ? "," : "",
				 (int)l->xl4_entries[i].utf8string_len,
				 l->xl4_entries[i].utf8string_val);
		}
	}
	done(&p);
	return st;
}

/* ---- local view ---- */
static const char *local_dir;

static char *lpath(const char *name)
{
	static char b[4096];

	snprintf(b, sizeof(b), "%s/%s", local_dir, name);
	return b;
}

static void fill(char *buf, size_t len, uint64_t off, unsigned seed)
{
	for (size_t i = 0; i < len; i++) {
		uint64_t v = (off + i) * 2654435761u + seed;

		buf[i] = (char)((v >> 13) | 1); /* never zero */
	}
}

static bool all_zero(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A snapshot of a file on disk: size, blocks, contents. */
struct snap {
	off_t size;
	blkcnt_t blocks;
	char *data;
};

static bool take_snap(const char *name, struct snap *s)
{
	struct stat sb;
	int fd = open(lpath(name), O_RDONLY | O_CLOEXEC);
	bool okay = false;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return false;
	if (fstat(fd, &sb) == 0 && sb.st_size < (64 << 20)) {
		s->size = sb.st_size;
		s->blocks = sb.st_blocks;
		s->data = malloc((size_t)sb.st_size + 1);
		okay = s->data &&
		       pread(fd, s->data, (size_t)sb.st_size, 0) == sb.st_size;
	}
	close(fd);
	return okay;
}

static bool same_snap(const struct snap *a, const struct snap *b)
{
	return a->size == b->size && a->blocks == b->blocks &&
	       memcmp(a->data, b->data, (size_t)a->size) == 0;
}

/* Writes a root-owned 0644 file of len pattern bytes, flushed. */
static int make_local(const char *name, size_t len, unsigned seed)
{
	char *buf = malloc(len ? len : 1);
	int fd = open(lpath(name), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC,
		      0644);
	int rc = -1;

	if (fd >= 0 && buf) {
		fill(buf, len, 0, seed);
		if (pwrite(fd, buf, len, 0) == (ssize_t)len && fsync(fd) == 0 &&
		    fchown(fd, 0, 0) == 0 && fchmod(fd, 0644) == 0)
			rc = 0;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* ---- the checks ---- */
#define KiB 1024u
#define MiB (1024u * 1024u)

static void test_punch(struct cl *c, struct file *dir)
{
	struct file f;
	char *buf = malloc(MiB), *back = malloc(MiB);
	int st = open_file(c, dir, "punch", true, OPEN4_SHARE_ACCESS_BOTH, &f);

	ok(st == NFS4_OK, "OPEN punch (create): %s", st4(st));
	if (st != NFS4_OK)
		goto out;
	fill(buf, MiB, 0, 1);
	st = write_at(c, &f, 0, buf, MiB);
	ok(st == NFS4_OK, "WRITE 1 MiB: %s", st4(st));
	/* no COMMIT: the punch meets acknowledged, unflushed data */
	st = falloc(c, &f, false, 64 * KiB, 128 * KiB);
	ok(st == NFS4_OK, "DEALLOCATE [64K, 192K) over unflushed data: %s",
	   st4(st));
	st = read_range(c, &f, 0, back, MiB);
	ok(st == NFS4_OK, "READ back: %s", st4(st));
	ok(st == NFS4_OK && all_zero(back + 64 * KiB, 128 * KiB),
	   "the punched range reads back as zeros");
	ok(st == NFS4_OK && memcmp(back, buf, 64 * KiB) == 0 &&
		   memcmp(back + 192 * KiB, buf + 192 * KiB, MiB - 192 * KiB) ==
			   0,
	   "the rest of the file is intact");
	st = commit_file(c, &f);
	ok(st == NFS4_OK, "COMMIT after the punch: %s", st4(st));

	struct snap s;
	bool have = take_snap("punch", &s);
	ok(have && s.size == MiB && all_zero(s.data + 64 * KiB, 128 * KiB) &&
		   memcmp(s.data + 192 * KiB, buf + 192 * KiB,
			  MiB - 192 * KiB) == 0,
	   "on disk: size kept, hole of zeros, data around it");
	ok(have && s.blocks <= (blkcnt_t)((MiB - 128 * KiB) / 512),
	   "on disk: the hole's blocks are freed (%lld sectors)",
	   (long long)s.blocks);
	free(s.data);
out:
	free(buf);
	free(back);
}

static void test_allocate(struct cl *c, struct file *dir)
{
	struct file f;
	char *buf = malloc(MiB), *back = malloc(MiB);
	int st = open_file(c, dir, "alloc", true, OPEN4_SHARE_ACCESS_BOTH, &f);

	ok(st == NFS4_OK, "OPEN alloc (create): %s", st4(st));
	if (st != NFS4_OK)
		goto out;
	fill(buf, 256 * KiB, 0, 2);
	st = write_at(c, &f, 0, buf, 256 * KiB);
	ok(st == NFS4_OK, "WRITE 256 KiB: %s", st4(st));
	st = falloc(c, &f, true, 0, MiB);
	ok(st == NFS4_OK, "ALLOCATE [0, 1M) over written data: %s", st4(st));
	st = read_range(c, &f, 0, back, MiB);
	ok(st == NFS4_OK && memcmp(back, buf, 256 * KiB) == 0,
	   "the allocated range keeps its data: %s", st4(st));
	ok(st == NFS4_OK && all_zero(back + 256 * KiB, MiB - 256 * KiB),
	   "the newly allocated part reads as zeros");
	st = commit_file(c, &f);
	ok(st == NFS4_OK, "COMMIT after ALLOCATE: %s", st4(st));

	struct snap s;
	bool have = take_snap("alloc", &s);
	ok(have && s.size == MiB, "on disk: size grew to 1 MiB (%lld)",
	   (long long)s.size);
	ok(have && s.blocks >= (blkcnt_t)(MiB / 512),
	   "on disk: 1 MiB of blocks reserved (%lld sectors)",
	   (long long)s.blocks);
	free(s.data);
out:
	free(buf);
	free(back);
}

static void test_seek(struct cl *c, struct file *dir)
{
	struct file f;
	char *buf = malloc(MiB);
	uint64_t w = 0;
	bool eof = false;
	int st = open_file(c, dir, "seek", true, OPEN4_SHARE_ACCESS_BOTH, &f);

	ok(st == NFS4_OK, "OPEN seek (create): %s", st4(st));
	if (st != NFS4_OK)
		goto out;
	fill(buf, MiB, 0, 3);
	st = write_at(c, &f, 0, buf, MiB);
	ok(st == NFS4_OK, "WRITE 1 MiB: %s", st4(st));
	st = commit_file(c, &f);
	ok(st == NFS4_OK, "COMMIT: %s", st4(st));
	st = falloc(c, &f, false, 256 * KiB, 256 * KiB);
	ok(st == NFS4_OK, "DEALLOCATE [256K, 512K): %s", st4(st));

	st = seek(c, &f, 0, false, &w, &eof);
	ok(st == NFS4_OK && w == 256 * KiB && !eof,
	   "SEEK HOLE from 0 finds the hole at 256K: %s %llu eof=%d", st4(st),
	   (unsigned long long)w, eof);
	st = seek(c, &f, 256 * KiB, true, &w, &eof);
	ok(st == NFS4_OK && w == 512 * KiB && !eof,
	   "SEEK DATA from 256K finds the data at 512K: %s %llu eof=%d",
	   st4(st), (unsigned long long)w, eof);
	st = seek(c, &f, 100, true, &w, &eof);
	ok(st == NFS4_OK && w == 100 && !eof,
	   "SEEK DATA inside data stays: %s %llu", st4(st),
	   (unsigned long long)w);
	st = seek(c, &f, 512 * KiB, false, &w, &eof);
	ok(st == NFS4_OK && w == MiB && eof,
	   "SEEK HOLE from 512K finds the end of file: %s %llu eof=%d", st4(st),
	   (unsigned long long)w, eof);
	st = seek(c, &f, MiB, true, &w, &eof);
	ok(st == NFS4ERR_NXIO, "SEEK DATA at the end of file: %s (NXIO)",
	   st4(st));
	st = seek(c, &f, 1ull << 63, false, &w, &eof);
	ok(st == NFS4ERR_NXIO, "SEEK HOLE at 2^63: %s (NXIO)", st4(st));
	st = seek(c, &f, UINT64_MAX, true, &w, &eof);
	ok(st == NFS4ERR_NXIO, "SEEK DATA at 2^64-1: %s (NXIO)", st4(st));

	/* acknowledged, not committed data is data */
	struct file g;
	st = open_file(c, dir, "seek_pending", true, OPEN4_SHARE_ACCESS_BOTH,
		       &g);
	ok(st == NFS4_OK, "OPEN seek_pending (create): %s", st4(st));
	if (st == NFS4_OK) {
		st = write_at(c, &g, 2 * MiB, buf, 64 * KiB);
		ok(st == NFS4_OK, "WRITE 64K at 2M (UNSTABLE, no COMMIT): %s",
		   st4(st));
		st = seek(c, &g, 0, true, &w, &eof);
		ok(st == NFS4_OK && w == 2 * MiB && !eof,
		   "SEEK DATA finds the unflushed data at 2M: %s %llu eof=%d",
		   st4(st), (unsigned long long)w, eof);
		st = seek(c, &g, 0, false, &w, &eof);
		ok(st == NFS4_OK && w == 0, "SEEK HOLE from 0 is 0: %s %llu",
		   st4(st), (unsigned long long)w);
	}
out:
	free(buf);
}

struct bad {
	uint64_t off, len;
};

static const struct bad hostile[] = {
	{ 1ull << 63, 1 },
	{ 1ull << 63, 4096 },
	{ UINT64_MAX, 1 },
	{ UINT64_MAX, 2 },
	{ UINT64_MAX, UINT64_MAX },
	{ 1, UINT64_MAX },
	{ 0, 1ull << 63 },
	{ (1ull << 63) - 1, 2 },
	{ 1ull << 62, 1ull << 62 },
	{ 1ull << 50, 4096 }, /* past ext4's maximum file size */
};

static void test_hostile(struct cl *c, struct file *dir, uint32_t uid)
{
	struct snap before, after;
	struct file f, anon;
	int st;

	if (make_local("hostile", 64 * KiB, 4) != 0 ||
	    !take_snap("hostile", &before)) {
		ok(false, "set up hostile (root-owned 0644, 64 KiB)");
		return;
	}
	st = open_file(c, dir, "hostile", false, OPEN4_SHARE_ACCESS_BOTH, &f);
	ok(st == NFS4_OK, "OPEN hostile as root: %s", st4(st));
	if (st != NFS4_OK)
		goto out;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		for (int a = 0; a < 2; a++) {
			st = falloc(c, &f, a, hostile[i].off, hostile[i].len);
			bool changed = !take_snap("hostile", &after) ||
				       !same_snap(&before, &after);

			ok((st == NFS4ERR_INVAL || st == NFS4ERR_FBIG) &&
				   !changed,
			   "%s offset %llu length %llu: %s, file %s",
			   a ? "ALLOCATE" : "DEALLOCATE",
			   (unsigned long long)hostile[i].off,
			   (unsigned long long)hostile[i].len, st4(st),
			   changed ? "CHANGED" : "unchanged");
			free(after.data);
		}
	}

	/* a caller that may not write the file: refused like a WRITE */
	uint32_t ouid = c->uid, ogid = c->gid;
	char data[4096];

	anon = f;
	memset(&anon.sid, 0, sizeof(anon.sid));
	c->uid = c->gid = uid;
	fill(data, sizeof(data), 0, 9);
	st = write_at(c, &anon, 0, data, sizeof(data));
	ok(st == NFS4ERR_ACCESS,
	   "WRITE as uid %u (anonymous stateid): %s (ACCESS)", uid, st4(st));
	for (int a = 0; a < 2; a++) {
		st = falloc(c, &anon, a, 0, 32 * KiB);
		bool changed = !take_snap("hostile", &after) ||
			       !same_snap(&before, &after);

		ok(st == NFS4ERR_ACCESS && !changed,
		   "%s as uid %u: %s (ACCESS), file %s",
		   a ? "ALLOCATE" : "DEALLOCATE", uid, st4(st),
		   changed ? "CHANGED" : "unchanged");
		free(after.data);
	}
	st = falloc(c, &anon, false, UINT64_MAX, 1);
	ok(st != NFS4_OK, "DEALLOCATE at 2^64-1 as uid %u: %s", uid, st4(st));
	c->uid = ouid;
	c->gid = ogid;
out:
	free(before.data);
}

static void test_xattrs(struct cl *c, struct file *dir, uint32_t uid,
			bool notsupp)
{
	struct file f;
	char big[3000], back[4096], list[1024];
	uint32_t len;
	int st;

	st = open_file(c, dir, "xattrs", true, OPEN4_SHARE_ACCESS_BOTH, &f);
	ok(st == NFS4_OK, "OPEN xattrs (create): %s", st4(st));
	if (st != NFS4_OK)
		return;
	if (notsupp) {
		st = setxattr4(c, &f, SETXATTR4_EITHER, "k1", "v1", 2);
		ok(st == NFS4ERR_NOTSUPP, "SETXATTR: %s (NOTSUPP)", st4(st));
		st = getxattr4(c, &f, "k1", back, sizeof(back), &len);
		ok(st == NFS4ERR_NOTSUPP, "GETXATTR: %s (NOTSUPP)", st4(st));
		st = listxattr4(c, &f, list, sizeof(list));
		ok(st == NFS4ERR_NOTSUPP, "LISTXATTRS: %s (NOTSUPP)", st4(st));
		st = removexattr4(c, &f, "k1");
		ok(st == NFS4ERR_NOTSUPP, "REMOVEXATTR: %s (NOTSUPP)", st4(st));
		return;
	}
	st = setxattr4(c, &f, SETXATTR4_CREATE, "k1", "v1", 2);
	ok(st == NFS4_OK, "SETXATTR CREATE k1: %s", st4(st));
	st = getxattr4(c, &f, "k1", back, sizeof(back), &len);
	ok(st == NFS4_OK && len == 2 && memcmp(back, "v1", 2) == 0,
	   "GETXATTR k1 = v1: %s", st4(st));
	ssize_t n = getxattr(lpath("xattrs"), "user.k1", back, sizeof(back));
	ok(n == 2 && memcmp(back, "v1", 2) == 0, "on disk: user.k1 = v1");
	st = setxattr4(c, &f, SETXATTR4_CREATE, "k1", "v2", 2);
	ok(st == NFS4ERR_EXIST,
	   "SETXATTR CREATE of an existing name: %s (EXIST)", st4(st));
	st = setxattr4(c, &f, SETXATTR4_REPLACE, "k2", "v2", 2);
	ok(st == NFS4ERR_NOXATTR,
	   "SETXATTR REPLACE of a missing name: %s (NOXATTR)", st4(st));
	fill(big, sizeof(big), 0, 5);
	st = setxattr4(c, &f, SETXATTR4_EITHER, "k2", big, sizeof(big));
	ok(st == NFS4_OK, "SETXATTR EITHER k2 (3000 bytes): %s", st4(st));
	st = getxattr4(c, &f, "k2", back, sizeof(back), &len);
	ok(st == NFS4_OK && len == sizeof(big) &&
		   memcmp(back, big, sizeof(big)) == 0,
	   "GETXATTR k2 round trip (larger than ganesha's first 1 KiB buffer): %s len %u",
	   st4(st), len);
	st = setxattr4(c, &f, SETXATTR4_REPLACE, "k1", "", 0);
	ok(st == NFS4_OK, "SETXATTR REPLACE k1 with an empty value: %s",
	   st4(st));
	st = getxattr4(c, &f, "k1", back, sizeof(back), &len);
	ok(st == NFS4_OK && len == 0, "GETXATTR k1 is empty: %s len %u",
	   st4(st), len);
	st = listxattr4(c, &f, list, sizeof(list));
	ok(st == NFS4_OK &&
		   (strcmp(list, "k1,k2") == 0 || strcmp(list, "k2,k1") == 0),
	   "LISTXATTRS: %s [%s]", st4(st), list);
	st = removexattr4(c, &f, "k1");
	ok(st == NFS4_OK, "REMOVEXATTR k1: %s", st4(st));
	st = getxattr4(c, &f, "k1", back, sizeof(back), &len);
	ok(st == NFS4ERR_NOXATTR, "GETXATTR of a removed name: %s (NOXATTR)",
	   st4(st));
	st = removexattr4(c, &f, "k1");
	ok(st == NFS4ERR_NOXATTR, "REMOVEXATTR of a missing name: %s (NOXATTR)",
	   st4(st));
	st = getxattr4(c, &f, "", back, sizeof(back), &len);
	ok(st != NFS4_OK, "GETXATTR of an empty name refused: %s", st4(st));
	char longname[300];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	st = setxattr4(c, &f, SETXATTR4_EITHER, longname, "v", 1);
	ok(st != NFS4_OK, "SETXATTR of a 299-byte name refused: %s", st4(st));
	n = listxattr(lpath("xattrs"), list, sizeof(list));
	ok(n == 8 && memcmp(list, "user.k2", 8) == 0,
	   "on disk: only user.k2 is left");

	/* a caller that may only read the file */
	struct file r;
	if (make_local("xroot", 16, 6) != 0 ||
	    setxattr(lpath("xroot"), "user.k", "root", 4, 0) != 0) {
		ok(false, "set up xroot (root-owned 0644 with user.k)");
		return;
	}
	st = open_file(c, dir, "xroot", false, OPEN4_SHARE_ACCESS_READ, &r);
	ok(st == NFS4_OK, "OPEN xroot as root: %s", st4(st));
	if (st != NFS4_OK)
		return;
	uint32_t ouid = c->uid, ogid = c->gid;

	c->uid = c->gid = uid;
	st = getxattr4(c, &r, "k", back, sizeof(back), &len);
	ok(st == NFS4_OK && len == 4 && memcmp(back, "root", 4) == 0,
	   "GETXATTR as uid %u of a file it may read: %s", uid, st4(st));
	st = setxattr4(c, &r, SETXATTR4_EITHER, "k", "evil", 4);
	ok(st == NFS4ERR_ACCESS,
	   "SETXATTR as uid %u of a root-owned 0644 file: %s (ACCESS)", uid,
	   st4(st));
	st = setxattr4(c, &r, SETXATTR4_CREATE, "new", "evil", 4);
	ok(st == NFS4ERR_ACCESS, "SETXATTR CREATE as uid %u: %s (ACCESS)", uid,
	   st4(st));
	st = removexattr4(c, &r, "k");
	ok(st == NFS4ERR_ACCESS, "REMOVEXATTR as uid %u: %s (ACCESS)", uid,
	   st4(st));
	c->uid = ouid;
	c->gid = ogid;
	n = getxattr(lpath("xroot"), "user.k", back, sizeof(back));
	ok(n == 4 && memcmp(back, "root", 4) == 0 &&
		   getxattr(lpath("xroot"), "user.new", back, sizeof(back)) < 0,
	   "on disk: the root-owned file's xattrs are unchanged");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: it_v42 -e DIR -l LOCAL [-H host] [-p port] [-u uid] [-x notsupp]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1", *exp = NULL;
	int port = 12049, opt;
	uint32_t uid = 1000;
	bool notsupp = false;
	struct cl c = { .uid = 0, .gid = 0 };
	struct file dir;
	int st;

	while ((opt = getopt(argc, argv, "e:l:H:p:u:x:")) != -1) {
		switch (opt) {
		case 'e':
			exp = optarg;
			break;
		case 'l':
			local_dir = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'u':
			uid = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'x':
			notsupp = strcmp(optarg, "notsupp") == 0;
			break;
		default:
			usage();
		}
	}
	if (!exp || !local_dir)
		usage();
	if (connect_to(&c, host, port) != 0 || setup_session(&c) != 0) {
		fprintf(stderr, "it_v42: no NFSv4.2 session with %s:%d\n", host,
			port);
		return 2;
	}
	st = lookup_dir(&c, exp, &dir);
	if (st != NFS4_OK) {
		fprintf(stderr, "it_v42: LOOKUP %s: %s\n", exp, st4(st));
		return 2;
	}
	test_punch(&c, &dir);
	test_allocate(&c, &dir);
	test_seek(&c, &dir);
	test_hostile(&c, &dir, uid);
	test_xattrs(&c, &dir, uid, notsupp);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
