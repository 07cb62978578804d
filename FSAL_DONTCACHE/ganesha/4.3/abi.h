/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Structure sizes of Debian 12's nfs-ganesha 4.3 binary (FSAL API 11.0), read
 * off the packaged build; ganesha/checks.c asserts them at compile time. A
 * wrong macro in config.h shifts structures the module shares with
 * ganesha.nfsd: these catch it. */
#ifndef DC_GANESHA_ABI_H
#define DC_GANESHA_ABI_H

#define DC_ABI_FSAL_MAJOR 11
#define DC_ABI_FSAL_MINOR 0
#define DC_ABI_SIZEOF_STATE_T 216 /* DEBUG_SAL off, _USE_9P on */
#define DC_ABI_SIZEOF_FSAL_OBJ_OPS 424
#define DC_ABI_SIZEOF_EXPORT_OPS 272

#endif
