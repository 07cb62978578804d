/* Fault-test helpers: libnfs raw NFSv3 connections with bounded waits, synchronous wrappers
 * (every reply copied out inside the callback), the deterministic data pattern and the
 * acknowledged-data record format shared by ft_writer and ft_verify.
 *
 * Data pattern: the byte at offset o of a file whose pattern seed is s is a pure function of
 * (s, o) (ft_pattern_fill), so rewriting a range never changes what it must contain and the
 * record needs only ranges, not data.
 *
 * Record (one text file per NFS file, appended in event order by a single thread):
 *   F <path> <seed>                       header: file path in the export, pattern seed
 *   U <n> <off> <len> <verf>              WRITE UNSTABLE answered OK (n = index of this ack)
 *   S <n> <off> <len> <verf> <committed>  WRITE asked DATA_SYNC/FILE_SYNC, answered so
 *   E <off> <len> <status>                WRITE failed (status = nfsstat3 or -1 RPC error)
 *   C <off> <count> <status> <verf> <acks> COMMIT reply; acks = U/S lines acknowledged
 *                                          before the COMMIT was sent (those it covers)
 *   R <path>                              file removed through NFS (ignore it from here)
 * verf is 16 hex digits. A range is "acknowledged durable" when an S line covers it, or a U
 * line with n < acks of an OK COMMIT with the same verifier whose range overlaps it.
 */
#ifndef FT_LIB_H
#define FT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#define FT_FHMAX 64
#define FT_TIMEOUT_MS 30000

struct ft_fh {
	unsigned len;
	unsigned char data[FT_FHMAX];
};

struct ft_opts {
	const char *host;
	int nfsport, mntport;
	const char *export;
};

struct ft_conn {
	struct rpc_context *rpc;
	struct ft_fh root;
	int dead;
	int timeout_ms;
	char err[256];
};

/* A pending call. st is the nfsstat3, or -1 when the RPC failed (no reply, disconnect). */
struct ft_call {
	int done;
	int rpc_status;
	int st;
	void (*copy)(struct ft_call *k, void *data);
	struct ft_fh *fh;
	fattr3 *attr;
	void *buf;
	uint32_t count, cap;
	int eof;
	int committed;
	char verf[8];
	void *user;
};

uint64_t ft_now_ms(void);
void ft_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Parses -H host -p nfsport -M mntport -e export (common options) from a getopt loop. */
bool ft_common_opt(struct ft_opts *o, int opt, const char *arg);
#define FT_COMMON_OPTS "H:p:M:e:"

int ft_connect(struct ft_conn *c, const struct ft_opts *o);
void ft_disconnect(struct ft_conn *c);
/* One poll round (up to ms); returns -1 when the connection failed. */
int ft_pump(struct ft_conn *c, int ms);
/* Waits until k->done or the connection's timeout; disconnects (failing every pending call)
 * on timeout. Returns 0 when the call got a reply. */
int ft_wait(struct ft_conn *c, struct ft_call *k);
void ft_call_cb(struct rpc_context *rpc, int status, void *data, void *priv);

void ft_fh_to3(const struct ft_fh *fh, nfs_fh3 *out);
void ft_fh_from3(struct ft_fh *fh, const nfs_fh3 *in);
const char *ft_st(int st);

int ft_null(struct ft_conn *c);
int ft_getattr(struct ft_conn *c, const struct ft_fh *fh, fattr3 *attr);
int ft_lookup(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out);
/* Walks a '/'-separated path below the root. */
int ft_lookup_path(struct ft_conn *c, const char *path, struct ft_fh *out);
int ft_create(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out);
int ft_mkdir(struct ft_conn *c, const struct ft_fh *dir, const char *name, struct ft_fh *out);
int ft_remove(struct ft_conn *c, const struct ft_fh *dir, const char *name);
int ft_read(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, uint32_t count, void *buf,
	    uint32_t *got, bool *eof);
int ft_write(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, const void *buf,
	     uint32_t len, int stable, uint32_t *count, int *committed, char verf[8]);
int ft_commit(struct ft_conn *c, const struct ft_fh *fh, uint64_t off, uint32_t count,
	      char verf[8]);
int ft_fsinfo(struct ft_conn *c, const struct ft_fh *fh, FSINFO3resok *out);

/* Async WRITE/COMMIT (callback ft_call_cb fills k). 0 when queued. */
int ft_write_async(struct ft_conn *c, struct ft_call *k, const struct ft_fh *fh, uint64_t off,
		   const void *buf, uint32_t len, int stable);
int ft_commit_async(struct ft_conn *c, struct ft_call *k, const struct ft_fh *fh, uint64_t off,
		    uint32_t count);

/* Pattern. */
uint64_t ft_seed(const char *path);
void ft_pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len);

void ft_verf_hex(const char verf[8], char out[17]);
bool ft_verf_parse(const char *hex, char verf[8]);

#endif
