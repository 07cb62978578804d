// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE configuration: the module block (DONTCACHE { }) and the
 * export's FSAL block, their parameters and range checks, and the paths they
 * name (Handle_Key_File, Stats_File, Prometheus_File). */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config_parsing.h"

#define DC_STATE_DIR "/var/lib/nfs/ganesha/dontcache"

#define MiB (1024ULL * 1024ULL)

/* A numeric parameter checked by check_ranges (u32 or u64 field). Ranges are
 * checked here rather than by ganesha so that the error names the parameter
 * (ganesha's own message for a bad number or token does not). */
struct dc_param_range {
	const char *name;
	size_t off;
	unsigned int size;
	uint64_t min, max;
};

static int check_ranges(const char *where, const struct dc_param_range *r,
			const void *base)
{
	int rc = 0;

	for (; r->name != NULL; r++) {
		const char *p = (const char *)base + r->off;
		uint64_t v = r->size == 8 ? *(const uint64_t *)p
					  : *(const uint32_t *)p;

		if (v < r->min || v > r->max) {
			LogCrit(COMPONENT_FSAL,
				"%s: config error: %s = %" PRIu64
				" is out of range %" PRIu64 "..%" PRIu64,
				where, r->name, v, r->min, r->max);
			rc = EINVAL;
		}
	}
	return rc;
}

/* The module block ----------------------------------------------------- */

#define DC_DEF_KICK "auto"

/* DONTCACHE { Bench { } }. ganesha sets a sub-block's defaults only when
 * the sub-block is present: its init sets them when the parent block is
 * initialised (link_mem NULL), and frees the string it made before ganesha
 * sets the defaults again for a present sub-block (self_struct NULL). */
static void *module_bench_init(void *link_mem, void *self_struct)
{
	struct dc_module_bench *b;

	if (link_mem != NULL && self_struct != NULL)
		return NULL; /* embedded: nothing to free */
	b = link_mem != NULL ? link_mem : self_struct;
	gsh_free(b->dontcache_kick_s);
	b->dontcache_kick_s = NULL;
	if (link_mem != NULL)
		return b;
	b->engine_threads = DCIO_DEF_THREADS;
	b->engine_nice = DCIO_DEF_NICE;
	b->dontcache_kick_s = gsh_strdup(DC_DEF_KICK);
	b->kept_max = DC_KEPT_MAX;
	return b;
}

static struct config_item dc_module_bench_items[] = {
	CONF_ITEM_UI32("Engine_Threads", 0, UINT32_MAX, DCIO_DEF_THREADS,
		       dc_module_bench, engine_threads),
	CONF_ITEM_UI32("Engine_Nice", 0, UINT32_MAX, DCIO_DEF_NICE,
		       dc_module_bench, engine_nice),
	CONF_ITEM_STR("Dontcache_Kick", 1, 32, DC_DEF_KICK, dc_module_bench,
		      dontcache_kick_s),
	CONF_ITEM_UI32("Kept_Files_Max", 0, UINT32_MAX, DC_KEPT_MAX,
		       dc_module_bench, kept_max),
	CONFIG_EOL
};

static struct config_item dc_module_items[] = {
	CONF_ITEM_UI32("Stats_Interval_Ms", 0, UINT32_MAX, 1000, dc_module,
		       stats_interval_ms),
	CONF_ITEM_BLOCK("Bench", dc_module_bench_items, module_bench_init,
			noop_conf_commit, dc_module, bench),
	CONFIG_EOL
};

static const struct dc_param_range module_ranges[] = {
	{ "Bench { Engine_Threads }",
	  offsetof(struct dc_module, bench.engine_threads), 4, 1, 64 },
	{ "Stats_Interval_Ms", offsetof(struct dc_module, stats_interval_ms), 4,
	  0, 3600000 },
	{ "Bench { Engine_Nice }",
	  offsetof(struct dc_module, bench.engine_nice), 4, 0, 19 },
	{ "Bench { Kept_Files_Max }",
	  offsetof(struct dc_module, bench.kept_max), 4, 1, 1 << 20 },
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

/* The DONTCACHE block at start, into DC: 0, or EINVAL after a line naming
 * what is wrong (ganesha's CONFIG lines name unknown parameters). */
int dc_load_module_config(config_file_t root,
			  struct config_error_type *err_type)
{
	bool bogus = err_type->bogus;
	uint32_t before = err_type->errors;
	int rc, loaded;

	err_type->bogus = false;
	loaded = load_config_from_parse(root, &dc_module_block, &DC, true,
					err_type);
	LogFullDebug(
		COMPONENT_FSAL,
		"DONTCACHE: load_config_from_parse(DONTCACHE) = %d, %u errors, bogus %d",
		loaded, err_type->errors - before, err_type->bogus);
	rc = err_type->errors != before || err_type->bogus ||
	     !config_error_is_harmless(err_type);
	err_type->bogus |= bogus;
	if (rc) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: config error in the DONTCACHE block (see the CONFIG lines above)");
		return EINVAL;
	}
	if (check_ranges("DONTCACHE block", module_ranges, &DC) != 0) {
		err_type->invalid = true;
		return EINVAL;
	}
	if (dcio_parse_kick(DC.bench.dontcache_kick_s, &DC.bench.kick) != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE block: config error: Bench { Dontcache_Kick } = \"%s\" is not one of auto, inline, deferred",
			DC.bench.dontcache_kick_s);
		err_type->invalid = true;
		return EINVAL;
	}
	LogDebug(
		COMPONENT_FSAL,
		"DONTCACHE block: Stats_Interval_Ms=%u Bench { Engine_Threads=%u Engine_Nice=%u Dontcache_Kick=%s Kept_Files_Max=%u }",
		DC.stats_interval_ms, DC.bench.engine_threads,
		DC.bench.engine_nice, dcio_kick_name(DC.bench.kick),
		DC.bench.kept_max);
	return 0;
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
 * threads live. At a reload the block of the config being loaded
 * is read only to say which values are not applied: once per change (6.5
 * calls update_config for each export, 4.3 gets here from update_export). */
void dc_module_reload_check(config_file_t root)
{
	static struct {
		uint32_t threads, interval, nice;
		enum dcio_kick kick;
	} seen;
	static bool seen_init;
	struct config_error_type err;
	struct dc_module *m;
	int rc;

	if (!seen_init) {
		seen.threads = DC.bench.engine_threads;
		seen.interval = DC.stats_interval_ms;
		seen.nice = DC.bench.engine_nice;
		seen.kick = DC.bench.kick;
		seen_init = true;
	}
	/* errors in the block are the parse's own business: not reported
	 * here (no memstream: ganesha then writes nothing) */
	memset(&err, 0, sizeof(err));
	if (root == NULL) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: reload: no parse tree: DONTCACHE block not checked");
		return;
	}
	m = gsh_calloc(1, sizeof(*m));
	rc = load_config_from_parse(root, &dc_module_block, m, true, &err);
	if (rc < 0 || err.errors != 0 || err.bogus) {
		LogDebug(
			COMPONENT_FSAL,
			"DONTCACHE: reload: the DONTCACHE block did not load (%d, %u errors, bogus %d): not compared",
			rc, err.errors, err.bogus);
	} else {
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
		DC_MODULE_CHANGE(bench.engine_threads, threads,
				 "Bench { Engine_Threads }", PRIu32);
		DC_MODULE_CHANGE(bench.engine_nice, nice,
				 "Bench { Engine_Nice }", PRIu32);
		DC_MODULE_CHANGE(stats_interval_ms, interval,
				 "Stats_Interval_Ms", PRIu32);
#undef DC_MODULE_CHANGE
		if (dcio_parse_kick(m->bench.dontcache_kick_s,
				    &m->bench.kick) == 0 &&
		    m->bench.kick != seen.kick) {
			LogWarn(COMPONENT_FSAL,
				"DONTCACHE: reload: Bench { Dontcache_Kick } %s -> %s not applied (the DONTCACHE block is read at start only: restart ganesha); running with %s",
				dcio_kick_name(seen.kick),
				dcio_kick_name(m->bench.kick),
				dcio_kick_name(DC.bench.kick));
			seen.kick = m->bench.kick;
		}
	}
	gsh_free(m->bench.dontcache_kick_s);
	gsh_free(m);
}

/* The export block ----------------------------------------------------- */

static const struct dc_param_range export_ranges[] = {
	{ "Max_Inflight_Bytes",
	  offsetof(struct dc_export_cfg, max_inflight_bytes), 8, 1 * MiB,
	  64ULL * 1024 * MiB },
	{ "Bench { Inflight_Wait_Ms }",
	  offsetof(struct dc_export_cfg, bench.inflight_wait_ms), 4, 0,
	  600000 },
	{ "Bench { Flush_File_Bytes }",
	  offsetof(struct dc_export_cfg, bench.flush_file_bytes), 8, 64 * 1024,
	  64ULL * 1024 * MiB },
	{ "Bench { Flush_Interval_Ms }",
	  offsetof(struct dc_export_cfg, bench.flush_interval_ms), 4, 1,
	  600000 },
	{ "Stable_Reply_Ms", offsetof(struct dc_export_cfg, stable_reply_ms), 4,
	  0, 10000 },
	{ "Cache_Budget_Bytes",
	  offsetof(struct dc_export_cfg, cache_budget_bytes), 8, 0,
	  1024ULL * 1024 * MiB },
	{ "Bench { Worker_Write_Max }",
	  offsetof(struct dc_export_cfg, bench.worker_write_max), 4, 0,
	  64 * MiB },
	{ "Bench { Kick_Us_Per_MiB }",
	  offsetof(struct dc_export_cfg, bench.kick_us_per_mib), 4, 0,
	  10000000 },
	{ NULL, 0, 0, 0, 0 }
};

#define DC_DEF_FLUSH_MODE "coalesced"

/* FSAL { Bench { } }: as module_bench_init */
static void *export_bench_init(void *link_mem, void *self_struct)
{
	struct dc_export_bench *b;

	if (link_mem != NULL && self_struct != NULL)
		return NULL; /* embedded: nothing to free */
	b = link_mem != NULL ? link_mem : self_struct;
	gsh_free(b->flush_mode_s);
	b->flush_mode_s = NULL;
	if (link_mem != NULL)
		return b;
	b->flush_mode_s = gsh_strdup(DC_DEF_FLUSH_MODE);
	b->inflight_wait_ms = DCIO_DEF_INFLIGHT_WAIT_MS;
	b->flush_file_bytes = DCIO_DEF_FLUSH_FILE;
	b->flush_interval_ms = DCIO_DEF_FLUSH_MS;
	b->worker_write_max = DCIO_DEF_CALLER_WRITE_MAX;
	b->kick_us_per_mib = DCIO_DEF_KICK_US_PER_MIB;
	return b;
}

static struct config_item dc_export_bench_items[] = {
	CONF_ITEM_STR("Flush_Mode", 1, 32, DC_DEF_FLUSH_MODE, dc_export_bench,
		      flush_mode_s),
	CONF_ITEM_UI32("Inflight_Wait_Ms", 0, UINT32_MAX,
		       DCIO_DEF_INFLIGHT_WAIT_MS, dc_export_bench,
		       inflight_wait_ms),
	CONF_ITEM_UI64("Flush_File_Bytes", 0, UINT64_MAX, DCIO_DEF_FLUSH_FILE,
		       dc_export_bench, flush_file_bytes),
	CONF_ITEM_UI32("Flush_Interval_Ms", 0, UINT32_MAX, DCIO_DEF_FLUSH_MS,
		       dc_export_bench, flush_interval_ms),
	CONF_ITEM_UI32("Worker_Write_Max", 0, UINT32_MAX,
		       DCIO_DEF_CALLER_WRITE_MAX, dc_export_bench,
		       worker_write_max),
	CONF_ITEM_UI32("Kick_Us_Per_MiB", 0, UINT32_MAX,
		       DCIO_DEF_KICK_US_PER_MIB, dc_export_bench,
		       kick_us_per_mib),
	CONFIG_EOL
};

static struct config_item dc_export_items[] = {
	CONF_ITEM_NOOP("name"),
	CONF_ITEM_STR("Write_Mode", 1, 32, "dontcache", dc_export_cfg,
		      write_mode_s),
	CONF_ITEM_STR("Read_Mode", 1, 32, "buffered", dc_export_cfg,
		      read_mode_s),
	CONF_ITEM_UI64("Max_Inflight_Bytes", 0, UINT64_MAX, DCIO_DEF_INFLIGHT,
		       dc_export_cfg, max_inflight_bytes),
	CONF_ITEM_UI32("Stable_Reply_Ms", 0, UINT32_MAX, 0, dc_export_cfg,
		       stable_reply_ms),
	CONF_ITEM_UI64("Cache_Budget_Bytes", 0, UINT64_MAX,
		       DCIO_DEF_CACHE_BUDGET, dc_export_cfg,
		       cache_budget_bytes),
	CONF_ITEM_PATH("Handle_Key_File", 1, 4096, NULL, dc_export_cfg,
		       key_file),
	CONF_ITEM_BOOL("Handle_Key_Create", true, dc_export_cfg, key_create),
	CONF_ITEM_PATH("Stats_File", 1, 4096, NULL, dc_export_cfg, stats_file),
	CONF_ITEM_PATH("Prometheus_File", 1, 4096, NULL, dc_export_cfg,
		       prom_file),
	CONF_ITEM_BLOCK("Bench", dc_export_bench_items, export_bench_init,
			noop_conf_commit, dc_export_cfg, bench),
	CONFIG_EOL
};

static struct config_block dc_export_block = {
	.dbus_interface_name =
		"org.ganesha.nfsd.config.fsal.dontcache-export%d",
	.blk_desc.name = "FSAL",
	.blk_desc.type = CONFIG_BLOCK,
	.blk_desc.u.blk.init = noop_conf_init,
	.blk_desc.u.blk.params = dc_export_items,
	.blk_desc.u.blk.commit = noop_conf_commit
};

void dc_export_cfg_free(struct dc_export_cfg *c)
{
	gsh_free(c->write_mode_s);
	gsh_free(c->read_mode_s);
	gsh_free(c->bench.flush_mode_s);
	gsh_free(c->key_file);
	gsh_free(c->stats_file);
	gsh_free(c->prom_file);
}

static int mkdir_p(const char *dir)
{
	char buf[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: directory name of %zu bytes refused",
			     n);
		return EINVAL;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
			int err = errno;

			LogFullDebug(COMPONENT_FSAL, "DONTCACHE: mkdir %s: %s",
				     buf, strerror(err));
			return err;
		}
		*p = '/';
	}
	if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
		int err = errno;

		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: mkdir %s: %s", buf,
			     strerror(err));
		return err;
	}
	return 0;
}

static int make_parent_dir(const char *path)
{
	char buf[4096];
	char *slash;

	if (strlen(path) >= sizeof(buf))
		return ENAMETOOLONG;
	strcpy(buf, path);
	slash = strrchr(buf, '/');
	if (slash == NULL || slash == buf)
		return 0;
	*slash = '\0';
	return mkdir_p(buf);
}

static char *default_path(const char *dir, uint16_t id, const char *suffix)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s/export-%u.%s", dir, id, suffix);
	return gsh_strdup(buf);
}

static int bad_mode(uint16_t id, const char *param, const char *val,
		    const char *allowed)
{
	LogCrit(COMPONENT_FSAL,
		"DONTCACHE export %u: config error: %s = \"%s\" is not one of %s",
		id, param, val, allowed);
	return EINVAL;
}

/* The FSAL block: ganesha parses it, then every value is checked here and
 * any error (ganesha's or ours) refuses the export with a line naming it. */
int dc_load_export_cfg(struct dc_export *x, void *parse_node,
		       struct config_error_type *err_type)
{
	struct dc_export_cfg *c = &x->cfg;
	bool bogus = err_type->bogus, invalid = err_type->invalid;
	uint32_t before = err_type->errors;
	char where[48];
	int rc = 0;

	/* ganesha marks an unknown parameter only in err_type->bogus (and does
	 * not fail the block for it): look at the flags for this block alone. */
	err_type->bogus = false;
	err_type->invalid = false;
	rc = load_config_from_node(parse_node, &dc_export_block, c, true,
				   err_type);
	LogFullDebug(
		COMPONENT_FSAL,
		"DONTCACHE export %u: load_config_from_node(FSAL) = %d, %u errors, bogus %d, invalid %d",
		x->export_id, rc, err_type->errors - before, err_type->bogus,
		err_type->invalid);
	if (rc != 0 || err_type->errors != before || err_type->bogus ||
	    err_type->invalid) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: config error in the FSAL block (%u: see the CONFIG lines above; unknown parameters are named there)",
			x->export_id, err_type->errors - before);
		rc = EINVAL;
	}
	if (dcio_parse_write_mode(c->write_mode_s, &c->write_mode) != 0)
		rc = bad_mode(x->export_id, "Write_Mode", c->write_mode_s,
			      "dontcache, buffered, direct, dropbehind");
	if (dcio_parse_read_mode(c->read_mode_s, &c->read_mode) != 0)
		rc = bad_mode(x->export_id, "Read_Mode", c->read_mode_s,
			      "buffered, dontcache, direct");
	if (dcio_parse_flush_mode(c->bench.flush_mode_s,
				  &c->bench.flush_mode) != 0)
		rc = bad_mode(x->export_id, "Bench { Flush_Mode }",
			      c->bench.flush_mode_s, "coalesced, inline");
	snprintf(where, sizeof(where), "DONTCACHE export %u", x->export_id);
	if (check_ranges(where, export_ranges, c) != 0)
		rc = EINVAL;
	LogDebug(
		COMPONENT_FSAL,
		"DONTCACHE export %u: FSAL block %s: Write_Mode=%s Read_Mode=%s Max_Inflight_Bytes=%" PRIu64
		" Stable_Reply_Ms=%u Cache_Budget_Bytes=%" PRIu64
		" Bench { Flush_Mode=%s Inflight_Wait_Ms=%u Flush_File_Bytes=%" PRIu64
		" Flush_Interval_Ms=%u Worker_Write_Max=%u Kick_Us_Per_MiB=%u }",
		x->export_id, rc == 0 ? "loaded" : "refused",
		c->write_mode_s ? c->write_mode_s : "(none)",
		c->read_mode_s ? c->read_mode_s : "(none)",
		c->max_inflight_bytes, c->stable_reply_ms,
		c->cache_budget_bytes,
		c->bench.flush_mode_s ? c->bench.flush_mode_s : "(none)",
		c->bench.inflight_wait_ms, c->bench.flush_file_bytes,
		c->bench.flush_interval_ms, c->bench.worker_write_max,
		c->bench.kick_us_per_mib);
	/* Handle_Key_File not given: the export's file in the state dir */
	if (c->key_file == NULL)
		c->key_file = default_path(DC_STATE_DIR, x->export_id, "key");
	err_type->bogus |= bogus;
	err_type->invalid |= invalid || rc != 0;
	return rc;
}

/* Handle_Key_Create = false (heads of a cluster sharing one key): the key
 * file must exist. Neither it nor its directory is made: on a node where the
 * shared storage is not mounted, a new local key would make every handle the
 * clients hold BADHANDLE on this head. The file is opened first and kept
 * open, so that a key created by someone else while it is read (between
 * this check and dc_key_load's open) is noticed, not used. Returns 0, or an
 * errno with *logged set when the line naming the file was written here. */
static int read_existing_key(struct dc_export *x, uint8_t secret[DC_KEY_LEN],
			     bool *logged)
{
	struct stat before, after;
	int fd, rc;

	fd = open(x->cfg.key_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: open(%s, O_NOFOLLOW): %s",
			     x->export_id, x->cfg.key_file, strerror(rc));
		if (rc == ENOENT) {
			LogCrit(COMPONENT_FSAL,
				"DONTCACHE export %u: Handle_Key_File %s does not exist and Handle_Key_Create = false: not creating a key (copy the cluster's key there, 16 bytes, 0600 root); export not started",
				x->export_id, x->cfg.key_file);
			*logged = true;
		}
		return rc;
	}
	rc = fstat(fd, &before) == 0 ? 0 : errno;
	if (rc != 0)
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: fstat(%s): %s", x->export_id,
			     x->cfg.key_file, strerror(rc));
	if (rc == 0)
		rc = dc_key_load(x->cfg.key_file, secret);
	if (rc == 0 &&
	    (lstat(x->cfg.key_file, &after) != 0 ||
	     before.st_dev != after.st_dev || before.st_ino != after.st_ino)) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: Handle_Key_File %s was replaced while it was read (Handle_Key_Create = false); export not started",
			x->export_id, x->cfg.key_file);
		*logged = true;
		rc = ESTALE;
	}
	close(fd);
	return rc;
}

/* Handle_Key_File: its directory is made if missing, then the secret read
 * or created (handle_codec.c checks the file's size, owner and mode); with
 * Handle_Key_Create = false only an existing file is read. */
int dc_read_key_file(struct dc_export *x, uint8_t secret[DC_KEY_LEN])
{
	bool logged = false;
	int rc;

	LogFullDebug(
		COMPONENT_FSAL,
		"DONTCACHE export %u: reading Handle_Key_File %s (Handle_Key_Create %s)",
		x->export_id, x->cfg.key_file,
		x->cfg.key_create ? "true" : "false");
	if (!x->cfg.key_create) {
		rc = read_existing_key(x, secret, &logged);
	} else {
		rc = make_parent_dir(x->cfg.key_file);
		if (rc != 0)
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE export %u: the directory of %s: %s",
				x->export_id, x->cfg.key_file, strerror(rc));
		if (rc == 0)
			rc = dc_key_load(x->cfg.key_file, secret);
	}
	if (rc != 0 && !logged)
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: Handle_Key_File %s: %s%s",
			x->export_id, x->cfg.key_file, strerror(rc),
			rc == EINVAL ? " (must hold exactly 16 bytes)"
			: rc == EPERM
				? " (must be owned by root with no group or other permissions, e.g. 0600)"
				: "");
	return rc;
}

/* Stats_File, Prometheus_File ------------------------------------------- */

static bool dir_exists(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t n;

	if (slash == NULL)
		return true;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir))
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Warnings only: the export runs without the file (and says why, once). */
void dc_check_stats_paths(struct dc_export *x)
{
	const char *p = x->cfg.prom_file;
	char why[4200];
	size_t n;

	if (x->cfg.stats_file != NULL && !dir_exists(x->cfg.stats_file))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: Stats_File %s: its directory does not exist (not written until it does)",
			x->export_id, x->cfg.stats_file);
	if (x->cfg.stats_file != NULL &&
	    dc_stats_dir_check(x->cfg.stats_file, why, sizeof(why)) != 0)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: Stats_File %s: %s (not written while others may write there)",
			x->export_id, x->cfg.stats_file, why);
	if (p == NULL)
		return;
	if (dc_stats_dir_check(p, why, sizeof(why)) != 0)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: Prometheus_File %s: %s (not written while others may write there)",
			x->export_id, p, why);
	if (!dir_exists(p))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: Prometheus_File %s: its directory does not exist (not written until it does)",
			x->export_id, p);
	n = strlen(p);
	if (n < 5 || strcmp(p + n - 5, ".prom") != 0)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: Prometheus_File %s does not end in .prom: node_exporter's textfile collector reads only *.prom files",
			x->export_id, p);
}
