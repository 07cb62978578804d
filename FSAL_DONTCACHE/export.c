// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE exports: create/release/update (the FSAL block read by
 * config.c), handle wire conversions, dynamic fs info, write verifier. */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "config_parsing.h"
#include "nfs_exports.h"
#include "export_mgr.h"
#include "nfs_core.h"
#include "FSAL/fsal_localfs.h"

void dc_export_get(struct dc_export *x)
{
	__atomic_add_fetch(&x->refs, 1, __ATOMIC_RELAXED);
}

/* The last reference: ganesha released the export and no engine file is
 * open in its engine export any more. */
void dc_export_put(struct dc_export *x)
{
	if (__atomic_sub_fetch(&x->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (x->io != NULL)
		dcio_export_destroy(x->io);
	if (x->root_fd >= 0)
		close(x->root_fd);
	dc_export_cfg_free(&x->cfg);
	gsh_free(x->path);
	gsh_free(x);
}

/**
 * @brief Release the export
 *
 * ganesha is done with the export (shutdown, DBus RemoveExport, a reload
 * without it). Objects it showed may still be shown by other exports:
 * their engine files keep this engine export (and this struct) until they
 * close, and their filesystems stay while they use them (ident.c).
 *
 * @param[in] exp_hdl The export
 */
static void dc_release_export(struct fsal_export *exp_hdl)
{
	struct dc_export *x = dc_exp(exp_hdl);

	PTHREAD_MUTEX_lock(&DC.lock);
	glist_del(&x->node);
	PTHREAD_MUTEX_unlock(&DC.lock);

	if (x->io != NULL)
		dc_stats_export_final(x);
	dc_ident_export_fini(x);
	fsal_detach_export(exp_hdl->fsal, &exp_hdl->exports);
	free_export_ops(exp_hdl);
	dc_export_put(x);
}

/**
 * @brief Space and file counts of the export's filesystem
 *
 * @param[in] exp_hdl The export
 * @param[in] obj_hdl An object of the export
 * @param[out] info The filesystem's space and file counts
 *
 * @return FSAL status
 */
static fsal_status_t dc_get_dynamic_info(struct fsal_export *exp_hdl,
					 struct fsal_obj_handle *obj_hdl,
					 fsal_dynamicfsinfo_t *info)
{
	struct dc_export *x = dc_exp(exp_hdl);
	struct statvfs sv;
	/* the object's own filesystem: one mounted under the export has its
	 * own size */
	int fd = obj_hdl != NULL ? dc_hdl(obj_hdl)->fs->mount_fd : x->root_fd;

	if (fstatvfs(fd, &sv) != 0) {
		int err = errno;

		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: fstatvfs(%d): %s",
			     x->export_id, fd, strerror(err));
		return posix2fsal_status(err);
	}
	memset(info, 0, sizeof(*info));
	info->total_bytes = (uint64_t)sv.f_frsize * sv.f_blocks;
	info->free_bytes = (uint64_t)sv.f_frsize * sv.f_bfree;
	info->avail_bytes = (uint64_t)sv.f_frsize * sv.f_bavail;
	info->total_files = sv.f_files;
	info->free_files = sv.f_ffree;
	info->avail_files = sv.f_favail;
	info->maxread = exp_hdl->fsal->fs_info.maxread;
	info->maxwrite = exp_hdl->fsal->fs_info.maxwrite;
	info->time_delta.tv_sec = 0;
	info->time_delta.tv_nsec = 1;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief Check a wire handle and take its host form
 *
 * Verifies the MAC and strips it: what MDCACHE sees is the host form.
 *
 * @param[in] exp_hdl The export
 * @param[in] in_type The handle's origin (NFSv3, NFSv4 or ganesha's own)
 * @param[in] fh_desc The handle's bytes
 * @param[in] flags Byte order of the wire handle
 *
 * @return FSAL status
 */
static fsal_status_t dc_wire_to_host(struct fsal_export *exp_hdl,
				     fsal_digesttype_t in_type,
				     struct gsh_buffdesc *fh_desc, int flags)
{
	struct dc_export *x = dc_exp(exp_hdl);
	int n = dc_fh_verify_wire(fh_desc->addr, fh_desc->len, x->key);

	if (n < 0) {
		LogInfo(COMPONENT_FSAL,
			"DONTCACHE export %u: rejected a handle of %zu bytes (bad length, format or MAC)",
			x->export_id, fh_desc->len);
		return fsalstat(ERR_FSAL_BADHANDLE, 0);
	}
	fh_desc->len = (size_t)n;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief The cache key of a host handle
 *
 * @param[in] exp_hdl The export
 * @param[in] fh_desc The handle's bytes
 *
 * @return FSAL status
 */
static fsal_status_t dc_host_to_key(struct fsal_export *exp_hdl,
				    struct gsh_buffdesc *fh_desc)
{
	struct dc_fh fh;

	if (dc_fh_from_desc(dc_exp(exp_hdl), fh_desc->addr, fh_desc->len,
			    &fh) != 0) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: host_to_key: a handle of %zu bytes is not a host handle",
			dc_exp(exp_hdl)->export_id, fh_desc->len);
		return fsalstat(ERR_FSAL_BADHANDLE, 0);
	}
	fh_desc->len = fh.len; /* the key is the host form */
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* The NFSv4 write verifier, 8 bytes: the server epoch (seconds at start, or
 * ganesha -E) and the process's random salt plus the engine-wide
 * generation (dcio_engine_verifier_gen).
 * - a restart: another epoch (a later second), and another salt;
 * - another head, or a restart in the same second or with the same -E: the
 *   salts differ (32 random bits: the same verifier with odds 2^-32 per pair);
 * - a write-back error bumps the generation: the second word changes (it
 *   repeats only after 2^32 errors), so clients resend what is uncommitted.
 * ganesha's NFSv3 verifier does not come here: it is ganesha's global,
 * built from nfs_ServerEpoch alone (see README "Two heads"). */
static uint32_t verifier_word(uint64_t gen)
{
	return DC.verifier_salt + (uint32_t)gen;
}

/**
 * @brief The export's current write verifier
 *
 * @param[in] exp_hdl The export
 * @param[out] verf_desc The verifier
 */
static void dc_get_write_verifier(struct fsal_export *exp_hdl,
				  struct gsh_buffdesc *verf_desc)
{
	uint32_t v[2];

	/* the engine-wide generation, the same for every export: a file is
	 * written through whichever export its handle came from, and its
	 * engine file may live in another's engine export */
	(void)exp_hdl;
	v[0] = (uint32_t)nfs_ServerEpoch;
	v[1] = verifier_word(DC.engine ? dcio_engine_verifier_gen(DC.engine)
				       : 0);
	memcpy(verf_desc->addr, v, MIN(verf_desc->len, sizeof(v)));
}

static void dc_export_ops_init(struct export_ops *ops)
{
	ops->release = dc_release_export;
	ops->lookup_path = dc_lookup_path;
	ops->wire_to_host = dc_wire_to_host;
	ops->host_to_key = dc_host_to_key;
	ops->create_handle = dc_create_handle;
	ops->get_fs_dynamic_info = dc_get_dynamic_info;
	ops->get_write_verifier = dc_get_write_verifier;
	dc_fd_export_ops_init(ops);
}

static int open_root(struct dc_export *x)
{
	x->root_fd = open(x->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->root_fd < 0) {
		int err = errno;

		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: open(%s, O_DIRECTORY): %s",
			     x->export_id, x->path, strerror(err));

		LogCrit(COMPONENT_FSAL, "DONTCACHE export %u: Path %s: %s",
			x->export_id, x->path,
			err == ENOTDIR ? "not a directory" : strerror(err));
		return err;
	}
	return 0;
}

static int load_key(struct dc_export *x)
{
	union dc_kfh k;
	uint8_t secret[DC_KEY_LEN];
	int rc, mnt_id;

	rc = dc_read_key_file(x, secret);
	if (rc != 0) {
		LogDebug(COMPONENT_FSAL,
			 "DONTCACHE export %u: no handle key: %s", x->export_id,
			 strerror(rc));
		return rc;
	}
	/* bind the MAC to this export (id and root): exports sharing a key
	 * file refuse each other's relabelled handles */
	k.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(x->root_fd, "", &k.fh, &mnt_id, AT_EMPTY_PATH) !=
	    0) {
		rc = errno;
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: Path %s: no file handle: %s",
			x->export_id, x->path, strerror(rc));
		return rc;
	}
	dc_key_bind(secret, x->export_id, k.fh.f_handle, k.fh.handle_bytes,
		    x->key);
	memset(secret, 0, sizeof(secret));
	return 0;
}

/* The engine's parameters from the FSAL block (at start and at a reload) */
static struct dcio_export_params engine_params(const struct dc_export_cfg *c)
{
	return (struct dcio_export_params){
		.write_mode = c->write_mode,
		.read_mode = c->read_mode,
		.flush_mode = c->bench.flush_mode,
		.max_inflight_bytes = c->max_inflight_bytes,
		.inflight_wait_ms = c->bench.inflight_wait_ms,
		.caller_write_max = c->bench.worker_write_max,
		.stable_reply_ms = c->stable_reply_ms,
		.kick_us_per_mib = c->bench.kick_us_per_mib,
		.cache_budget_bytes = c->cache_budget_bytes,
		.flush_file_bytes = c->bench.flush_file_bytes,
		.flush_interval_ms = c->bench.flush_interval_ms,
		/* flush_export_bytes 0: the engine's DCIO_DEF_FLUSH_EXPORT */
	};
}

static int start_io(struct dc_export *x)
{
	struct dcio_export_params p = engine_params(&x->cfg);
	char name[64];
	int rc;

	if (DC.engine == NULL) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: the I/O engine is not running (see the DONTCACHE block's errors above)",
			x->export_id);
		return ENXIO;
	}
	snprintf(name, sizeof(name), "export-%u", x->export_id);
	/* The probe needs a real directory fd for O_TMPFILE: root_fd is one. */
	LogFullDebug(COMPONENT_FSAL,
		     "DONTCACHE export %u: dcio_export_create (probing %s)",
		     x->export_id, x->path);
	rc = dcio_export_create(DC.engine, &p, name, x->root_fd, &x->io);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL, "DONTCACHE export %u: engine: %s",
			x->export_id, strerror(rc));
		return rc;
	}
	dc_log_export_start(x);
	return 0;
}

/* The export's filesystem is claimed by another FSAL (ganesha's own line
 * before this one names the filesystem, that FSAL and this export's path):
 * name both exports. One ganesha exports a filesystem through one FSAL, as
 * for every FSAL that claims its filesystems (FSAL_VFS included). */
static void log_claim_conflict(struct dc_export *x)
{
	struct fsal_filesystem_export_map *map;
	struct fsal_filesystem *fs;
	struct glist_head *g;
	struct fsal_dev__ dev;
	struct stat st;
	bool named = false;

	if (fstat(x->root_fd, &st) != 0)
		return;
	dev = posix2fsal_devt(st.st_dev);
	fs = lookup_dev(&dev);
	if (fs == NULL)
		return;
	PTHREAD_RWLOCK_rdlock(&fs_lock);
	if (fs->fsal == NULL || fs->fsal == &DC.fsal)
		goto out;
	glist_for_each(g, &fs->exports) {
		const char *other = NULL;

		map = glist_entry(g, struct fsal_filesystem_export_map,
				  on_exports);
		if (map->claim_type == CLAIM_CHILD || map->exp == NULL)
			continue;
		if (map->exp->owning_export != NULL)
			other = map->exp->owning_export->cfg_fullpath;
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u (Path %s) refused: its filesystem %s is exported by FSAL %s through export %u (Path %s); one ganesha exports a filesystem through one FSAL only: export both through DONTCACHE, or put one of them on another filesystem",
			x->export_id, x->path, fs->path, fs->fsal->name,
			map->exp->export_id, other != NULL ? other : "?");
		named = true;
		break;
	}
	if (!named)
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u (Path %s) refused: its filesystem %s is claimed by FSAL %s; one ganesha exports a filesystem through one FSAL only",
			x->export_id, x->path, fs->path, fs->fsal->name);
out:
	PTHREAD_RWLOCK_unlock(&fs_lock);
}

/**
 * @brief Create an export from its configuration
 *
 * @param[in] fsal_hdl The module
 * @param[in] parse_node The configuration node
 * @param[in] err_type Configuration errors are reported here
 * @param[in] up_ops Upcall operations
 *
 * @return FSAL status
 */
fsal_status_t dc_create_export(struct fsal_module *fsal_hdl, void *parse_node,
			       struct config_error_type *err_type,
			       const struct fsal_up_vector *up_ops)
{
	struct dc_export *x = gsh_calloc(1, sizeof(*x));
	bool attached = false;
	int rc;

	x->root_fd = -1;
	x->refs = 1; /* ganesha's, until dc_release_export */
	glist_init(&x->node);
	fsal_export_init(&x->export);
	dc_export_ops_init(&x->export.exp_ops);
	x->export_id = op_ctx->ctx_export->export_id;

	LogFullDebug(COMPONENT_FSAL, "DONTCACHE export %u: creating",
		     x->export_id);
	rc = dc_load_export_cfg(x, parse_node, err_type);
	if (rc != 0)
		goto fail;
	x->path = gsh_strdup(CTX_FULLPATH(op_ctx));
	rc = open_root(x);
	if (rc != 0)
		goto fail;
	rc = fsal_attach_export(fsal_hdl, &x->export.exports);
	if (rc != 0) {
		LogDebug(COMPONENT_FSAL,
			 "DONTCACHE export %u: fsal_attach_export: %s",
			 x->export_id, strerror(rc));
		goto fail;
	}
	attached = true;
	x->export.fsal = fsal_hdl;
	x->export.up_ops = up_ops;
	/* Path's filesystem and those mounted under it */
	rc = dc_ident_export_init(x);
	if (rc != 0) {
		LogDebug(COMPONENT_FSAL,
			 "DONTCACHE export %u: claiming %s's filesystems: %s",
			 x->export_id, x->path, strerror(rc));
		log_claim_conflict(x);
	}
	if (rc == 0)
		rc = load_key(x);
	if (rc == 0) {
		dc_check_stats_paths(x);
		rc = start_io(x);
	}
	if (rc != 0)
		goto fail;
	op_ctx->fsal_export = &x->export;

	PTHREAD_MUTEX_lock(&DC.lock);
	glist_add_tail(&DC.exports, &x->node);
	PTHREAD_MUTEX_unlock(&DC.lock);
	dc_stats_export_added(x);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);

fail:
	LogDebug(COMPONENT_FSAL, "DONTCACHE export %u: not created: %s",
		 x->export_id, strerror(rc));
	if (attached) {
		dc_ident_export_fini(x);
		fsal_detach_export(fsal_hdl, &x->export.exports);
	}
	free_export_ops(&x->export);
	dc_export_put(x);
	return posix2fsal_status(rc);
}

/* The reload's summary: "Name old -> new" items, comma separated. */
struct dc_changes {
	char buf[1536];
	size_t n;
};

static void note(struct dc_changes *ch, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct dc_changes *ch, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (ch->n >= sizeof(ch->buf) - 1)
		return;
	if (ch->n != 0)
		ch->n += snprintf(ch->buf + ch->n, sizeof(ch->buf) - ch->n,
				  ", ");
	if (ch->n >= sizeof(ch->buf) - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(ch->buf + ch->n, sizeof(ch->buf) - ch->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		ch->n = MIN(ch->n + (size_t)k, sizeof(ch->buf) - 1);
}

static bool str_differ(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a != b;
	return strcmp(a, b) != 0;
}

static const char *or_none(const char *s)
{
	return s != NULL ? s : "(none)";
}

/* A mode that cannot change live: the running one is kept (in c too). */
static void keep_mode(struct dc_export *x, struct dc_changes *refused,
		      const char *param, char **new_s, const char *old_s)
{
	LogWarn(COMPONENT_FSAL,
		"DONTCACHE export %u: reload: %s %s -> %s refused (files open their O_DIRECT descriptor when first opened: a change to or from direct needs a restart); keeping %s",
		x->export_id, param, old_s, *new_s, old_s);
	note(refused, "%s (kept %s)", param, old_s);
	gsh_free(*new_s);
	*new_s = gsh_strdup(old_s);
}

#define DC_NUM_CHANGE(field, name, fmt)                                     \
	do {                                                                \
		if (c->field != o->field) {                                 \
			note(&applied, name " %" fmt " -> %" fmt, o->field, \
			     c->field);                                     \
			o->field = c->field;                                \
		}                                                           \
	} while (0)

#define DC_MODE_CHANGE(field, name, namefn)                                \
	do {                                                               \
		if (c->field != o->field)                                  \
			note(&applied, name " %s -> %s", namefn(o->field), \
			     namefn(c->field));                            \
		o->field = c->field;                                       \
		tmp = o->field##_s;                                        \
		o->field##_s = c->field##_s;                               \
		c->field##_s = tmp;                                        \
	} while (0)

/**
 * @brief Apply a reloaded export configuration
 *
 * ganesha's reload (SIGHUP, DBus UpdateExport) hands the export's new FSAL
 * block here. What applies live goes to the engine export, whose files,
 * queued requests and error memory stay; what cannot is refused with a
 * line naming it and the running value kept. The export always stays:
 * ganesha drops an export whose update fails, so a bad block is refused
 * whole.
 *
 * @param[in] fsal_hdl The module
 * @param[in] parse_node The configuration node
 * @param[in] err_type Configuration errors are reported here
 * @param[in] original The export as it runs
 * @param[in] updated_super The FSAL the reloaded export names
 *
 * @return FSAL status
 */
fsal_status_t dc_update_export(struct fsal_module *fsal_hdl, void *parse_node,
			       struct config_error_type *err_type,
			       struct fsal_export *original,
			       struct fsal_module *updated_super)
{
	struct dc_export *x = dc_exp(original);
	struct dc_export_cfg *o = &x->cfg, *c;
	struct config_error_type scratch;
	struct dc_changes applied = { .n = 0 }, refused = { .n = 0 };
	struct dcio_export_params p;
	struct dc_export *n;
	char why[256], *tmp;
	const char *wpath;
	fsal_status_t st;
	int rc;

	/* ganesha's own check that the stacking did not change */
	st = update_export(fsal_hdl, parse_node, err_type, original,
			   updated_super);
	if (FSAL_IS_ERROR(st)) {
		LogDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: ganesha's update_export check refused the reload: %s",
			x->export_id, fsal_err_txt(st));
		return st;
	}
#if FSAL_MAJOR_VERSION < 13
	/* (6.5 hands the DONTCACHE block to update_config) */
	dc_module_reload_check(dc_parse_root(parse_node));
#endif

	n = gsh_calloc(1, sizeof(*n));
	n->export_id = x->export_id;
	c = &n->cfg;
	/* ganesha's messages still go to its CONFIG lines; its error flags
	 * stay here (they would make ganesha drop the export) */
	scratch = *err_type;
	rc = dc_load_export_cfg(n, parse_node, &scratch);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: reload refused: config error in the FSAL block (see above); the export keeps its running configuration",
			x->export_id);
		goto out;
	}

	if (strcmp(c->key_file, o->key_file) != 0) {
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: reload: Handle_Key_File %s -> %s refused (a new key would invalidate every file handle clients hold; restart ganesha to change it); keeping %s",
			x->export_id, o->key_file, c->key_file, o->key_file);
		note(&refused, "Handle_Key_File (kept %s)", o->key_file);
	}
	if ((c->write_mode == DCIO_WRITE_DIRECT) !=
	    (o->write_mode == DCIO_WRITE_DIRECT)) {
		keep_mode(x, &refused, "Write_Mode", &c->write_mode_s,
			  o->write_mode_s);
		c->write_mode = o->write_mode;
	}
	if ((c->read_mode == DCIO_READ_DIRECT) !=
	    (o->read_mode == DCIO_READ_DIRECT)) {
		keep_mode(x, &refused, "Read_Mode", &c->read_mode_s,
			  o->read_mode_s);
		c->read_mode = o->read_mode;
	}

	p = engine_params(c);
	rc = dcio_export_update(x->io, &p);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: reload refused by the engine: %s; the export keeps its running configuration",
			x->export_id, strerror(rc));
		goto out;
	}

	DC_MODE_CHANGE(write_mode, "Write_Mode", dcio_write_mode_name);
	DC_MODE_CHANGE(read_mode, "Read_Mode", dcio_read_mode_name);
	DC_MODE_CHANGE(bench.flush_mode, "Flush_Mode", dcio_flush_mode_name);
	DC_NUM_CHANGE(max_inflight_bytes, "Max_Inflight_Bytes", PRIu64);
	DC_NUM_CHANGE(bench.inflight_wait_ms, "Inflight_Wait_Ms", PRIu32);
	DC_NUM_CHANGE(bench.flush_file_bytes, "Flush_File_Bytes", PRIu64);
	DC_NUM_CHANGE(bench.flush_interval_ms, "Flush_Interval_Ms", PRIu32);
	DC_NUM_CHANGE(bench.worker_write_max, "Worker_Write_Max", PRIu32);
	DC_NUM_CHANGE(stable_reply_ms, "Stable_Reply_Ms", PRIu32);
	DC_NUM_CHANGE(bench.kick_us_per_mib, "Kick_Us_Per_MiB", PRIu32);
	DC_NUM_CHANGE(cache_budget_bytes, "Cache_Budget_Bytes", PRIu64);
	if (str_differ(c->stats_file, o->stats_file) ||
	    str_differ(c->prom_file, o->prom_file)) {
		if (str_differ(c->stats_file, o->stats_file))
			note(&applied, "Stats_File %s -> %s",
			     or_none(o->stats_file), or_none(c->stats_file));
		if (str_differ(c->prom_file, o->prom_file))
			note(&applied, "Prometheus_File %s -> %s",
			     or_none(o->prom_file), or_none(c->prom_file));
		dc_stats_files_update(x, c->stats_file, c->prom_file);
		c->stats_file = NULL;
		c->prom_file = NULL;
	}

	wpath = dcio_export_write_path(x->io, why, sizeof(why));
	LogEvent(
		COMPONENT_FSAL,
		"DONTCACHE export %u: reload: applied: %s; refused: %s; write path %s%s%s%s",
		x->export_id, applied.n ? applied.buf : "(no change)",
		refused.n ? refused.buf : "(none)", wpath, why[0] ? " (" : "",
		why, why[0] ? ")" : "");
out:
	dc_export_cfg_free(c);
	gsh_free(n);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}
