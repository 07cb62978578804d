// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE module: registration, init (the DONTCACHE block read by
 * config.c, engine start) and unload. The module sets nothing of the
 * process it is loaded into: malloc's thresholds for WRITE buffers are the
 * administrator's (the systemd drop-in config/systemd/dontcache-malloc.conf),
 * and only the engine's own threads (dcio-pool*, dcio-flush*)
 * run at Bench { Engine_Nice }. */
#include "dc_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "config_parsing.h"
#include "FSAL/fsal_init.h"

struct dc_module DC = {
	.fsal.fs_info = {
		.maxfilesize = INT64_MAX,
		.maxlink = 65000,
		.maxnamelen = 255,
		.maxpathlen = 4096,
		.no_trunc = true,
		.chown_restricted = true,
		.case_insensitive = false,
		.case_preserving = true,
		.link_support = true,
		.symlink_support = true,
		.lock_support = true,
		.lock_support_async_block = false,
		.named_attr = false,
		.unique_handles = true,
		.acl_support = 0,
		.cansettime = true,
		.homogenous = true,
		/* ATTR4_XATTR: ganesha answers the NFSv4.2 xattr operations */
		.supported_attrs = ATTRS_POSIX | ATTR4_XATTR,
		.xattr_support = true,
		.maxread = FSAL_MAXIOSIZE,
		.maxwrite = FSAL_MAXIOSIZE,
		.umask = 0,
		.auth_exportpath_xdev = false,
		/* ganesha checks the target directory; link() runs as root */
		.link_supports_permission_checks = false,
		.readdir_plus = true,
		.expire_time_parent = -1,
	},
};

static int start_engine(void)
{
	struct dcio_engine_params p = {
		.threads = DC.bench.engine_threads,
		.nice = (int)DC.bench.engine_nice,
		.log = dc_engine_log,
		.kick = DC.bench.kick,
	};
	int rc;

	LogDebug(
		COMPONENT_FSAL,
		"DONTCACHE: starting the I/O engine: %u threads, nice %u, Dontcache_Kick %s",
		p.threads, DC.bench.engine_nice, dcio_kick_name(p.kick));
	rc = dcio_engine_create(&p, NULL, &DC.engine);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: cannot start the I/O engine: %s",
			strerror(rc));
		return rc;
	}
	LogEvent(
		COMPONENT_FSAL,
		"DONTCACHE: engine started: %u threads, thread pool, nice %u (the engine's own threads), Dontcache_Kick %s%s",
		DC.bench.engine_threads, DC.bench.engine_nice,
		dcio_kick_name(DC.bench.kick),
		DC.bench.kick == DCIO_KICK_AUTO
			? " (probed on each export's filesystem)"
			: "");
	return 0;
}

/**
 * @brief Read the module's configuration block
 *
 * @param[in] fsal_hdl The module
 * @param[in] config_struct The configuration tree
 * @param[in] err_type Configuration errors are reported here
 *
 * @return FSAL status
 */
static fsal_status_t dc_init_config(struct fsal_module *fsal_hdl,
				    config_file_t config_struct,
				    struct config_error_type *err_type)
{
	int rc;

	LogFullDebug(COMPONENT_FSAL, "DONTCACHE: reading the DONTCACHE block");
	if (dc_load_module_config(config_struct, err_type) != 0)
		return fsalstat(ERR_FSAL_INVAL, 0);
	if (DC.engine == NULL) {
		rc = start_engine();
		if (rc != 0)
			return posix2fsal_status(rc);
	} else {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: engine already running: kept");
	}
	display_fsinfo(fsal_hdl);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

#if FSAL_MAJOR_VERSION >= 13
/**
 * @brief Apply a reloaded module configuration
 *
 * @param[in] fsal_hdl The module
 * @param[in] config_struct The configuration tree
 * @param[in] err_type Configuration errors are reported here
 *
 * @return FSAL status
 */
static fsal_status_t dc_update_config(struct fsal_module *fsal_hdl,
				      config_file_t config_struct,
				      struct config_error_type *err_type)
{
	dc_module_reload_check(config_struct);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}
#endif

/* The per-process part of the NFSv4 write verifier (export.c): 32 random
 * bits, so that two heads started in the same second (one nfs_ServerEpoch)
 * differ, and so does a restart that reuses an epoch (ganesha -E). Without
 * getrandom (ENOSYS, or no entropy yet: it is not waited for at module load)
 * the clock's nanoseconds and the pid stand in, and that is logged. */
static void make_verifier_salt(void)
{
	struct timespec ts;
	uint32_t r;
	ssize_t n;

	n = getrandom(&r, sizeof(r), GRND_NONBLOCK);
	if (n == (ssize_t)sizeof(r)) {
		DC.verifier_salt = r;
		return;
	}
	LogDebug(COMPONENT_FSAL, "DONTCACHE: getrandom returned %zd: %s", n,
		 n < 0 ? strerror(errno) : "short");
	clock_gettime(CLOCK_REALTIME, &ts);
	DC.verifier_salt = (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 16) ^
			   (uint32_t)getpid();
	LogWarn(COMPONENT_FSAL,
		"DONTCACHE: getrandom failed (%s): the write verifier's per-process part comes from the clock and pid",
		strerror(errno));
}

/* handle_codec.c's failing steps (the key file) at FULL_DEBUG */
static void dc_codec_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	LogFullDebug(COMPONENT_FSAL, "DONTCACHE: %s", buf);
}

MODULE_INIT DC_EXPORT void dc_init(void)
{
	dc_codec_debug = dc_codec_log;
	make_verifier_salt();
	if (register_fsal(&DC.fsal, DC_NAME, FSAL_MAJOR_VERSION,
			  FSAL_MINOR_VERSION, FSAL_ID_NO_PNFS) != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE module failed to register (FSAL API %d.%d)",
			FSAL_MAJOR_VERSION, FSAL_MINOR_VERSION);
		return;
	}
	DC.fsal.m_ops.create_export = dc_create_export;
	DC.fsal.m_ops.init_config = dc_init_config;
	dc_dbus_init(&DC.fsal);
	DC.fsal.m_ops.update_export = dc_update_export;
#if FSAL_MAJOR_VERSION >= 13
	DC.fsal.m_ops.update_config = dc_update_config;
#endif
	PTHREAD_MUTEX_init(&DC.lock, NULL);
	pthread_cond_init(&DC.stats_cond, NULL);
	glist_init(&DC.exports);
	PTHREAD_MUTEX_init(&DC.fs_mu, NULL);
	glist_init(&DC.filesystems);
	dc_efiles_init();
	dc_handle_ops_init(&DC.handle_ops);
}

MODULE_FINI DC_EXPORT void dc_fini(void)
{
	dc_stats_shutdown();
	/* the engine files kept for their lost data (and the engine exports
	 * they hold) go before the engine */
	if (DC.efiles != NULL)
		dc_efiles_drain();
	if (DC.engine != NULL) {
		dcio_engine_destroy(DC.engine);
		DC.engine = NULL;
	}
	gsh_free(DC.bench.dontcache_kick_s);
	DC.bench.dontcache_kick_s = NULL;
	dc_codec_debug = NULL;
	if (unregister_fsal(&DC.fsal) != 0)
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE module could not unregister");
}
