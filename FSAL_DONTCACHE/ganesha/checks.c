/* Compile-time checks that config.h matches Debian's ganesha 4.3 binary.
 * A wrong macro shifts structures the module shares with ganesha.nfsd; these
 * sizes were read off the packaged build. */
#include "config.h"
#include "fsal_api.h"
#include "sal_data.h"

_Static_assert(sizeof(state_t) == 216, "state_t size: DEBUG_SAL/_USE_9P mismatch with Debian's build");
_Static_assert(sizeof(struct fsal_obj_ops) == 424, "fsal_obj_ops size mismatch: wrong FSAL API headers");
_Static_assert(sizeof(struct export_ops) == 272, "export_ops size mismatch: wrong FSAL API headers");
_Static_assert(FSAL_MAJOR_VERSION == 11 && FSAL_MINOR_VERSION == 0, "FSAL API must be 11.0");
