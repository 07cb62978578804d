/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* dcio: the FSAL_DONTCACHE I/O engine.
 *
 * Holds no ganesha types: the FSAL layer adapts ganesha calls to this API and
 * the CUnit suites in tests/unit drive it directly.
 *
 * Objects:
 *   dcio_engine  process-wide: the pool threads (the pwritev2/preadv2 I/O
 *                handed off the caller's thread, group-commit flushes), the
 *                flusher threads, the syscall table.
 *   dcio_export  one per ganesha export: modes, thresholds, in-flight bound,
 *                stats, the write verifier generation.
 *   dcio_file    one per regular file (inode) with I/O: the fd used for I/O,
 *                dirty ranges, group-commit state, remembered errors.
 *
 * Threading: every function may be called from any thread concurrently, except
 * create/destroy of an object, which must not race with its own use.
 */
#ifndef DCIO_H
#define DCIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

enum dcio_write_mode {
	DCIO_WRITE_DONTCACHE = 0, /* pwritev2 with RWF_DONTCACHE */
	DCIO_WRITE_BUFFERED, /* plain buffered writes (page cache as usual) */
	DCIO_WRITE_DIRECT, /* O_DIRECT aligned middle, dontcache head/tail */
	DCIO_WRITE_DROPBEHIND, /* buffered + coalesced sync_file_range + FADV_DONTNEED */
};

enum dcio_read_mode {
	DCIO_READ_BUFFERED = 0,
	DCIO_READ_DONTCACHE, /* RWF_DONTCACHE reads (buffered where unsupported) */
	DCIO_READ_DIRECT, /* O_DIRECT, widened to the file's DIO alignment */
};

enum dcio_flush_mode {
	DCIO_FLUSH_COALESCED =
		0, /* engine threads + one flusher wakeup for many writes */
	DCIO_FLUSH_INLINE, /* naive: write and kick writeback on the caller's thread */
};

/* Where the writeback of a RWF_DONTCACHE write starts. Linux 6.14-7.1 start
 * it inside the write syscall (generic_write_sync kicks it): a worker-thread
 * write then does the writeback submission on the request path, so such
 * writes are issued buffered and this engine's flusher writes them back and
 * drops them. 7.2 hands the kick to the writeback flusher, which coalesces
 * it: worker-thread writes then go RWF_DONTCACHE and the kernel does the
 * rest (the flusher still drops what completes in IRQ context). A
 * distribution kernel may have either behaviour whatever its version, so
 * AUTO asks the export's filesystem (dcio_export_create's probe). */
enum dcio_kick {
	DCIO_KICK_AUTO = 0, /* probed per export: a RWF_DONTCACHE write of a
			     * few MiB, then cachestat(2) of its pages at
			     * once: left dirty = deferred, else inline */
	DCIO_KICK_INLINE, /* the kernel kicks in the syscall */
	DCIO_KICK_DEFERRED, /* the kernel's flusher does */
};

/* Page-cache state of a file range (cachestat(2), Linux 6.5), in pages */
struct dcio_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback;
};

enum dcio_stable {
	DCIO_UNSTABLE = 0,
	DCIO_DATA_SYNC, /* durable before completion (fdatasync semantics) */
	DCIO_FILE_SYNC, /* durable incl. metadata (fsync semantics) */
};

/* Levels of the engine's messages (the FSAL maps them to its log levels). */
enum dcio_log_level {
	DCIO_LOG_CRIT = 0,
	DCIO_LOG_WARN,
	DCIO_LOG_INFO,
};

/* Message sink: one line, no trailing newline. NULL = stderr (unit tests). */
typedef void (*dcio_log_fn)(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct dcio_engine_params {
	unsigned int threads; /* pool threads, and flusher threads; >= 1 */
	int nice; /* nice value of every engine thread (0..19; 0 leaves
		   * it), the engine's own threads only: when the CPU is
		   * short, the request path (reads, small writes) runs
		   * first and write-back work waits. No thread the engine
		   * did not create is ever reniced. */
	dcio_log_fn log; /* where the engine's warnings go; NULL: stderr */
	enum dcio_kick kick; /* AUTO: probed on each export's filesystem */
};

struct dcio_export_params {
	enum dcio_write_mode write_mode;
	enum dcio_read_mode read_mode;
	enum dcio_flush_mode flush_mode;

	uint64_t
		max_inflight_bytes; /* bound on submitted-but-not-completed write bytes */
	uint32_t
		inflight_wait_ms; /* how long a write waits for room before EAGAIN */
	uint64_t
		flush_file_bytes; /* dropbehind: flush a file once this much is dirty */
	uint64_t
		flush_export_bytes; /* dropbehind: flush the export once this much is dirty */
	uint32_t
		flush_interval_ms; /* dropbehind: flush anything dirty at least this often */
	uint32_t caller_write_max; /* writes up to this size are issued on the
					 * caller's thread (no hand-off; completion
					 * and flushing as usual); 0 = none */
	uint32_t stable_reply_ms; /* an UNSTABLE write joins a group flush
				   * (fsync) when the export's recent flushes
				   * took at most this long, and is answered
				   * durable if it succeeds; 0 = never */
	uint64_t cache_budget_bytes; /* writes issued on the caller's thread
				      * wait (flusher_throttle) while the
				      * export holds more than this written
				      * (or being written) and not yet
				      * dropped; 0 = 8 x
				      * flush_export_bytes */
	uint32_t kick_us_per_mib; /* dontcache mode, kernel kicking in the
				   * syscall: a write of >= 1 MiB on the
				   * caller's thread goes RWF_DONTCACHE while
				   * such writes take at most this long per
				   * MiB (kick.c); 0 = never */
};
/* The defaults, defined here only: the configuration's (config.c) and the
 * engine's. Zero means the default for max_inflight_bytes, flush_file_bytes,
 * flush_export_bytes and flush_interval_ms; the others are taken as they are
 * (inflight_wait_ms 0 answers EAGAIN at once when full, cache_budget_bytes 0
 * is 8 x flush_export_bytes). */
#define DCIO_DEF_THREADS 2u /* dcio_engine_params.threads */
#define DCIO_DEF_NICE 10 /* dcio_engine_params.nice */
#define DCIO_DEF_INFLIGHT (256ull << 20) /* max_inflight_bytes */
#define DCIO_DEF_INFLIGHT_WAIT_MS 5000u
#define DCIO_DEF_FLUSH_FILE (8ull << 20) /* flush_file_bytes */
#define DCIO_DEF_FLUSH_EXPORT (64ull << 20) /* flush_export_bytes */
#define DCIO_DEF_FLUSH_MS 1000u /* flush_interval_ms */
#define DCIO_DEF_CALLER_WRITE_MAX (64u << 20) /* caller_write_max */
#define DCIO_DEF_CACHE_BUDGET (64ull << 20) /* cache_budget_bytes */
#define DCIO_DEF_KICK_US_PER_MIB 8000u

/* Syscall seam: tests replace entries to inject faults. NULL entries (or a NULL
 * table) mean the real syscalls. Return conventions are those of libc (-1 and
 * errno). */
struct dcio_syscalls {
	ssize_t (*pwritev2)(int fd, const struct iovec *iov, int cnt, off_t off,
			    int flags);
	ssize_t (*preadv2)(int fd, const struct iovec *iov, int cnt, off_t off,
			   int flags);
	int (*fdatasync)(int fd);
	int (*fsync)(int fd);
	int (*sync_file_range)(int fd, off_t off, off_t len,
			       unsigned int flags);
	int (*posix_fadvise)(int fd, off_t off, off_t len, int advice);
	int (*ftruncate)(int fd, off_t len);
	int (*fallocate)(int fd, int mode, off_t off, off_t len);
	/* cachestat(2) of [off, off + len): the Dontcache_Kick probe */
	int (*cachestat)(int fd, uint64_t off, uint64_t len,
			 struct dcio_cachestat *cs);
	/* The identity switch of writes as the caller (setfsuid(2),
	 * setfsgid(2) on the calling thread): the id the thread had, and
	 * -1 reads it back. A switch that does not take (an id outside
	 * the server's user namespace) changes nothing and still answers
	 * the previous id: the engine reads every switch back. */
	int (*setfsuid)(uid_t id);
	int (*setfsgid)(gid_t id);
};

struct dcio_engine;
struct dcio_export;
struct dcio_file;

/* Completion of an async write or read: err is 0 or a positive errno; bytes is
 * what was transferred. Called exactly once, from an engine thread (or, for
 * DCIO_FLUSH_INLINE and writes issued on the caller's thread, from the
 * submitting thread before dcio_write returns). The iovec and its buffers must
 * stay valid until then and are not touched after. */
typedef void (*dcio_done_fn)(void *arg, int err, size_t bytes);
/* The identity a write's data syscalls run with: the caller's file-system
 * uid and gid and supplementary groups (copied; the caller's array need not
 * outlive the call). The kernel then applies the caller's rules to the
 * write: ext4's reserved blocks (refused unless the fsuid is the reserve's),
 * set-id bits (cleared: a fsuid other than 0 has no CAP_FSETID), and
 * whatever else it decides by the writer. */
#define DCIO_CRED_MAX_GROUPS 65536
struct dcio_cred {
	uid_t uid;
	gid_t gid;
	unsigned int ngroups;
	const gid_t *groups;
};

/* Engine ----------------------------------------------------------------- */
int dcio_engine_create(const struct dcio_engine_params *p,
		       const struct dcio_syscalls *sys,
		       struct dcio_engine **out); /* 0 or errno */
/* Waits for all outstanding I/O, stops threads, frees. Exports must be gone. */
void dcio_engine_destroy(struct dcio_engine *e);

/* Export ----------------------------------------------------------------- */
/* dirfd: a directory on the export's filesystem; the probe creates and removes
 * an O_TMPFILE there to learn whether RWF_DONTCACHE writes and reads work. If
 * they answer EOPNOTSUPP/EINVAL, dontcache writes run as dropbehind and
 * dontcache reads as buffered (dcio_export_fallback() says so). */
int dcio_export_create(struct dcio_engine *e,
		       const struct dcio_export_params *p, const char *name,
		       int dirfd, struct dcio_export **out);
/* (A probe that cannot create its file, e.g. on a read-only filesystem, is
 * skipped: support is assumed and a run-time EOPNOTSUPP still falls back.
 * dirfd < 0 skips the probe too.) */
/* Waits for the export's outstanding I/O and flushes, then frees. Its files
 * must have been closed (dcio_file_close does each file's final flush). */
void dcio_export_destroy(struct dcio_export *x);
/* Live reconfiguration: every parameter of p replaces the export's for I/O
 * submitted afterwards; requests already queued keep the modes they were
 * built with, error memory and files stay. A change of write_mode to or from
 * DCIO_WRITE_DIRECT, or of read_mode to or from DCIO_READ_DIRECT, is refused
 * (EINVAL, nothing changed): files open their O_DIRECT fd when they open.
 * 0 or EINVAL. */
int dcio_export_update(struct dcio_export *x,
		       const struct dcio_export_params *p);
bool dcio_export_fallback(const struct dcio_export *x);
/* Changes whenever a write/writeback/flush error was seen on any file of the
 * export (NFSv4 write verifier generation). */
uint64_t dcio_export_verifier_gen(const struct dcio_export *x);
/* Changes whenever dcio_export_verifier_gen of any of the engine's exports
 * does: for a write verifier that must change when a file shared by several
 * exports loses data through any of them. Starts at 1. */
uint64_t dcio_engine_verifier_gen(const struct dcio_engine *e);
/* What a closed engine file remembered (lost ranges, an error no COMMIT has
 * seen) is dropped to stay within a bound: the engine-wide verifier
 * generation changes, so that no COMMIT answers OK with the verifier of a
 * WRITE whose data was lost (its client resends what it has not committed).
 * Call it before a COMMIT can find the memory gone. */
void dcio_engine_forget(struct dcio_engine *e);
/* Stats as one JSON object (no trailing newline); keys in io/README.md. */
void dcio_export_stats_json(struct dcio_export *x, FILE *out);
/* The same figures in Prometheus text exposition format (io/prom.c): every
 * metric family with # HELP and # TYPE, names prefixed dontcache_, counters
 * ending in _total, latencies as histograms in seconds. labels: the label
 * pairs each sample carries, e.g. export_id="1",path="/srv/x" (values
 * escaped with dcio_prom_escape), or NULL/"" for none. */
void dcio_export_stats_prom(struct dcio_export *x, const char *labels,
			    FILE *out);
/* Every counter and latency histogram of the export back to 0, the in-flight
 * peak to the bytes in flight now (ganesha's DBus ResetStats). Stores are
 * relaxed atomics, not a snapshot: I/O completing during the reset may keep
 * a few increments, and derived figures (syscalls saved, writes per pass)
 * may be briefly off by those. Gauges (in flight, verifier) are unchanged. */
void dcio_export_stats_reset(struct dcio_export *x);
/* Escapes a label value (backslash, double quote, newline) into out (always
 * NUL-terminated; truncated to outlen). Returns out. */
char *dcio_prom_escape(const char *in, char *out, size_t outlen);
/* Writes s as a JSON string (quoted, escaped), as the stats JSON does. */
void dcio_json_string(FILE *o, const char *s);
/* The write path the export's Write_Mode really takes now ("dontcache",
 * "dropbehind", "buffered", "direct") and, when it is a fallback, why (in
 * why, "" otherwise). */
const char *dcio_export_write_path(const struct dcio_export *x, char *why,
				   size_t whylen);
/* Whether the kernel defers a RWF_DONTCACHE write's writeback kick on the
 * export's filesystem (enum dcio_kick): large writes on the caller's thread
 * then go dontcache; else kick.c decides per write. why (when whylen > 0)
 * says how it was decided: the engine's setting, or the probe's figures. */
bool dcio_export_kick_deferred(const struct dcio_export *x, char *why,
			       size_t whylen);
/* The same for reads ("buffered" when dontcache reads were refused). */
const char *dcio_export_read_path(const struct dcio_export *x, char *why,
				  size_t whylen);

/* Rate limit for repeated messages: one per message site (a static
 * struct dcio_ratelimit). dcio_ratelimit() is true when the message may be
 * logged now (at most once per `seconds`); *suppressed then holds how many
 * were dropped since the last one logged. Thread-safe. */
struct dcio_ratelimit {
	uint64_t next_ns;
	uint64_t suppressed;
};
bool dcio_ratelimit(struct dcio_ratelimit *rl, unsigned int seconds,
		    uint64_t *suppressed);

/* File ------------------------------------------------------------------- */
/* Takes ownership of fd (opened O_RDWR or O_RDONLY, no O_DIRECT: the engine
 * reopens through /proc/self/fd for direct modes). */
int dcio_file_open(struct dcio_export *x, int fd, struct dcio_file **out);
/* Flushes dirty data if any (recording errors), waits for the file's I/O and
 * closes the fd. Returns 0 or the errno of a flush/writeback error not yet
 * reported to any COMMIT. */
int dcio_file_close(struct dcio_file *f);
/* Close only a file that remembers nothing lost: waits for its I/O and
 * flushes pending data (a failing flush makes that data lost). If any range
 * is then remembered lost, the file stays open and usable, *err is that
 * loss's errno and false is returned; else the file is closed as by
 * dcio_file_close, whose result goes to *err, and true is returned. The
 * caller must not start I/O on f meanwhile. */
bool dcio_file_close_clean(struct dcio_file *f, int *err);
int dcio_file_fd(const struct dcio_file *f);
/* The whole file, [0, its size), is lost with err (a memory the caller kept
 * in short form after closing the engine file that had it): every COMMIT of
 * it fails until it is rewritten and flushed, or truncated. Without its size
 * (fstat failing) everything is lost. */
void dcio_file_lose_all(struct dcio_file *f, int err);
/* ftruncate(size) through the engine, on the calling thread (with its
 * credentials: the FSAL runs it as the caller): pending and lost ranges past
 * size are forgotten (data truncated away cannot be lost), except those
 * acknowledged or lost while it ran. 0 or errno (EFBIG: size > INT64_MAX). */
int dcio_file_truncate(struct dcio_file *f, uint64_t size);
/* Queue a write. In DCIO_FLUSH_INLINE mode reads and writes run on the
 * caller's thread and done is called before return. On files of a direct
 * export, overlapping writes (page granularity) are started one after another
 * by the engine. done must not wait on the engine (e.g. issue a write that may
 * block for in-flight room). Returns 0 when queued (done will be called) or a positive
 * errno when refused at once (done is NOT called): EAGAIN when the export's
 * in-flight bound stayed full for inflight_wait_ms. For DCIO_DATA_SYNC and
 * DCIO_FILE_SYNC, done is called only after the data is durable (group
 * commit with other stable writes and COMMITs on the file), or with the error
 * that prevented it.
 *
 * The write's pwritev2 syscalls run as cred on every path (the caller's
 * thread, the pool, direct and inline); NULL: as the engine's threads. Writeback, flushes and the flusher stay the engine's.
 * Refused with EINVAL (more than DCIO_CRED_MAX_GROUPS groups), ENOMEM; a
 * write the thread cannot switch to cred for fails with that errno (EPERM
 * where the process lacks CAP_SETUID/CAP_SETGID).
 *
 * *durable (when not NULL) is set before done runs: true when the data (and,
 * fsync, the metadata) was flushed before the answer: a stable write, or an
 * UNSTABLE one that joined a group flush (stable_reply_ms) that succeeded;
 * false otherwise. (done must not call dcio_file_close on its own file: close
 * waits for the file's requests, this one included, to finish.) */
int dcio_write(struct dcio_file *f, const struct iovec *iov, int iovcnt,
	       uint64_t offset, enum dcio_stable stable,
	       const struct dcio_cred *cred, bool *durable, dcio_done_fn done,
	       void *arg);

/* Queue a read; same contract. A short count means end of file. */
int dcio_read(struct dcio_file *f, const struct iovec *iov, int iovcnt,
	      uint64_t offset, dcio_done_fn done, void *arg);

/* Serves a read on the caller's thread if it can without blocking (data in
 * the page cache; preadv2 with RWF_NOWAIT). Returns 0 with *bytes set (short
 * = end of file), or EAGAIN: call dcio_read instead (pages not cached, a
 * direct or inline export, or an error the engine's path must handle). */
int dcio_read_nowait(struct dcio_file *f, const struct iovec *iov, int iovcnt,
		     uint64_t offset, size_t *bytes);

/* Synchronous COMMIT of [offset, offset+len) (len 0 = to end of file).
 * Joins the file's group commit: one fdatasync serves every committer that
 * joined before it started; returns 0 at once without a syscall when nothing
 * was written since the last successful flush. Returns 0 or a positive errno:
 * the error of the flush, or a remembered error for data in the range that was
 * acknowledged before a failed write/writeback/flush and not rewritten and
 * flushed since. */
int dcio_commit(struct dcio_file *f, uint64_t offset, uint64_t len);

/* Parsing helpers for config values (used by the FSAL's config layer and
 * tested directly). Return 0 or EINVAL. */
int dcio_parse_write_mode(const char *s, enum dcio_write_mode *out);
int dcio_parse_read_mode(const char *s, enum dcio_read_mode *out);
int dcio_parse_flush_mode(const char *s, enum dcio_flush_mode *out);
int dcio_parse_kick(const char *s, enum dcio_kick *out);
const char *dcio_kick_name(enum dcio_kick k);
const char *dcio_write_mode_name(enum dcio_write_mode m);
const char *dcio_read_mode_name(enum dcio_read_mode m);
const char *dcio_flush_mode_name(enum dcio_flush_mode m);

/* ALLOCATE / DEALLOCATE (io/falloc.c) ------------------------------------ */
enum dcio_falloc_op {
	DCIO_ALLOCATE, /* fallocate mode 0: blocks reserved, size may grow */
	DCIO_PUNCH, /* PUNCH_HOLE | KEEP_SIZE: the range reads as zeros */
};

/* A client's [offset, offset+len) checked as the kernel's vfs_fallocate does:
 * EINVAL when offset or len exceeds INT64_MAX or len is 0, EFBIG when the end
 * passes INT64_MAX (the filesystem's own maximum is the kernel's to check). */
int dcio_falloc_check(uint64_t offset, uint64_t len);

/* fallocate(2) on the file's fd, on the calling thread (with its
 * credentials). Waits first for every write of the file that overlaps the
 * range and was submitted before this call (EAGAIN if that takes longer than
 * the export's inflight_wait_ms, at least 1 s). Then for the error rule a
 * punch counts as a write of zeros (pending until a flush covers it; such a
 * flush also clears lost ranges there), an allocation only makes the file
 * dirty (the next COMMIT flushes; lost ranges stay lost). A punch failing
 * after it may have dropped dirty pages (any error but a refusal such as
 * EINVAL, EFBIG, EOPNOTSUPP, EPERM) marks the pending data in the range lost.
 * Returns 0, dcio_falloc_check's error, EAGAIN, or fallocate's errno
 * (ENOSPC, EOPNOTSUPP, EFBIG past the filesystem's maximum file size...). */
int dcio_fallocate(struct dcio_file *f, enum dcio_falloc_op op, uint64_t offset,
		   uint64_t len);

#endif /* DCIO_H */
