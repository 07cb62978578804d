/* SPDX-License-Identifier: LGPL-3.0-or-later */
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
/* one number of x's stats now (tl_stats, tl_json_num) */
double tl_stat(struct dcio_export *x, const char *path);
/* Polls tl_stat(x, path) until it is at least (TL_AT_LEAST) or at most
 * (TL_AT_MOST) value, for up to ms milliseconds; returns the last value
 * read, so the caller asserts on it. */
enum tl_cmp { TL_AT_LEAST, TL_AT_MOST };
double tl_wait_stat(struct dcio_export *x, const char *path, enum tl_cmp cmp,
		    double value, int ms);
/* The dotted paths of every value that is not an object (arrays are
 * leaves), in document order; 0 if s is not valid JSON. */
size_t tl_json_keys(const char *s, char ***keys);
void tl_free_keys(char **keys, size_t n);

/* Synchronous helpers (through the async API). */
int tl_write(struct dcio_file *f, const void *buf, size_t len, uint64_t off,
	     enum dcio_stable st);
int tl_read(struct dcio_file *f, void *buf, size_t len, uint64_t off,
	    size_t *got);
void tl_fill(void *buf, size_t len, uint64_t off, unsigned seed);
bool tl_check(const void *buf, size_t len, uint64_t off, unsigned seed);

/* README text: the lines after the first line starting with first, up to
 * (not including) the next line starting with end (malloc'd; NULL if there
 * is no such line or file). */
char *tl_readme_section(const char *path, const char *first, const char *end);
/* The `backticked` names in text that are not inside parentheses (those
 * hold labels, values and remarks), in order; free with tl_free_keys. */
size_t tl_backticked(const char *text, char ***names);

/* Fraction of the file's pages resident in the page cache (mincore). */
double tl_resident(const char *path);

/* An engine, one export and (usually) one open file: the set-up and
 * tear-down the engine tests share. Zero fields take the default noted. */
enum tl_fs_kind {
	TL_FS_EXT4, /* a fresh directory under /var/tmp */
	TL_FS_TMPFS, /* a private tmpfs of tmpfs_mb MiB */
	TL_FS_NONE, /* no directory: the export gets no fd, no file */
};

struct tl_setup {
	const struct tl_fs *fs; /* the caller's; NULL: one of kind, removed
				 * by tl_ctx_close */
	enum tl_fs_kind kind;
	unsigned tmpfs_mb;
	const struct dcio_engine_params *ep; /* NULL: 2 threads */
	const struct dcio_syscalls *sys; /* NULL: the real ones */
	const struct dcio_export_params *p; /* NULL: tl_params(dontcache,
					     * buffered, coalesced) */
	const char *name; /* the export's; NULL: "t" */
	const char *file; /* opened as c->f; NULL: "f" */
	int flags; /* for tl_open(file) */
	bool no_file; /* c->f stays NULL */
	bool no_dirfd; /* the export is created with dir fd -1 (no probe) */
};

struct tl_ctx {
	struct tl_fs fs; /* where the files are */
	bool own_fs;
	struct dcio_engine *e;
	struct dcio_export *x;
	struct dcio_file *f;
	int dfd;
};
/* Creates them (CUnit-fatal on failure). */
void tl_ctx_open(struct tl_ctx *c, const struct tl_setup *s);
/* Closes c->f if set (its result is returned, else 0), destroys export and
 * engine, removes the filesystem the fixture made. */
int tl_ctx_close(struct tl_ctx *c);

/* What a program needs of this kernel and filesystem; tl_require exits 77
 * (counted as skipped by ctest) saying why on stderr when one is missing. */
enum tl_need {
	TL_NEED_TMPFS = 1 << 0, /* may mount a tmpfs */
	TL_NEED_DONTCACHE = 1 << 2, /* RWF_DONTCACHE writes on /var/tmp */
	TL_NEED_DIRECT = 1 << 3, /* O_DIRECT on /var/tmp */
	TL_NEED_EXT4 = 1 << 4, /* /var/tmp is ext4 */
};
#define TL_SKIP 77
void tl_require(unsigned needs);

/* Runs the registered CUnit suites verbosely, frees the registry; the exit
 * status for main(): 0 when every test and assertion passed. */
int tl_run_tests(void);

/* One named CUnit case; a suite's cases read as a table of these. */
struct tl_case {
	const char *name;
	void (*fn)(void);
};
/* Registers the n cases as the suite name and runs them (tl_run_tests). */
int tl_run_suite(const char *name, const struct tl_case *cases, size_t n);
#define TL_RUN_SUITE(name, cases) \
	tl_run_suite(name, cases, sizeof(cases) / sizeof(cases[0]))
#endif
