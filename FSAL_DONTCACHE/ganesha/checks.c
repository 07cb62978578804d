// SPDX-License-Identifier: LGPL-3.0-or-later
/* Compile-time checks that config.h matches the Debian binary of the ganesha
 * version built for. A wrong macro shifts structures the module shares with
 * ganesha.nfsd; the expected values are in the version's abi.h, beside its
 * config.h (FSAL_DONTCACHE/ganesha/<version>/). */
#include "config.h"
#include "fsal_api.h"
#include "sal_data.h"
#include "abi.h"
#include <stddef.h>

_Static_assert(FSAL_MAJOR_VERSION == DC_ABI_FSAL_MAJOR &&
		       FSAL_MINOR_VERSION == DC_ABI_FSAL_MINOR,
	       "FSAL API version differs from the binary's: wrong headers");
_Static_assert(sizeof(state_t) == DC_ABI_SIZEOF_STATE_T,
	       "state_t size: DEBUG_SAL/_USE_9P mismatch with Debian's build");
_Static_assert(sizeof(struct fsal_obj_ops) == DC_ABI_SIZEOF_FSAL_OBJ_OPS,
	       "fsal_obj_ops size mismatch: wrong FSAL API headers");
_Static_assert(sizeof(struct export_ops) == DC_ABI_SIZEOF_EXPORT_OPS,
	       "export_ops size mismatch: wrong FSAL API headers");
#ifdef DC_ABI_SIZEOF_FSAL_FD
_Static_assert(sizeof(struct fsal_fd) == DC_ABI_SIZEOF_FSAL_FD,
	       "struct fsal_fd size mismatch with Debian's build");
#endif
#ifdef DC_ABI_OFFSETOF_STATE_TYPE
_Static_assert(offsetof(struct state_t, state_type) ==
			       DC_ABI_OFFSETOF_STATE_TYPE &&
		       offsetof(struct state_t, state_free) ==
			       DC_ABI_OFFSETOF_STATE_FREE,
	       "state_t layout mismatch with Debian's build");
#endif
#ifdef DC_ABI_OFFSETOF_EXPORT_OPS
_Static_assert(offsetof(struct fsal_export, exp_ops) ==
			       DC_ABI_OFFSETOF_EXPORT_OPS &&
		       offsetof(struct fsal_export, owning_export) ==
			       DC_ABI_OFFSETOF_OWNING_EXPORT &&
		       offsetof(struct fsal_export, export_id) ==
			       DC_ABI_OFFSETOF_EXPORT_ID,
	       "struct fsal_export layout mismatch with Debian's build");
#endif
#ifdef DC_ABI_OFFSETOF_OPCTX_FSAL_EXPORT
_Static_assert(offsetof(struct req_op_context, fsal_export) ==
		       DC_ABI_OFFSETOF_OPCTX_FSAL_EXPORT,
	       "struct req_op_context layout mismatch with Debian's build");
#endif
