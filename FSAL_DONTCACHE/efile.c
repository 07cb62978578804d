// SPDX-License-Identifier: LGPL-3.0-or-later
/* Engine files, one per file, shared by its handles. Ganesha may build more
 * than one handle of the same file: an open by name makes a new one in
 * open2 and MDCACHE throws it away when the file is cached already (after
 * the open, its truncate included, went through it); an MDCACHE insert race
 * does the same. Whatever the engine remembers of a file (its lost ranges,
 * an error no COMMIT has seen) must not depend on which of them did the
 * I/O, nor on which export it came through (nested exports, a hard link into
 * two exports, one path exported twice: MDCACHE shows one object through
 * each): the engine state lives here, in one server-wide table keyed by the
 * object's identity (ident.c: fsid + kernel handle), and every handle of the
 * file references the same entry. One inode has one page cache and one
 * write-back error stream; its dirty ranges, group commit and error memory
 * are that inode's.
 *
 * The engine file (its fd and engine state) opens in the engine export of
 * the export the first request came through, and holds a reference to that
 * export until it closes (an idle one is closed by ganesha's fd reclaim and
 * reopens in the export of the next request): removing that export leaves
 * the file working for the others.
 *
 * An entry nobody references any more is closed and freed, unless it must
 * be kept: its engine file remembers lost data (its final flush failing
 * included) or it holds an error no COMMIT has seen, and the file still has
 * links. It then stays in the table unreferenced ("kept", logged), where the
 * next handle of the file finds it ("adopts" it, logged), so that the next
 * COMMIT of that data still fails. Only lost write-back data and unreported
 * errors are kept: a WRITE refused with ENOSPC/EDQUOT leaves nothing
 * (io/README.md, the error rule), so an over-quota client cannot fill the
 * table.
 *
 * Bounded, server-wide (an entry is the file's, whichever export shows it):
 * past Kept_Files_Max (DC_KEPT_MAX) entries with an open engine file the
 * oldest is "buried": its engine file (fd, range sets) is closed and the
 * entry stays in short form, its lost ranges widened to the whole file
 * (lost_err): the engine file that opens next for it loses [0, size)
 * (dcio_file_lose_all), so every COMMIT of it fails, NFSv3 and NFSv4 alike,
 * until it is rewritten and flushed. Past DC_TOMB_FACTOR times as many
 * short entries the oldest is dropped, logged, and the write verifier
 * changes first (dcio_engine_forget), while it is still in the table: no
 * NFSv4 COMMIT that finds it gone answers OK with the verifier of a lost
 * WRITE (NFSv3's verifier is ganesha's own: README). */
#include "dc_int.h"
#include "efile_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Times a release retries its close when other handles of the file open the
 * engine file again meanwhile; past it the entry is kept as it is. */
#define DC_EFILE_PUT_TRIES 8
/* Times an I/O opens the engine file when it is closed again before use */
#define DC_EFILE_OPEN_TRIES 8

struct dc_efile {
	struct dc_efile *next; /* hash chain (table mutex) */
	struct glist_head kept; /* on dc_efiles.kept while refs == 0 */
	struct dc_fs *fs; /* the file's filesystem (a reference) */
	struct dc_export *x; /* io's export while io is open (a reference) */
	struct dc_fh fh;
	uint64_t fileid; /* for the log */
	unsigned int refs; /* handles of the file (table mutex) */
	pthread_rwlock_t io_lock; /* io against close/reopen: efile_lock.h */
	struct dcio_file *io; /* engine file with its own fd */
	bool io_rdonly;
	int pending_err; /* error from an engine close, for the next COMMIT */
	/* kept in short form (io closed past the bound): the whole file is
	 * lost with this errno; each engine file that opens takes it over,
	 * and it clears when one closes clean (set and cleared under the
	 * io_lock write lock, read atomically) */
	int lost_err;
	enum { EF_LIVE, EF_KEPT, EF_TOMB } where; /* list (table mutex) */
};

static unsigned int kept_max(void)
{
	return DC.bench.kept_max != 0 ? DC.bench.kept_max : DC_KEPT_MAX;
}

static uint32_t fh_hash(const struct dc_fh *fh)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (unsigned int i = 0; i < fh->len; i++)
		h = (h ^ fh->host[i]) * 16777619u;
	return h % DC_EFILE_BUCKETS;
}

void dc_efiles_init(void)
{
	struct dc_efiles *t = gsh_calloc(1, sizeof(*t));

	DC.efiles = t;
	PTHREAD_MUTEX_init(&t->mu, NULL);
	t->bucket = gsh_calloc(DC_EFILE_BUCKETS, sizeof(*t->bucket));
	glist_init(&t->kept);
	t->nkept = 0;
	glist_init(&t->tombs);
	t->ntombs = 0;
}

/* Unlinks e from its hash chain (table mutex held). */
static void unhash(struct dc_efiles *t, struct dc_efile *e)
{
	struct dc_efile **p = &t->bucket[fh_hash(&e->fh)];

	while (*p != NULL && *p != e)
		p = &(*p)->next;
	if (*p == e)
		*p = e->next;
}

/* The engine file is closed: its export reference goes. */
static void io_closed(struct dc_efile *e)
{
	e->io = NULL;
	if (e->x != NULL) {
		dc_export_put(e->x);
		e->x = NULL;
	}
}

static void efile_free(struct dc_efile *e)
{
	PTHREAD_RWLOCK_destroy(&e->io_lock);
	dc_fs_put(e->fs);
	gsh_free(e);
}

/* Closes a kept entry (out of the table already, the verifier changed) and
 * frees it: what it remembered is gone, which is logged. */
static void close_kept(struct dc_efile *e, const char *why)
{
	int rc = e->io != NULL ? dcio_file_close(e->io) : 0;

	if (e->io != NULL)
		io_closed(e);
	LogWarn(COMPONENT_FSAL,
		"DONTCACHE: %s: file %" PRIu64
		": %s: the memory of a lost write-back (%s) is dropped, the write verifier changed",
		e->fs->path, e->fileid, why,
		strerror(e->lost_err	  ? e->lost_err
			 : e->pending_err ? e->pending_err
			 : rc		  ? rc
					  : EIO));
	efile_free(e);
}

/* Table mutex held, e->refs 0 and on no list: e joins the list its state
 * says (an open engine file: kept; none: short form). Past a bound, *bury
 * is the kept entry to close (referenced for it: bury() ends it), *drop the
 * short one to free (out of the table, the verifier changed). */
static void park(struct dc_efiles *t, struct dc_efile *e,
		 struct dc_efile **bury, struct dc_efile **drop)
{
	struct dc_efile *old;

	if (e->io != NULL) {
		glist_add_tail(&t->kept, &e->kept);
		e->where = EF_KEPT;
		if (++t->nkept <= kept_max())
			return;
		old = glist_first_entry(&t->kept, struct dc_efile, kept);
		glist_del(&old->kept);
		t->nkept--;
		old->where = EF_LIVE;
		old->refs++;
		*bury = old;
		return;
	}
	glist_add_tail(&t->tombs, &e->kept);
	e->where = EF_TOMB;
	if (++t->ntombs <= kept_max() * DC_TOMB_FACTOR)
		return;
	old = glist_first_entry(&t->tombs, struct dc_efile, kept);
	glist_del(&old->kept);
	t->ntombs--;
	old->where = EF_LIVE;
	/* before a COMMIT can miss it */
	dcio_engine_forget(DC.engine);
	unhash(t, old);
	*drop = old;
}

/* Closes a kept entry's engine file and keeps its memory in short form: the
 * whole file is lost (lost_err), an error no COMMIT has seen stays
 * pending_err. Then parks it again, unless a handle adopted it meanwhile;
 * that may bury and drop others in turn. */
static void bury(struct dc_efiles *t, struct dc_efile *e)
{
	struct dc_efile *next = NULL, *drop = NULL;
	int err = 0, rc;

	while (e != NULL) {
		PTHREAD_RWLOCK_wrlock(&e->io_lock);
		if (e->io != NULL) {
			if (dcio_file_close_clean(e->io, &err)) {
				/* nothing lost after all: its error, if any */
				if (err != 0 && e->pending_err == 0)
					e->pending_err = err;
				__atomic_store_n(&e->lost_err, 0,
						 __ATOMIC_RELEASE);
			} else {
				__atomic_store_n(&e->lost_err,
						 err != 0 ? err : EIO,
						 __ATOMIC_RELEASE);
				rc = dcio_file_close(e->io);
				if (rc != 0 && e->pending_err == 0)
					e->pending_err = rc;
			}
			io_closed(e);
		}
		err = e->lost_err;
		PTHREAD_RWLOCK_unlock(&e->io_lock);
		if (err != 0)
			LogEvent(
				COMPONENT_FSAL,
				"DONTCACHE: %s: file %" PRIu64
				": more than %u kept engine files: this one is closed, the whole file counts as lost (%s) until rewritten",
				e->fs->path, e->fileid, kept_max(),
				strerror(err));
		next = NULL;
		PTHREAD_MUTEX_lock(&t->mu);
		if (--e->refs == 0) {
			if (e->lost_err == 0 && e->pending_err == 0 &&
			    e->io == NULL) {
				unhash(t, e);
				PTHREAD_MUTEX_unlock(&t->mu);
				efile_free(e);
				e = NULL;
				continue;
			}
			park(t, e, &next, &drop);
		}
		PTHREAD_MUTEX_unlock(&t->mu);
		if (drop != NULL) {
			close_kept(
				drop,
				"too many evicted files with lost write-back data");
			drop = NULL;
		}
		e = next;
	}
}

struct dc_efile *dc_efile_get(struct dc_fs *fs, const struct dc_fh *fh,
			      uint64_t fileid)
{
	struct dc_efiles *t = DC.efiles;
	uint32_t b = fh_hash(fh);
	struct dc_efile *e;
	pthread_rwlockattr_t lock_attr; /* not "attr": 6.5's macro has one */
	bool adopted = false;

	PTHREAD_MUTEX_lock(&t->mu);
	for (e = t->bucket[b]; e != NULL; e = e->next)
		if (dc_fh_eq(&e->fh, fh))
			break;
	if (e == NULL) {
		e = gsh_calloc(1, sizeof(*e));
		e->fs = fs;
		dc_fs_get(fs);
		e->fh = *fh;
		e->fileid = fileid;
		glist_init(&e->kept);
		dc_io_lock_attr(&lock_attr);
		PTHREAD_RWLOCK_init(&e->io_lock, &lock_attr);
		pthread_rwlockattr_destroy(&lock_attr);
		e->next = t->bucket[b];
		t->bucket[b] = e;
	} else if (e->refs == 0 && e->where != EF_LIVE) {
		glist_del(&e->kept);
		if (e->where == EF_KEPT)
			t->nkept--;
		else
			t->ntombs--;
		e->where = EF_LIVE;
		adopted = true;
	}
	e->refs++;
	PTHREAD_MUTEX_unlock(&t->mu);
	if (adopted)
		LogEvent(COMPONENT_FSAL,
			 "DONTCACHE: %s: file %" PRIu64
			 " adopts its kept engine file",
			 fs->path, e->fileid);
	return e;
}

static bool unlinked(struct dcio_file *io)
{
	struct stat st;

	return io != NULL && fstat(dcio_file_fd(io), &st) == 0 &&
	       st.st_nlink == 0;
}

void dc_efile_put(struct dc_efile *e)
{
	struct dc_efiles *t = DC.efiles;
	struct dc_efile *old = NULL, *drop = NULL;
	bool tried_closed = false, dead = false;
	unsigned int n;

	PTHREAD_MUTEX_lock(&t->mu);
	/* The last reference closes the engine file first, keeping that
	 * reference meanwhile (the flush may take long: the table is not held).
	 * A handle of the file built meanwhile takes the entry over; one that
	 * opened the engine file again and went away makes this try again. */
	for (int i = 0; e->refs == 1; i++) {
		if (e->io == NULL && e->pending_err == 0 && e->lost_err == 0) {
			unhash(t, e);
			PTHREAD_MUTEX_unlock(&t->mu);
			efile_free(e);
			return;
		}
		if (i > 0 &&
		    (!tried_closed || e->io == NULL || i == DC_EFILE_PUT_TRIES))
			break;
		PTHREAD_MUTEX_unlock(&t->mu);
		tried_closed = dc_efile_close_if_clean(e);
		PTHREAD_MUTEX_lock(&t->mu);
	}
	if (--e->refs > 0) {
		PTHREAD_MUTEX_unlock(&t->mu);
		return;
	}
	/* kept: lost data or an error no COMMIT has seen, unless no COMMIT can
	 * reach the file any more */
	if (unlinked(e->io)) {
		unhash(t, e);
		dead = true;
	} else {
		park(t, e, &old, &drop);
	}
	n = t->nkept;
	PTHREAD_MUTEX_unlock(&t->mu);
	if (dead) {
		dcio_file_close(e->io);
		io_closed(e);
		efile_free(e);
		return;
	}
	LogEvent(
		COMPONENT_FSAL,
		"DONTCACHE: %s: file %" PRIu64
		": handle evicted with lost write-back data: engine file kept (%u kept)",
		e->fs->path, e->fileid, n);
	if (drop != NULL)
		close_kept(drop,
			   "too many evicted files with lost write-back data");
	if (old != NULL)
		bury(t, old);
}

void dc_efiles_drain(void)
{
	struct dc_efiles *t = DC.efiles;
	struct dc_efile *e;
	unsigned int busy = 0;

	for (;;) {
		PTHREAD_MUTEX_lock(&t->mu);
		e = glist_first_entry(&t->kept, struct dc_efile, kept);
		if (e != NULL) {
			t->nkept--;
		} else {
			e = glist_first_entry(&t->tombs, struct dc_efile, kept);
			if (e != NULL)
				t->ntombs--;
		}
		if (e != NULL) {
			glist_del(&e->kept);
			e->where = EF_LIVE;
			dcio_engine_forget(DC.engine);
			unhash(t, e);
		}
		PTHREAD_MUTEX_unlock(&t->mu);
		if (e == NULL)
			break;
		close_kept(e, "module unloaded");
	}
	PTHREAD_MUTEX_lock(&t->mu);
	for (unsigned int b = 0; b < DC_EFILE_BUCKETS; b++)
		for (e = t->bucket[b]; e != NULL; e = e->next)
			busy++;
	PTHREAD_MUTEX_unlock(&t->mu);
	if (busy != 0) {
		/* handles still reference them: the table stays allocated */
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: unloaded with %u engine files still in use",
			busy);
		return;
	}
	gsh_free(t->bucket);
	PTHREAD_MUTEX_destroy(&t->mu);
	gsh_free(t);
	DC.efiles = NULL;
}

/* Engine file I/O ------------------------------------------------------- */

static int open_engine_file(struct dc_efile *e, bool need_write)
{
	struct dc_export *x = dc_ctx_export();
	int fd, rc;

	if (e->io != NULL && !(need_write && e->io_rdonly))
		return 0;
	if (x == NULL)
		return ESTALE;
	fd = dc_open_fh(e->fs, &e->fh, O_RDWR);
	if (fd < 0 && !need_write &&
	    (errno == EROFS || errno == EACCES || errno == EPERM))
		fd = dc_open_fh(e->fs, &e->fh, O_RDONLY);
	if (fd < 0) /* the handle's inode is gone: ENOENT is ESTALE */
		return (errno == ENOENT) ? ESTALE : errno;
	if (e->io != NULL) {
		/* upgrade a read-only engine file */
		rc = dcio_file_close(e->io);
		if (rc != 0 && e->pending_err == 0)
			e->pending_err = rc;
		io_closed(e);
	}
	rc = dcio_file_open(x->io, fd, &e->io);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	if (e->lost_err != 0) {
		/* kept in short form: the engine file remembers the whole file
		 * lost (lost_err stays until it closes clean) */
		dcio_file_lose_all(e->io, e->lost_err);
	}
	dc_export_get(x);
	e->x = x;
	e->io_rdonly = (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY;
	return 0;
}

/* Opened under the write lock, used under the read lock: a close between
 * the two (the last NFSv4 CLOSE, ganesha's fd reaper) makes it open again,
 * a bounded number of times (then the client is asked to retry). */
int dc_efile_io(struct dc_efile *e, bool need_write, struct dcio_file **io)
{
	int rc;

	for (int i = 0; i < DC_EFILE_OPEN_TRIES; i++) {
		PTHREAD_RWLOCK_rdlock(&e->io_lock);
		if (e->io != NULL && !(need_write && e->io_rdonly)) {
			*io = e->io;
			return 0;
		}
		PTHREAD_RWLOCK_unlock(&e->io_lock);
		PTHREAD_RWLOCK_wrlock(&e->io_lock);
		rc = open_engine_file(e, need_write);
		PTHREAD_RWLOCK_unlock(&e->io_lock);
		if (rc != 0)
			return rc;
	}
	return EAGAIN;
}

/* A closed engine file stays closed: nothing is opened outside ganesha's fd
 * accounting for an operation that needs no open one. */
bool dc_efile_io_if_open(struct dc_efile *e, struct dcio_file **io)
{
	PTHREAD_RWLOCK_rdlock(&e->io_lock);
	if (e->io != NULL) {
		*io = e->io;
		return true;
	}
	PTHREAD_RWLOCK_unlock(&e->io_lock);
	return false;
}

void dc_efile_io_done(struct dc_efile *e)
{
	PTHREAD_RWLOCK_unlock(&e->io_lock);
}

int dc_efile_take_error(struct dc_efile *e)
{
	return __atomic_exchange_n(&e->pending_err, 0, __ATOMIC_ACQ_REL);
}

/* lost_err stays set while an engine file that took it over is open (it
 * clears only at a clean close): a COMMIT that found the file closed fails
 * even if an engine file opens meanwhile. */
int dc_efile_closed_error(struct dc_efile *e)
{
	int lost = __atomic_load_n(&e->lost_err, __ATOMIC_ACQUIRE);

	return lost != 0 ? lost : dc_efile_take_error(e);
}

/* In one step under the write lock: no WRITE can be acknowledged between
 * the decision and the close. The wait for the lock is bounded by the I/O
 * already holding it (efile_lock.h: new I/O queues behind this). */
bool dc_efile_close_if_clean(struct dc_efile *e)
{
	bool closed = true;
	int rc = 0;

	PTHREAD_RWLOCK_wrlock(&e->io_lock);
	if (e->io != NULL) {
		closed = dcio_file_close_clean(e->io, &rc);
		if (closed) {
			io_closed(e);
			if (rc != 0 && e->pending_err == 0)
				e->pending_err = rc;
			/* it remembered nothing lost: a whole-file loss it
			 * took over was rewritten and flushed (or cut off) */
			__atomic_store_n(&e->lost_err, 0, __ATOMIC_RELEASE);
		}
	}
	PTHREAD_RWLOCK_unlock(&e->io_lock);
	return closed;
}
