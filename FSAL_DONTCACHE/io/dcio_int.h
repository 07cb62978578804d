/* Internal structures of the dcio engine; never included outside io/. */
#ifndef DCIO_INT_H
#define DCIO_INT_H

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "dcio.h"

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

#define DCIO_NR_WMODES 4
#define DCIO_ERRNO_MAX 134
#define DCIO_PENDING_CAP 1024

/* Defaults for parameters left at 0 (documented in dcio.h). */
#define DCIO_DEF_INFLIGHT (256ull << 20)
#define DCIO_DEF_FLUSH_FILE (8ull << 20)
#define DCIO_DEF_FLUSH_EXPORT (64ull << 20)
#define DCIO_DEF_FLUSH_MS 1000u

/* ranges.c: sorted, disjoint [lo, hi) ranges, each with an errno */
struct dcio_range {
	uint64_t lo, hi;
	int err;
};

struct dcio_rangeset {
	struct dcio_range *r;
	size_t n, cap;
};

void rs_add(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
void rs_sub(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
int rs_find(const struct dcio_rangeset *rs, uint64_t lo, uint64_t hi);
void rs_collapse(struct dcio_rangeset *rs);
void rs_merge_into(struct dcio_rangeset *dst, const struct dcio_rangeset *src, int err);
bool rs_add_exact(struct dcio_rangeset *rs, uint64_t lo, uint64_t hi, int err);
void rs_add_set(struct dcio_rangeset *dst, const struct dcio_rangeset *src);
void rs_take(struct dcio_rangeset *dst, struct dcio_rangeset *src);
uint64_t rs_bytes(const struct dcio_rangeset *rs);
void rs_free(struct dcio_rangeset *rs);

/* stats.c */
#define H_SUB_BITS 7
#define H_SUB (1u << H_SUB_BITS)
#define H_MAX_EXP 47
#define H_BUCKETS ((H_MAX_EXP - H_SUB_BITS + 2) * H_SUB)

struct dcio_hist {
	uint64_t b[H_BUCKETS];
	uint64_t max;
	uint64_t sum;			/* ns, for Prometheus' _sum */
};

void hist_add(struct dcio_hist *h, uint64_t ns);
unsigned hist_bucket(uint64_t v);
uint64_t hist_bucket_mid(unsigned idx);
uint64_t hist_quantile(const struct dcio_hist *h, double q, uint64_t *count);

struct dcio_stats {
	uint64_t w_ops[DCIO_NR_WMODES], w_bytes[DCIO_NR_WMODES];
	uint64_t leaf_bytes[DCIO_NR_WMODES];
	uint64_t w_worker_ops, w_worker_bytes;	/* issued on the caller's thread */
	uint64_t r_ops, r_bytes;
	uint64_t r_nowait;		/* reads answered on the caller's thread */
	uint64_t fb_write, fb_read, fb_direct;
	uint64_t fl_passes, fl_files, fl_writes, fl_max_writes, fl_ranges, fl_bytes;
	uint64_t fl_sfr_calls, fl_dontneed;
	uint64_t fl_inline_kicks;	/* Flush_Mode=inline: writeback kicked by the writer */
	uint64_t gc_batches, gc_requests, gc_syscalls, gc_max_batch, gc_nodirty;
	uint64_t gc_lost_reports, gc_lost_inflight, gc_settles;
	uint64_t errors[DCIO_ERRNO_MAX + 1];
	uint64_t eagain, inflight_waits;
	struct dcio_hist lat_w, lat_r, lat_c;
};

#define ST_ADD(p, v) __atomic_fetch_add(&(p), (v), __ATOMIC_RELAXED)
#define ST_MAX(p, v) stat_max(&(p), (v))
void stat_max(uint64_t *p, uint64_t v);
void stat_error(struct dcio_stats *s, int err);
uint64_t now_ns(void);

/* pool.c: a job queue served by threads */
struct dcio_job {
	void (*run)(struct dcio_job *);
	struct dcio_job *next;
};

struct dcio_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct dcio_job *head, *tail;
	bool stop;
	unsigned n;
	int nice;
	pthread_t *tids;
};

int pool_start(struct dcio_pool *p, unsigned n, const char *name, int nice);
void pool_post(struct dcio_pool *p, struct dcio_job *j);
void pool_stop(struct dcio_pool *p);

/* ring.c */
struct dcio_req;
struct dcio_ring {
	struct dcio_engine *e;
	pthread_t tid;
	struct io_uring ring;
	int efd;
	uint64_t efd_val;
	pthread_mutex_t mu;
	struct dcio_req *qh, *qt;
	atomic_int wake;
	bool stop;
	unsigned cap;
};

int ring_start(struct dcio_engine *e, struct dcio_ring *r, unsigned entries, unsigned idx);
void ring_post(struct dcio_ring *r, struct dcio_req *q);
void ring_stop(struct dcio_ring *r);

/* flusher.c */
struct dcio_flusher {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, kicked, started;
	uint64_t gen;
	struct dcio_file *head;
};

int flusher_start(struct dcio_engine *e);
void flusher_stop(struct dcio_engine *e);
void flusher_note(struct dcio_file *f, uint64_t off, uint64_t len, bool written);
void flusher_forget(struct dcio_file *f);

/* engine.c */
/* bounce.c: O_DIRECT bounce buffers */
#define BOUNCE_SLAB (1u << 20)
#define BOUNCE_KEEP 32
struct dcio_bounce {
	pthread_mutex_t mu;
	void *free[BOUNCE_KEEP];
	unsigned n;
};

struct dcio_engine;
void *bounce_get(struct dcio_engine *e, size_t len);
void bounce_put(struct dcio_engine *e, void *p, size_t len);
void bounce_init(struct dcio_engine *e);
void bounce_fini(struct dcio_engine *e);

struct dcio_engine {
	struct dcio_syscalls sys;
	struct dcio_bounce bounce;
	bool uring;
	unsigned nrings;
	struct dcio_ring *rings;
	atomic_uint rr;
	struct dcio_pool pool;		/* blocking work; also I/O without uring */
	struct dcio_flusher fl;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long outstanding;
	int nice;
	dcio_log_fn log;		/* never NULL */
};

/* A warning of the engine, at most one per `secs` from each call site. */
#define DCIO_LOG_RL(e, level, secs, fmt, ...)					\
	do {									\
		static struct dcio_ratelimit rl_;				\
		uint64_t supp_;							\
		if (dcio_ratelimit(&rl_, (secs), &supp_)) {			\
			if (supp_)						\
				(e)->log((level), fmt " (%llu similar messages suppressed)", \
					 ##__VA_ARGS__, (unsigned long long)supp_); \
			else							\
				(e)->log((level), fmt, ##__VA_ARGS__);		\
		}								\
	} while (0)

void dcio_log_stderr(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void thread_nice(int nice);
void engine_submit(struct dcio_engine *e, struct dcio_req *q);
void engine_get(struct dcio_engine *e);
void engine_put(struct dcio_engine *e);
void cond_init_mono(pthread_cond_t *cv);
void deadline_after(struct timespec *ts, uint32_t ms);

/* export.c */
struct dcio_export {
	struct dcio_engine *e;
	struct dcio_export_params p;
	char name[128];
	atomic_bool wfallback;		/* dontcache writes run as dropbehind */
	atomic_bool rfallback;		/* dontcache reads run buffered */
	bool probed_wok, probed_rok, probe_failed;
	uint32_t probe_dio_align;
	atomic_uint_fast64_t verifier_gen;
	pthread_mutex_t mu;		/* in-flight bound and outstanding requests */
	pthread_cond_t cv;
	uint64_t inflight, peak;
	long outstanding;
	uint64_t fl_dirty;		/* flusher state, under e->fl.mu */
	bool fl_urgent;
	uint64_t fl_gen, fl_urgent_gen;
	uint64_t fl_pass_writes;
	struct dcio_stats st;
};

int inflight_admit(struct dcio_export *x, uint64_t len);
void inflight_release(struct dcio_export *x, uint64_t len);
void export_note_error(struct dcio_export *x, int err);

/* commit.c: group commit state, under gc_mu */
struct gc_waiter {
	struct gc_waiter *next;
	struct dcio_req *req;		/* async stable write, or NULL */
	bool fsync, done;
	int err;
};

/* file.c */
struct dcio_file {
	struct dcio_export *x;
	struct dcio_engine *e;
	int fd, dfd;
	uint32_t dio_off_align, dio_mem_align;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long outstanding;
	atomic_bool used_dropbehind;
	struct dcio_req *rl_active, *rl_waitq;	/* under mu */

	pthread_mutex_t gc_mu;
	pthread_cond_t gc_cv;
	uint64_t write_seq, flushed_seq;
	struct dcio_rangeset pending, lost;
	/* clear: the parts of acknowledged writes that rewrote lost ranges
	 * (exact, never over-approximated: a good flush removes them from
	 * lost); flush_clear: the running flush's snapshot of it; relost:
	 * ranges lost while that flush ran (a good flush leaves them lost) */
	struct dcio_rangeset clear, flush_clear, relost;
	/* ranges acknowledged / lost while a truncate runs: kept by its trim */
	struct dcio_rangeset trunc_acked, trunc_lost;
	int trunc_busy;
	struct gc_waiter *wh, **wt;
	struct gc_waiter *riders;	/* joined the running flush */
	uint64_t flush_covered;
	bool flushing, flush_fsync, job_posted;
	bool settle;		/* a flush is due after a failed or lost write */
	int unreported;
	int last_err;		/* errno of the latest data-losing error */
	uint64_t err_gen;	/* bumped by each data-losing error (atomic reads) */
	int sfr_busy;		/* sync_file_range calls whose errors are not recorded yet */
	int flush_taint;	/* a sync_file_range error seen while flushing */
	struct dcio_job gc_job;

	/* flusher, under e->fl.mu */
	struct dcio_file *fl_next, *fl_prev;
	bool fl_listed, fl_busy, fl_urgent;
	struct dcio_rangeset fl_dirty, fl_wb;
	uint64_t fl_dirty_bytes, fl_nwrites, fl_last, fl_gen;

	/* falloc.c, under mu: writes in flight in wr_seq order */
	struct dcio_req *wr_head, *wr_tail;
	uint64_t wr_seq;
	int fa_waiters;
};

void file_get(struct dcio_file *f);
void file_start(struct dcio_req *q);

/* falloc.c: a write is tracked from dcio_write until its data syscalls are
 * done and recorded (pending or lost); fallocate waits for the overlapping
 * ones submitted before it. */
void falloc_track(struct dcio_req *q);
void falloc_untrack(struct dcio_req *q);

/* rangelock.c */
void rl_start(struct dcio_req *q);
void rl_release(struct dcio_req *q);
void file_put(struct dcio_file *f);

/* A write reads the error generation before its first syscall and hands it
 * to gc_acked: an error in between may have consumed its writeback error. */
uint64_t gc_write_begin(struct dcio_file *f);
void gc_acked(struct dcio_file *f, uint64_t off, uint64_t len, uint64_t gen);
void gc_write_error(struct dcio_file *f, uint64_t off, uint64_t len, int err);
void gc_flush_error(struct dcio_file *f, int err);
/* Bracket a writeback syscall outside group commit (sync_file_range): a
 * COMMIT waits until its error, if any, is recorded, because the syscall
 * already consumed the kernel's one report of it. */
void gc_sfr_begin(struct dcio_file *f);
void gc_sfr_end(struct dcio_file *f, int err);
void gc_join_async(struct dcio_file *f, struct dcio_req *q);
int gc_commit(struct dcio_file *f, uint64_t off, uint64_t len, bool fsync, bool force, bool check_lost);
bool gc_dirty(struct dcio_file *f);
void gc_init(struct dcio_file *f);
void gc_fini(struct dcio_file *f);
int gc_lost_err(struct dcio_file *f);
void gc_truncate_begin(struct dcio_file *f);
void gc_truncate_end(struct dcio_file *f, uint64_t size, bool done);
int gc_take_unreported(struct dcio_file *f);

/* req.c: one I/O request (or a split parent) */
enum { REQ_WRITE, REQ_READ };
enum { REQ_DONE, REQ_AGAIN };

struct dcio_req {
	struct dcio_job job;
	struct dcio_req *next;
	struct dcio_file *f;
	struct dcio_req *parent;
	atomic_int children;
	int op, fd, rwflags, mode, top_mode, err, retries;
	bool inline_, direct;
	enum dcio_stable stable;
	uint64_t off, len;		/* the caller's range */
	uint64_t io_off, io_len, xfer;	/* the syscall's range and progress */
	uint64_t t0;
	uint64_t err_gen;		/* gc_write_begin() at submission */
	dcio_done_fn done;
	void *arg;
	void *bounce;
	size_t bounce_len;
	const struct iovec *uiov;	/* caller's iovec, for bounce copy-back */
	int uiovcnt;
	struct gc_waiter w;
	struct dcio_req *kids[3];	/* direct split: submitted together */
	int nkids;
	uint64_t rl_lo, rl_hi;		/* range lock (files with an O_DIRECT fd) */
	struct dcio_req *rl_next;
	bool rl_held;
	bool db_written;	/* (top request) some leaf went buffered/dropbehind */
	struct dcio_req *wr_next, *wr_prev;	/* falloc.c: in-flight writes */
	uint64_t wr_seq;	/* 0: not (or no longer) tracked */
	bool dc_written;	/* (top request) some leaf went RWF_DONTCACHE */
	int iovcnt;
	struct iovec *iov;
	struct iovec iovs[];
};

struct dcio_req *req_new(struct dcio_file *f, int op, int niov);
int req_result(struct dcio_req *q, long res);
void req_exec_sync(struct dcio_req *q);
void req_finish(struct dcio_req *q, int err);
void req_complete(struct dcio_req *q, int err);
int iov_slice(const struct iovec *src, int cnt, uint64_t skip, uint64_t len, struct iovec *dst);

#endif
