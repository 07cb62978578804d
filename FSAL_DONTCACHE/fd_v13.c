// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE fd management for FSAL API 13 (ganesha 6.5, Debian 13).
 *
 * A ganesha "fd" of this module (the handle's global gfd, each state's fd)
 * records how the file is open and nothing else; all I/O goes through the
 * engine file, with its own fd. ganesha 6.5's fd model (FSAL_VFS file.c is
 * the reference) adds to struct fsal_fd the counters of I/O and fd work and
 * a link on ganesha's fd LRU:
 * - fsal_start_io finds the fd an operation may use (the state's if it is
 *   open in a fitting mode, else the global one, (re)opened through
 *   reopen_func with the OR of the wanted modes, else a temporary one) and
 *   counts the I/O on it; fsal_complete_io ends that, every start has one.
 *   The module's fds carry no resource, so the I/O is ended as soon as the
 *   check passed: an engine I/O in flight never holds ganesha's fd.
 * - Without a state, fsal_start_io also takes a share reservation for the
 *   operation, which the FSAL gives back when done: the module when the
 *   engine I/O completed (dc_fd_io_end), so that an OPEN denying the access
 *   is refused while a stateless WRITE or READ is in flight.
 * - The global fd, once open, is on ganesha's fd LRU; its reaper closes it
 *   through close_func, finding the object with get_fsal_obj_hdl. That close
 *   is where the engine file is given back (dc_close does it in FSAL API 11,
 *   called by MDCACHE's LRU).
 * - That reaper starts from the fd alone: it takes a reference on
 *   fd->fsal_export's owning export, builds its op context on that export
 *   and calls its get_fsal_obj_hdl, three reads of fd->fsal_export made
 *   without a lock that the fd's own mutex could order (lru_try_one). So
 *   the field never changes: it is the export of the request that made the
 *   handle (init_fsal_fd, as FSAL_VFS does), and the handle holds a
 *   reference on that export until it is released (gfd_owner), after
 *   close_fsal_fd waited out a reaper working on the fd. An object outlives
 *   the export whose request made it when another export shows it too (the
 *   same directory twice, nested exports, hard links): after a RemoveExport
 *   of that export the reaper still finds it allocated (ganesha 6.5's
 *   FSAL_VFS has the same gap). Cost: a removed export stays
 *   allocated (not served) while an object it made is cached through
 *   another export. Repointing the field on a reopen through another export
 *   raced the reaper: it took its reference on one export and put the other
 *   (fault_reaper_rebind.sh); ganesha's fsal_fd_mutex,
 *   which would order a rebind against the reaper, is not exported.
 * The other version: fd_v11.c. */
#include "dc_int.h"

#include "export_mgr.h"

/**
 * @brief Reopen one of the object's fds with new access
 *
 * the global fd (and a temporary one ganesha opens when the global is
 * busy) opens with the modes asked; a lock state's fd, which fsal_start_io
 * opens for locks, is a kernel fd of the state's own (lock.c)
 *
 * @param[in] obj The object
 * @param[in] openflags The access asked for
 * @param[in] fd The fd
 *
 * @return FSAL status
 */
static fsal_status_t dc_reopen_func(struct fsal_obj_handle *obj,
				    fsal_openflags_t openflags,
				    struct fsal_fd *fd)
{
	if (fd->fd_type == FSAL_FD_STATE) {
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

/**
 * @brief Close one of the object's fds (ganesha's fd reaper)
 *
 * Called with the fd's work mutex held and no I/O counted on it: by
 * close_fsal_fd (the fd LRU's reaper, dc_close, a state's close, handle
 * release) and for a temporary fd by fsal_complete_io.
 *
 * @param[in] obj The object
 * @param[in] fd The fd
 *
 * @return FSAL status
 */
static fsal_status_t dc_close_func(struct fsal_obj_handle *obj,
				   struct fsal_fd *fd)
{
	struct dc_handle *h = dc_hdl(obj);

	if (fd->openflags == FSAL_O_CLOSED)
		return fsalstat(ERR_FSAL_NOT_OPENED, 0);
	fd->openflags = FSAL_O_CLOSED;
	if (fd->fd_type != FSAL_FD_GLOBAL)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	dc_release_engine_file(h);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief The object handle of a state's fd
 *
 * The fd LRU's reaper only has the fd: it is a handle's global fd.
 *
 * @param[in] exp_hdl The export
 * @param[in] fd The fd
 * @param[out] handle The fd's object handle
 */
static void dc_get_fsal_obj_hdl(struct fsal_export *exp_hdl, struct fsal_fd *fd,
				struct fsal_obj_handle **handle)
{
	*handle = &container_of(fd, struct dc_handle, file.gfd)->obj_handle;
}

static void dc_state_free(struct state_t *state)
{
	struct dc_state *s = container_of(state, struct dc_state, state);

	dc_lock_state_fini(s);
	destroy_fsal_fd(&s->fd);
	gsh_free(s);
}

static struct state_t *dc_alloc_state(struct fsal_export *exp_hdl,
				      enum state_type state_type,
				      struct state_t *related_state)
{
	struct dc_state *s = gsh_calloc(1, sizeof(*s));
	struct state_t *state;

	dc_lock_state_init(s);
	state = init_state(&s->state, dc_state_free, state_type, related_state);
	init_fsal_fd(&s->fd, FSAL_FD_STATE, exp_hdl);
	return state;
}

void dc_fd_handle_init(struct dc_handle *h)
{
	/* the request's export, as FSAL_VFS does: the object has none. The
	 * field stays as it is; the export it belongs to stays allocated with
	 * it (the reaper references it from the fd alone). */
	init_fsal_fd(&h->file.gfd, FSAL_FD_GLOBAL, op_ctx->fsal_export);
	h->file.gfd_owner = op_ctx->fsal_export->owning_export;
	if (h->file.gfd_owner != NULL)
		get_gsh_export_ref(h->file.gfd_owner);
}

/* Off the fd LRU (waiting out a reaper working on it) before the memory
 * goes; an open global fd closes through dc_close_func. */
void dc_fd_handle_fini(struct dc_handle *h)
{
	fsal_status_t st = close_fsal_fd(&h->obj_handle, &h->file.gfd, false);

	if (FSAL_IS_ERROR(st))
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: %s: file %" PRIu64
			": closing its global fd failed: %s",
			h->fs->path, h->obj_handle.fileid, fsal_err_txt(st));
	destroy_fsal_fd(&h->file.gfd);
	/* close_fsal_fd waited out a reaper working on the fd: its export may
	 * go (this may be its last reference) */
	if (h->file.gfd_owner != NULL) {
		put_gsh_export(h->file.gfd_owner);
		h->file.gfd_owner = NULL;
	}
}

/* As FSAL_VFS's open2_by_handle: the flags change as fd work (no I/O starts
 * on the fd meanwhile), a first open of the global fd puts it on the fd
 * LRU (and counts it against ganesha's fd limits), a reopen bumps it. Its
 * export stays the one it was made with, whichever export opens it. */
void dc_fd_set_open(struct dc_handle *h __attribute__((unused)),
		    struct fsal_fd *fd, fsal_openflags_t openflags)
{
	fsal_openflags_t old, new = FSAL_O_NFS_FLAGS(openflags);

	fsal_start_fd_work_no_reclaim(fd);
	old = fd->openflags;
	fd->openflags = new;
	if (old == FSAL_O_CLOSED && new != FSAL_O_CLOSED)
		insert_fd_lru(fd);
	else if (old != FSAL_O_CLOSED && new == FSAL_O_CLOSED)
		remove_fd_lru(fd);
	else if (new != FSAL_O_CLOSED)
		bump_fd_lru(fd);
	fsal_complete_fd_work(fd);
}

void dc_fd_close(struct dc_handle *h, struct fsal_fd *fd)
{
	(void)close_fsal_fd(&h->obj_handle, fd, false);
}

/* fsal_start_io and at once fsal_complete_io: the check, with no fd held
 * afterwards. Without a state, the share reservation fsal_start_io took for
 * this operation (any access but FSAL_O_ANY) stays until dc_fd_io_end. */
fsal_status_t dc_fd_check_io(struct dc_handle *h, bool bypass,
			     struct state_t *state, fsal_openflags_t need,
			     bool for_locks)
{
	struct fsal_obj_handle *obj = &h->obj_handle;
	struct fsal_fd temp_fd = FSAL_FD_INIT, *out_fd = NULL;
	fsal_status_t st;

	st = fsal_start_io(&out_fd, obj, &h->file.gfd, &temp_fd, state, need,
			   for_locks, NULL, bypass, &h->file.share);
	if (FSAL_IS_ERROR(st))
		return st;
	fsal_complete_io(obj, out_fd);
	return st;
}

/* As FSAL_VFS after its I/O: the stateless operation's share reservation
 * goes (FSAL_O_ANY took none and changes no counter). */
void dc_fd_io_end(struct dc_handle *h, struct state_t *state,
		  fsal_openflags_t need)
{
	if (state == NULL && need != FSAL_O_ANY)
		update_share_counters_locked(&h->obj_handle, &h->file.share,
					     need, FSAL_O_CLOSED);
}

/**
 * @brief Close the object's global fd
 *
 * obj_ops->close: ganesha's remove, rename over, MDCACHE's eviction and
 * upcalls. The global fd closes, and the engine fd is given back even when
 * only NFSv4 opens used it (unless it must be kept).
 *
 * @param[in] obj The object
 *
 * @return FSAL status
 */
static fsal_status_t dc_close(struct fsal_obj_handle *obj)
{
	struct dc_handle *h = dc_hdl(obj);
	fsal_status_t st;

	if (obj->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_NOT_OPENED, 0);
	st = close_fsal_fd(obj, &h->file.gfd, false);
	if (FSAL_IS_ERROR(st))
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: file %" PRIu64
			     ": closing its global fd: %s",
			     obj->fileid, fsal_err_txt(st));
	dc_release_engine_file(h);
	return st;
}

void dc_fd_obj_ops_init(struct fsal_obj_ops *ops)
{
	ops->close = dc_close;
	ops->close_func = dc_close_func;
	ops->reopen_func = dc_reopen_func;
}

void dc_fd_export_ops_init(struct export_ops *ops)
{
	ops->alloc_state = dc_alloc_state;
	ops->get_fsal_obj_hdl = dc_get_fsal_obj_hdl;
}
