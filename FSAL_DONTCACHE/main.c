/* FSAL_DONTCACHE module: registration, module-wide config, engine start/stop,
 * the stats writer thread. */
#include "dc_int.h"

#include <malloc.h>

#include <errno.h>
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

static struct config_item dc_module_items[] = {
	CONF_ITEM_UI32("Engine_Threads", 0, UINT32_MAX, 2, dc_module,
		       engine_threads),
	CONF_ITEM_UI32("Ring_Entries", 0, UINT32_MAX, 256, dc_module,
		       ring_entries),
	CONF_ITEM_BOOL("Use_Io_Uring", true, dc_module, use_io_uring),
	CONF_ITEM_UI32("Stats_Interval_Ms", 0, UINT32_MAX, 1000, dc_module,
		       stats_interval_ms),
	CONF_ITEM_BOOL("Malloc_Tuning", false, dc_module, malloc_tuning),
	CONF_ITEM_UI32("Engine_Nice", 0, UINT32_MAX, 10, dc_module,
		       engine_nice),
	CONFIG_EOL
};

static const struct dc_param_range module_ranges[] = {
	{ "Engine_Threads", offsetof(struct dc_module, engine_threads), 4, 1,
	  64 },
	{ "Ring_Entries", offsetof(struct dc_module, ring_entries), 4, 8,
	  4096 },
	{ "Stats_Interval_Ms", offsetof(struct dc_module, stats_interval_ms), 4,
	  0, 3600000 },
	{ "Engine_Nice", offsetof(struct dc_module, engine_nice), 4, 0, 19 },
	{ NULL, 0, 0, 0, 0 }
};

static struct config_block dc_module_block = {
	.dbus_interface_name = "org.ganesha.nfsd.config.fsal.dontcache",
	.blk_desc.name = DC_NAME,
	.blk_desc.type = CONFIG_BLOCK,
	.blk_desc.u.blk.init = noop_conf_init,
	.blk_desc.u.blk.params = dc_module_items,
	.blk_desc.u.blk.commit = noop_conf_commit
};

static int start_engine(void)
{
	struct dcio_engine_params p = {
		.threads = DC.engine_threads,
		.ring_entries = DC.ring_entries,
		.use_uring = DC.use_io_uring,
		.nice = (int)DC.engine_nice,
		.log = dc_engine_log,
	};
	int rc = dcio_engine_create(&p, NULL, &DC.engine);

	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: cannot start the I/O engine: %s",
			strerror(rc));
		return rc;
	}
	if (DC.use_io_uring && !dcio_engine_uses_uring(DC.engine))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: io_uring unavailable, using a pwritev2 thread pool");
	LogEvent(COMPONENT_FSAL,
		 "DONTCACHE: engine started: %u threads, %s, nice %u",
		 DC.engine_threads,
		 dcio_engine_uses_uring(DC.engine) ? "io_uring" : "thread pool",
		 DC.engine_nice);
	return 0;
}

/* Ganesha allocates a fresh buffer for every WRITE's data and frees it when
 * the reply is sent (on an engine thread here). With glibc's defaults the
 * freed memory goes back to the kernel (munmap of chunks over the dynamic
 * mmap threshold, madvise when an arena's top is trimmed) and the next WRITE
 * faults it in again: measured at ~30% of ganesha's CPU at 16 writers x
 * 1 MiB. Fixed thresholds keep the buffers in the arenas for reuse. */
static void tune_malloc(void)
{
	if (!DC.malloc_tuning || DC.malloc_tuned)
		return;
	if (mallopt(M_MMAP_THRESHOLD, DC_MMAP_THRESHOLD) != 1 ||
	    mallopt(M_TRIM_THRESHOLD, DC_TRIM_THRESHOLD) != 1) {
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: mallopt refused the WRITE-buffer thresholds");
		return;
	}
	DC.malloc_tuned = true;
	LogEvent(
		COMPONENT_FSAL,
		"DONTCACHE: malloc tuned for WRITE buffers: M_MMAP_THRESHOLD=%d MiB, M_TRIM_THRESHOLD=%d MiB (Malloc_Tuning = true; costs resident memory)",
		DC_MMAP_THRESHOLD >> 20, DC_TRIM_THRESHOLD >> 20);
}

static fsal_status_t dc_init_config(struct fsal_module *fsal_hdl,
				    config_file_t config_struct,
				    struct config_error_type *err_type)
{
	bool bogus = err_type->bogus;
	uint32_t before = err_type->errors;
	int rc;

	err_type->bogus = false;
	(void)load_config_from_parse(config_struct, &dc_module_block, &DC, true,
				     err_type);
	rc = err_type->errors != before || err_type->bogus ||
	     !config_error_is_harmless(err_type);
	err_type->bogus |= bogus;
	if (rc) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: config error in the DONTCACHE block (see the CONFIG lines above)");
		return fsalstat(ERR_FSAL_INVAL, 0);
	}
	if (dc_check_ranges("DONTCACHE block", module_ranges, &DC) != 0) {
		err_type->invalid = true;
		return fsalstat(ERR_FSAL_INVAL, 0);
	}

	tune_malloc();
	if (DC.engine == NULL) {
		rc = start_engine();
		if (rc != 0)
			return posix2fsal_status(rc);
	}
	display_fsinfo(fsal_hdl);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

#if FSAL_MAJOR_VERSION < 13
/* ganesha 4.3 does not export get_parse_root: the same walk, on 4.3's own
 * parse tree layout (its analyse.h). A second config_ParseFile instead would
 * reset the parser's global state under the reload that is running. */
#include "../config_parsing/analyse.h"

config_file_t dc_parse_root(void *node)
{
	struct config_node *n = node;

	while (n->type != TYPE_ROOT && n->u.nterm.parent != NULL)
		n = n->u.nterm.parent;
	if (n->type != TYPE_ROOT)
		return NULL;
	return (config_file_t)container_of(n, struct config_root, root);
}
#endif

/* The DONTCACHE block is read at start only: the engine cannot change its
 * threads or rings live. At a reload the block of the config being loaded
 * is read only to say which values are not applied: once per change (6.5
 * calls update_config for each export, 4.3 gets here from update_export). */
void dc_module_reload_check(config_file_t root)
{
	static struct {
		uint32_t threads, ring, interval, nice;
		bool uring, mtune;
	} seen;
	static bool seen_init;
	struct config_error_type err;
	struct dc_module *m;

	if (!seen_init) {
		seen.threads = DC.engine_threads;
		seen.ring = DC.ring_entries;
		seen.interval = DC.stats_interval_ms;
		seen.nice = DC.engine_nice;
		seen.uring = DC.use_io_uring;
		seen.mtune = DC.malloc_tuning;
		seen_init = true;
	}
	/* errors in the block are the parse's own business: not reported
	 * here (no memstream: ganesha then writes nothing) */
	memset(&err, 0, sizeof(err));
	if (root == NULL)
		return;
	m = gsh_calloc(1, sizeof(*m));
	if (load_config_from_parse(root, &dc_module_block, m, true, &err) >=
		    0 &&
	    err.errors == 0) {
#define DC_MODULE_CHANGE(field, sfield, name, fmt)                                                                               \
	do {                                                                                                                     \
		if (m->field != seen.sfield)                                                                                     \
			LogWarn(COMPONENT_FSAL,                                                                                  \
				"DONTCACHE: reload: " name " %" fmt                                                              \
				" -> %" fmt                                                                                      \
				" not applied (the DONTCACHE block is read at start only: restart ganesha); running with %" fmt, \
				seen.sfield, m->field, DC.field);                                                                \
		seen.sfield = m->field;                                                                                          \
	} while (0)
		DC_MODULE_CHANGE(engine_threads, threads, "Engine_Threads",
				 PRIu32);
		DC_MODULE_CHANGE(ring_entries, ring, "Ring_Entries", PRIu32);
		DC_MODULE_CHANGE(engine_nice, nice, "Engine_Nice", PRIu32);
		DC_MODULE_CHANGE(stats_interval_ms, interval,
				 "Stats_Interval_Ms", PRIu32);
		DC_MODULE_CHANGE(use_io_uring, uring, "Use_Io_Uring", "d");
		DC_MODULE_CHANGE(malloc_tuning, mtune, "Malloc_Tuning", "d");
#undef DC_MODULE_CHANGE
	}
	gsh_free(m);
}

#if FSAL_MAJOR_VERSION >= 13
static fsal_status_t dc_update_config(struct fsal_module *fsal_hdl,
				      config_file_t config_struct,
				      struct config_error_type *err_type)
{
	dc_module_reload_check(config_struct);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}
#endif

MODULE_INIT void dc_init(void)
{
	if (register_fsal(&DC.fsal, DC_NAME, FSAL_MAJOR_VERSION,
			  FSAL_MINOR_VERSION, FSAL_ID_NO_PNFS) != 0) {
		LogCrit(COMPONENT_FSAL, "DONTCACHE module failed to register");
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
	dc_handle_ops_init(&DC.handle_ops);
}

MODULE_FINI void dc_fini(void)
{
	dc_stats_shutdown();
	if (DC.engine != NULL) {
		dcio_engine_destroy(DC.engine);
		DC.engine = NULL;
	}
	if (unregister_fsal(&DC.fsal) != 0)
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE module could not unregister");
}
