/* Shared helpers for the dcio CUnit suites: temp dirs on ext4 and a private
 * tmpfs, completion waiters, a tiny JSON flattener. */
#ifndef DCIO_TESTLIB_H
#define DCIO_TESTLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "io/dcio.h"

struct tl_fs {
	char dir[256];
	char mnt[256]; /* non-empty: a tmpfs we mounted */
};

int tl_fs_ext4(struct tl_fs *fs);
int tl_fs_tmpfs(struct tl_fs *fs, unsigned size_mb);
void tl_fs_cleanup(struct tl_fs *fs);
int tl_open(const struct tl_fs *fs, const char *name,
	    int flags); /* O_CREAT|O_RDWR|flags */
char *tl_path(const struct tl_fs *fs, const char *name); /* static buffer */

/* Counts completions. */
struct tl_wait {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int n, errs, last_err;
	size_t bytes;
};
void tl_wait_init(struct tl_wait *w);
void tl_done(void *arg, int err, size_t bytes); /* arg: struct tl_wait * */
void tl_wait_for(struct tl_wait *w, int n);

/* One request's completion, with its own waiter. */
struct tl_op {
	struct tl_wait *w;
	int err, calls;
	size_t bytes;
};
void tl_op_done(void *arg, int err, size_t bytes); /* arg: struct tl_op * */

struct dcio_export_params tl_params(enum dcio_write_mode wm,
				    enum dcio_read_mode rm,
				    enum dcio_flush_mode fm);

/* Stats JSON: valid? and values by dotted path ("group_commit.batches"). */
char *tl_stats(struct dcio_export *x); /* malloc'd */
bool tl_json_valid(const char *s);
bool tl_json_get(const char *s, const char *path, char *out, size_t outlen);
double tl_json_num(const char *s, const char *path); /* -1 if missing */

/* Synchronous helpers (through the async API). */
int tl_write(struct dcio_file *f, const void *buf, size_t len, uint64_t off,
	     enum dcio_stable st);
int tl_read(struct dcio_file *f, void *buf, size_t len, uint64_t off,
	    size_t *got);
void tl_fill(void *buf, size_t len, uint64_t off, unsigned seed);
bool tl_check(const void *buf, size_t len, uint64_t off, unsigned seed);

/* Fraction of the file's pages resident in the page cache (mincore). */
double tl_resident(const char *path);

/* An engine, one export over fs's directory and one open file: the set-up
 * and tear-down most engine tests share. */
struct tl_ctx {
	struct dcio_engine *e;
	struct dcio_export *x;
	struct dcio_file *f;
	int dfd;
};
/* Creates them (CUnit-fatal on failure): the export is named name, and so is
 * its file in fs, opened with tl_open(flags). */
void tl_ctx_open(struct tl_ctx *c, const struct tl_fs *fs,
		 const struct dcio_engine_params *ep,
		 const struct dcio_syscalls *sys,
		 const struct dcio_export_params *p, const char *name,
		 int flags);
/* Closes the file (its result is returned), destroys export and engine. */
int tl_ctx_close(struct tl_ctx *c);

/* Runs the registered CUnit suites verbosely, frees the registry; the exit
 * status for main(): 0 when every test and assertion passed. */
int tl_run_tests(void);
#endif
