/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The engine's core objects (engine, export, file) and what every layer
 * above does with them: their counts of outstanding work, the file's
 * group-commit job, the export's in-flight bound and error generation, the
 * engine's recent reads. Each policy's own state is a sub-struct from that
 * policy's X_types.h; this header includes no policy's functions. Never
 * included outside io/ (and its unit tests). */
#ifndef DCIO_CORE_H
#define DCIO_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bounce.h"
#include "commit_types.h"
#include "dcio.h"
#include "dcio_stats.h"
#include "errmem_types.h"
#include "flusher_types.h"
#include "kick_types.h"
#include "pool.h"
#include "rangelock.h"

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

struct dcio_req;

struct dcio_engine {
	struct dcio_syscalls sys;
	struct dcio_bounce bounce;
	unsigned int threads; /* pool threads, flusher threads */
	/* the engine's I/O handed off the caller's thread, and group-commit
	 * flushes */
	struct dcio_pool pool;
	struct dcio_flusher fl;
	pthread_mutex_t mu; /* guards outstanding */
	pthread_cond_t cv;
	long outstanding;
	int nice; /* of the engine's own threads */
	uint64_t last_read_ns; /* now_ns() of the latest read (atomic) */
	enum dcio_kick kick; /* AUTO: each export probes its filesystem */
	/* bumped with every export's verifier_gen: a file is written through
	 * whichever export its handle came from (dcio_engine_verifier_gen) */
	atomic_uint_fast64_t verifier_gen;
	uint32_t page; /* sysconf(_SC_PAGESIZE) */
	dcio_log_fn log; /* never NULL */
};

struct dcio_export {
	struct dcio_engine *e;
	struct dcio_export_params p;
	char name[128];
	atomic_bool wfallback; /* dontcache writes run as dropbehind */
	atomic_bool rfallback; /* dontcache reads run buffered */
	bool probed_wok, probed_rok, probe_failed;
	/* the kernel defers a RWF_DONTCACHE write's writeback kick on this
	 * export's filesystem (enum dcio_kick; AUTO: kick_probe) */
	bool kick_deferred;
	char kick_why[224]; /* how kick_deferred was decided */
	atomic_uint_fast64_t verifier_gen;
	/* mean of recent group flushes (ns, 1/8 weight): stable_reply_ms */
	atomic_uint_fast64_t flush_ns_avg;
	pthread_mutex_t mu; /* in-flight bound and outstanding requests */
	pthread_cond_t cv;
	uint64_t inflight, peak;
	long outstanding;
	struct fl_export fl; /* under e->fl.mu */
	struct kick_export kick; /* kick.c */
	struct dcio_stats st;
};

/* An export parameter: dcio_export_update changes them live (each an atomic
 * store, under x->mu), so every read is an atomic load. A request reads the
 * modes once, when it is built, and keeps them. */
#define XP(x, field) __atomic_load_n(&(x)->p.field, __ATOMIC_RELAXED)

/* The unit a direct file's writes are split and range-locked at: the page
 * (no page holds both cached and direct bytes of one write), or the file's
 * DIO offset alignment where that is larger. */
#define DIO_UNIT(f) \
	((f)->dio_off_align > (f)->e->page ? (f)->dio_off_align : (f)->e->page)

struct dcio_file {
	struct dcio_export *x;
	struct dcio_engine *e;
	int fd, dfd;
	uint32_t dio_off_align, dio_mem_align;
	atomic_bool used_dropbehind;
	pthread_mutex_t mu; /* guards the fields down to gc */
	pthread_cond_t cv;
	long outstanding;
	struct rangelock rl; /* under mu */
	struct dcio_req *wr_head, *wr_tail; /* falloc.c: writes in flight, */
	uint64_t wr_seq; /* in wr_seq order */
	int fa_waiters;

	struct gc_file gc; /* group commit; gc.mu guards em too */
	struct errmem em;
	struct fl_file fl; /* under e->fl.mu */
};

/* Counts of outstanding work: a request holds its file, export and
 * engine from submission to completion. */
void file_get(struct dcio_file *f);
/* After the file's count drops the file may be freed by a closer */
void file_put(struct dcio_file *f);
void engine_get(struct dcio_engine *e);
void engine_put(struct dcio_engine *e);
/* Posts the file's group-commit job (commit.c runs it) to the pool, once:
 * with gc.mu held. */
void file_post_gc(struct dcio_file *f);

/* Reads beside a streaming writer: a write larger than DCIO_PACE_WRITE_MIN
 * that would be copied on the caller's thread goes to the engine's own
 * threads instead while reads are being served (one in the last
 * DCIO_PACE_READ_WINDOW_MS) and those threads are niced: under CPU
 * contention the reads run first. The caller's thread is ganesha's and
 * keeps its priority; it hands the copy off and returns. */
#define DCIO_PACE_WRITE_MIN (64u << 10)
#define DCIO_PACE_READ_WINDOW_MS 200
void engine_read_seen(struct dcio_engine *e, uint64_t now);
bool engine_reads_recent(const struct dcio_engine *e);
bool engine_pace_write(const struct dcio_engine *e, uint64_t len);
/* While reads are being served the flusher threads yield to them too: they
 * run at DCIO_READERS_NICE, and at Engine_Nice again once reads stop (a
 * flusher at 19 all the time fell behind writers without readers). Only
 * with Engine_Nice > 0. */
#define DCIO_READERS_NICE 19

/* What kick.c works on of the export (its kick_us_per_mib read now) */
static inline struct kick_ctx export_kick(struct dcio_export *x)
{
	return (struct kick_ctx){ &x->kick, &x->st, XP(x, kick_us_per_mib) };
}

/* The export's in-flight bound: a write that does not fit waits for room */
int inflight_admit(struct dcio_export *x, uint64_t len);
void inflight_release(struct dcio_export *x, uint64_t len);
/* A data-losing error: the export's and the engine's verifiers change */
void export_note_error(struct dcio_export *x, int err);

#endif
