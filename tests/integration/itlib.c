/* See itlib.h. */
#include "itlib.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int it_failures, it_checks;

uint64_t it_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void it_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	it_checks++;
	if (!cond)
		it_failures++;
	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void it_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int it_summary(const char *prog)
{
	printf("# %s: %d checks, %d failed\n", prog, it_checks, it_failures);
	fflush(stdout);
	return it_failures ? 1 : 0;
}

const char *it_st(int st)
{
	static char buf[8][48];
	static int i;
	char *b = buf[i++ % 8];

	if (st == -1)
		return "RPC-FAILURE";
	snprintf(b, 48, "%s(%d)", nfsstat3_to_str(st), st);
	return b;
}

bool it_expect_st(int st, const char *what, ...)
{
	va_list ap;
	char want[256] = "";
	size_t n = 0;
	bool match = false;
	int w;

	va_start(ap, what);
	while ((w = va_arg(ap, int)) != IT_END) {
		if (w == st)
			match = true;
		n += snprintf(want + n, sizeof(want) - n, "%s%s", n ? "|" : "", it_st(w));
		if (n >= sizeof(want))
			n = sizeof(want) - 1;
	}
	va_end(ap);
	if (match)
		it_ok(true, "%s: %s", what, it_st(st));
	else
		it_ok(false, "%s: expected %s, got %s", what, want, it_st(st));
	return match;
}

/* ---- options ---- */

int it_parse(int argc, char **argv, struct it_opts *o, const char *extra,
	     void (*cb)(int opt, const char *arg))
{
	char optstr[128];
	int c;

	o->host = "127.0.0.1";
	o->nfsport = 12049;
	o->mntport = 12050;
	o->export = NULL;
	o->verbose = 0;
	snprintf(optstr, sizeof(optstr), "H:p:M:e:v%s", extra ? extra : "");
	while ((c = getopt(argc, argv, optstr)) != -1) {
		switch (c) {
		case 'H': o->host = optarg; break;
		case 'p': o->nfsport = atoi(optarg); break;
		case 'M': o->mntport = atoi(optarg); break;
		case 'e': o->export = optarg; break;
		case 'v': o->verbose++; break;
		case '?':
			fprintf(stderr, "usage: %s -e EXPORT [-H host] [-p nfsport] [-M mntport] ...\n",
				argv[0]);
			exit(2);
		default:
			if (cb)
				cb(c, optarg);
		}
	}
	if (!o->export) {
		fprintf(stderr, "%s: -e EXPORT is required\n", argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return optind;
}

char *it_url(const struct it_opts *o, const char *path, int vers, int uid, int gid)
{
	char *u = NULL;
	char ids[64] = "";
	int r;

	if (uid >= 0)
		snprintf(ids, sizeof(ids), "&uid=%d&gid=%d", uid, gid);
	if (vers == 4)
		r = asprintf(&u, "nfs://%s%s?version=4&nfsport=%d%s", o->host, path, o->nfsport, ids);
	else
		r = asprintf(&u, "nfs://%s%s?version=3&nfsport=%d&mountport=%d%s", o->host, path,
			     o->nfsport, o->mntport, ids);
	if (r < 0)
		abort();
	return u;
}

struct nfs_context *it_hl_mount(const struct it_opts *o, int vers, int uid, int gid)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char *u = it_url(o, o->export, vers, uid, gid);

	if (!nfs)
		abort();
	nfs_set_timeout(nfs, IT_TIMEOUT_MS);
	nfs_set_dircache(nfs, 0);
	nfs_set_autoreconnect(nfs, 0);
	url = nfs_parse_url_dir(nfs, u);
	if (!url) {
		fprintf(stderr, "bad url %s: %s\n", u, nfs_get_error(nfs));
		free(u);
		nfs_destroy_context(nfs);
		return NULL;
	}
	if (nfs_mount(nfs, url->server, url->path) != 0) {
		fprintf(stderr, "mount %s failed: %s\n", u, nfs_get_error(nfs));
		nfs_destroy_url(url);
		free(u);
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_destroy_url(url);
	free(u);
	return nfs;
}

/* ---- handles ---- */

void it_fh_to3(const struct it_fh *fh, nfs_fh3 *out)
{
	out->data.data_len = fh->len;
	out->data.data_val = (char *)fh->data;
}

void it_fh_from3(struct it_fh *fh, const nfs_fh3 *in)
{
	fh->len = in->data.data_len > IT_FHMAX ? IT_FHMAX : in->data.data_len;
	memcpy(fh->data, in->data.data_val, fh->len);
}

bool it_fh_eq(const struct it_fh *a, const struct it_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

char *it_fh_hex(const struct it_fh *fh, char *buf, size_t size)
{
	size_t i;

	buf[0] = 0;
	for (i = 0; i < fh->len && 2 * i + 2 < size; i++)
		sprintf(buf + 2 * i, "%02x", fh->data[i]);
	return buf;
}

bool it_fh_parse_hex(struct it_fh *fh, const char *hex)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 > IT_FHMAX)
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

/* ---- calls ---- */

struct call {
	int done;
	int rpc_status;
	int st;
	void (*copy)(struct call *k, void *data);
	struct it_fh *fh;
	fattr3 *attr;
	void *out;       /* procedure specific */
	size_t outsz;
	uint32_t u32a, u32b;
	bool flag;
	char verf[8];
	struct it_dirlist *dl;
};

static void call_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct call *k = priv;

	(void)rpc;
	k->rpc_status = status;
	if (status == RPC_STATUS_SUCCESS && data) {
		k->st = *(int *)data; /* every NFSv3 result starts with nfsstat3 */
		if (k->copy)
			k->copy(k, data);
	} else {
		k->st = -1;
	}
	k->done = 1;
}

static int wait_call(struct it_conn *c, struct call *k)
{
	uint64_t deadline = it_now_ms() + IT_TIMEOUT_MS;

	while (!k->done) {
		struct pollfd p = { .fd = rpc_get_fd(c->rpc), .events = rpc_which_events(c->rpc) };
		int r = poll(&p, 1, 100);

		if (r < 0 && errno != EINTR) {
			snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
			break;
		}
		if (rpc_service(c->rpc, r > 0 ? p.revents : 0) < 0) {
			snprintf(c->err, sizeof(c->err), "rpc_service: %s", rpc_get_error(c->rpc));
			break;
		}
		if (!k->done && it_now_ms() > deadline) {
			snprintf(c->err, sizeof(c->err), "no reply within %d ms", IT_TIMEOUT_MS);
			break;
		}
	}
	if (!k->done) {
		/* Fails every outstanding call (so their callbacks run now, while k is alive). */
		c->dead = 1;
		rpc_disconnect(c->rpc, c->err);
		if (!k->done) {
			fprintf(stderr, "itlib: callback never ran after disconnect\n");
			abort();
		}
		return -1;
	}
	if (k->rpc_status != RPC_STATUS_SUCCESS) {
		snprintf(c->err, sizeof(c->err), "rpc status %d: %s", k->rpc_status,
			 rpc_get_error(c->rpc));
		return -1;
	}
	return 0;
}

/* Issues the call started by the expression START (which uses k) and waits. */
#define RUN(c, k, START)                                                      \
	do {                                                                  \
		if ((c)->dead) {                                              \
			(k).st = -1;                                          \
			break;                                                \
		}                                                             \
		if ((START) != 0) {                                           \
			snprintf((c)->err, sizeof((c)->err), "could not queue: %s", \
				 rpc_get_error((c)->rpc));                    \
			(k).st = -1;                                          \
			break;                                                \
		}                                                             \
		if (wait_call((c), &(k)) != 0)                                \
			(k).st = -1;                                          \
	} while (0)

static void conn_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct call *k = priv;

	(void)rpc;
	(void)data;
	k->rpc_status = status;
	k->st = status == RPC_STATUS_SUCCESS ? 0 : -1;
	k->done = 1;
}

static void mnt_copy(struct call *k, void *data)
{
	mountres3 *r = data;

	if (r->fhs_status == MNT3_OK) {
		k->fh->len = r->mountres3_u.mountinfo.fhandle.fhandle3_len;
		if (k->fh->len > IT_FHMAX)
			k->fh->len = IT_FHMAX;
		memcpy(k->fh->data, r->mountres3_u.mountinfo.fhandle.fhandle3_val, k->fh->len);
	}
}

int it_connect(struct it_conn *c, const struct it_opts *o, int uid, int gid)
{
	struct it_conn m = { 0 };
	struct call k = { 0 };

	memset(c, 0, sizeof(*c));
	c->uid = uid;
	c->gid = gid;

	/* MOUNT3 MNT for the root handle, on its own connection. */
	m.rpc = rpc_init_context();
	if (!m.rpc)
		return -1;
	if (uid >= 0) {
		rpc_set_uid(m.rpc, uid);
		rpc_set_gid(m.rpc, gid);
	}
	RUN(&m, k, rpc_connect_port_async(m.rpc, o->host, o->mntport, MOUNT_PROGRAM, MOUNT_V3,
					  conn_cb, &k));
	if (k.st != 0) {
		fprintf(stderr, "connect to mountd %s:%d failed: %s\n", o->host, o->mntport, m.err);
		rpc_destroy_context(m.rpc);
		return -1;
	}
	memset(&k, 0, sizeof(k));
	k.copy = mnt_copy;
	k.fh = &c->root;
	RUN(&m, k, rpc_mount3_mnt_async(m.rpc, call_cb, (char *)o->export, &k));
	rpc_destroy_context(m.rpc);
	if (k.st != 0) {
		fprintf(stderr, "MNT %s failed: status %d %s\n", o->export, k.st, m.err);
		return -1;
	}

	c->rpc = rpc_init_context();
	if (!c->rpc)
		return -1;
	if (uid >= 0) {
		rpc_set_uid(c->rpc, uid);
		rpc_set_gid(c->rpc, gid);
	}
	memset(&k, 0, sizeof(k));
	RUN(c, k, rpc_connect_port_async(c->rpc, o->host, o->nfsport, NFS_PROGRAM, NFS_V3,
					 conn_cb, &k));
	if (k.st != 0) {
		fprintf(stderr, "connect to nfsd %s:%d failed: %s\n", o->host, o->nfsport, c->err);
		rpc_destroy_context(c->rpc);
		c->rpc = NULL;
		return -1;
	}
	return 0;
}

void it_disconnect(struct it_conn *c)
{
	if (c->rpc)
		rpc_destroy_context(c->rpc);
	c->rpc = NULL;
}

int it_null(struct it_conn *c)
{
	struct call k = { 0 };

	/* NULL has no result body: conn_cb only records the RPC status. */
	RUN(c, k, rpc_nfs3_null_async(c->rpc, conn_cb, &k));
	return k.st == -1 ? -1 : 0;
}

bool it_ping(struct it_conn *c)
{
	return it_null(c) == 0;
}

static void copy_post_attr(struct call *k, const post_op_attr *pa)
{
	if (k->attr) {
		if (pa->attributes_follow)
			*k->attr = pa->post_op_attr_u.attributes;
		else
			memset(k->attr, 0, sizeof(*k->attr));
	}
}

static void getattr_copy(struct call *k, void *data)
{
	GETATTR3res *r = data;

	if (r->status == NFS3_OK && k->attr)
		*k->attr = r->GETATTR3res_u.resok.obj_attributes;
}

int it_getattr(struct it_conn *c, const struct it_fh *fh, fattr3 *attr)
{
	struct call k = { .copy = getattr_copy, .attr = attr };
	GETATTR3args a;

	it_fh_to3(fh, &a.object);
	RUN(c, k, rpc_nfs3_getattr_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void lookup_copy(struct call *k, void *data)
{
	LOOKUP3res *r = data;

	if (r->status != NFS3_OK)
		return;
	if (k->fh)
		it_fh_from3(k->fh, &r->LOOKUP3res_u.resok.object);
	copy_post_attr(k, &r->LOOKUP3res_u.resok.obj_attributes);
}

int it_lookup(struct it_conn *c, const struct it_fh *dir, const char *name, struct it_fh *out,
	      fattr3 *attr)
{
	struct call k = { .copy = lookup_copy, .fh = out, .attr = attr };
	LOOKUP3args a;

	if (out)
		out->len = 0;
	it_fh_to3(dir, &a.what.dir);
	a.what.name = (char *)name;
	RUN(c, k, rpc_nfs3_lookup_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void access_copy(struct call *k, void *data)
{
	ACCESS3res *r = data;

	if (r->status == NFS3_OK)
		k->u32a = r->ACCESS3res_u.resok.access;
}

int it_access(struct it_conn *c, const struct it_fh *fh, uint32_t want, uint32_t *granted)
{
	struct call k = { .copy = access_copy };
	ACCESS3args a;

	it_fh_to3(fh, &a.object);
	a.access = want;
	RUN(c, k, rpc_nfs3_access_async(c->rpc, call_cb, &a, &k));
	if (granted)
		*granted = k.u32a;
	return k.st;
}

void it_sattr_none(sattr3 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->atime.set_it = DONT_CHANGE;
	sa->mtime.set_it = DONT_CHANGE;
}

int it_setattr(struct it_conn *c, const struct it_fh *fh, const sattr3 *sa)
{
	return it_setattr_guard(c, fh, sa, NULL);
}

int it_setattr_guard(struct it_conn *c, const struct it_fh *fh, const sattr3 *sa,
		     const nfstime3 *guard_ctime)
{
	struct call k = { 0 };
	SETATTR3args a;

	memset(&a, 0, sizeof(a));
	it_fh_to3(fh, &a.object);
	a.new_attributes = *sa;
	if (guard_ctime) {
		a.guard.check = 1;
		a.guard.sattrguard3_u.obj_ctime = *guard_ctime;
	}
	RUN(c, k, rpc_nfs3_setattr_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

/* CREATE, MKDIR, SYMLINK and MKNOD results share the resok layout. */
static void newobj_copy(struct call *k, const post_op_fh3 *pfh, const post_op_attr *pa)
{
	if (k->fh) {
		if (pfh->handle_follows)
			it_fh_from3(k->fh, &pfh->post_op_fh3_u.handle);
		else
			k->fh->len = 0;
	}
	copy_post_attr(k, pa);
}

static void create_copy(struct call *k, void *data)
{
	CREATE3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->CREATE3res_u.resok.obj, &r->CREATE3res_u.resok.obj_attributes);
}

static void mkdir_copy(struct call *k, void *data)
{
	MKDIR3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->MKDIR3res_u.resok.obj, &r->MKDIR3res_u.resok.obj_attributes);
}

static void symlink_copy(struct call *k, void *data)
{
	SYMLINK3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->SYMLINK3res_u.resok.obj,
			    &r->SYMLINK3res_u.resok.obj_attributes);
}

static void mknod_copy(struct call *k, void *data)
{
	MKNOD3res *r = data;

	if (r->status == NFS3_OK)
		newobj_copy(k, &r->MKNOD3res_u.resok.obj, &r->MKNOD3res_u.resok.obj_attributes);
}

static void sattr_mode(sattr3 *sa, int mode)
{
	it_sattr_none(sa);
	if (mode >= 0) {
		sa->mode.set_it = 1;
		sa->mode.set_mode3_u.mode = mode;
	}
}

int it_create(struct it_conn *c, const struct it_fh *dir, const char *name, createmode3 how,
	      int mode, const char verf[8], struct it_fh *out, fattr3 *attr)
{
	struct call k = { .copy = create_copy, .fh = out, .attr = attr };
	CREATE3args a;

	if (out)
		out->len = 0;
	memset(&a, 0, sizeof(a));
	it_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	a.how.mode = how;
	if (how == EXCLUSIVE)
		memcpy(a.how.createhow3_u.verf, verf, 8);
	else
		sattr_mode(&a.how.createhow3_u.obj_attributes, mode);
	RUN(c, k, rpc_nfs3_create_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_mkdir(struct it_conn *c, const struct it_fh *dir, const char *name, int mode,
	     struct it_fh *out, fattr3 *attr)
{
	struct call k = { .copy = mkdir_copy, .fh = out, .attr = attr };
	MKDIR3args a;

	if (out)
		out->len = 0;
	memset(&a, 0, sizeof(a));
	it_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	sattr_mode(&a.attributes, mode);
	RUN(c, k, rpc_nfs3_mkdir_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_symlink(struct it_conn *c, const struct it_fh *dir, const char *name, const char *target,
	       struct it_fh *out, fattr3 *attr)
{
	struct call k = { .copy = symlink_copy, .fh = out, .attr = attr };
	SYMLINK3args a;

	if (out)
		out->len = 0;
	memset(&a, 0, sizeof(a));
	it_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	sattr_mode(&a.symlink.symlink_attributes, -1);
	a.symlink.symlink_data = (char *)target;
	RUN(c, k, rpc_nfs3_symlink_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_mknod(struct it_conn *c, const struct it_fh *dir, const char *name, ftype3 type, int mode,
	     unsigned major, unsigned minor, struct it_fh *out, fattr3 *attr)
{
	struct call k = { .copy = mknod_copy, .fh = out, .attr = attr };
	MKNOD3args a;

	if (out)
		out->len = 0;
	memset(&a, 0, sizeof(a));
	it_fh_to3(dir, &a.where.dir);
	a.where.name = (char *)name;
	a.what.type = type;
	switch (type) {
	case NF3CHR:
		sattr_mode(&a.what.mknoddata3_u.chr_device.dev_attributes, mode);
		a.what.mknoddata3_u.chr_device.spec.specdata1 = major;
		a.what.mknoddata3_u.chr_device.spec.specdata2 = minor;
		break;
	case NF3BLK:
		sattr_mode(&a.what.mknoddata3_u.blk_device.dev_attributes, mode);
		a.what.mknoddata3_u.blk_device.spec.specdata1 = major;
		a.what.mknoddata3_u.blk_device.spec.specdata2 = minor;
		break;
	case NF3SOCK:
		sattr_mode(&a.what.mknoddata3_u.sock_attributes, mode);
		break;
	case NF3FIFO:
		sattr_mode(&a.what.mknoddata3_u.pipe_attributes, mode);
		break;
	default:
		break;
	}
	RUN(c, k, rpc_nfs3_mknod_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void readlink_copy(struct call *k, void *data)
{
	READLINK3res *r = data;

	if (r->status == NFS3_OK && k->out && k->outsz) {
		snprintf(k->out, k->outsz, "%s", r->READLINK3res_u.resok.data);
	}
}

int it_readlink(struct it_conn *c, const struct it_fh *fh, char *buf, size_t size)
{
	struct call k = { .copy = readlink_copy, .out = buf, .outsz = size };
	READLINK3args a;

	if (size)
		buf[0] = 0;
	it_fh_to3(fh, &a.symlink);
	RUN(c, k, rpc_nfs3_readlink_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_remove(struct it_conn *c, const struct it_fh *dir, const char *name)
{
	struct call k = { 0 };
	REMOVE3args a;

	it_fh_to3(dir, &a.object.dir);
	a.object.name = (char *)name;
	RUN(c, k, rpc_nfs3_remove_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_rmdir(struct it_conn *c, const struct it_fh *dir, const char *name)
{
	struct call k = { 0 };
	RMDIR3args a;

	it_fh_to3(dir, &a.object.dir);
	a.object.name = (char *)name;
	RUN(c, k, rpc_nfs3_rmdir_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

int it_rename(struct it_conn *c, const struct it_fh *fdir, const char *fname,
	      const struct it_fh *tdir, const char *tname)
{
	struct call k = { 0 };
	RENAME3args a;

	it_fh_to3(fdir, &a.from.dir);
	a.from.name = (char *)fname;
	it_fh_to3(tdir, &a.to.dir);
	a.to.name = (char *)tname;
	RUN(c, k, rpc_nfs3_rename_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void link_copy(struct call *k, void *data)
{
	LINK3res *r = data;

	if (r->status == NFS3_OK)
		copy_post_attr(k, &r->LINK3res_u.resok.file_attributes);
}

int it_link(struct it_conn *c, const struct it_fh *fh, const struct it_fh *dir, const char *name,
	    fattr3 *attr)
{
	struct call k = { .copy = link_copy, .attr = attr };
	LINK3args a;

	it_fh_to3(fh, &a.file);
	it_fh_to3(dir, &a.link.dir);
	a.link.name = (char *)name;
	RUN(c, k, rpc_nfs3_link_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void read_copy(struct call *k, void *data)
{
	READ3res *r = data;

	if (r->status != NFS3_OK)
		return;
	k->u32a = r->READ3res_u.resok.data.data_len;
	if (k->u32a > k->outsz)
		k->u32a = k->outsz;
	memcpy(k->out, r->READ3res_u.resok.data.data_val, k->u32a);
	k->u32b = r->READ3res_u.resok.count;
	k->flag = r->READ3res_u.resok.eof;
}

int it_read(struct it_conn *c, const struct it_fh *fh, uint64_t off, uint32_t count, void *buf,
	    uint32_t *got, bool *eof)
{
	struct call k = { .copy = read_copy, .out = buf, .outsz = count };
	READ3args a;

	it_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = count;
	RUN(c, k, rpc_nfs3_read_async(c->rpc, call_cb, &a, &k));
	if (got)
		*got = k.u32a;
	if (eof)
		*eof = k.flag;
	return k.st;
}

static void write_copy(struct call *k, void *data)
{
	WRITE3res *r = data;

	if (r->status != NFS3_OK)
		return;
	k->u32a = r->WRITE3res_u.resok.count;
	k->u32b = r->WRITE3res_u.resok.committed;
	memcpy(k->verf, r->WRITE3res_u.resok.verf, 8);
}

int it_write(struct it_conn *c, const struct it_fh *fh, uint64_t off, const void *buf,
	     uint32_t len, stable_how stable, uint32_t *count, stable_how *committed,
	     char verf[8])
{
	struct call k = { .copy = write_copy };
	WRITE3args a;

	it_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = len;
	a.stable = stable;
	a.data.data_len = len;
	a.data.data_val = (char *)buf;
	RUN(c, k, rpc_nfs3_write_async(c->rpc, call_cb, &a, &k));
	if (count)
		*count = k.u32a;
	if (committed)
		*committed = k.u32b;
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

static void commit_copy(struct call *k, void *data)
{
	COMMIT3res *r = data;

	if (r->status == NFS3_OK)
		memcpy(k->verf, r->COMMIT3res_u.resok.verf, 8);
}

int it_commit(struct it_conn *c, const struct it_fh *fh, uint64_t off, uint32_t count,
	      char verf[8])
{
	struct call k = { .copy = commit_copy };
	COMMIT3args a;

	it_fh_to3(fh, &a.file);
	a.offset = off;
	a.count = count;
	RUN(c, k, rpc_nfs3_commit_async(c->rpc, call_cb, &a, &k));
	if (verf)
		memcpy(verf, k.verf, 8);
	return k.st;
}

static void fsstat_copy(struct call *k, void *data)
{
	FSSTAT3res *r = data;

	if (r->status == NFS3_OK && k->out)
		*(FSSTAT3resok *)k->out = r->FSSTAT3res_u.resok;
}

int it_fsstat(struct it_conn *c, const struct it_fh *fh, FSSTAT3resok *out)
{
	struct call k = { .copy = fsstat_copy, .out = out };
	FSSTAT3args a;

	it_fh_to3(fh, &a.fsroot);
	RUN(c, k, rpc_nfs3_fsstat_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void fsinfo_copy(struct call *k, void *data)
{
	FSINFO3res *r = data;

	if (r->status == NFS3_OK && k->out)
		*(FSINFO3resok *)k->out = r->FSINFO3res_u.resok;
}

int it_fsinfo(struct it_conn *c, const struct it_fh *fh, FSINFO3resok *out)
{
	struct call k = { .copy = fsinfo_copy, .out = out };
	FSINFO3args a;

	it_fh_to3(fh, &a.fsroot);
	RUN(c, k, rpc_nfs3_fsinfo_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

static void pathconf_copy(struct call *k, void *data)
{
	PATHCONF3res *r = data;

	if (r->status == NFS3_OK && k->out)
		*(PATHCONF3resok *)k->out = r->PATHCONF3res_u.resok;
}

int it_pathconf(struct it_conn *c, const struct it_fh *fh, PATHCONF3resok *out)
{
	struct call k = { .copy = pathconf_copy, .out = out };
	PATHCONF3args a;

	it_fh_to3(fh, &a.object);
	RUN(c, k, rpc_nfs3_pathconf_async(c->rpc, call_cb, &a, &k));
	return k.st;
}

/* ---- readdir ---- */

void it_dirlist_free(struct it_dirlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static struct it_dirent *dl_add(struct it_dirlist *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		if (!l->e)
			abort();
	}
	memset(&l->e[l->n], 0, sizeof(l->e[0]));
	return &l->e[l->n++];
}

static void readdir_copy(struct call *k, void *data)
{
	READDIR3res *r = data;
	entry3 *e;

	if (r->status != NFS3_OK)
		return;
	memcpy(k->verf, r->READDIR3res_u.resok.cookieverf, 8);
	k->flag = r->READDIR3res_u.resok.reply.eof;
	for (e = r->READDIR3res_u.resok.reply.entries; e; e = e->nextentry) {
		struct it_dirent *d = dl_add(k->dl);

		d->name = strdup(e->name);
		d->fileid = e->fileid;
		d->cookie = e->cookie;
	}
}

static void readdirplus_copy(struct call *k, void *data)
{
	READDIRPLUS3res *r = data;
	entryplus3 *e;

	if (r->status != NFS3_OK)
		return;
	memcpy(k->verf, r->READDIRPLUS3res_u.resok.cookieverf, 8);
	k->flag = r->READDIRPLUS3res_u.resok.reply.eof;
	for (e = r->READDIRPLUS3res_u.resok.reply.entries; e; e = e->nextentry) {
		struct it_dirent *d = dl_add(k->dl);

		d->name = strdup(e->name);
		d->fileid = e->fileid;
		d->cookie = e->cookie;
		if (e->name_attributes.attributes_follow) {
			d->has_attr = true;
			d->attr = e->name_attributes.post_op_attr_u.attributes;
		}
		if (e->name_handle.handle_follows) {
			d->has_fh = true;
			it_fh_from3(&d->fh, &e->name_handle.post_op_fh3_u.handle);
		}
	}
}

int it_readdir_once(struct it_conn *c, const struct it_fh *dir, bool plus, uint64_t cookie,
		    const char verf[8], uint32_t count, struct it_dirlist *out, char verf_out[8],
		    bool *eof)
{
	struct call k = { .dl = out };

	if (plus) {
		READDIRPLUS3args a;

		memset(&a, 0, sizeof(a));
		it_fh_to3(dir, &a.dir);
		a.cookie = cookie;
		memcpy(a.cookieverf, verf, 8);
		a.dircount = count;
		a.maxcount = count * 4;
		k.copy = readdirplus_copy;
		RUN(c, k, rpc_nfs3_readdirplus_async(c->rpc, call_cb, &a, &k));
	} else {
		READDIR3args a;

		memset(&a, 0, sizeof(a));
		it_fh_to3(dir, &a.dir);
		a.cookie = cookie;
		memcpy(a.cookieverf, verf, 8);
		a.count = count;
		k.copy = readdir_copy;
		RUN(c, k, rpc_nfs3_readdir_async(c->rpc, call_cb, &a, &k));
	}
	out->calls++;
	if (verf_out)
		memcpy(verf_out, k.verf, 8);
	if (eof)
		*eof = k.flag;
	return k.st;
}

int it_readdir_all(struct it_conn *c, const struct it_fh *dir, bool plus, uint32_t count,
		   struct it_dirlist *out)
{
	char verf[8] = { 0 };
	uint64_t cookie = 0;
	bool eof = false;
	unsigned guard = 0;
	int st;

	do {
		size_t before = out->n;

		st = it_readdir_once(c, dir, plus, cookie, verf, count, out, verf, &eof);
		if (st != NFS3_OK)
			return st;
		if (out->n == before && !eof) {
			fprintf(stderr, "readdir: empty reply without eof at cookie %llu\n",
				(unsigned long long)cookie);
			return NFS3ERR_SERVERFAULT;
		}
		if (out->n > before)
			cookie = out->e[out->n - 1].cookie;
	} while (!eof && ++guard < 1000000);
	return st;
}
