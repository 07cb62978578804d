// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE fd management for FSAL API 11 (ganesha 4.3, Debian 12).
 *
 * A ganesha "fd" of this module (the handle's global gfd, each state's fd)
 * is struct fsal_fd { openflags }: it only records how the file is open.
 * ganesha's fsal_find_fd checks share reservations and a state's open mode
 * and opens the global fd through the open/close functions passed to it.
 * MDCACHE's LRU gives fds back through obj_ops->close (dc_close), counting
 * the global opens in open_fd_count. The other version: fd_v13.c. */
#include "dc_int.h"

/* ganesha-side opens only record flags (the I/O fd is the engine file's),
 * but for a lock state's fd, which fsal_find_fd opens for locks: that one
 * is a kernel fd of the state's own (lock.c). Every fd other than the
 * handle's global one is a dc_state's (dc_fd_check_io's temporary fd too). */
static fsal_status_t open_func(struct fsal_obj_handle *obj,
			       fsal_openflags_t openflags, struct fsal_fd *fd)
{
	if (fd != &dc_hdl(obj)->file.gfd) {
		struct dc_state *s = container_of(fd, struct dc_state, fd);

		if (dc_state_is_lock(&s->state)) {
			fsal_status_t st =
				dc_lock_fd_open(dc_hdl(obj), s, openflags);

			if (FSAL_IS_ERROR(st))
				return st;
		}
	}
	fd->openflags = FSAL_O_NFS_FLAGS(openflags);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static fsal_status_t close_func(struct fsal_obj_handle *obj, struct fsal_fd *fd)
{
	if (fd->openflags == FSAL_O_CLOSED) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: close of a ganesha fd not open");
		return fsalstat(ERR_FSAL_NOT_OPENED, 0);
	}
	fd->openflags = FSAL_O_CLOSED;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static struct state_t *dc_alloc_state(struct fsal_export *exp_hdl,
				      enum state_type state_type,
				      struct state_t *related_state)
{
	struct dc_state *s = gsh_calloc(1, sizeof(*s));

	s->fd.openflags = FSAL_O_CLOSED;
	dc_lock_state_init(s);
	return init_state(&s->state, exp_hdl, state_type, related_state);
}

/**
 * @brief Free a state allocated by dc_alloc_state
 *
 * @param[in] exp_hdl The export
 * @param[in] state The state (open, lock or share), or NULL
 */
static void dc_free_state(struct fsal_export *exp_hdl, struct state_t *state)
{
	struct dc_state *s = container_of(state, struct dc_state, state);

	dc_lock_state_fini(s);
	gsh_free(s);
}

void dc_fd_handle_init(struct dc_handle *h)
{
	h->file.gfd.openflags = FSAL_O_CLOSED;
}

void dc_fd_handle_fini(struct dc_handle *h)
{
	/* MDCACHE closed the global fd before releasing the handle */
}

void dc_fd_set_open(struct dc_handle *h, struct fsal_fd *fd,
		    fsal_openflags_t openflags)
{
	PTHREAD_RWLOCK_wrlock(&h->obj_handle.obj_lock);
	fd->openflags = FSAL_O_NFS_FLAGS(openflags);
	PTHREAD_RWLOCK_unlock(&h->obj_handle.obj_lock);
}

void dc_fd_close(struct dc_handle *h, struct fsal_fd *fd)
{
	fd->openflags = FSAL_O_CLOSED;
}

/* A stateless I/O's share reservation (see dc_fd_check_io). FSAL API 11's
 * fsal_find_fd only checks the share counters, under the object lock that
 * FSAL_VFS then holds across its syscall; the module's I/O completes later
 * on an engine thread, so it counts its access in the counters instead, as
 * FSAL API 13's fsal_start_io does. */
static bool takes_reservation(struct state_t *state, fsal_openflags_t need)
{
	return state == NULL && (need & FSAL_O_RDWR) != 0 && need != FSAL_O_ANY;
}

static fsal_status_t reserve(struct dc_handle *h, bool bypass,
			     fsal_openflags_t need)
{
	struct fsal_obj_handle *obj = &h->obj_handle;
	fsal_status_t st;

	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	st = check_share_conflict(&h->file.share, need, bypass);
	if (!FSAL_IS_ERROR(st))
		update_share_counters(&h->file.share, FSAL_O_CLOSED, need);
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);
	return st;
}

void dc_fd_io_end(struct dc_handle *h, struct state_t *state,
		  fsal_openflags_t need)
{
	struct fsal_obj_handle *obj = &h->obj_handle;

	if (!takes_reservation(state, need))
		return;
	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	update_share_counters(&h->file.share, need, FSAL_O_CLOSED);
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);
}

/* When another thread holds the object lock while the global fd is closed,
 * fsal_reopen_obj opens a temporary fd in *out_fd: it must point somewhere
 * (concurrent first WRITEs to a file crashed ganesha without it). */
fsal_status_t dc_fd_check_io(struct dc_handle *h, bool bypass,
			     struct state_t *state, fsal_openflags_t need,
			     bool for_locks)
{
	/* a dc_state, as every fd open_func sees but the global one (no
	 * lock state: state_type NONE) */
	struct dc_state temp = { .fd.openflags = FSAL_O_CLOSED, .lock_fd = -1 };
	struct fsal_fd *out_fd = &temp.fd;
	bool has_lock = false, closefd = false, reusing = false;
	fsal_status_t st;

	if (takes_reservation(state, need)) {
		st = reserve(h, bypass, need);
		if (FSAL_IS_ERROR(st)) {
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE: share reservation for openflags 0x%x refused: %s",
				(unsigned int)need, fsal_err_txt(st));
			return st;
		}
	}
	st = fsal_find_fd(&out_fd, &h->obj_handle, &h->file.gfd, &h->file.share,
			  bypass, state, need, open_func, close_func, &has_lock,
			  &closefd, for_locks, &reusing);
	if (FSAL_IS_ERROR(st))
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: fsal_find_fd (openflags 0x%x, %s): %s",
			     (unsigned int)need,
			     state != NULL ? "state" : "stateless",
			     fsal_err_txt(st));
	if (closefd)
		close_func(&h->obj_handle, out_fd);
	if (has_lock)
		PTHREAD_RWLOCK_unlock(&h->obj_handle.obj_lock);
	if (FSAL_IS_ERROR(st))
		dc_fd_io_end(h, state, need);
	return st;
}

/**
 * @brief Close the object's global fd
 *
 * Called by MDCACHE's LRU to give back fds: flushes and closes the engine
 * file. A file that remembers lost ranges stays open, or the memory of
 * them would go with it.
 *
 * @param[in] obj The object
 *
 * @return FSAL status
 */
static fsal_status_t dc_close(struct fsal_obj_handle *obj)
{
	struct dc_handle *h = dc_hdl(obj);
	bool was_open;

	if (obj->type != REGULAR_FILE) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: close of an object of type %d: not opened",
			(int)obj->type);
		return fsalstat(ERR_FSAL_NOT_OPENED, 0);
	}
	/* ganesha counts the global open (open_fd_count) and uncounts it when
	 * this returns anything but NOT_OPENED: its view closes either way. */
	PTHREAD_RWLOCK_wrlock(&obj->obj_lock);
	was_open = h->file.gfd.openflags != FSAL_O_CLOSED;
	h->file.gfd.openflags = FSAL_O_CLOSED;
	PTHREAD_RWLOCK_unlock(&obj->obj_lock);
	dc_release_engine_file(h);
	return fsalstat(was_open ? ERR_FSAL_NO_ERROR : ERR_FSAL_NOT_OPENED, 0);
}

void dc_fd_obj_ops_init(struct fsal_obj_ops *ops)
{
	ops->close = dc_close;
}

void dc_fd_export_ops_init(struct export_ops *ops)
{
	ops->alloc_state = dc_alloc_state;
	ops->free_state = dc_free_state;
}
