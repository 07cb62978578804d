// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE byte-range locks: pushed to the kernel as open file
 * description locks (F_OFD_SETLK / F_OFD_GETLK), as FSAL_VFS does, so that a
 * local process, Samba or anything else on the server that locks the file
 * sees the NFS clients' locks and is seen by them. Ganesha's SAL arbitrates
 * among NFS clients first and stays as it is.
 *
 * An OFD lock belongs to one open file description: each lock state (one
 * NLM or NFSv4 lock owner on one file) has its own kernel fd, opened through
 * ganesha's fd management for a lock state (fsal_find_fd / fsal_start_io
 * with open_for_locks: read/write, or the open state's access when that is
 * refused) and closed with the state. The engine file's fd carries no lock:
 * it may be closed and reopened (fd reaper, kept files, another export)
 * without touching a client's lock, and closing any other fd of the file
 * never drops an OFD lock (it would drop a process-associated one). */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "sal_functions.h"

bool dc_state_is_lock(const struct state_t *state)
{
	return state != NULL && (state->state_type == STATE_TYPE_LOCK ||
				 state->state_type == STATE_TYPE_NLM_LOCK);
}

void dc_lock_state_init(struct dc_state *s)
{
	s->lock_fd = -1;
	PTHREAD_MUTEX_init(&s->lock_mu, NULL);
}

/* the state goes: its locks go with its fd */
void dc_lock_state_fini(struct dc_state *s)
{
	dc_lock_fd_close(s);
	PTHREAD_MUTEX_destroy(&s->lock_mu);
}

void dc_lock_fd_close(struct dc_state *s)
{
	PTHREAD_MUTEX_lock(&s->lock_mu);
	if (s->lock_fd >= 0 && close(s->lock_fd) != 0)
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: close of a lock state's fd: %s",
			     strerror(errno));
	s->lock_fd = -1;
	PTHREAD_MUTEX_unlock(&s->lock_mu);
}

/* ganesha opens a lock state's fd with openflags (open_func / reopen_func):
 * as FSAL_VFS, the server opens the file by handle. An fd already open keeps
 * its locks: it is never closed for a reopen (closing it would drop them). */
fsal_status_t dc_lock_fd_open(struct dc_handle *h, struct dc_state *s,
			      fsal_openflags_t openflags)
{
	int flags, fd, err;

	switch (openflags & FSAL_O_RDWR) {
	case FSAL_O_RDWR:
		flags = O_RDWR;
		break;
	case FSAL_O_WRITE:
		flags = O_WRONLY;
		break;
	default:
		flags = O_RDONLY;
		break;
	}
	PTHREAD_MUTEX_lock(&s->lock_mu);
	if (s->lock_fd >= 0) {
		PTHREAD_MUTEX_unlock(&s->lock_mu);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	fd = dc_open_fh(h->fs, &h->fh, flags | O_NOFOLLOW);
	if (fd < 0) {
		err = errno == ENOENT ? ESTALE : errno;
		PTHREAD_MUTEX_unlock(&s->lock_mu);
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: file %" PRIu64
			     ": open of a lock state's fd (openflags 0x%x): %s",
			     h->obj_handle.fileid, (unsigned int)openflags,
			     strerror(err));
		return posix2fsal_status(err);
	}
	s->lock_fd = fd;
	PTHREAD_MUTEX_unlock(&s->lock_mu);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* The kernel server's rule for an NLM lock (lockd's nlm_fopen): the file
 * opened for the lock's access, read for a shared lock, write for an
 * exclusive one, the owner allowed either way. A refusal is NLM4_DENIED
 * there; ACCESS is a lock conflict to ganesha's SAL, NLM4_DENIED too. NFSv4
 * needs no check here: the SAL refuses a lock its open's access does not
 * allow (NFS4ERR_OPENMODE), as the kernel server does. */
static fsal_status_t nlm_permission(struct fsal_obj_handle *obj,
				    const fsal_lock_param_t *lock)
{
	fsal_accessflags_t mask = lock->lock_type == FSAL_LOCK_W
					  ? FSAL_WRITE_ACCESS
					  : FSAL_READ_ACCESS;
	fsal_status_t st =
		obj->obj_ops->test_access(obj, mask, NULL, NULL, true);

	if (FSAL_IS_ERROR(st))
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: NLM %s lock of file %" PRIu64
			     " as uid %u: %s",
			     lock->lock_type == FSAL_LOCK_W ? "write" : "read",
			     obj->fileid,
			     (unsigned int)op_ctx->creds.caller_uid,
			     fsal_err_txt(st));
	return st;
}

static void set_conflict(fsal_lock_param_t *c, const struct flock *fl)
{
	if (c == NULL)
		return;
	c->lock_type = fl->l_type == F_RDLCK ? FSAL_LOCK_R : FSAL_LOCK_W;
	c->lock_start = (uint64_t)fl->l_start;
	c->lock_length = (uint64_t)fl->l_len; /* 0: to the end, as NFS's */
}

/* The kernel's range for [start, +len) (len 0: to the end). A range past
 * OFFSET_MAX is cut there, as the kernel server does; false when it starts
 * past it: no local lock can be there. */
static bool kernel_range(const fsal_lock_param_t *lock, struct flock *fl)
{
	uint64_t start = lock->lock_start, len = lock->lock_length;

	if (start > (uint64_t)INT64_MAX)
		return false;
	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)start;
	fl->l_len = len == 0 || len - 1 > (uint64_t)INT64_MAX - start
			    ? 0
			    : (off_t)len;
	return true;
}

/* LOCKT: F_OFD_GETLK on the owner's own lock fd (its own locks are no
 * conflict), else on an fd of the server's opened for the test. */
static fsal_status_t kernel_test(struct dc_handle *h, struct dc_state *s,
				 struct flock *fl,
				 fsal_lock_param_t *conflicting_lock)
{
	int fd = -1, err = 0;
	bool own = false;

	if (s != NULL) {
		PTHREAD_MUTEX_lock(&s->lock_mu);
		if (s->lock_fd >= 0) {
			fd = s->lock_fd;
			own = true;
		} else {
			PTHREAD_MUTEX_unlock(&s->lock_mu);
		}
	}
	if (fd < 0) {
		fd = dc_open_fh(h->fs, &h->fh, O_RDONLY | O_NOFOLLOW);
		if (fd < 0) {
			err = errno == ENOENT ? ESTALE : errno;
			LogFullDebug(COMPONENT_FSAL,
				     "DONTCACHE: file %" PRIu64
				     ": open for a lock test: %s",
				     h->obj_handle.fileid, strerror(err));
			return posix2fsal_status(err);
		}
	}
	if (fcntl(fd, F_OFD_GETLK, fl) != 0)
		err = errno;
	if (own)
		PTHREAD_MUTEX_unlock(&s->lock_mu);
	else
		close(fd);
	if (err != 0) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: file %" PRIu64 ": F_OFD_GETLK: %s",
			     h->obj_handle.fileid, strerror(err));
		return posix2fsal_status(err);
	}
	if (fl->l_type == F_UNLCK)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	/* a conflict: the SAL answers NFS4ERR_DENIED / NLM4_DENIED with the
	 * holder's range */
	set_conflict(conflicting_lock, fl);
	return fsalstat(ERR_FSAL_DELAY, EAGAIN);
}

/* LOCK / UNLOCK with the lock state's fd. A refused lock names the lock
 * in the way (F_OFD_GETLK); one released in between is tried again. */
static fsal_status_t kernel_set(struct dc_handle *h, struct dc_state *s,
				struct flock *fl,
				fsal_lock_param_t *conflicting_lock)
{
	struct flock want = *fl;
	int err = 0;

	PTHREAD_MUTEX_lock(&s->lock_mu);
	if (s->lock_fd < 0) {
		PTHREAD_MUTEX_unlock(&s->lock_mu);
		if (fl->l_type == F_UNLCK)
			return fsalstat(ERR_FSAL_NO_ERROR, 0); /* none held */
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: file %" PRIu64
			     ": the lock state has no fd open",
			     h->obj_handle.fileid);
		return fsalstat(ERR_FSAL_NOT_OPENED, EBADF);
	}
	for (int tries = 0; tries < 3; tries++) {
		*fl = want;
		if (fcntl(s->lock_fd, F_OFD_SETLK, fl) == 0) {
			err = 0;
			break;
		}
		err = errno;
		if (err != EAGAIN && err != EACCES)
			break;
		if (fcntl(s->lock_fd, F_OFD_GETLK, fl) != 0) {
			LogFullDebug(COMPONENT_FSAL,
				     "DONTCACHE: file %" PRIu64
				     ": F_OFD_GETLK after a refused lock: %s",
				     h->obj_handle.fileid, strerror(errno));
			fl->l_type = F_UNLCK;
			break;
		}
		if (fl->l_type != F_UNLCK)
			break;
	}
	PTHREAD_MUTEX_unlock(&s->lock_mu);
	if (err == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	LogFullDebug(COMPONENT_FSAL,
		     "DONTCACHE: file %" PRIu64
		     ": F_OFD_SETLK type %d [%" PRId64 ", +%" PRId64 "): %s",
		     h->obj_handle.fileid, (int)want.l_type,
		     (int64_t)want.l_start, (int64_t)want.l_len, strerror(err));
	if ((err == EAGAIN || err == EACCES) && fl->l_type != F_UNLCK)
		set_conflict(conflicting_lock, fl);
	return posix2fsal_status(err);
}

/**
 * @brief Take, test or release a byte-range lock
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] owner The lock owner
 * @param[in] lock_op Lock, unlock or test
 * @param[in] request_lock The range and type asked for
 * @param[out] conflicting_lock The holder of a conflicting lock
 *
 * @return FSAL status
 */
fsal_status_t dc_lock_op2(struct fsal_obj_handle *obj, struct state_t *state,
			  void *owner, fsal_lock_op_t lock_op,
			  fsal_lock_param_t *request_lock,
			  fsal_lock_param_t *conflicting_lock)
{
	struct dc_handle *h = dc_hdl(obj);
	struct dc_state *s =
		state != NULL ? container_of(state, struct dc_state, state)
			      : NULL;
	struct flock fl;
	fsal_openflags_t need;
	bool bypass = false;
	fsal_status_t st;

	if (obj->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	memset(&fl, 0, sizeof(fl));
	switch (lock_op) {
	case FSAL_OP_LOCKT:
		bypass = true;
		need = FSAL_O_ANY;
		break;
	case FSAL_OP_LOCK:
		need = request_lock->lock_type == FSAL_LOCK_R ? FSAL_O_READ
							      : FSAL_O_WRITE;
		break;
	case FSAL_OP_UNLOCK:
		need = FSAL_O_ANY;
		break;
	default:
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: lock operation %d not supported",
			     (int)lock_op);
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	}
	if (request_lock->lock_type != FSAL_LOCK_R &&
	    request_lock->lock_type != FSAL_LOCK_W &&
	    lock_op != FSAL_OP_UNLOCK) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: lock type %d not supported",
			     (int)request_lock->lock_type);
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	}
	if (lock_op != FSAL_OP_LOCKT && !dc_state_is_lock(state)) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: lock operation %d without a lock state",
			(int)lock_op);
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	}
	if (conflicting_lock != NULL)
		conflicting_lock->lock_type = FSAL_NO_LOCK;
	if (lock_op == FSAL_OP_LOCK &&
	    state->state_type == STATE_TYPE_NLM_LOCK) {
		st = nlm_permission(obj, request_lock);
		if (FSAL_IS_ERROR(st))
			return st;
	}
	/* share state and the state's access; opens the lock state's fd
	 * (dc_lock_fd_open) the first time */
	st = dc_fd_check_io(h, bypass, state, need, true);
	if (FSAL_IS_ERROR(st))
		return st;
	dc_fd_io_end(h, state, need);

	if (!kernel_range(request_lock, &fl)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: lock at %" PRIu64
			     " past the kernel's offsets: ganesha's alone",
			     request_lock->lock_start);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	if (lock_op == FSAL_OP_UNLOCK)
		fl.l_type = F_UNLCK;
	else
		fl.l_type = request_lock->lock_type == FSAL_LOCK_R ? F_RDLCK
								   : F_WRLCK;
	if (lock_op == FSAL_OP_LOCKT)
		return kernel_test(h, dc_state_is_lock(state) ? s : NULL, &fl,
				   conflicting_lock);
	return kernel_set(h, s, &fl, conflicting_lock);
}
