/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Structure sizes and offsets of Debian 13's nfs-ganesha 6.5 binary (FSAL API
 * 13.0, package 6.5-5); ganesha/checks.c asserts them at compile time. Read
 * off the stripped packaged binaries (no -dbgsym archive reachable):
 * - libganesha_nfsd.so.6.5 fsal_default_obj_ops_init: rep movsq of 0x36
 *   qwords (fsal_obj_ops 432 bytes); fsal_export_init: copies 0x110 bytes
 *   to exp+0x20 (export_ops 272, at offset 32), stores export_id at 0x160
 *   and owning_export at 0x140; free_export_ops clears 0x20..0x130;
 * - libfsalvfs.so vfs_alloc_state: calloc(1, 0x1b0) for
 *   { state_t; struct vfs_fd { struct fsal_fd; int fd; } }, the fsal_fd at
 *   0xe0 (state_t 224) cleared as 0x19 qwords (fsal_fd 200), state_type
 *   stored at 0xb0, state_free at 0x58, op_ctx->fsal_export read at 0x98. */
#ifndef DC_GANESHA_ABI_H
#define DC_GANESHA_ABI_H

#define DC_ABI_FSAL_MAJOR 13
#define DC_ABI_FSAL_MINOR 0
#define DC_ABI_SIZEOF_STATE_T 224 /* DEBUG_SAL off, _USE_9P on */
#define DC_ABI_SIZEOF_FSAL_OBJ_OPS 432
#define DC_ABI_SIZEOF_EXPORT_OPS 272
#define DC_ABI_SIZEOF_FSAL_FD 200
#define DC_ABI_OFFSETOF_STATE_TYPE 176
#define DC_ABI_OFFSETOF_STATE_FREE 88
#define DC_ABI_OFFSETOF_EXPORT_OPS 32
#define DC_ABI_OFFSETOF_EXPORT_ID 352
#define DC_ABI_OFFSETOF_OWNING_EXPORT 320
#define DC_ABI_OFFSETOF_OPCTX_FSAL_EXPORT 152

#endif
