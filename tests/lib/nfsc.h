/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shared core of the libnfs raw-API NFSv3 test clients (tests/faults/ftlib,
 * tests/integration/itlib): MOUNT3 MNT for the export root handle, an NFSv3 connection with
 * bounded waits, and synchronous wrappers of the NFSv3 procedures (every reply copied out of
 * libnfs's buffers inside the callback).
 *
 * Every procedure returns the nfsstat3, or -1 when the RPC itself failed (no reply, garbage
 * args, disconnect). After a timeout or transport error the connection is dead: c->err says
 * why and every further call fails with -1. */
#ifndef DC_NFSC_H
#define DC_NFSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

/* Room for handles longer than NFSv3's 64 bytes, so that oversized ones can be sent. */
#define NFSC_FHMAX 128
#define NFSC_TIMEOUT_MS 30000

struct nfsc_fh {
	unsigned len;
	unsigned char data[NFSC_FHMAX];
};

struct nfsc_opts {
	const char *host;
	int nfsport, mntport;
	const char *export;
};

struct nfsc_conn {
	struct rpc_context *rpc;
	struct nfsc_fh root;
	int uid, gid;
	int dead; /* a timeout or transport error happened: no further calls */
	int timeout_ms; /* per call; 0 = NFSC_TIMEOUT_MS */
	char err[256];
};

/* A pending call: nfsc_call_cb records the status and runs copy on a reply, which fills the
 * fields its procedure needs. st is the nfsstat3, or -1 when the RPC failed. */
struct nfsc_call {
	int done;
	int rpc_status;
	int st;
	void (*copy)(struct nfsc_call *k, void *data);
	struct nfsc_fh *fh;
	fattr3 *attr;
	void *buf;
	size_t cap;
	uint32_t count;
	int committed;
	bool eof;
	char verf[8];
	void *user;
};

uint64_t nfsc_now_ms(void);
/* nfsstat3 without its NFS3_/NFS3ERR_ prefix ("OK", "NOENT", ...), -1 as "RPC_ERROR". */
const char *nfsc_st(int st);

/* MNT of o->export (waiting up to mnt_timeout_ms), then an NFSv3 connection; uid >= 0 sends
 * AUTH_SYS uid/gid. Returns -1 with c->err set on failure. */
int nfsc_connect(struct nfsc_conn *c, const struct nfsc_opts *o, int uid,
		 int gid, int mnt_timeout_ms);
void nfsc_disconnect(struct nfsc_conn *c);
/* One poll round (up to ms); returns -1 when the connection failed. */
int nfsc_pump(struct nfsc_conn *c, int ms);
/* Waits until k->done or the connection's timeout; disconnects (failing every pending call)
 * on timeout. Returns 0 when the call got a reply. */
int nfsc_wait(struct nfsc_conn *c, struct nfsc_call *k);
void nfsc_call_cb(struct rpc_context *rpc, int status, void *data, void *priv);

void nfsc_fh_to3(const struct nfsc_fh *fh, nfs_fh3 *out);
void nfsc_fh_from3(struct nfsc_fh *fh, const nfs_fh3 *in);
bool nfsc_fh_eq(const struct nfsc_fh *a, const struct nfsc_fh *b);
char *nfsc_fh_hex(const struct nfsc_fh *fh, char *buf, size_t size);
bool nfsc_fh_parse_hex(struct nfsc_fh *fh, const char *hex);

/* An sattr3 that changes nothing; and one that sets only the mode (none when mode < 0). */
void nfsc_sattr_none(sattr3 *sa);
void nfsc_sattr_mode(sattr3 *sa, int mode);
/* An sattr3 that sets only the size. */
void nfsc_sattr_size(sattr3 *sa, uint64_t size);
/* Gives an NFSv4 context a client name and verifier of its own
 * ("TAG pid:P ctx:N"); call before nfs_mount. */
void nfsc_v4_identity(struct nfs_context *nfs, const char *tag);

/* NULL: 0 when the server answers. */
int nfsc_null(struct nfsc_conn *c);
int nfsc_getattr(struct nfsc_conn *c, const struct nfsc_fh *fh, fattr3 *attr);
int nfsc_setattr(struct nfsc_conn *c, const struct nfsc_fh *fh,
		 const sattr3 *sa);
int nfsc_setattr_guard(struct nfsc_conn *c, const struct nfsc_fh *fh,
		       const sattr3 *sa, const nfstime3 *guard_ctime);
int nfsc_lookup(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name, struct nfsc_fh *out, fattr3 *attr);
int nfsc_access(struct nfsc_conn *c, const struct nfsc_fh *fh, uint32_t want,
		uint32_t *granted);
int nfsc_readlink(struct nfsc_conn *c, const struct nfsc_fh *fh, char *buf,
		  size_t size);
int nfsc_read(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
	      uint32_t count, void *buf, uint32_t *got, bool *eof);
int nfsc_write(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
	       const void *buf, uint32_t len, stable_how stable,
	       uint32_t *count, stable_how *committed, char verf[8]);
int nfsc_create(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name, createmode3 how, int mode, const char verf[8],
		struct nfsc_fh *out, fattr3 *attr);
/* CREATE with the attributes sa (UNCHECKED, GUARDED) or verf (EXCLUSIVE). */
int nfsc_create_sa(struct nfsc_conn *c, const struct nfsc_fh *dir,
		   const char *name, createmode3 how, const sattr3 *sa,
		   const char verf[8], struct nfsc_fh *out, fattr3 *attr);
int nfsc_mkdir(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	       int mode, struct nfsc_fh *out, fattr3 *attr);
int nfsc_symlink(struct nfsc_conn *c, const struct nfsc_fh *dir,
		 const char *name, const char *target, struct nfsc_fh *out,
		 fattr3 *attr);
int nfsc_mknod(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	       ftype3 type, int mode, unsigned major, unsigned minor,
	       struct nfsc_fh *out, fattr3 *attr);
int nfsc_remove(struct nfsc_conn *c, const struct nfsc_fh *dir,
		const char *name);
int nfsc_rmdir(struct nfsc_conn *c, const struct nfsc_fh *dir,
	       const char *name);
int nfsc_rename(struct nfsc_conn *c, const struct nfsc_fh *fdir,
		const char *fname, const struct nfsc_fh *tdir,
		const char *tname);
int nfsc_link(struct nfsc_conn *c, const struct nfsc_fh *fh,
	      const struct nfsc_fh *dir, const char *name, fattr3 *attr);
int nfsc_fsstat(struct nfsc_conn *c, const struct nfsc_fh *fh,
		FSSTAT3resok *out);
int nfsc_fsinfo(struct nfsc_conn *c, const struct nfsc_fh *fh,
		FSINFO3resok *out);
int nfsc_pathconf(struct nfsc_conn *c, const struct nfsc_fh *fh,
		  PATHCONF3resok *out);
int nfsc_commit(struct nfsc_conn *c, const struct nfsc_fh *fh, uint64_t off,
		uint32_t count, char verf[8]);

/* Async WRITE/COMMIT: nfsc_call_cb fills k (count, committed, verf). 0 when queued. */
int nfsc_write_async(struct nfsc_conn *c, struct nfsc_call *k,
		     const struct nfsc_fh *fh, uint64_t off, const void *buf,
		     uint32_t len, stable_how stable);
int nfsc_commit_async(struct nfsc_conn *c, struct nfsc_call *k,
		      const struct nfsc_fh *fh, uint64_t off, uint32_t count);

struct nfsc_dirent {
	char *name;
	uint64_t fileid;
	uint64_t cookie;
	bool has_attr, has_fh;
	fattr3 attr;
	struct nfsc_fh fh;
};
struct nfsc_dirlist {
	struct nfsc_dirent *e;
	size_t n, cap;
	unsigned calls;
};
void nfsc_dirlist_free(struct nfsc_dirlist *l);
/* Lists the whole directory with READDIR (plus=false, count bytes per call) or READDIRPLUS
 * (dircount/maxcount = count, count*4), resuming from the last cookie of each reply with the
 * returned cookie verifier. Returns the last status (NFS3_OK when eof was reached). */
int nfsc_readdir_all(struct nfsc_conn *c, const struct nfsc_fh *dir, bool plus,
		     uint32_t count, struct nfsc_dirlist *out);
/* One READDIR/READDIRPLUS call from (cookie, verf), entries appended to out. */
int nfsc_readdir_once(struct nfsc_conn *c, const struct nfsc_fh *dir, bool plus,
		      uint64_t cookie, const char verf[8], uint32_t count,
		      struct nfsc_dirlist *out, char verf_out[8], bool *eof);

#endif
