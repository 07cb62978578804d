// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE file I/O: adapts ganesha's open/read/write/commit/close
 * calls to the dcio engine. Share reservations and NFSv4 open state are
 * tracked here (flags only); all I/O goes through one engine file per inode
 * with its own fd, so writeback state and errors live in one place. */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "FSAL/access_check.h"
#include "export_mgr.h"
#include "sal_functions.h"

static struct fsal_fd *state_fd(struct state_t *state)
{
	return &container_of(state, struct dc_state, state)->fd;
}

/* Engine file ----------------------------------------------------------- */

/* Gives the engine fd back when nothing is lost: it flushes first, so that
 * an error stays with the open engine file, where every later COMMIT of the
 * data it lost will see it. The entry stays while handles reference it.
 * Also for fd_v11.c and fd_v13.c: ganesha closes the global fd (its reaper,
 * an evicted handle). */
void dc_release_engine_file(struct dc_handle *h)
{
	if (!dc_efile_close_if_clean(h->file.ef))
		LogInfo(COMPONENT_FSAL,
			"DONTCACHE: %s: file %" PRIu64
			" has lost write-back data: its engine file stays open",
			h->fs->path, h->obj_handle.fileid);
}

/* The handle is being freed: its reference to the file's engine state goes
 * (the last one closes the engine file, or keeps it for its lost data). */
void dc_file_release(struct dc_handle *h)
{
	dc_efile_put(h->file.ef);
	h->file.ef = NULL;
}

/* Open / close ---------------------------------------------------------- */

/* ganesha's open permission rule (check_open_permission in fsal_helper.c),
 * run by the module before it changes anything: ganesha runs its own only
 * after open2 returns, and not at all on some paths (an MDCACHE hit of an
 * open by name, an NFSv4 open upgrade). A read-only open of a file the caller
 * may only execute is allowed, as there. */
static fsal_status_t open_permission(struct fsal_obj_handle *obj,
				     fsal_openflags_t openflags,
				     bool owner_skip)
{
	fsal_accessflags_t mask = 0;
	fsal_status_t st;

	if (openflags & FSAL_O_READ)
		mask |= FSAL_READ_ACCESS;
	if (openflags & (FSAL_O_WRITE | FSAL_O_TRUNC))
		mask |= FSAL_WRITE_ACCESS;
	if (mask == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	st = obj->obj_ops->test_access(obj, mask, NULL, NULL, owner_skip);
	if (st.major != ERR_FSAL_ACCESS || (mask & FSAL_WRITE_ACCESS))
		return st;
	return obj->obj_ops->test_access(obj, FSAL_EXECUTE_ACCESS, NULL, NULL,
					 false);
}

/* The kernel refuses an open for write, and a truncate, of an append-only
 * or immutable file with EPERM whoever asks (FSAL_VFS answers its open's
 * EPERM: NFS4ERR_PERM). No fd is opened for an open here (the engine file
 * is opened at the first I/O): the inode's flags are read instead. */
static fsal_status_t write_open_flags(struct dc_handle *h)
{
	struct statx sx;
	int fd, err = 0;

	fd = dc_open_fh(h->fs, &h->fh, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(errno == ENOENT ? ESTALE : errno);
	memset(&sx, 0, sizeof(sx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_TYPE,
		  &sx) != 0)
		err = errno;
	close(fd);
	if (err != 0)
		return posix2fsal_status(err);
	if (sx.stx_attributes & sx.stx_attributes_mask &
	    (STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE))
		return fsalstat(ERR_FSAL_PERM, EPERM);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static fsal_status_t truncate_locked(struct dc_handle *h, uint64_t size)
{
	struct dcio_file *io;
	int rc = dc_efile_io(h->file.ef, true, &io);

	if (rc != 0)
		return posix2fsal_status(rc);
	/* as the caller, like a WRITE: the kernel then clears set-id bits and
	 * applies the caller's reserve as for a local user's truncate */
	fsal_set_credentials(&op_ctx->creds);
	rc = dcio_file_truncate(io, size);
	fsal_restore_ganesha_credentials();
	dc_efile_io_done(h->file.ef);
	if (rc != 0)
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: truncate to %" PRIu64 " as uid %u: %s",
			     size, (unsigned int)op_ctx->creds.caller_uid,
			     strerror(rc));
	return posix2fsal_status(rc);
}

/* Opens an existing file. Unless this call created it (created), the
 * caller's permission is checked first: nothing (share state, size) changes
 * when it is refused. */
static fsal_status_t
open_by_handle(struct fsal_obj_handle *obj, struct state_t *state,
	       fsal_openflags_t openflags, enum fsal_create_mode createmode,
	       fsal_verifier_t verifier, struct fsal_attrlist *attrs_out,
	       bool created)
{
	struct dc_handle *h = dc_hdl(obj);
	struct fsal_fd *fd = state ? state_fd(state) : &h->file.gfd;
	fsal_status_t st = fsalstat(ERR_FSAL_NO_ERROR, 0);
	struct fsal_attrlist attrs;

	if (obj->type != REGULAR_FILE)
		return fsalstat(obj->type == DIRECTORY ? ERR_FSAL_ISDIR
						       : ERR_FSAL_INVAL,
				0);

	fsal_prepare_attrs(&attrs, ATTRS_POSIX);
	st = obj->obj_ops->getattrs(obj, &attrs);
	if (!FSAL_IS_ERROR(st) && createmode >= FSAL_EXCLUSIVE &&
	    createmode != FSAL_EXCLUSIVE_9P &&
	    !check_verifier_attrlist(&attrs, verifier, false))
		st = fsalstat(ERR_FSAL_EXIST, EEXIST);
	/* an exclusive create's replay and a reclaim skip the owner's bits,
	 * as ganesha's own check does */
	if (!FSAL_IS_ERROR(st) && !created)
		st = open_permission(obj, openflags,
				     createmode >= FSAL_EXCLUSIVE ||
					     (openflags & FSAL_O_RECLAIM));
	if (!FSAL_IS_ERROR(st) && !created &&
	    (openflags & (FSAL_O_WRITE | FSAL_O_TRUNC)))
		st = write_open_flags(h);
	if (FSAL_IS_ERROR(st)) {
		fsal_release_attrs(&attrs);
		return st;
	}

	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	if (state != NULL) {
		st = check_share_conflict(&h->file.share, openflags, false);
		if (FSAL_IS_ERROR(st)) {
			PTHREAD_RWLOCK_unlock(&obj->obj_lock);
			fsal_release_attrs(&attrs);
			return st;
		}
		update_share_counters(&h->file.share, FSAL_O_CLOSED, openflags);
	}
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);

	if (openflags & FSAL_O_TRUNC) {
		st = truncate_locked(h, 0);
		if (!FSAL_IS_ERROR(st)) {
			fsal_release_attrs(&attrs);
			fsal_prepare_attrs(&attrs, ATTRS_POSIX);
			st = obj->obj_ops->getattrs(obj, &attrs);
		}
	}
	if (!FSAL_IS_ERROR(st)) {
		dc_fd_set_open(h, fd, openflags);
		if (attrs_out != NULL)
			fsal_copy_attrs(attrs_out, &attrs, false);
	} else if (state != NULL) {
		PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
		update_share_counters(&h->file.share, openflags, FSAL_O_CLOSED);
		PTHREAD_RWLOCK_unlock(&obj->obj_lock);
	}
	fsal_release_attrs(&attrs);
	return st;
}

/* Opens by name as the caller: O_EXCL, and for UNCHECKED then an open
 * without O_CREAT, so that *created says exactly whether this call made the
 * file (a file removed in between is created again, a bounded number of
 * times). */
static int open_or_create(int dfd, const char *name, mode_t mode,
			  enum fsal_create_mode createmode, bool *created)
{
	int fd = -1, err;

	*created = false;
	/* O_PATH: no open as root of what is there (a FIFO would block) */
	if (createmode == FSAL_NO_CREATE)
		return openat(dfd, name, O_PATH | O_NOFOLLOW);
	fsal_set_credentials(&op_ctx->creds);
	for (int i = 0; i < 4; i++) {
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CREAT | O_EXCL,
			    mode);
		if (fd >= 0) {
			*created = true;
			break;
		}
		if (errno != EEXIST || createmode != FSAL_UNCHECKED)
			break;
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW);
		if (fd >= 0 || errno != ENOENT)
			break;
	}
	err = errno;
	fsal_restore_ganesha_credentials();
	errno = err;
	return fd;
}

/**
 * @brief Open or create a file
 *
 * @param[in] obj_hdl The object
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] openflags The access asked for
 * @param[in] createmode How to create (unchecked, guarded, exclusive)
 * @param[in] name The name
 * @param[in] attrs_in The attributes to set
 * @param[in] verifier The exclusive create verifier
 * @param[out] new_obj The object opened or created
 * @param[out] attrs_out The object's attributes (optional)
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
fsal_status_t dc_open2(struct fsal_obj_handle *obj_hdl, struct state_t *state,
		       fsal_openflags_t openflags,
		       enum fsal_create_mode createmode, const char *name,
		       struct fsal_attrlist *attrs_in, fsal_verifier_t verifier,
		       struct fsal_obj_handle **new_obj,
		       struct fsal_attrlist *attrs_out,
		       bool *caller_perm_check DC_PARENT_ATTRS)
{
	struct dc_handle *dir = dc_hdl(obj_hdl), *h = NULL;
	int dfd, fd, err;
	mode_t mode = 0;
	bool created = false;
	fsal_status_t st;
	struct stat cst;

	/* every path below checks the caller's permission before it changes
	 * anything: ganesha's check afterwards would come too late */
	*caller_perm_check = false;
	if (createmode >= FSAL_EXCLUSIVE)
		set_common_verifier(attrs_in, verifier, false);
	if (name == NULL)
		return open_by_handle(obj_hdl, state, openflags, createmode,
				      verifier, attrs_out, false);
	st = dc_check_name(name);
	if (FSAL_IS_ERROR(st))
		return st;

	if (createmode != FSAL_NO_CREATE) {
		mode = fsal2unix_mode(attrs_in->mode) &
		       ~op_ctx->fsal_export->exp_ops.fs_umask(
			       op_ctx->fsal_export);
		FSAL_UNSET_MASK(attrs_in->valid_mask, ATTR_MODE);
	}
	dfd = dc_open_fh(dir->fs, &dir->fh, O_PATH | O_DIRECTORY);
	if (dfd < 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: open of the directory of %s: %s", name,
			     strerror(err));
		return posix2fsal_status(err);
	}
	fd = open_or_create(dfd, name, mode, createmode, &created);
	err = errno;
	if (fd < 0) {
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: open of %s: %s", name,
			     strerror(err));
		close(dfd);
		/* O_NOFOLLOW met a symlink: ELOOP becomes EINVAL (an OPEN
		 * of a symlink is an invalid argument, not a loop) */
		return posix2fsal_status(err == ELOOP ? EINVAL : err);
	}
	/* the inode this call created: undone on failure only while the name
	 * still refers to it */
	if (fstat(fd, &cst) != 0) {
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: fstat of %s: %s", name,
			     strerror(errno));
		cst.st_ino = 0;
		cst.st_dev = 0;
	}
	/* the handle and its attributes from the fd itself: the name may
	 * already be another file (renamed onto it), which this call neither
	 * created nor checked */
	st = dc_make_handle(fd, "", dir->fs, &h, NULL);
	close(fd);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: the handle of the file opened as %s: %s",
			name, fsal_err_txt(st));
		goto fail;
	}
	if (h->obj_handle.type != REGULAR_FILE) {
		st = fsalstat(h->obj_handle.type == DIRECTORY
				      ? ERR_FSAL_ISDIR
				      : ERR_FSAL_SYMLINK,
			      0);
		goto fail;
	}
	*new_obj = &h->obj_handle;

	/* attributes are set only on a file this call created */
	if (created && attrs_in->valid_mask != 0) {
		st = h->obj_handle.obj_ops->setattr2(&h->obj_handle, false,
						     state, attrs_in);
		if (FSAL_IS_ERROR(st))
			goto fail;
	}
	/* the open itself, on the new handle (permission unless created,
	 * share, truncate, attributes): the creator may write through the open
	 * that created a read-only file */
	st = open_by_handle(&h->obj_handle, state, openflags,
			    created ? FSAL_NO_CREATE : createmode, verifier,
			    attrs_out, created);
	if (FSAL_IS_ERROR(st))
		goto fail;
	close(dfd);
	return st;

fail:
	LogFullDebug(COMPONENT_FSAL, "DONTCACHE: open2 of %s (%s): %s", name,
		     created ? "created" : "existing", fsal_err_txt(st));
	if (created && cst.st_ino != 0)
		dc_unlink_created(dfd, name, cst.st_dev, cst.st_ino, false);
	if (h != NULL)
		h->obj_handle.obj_ops->release(&h->obj_handle);
	*new_obj = NULL;
	close(dfd);
	return st;
}

/**
 * @brief Change the access of an open state
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] openflags The access asked for
 *
 * @return FSAL status
 */
fsal_status_t dc_reopen2(struct fsal_obj_handle *obj, struct state_t *state,
			 fsal_openflags_t openflags)
{
	struct dc_handle *h = dc_hdl(obj);
	struct fsal_fd *fd = state_fd(state);
	fsal_openflags_t old = fd->openflags;
	fsal_openflags_t add = openflags & ~old & FSAL_O_RDWR;
	fsal_status_t st;

	/* ganesha does not check an NFSv4 open upgrade: access the open did
	 * not have, and a truncate, need the caller's permission */
	if (openflags & FSAL_O_TRUNC)
		add |= FSAL_O_WRITE;
	st = open_permission(obj, add, openflags & FSAL_O_RECLAIM);
	if (!FSAL_IS_ERROR(st) && (add & FSAL_O_WRITE))
		st = write_open_flags(h);
	if (FSAL_IS_ERROR(st))
		return st;

	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	st = check_share_conflict(&h->file.share, openflags, false);
	if (FSAL_IS_ERROR(st)) {
		PTHREAD_RWLOCK_unlock(&obj->obj_lock);
		return st;
	}
	update_share_counters(&h->file.share, old, openflags);
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);

	if (openflags & FSAL_O_TRUNC) {
		st = truncate_locked(h, 0);
		if (FSAL_IS_ERROR(st)) {
			PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
			update_share_counters(&h->file.share, openflags, old);
			PTHREAD_RWLOCK_unlock(&obj->obj_lock);
			return st;
		}
	}
	dc_fd_set_open(h, fd, openflags);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief The access an open state holds
 *
 * ganesha's status2: the open flags a state's fd records
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 *
 * @return The open flags
 */
fsal_openflags_t dc_state_openflags(struct fsal_obj_handle *obj,
				    struct state_t *state)
{
	return state_fd(state)->openflags;
}

/**
 * @brief Close an open or lock state
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 *
 * @return FSAL status
 */
fsal_status_t dc_close2(struct fsal_obj_handle *obj, struct state_t *state)
{
	struct dc_handle *h = dc_hdl(obj);
	struct fsal_fd *fd = state_fd(state);
	bool last;

	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	if (state->state_type == STATE_TYPE_SHARE ||
	    state->state_type == STATE_TYPE_NLM_SHARE ||
	    state->state_type == STATE_TYPE_9P_FID)
		update_share_counters(&h->file.share, fd->openflags,
				      FSAL_O_CLOSED);
	dc_fd_close(h, fd);
	/* a lock state's locks go with it (ganesha's SAL released them) */
	if (dc_state_is_lock(state))
		dc_lock_fd_close(container_of(state, struct dc_state, state));
	last = h->file.share.share_access_read == 0 &&
	       h->file.share.share_access_write == 0 &&
	       h->file.gfd.openflags == FSAL_O_CLOSED;
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);
	/* NFSv4 opens are not counted by ganesha's fd reaper: the last CLOSE
	 * gives the engine fd back (unless it remembers lost data). */
	if (last)
		dc_release_engine_file(h);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* SETATTR size: the owner or a caller with write permission (ganesha's rule,
 * checked here too, before the change); a size past 2^63-1 would be past any
 * filesystem's maximum (the kernel answers EFBIG past its own). */
fsal_status_t dc_truncate(struct dc_handle *h, bool bypass,
			  struct state_t *state, uint64_t size)
{
	fsal_status_t st;

	if (size > (uint64_t)INT64_MAX)
		return fsalstat(ERR_FSAL_FBIG, EFBIG);
	st = h->obj_handle.obj_ops->test_access(&h->obj_handle, FSAL_W_OK, NULL,
						NULL, true);
	if (FSAL_IS_ERROR(st))
		return st;
	st = dc_fd_check_io(h, bypass, state, FSAL_O_WRITE, false);
	if (FSAL_IS_ERROR(st))
		return st;
	st = truncate_locked(h, size);
	dc_fd_io_end(h, state, FSAL_O_WRITE);
	return st;
}

/* Async I/O ------------------------------------------------------------- */

struct dc_io {
	struct fsal_obj_handle *obj;
	fsal_async_cb done_cb;
	struct fsal_io_arg *io_arg;
	void *caller_arg;
	struct gsh_export *gexp;
	struct fsal_export *fexp;
	size_t want;
	struct state_t *state; /* the I/O's (NULL: stateless) */
	bool is_read;
	bool durable; /* a write flushed before its answer (dcio_write) */
};

static size_t iov_total(const struct fsal_io_arg *a)
{
	size_t n = 0;

	for (int i = 0; i < a->iov_count; i++)
		n += a->iov[i].iov_len;
	return n;
}

static void *put_export_thread(void *arg)
{
	put_gsh_export(arg);
	return NULL;
}

/* Drops an export reference on an engine thread. The last one releases the
 * export, whose teardown waits for the export's engine I/O, the request this
 * thread is completing included: that put goes to a thread of its own. */
static void put_export_off_engine(struct gsh_export *gexp)
{
	int64_t r = __atomic_load_n(&gexp->refcnt, __ATOMIC_ACQUIRE);
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	while (r > 1)
		if (__atomic_compare_exchange_n(&gexp->refcnt, &r, r - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&tid, &attr, put_export_thread, gexp);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: cannot start a thread to release export %u (%s): it stays allocated",
			gexp->export_id, strerror(rc));
}

/* The completion of every READ and WRITE the engine answers later (the only
 * asynchronous completion of the module: COMMIT and the v42.c operations
 * answer synchronously). Like FSAL_MEM's mem_async_complete it always builds
 * an op context of its own from the request's exports, whether it runs on an
 * engine thread (no op context: MDCACHE's callback dereferences
 * op_ctx->fsal_export) or inline on the request's thread (that context is
 * saved and restored around it). The context uses io's export reference,
 * which is dropped off the engine afterwards. */
static void io_done(void *arg, int err, size_t bytes)
{
	struct dc_io *io = arg;
	struct req_op_context ctx;

	init_op_context_simple(&ctx, io->gexp, io->fexp);
	/* the I/O ended: a stateless one's share reservation goes before the
	 * client hears of it */
	dc_fd_io_end(dc_hdl(io->obj), io->state,
		     io->is_read ? FSAL_O_READ : FSAL_O_WRITE);
	io->io_arg->io_amount = err ? 0 : bytes;
	/* an UNSTABLE write that rode a group flush (Stable_Reply_Ms) is
	 * answered FILE_SYNC: the client needs no COMMIT for it */
	if (!io->is_read && !err && io->durable)
		io->io_arg->fsal_stable = true;
	if (io->is_read && !err)
		io->io_arg->end_of_file = bytes < io->want;
	io->done_cb(io->obj, posix2fsal_status(err), io->io_arg,
		    io->caller_arg);
	/* the export reference is io's: not release_op_context's to drop */
	op_ctx->ctx_export = NULL;
	release_op_context();
	put_export_off_engine(io->gexp);
	gsh_free(io);
}

/* Every file size is at least this large: writes ending below it need no
 * lseek check against the filesystem's maximum. */
#define DC_SURE_FILE_SIZE (1ULL << 31)

/* Offsets as the kernel server answers them: an offset past 2^63-1 (off_t
 * -1 would be "the current position" to pwritev2) is INVAL; a
 * WRITE ending past 2^63-1 is FBIG; a READ running past it is shortened
 * (nothing is stored there: it reads to end of file). */
static fsal_status_t check_range(struct fsal_io_arg *a, bool is_read,
				 size_t len)
{
	uint64_t room;

	if (a->offset > (uint64_t)INT64_MAX)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	room = (uint64_t)INT64_MAX - a->offset;
	if (len <= room)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (!is_read)
		return fsalstat(ERR_FSAL_FBIG, EFBIG);
	for (int i = 0; i < a->iov_count; i++) {
		if (a->iov[i].iov_len > room)
			a->iov[i].iov_len = room;
		room -= a->iov[i].iov_len;
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief Start a READ or a WRITE
 *
 * Checks the file, the share reservation, the range and the engine file,
 * then hands the I/O to the engine (io_done answers it) or answers it here:
 * a refusal, or a READ of cached data (dcio_read_nowait). Every answer given
 * here leaves through one exit, which releases what was taken.
 *
 * @param[in] obj        The file
 * @param[in] bypass     Whether to bypass share reservations (delegations)
 * @param[in] done_cb    Callback answering the request
 * @param[in] a          The I/O's arguments and results
 * @param[in] caller_arg Argument for done_cb
 * @param[in] is_read    READ (true) or WRITE
 */
static void submit(struct fsal_obj_handle *obj, bool bypass,
		   fsal_async_cb done_cb, struct fsal_io_arg *a,
		   void *caller_arg, bool is_read)
{
	struct dc_handle *h = dc_hdl(obj);
	fsal_openflags_t need = is_read ? FSAL_O_READ : FSAL_O_WRITE;
	struct dcio_file *file = NULL;
	struct dc_io *io = NULL;
	bool reserved = false; /* the share check's, ended before an answer */
	fsal_status_t st;
	size_t want = 0, n = 0;
	int rc;

	if (obj->type != REGULAR_FILE) {
		st = fsalstat(obj->type == DIRECTORY ? ERR_FSAL_ISDIR
						     : ERR_FSAL_INVAL,
			      0);
		goto out;
	}
	if (is_read && a->info != NULL) { /* READ_PLUS */
		st = fsalstat(ERR_FSAL_NOTSUPP, 0);
		goto out;
	}
	st = dc_fd_check_io(h, bypass, a->state, need, false);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: %s: share check: %s",
			     is_read ? "read" : "write",
			     msg_fsal_err(st.major));
		goto out;
	}
	reserved = true;
	want = iov_total(a);
	st = check_range(a, is_read, want);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: %s of %zu bytes at %" PRIu64 ": %s",
			     is_read ? "read" : "write", want, a->offset,
			     msg_fsal_err(st.major));
		goto out;
	}
	rc = dc_efile_io(h->file.ef, !is_read, &file);
	if (rc != 0) {
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: engine file: %s",
			     strerror(rc));
		file = NULL;
		st = posix2fsal_status(rc);
		goto out;
	}
	/* past the filesystem's maximum file size (per inode: ext4 files
	 * without extents have a smaller one): lseek accepts exactly the
	 * offsets a write may reach. The kernel would write the part below
	 * and fail the rest: refuse it whole. */
	if (!is_read && want > 0 && a->offset + want > DC_SURE_FILE_SIZE &&
	    lseek(dcio_file_fd(file), (off_t)(a->offset + want), SEEK_SET) <
		    0) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: write end %" PRIu64
			     " past the maximum file size",
			     a->offset + want);
		st = fsalstat(ERR_FSAL_FBIG, EFBIG);
		goto out;
	}
	if (is_read) {
		/* cached data is answered here, without a hand-off to an
		 * engine thread; what would block goes to the engine */
		rc = dcio_read_nowait(file, a->iov, a->iov_count, a->offset,
				      &n);
		if (rc != EAGAIN) {
			a->io_amount = n;
			a->end_of_file = rc == 0 && n < want;
			st = posix2fsal_status(rc);
			goto out;
		}
	}
	io = gsh_calloc(1, sizeof(*io));
	*io = (struct dc_io){ .obj = obj,
			      .done_cb = done_cb,
			      .io_arg = a,
			      .caller_arg = caller_arg,
			      .gexp = op_ctx->ctx_export,
			      .fexp = op_ctx->fsal_export,
			      .want = want,
			      .state = a->state,
			      .is_read = is_read };
	get_gsh_export_ref(io->gexp);
	if (is_read) {
		rc = dcio_read(file, a->iov, a->iov_count, a->offset, io_done,
			       io);
	} else {
		/* the data is written as the caller (op_ctx->creds: squashed
		 * and anonymous callers carry the export's anonymous ids) on
		 * whichever thread the engine issues it */
		struct dcio_cred cred = {
			.uid = op_ctx->creds.caller_uid,
			.gid = op_ctx->creds.caller_gid,
			.ngroups = op_ctx->creds.caller_glen,
			.groups = op_ctx->creds.caller_garray,
		};

		rc = dcio_write(file, a->iov, a->iov_count, a->offset,
				/* FILE_SYNC and DATA_SYNC both arrive as
				 * fsal_stable: FILE_SYNC needs the metadata */
				a->fsal_stable ? DCIO_FILE_SYNC : DCIO_UNSTABLE,
				&cred, &io->durable, io_done, io);
	}
	if (rc != 0) {
		/* refused at once (EAGAIN: in-flight bound full) */
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: %s of %zu bytes at %" PRIu64
			     " refused: %s",
			     is_read ? "read" : "write", want, a->offset,
			     strerror(rc));
		put_gsh_export(io->gexp);
		gsh_free(io);
		io = NULL;
		st = posix2fsal_status(rc);
	}
out:
	if (file != NULL)
		dc_efile_io_done(h->file.ef);
	if (io != NULL)
		return; /* io_done answers it and ends the reservation */
	if (reserved)
		dc_fd_io_end(h, a->state, need);
	done_cb(obj, st, a, caller_arg);
}

/**
 * @brief Read from a file
 *
 * @param[in] obj The object
 * @param[in] bypass Whether to bypass share reservations (delegations)
 * @param[in] done_cb Callback answering the request
 * @param[in] a The I/O's arguments and results
 * @param[in] caller_arg Argument for done_cb
 */
void dc_read2(struct fsal_obj_handle *obj, bool bypass, fsal_async_cb done_cb,
	      struct fsal_io_arg *a, void *caller_arg)
{
	submit(obj, bypass, done_cb, a, caller_arg, true);
}

/**
 * @brief Write to a file
 *
 * @param[in] obj The object
 * @param[in] bypass Whether to bypass share reservations (delegations)
 * @param[in] done_cb Callback answering the request
 * @param[in] a The I/O's arguments and results
 * @param[in] caller_arg Argument for done_cb
 */
void dc_write2(struct fsal_obj_handle *obj, bool bypass, fsal_async_cb done_cb,
	       struct fsal_io_arg *a, void *caller_arg)
{
	submit(obj, bypass, done_cb, a, caller_arg, false);
}

/**
 * @brief Commit written data to stable storage
 *
 * @param[in] obj The object
 * @param[in] offset Start of the range
 * @param[in] len Length of the range (0: to the end)
 *
 * @return FSAL status
 */
fsal_status_t dc_commit2(struct fsal_obj_handle *obj, off_t offset, size_t len)
{
	struct dc_handle *h = dc_hdl(obj);
	struct dcio_file *io;
	int rc, pending;

	if (obj->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	/* a range past 2^63-1 is clamped as the kernel server does (NFSv3
	 * COMMIT has no INVAL): from past the end, the whole file */
	if (offset < 0) {
		offset = 0;
		len = 0;
	} else if (len > (uint64_t)INT64_MAX - (uint64_t)offset) {
		len = 0;
	}
	/* A closed engine file was flushed by its close (one whose flush
	 * failed, or that remembers lost data, stays open): nothing is left to
	 * commit but an error that close left behind. It is not opened again:
	 * ganesha's fd accounting would not know of that fd (6.5's reaper
	 * never visits a file whose global fd is closed), and COMMITs of many
	 * closed files would pile engine fds up. */
	if (!dc_efile_io_if_open(h->file.ef, &io))
		return posix2fsal_status(dc_efile_closed_error(h->file.ef));
	/* An error a closed engine file left behind is reported once. */
	pending = dc_efile_take_error(h->file.ef);
	if (pending != 0) {
		dc_efile_io_done(h->file.ef);
		return posix2fsal_status(pending);
	}
	rc = dcio_commit(io, (uint64_t)offset, (uint64_t)len);
	dc_efile_io_done(h->file.ef);
	return posix2fsal_status(rc);
}
