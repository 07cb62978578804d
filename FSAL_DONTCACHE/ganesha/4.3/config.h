/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* config.h for Debian 12's nfs-ganesha 4.3 binary (ganesha.nfsd, FSAL API 11.0).
 *
 * Ganesha's own cmake run does not reproduce Debian's build (it silently turns
 * features off when a -dev package is missing), so this file is written by hand.
 * Every macro that changes a structure a FSAL sees is set here as Debian set it;
 * ganesha/checks.c asserts the resulting struct sizes at compile time.
 */
#ifndef CONFIG_H
#define CONFIG_H

#define GSH_CHECK_VERSION(major, minor, micro, libmajor, libminor, libmicro) \
	((libmajor) > (major) ||                                             \
	 ((libmajor) == (major) && (libminor) > (minor)) ||                  \
	 ((libmajor) == (major) && (libminor) == (minor) &&                  \
	  (libmicro) >= (micro)))

#define GANESHA_VERSION_MAJOR 4
#define GANESHA_VERSION_MINOR .3
#define GANESHA_EXTRA_VERSION
#define GANESHA_VERSION "4.3"
#define GANESHA_BUILD_RELEASE 1
#define VERSION GANESHA_VERSION
#define VERSION_COMMENT \
	"GANESHA file server is 64 bits compliant and supports NFS v3,4.0,4.1 (pNFS) and 9P"
#define _GIT_HEAD_COMMIT ""
#define _GIT_DESCRIBE ""
#define BUILD_HOST "fsal-dontcache"
#define FSAL_MODULE_LOC "/usr/lib/x86_64-linux-gnu/ganesha"

/* Structure-changing options: ON in Debian's build. */
#define _USE_NFS3 1
#define _USE_NLM 1
#define _USE_RQUOTA 1
#define USE_NFSACL3 1
#define _USE_9P 1
#define _HAVE_GSSAPI 1
#define HAVE_KRB5 1
#define LINUX 1
#define GSH_CAN_HOST_LOCAL_FS 1

/* Declarations/inline only: ON in Debian's build. */
#define USE_DBUS 1
#define USE_NFSIDMAP 1
#define _MSPAC_SUPPORT 1
#define USE_CAPS 1
#define USE_BLKID 1
#define RPCBIND 1
#define HAVE_STRING_H 1
#define HAVE_STRNLEN 1
#define LITTLEEND 1
#define HAVE_DAEMON 1
#define HAVE_URCU_REF_GET_UNLESS_ZERO 1
#define NFS_GANESHA 1

/* OFF in Debian's build (left undefined on purpose):
 * DEBUG_SAL, RPC_VSOCK, _USE_NFS_RDMA, _USE_9P_RDMA, USE_LTTNG. */

#define GANESHA_CONFIG_PATH "/etc/ganesha/ganesha.conf"
#define GANESHA_PIDFILE_PATH "/var/run/ganesha.pid"
#define NFS_V4_RECOV_ROOT "/var/lib/nfs/ganesha"
#define NFS_V4_RECOV_DIR "v4recov"
#define NFS_V4_OLD_DIR "v4old"
#define DEFAULT_NFS_CCACHE_DIR "/var/run/ganesha"

#define _LGPL_SOURCE 1

#endif /* CONFIG_H */
