/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* config.h for Debian 13's nfs-ganesha 6.5 binary (ganesha.nfsd, FSAL API 13.0).
 *
 * Written by hand, like 4.3/config.h: ganesha's own cmake run does not
 * reproduce Debian's build. Read off the Debian build (debian/rules of
 * nfs-ganesha 6.5-5: -DBUILD_CONFIG=debian -DUSE_9P=ON -DUSE_DBUS=ON
 * -D_MSPAC_SUPPORT=YES -DUSE_LTTNG=NO -DUSE_9P_RDMA=NO, ganesha's option
 * defaults otherwise) and checked against the binary:
 * - libganesha_nfsd.so.6.5 needs no librdmacm/libibverbs, libunwind or
 *   prometheus library, and neither it nor ganesha.nfsd knows the config
 *   parameters RPC_Max_RDMA_Connections, NFS_RDMA_Protocol_Versions or
 *   Monitoring_Port: _USE_NFS_RDMA (default ON, needs rdma-core at build
 *   time), USE_UNWIND and USE_MONITORING are OFF;
 * - it has the 9P, NFSACL, NLM and RQUOTA code and krb5/GSS libraries.
 * ganesha/checks.c asserts the resulting struct sizes (6.5/abi.h).
 */
#ifndef CONFIG_H
#define CONFIG_H

#define GSH_CHECK_VERSION(major, minor, micro, libmajor, libminor, libmicro) \
	((libmajor) > (major) ||                                             \
	 ((libmajor) == (major) && (libminor) > (minor)) ||                  \
	 ((libmajor) == (major) && (libminor) == (minor) &&                  \
	  (libmicro) >= (micro)))

#define GANESHA_VERSION_MAJOR 6
#define GANESHA_VERSION_MINOR .5
#define GANESHA_EXTRA_VERSION
#define GANESHA_VERSION "6.5"
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
 * DEBUG_SAL (state_t), _USE_NFS_RDMA and RPC_VSOCK (protos enum,
 * nfs_core_parameter), USE_MONITORING (nfs_core_parameter), USE_UNWIND,
 * _USE_9P_RDMA, USE_LTTNG. FSAL-specific options (ENABLE_VFS_POSIX_ACL,
 * USE_BTRFSUTIL, the CEPH/RGW/GLUSTER ones) change no shared structure. */

#define GANESHA_CONFIG_PATH "/etc/ganesha/ganesha.conf"
#define GANESHA_PIDFILE_PATH "/var/run/ganesha/ganesha.pid"
#define NFS_V4_RECOV_ROOT "/var/lib/nfs/ganesha"
#define NFS_V4_RECOV_DIR "v4recov"
#define NFS_V4_OLD_DIR "v4old"
#define DEFAULT_NFS_CCACHE_DIR "/var/run/ganesha"

#define _LGPL_SOURCE 1

#endif /* CONFIG_H */
