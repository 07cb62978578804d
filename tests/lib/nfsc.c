// SPDX-License-Identifier: LGPL-3.0-or-later
/* See nfsc.h. */
#include "nfsc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t nfsc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *nfsc_st(int st)
{
	static __thread char buf[32];
	const char *s;

	if (st == -1)
		return "RPC_ERROR";
	s = nfsstat3_to_str(st);
	if (strncmp(s, "NFS3ERR_", 8) == 0)
		return s + 8;
	if (strncmp(s, "NFS3_", 5) == 0)
		return s + 5;
	snprintf(buf, sizeof(buf), "%d", st);
	return buf;
}

/* ---- calls ---- */

void nfsc_call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct nfsc_call *k = priv;

	(void)rpc;
	k->rpc_status = status;
	if (status == RPC_STATUS_SUCCESS && data) {
		k->st = *(
			int *)data; /* every NFSv3 result starts with nfsstat3 */
		if (k->copy)
			k->copy(k, data);
	} else {
		k->st = -1;
	}
	k->done = 1;
}

/* For calls without a result body (connect, NULL): only the RPC status. */
static void status_cb(struct rpc_context *rpc, int status, void *data,
		      void *priv)
{
	struct nfsc_call *k = priv;

	(void)rpc;
	(void)data;
	k->rpc_status = status;
	k->st = status == RPC_STATUS_SUCCESS ? 0 : -1;
	k->done = 1;
}

/* Fails every pending call now (their callbacks run inside rpc_disconnect). */
static void kill_conn(struct nfsc_conn *c)
{
	c->dead = 1;
	rpc_disconnect(c->rpc, c->err);
}

int nfsc_pump(struct nfsc_conn *c, int ms)
{
	struct pollfd p;
	int r;

	if (c->dead)
		return -1;
	p.fd = rpc_get_fd(c->rpc);
	p.events = rpc_which_events(c->rpc);
	p.revents = 0;
	r = poll(&p, 1, ms);
	if (r < 0 && errno != EINTR) {
		snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
		kill_conn(c);
		return -1;
	}
	if (rpc_service(c->rpc, r > 0 ? p.revents : 0) < 0) {
		snprintf(c->err, sizeof(c->err), "rpc_service: %s",
			 rpc_get_error(c->rpc));
		kill_conn(c);
		return -1;
	}
	return 0;
}

int nfsc_wait(struct nfsc_conn *c, struct nfsc_call *k)
{
	int limit = c->timeout_ms ? c->timeout_ms : NFSC_TIMEOUT_MS;
	uint64_t deadline = nfsc_now_ms() + limit;

	while (!k->done && !c->dead) {
		if (nfsc_pump(c, 100) < 0)
			break;
		if (!k->done && nfsc_now_ms() > deadline) {
			snprintf(c->err, sizeof(c->err),
				 "no reply within %d ms", limit);
			kill_conn(c);
			break;
		}
	}
	if (!k->done) {
		/* dead connection: libnfs already failed the pending calls */
		k->st = -1;
		k->done = 1;
		return -1;
	}
	if (k->rpc_status != RPC_STATUS_SUCCESS) {
		snprintf(c->err, sizeof(c->err), "rpc status %d: %.200s",
			 k->rpc_status, rpc_get_error(c->rpc));
		return -1;
	}
	return 0;
}

/* Issues the call started by the expression START (which uses k) and waits. */
#define RUN(c, k, START)                                     \
	do {                                                 \
		if ((c)->dead) {                             \
			(k).st = -1;                         \
			break;                               \
		}                                            \
		if ((START) != 0) {                          \
			snprintf((c)->err, sizeof((c)->err), \
				 "could not queue: %s",      \
				 rpc_get_error((c)->rpc));   \
			(k).st = -1;                         \
			break;                               \
		}                                            \
		if (nfsc_wait((c), &(k)) != 0)               \
			(k).st = -1;                         \
	} while (0)

/* ---- connection ---- */

static void mnt_copy(struct nfsc_call *k, void *data)
{
	mountres3 *r = data;

	if (r->fhs_status == MNT3_OK) {
		k->fh->len = r->mountres3_u.mountinfo.fhandle.fhandle3_len;
		if (k->fh->len > NFSC_FHMAX)
			k->fh->len = NFSC_FHMAX;
		memcpy(k->fh->data,
		       r->mountres3_u.mountinfo.fhandle.fhandle3_val,
		       k->fh->len);
	}
}

static struct rpc_context *new_rpc(int uid, int gid)
{
	struct rpc_context *rpc = rpc_init_context();

	if (rpc && uid >= 0) {
		rpc_set_uid(rpc, uid);
		rpc_set_gid(rpc, gid);
	}
	return rpc;
}

/* MOUNT3 MNT for the root handle, on its own connection. */
static int mount_root(struct nfsc_conn *c, const struct nfsc_opts *o,
		      int timeout_ms)
{
	struct nfsc_conn m = { .timeout_ms = timeout_ms };
	struct nfsc_call k = { 0 };

	m.rpc = new_rpc(c->uid, c->gid);
	if (!m.rpc)
		return -1;
	RUN(&m, k,
	    rpc_connect_port_async(m.rpc, o->host, o->mntport, MOUNT_PROGRAM,
				   MOUNT_V3, status_cb, &k));
	if (k.st != 0) {
		snprintf(c->err, sizeof(c->err),
			 "connect to mountd %.40s:%d failed: %.180s", o->host,
			 o->mntport, m.err);
		rpc_destroy_context(m.rpc);
		return -1;
	}
	memset(&k, 0, sizeof(k));
	k.copy = mnt_copy;
	k.fh = &c->root;
	RUN(&m, k,
	    rpc_mount3_mnt_async(m.rpc, nfsc_call_cb, (char *)o->export, &k));
	rpc_destroy_context(m.rpc);
	if (k.st != 0) {
		snprintf(c->err, sizeof(c->err),
			 "MNT %.100s failed: status %d %.100s", o->export, k.st,
			 m.err);
		return -1;
	}
	return 0;
}

int nfsc_connect(struct nfsc_conn *c, const struct nfsc_opts *o, int uid,
		 int gid, int mnt_timeout_ms)
{
	struct nfsc_call k = { 0 };

	memset(c, 0, sizeof(*c));
	c->uid = uid;
	c->gid = gid;
	if (mount_root(c, o, mnt_timeout_ms) != 0)
		return -1;
	c->rpc = new_rpc(uid, gid);
	if (!c->rpc)
		return -1;
	RUN(c, k,
	    rpc_connect_port_async(c->rpc, o->host, o->nfsport, NFS_PROGRAM,
				   NFS_V3, status_cb, &k));
	if (k.st != 0) {
		char why[sizeof(c->err)];

		snprintf(why, sizeof(why), "%s", c->err);
		snprintf(c->err, sizeof(c->err),
			 "connect to nfsd %.40s:%d failed: %.180s", o->host,
			 o->nfsport, why);
		rpc_destroy_context(c->rpc);
		c->rpc = NULL;
		return -1;
	}
	return 0;
}

void nfsc_disconnect(struct nfsc_conn *c)
{
	if (c->rpc)
		rpc_destroy_context(c->rpc);
	c->rpc = NULL;
}

/* ---- handles and attributes ---- */

void nfsc_fh_to3(const struct nfsc_fh *fh, nfs_fh3 *out)
{
	out->data.data_len = fh->len;
	out->data.data_val = (char *)fh->data;
}

void nfsc_fh_from3(struct nfsc_fh *fh, const nfs_fh3 *in)
{
	fh->len =
		in->data.data_len > NFSC_FHMAX ? NFSC_FHMAX : in->data.data_len;
	memcpy(fh->data, in->data.data_val, fh->len);
}

bool nfsc_fh_eq(const struct nfsc_fh *a, const struct nfsc_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

char *nfsc_fh_hex(const struct nfsc_fh *fh, char *buf, size_t size)
{
	size_t i;

	buf[0] = 0;
	for (i = 0; i < fh->len && 2 * i + 2 < size; i++)
		sprintf(buf + 2 * i, "%02x", fh->data[i]);
	return buf;
}

bool nfsc_fh_parse_hex(struct nfsc_fh *fh, const char *hex)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 > NFSC_FHMAX)
		return false;
	for (i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		fh->data[i] = v;
	}
	fh->len = n / 2;
	return true;
}

void nfsc_sattr_none(sattr3 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->atime.set_it = DONT_CHANGE;
	sa->mtime.set_it = DONT_CHANGE;
}

/* Each context is an NFSv4 client of its own. libnfs 4.0 names a context's
 * client "Libnfs pid:P <time(NULL)>", with a verifier of the coarse monotonic
 * milliseconds (a 4 ms tick) and the pid, and uses that name as its open owner
 * too: a second context made within the tick of the first one is, to the
 * server, the same client (SETCLIENTID with the same id and verifier keeps the
 * clientid) and its OPENs are those of the first context's open owner. After
 * upgrade_v4 that owner still holds ro/victim open for read (its CLOSE is
 * refused BAD_SEQID), and ganesha answers an OPEN CREATE by an owner holding
 * the file open with the verifier check alone (nfs4_op_open.c, open4_ex:
 * existing state and createmode >= FSAL_EXCLUSIVE -> fsal_verify2), EXIST,
 * with any FSAL: ft_hostile's perm_v4 failed about once in seven runs that way. (The default
 * name libnfs 4.0 strdup()ed is not freed when it is replaced.) */
void nfsc_v4_identity(struct nfs_context *nfs, const char *tag)
{
	static uint32_t seq;
	char id[96], verf[8];
	uint32_t pid = (uint32_t)getpid();
	uint32_t n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);

	snprintf(id, sizeof(id), "%s pid:%u ctx:%u", tag, pid, n);
	memcpy(verf, &pid, 4);
	memcpy(verf + 4, &n, 4);
	nfs4_set_client_name(nfs, id);
	nfs4_set_verifier(nfs, verf);
}

void nfsc_sattr_mode(sattr3 *sa, int mode)
{
	nfsc_sattr_none(sa);
	if (mode >= 0) {
		sa->mode.set_it = 1;
		sa->mode.set_mode3_u.mode = mode;
	}
}

void nfsc_sattr_size(sattr3 *sa, uint64_t size)
{
	nfsc_sattr_none(sa);
	sa->size.set_it = 1;
	sa->size.set_size3_u.size = size;
}

static void copy_post_attr(struct nfsc_call *k, const post_op_attr *pa)
{
	if (k->attr) {
		if (pa->attributes_follow)
			*k->attr = pa->post_op_attr_u.attributes;
		else
			memset(k->attr, 0, sizeof(*k->attr));
	}
}

/* ---- procedures ---- */

int nfsc_null(struct nfsc_conn *c)
{
	struct nfsc_call k = { 0 };

	RUN(c, k, rpc_nfs3_null_async(c->rpc, status_cb, &k));
	return k.st == -1 ? -1 : 0;
}

static void getattr_copy(struct nfsc_call *k, void *data)
{
	GETATTR3res *r = data;

	if (r->status == NFS3_OK && k->attr)
		*k->attr = r->GETATTR3res_u.resok.obj_attributes;
}

int nfsc_getattr(struct nfsc_conn *c, const struct nfsc_fh *fh, fattr3 *attr)
{
	struct nfsc_call k = { .copy = getattr_copy, .attr = attr };
	GETATTR3args a;

	nfsc_fh_to3(fh, &a.object);
	RUN(c, k, rpc_nfs3_getattr_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_setattr(struct nfsc_conn *c, const struct nfsc_fh *fh,
		 const sattr3 *sa)
{
	return nfsc_setattr_guard(c, fh, sa, NULL);
}

int nfsc_setattr_guard(struct nfsc_conn *c, const struct nfsc_fh *fh,
		       const sattr3 *sa, const nfstime3 *guard_ctime)
{
	struct nfsc_call k = { 0 };
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	nfsc_fh_to3(fh, &a.object);
	a.new_attributes = *sa;
	if (guard_ctime) {
		a.guard.check = 1;
		a.guard.sattrguard3_u.obj_ctime = *guard_ctime;
	}
	RUN(c, k, rpc_nfs3_setattr_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void lookup_copy(struct nfsc_call *k, void *data)
{
	LOOKUP3res *r = data;

	if (r->status != NFS3_OK)
		return;
	if (k->fh)
		nfsc_fh_from3(k->fh, &r->LOOKUP3res_u.resok.object);
	copy_post_attr(k, &r->LOOKUP3res_u.resok.obj_attributes);
}

int nfsc_lookup(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name, struct nfsc_fh *out, fattr3 *attr)
{
	struct nfsc_call k = { .copy = lookup_copy, .fh = out, .attr = attr };
	LOOKUP3args a;

	if (out)
		out->len = 0;
	nfsc_fh_to3(dir, &a.what.dir);
	a.what.name = (char *)name;
	RUN(c, k, rpc_nfs3_lookup_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void access_copy(struct nfsc_call *k, void *data)
{
	ACCESS3res *r = data;

	if (r->status == NFS3_OK)
		k->count = r->ACCESS3res_u.resok.access;
}

int nfsc_access(struct nfsc_conn *c, const struct nfsc_fh *fh, uint32_t want,
		uint32_t *granted)
{
	struct nfsc_call k = { .copy = access_copy };
	ACCESS3args a;

	nfsc_fh_to3(fh, &a.object);
	a.access = want;
	RUN(c, k, rpc_nfs3_access_async(c->rpc, nfsc_call_cb, &a, &k));
	if (granted)
		*granted = k.count;
	return k.st;
}

static void readlink_copy(struct nfsc_call *k, void *data)
{
	READLINK3res *r = data;

	if (r->status == NFS3_OK && k->buf && k->cap)
		snprintf(k->buf, k->cap, "%s", r->READLINK3res_u.resok.data);
}

int nfsc_readlink(struct nfsc_conn *c, const struct nfsc_fh *fh, char *buf,
		  size_t size)
{
	struct nfsc_call k = { .copy = readlink_copy, .buf = buf, .cap = size };
	READLINK3args a;

	if (size)
		buf[0] = 0;
	nfsc_fh_to3(fh, &a.symlink);
	RUN(c, k, rpc_nfs3_readlink_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void read_copy(struct nfsc_call *k, void *data)
{
	READ3res *r = data;

	if (r->status != NFS3_OK)
		return;
	k->count = r->READ3res_u.resok.data.data_len;
	if (k->count > k->cap)
		k->count = k->cap;
	memcpy(k->buf, r->READ3res_u.resok.data.data_val, k->count);
	k->eof = r->READ3res_u.resok.eof;
}

int nfsc_read(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
	      uint32_t count, void *buf, uint32_t *got, bool *eof)
{
	struct nfsc_call k = { .copy = read_copy, .buf = buf, .cap = count };
	READ3args a;

	nfsc_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = count;
	RUN(c, k, rpc_nfs3_read_async(c->rpc, nfsc_call_cb, &a, &k));
	if (got)
		*got = k.count;
	if (eof)
		*eof = k.eof;
	return k.st;
}

static void write_copy(struct nfsc_call *k, void *data)
{
	WRITE3res *r = data;

	if (r->status != NFS3_OK)
		return;
	k->count = r->WRITE3res_u.resok.count;
	k->committed = r->WRITE3res_u.resok.committed;
	memcpy(k->verf, r->WRITE3res_u.resok.verf, 8);
}

static void write_args(WRITE3args *a, const struct nfsc_fh *fh, uint64_t off,
		       const void *buf, uint32_t len, stable_how stable)
{
	memset(a, 0, sizeof(*a));
	nfsc_fh_to3(fh, &a->file);
	a->offset = off;
	a->count = len;
	a->stable = stable;
	a->data.data_len = len;
	a->data.data_val = (char *)buf;
}

int nfsc_write_async(struct nfsc_conn *c, struct nfsc_call *k,
		     const struct nfsc_fh *fh, uint64_t off, const void *buf,
		     uint32_t len, stable_how stable)
{
	WRITE3args a;

	memset(k, 0, sizeof(*k));
	k->copy = write_copy;
	if (c->dead)
		return -1;
	write_args(&a, fh, off, buf, len, stable);
	return rpc_nfs3_write_async(c->rpc, nfsc_call_cb, &a, k);
}

int nfsc_write(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
	       const void *buf, uint32_t len, stable_how stable,
	       uint32_t *count, stable_how *committed, char verf[8])
{
	struct nfsc_call k = { .copy = write_copy };
	WRITE3args a;

	write_args(&a, fh, off, buf, len, stable);
	RUN(c, k, rpc_nfs3_write_async(c->rpc, nfsc_call_cb, &a, &k));
	if (count)
		*count = k.count;
	if (committed)
		*committed = k.committed;
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

/* CREATE, MKDIR, SYMLINK and MKNOD results share the resok layout. */
static void newobj_copy(struct nfsc_call *k, const post_op_fh3 *pfh,
			const post_op_attr *pa)
{
	if (k->fh) {
		if (pfh->handle_follows)
			nfsc_fh_from3(k->fh, &pfh->post_op_fh3_u.handle);
		else
			k->fh->len = 0;
	}
	copy_post_attr(k, pa);
}

static void create_copy(struct nfsc_call *k, void *data)
{
	CREATE3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->CREATE3res_u.resok.obj,
			    &r->CREATE3res_u.resok.obj_attributes);
}

static void mkdir_copy(struct nfsc_call *k, void *data)
{
	MKDIR3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->MKDIR3res_u.resok.obj,
			    &r->MKDIR3res_u.resok.obj_attributes);
}

static void symlink_copy(struct nfsc_call *k, void *data)
{
	SYMLINK3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->SYMLINK3res_u.resok.obj,
			    &r->SYMLINK3res_u.resok.obj_attributes);
}

static void mknod_copy(struct nfsc_call *k, void *data)
{
	MKNOD3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->MKNOD3res_u.resok.obj,
			    &r->MKNOD3res_u.resok.obj_attributes);
}

/* The call of a procedure that makes a new object; clears *out first. */
static struct nfsc_call newobj_call(void (*copy)(struct nfsc_call *, void *),
				    struct nfsc_fh *out, fattr3 *attr)
{
	if (out)
		out->len = 0;
	return (struct nfsc_call){ .copy = copy, .fh = out, .attr = attr };
}

static void where_args(diropargs3 *w, const struct nfsc_fh *dir,
		       const char *name)
{
	nfsc_fh_to3(dir, &w->dir);
	w->name = (char *)name;
}

int nfsc_create_sa(struct nfsc_conn *c, const struct nfsc_fh *dir,
		   const char *name, createmode3 how, const sattr3 *sa,
		   const char verf[8], struct nfsc_fh *out, fattr3 *attr)
{
	struct nfsc_call k = newobj_call(create_copy, out, attr);
	CREATE3args a;

	memset(&a, 0, sizeof(a));
	where_args(&a.where, dir, name);
	a.how.mode = how;
	if (how == EXCLUSIVE)
		memcpy(a.how.createhow3_u.verf, verf, 8);
	else
		a.how.createhow3_u.obj_attributes = *sa;
	RUN(c, k, rpc_nfs3_create_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_create(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name, createmode3 how, int mode, const char verf[8],
		struct nfsc_fh *out, fattr3 *attr)
{
	sattr3 sa;

	nfsc_sattr_mode(&sa, mode);
	return nfsc_create_sa(c, dir, name, how, &sa, verf, out, attr);
}

int nfsc_mkdir(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	       int mode, struct nfsc_fh *out, fattr3 *attr)
{
	struct nfsc_call k = newobj_call(mkdir_copy, out, attr);
	MKDIR3args a;

	memset(&a, 0, sizeof(a));
	where_args(&a.where, dir, name);
	nfsc_sattr_mode(&a.attributes, mode);
	RUN(c, k, rpc_nfs3_mkdir_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_symlink(struct nfsc_conn *c, const struct nfsc_fh *dir,
		 const char *name, const char *target, struct nfsc_fh *out,
		 fattr3 *attr)
{
	struct nfsc_call k = newobj_call(symlink_copy, out, attr);
	SYMLINK3args a;

	memset(&a, 0, sizeof(a));
	where_args(&a.where, dir, name);
	nfsc_sattr_mode(&a.symlink.symlink_attributes, -1);
	a.symlink.symlink_data = (char *)target;
	RUN(c, k, rpc_nfs3_symlink_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void mknod_args(mknoddata3 *w, ftype3 type, int mode, unsigned major,
		       unsigned minor)
{
	w->type = type;
	switch (type) {
	case NF3CHR:
		nfsc_sattr_mode(&w->mknoddata3_u.chr_device.dev_attributes,
				mode);
		w->mknoddata3_u.chr_device.spec.specdata1 = major;
		w->mknoddata3_u.chr_device.spec.specdata2 = minor;
		break;
	case NF3BLK:
		nfsc_sattr_mode(&w->mknoddata3_u.blk_device.dev_attributes,
				mode);
		w->mknoddata3_u.blk_device.spec.specdata1 = major;
		w->mknoddata3_u.blk_device.spec.specdata2 = minor;
		break;
	case NF3SOCK:
		nfsc_sattr_mode(&w->mknoddata3_u.sock_attributes, mode);
		break;
	case NF3FIFO:
		nfsc_sattr_mode(&w->mknoddata3_u.pipe_attributes, mode);
		break;
	default:
		break;
	}
}

int nfsc_mknod(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	       ftype3 type, int mode, unsigned major, unsigned minor,
	       struct nfsc_fh *out, fattr3 *attr)
{
	struct nfsc_call k = newobj_call(mknod_copy, out, attr);
	MKNOD3args a;

	memset(&a, 0, sizeof(a));
	where_args(&a.where, dir, name);
	mknod_args(&a.what, type, mode, major, minor);
	RUN(c, k, rpc_nfs3_mknod_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_remove(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name)
{
	struct nfsc_call k = { 0 };
	REMOVE3args a;

	where_args(&a.object, dir, name);
	RUN(c, k, rpc_nfs3_remove_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_rmdir(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name)
{
	struct nfsc_call k = { 0 };
	RMDIR3args a;

	where_args(&a.object, dir, name);
	RUN(c, k, rpc_nfs3_rmdir_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_rename(struct nfsc_conn *c, const struct nfsc_fh *fdir,
		const char *fname, const struct nfsc_fh *tdir,
		const char *tname)
{
	struct nfsc_call k = { 0 };
	RENAME3args a;

	where_args(&a.from, fdir, fname);
	where_args(&a.to, tdir, tname);
	RUN(c, k, rpc_nfs3_rename_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void link_copy(struct nfsc_call *k, void *data)
{
	LINK3res *r = data;

	if (r->status == NFS3_OK)
		copy_post_attr(k, &r->LINK3res_u.resok.file_attributes);
}

int nfsc_link(struct nfsc_conn *c, const struct nfsc_fh *fh,
	      const struct nfsc_fh *dir, const char *name, fattr3 *attr)
{
	struct nfsc_call k = { .copy = link_copy, .attr = attr };
	LINK3args a;

	nfsc_fh_to3(fh, &a.file);
	where_args(&a.link, dir, name);
	RUN(c, k, rpc_nfs3_link_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

/* FSSTAT, FSINFO and PATHCONF: the whole resok is copied to k->buf. */
static void fsstat_copy(struct nfsc_call *k, void *data)
{
	FSSTAT3res *r = data;

	if (r->status == NFS3_OK && k->buf)
		*(FSSTAT3resok *)k->buf = r->FSSTAT3res_u.resok;
}

static void fsinfo_copy(struct nfsc_call *k, void *data)
{
	FSINFO3res *r = data;

	if (r->status == NFS3_OK && k->buf)
		*(FSINFO3resok *)k->buf = r->FSINFO3res_u.resok;
}

static void pathconf_copy(struct nfsc_call *k, void *data)
{
	PATHCONF3res *r = data;

	if (r->status == NFS3_OK && k->buf)
		*(PATHCONF3resok *)k->buf = r->PATHCONF3res_u.resok;
}

int nfsc_fsstat(struct nfsc_conn *c, const struct nfsc_fh *fh,
		FSSTAT3resok *out)
{
	struct nfsc_call k = { .copy = fsstat_copy, .buf = out };
	FSSTAT3args a;

	nfsc_fh_to3(fh, &a.fsroot);
	RUN(c, k, rpc_nfs3_fsstat_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_fsinfo(struct nfsc_conn *c, const struct nfsc_fh *fh,
		FSINFO3resok *out)
{
	struct nfsc_call k = { .copy = fsinfo_copy, .buf = out };
	FSINFO3args a;

	nfsc_fh_to3(fh, &a.fsroot);
	RUN(c, k, rpc_nfs3_fsinfo_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

int nfsc_pathconf(struct nfsc_conn *c, const struct nfsc_fh *fh,
		  PATHCONF3resok *out)
{
	struct nfsc_call k = { .copy = pathconf_copy, .buf = out };
	PATHCONF3args a;

	nfsc_fh_to3(fh, &a.object);
	RUN(c, k, rpc_nfs3_pathconf_async(c->rpc, nfsc_call_cb, &a, &k));
	return k.st;
}

static void commit_copy(struct nfsc_call *k, void *data)
{
	COMMIT3res *r = data;

	if (r->status == NFS3_OK)
		memcpy(k->verf, r->COMMIT3res_u.resok.verf, 8);
}

static void commit_args(COMMIT3args *a, const struct nfsc_fh *fh, uint64_t off,
			uint32_t count)
{
	memset(a, 0, sizeof(*a));
	nfsc_fh_to3(fh, &a->file);
	a->offset = off;
	a->count = count;
}

int nfsc_commit_async(struct nfsc_conn *c, struct nfsc_call *k,
		      const struct nfsc_fh *fh, uint64_t off, uint32_t count)
{
	COMMIT3args a;

	memset(k, 0, sizeof(*k));
	k->copy = commit_copy;
	if (c->dead)
		return -1;
	commit_args(&a, fh, off, count);
	return rpc_nfs3_commit_async(c->rpc, nfsc_call_cb, &a, k);
}

int nfsc_commit(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
		uint32_t count, char verf[8])
{
	struct nfsc_call k = { .copy = commit_copy };
	COMMIT3args a;

	commit_args(&a, fh, off, count);
	RUN(c, k, rpc_nfs3_commit_async(c->rpc, nfsc_call_cb, &a, &k));
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

/* ---- readdir ---- */

void nfsc_dirlist_free(struct nfsc_dirlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static struct nfsc_dirent *dl_add(struct nfsc_dirlist *l, const char *name,
				  uint64_t fileid, uint64_t cookie)
{
	struct nfsc_dirent *d;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		if (!l->e)
			abort();
	}
	d = &l->e[l->n++];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	d->fileid = fileid;
	d->cookie = cookie;
	return d;
}

static void readdir_copy(struct nfsc_call *k, void *data)
{
	READDIR3res *r = data;
	entry3 *e;

	if (r->status != NFS3_OK)
		return;
	memcpy(k->verf, r->READDIR3res_u.resok.cookieverf, 8);
	k->eof = r->READDIR3res_u.resok.reply.eof;
	for (e = r->READDIR3res_u.resok.reply.entries; e; e = e->nextentry)
		dl_add(k->user, e->name, e->fileid, e->cookie);
}

static void readdirplus_copy(struct nfsc_call *k, void *data)
{
	READDIRPLUS3res *r = data;
	entryplus3 *e;

	if (r->status != NFS3_OK)
		return;
	memcpy(k->verf, r->READDIRPLUS3res_u.resok.cookieverf, 8);
	k->eof = r->READDIRPLUS3res_u.resok.reply.eof;
	for (e = r->READDIRPLUS3res_u.resok.reply.entries; e;
	     e = e->nextentry) {
		struct nfsc_dirent *d =
			dl_add(k->user, e->name, e->fileid, e->cookie);

		if (e->name_attributes.attributes_follow) {
			d->has_attr = true;
			d->attr = e->name_attributes.post_op_attr_u.attributes;
		}
		if (e->name_handle.handle_follows) {
			d->has_fh = true;
			nfsc_fh_from3(&d->fh,
				      &e->name_handle.post_op_fh3_u.handle);
		}
	}
}

int nfsc_readdir_once(struct nfsc_conn *c, const struct nfsc_fh *dir, bool plus,
		      uint64_t cookie, const char verf[8], uint32_t count,
		      struct nfsc_dirlist *out, char verf_out[8], bool *eof)
{
	struct nfsc_call k = { .user = out };

	if (plus) {
		READDIRPLUS3args a;

		memset(&a, 0, sizeof(a));
		nfsc_fh_to3(dir, &a.dir);
		a.cookie = cookie;
		memcpy(a.cookieverf, verf, 8);
		a.dircount = count;
		a.maxcount = count * 4;
		k.copy = readdirplus_copy;
		RUN(c, k,
		    rpc_nfs3_readdirplus_async(c->rpc, nfsc_call_cb, &a, &k));
	} else {
		READDIR3args a;

		memset(&a, 0, sizeof(a));
		nfsc_fh_to3(dir, &a.dir);
		a.cookie = cookie;
		memcpy(a.cookieverf, verf, 8);
		a.count = count;
		k.copy = readdir_copy;
		RUN(c, k, rpc_nfs3_readdir_async(c->rpc, nfsc_call_cb, &a, &k));
	}
	out->calls++;
	if (verf_out)
		memcpy(verf_out, k.verf, 8);
	if (eof)
		*eof = k.eof;
	return k.st;
}

int nfsc_readdir_all(struct nfsc_conn *c, const struct nfsc_fh *dir, bool plus,
		     uint32_t count, struct nfsc_dirlist *out)
{
	char verf[8] = { 0 };
	uint64_t cookie = 0;
	bool eof = false;
	unsigned guard = 0;
	int st;

	do {
		size_t before = out->n;

		st = nfsc_readdir_once(c, dir, plus, cookie, verf, count, out,
				       verf, &eof);
		if (st != NFS3_OK)
			return st;
		if (out->n == before && !eof) {
			fprintf(stderr,
				"readdir: empty reply without eof at cookie %llu\n",
				(unsigned long long)cookie);
			return NFS3ERR_SERVERFAULT;
		}
		if (out->n > before)
			cookie = out->e[out->n - 1].cookie;
	} while (!eof && ++guard < 1000000);
	return st;
}
