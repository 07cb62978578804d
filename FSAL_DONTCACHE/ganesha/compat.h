/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What differs between the ganesha versions the module builds for, in one
 * place (besides fd management, which has a unit per version: fd_v11.c for
 * FSAL API 11, Debian 12's ganesha 4.3; fd_v13.c for FSAL API 13, Debian 13's
 * ganesha 6.5; CMake picks one).
 *
 *                          FSAL API 11 (4.3)        FSAL API 13 (6.5)
 * handle init/fini         (obj, exp, type)/(obj)   + bool add_to_fsal_handle
 * mkdir, mknode, symlink,  -                        + parent (or destdir) pre
 *   link, unlink, open2                               and post attrs, optional
 * rename                   -                        + old/new dir pre and post
 * init_state               (state, exp, ...)        (state, free_fn, ...)
 * state free               export_ops.free_state    state->state_free
 *                          (these two and all below but the last two rows:
 *                          fd_v11.c / fd_v13.c)
 * struct fsal_fd           openflags only           + fd_work/io_work, mutex,
 *                                                     conds, LRU link, type
 * fd helpers               fsal_find_fd + the       fsal_start_io/complete_io,
 *                          FSAL's open/close funcs  close_fsal_fd; obj ops
 *                          passed as arguments      close_func/reopen_func
 * global fd reclaim        MDCACHE LRU: obj close   fd LRU: close_func, object
 *                          (open_fd_count)          from get_fsal_obj_hdl
 * struct fsal_io_arg       iov[] flexible array     iov pointer, io_request,
 *                                                     fsal_resume (kept 0)
 * fs_info                  -                        + allocate_own_read_buffer
 *                                                     (false: ganesha gives
 *                                                     READ its buffer)
 * Unchanged and used as is: read2/write2/commit2/lock_op2/close2/reopen2/
 * status2/setattr2, fallocate, seek2, the xattr ops, the export ops other
 * than the above, the config macros. */
#ifndef DC_GANESHA_COMPAT_H
#define DC_GANESHA_COMPAT_H

#include "fsal_api.h"

#if FSAL_MAJOR_VERSION >= 13

/* The attributes of the directories before and after a change: optional
 * (NFSv4 change_info could use them); ganesha's helpers clear their
 * valid_mask before the call, and the module leaves them so, as FSAL_VFS
 * does. */
#define DC_PARENT_ATTRS                               \
	, struct fsal_attrlist *parent_pre_attrs_out, \
		struct fsal_attrlist *parent_post_attrs_out
#define DC_RENAME_ATTRS                                      \
	, struct fsal_attrlist *olddir_pre_attrs_out,        \
		struct fsal_attrlist *olddir_post_attrs_out, \
		struct fsal_attrlist *newdir_pre_attrs_out,  \
		struct fsal_attrlist *newdir_post_attrs_out

/* handles go on the module's handle list, as in FSAL API 11 */
#define dc_obj_handle_init(obj, exp, type) \
	fsal_obj_handle_init(obj, exp, type, true)
#define dc_obj_handle_fini(obj) fsal_obj_handle_fini(obj, true)

#else

#define DC_PARENT_ATTRS
#define DC_RENAME_ATTRS

#define dc_obj_handle_init(obj, exp, type) fsal_obj_handle_init(obj, exp, type)
#define dc_obj_handle_fini(obj) fsal_obj_handle_fini(obj)

#endif

#endif
