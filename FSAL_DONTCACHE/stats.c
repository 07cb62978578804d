// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE stats where administrators look: the export's JSON file
 * (Stats_File) and Prometheus textfile (Prometheus_File), both optional and
 * rewritten atomically by one stats thread every Stats_Interval_Ms; the final
 * stats line in ganesha's log at release; the engine's messages routed to
 * ganesha's log; the export's start line with its effective configuration. */
#include "dc_int.h"
#include "fridgethr.h"
#include "io/caps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A message that can repeat (a file that cannot be written every interval)
 * is logged at most once per this many seconds from each site. */
#define DC_LOG_EVERY_S 60

#define DC_LOG_LIMITED(level_macro, fmt, ...)                            \
	do {                                                             \
		static struct dcio_ratelimit rl_;                        \
		uint64_t supp_;                                          \
		if (!dcio_ratelimit(&rl_, DC_LOG_EVERY_S, &supp_))       \
			break;                                           \
		if (supp_ != 0)                                          \
			level_macro(COMPONENT_FSAL,                      \
				    fmt " (%" PRIu64                     \
					" similar messages suppressed)", \
				    ##__VA_ARGS__, supp_);               \
		else                                                     \
			level_macro(COMPONENT_FSAL, fmt, ##__VA_ARGS__); \
	} while (0)

void dc_engine_log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	switch (level) {
	case DCIO_LOG_CRIT:
		LogCrit(COMPONENT_FSAL, "DONTCACHE %s", buf);
		break;
	case DCIO_LOG_WARN:
		LogWarn(COMPONENT_FSAL, "DONTCACHE %s", buf);
		break;
	default:
		LogInfo(COMPONENT_FSAL, "DONTCACHE %s", buf);
		break;
	}
}

/* The directory of path (its dirname; "." for a bare name) into dir. */
static int dir_of(const char *path, char *dir, size_t len, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (slash == NULL) {
		*base = path;
		return snprintf(dir, len, ".") >= (int)len ? ENAMETOOLONG : 0;
	}
	*base = slash + 1;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		return ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return **base == '\0' ? EISDIR : 0;
}

/* A stats directory others could plant names in: owned by another user
 * than the server's, or writable by everyone without the sticky bit. Its
 * group may write there (node_exporter's textfile directory often is
 * group-writable): no name in it is ever followed. EPERM with the reason in
 * why; 0 when it is safe. */
static int dir_unsafe(const struct stat *st, const char *dir, char *why,
		      size_t len)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(
			why, len,
			"its directory %s is owned by uid %u, not root: refused",
			dir, (unsigned int)st->st_uid);
		return EPERM;
	}
	if ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX)) {
		snprintf(
			why, len,
			"its directory %s is writable by everyone (mode %04o, no sticky bit): refused",
			dir, (unsigned int)(st->st_mode & 07777));
		return EPERM;
	}
	return 0;
}

int dc_stats_dir_check(const char *path, char *why, size_t len)
{
	char dir[4096];
	const char *base;
	struct stat st;
	int rc = dir_of(path, dir, sizeof(dir), &base);

	why[0] = '\0';
	if (rc != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* (a missing directory is warned about elsewhere) */
	return dir_unsafe(&st, dir, why, len);
}

/* A temporary name beside base: ".<base>.<16 random hex digits>". */
static int tmp_name(const char *base, char *name, size_t len)
{
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec) ^
		    ((uint64_t)getpid() << 40);
	}
	return (size_t)snprintf(name, len, ".%s.%016" PRIx64, base, r) >= len
		       ? ENAMETOOLONG
		       : 0;
}

/* fd, given mode 0644 whatever the umask (node_exporter runs as its own
 * user); on failure fd is closed, name (if not NULL) removed from dfd, and
 * -errno returned. */
static int mode_0644(int fd, int dfd, const char *name)
{
	int err;

	if (fchmod(fd, 0644) == 0)
		return fd;
	err = errno;
	close(fd);
	if (name != NULL)
		unlinkat(dfd, name, 0);
	return -err;
}

/* A fresh file in dfd for the contents, not reachable by any name: O_TMPFILE
 * (mode 0644 set explicitly, whatever the umask: node_exporter runs as its
 * own user), else a new name of its own (O_EXCL | O_NOFOLLOW: never a file
 * or link someone else put there), in name. */
static int open_unnamed(int dfd, const char *base, char *name, size_t len,
			bool *named)
{
	int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);

	*named = false;
	for (int i = 0; fd < 0 && i < 16; i++) {
		if (tmp_name(base, name, len) != 0)
			return -ENAMETOOLONG;
		fd = openat(dfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0)
			*named = true;
		else if (errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	return mode_0644(fd, dfd, *named ? name : NULL);
}

/* Gives the unnamed file fd a new name of its own in dfd (linkat fails
 * rather than follow or replace anything there). */
static int link_unnamed(int fd, int dfd, const char *base, char *name,
			size_t len)
{
	char proc[64];

	for (int i = 0; i < 16; i++) {
		if (tmp_name(base, name, len) != 0)
			return ENAMETOOLONG;
		if (linkat(fd, "", dfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno == ENOENT || errno == EPERM) {
			/* without CAP_DAC_READ_SEARCH: through /proc */
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			if (linkat(AT_FDCWD, proc, dfd, name,
				   AT_SYMLINK_FOLLOW) == 0)
				return 0;
		}
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

/* The two hidden hard links a stats file keeps beside it: ".<base>.keep-a"
 * and ".<base>.keep-b" (not ending in .prom: node_exporter skips them). */
static int keep_name(const char *base, int which, char *name, size_t len)
{
	return (size_t)snprintf(name, len, ".%s.keep-%c", base,
				which ? 'b' : 'a') >= len
		       ? ENAMETOOLONG
		       : 0;
}

/* The keep file of dfd to write the next contents into, opened for writing
 * (its old contents stay until overwritten): a regular file of ours with
 * that name as its only link, so not the file now at base (target_ino),
 * which keeps a keep name as its second link. A name someone else put there
 * (a link, a FIFO, another owner's file, a second link to a file elsewhere)
 * is removed and made anew (O_EXCL | O_NOFOLLOW); -EBUSY when this keep is
 * the file now at base. */
static int open_keep(int dfd, const char *keep, ino_t target_ino)
{
	struct stat st;
	int fd = openat(dfd, keep,
			O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		if (fstat(fd, &st) != 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		if (S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
			if (st.st_ino == target_ino && st.st_nlink == 2)
				goto busy;
			if (st.st_nlink == 1 && st.st_ino != target_ino) {
				int fl = fcntl(fd, F_GETFL);

				if (fl >= 0)
					fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
				return fd;
			}
		}
		close(fd);
	} else if (errno == ENOENT) {
		goto create;
	}
	if (unlinkat(dfd, keep, 0) != 0 && errno != ENOENT)
		return -errno;
create:
	fd = openat(dfd, keep,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return mode_0644(fd, dfd, keep);
busy:
	close(fd);
	return -EBUSY;
}

/* The file to fill: one of the two keep files (the one not at base), else
 * (neither can be had) an unnamed fresh file as open_unnamed makes. Renaming
 * a keep file over base leaves the file it replaces its keep name: the
 * rewrite frees no blocks. A file replaced and freed each interval made its
 * blocks' discard on a filesystem mounted `discard` (ext4 discards as it
 * frees), which the device ran behind the exports' writeback: every
 * writer of the disk stopped for 0.5-2 s at each rewrite. */
static int open_target(int dfd, const char *base, char *tmp, size_t len,
		       bool *named, bool *keep)
{
	char name[300];
	struct stat st;
	ino_t target_ino = 0;
	int fd = -ENOENT;

	*keep = false;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode))
		target_ino = st.st_ino;
	for (int which = 0; which < 2; which++) {
		if (keep_name(base, which, name, sizeof(name)) != 0)
			break;
		fd = open_keep(dfd, name, target_ino);
		if (fd >= 0) {
			*keep = true;
			*named = false;
			return fd;
		}
	}
	return open_unnamed(dfd, base, tmp, len, named);
}

/* Writes path atomically, never following a link: the contents go to a file
 * no reader of path has (a keep file, open_target; or one with no name,
 * O_TMPFILE, or a fresh name of its own, O_EXCL|O_NOFOLLOW) in the same
 * directory, which gets a new unique name and is renamed over path (rename
 * replaces a link there, never its target). The temporary name starts with
 * '.' and does not end in .prom (node_exporter skips it). A directory others
 * could plant names in is refused (dir_unsafe). why gets the reason of a
 * failure. */
static int write_atomic(struct dc_export *x, const char *path,
			void (*fill)(struct dc_export *x, FILE *f), char *why,
			size_t whylen)
{
	char dir[4096], tmp[300];
	const char *base, *step = "its directory's name";
	struct stat st;
	bool named = false, keep;
	FILE *f;
	int dfd = -1, fd, err;

	why[0] = '\0';
	err = dir_of(path, dir, sizeof(dir), &base);
	if (err != 0)
		goto out;
	step = "its name's length";
	if (strlen(base) > 200) {
		err = ENAMETOOLONG;
		goto out;
	}
	step = "open of its directory";
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = errno;
		goto out;
	}
	step = "fstat of its directory";
	if (fstat(dfd, &st) != 0) {
		err = errno;
		goto out;
	}
	step = "its directory's owner and mode";
	err = dir_unsafe(&st, dir, why, whylen);
	if (err != 0)
		goto out;
	step = "open of a keep or temporary file";
	fd = open_target(dfd, base, tmp, sizeof(tmp), &named, &keep);
	if (fd < 0) {
		err = -fd;
		goto out;
	}
	step = "fdopen";
	f = fdopen(fd, "w");
	if (f == NULL) {
		err = errno;
		close(fd);
		goto out;
	}
	fill(x, f);
	step = "write";
	if (fflush(f) != 0)
		err = errno;
	else if (ferror(f))
		err = EIO;
	/* a keep file is overwritten in place: cut what is left past the new
	 * end (a shorter file frees at most its last blocks) */
	if (err == 0 && keep) {
		step = "ftruncate of the keep file";
		if (ftruncate(fileno(f), ftello(f)) != 0)
			err = errno;
	}
	if (err == 0 && !named) {
		step = "link of the unnamed file";
		err = link_unnamed(fileno(f), dfd, base, tmp, sizeof(tmp));
		named = err == 0;
	}
	if (fclose(f) != 0 && err == 0) {
		step = "close";
		err = errno;
	}
	if (err == 0) {
		step = "rename over the file";
		if (renameat(dfd, tmp, dfd, base) != 0)
			err = errno;
	}
out:
	if (err != 0) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: writing %s: %s failed: %s",
			     x->export_id, path, step, strerror(err));
		if (named)
			unlinkat(dfd, tmp, 0);
	}
	if (dfd >= 0)
		close(dfd);
	return err;
}

/* Removes path's keep names (at release, or when a reload names another
 * file): the file at path stays, with its one name. */
static void drop_keeps(const char *path)
{
	char dir[4096], name[300];
	const char *base;
	int dfd;

	if (path == NULL || dir_of(path, dir, sizeof(dir), &base) != 0)
		return;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: removing %s's keep files: open of %s: %s",
			path, dir, strerror(errno));
		return;
	}
	for (int which = 0; which < 2; which++)
		if (keep_name(base, which, name, sizeof(name)) == 0 &&
		    unlinkat(dfd, name, 0) != 0 && errno != ENOENT)
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE: removing %s's keep file %s: %s",
				path, name, strerror(errno));
	close(dfd);
}

static void fill_json(struct dc_export *x, FILE *f)
{
	fprintf(f, "{\"export_id\":%u,\"path\":", x->export_id);
	dcio_json_string(f, x->path);
	fputs(",\"engine\":", f);
	dcio_export_stats_json(x->io, f);
	fputs("}\n", f);
}

static void fill_prom(struct dc_export *x, FILE *f)
{
	char path[2048], labels[2200];

	dcio_prom_escape(x->path, path, sizeof(path));
	snprintf(labels, sizeof(labels), "export_id=\"%u\",path=\"%s\"",
		 x->export_id, path);
	dcio_export_stats_prom(x->io, labels, f);
}

void dc_write_stats(struct dc_export *x)
{
	char why[4400];
	int rc;

	if (x->io == NULL)
		return;
	if (x->cfg.stats_file != NULL) {
		rc = write_atomic(x, x->cfg.stats_file, fill_json, why,
				  sizeof(why));
		if (rc != 0)
			DC_LOG_LIMITED(
				LogWarn,
				"DONTCACHE export %u: cannot write Stats_File %s: %s",
				x->export_id, x->cfg.stats_file,
				why[0] ? why : strerror(rc));
	}
	if (x->cfg.prom_file != NULL) {
		rc = write_atomic(x, x->cfg.prom_file, fill_prom, why,
				  sizeof(why));
		if (rc != 0)
			DC_LOG_LIMITED(
				LogWarn,
				"DONTCACHE export %u: cannot write Prometheus_File %s: %s",
				x->export_id, x->cfg.prom_file,
				why[0] ? why : strerror(rc));
	}
}

static bool has_files(const struct dc_export *x)
{
	return x->cfg.stats_file != NULL || x->cfg.prom_file != NULL;
}

/* The dc-stats thread's one job: rewrite every export's files each
 * Stats_Interval_Ms until dc_stats_shutdown. It runs in a fridge of
 * ganesha's (fridgethr), so it carries ganesha's signal mask, RCU
 * registration and a name in ganesha's log lines like ganesha's own
 * threads; the interval is in milliseconds, finer than a looper fridge's
 * seconds, so the job waits on its own condition. */
static void stats_run(struct fridgethr_context *ctx)
{
	struct timespec until;
	struct glist_head *n;
	int rc;

	(void)ctx;
	(void)pthread_setname_np(pthread_self(), "dc-stats");
	/* made while the exports are read, before ganesha drops
	 * CAP_SYS_RESOURCE from its main thread only: as the engine's threads
	 * (io/caps.c), the files it writes stay within root's quota */
	rc = caps_drop_resource();
	if (rc != 0)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: the dc-stats thread keeps CAP_SYS_RESOURCE: %s",
			strerror(rc));
	PTHREAD_MUTEX_lock(&DC.lock);
	while (!DC.stats_stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += DC.stats_interval_ms / 1000;
		until.tv_nsec += (long)(DC.stats_interval_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&DC.stats_cond, &DC.lock, &until);
		if (DC.stats_stop)
			break;
		glist_for_each(n, &DC.exports)
			dc_write_stats(glist_entry(n, struct dc_export, node));
	}
	PTHREAD_MUTEX_unlock(&DC.lock);
}

/* Under DC.lock. */
static void start_thread(void)
{
	struct fridgethr_params frp;
	int rc;

	if (DC.stats_fridge != NULL || DC.stats_stop)
		return;
	memset(&frp, 0, sizeof(frp));
	frp.thr_max = 1;
	frp.thr_min = 0;
	frp.flavor = fridgethr_flavor_worker;
	frp.deferment = fridgethr_defer_fail;
	rc = fridgethr_init(&DC.stats_fridge, "dc-stats", &frp);
	if (rc != 0) {
		LogFullDebug(COMPONENT_FSAL, "fridgethr_init(dc-stats): %s",
			     strerror(rc));
		DC.stats_fridge = NULL;
	} else {
		rc = fridgethr_submit(DC.stats_fridge, stats_run, NULL);
		if (rc != 0) {
			LogFullDebug(COMPONENT_FSAL,
				     "fridgethr_submit(dc-stats): %s",
				     strerror(rc));
			fridgethr_destroy(DC.stats_fridge);
			DC.stats_fridge = NULL;
		}
	}
	if (rc != 0)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: no stats thread (stats files written at start and shutdown only): %s",
			strerror(rc));
}

/* The thread runs only while some export has a file to rewrite and
 * Stats_Interval_Ms is not 0: started by the first such export. */
void dc_stats_export_added(struct dc_export *x)
{
	dc_write_stats(x);
	if (!has_files(x) || DC.stats_interval_ms == 0)
		return;
	PTHREAD_MUTEX_lock(&DC.lock);
	start_thread();
	PTHREAD_MUTEX_unlock(&DC.lock);
}

/* A reload named other files (either may be NULL: none): they replace the
 * export's under DC.lock, which the stats thread holds while it writes, and
 * are written at once. The old strings are freed here. */
void dc_stats_files_update(struct dc_export *x, char *stats_file,
			   char *prom_file)
{
	char *old_stats, *old_prom;

	PTHREAD_MUTEX_lock(&DC.lock);
	old_stats = x->cfg.stats_file;
	old_prom = x->cfg.prom_file;
	x->cfg.stats_file = stats_file;
	x->cfg.prom_file = prom_file;
	dc_write_stats(x);
	if (has_files(x) && DC.stats_interval_ms != 0)
		start_thread();
	PTHREAD_MUTEX_unlock(&DC.lock);
	if (old_stats != NULL &&
	    (stats_file == NULL || strcmp(old_stats, stats_file) != 0))
		drop_keeps(old_stats);
	if (old_prom != NULL &&
	    (prom_file == NULL || strcmp(old_prom, prom_file) != 0))
		drop_keeps(old_prom);
	gsh_free(old_stats);
	gsh_free(old_prom);
	dc_check_stats_paths(x);
}

void dc_stats_shutdown(void)
{
	int rc;

	if (DC.stats_fridge == NULL)
		return;
	PTHREAD_MUTEX_lock(&DC.lock);
	DC.stats_stop = true;
	pthread_cond_broadcast(&DC.stats_cond);
	PTHREAD_MUTEX_unlock(&DC.lock);
	/* the job returns at once now; the fridge's stop waits for it */
	rc = fridgethr_sync_command(DC.stats_fridge, fridgethr_comm_stop, 30);
	if (rc != 0) {
		LogMajor(COMPONENT_FSAL,
			 "DONTCACHE: stopping the stats thread: %s (cancelled)",
			 strerror(rc));
		fridgethr_cancel(DC.stats_fridge);
	}
	fridgethr_destroy(DC.stats_fridge);
	DC.stats_fridge = NULL;
}

/* At release: the files a last time, and the whole stats in ganesha's log. */
void dc_stats_export_final(struct dc_export *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	dc_write_stats(x);
	drop_keeps(x->cfg.stats_file);
	drop_keeps(x->cfg.prom_file);
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return;
	dcio_export_stats_json(x->io, f);
	fclose(f);
	LogEvent(COMPONENT_FSAL, "DONTCACHE export %u (%s) stats: %s",
		 x->export_id, x->path, buf);
	free(buf);
}

/* One line per export at start: every parameter's effective value and the
 * write path really taken; a warning when it is a fallback. */
void dc_log_export_start(struct dc_export *x)
{
	const struct dc_export_cfg *c = &x->cfg;
	char wwhy[256], rwhy[256], kwhy[224], cfg[1792];
	const char *wpath = dcio_export_write_path(x->io, wwhy, sizeof(wwhy));
	const char *rpath = dcio_export_read_path(x->io, rwhy, sizeof(rwhy));
	bool wfb = wwhy[0] != '\0' &&
		   (strcmp(wpath, dcio_write_mode_name(c->write_mode)) != 0 ||
		    c->write_mode == DCIO_WRITE_DIRECT);
	bool rfb = rwhy[0] != '\0';
	bool kdef = dcio_export_kick_deferred(x->io, kwhy, sizeof(kwhy));

	snprintf(
		cfg, sizeof(cfg),
		"Write_Mode=%s Read_Mode=%s Flush_Mode=%s Max_Inflight_Bytes=%" PRIu64
		" Inflight_Wait_Ms=%u Flush_File_Bytes=%" PRIu64
		" Flush_Interval_Ms=%u Worker_Write_Max=%u Stable_Reply_Ms=%u Cache_Budget_Bytes=%" PRIu64
		" Kick_Us_Per_MiB=%u"
		" Handle_Key_File=%s Stats_File=%s Prometheus_File=%s"
		" (engine: %u pool threads, Stats_Interval_Ms=%u; writeback kick %s: %s)",
		dcio_write_mode_name(c->write_mode),
		dcio_read_mode_name(c->read_mode),
		dcio_flush_mode_name(c->bench.flush_mode),
		c->max_inflight_bytes, c->bench.inflight_wait_ms,
		c->bench.flush_file_bytes, c->bench.flush_interval_ms,
		c->bench.worker_write_max, c->stable_reply_ms,
		c->cache_budget_bytes, c->bench.kick_us_per_mib,
		c->key_file ? c->key_file : "(none)",
		c->stats_file ? c->stats_file : "(none)",
		c->prom_file ? c->prom_file : "(none)", DC.bench.engine_threads,
		DC.stats_interval_ms, kdef ? "deferred" : "inline", kwhy);
	if (wfb || rfb)
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: %s does not support RWF_DONTCACHE: %s; write path %s%s%s%s, read path %s%s%s%s; %s",
			x->export_id, x->path,
			wfb ? "falling back to buffered writes with coalesced drop-behind"
			    : "falling back to buffered reads",
			wpath, wwhy[0] ? " (" : "", wwhy, wwhy[0] ? ")" : "",
			rpath, rwhy[0] ? " (" : "", rwhy, rwhy[0] ? ")" : "",
			cfg);
	else
		LogEvent(
			COMPONENT_FSAL,
			"DONTCACHE export %u: %s: write path %s%s%s%s, read path %s; %s",
			x->export_id, x->path, wpath, wwhy[0] ? " (" : "", wwhy,
			wwhy[0] ? ")" : "", rpath, cfg);
}
