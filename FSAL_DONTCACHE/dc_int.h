/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* FSAL_DONTCACHE private definitions: module, export and handle state. */
#ifndef DC_INT_H
#define DC_INT_H

#include "config.h"
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "fsal.h"
#include "fsal_api.h"
#include "config_parsing.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "ganesha/compat.h"
#include "handle_codec.h"
#include "io/dcio.h"

#define DC_NAME "DONTCACHE"

/* The module is built with -fvisibility=hidden: only its entry points
 * (registration at load, unregistration at unload) are exported. */
#define DC_EXPORT __attribute__((visibility("default")))

/* DONTCACHE { Bench { } }: the engine's settings, for benchmarks and
 * tests (not in the man page's table) */
struct dc_module_bench {
	uint32_t engine_threads;
	uint32_t engine_nice; /* the engine's own threads only */
	char *dontcache_kick_s; /* Dontcache_Kick: auto, inline, deferred */
	enum dcio_kick kick;
	uint32_t kept_max; /* Kept_Files_Max (efile.c) */
};

/* FSAL { Bench { } } of an export: switches that compare paths */
struct dc_export_bench {
	char *flush_mode_s;
	enum dcio_flush_mode flush_mode;
	uint32_t inflight_wait_ms;
	uint64_t flush_file_bytes;
	uint32_t flush_interval_ms;
	uint32_t worker_write_max;
	uint32_t kick_us_per_mib;
};

struct dc_module {
	struct fsal_module fsal;
	struct fsal_obj_ops handle_ops;
	/* module config block DONTCACHE { } */
	uint32_t stats_interval_ms;
	struct dc_module_bench bench;

	struct dcio_engine *engine;
	pthread_mutex_t lock; /* exports list, stats thread */
	struct glist_head exports;
	/* ident.c: the filesystems this module claimed (struct dc_fs) */
	pthread_mutex_t fs_mu;
	struct glist_head filesystems;
	/* efile.c: the engine state of every regular file, server-wide */
	struct dc_efiles *efiles;
	/* stats.c: the dc-stats thread, one job in a fridge of ganesha's,
	 * started with the first export that has a stats or Prometheus file
	 * (NULL while it does not run) */
	struct fridgethr *stats_fridge;
	pthread_cond_t stats_cond;
	bool stats_stop;
	/* main.c: random at module init, part of every export's NFSv4 write
	 * verifier, so no other process (another head, an earlier start in
	 * the same second) answers the same one */
	uint32_t verifier_salt;
};

extern struct dc_module DC;

struct dc_export_cfg {
	char *write_mode_s;
	char *read_mode_s;
	enum dcio_write_mode write_mode;
	enum dcio_read_mode read_mode;
	uint64_t max_inflight_bytes;
	uint32_t stable_reply_ms;
	uint64_t cache_budget_bytes;
	struct dc_export_bench bench;
	char *key_file;
	char *stats_file; /* NULL: no JSON file */
	char *prom_file; /* NULL: no Prometheus file */
	bool key_create; /* Handle_Key_Create: make a missing key file */
};

/* Identity (ident.c). An object is named by its filesystem and its kernel
 * handle on it (struct dc_fh, the MDCACHE key), whichever export it is seen
 * through: MDCACHE shares one object between exports (nested exports, hard
 * links, one path exported twice). A filesystem is one ganesha claimed for
 * this module (struct fsal_filesystem, claim_posix_filesystems): the export's
 * own and those mounted under it. Its dc_fs (the fsal_filesystem's
 * private_data) holds the fd open_by_handle_at resolves handles against and
 * the fsid the handles and attributes carry; handles and engine files hold
 * references, so it outlives its unclaim while they use it. */
struct dc_fs {
	struct glist_head node; /* DC.filesystems while claimed */
	unsigned int refs; /* atomic */
	bool claimed; /* DC.fs_mu */
	int mount_fd; /* the filesystem's root directory */
	dev_t dev;
	fsal_fsid_t fsid; /* as ganesha knows it: reported to clients */
	int fsid_type; /* enum fsid_type */
	uint8_t fsid_len; /* encoded in handles */
	uint8_t fsid_bytes[DC_FH_FSID_MAX];
	struct fsal_filesystem *gfs; /* NULL: a private one (ident.c) */
	unsigned int private_users; /* exports on a private one (DC.fs_mu) */
	char *path;
	/* the filesystem gives every object this owner whoever makes it
	 * (vfat, exfat mounted with uid=): probed at claim (ident.c) */
	bool owner_forced;
	uid_t forced_uid;
};

/* The engine state of every regular file, one entry per object, server-wide
 * (efile.c): a hash table keyed by the object's dc_fh, and the entries no
 * handle references that are kept for their lost write-back data. */
#define DC_EFILE_BUCKETS 16384
/* Kept_Files_Max's default: kept entries with their engine file open */
#define DC_KEPT_MAX 4096
/* entries kept in short form (no engine file) per Kept_Files_Max */
#define DC_TOMB_FACTOR 16

struct dc_efile;

struct dc_efiles {
	pthread_mutex_t mu; /* table, refs, kept list */
	struct dc_efile **bucket; /* DC_EFILE_BUCKETS chains */
	struct glist_head kept; /* unreferenced kept entries, oldest first */
	unsigned int nkept;
	/* unreferenced entries kept in short form (engine file closed, the
	 * whole file lost: efile.c), oldest first */
	struct glist_head tombs;
	unsigned int ntombs;
};

/* An export. Its engine export (io) and this struct live as long as a
 * reference does: ganesha's (dropped at release) and one per engine file
 * open in io (efile.c), so that an object another export still shows keeps
 * working after this one is removed. */
struct dc_export {
	struct fsal_export export;
	struct dc_export_cfg cfg;
	char *path;
	int root_fd; /* export root, for ".." and statvfs */
	struct dc_fs *root_fs; /* the filesystem of Path */
	uint8_t key[DC_KEY_LEN]; /* the MAC key of this export's handles */
	struct dcio_export *io;
	struct glist_head node; /* DC.exports while ganesha has it */
	uint16_t export_id;
	unsigned int refs; /* atomic */
	/* the mount generation of this export's last claim_again (ident.c:
	 * no mount event since, nothing new to claim; atomic) */
	uint64_t claim_gen;
};

struct dc_file_state {
	struct fsal_share share;
	struct fsal_fd gfd; /* ganesha's view of the global open (flags only) */
	struct dc_efile
		*ef; /* the file's engine state, shared by its handles */
#if FSAL_MAJOR_VERSION >= 13
	/* the export gfd.fsal_export belongs to, referenced from handle init
	 * to release; gfd.fsal_export never changes (fd_v13.c) */
	struct gsh_export *gfd_owner;
#endif
};

struct dc_handle {
	struct fsal_obj_handle obj_handle;
	struct dc_fh fh; /* fsid + kernel handle: what names the object */
	struct dc_fs *fs; /* its filesystem (a reference) */
	struct dc_file_state file; /* REGULAR_FILE only */
};

/* NFSv4 open/lock state: ganesha finds the fd right after the state_t */
struct dc_state {
	struct state_t state;
	struct fsal_fd fd; /* flags only, like dc_file_state.gfd */
	/* a lock state's kernel fd, which carries its owner's open file
	 * description locks (lock.c); -1 when not open. lock_mu guards it. */
	int lock_fd;
	pthread_mutex_t lock_mu;
};

/* a kernel file handle (name_to_handle_at/open_by_handle_at) */
union dc_kfh {
	struct file_handle fh;
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

static inline struct dc_handle *dc_hdl(const struct fsal_obj_handle *o)
{
	return container_of(o, struct dc_handle, obj_handle);
}

static inline struct dc_export *dc_exp(const struct fsal_export *e)
{
	return container_of(e, struct dc_export, export);
}

/* config.c: the DONTCACHE block at start, into DC (0 or EINVAL, logged) */
int dc_load_module_config(config_file_t root,
			  struct config_error_type *err_type);
/* at a reload, logs changes to the DONTCACHE block (not reloadable) */
void dc_module_reload_check(config_file_t root);
#if FSAL_MAJOR_VERSION < 13
config_file_t dc_parse_root(void *node); /* 4.3: get_parse_root */
#endif
/* the export's FSAL block into x->cfg, checked (0 or EINVAL, logged; sets
 * err_type's flags) */
int dc_load_export_cfg(struct dc_export *x, void *parse_node,
		       struct config_error_type *err_type);
void dc_export_cfg_free(struct dc_export_cfg *c);
/* Handle_Key_File's secret (its directory made if missing; logged) */
int dc_read_key_file(struct dc_export *x, uint8_t secret[DC_KEY_LEN]);
/* warnings for Stats_File/Prometheus_File paths that will not work */
void dc_check_stats_paths(struct dc_export *x);

/* export.c */
fsal_status_t dc_create_export(struct fsal_module *fsal_hdl, void *parse_node,
			       struct config_error_type *err_type,
			       const struct fsal_up_vector *up_ops);
/* a config reload (SIGHUP, DBus UpdateExport) of the export's FSAL block */
fsal_status_t dc_update_export(struct fsal_module *fsal_hdl, void *parse_node,
			       struct config_error_type *err_type,
			       struct fsal_export *original,
			       struct fsal_module *updated_super);

/* stats.c: the stats and Prometheus files, the stats thread, the engine's
 * log sink and the export's start line */
void dc_write_stats(struct dc_export *x);
/* EPERM (the reason in why) when the directory of a stats file path could
 * have names planted in it by others: such a file is never written. */
int dc_stats_dir_check(const char *path, char *why, size_t len);
void dc_stats_export_added(
	struct dc_export *x); /* after it joined DC.exports */
void dc_stats_export_final(
	struct dc_export *x); /* at release: files + log line */
/* dbus.c: the module's fsal_extract_stats / fsal_reset_stats (DBus stats) */
void dc_dbus_init(struct fsal_module *fsal_hdl);
void dc_stats_shutdown(void);
void dc_engine_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dc_log_export_start(struct dc_export *x);
/* a reload changed Stats_File/Prometheus_File: takes both strings */
void dc_stats_files_update(struct dc_export *x, char *stats_file,
			   char *prom_file);

/* export.c: references to an export (the last put frees it) */
void dc_export_get(struct dc_export *x);
void dc_export_put(struct dc_export *x);
/* the export of the request being served */
static inline struct dc_export *dc_ctx_export(void)
{
	return op_ctx != NULL && op_ctx->fsal_export != NULL &&
			       op_ctx->fsal_export->fsal == &DC.fsal
		       ? dc_exp(op_ctx->fsal_export)
		       : NULL;
}

/* ident.c: filesystems and what names an object on them */
/* claims Path's filesystem and those mounted under it for export x (as
 * ganesha's resolve_posix_filesystem); sets x->root_fs. 0 or errno, logged */
int dc_ident_export_init(struct dc_export *x);
/* gives up x's claims (its filesystems stay while objects use them) */
void dc_ident_export_fini(struct dc_export *x);
void dc_fs_get(struct dc_fs *fs);
void dc_fs_put(struct dc_fs *fs);
/* the object named fh, opened with flags on its filesystem: an fd or -1 with
 * errno */
int dc_open_fh(const struct dc_fs *fs, const struct dc_fh *fh, int flags);
/* The identity of name in dirfd ("" = dirfd itself) whose filesystem is
 * dir_fs (NULL: not known): its fh, its filesystem (a reference, which the
 * caller puts) and its stat. Crossing into a filesystem mounted under an
 * export claims it for this module as FSAL_VFS does; one that cannot be
 * claimed (another FSAL's, or without file handles) is XDEV, logged. */
fsal_status_t dc_ident_at(int dirfd, const char *name, struct dc_fs *dir_fs,
			  struct dc_fh *fh, struct dc_fs **fs, struct stat *st);
/* The filesystem a (verified) host-form handle names, a reference: NULL when
 * no claimed filesystem has its fsid */
struct dc_fs *dc_ident_fs_of(const struct dc_fh *fh);
/* create_handle's input: the host form, or the wire form (MDCACHE's cached
 * parent handles) with a MAC of x's key or, for an object another export
 * minted it through, of another export's key. -1: neither. */
int dc_fh_from_desc(struct dc_export *x, const void *buf, size_t len,
		    struct dc_fh *fh);

/* handle.c */
fsal_status_t dc_check_name(const char *name);
void dc_handle_ops_init(struct fsal_obj_ops *ops);
fsal_status_t dc_make_handle(int dirfd, const char *name, struct dc_fs *dir_fs,
			     struct dc_handle **out,
			     struct fsal_attrlist *attrs);
fsal_status_t dc_lookup_path(struct fsal_export *exp_hdl, const char *path,
			     struct fsal_obj_handle **handle,
			     struct fsal_attrlist *attrs_out);
fsal_status_t dc_create_handle(struct fsal_export *exp_hdl,
			       struct gsh_buffdesc *desc,
			       struct fsal_obj_handle **handle,
			       struct fsal_attrlist *attrs_out);
fsal_status_t dc_stat_attrs(const struct dc_fs *fs, const struct stat *st,
			    struct fsal_attrlist *attrs);
void dc_unlink_created(int dfd, const char *name, dev_t dev, ino_t ino,
		       bool is_dir);

/* file.c */
fsal_status_t dc_open2(struct fsal_obj_handle *obj_hdl, struct state_t *state,
		       fsal_openflags_t openflags,
		       enum fsal_create_mode createmode, const char *name,
		       struct fsal_attrlist *attrs_in, fsal_verifier_t verifier,
		       struct fsal_obj_handle **new_obj,
		       struct fsal_attrlist *attrs_out,
		       bool *caller_perm_check DC_PARENT_ATTRS);
fsal_status_t dc_reopen2(struct fsal_obj_handle *obj_hdl, struct state_t *state,
			 fsal_openflags_t openflags);
/* status2: the open flags of state */
fsal_openflags_t dc_state_openflags(struct fsal_obj_handle *obj_hdl,
				    struct state_t *state);
void dc_read2(struct fsal_obj_handle *obj_hdl, bool bypass,
	      fsal_async_cb done_cb, struct fsal_io_arg *read_arg,
	      void *caller_arg);
void dc_write2(struct fsal_obj_handle *obj_hdl, bool bypass,
	       fsal_async_cb done_cb, struct fsal_io_arg *write_arg,
	       void *caller_arg);
fsal_status_t dc_commit2(struct fsal_obj_handle *obj_hdl, off_t offset,
			 size_t len);
fsal_status_t dc_close2(struct fsal_obj_handle *obj_hdl, struct state_t *state);
fsal_status_t dc_truncate(struct dc_handle *h, bool bypass,
			  struct state_t *state, uint64_t size);
void dc_file_release(struct dc_handle *h);
void dc_release_engine_file(struct dc_handle *h);

/* lock.c: byte-range locks as the kernel's open file description locks,
 * one kernel fd per lock state */
fsal_status_t dc_lock_op2(struct fsal_obj_handle *obj_hdl,
			  struct state_t *state, void *owner,
			  fsal_lock_op_t lock_op,
			  fsal_lock_param_t *request_lock,
			  fsal_lock_param_t *conflicting_lock);
/* an NLM or NFSv4 lock state */
bool dc_state_is_lock(const struct state_t *state);
/* at a dc_state's allocation and before it is freed (closes its fd) */
void dc_lock_state_init(struct dc_state *s);
void dc_lock_state_fini(struct dc_state *s);
/* ganesha opens a lock state's fd (open_func, reopen_func): the kernel fd
 * with openflags' access, unless it is open already (its locks stay) */
fsal_status_t dc_lock_fd_open(struct dc_handle *h, struct dc_state *s,
			      fsal_openflags_t openflags);
/* the lock state closes: its kernel fd and with it its locks */
void dc_lock_fd_close(struct dc_state *s);

/* efile.c: engine files, one per file, shared by its handles */
void dc_efiles_init(void);
/* at module unload: closes the kept entries (logged) */
void dc_efiles_drain(void);
/* a handle of a regular file is built: gets (or creates) the file's entry */
struct dc_efile *dc_efile_get(struct dc_fs *fs, const struct dc_fh *fh,
			      uint64_t fileid);
/* a handle is freed: the last reference closes the engine file if clean,
 * else keeps the entry (unless the file has no links left) */
void dc_efile_put(struct dc_efile *e);
/* the engine file (opened for write if need_write), returned with its lock
 * read-held (dc_efile_io_done drops it); or an errno, nothing held. A closed
 * engine file opens in the engine export of the request's export. */
int dc_efile_io(struct dc_efile *e, bool need_write, struct dcio_file **io);
/* the engine file if it is open, returned with its lock read-held
 * (dc_efile_io_done drops it); false (nothing held) if it is closed */
bool dc_efile_io_if_open(struct dc_efile *e, struct dcio_file **io);
void dc_efile_io_done(struct dc_efile *e);
/* an error a closed engine file left behind, reported once (0: none) */
int dc_efile_take_error(struct dc_efile *e);
/* what a COMMIT of a closed engine file answers: the whole file lost while
 * it is kept in short form (efile.c, every time), else dc_efile_take_error */
int dc_efile_closed_error(struct dc_efile *e);
/* closes the engine file unless it remembers lost data (its final flush
 * failing included): true when closed (or there was none) */
bool dc_efile_close_if_clean(struct dc_efile *e);

/* fd_v11.c (FSAL API 11) or fd_v13.c (FSAL API 13): ganesha's fd
 * management. The module's ganesha "fds" (the handle's global gfd, each
 * state's fd) only record open flags; I/O goes through the engine file. */
void dc_fd_obj_ops_init(struct fsal_obj_ops *ops);
void dc_fd_export_ops_init(struct export_ops *ops);
/* the handle's global fd: at creation and before dc_file_release */
void dc_fd_handle_init(struct dc_handle *h);
void dc_fd_handle_fini(struct dc_handle *h);
/* an open (or reopen) of fd (gfd or a state's) with openflags, after the
 * permission and share checks; not under obj_lock */
void dc_fd_set_open(struct dc_handle *h, struct fsal_fd *fd,
		    fsal_openflags_t openflags);
/* a state's fd closes (obj_lock held) */
void dc_fd_close(struct dc_handle *h, struct fsal_fd *fd);
/* The caller's right to do I/O needing need (share reservations, the
 * state's open mode). Without a state (a stateless NFSv3 or anonymous
 * stateid I/O) an allowed I/O holds a share reservation for need from this
 * check on, as FSAL_VFS's does until its syscall returns: an OPEN denying
 * that access is refused while the I/O is in flight. dc_fd_io_end gives it
 * back once the I/O has ended (called after every allowed check, state or
 * not, with the same state and need). Nothing else is held. */
fsal_status_t dc_fd_check_io(struct dc_handle *h, bool bypass,
			     struct state_t *state, fsal_openflags_t need,
			     bool for_locks);
void dc_fd_io_end(struct dc_handle *h, struct state_t *state,
		  fsal_openflags_t need);

/* v42.c: NFSv4.2 ALLOCATE/DEALLOCATE, SEEK, user extended attributes */
fsal_status_t dc_fallocate(struct fsal_obj_handle *obj, struct state_t *state,
			   uint64_t offset, uint64_t length, bool allocate);
fsal_status_t dc_seek2(struct fsal_obj_handle *obj, struct state_t *state,
		       struct io_info *info);
fsal_status_t dc_getxattrs(struct fsal_obj_handle *obj, xattrkey4 *xa_name,
			   xattrvalue4 *xa_value);
fsal_status_t dc_setxattrs(struct fsal_obj_handle *obj, setxattr_option4 option,
			   xattrkey4 *xa_name, xattrvalue4 *xa_value);
fsal_status_t dc_removexattrs(struct fsal_obj_handle *obj, xattrkey4 *xa_name);
fsal_status_t dc_listxattrs(struct fsal_obj_handle *obj, count4 la_maxcount,
			    nfs_cookie4 *la_cookie, bool_t *lr_eof,
			    xattrlist4 *lr_names);

#endif
