/* Shared helpers of the integration test programs: synchronous wrappers over libnfs's raw
 * NFSv3 API (every reply copied out of libnfs's buffers inside the callback), MOUNT3 to get the
 * export root handle, bounded waits, and TAP-like reporting.
 *
 * Every program takes the common options
 *   -H host (127.0.0.1)  -p nfs port (12049)  -M mount port (12050)  -e export path (required)
 * and prints one "ok - ..." / "not ok - ..." line per check, a summary, and exits
 * 0 (all passed), 1 (a check failed), 2 (usage / could not connect) or 77 (skipped). */
#ifndef DC_ITLIB_H
#define DC_ITLIB_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#define IT_FHMAX 128
#define IT_TIMEOUT_MS 30000

struct it_fh {
	unsigned len;
	unsigned char data[IT_FHMAX];
};

struct it_opts {
	const char *host;
	int nfsport;
	int mntport;
	const char *export;
	int verbose;
};

struct it_conn {
	struct rpc_context *rpc;
	struct it_fh root;
	int uid, gid;
	int dead;         /* a timeout or transport error happened: no further calls */
	char err[256];
};

/* ---- reporting ---- */
extern int it_failures, it_checks;
void it_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void it_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int it_summary(const char *prog); /* prints summary, returns exit status */
const char *it_st(int st);        /* nfsstat3 (or -1 = RPC failure) as a string */
/* Check that st is one of the listed statuses (terminated by -100). */
bool it_expect_st(int st, const char *what, ...);
#define IT_END (-100)

/* ---- options ---- */
/* Parses the common options; returns optind. extra is a getopt string of the program's own
 * options, handled by cb (may be NULL). */
int it_parse(int argc, char **argv, struct it_opts *o, const char *extra,
	     void (*cb)(int opt, const char *arg));
char *it_url(const struct it_opts *o, const char *path, int vers, int uid, int gid);

/* ---- raw connection ---- */
int it_connect(struct it_conn *c, const struct it_opts *o, int uid, int gid);
void it_disconnect(struct it_conn *c);
/* NULL procedure: true if the server answers. */
bool it_ping(struct it_conn *c);

void it_fh_to3(const struct it_fh *fh, nfs_fh3 *out);
void it_fh_from3(struct it_fh *fh, const nfs_fh3 *in);
bool it_fh_eq(const struct it_fh *a, const struct it_fh *b);
char *it_fh_hex(const struct it_fh *fh, char *buf, size_t size);
bool it_fh_parse_hex(struct it_fh *fh, const char *hex);

/* All return the nfsstat3, or -1 if the RPC itself failed (no reply, garbage args, ...). */
int it_null(struct it_conn *c);
int it_getattr(struct it_conn *c, const struct it_fh *fh, fattr3 *attr);
int it_lookup(struct it_conn *c, const struct it_fh *dir, const char *name,
	      struct it_fh *out, fattr3 *attr);
int it_access(struct it_conn *c, const struct it_fh *fh, uint32_t want, uint32_t *granted);
int it_setattr(struct it_conn *c, const struct it_fh *fh, const sattr3 *sa);
int it_setattr_guard(struct it_conn *c, const struct it_fh *fh, const sattr3 *sa,
		     const nfstime3 *guard_ctime);
int it_create(struct it_conn *c, const struct it_fh *dir, const char *name, createmode3 how,
	      int mode, const char verf[8], struct it_fh *out, fattr3 *attr);
int it_mkdir(struct it_conn *c, const struct it_fh *dir, const char *name, int mode,
	     struct it_fh *out, fattr3 *attr);
int it_symlink(struct it_conn *c, const struct it_fh *dir, const char *name, const char *target,
	       struct it_fh *out, fattr3 *attr);
int it_mknod(struct it_conn *c, const struct it_fh *dir, const char *name, ftype3 type, int mode,
	     unsigned major, unsigned minor, struct it_fh *out, fattr3 *attr);
int it_readlink(struct it_conn *c, const struct it_fh *fh, char *buf, size_t size);
int it_remove(struct it_conn *c, const struct it_fh *dir, const char *name);
int it_rmdir(struct it_conn *c, const struct it_fh *dir, const char *name);
int it_rename(struct it_conn *c, const struct it_fh *fdir, const char *fname,
	      const struct it_fh *tdir, const char *tname);
int it_link(struct it_conn *c, const struct it_fh *fh, const struct it_fh *dir, const char *name,
	    fattr3 *attr);
int it_read(struct it_conn *c, const struct it_fh *fh, uint64_t off, uint32_t count, void *buf,
	    uint32_t *got, bool *eof);
int it_write(struct it_conn *c, const struct it_fh *fh, uint64_t off, const void *buf,
	     uint32_t len, stable_how stable, uint32_t *count, stable_how *committed,
	     char verf[8]);
int it_commit(struct it_conn *c, const struct it_fh *fh, uint64_t off, uint32_t count,
	      char verf[8]);
int it_fsstat(struct it_conn *c, const struct it_fh *fh, FSSTAT3resok *out);
int it_fsinfo(struct it_conn *c, const struct it_fh *fh, FSINFO3resok *out);
int it_pathconf(struct it_conn *c, const struct it_fh *fh, PATHCONF3resok *out);

struct it_dirent {
	char *name;
	uint64_t fileid;
	uint64_t cookie;
	bool has_attr, has_fh;
	fattr3 attr;
	struct it_fh fh;
};
struct it_dirlist {
	struct it_dirent *e;
	size_t n, cap;
	unsigned calls;
};
void it_dirlist_free(struct it_dirlist *l);
/* Lists the whole directory with READDIR (plus=false, count bytes per call) or READDIRPLUS
 * (dircount/maxcount = count, count*4), resuming from the last cookie of each reply with the
 * returned cookie verifier. Returns the last status (NFS3_OK when eof was reached). */
int it_readdir_all(struct it_conn *c, const struct it_fh *dir, bool plus, uint32_t count,
		   struct it_dirlist *out);
/* One READDIR/READDIRPLUS call from (cookie, verf). */
int it_readdir_once(struct it_conn *c, const struct it_fh *dir, bool plus, uint64_t cookie,
		    const char verf[8], uint32_t count, struct it_dirlist *out, char verf_out[8],
		    bool *eof);

/* Makes an sattr3 that changes nothing. */
void it_sattr_none(sattr3 *sa);

/* Bounded event loop for the high-level API's async calls is not needed: the sync high-level
 * calls are used with nfs_set_timeout(). */
struct nfs_context *it_hl_mount(const struct it_opts *o, int vers, int uid, int gid);

uint64_t it_now_ms(void);

#endif
