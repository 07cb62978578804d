/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* nfs4c: a small NFSv4.1/4.2 client for the test programs (libnfs 4.0 has no
 * NFSv4.2 operations and no raw NFSv4 COMPOUNDs): COMPOUNDs are encoded and
 * decoded with ganesha's own XDR routines (nfsv41.h, static inline there) and
 * sent with rpcc (TCP, record marking, AUTH_SYS with a chosen uid/gid).
 *
 * One session (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE), one slot, one
 * call at a time. Every operation below returns the COMPOUND status (an
 * nfsstat4) or -1 when the RPC itself failed (the connection is dead then,
 * c->r.err says why). Building a COMPOUND of one's own:
 *	struct nfs4c_cpd p;
 *	nfs_argop4 *o = nfs4c_fop(c, &p, f, NFS4_OP_...);  SEQUENCE, PUTFH, op
 *	... fill o->nfs_argop4_u ...
 *	st = nfs4c_run(c, &p);  ... nfs4c_res(&p, 2) is the op's result ...
 *	nfs4c_done(&p);
 */
#ifndef NFS4C_H
#define NFS4C_H

#include "config.h"
#include "nfsv41.h"
#include "rpcc.h"

#define NFS4C_BUFSZ (4u << 20)
#define NFS4C_MAXOPS 8

struct nfs4c {
	struct rpcc r; /* r.uid/r.gid: the caller of the next COMPOUND */
	uint32_t minor;
	clientid4 clid;
	sessionid4 sid;
	uint32_t seq;
};

struct nfs4c_file {
	nfs_fh4 fh;
	char fhbuf[NFS4_FHSIZE];
	stateid4 sid; /* open stateid (or all zeros: anonymous) */
};

struct nfs4c_cpd {
	COMPOUND4args a;
	nfs_argop4 ops[NFS4C_MAXOPS];
	COMPOUND4res r;
	int st;
};

/* What a WRITE answered besides its status. */
struct nfs4c_wres {
	count4 count;
	stable_how4 committed;
	verifier4 verf;
};

/* The server options every nfs4c program takes: -H host (127.0.0.1), -p port
 * (12049), -e export path (no default). */
struct nfs4c_opts {
	const char *host;
	int port;
	const char *export;
};
#define NFS4C_COMMON_OPTS "H:p:e:"
#define NFS4C_OPTS_DEFAULT               \
	{                                \
		"127.0.0.1", 12049, NULL \
	}
/* Takes one of those from a getopt loop; false for any other option. */
bool nfs4c_common_opt(struct nfs4c_opts *o, int opt, const char *arg);

/* "NFS4ERR_IO", "RPC-FAILURE" (-1), ... ("status N" in a static buffer for
 * the rare ones). */
const char *nfs4c_st(int st);

/* TCP connection to host:port as uid 0, and a session of minor version minor
 * (1 or 2); name makes the client owner unique. Returns 0, or -1 with the
 * reason on stderr. */
int nfs4c_connect(struct nfs4c *c, const char *host, int port, uint32_t minor,
		  const char *name);
/* The same with a client owner of the caller's (its first 8 bytes are the
 * verifier): connecting again with one owner is one client to the server,
 * whose state it may reclaim after the server restarted. RECLAIM_COMPLETE is
 * sent only if reclaim_complete (else the caller reclaims first). */
int nfs4c_connect_owner(struct nfs4c *c, const char *host, int port,
			uint32_t minor, const char *owner,
			bool reclaim_complete);
void nfs4c_close(struct nfs4c *c);
/* RECLAIM_COMPLETE (rca_one_fs false). */
int nfs4c_reclaim_complete(struct nfs4c *c);
/* A lone SEQUENCE: renews the lease. */
int nfs4c_renew(struct nfs4c *c);

/* COMPOUND building (see the top of this file). */
void nfs4c_init(struct nfs4c *c, struct nfs4c_cpd *p);
nfs_argop4 *nfs4c_add(struct nfs4c_cpd *p, nfs_opnum4 op);
void nfs4c_add_sequence(struct nfs4c *c, struct nfs4c_cpd *p);
void nfs4c_add_putfh(struct nfs4c_cpd *p, nfs_fh4 *fh);
/* init, SEQUENCE, PUTFH of f, then op (whose arguments are the caller's). */
nfs_argop4 *nfs4c_fop(struct nfs4c *c, struct nfs4c_cpd *p,
		      struct nfs4c_file *f, nfs_opnum4 op);
int nfs4c_run(struct nfs4c *c, struct nfs4c_cpd *p);
/* The result of op i (NULL if the server stopped before it). */
nfs_resop4 *nfs4c_res(struct nfs4c_cpd *p, unsigned int i);
void nfs4c_done(struct nfs4c_cpd *p);
/* Points cmp at s (not copied). */
void nfs4c_component(component4 *cmp, const char *s);

/* The handle of a directory: PUTROOTFH, LOOKUP of each '/' component. */
int nfs4c_lookup_dir(struct nfs4c *c, const char *path, struct nfs4c_file *d);
/* OPEN (created UNCHECKED, mode 0644, if create) with share access (an
 * OPEN4_SHARE_ACCESS_*), then GETFH. */
int nfs4c_open(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
	       bool create, uint32_t access, struct nfs4c_file *f);
/* The same with a share deny (an OPEN4_SHARE_DENY_*); access may carry
 * NFSv4.1 want flags (OPEN4_SHARE_ACCESS_WANT_NO_DELEG). */
int nfs4c_open_deny(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		    bool create, uint32_t access, uint32_t deny,
		    struct nfs4c_file *f);
/* OPEN CREATE UNCHECKED4 with attrs as its createattrs (a size 0 there
 * truncates an existing file), or OPEN NOCREATE when attrs is NULL; the open
 * owner is "owner-<uid>" (a second OPEN of a file it holds open is an open
 * upgrade). */
int nfs4c_open_attrs(struct nfs4c *c, struct nfs4c_file *dir, const char *name,
		     const fattr4 *attrs, uint32_t access, uint32_t deny,
		     struct nfs4c_file *f);
/* OPEN CLAIM_PREVIOUS of the file f (its handle) after a server restart,
 * share deny none, no delegation; f->sid gets the new open stateid. */
int nfs4c_open_reclaim(struct nfs4c *c, struct nfs4c_file *f, uint32_t access);
/* CLOSE of the open f->sid names (zeroed when it closed). */
int nfs4c_close_file(struct nfs4c *c, struct nfs4c_file *f);
/* WRITE len bytes at off, stable as asked; a reply counting fewer bytes is
 * NFS4ERR_IO. wr (may be NULL) gets the reply's count, committed and
 * verifier. */
int nfs4c_write(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		const void *buf, uint32_t len, stable_how4 stable,
		struct nfs4c_wres *wr);
/* READ of up to len bytes; *got is what came. */
int nfs4c_read(struct nfs4c *c, struct nfs4c_file *f, uint64_t off, void *buf,
	       uint32_t len, uint32_t *got);
/* READ a whole range (READs of at most 1 MiB); a short file is NFS4ERR_IO. */
int nfs4c_read_range(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		     char *buf, uint32_t len);
/* COMMIT [off, off + count) (count 0: to the end of the file); verf (may be
 * NULL) gets the reply's verifier. */
int nfs4c_commit(struct nfs4c *c, struct nfs4c_file *f, uint64_t off,
		 count4 count, verifier4 verf);
/* ALLOCATE (allocate) or DEALLOCATE [off, off + len). */
int nfs4c_falloc(struct nfs4c *c, struct nfs4c_file *f, bool allocate,
		 uint64_t off, uint64_t len);
/* SEEK for DATA (data) or a HOLE from off. */
int nfs4c_seek(struct nfs4c *c, struct nfs4c_file *f, uint64_t off, bool data,
	       uint64_t *where, bool *eof);
int nfs4c_setxattr(struct nfs4c *c, struct nfs4c_file *f, setxattr_option4 opt,
		   const char *name, const void *val, uint32_t len);
/* GETXATTR: at most cap bytes of the value into val, *len its full length. */
int nfs4c_getxattr(struct nfs4c *c, struct nfs4c_file *f, const char *name,
		   char *val, uint32_t cap, uint32_t *len);
int nfs4c_removexattr(struct nfs4c *c, struct nfs4c_file *f, const char *name);
/* LISTXATTRS: the names joined with ',' into out. */
int nfs4c_listxattr(struct nfs4c *c, struct nfs4c_file *f, char *out,
		    size_t cap);

#endif
