// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE identity: what names an object, on which filesystem.
 *
 * An object is (filesystem, kernel handle): its struct dc_fh carries the
 * filesystem's fsid as ganesha knows it and the name_to_handle_at(2) handle,
 * and is MDCACHE's key, the same through every export that shows the object.
 * Filesystems are ganesha's (struct fsal_filesystem, found and claimed with
 * claim_posix_filesystems as FSAL_VFS does): the export's own and those
 * mounted under it, claimed at export creation, or when a lookup first
 * crosses into one mounted later. The module's part of a claimed filesystem
 * is a struct dc_fs (its private_data): the fd handles are opened against
 * and the encoded fsid. The module keeps the claimed ones in DC.filesystems,
 * under its own lock, so a handle never reads ganesha's private_data while an
 * unclaim runs; handles and engine files hold references.
 *
 * Which export an object is seen through changes neither its key nor its
 * engine state (efile.c, keyed by the same dc_fh): only the MAC of its wire
 * handle is the export's (export.c), so that each export still refuses
 * handles it did not mint. */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "FSAL/fsal_localfs.h"

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Whether the filesystem of root_fd forces the owner of what is made on it
 * (vfat, exfat with uid=: chown refused or ignored), as the kernel's server
 * finds out only by what it gets: a file made there (O_TMPFILE, else a
 * probe name removed at once) is given to 65534; if it stays another
 * user's, that user owns every new object, which finish_create (handle.c)
 * then accepts as the maker's. A filesystem the probe cannot write to
 * (read-only) makes nothing anyway. */
static void probe_owner(struct dc_fs *fs, int root_fd)
{
	char name[64] = "";
	struct stat st;
	int fd, err = 0;

	fd = openat(root_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(name, sizeof(name), ".dontcache-owner-probe.%d.%lx",
			 (int)getpid(), (unsigned long)random());
		fd = openat(root_fd, name,
			    O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: %s: owner probe not made: %s",
			     fs->path, strerror(errno));
		return;
	}
	if (fchown(fd, 65534, 65534) != 0)
		err = errno;
	if (fstat(fd, &st) == 0 && st.st_uid != 65534) {
		fs->owner_forced = true;
		fs->forced_uid = st.st_uid;
		LogInfo(COMPONENT_FSAL,
			"DONTCACHE: %s: the filesystem gives every new object owner %u (chown: %s): creates are answered as the kernel's server answers them",
			fs->path, (unsigned int)st.st_uid,
			err ? strerror(err) : "ignored");
	}
	close(fd);
	if (name[0] != '\0')
		(void)unlinkat(root_fd, name, 0);
}

/* ganesha's fsid in as few bytes as its type needs (at most 16) */
static void fs_encode_fsid(struct dc_fs *fs)
{
	switch ((enum fsid_type)fs->fsid_type) {
	case FSID_NO_TYPE:
		fs->fsid_len = 0;
		break;
	case FSID_ONE_UINT64:
	case FSID_MAJOR_64:
		put_le(fs->fsid_bytes, fs->fsid.major, 8);
		fs->fsid_len = 8;
		break;
	case FSID_TWO_UINT32:
		put_le(fs->fsid_bytes, fs->fsid.major, 4);
		put_le(fs->fsid_bytes + 4, fs->fsid.minor, 4);
		fs->fsid_len = 8;
		break;
	default: /* FSID_TWO_UINT64, FSID_DEVICE */
		put_le(fs->fsid_bytes, fs->fsid.major, 8);
		put_le(fs->fsid_bytes + 8, fs->fsid.minor, 8);
		fs->fsid_len = 16;
		break;
	}
}

/* Every handle takes one: atomic, no lock on the lookup path. A claimed
 * filesystem's list entry holds a reference, so find_fs never revives a
 * dc_fs whose count reached 0. */
void dc_fs_get(struct dc_fs *fs)
{
	__atomic_add_fetch(&fs->refs, 1, __ATOMIC_RELAXED);
}

void dc_fs_put(struct dc_fs *fs)
{
	if (__atomic_sub_fetch(&fs->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	close(fs->mount_fd);
	gsh_free(fs->path);
	gsh_free(fs);
}

/* Set while claim_again runs: its claim_fs warnings are rate-limited. */
static __thread bool claiming_again;

/* ganesha's claim callback: called for the export's root filesystem and each
 * one mounted under it (again for each export: the first call makes the
 * dc_fs, later ones share it). ENXIO: not exportable by this module (no file
 * handles), which ganesha skips for a filesystem under the export. */
static int claim_fs(struct fsal_filesystem *gfs, struct fsal_export *exp,
		    void **private_data)
{
	union dc_kfh k;
	struct dc_fs *fs;
	struct stat st;
	int fd, mnt_id, err;

	if (*private_data != NULL)
		return 0;
	fd = open(gfs->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		LogCrit(COMPONENT_FSAL, "DONTCACHE: filesystem %s: %s",
			gfs->path, strerror(err));
		return err;
	}
	k.fh.handle_bytes = MAX_HANDLE_SZ;
	if (fstat(fd, &st) != 0 ||
	    name_to_handle_at(fd, "", &k.fh, &mnt_id, AT_EMPTY_PATH) != 0) {
		static struct dcio_ratelimit rl;
		uint64_t dropped = 0;

		err = errno;
		if (!claiming_again || dcio_ratelimit(&rl, 60, &dropped))
			LogWarn(COMPONENT_FSAL,
				"DONTCACHE: filesystem %s (%s) cannot be exported: no file handles (%s; %" PRIu64
				" more not logged)",
				gfs->path, gfs->type ? gfs->type : "?",
				strerror(err), dropped);
		else
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE: filesystem %s: no file handles (%s)",
				gfs->path, strerror(err));
		close(fd);
		return ENXIO;
	}
	fs = gsh_calloc(1, sizeof(*fs));
	fs->refs = 1; /* ganesha's claim, until unclaim_fs */
	fs->claimed = true;
	fs->mount_fd = fd;
	fs->dev = st.st_dev;
	fs->fsid = gfs->fsid;
	fs->fsid_type = gfs->fsid_type;
	fs->gfs = gfs;
	fs->path = gsh_strdup(gfs->path);
	fs_encode_fsid(fs);
	probe_owner(fs, fd);
	PTHREAD_MUTEX_lock(&DC.fs_mu);
	glist_add_tail(&DC.filesystems, &fs->node);
	PTHREAD_MUTEX_unlock(&DC.fs_mu);
	LogInfo(COMPONENT_FSAL,
		"DONTCACHE: claimed filesystem %s (%s, dev %u:%u, fsid %#" PRIx64
		".%#" PRIx64 ")",
		fs->path, gfs->type ? gfs->type : "?", major(fs->dev),
		minor(fs->dev), fs->fsid.major, fs->fsid.minor);
	*private_data = fs;
	return 0;
}

/* ganesha's unclaim callback: the last export using the filesystem is gone.
 * Objects and engine files still using it keep their references. */
static void unclaim_fs(struct fsal_filesystem *gfs)
{
	struct dc_fs *fs = gfs->private_data;

	if (fs == NULL)
		return;
	PTHREAD_MUTEX_lock(&DC.fs_mu);
	if (fs->claimed) {
		glist_del(&fs->node);
		fs->claimed = false;
	}
	PTHREAD_MUTEX_unlock(&DC.fs_mu);
	LogInfo(COMPONENT_FSAL, "DONTCACHE: unclaimed filesystem %s", fs->path);
	dc_fs_put(fs);
}

/* A claimed filesystem by device or by encoded fsid, with a reference. */
static struct dc_fs *find_fs(const dev_t *dev, const struct dc_fh *fh)
{
	struct glist_head *g;
	struct dc_fs *fs, *found = NULL;

	PTHREAD_MUTEX_lock(&DC.fs_mu);
	glist_for_each(g, &DC.filesystems) {
		fs = glist_entry(g, struct dc_fs, node);
		if (dev != NULL ? fs->dev == *dev
				: (fs->fsid_type == dc_fh_fsid_type(fh) &&
				   fs->fsid_len == dc_fh_fsid_len(fh) &&
				   memcmp(fs->fsid_bytes, dc_fh_fsid_bytes(fh),
					  fs->fsid_len) == 0)) {
			found = fs;
			dc_fs_get(found);
			break;
		}
	}
	PTHREAD_MUTEX_unlock(&DC.fs_mu);
	return found;
}

/* The mount generation: bumped at every mount event ganesha's mount
 * namespace saw since the last call (/proc/self/mountinfo polls POLLPRI
 * once the mount table changed since it was last polled). Without that
 * file, every call is a new generation (nothing is cached). */
static struct {
	pthread_mutex_t mu;
	int fd; /* /proc/self/mountinfo, opened at the first call */
	bool opened;
	uint64_t gen;
} mounts = { PTHREAD_MUTEX_INITIALIZER, -1, false, 1 };

static uint64_t mount_gen(void)
{
	struct pollfd p;
	uint64_t gen;

	PTHREAD_MUTEX_lock(&mounts.mu);
	if (!mounts.opened) {
		mounts.opened = true;
		mounts.fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (mounts.fd < 0)
			LogEvent(
				COMPONENT_FSAL,
				"DONTCACHE: /proc/self/mountinfo: %s: lookups into filesystems this module cannot export read the mount table every time",
				strerror(errno));
	}
	if (mounts.fd < 0) {
		mounts.gen++;
	} else {
		p.fd = mounts.fd;
		p.events = POLLPRI;
		p.revents = 0;
		if (poll(&p, 1, 0) != 0) /* an event, or an error: rescan */
			mounts.gen++;
	}
	gen = mounts.gen;
	PTHREAD_MUTEX_unlock(&mounts.mu);
	return gen;
}

/* What ganesha does for an export at creation, again for the request's
 * export: a filesystem mounted under it since is claimed too (FSAL_VFS's
 * lookup does the same when it crosses into one). 0 or errno; ENOENT
 * without a claim when the mount table did not change since this export's
 * last claim_again: an object on a filesystem the module cannot export
 * (procfs, tmpfs on 6.5, FUSE, another FSAL's, one unmounted since its
 * handle was made) then costs a poll(), not a read of the mount table
 * under ganesha's fs_lock and a new claim map each time. */
static int claim_again(const char *why)
{
	static struct dcio_ratelimit rl;
	struct dc_export *x = dc_ctx_export();
	struct stat st;
	uint64_t gen, dropped;
	int rc;

	if (x == NULL) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: %s: no export in the request", why);
		return ENOENT;
	}
	gen = mount_gen();
	if (__atomic_load_n(&x->claim_gen, __ATOMIC_ACQUIRE) == gen) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: %s: no mount event since its last claim",
			x->export_id, why);
		return ENOENT;
	}
	if (fstat(x->root_fd, &st) != 0) {
		rc = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: %s: fstat of its root: %s",
			     x->export_id, why, strerror(rc));
		return ENOENT;
	}
	claiming_again = true;
	rc = populate_posix_file_systems(x->path);
	if (rc == 0)
		rc = claim_posix_filesystems(x->path, &DC.fsal, &x->export,
					     claim_fs, unclaim_fs,
					     &x->export.root_fs, &st);
	claiming_again = false;
	/* tried at this generation, failed or not: the same again until the
	 * mount table changes */
	__atomic_store_n(&x->claim_gen, gen, __ATOMIC_RELEASE);
	if (rc != 0 && dcio_ratelimit(&rl, 60, &dropped))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE export %u: %s: claiming the filesystems under %s failed: %s (%" PRIu64
			" more not logged)",
			x->export_id, why, x->path, strerror(rc), dropped);
	else if (rc != 0)
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: %s: claiming the filesystems under %s failed: %s",
			x->export_id, why, x->path, strerror(rc));
	return rc;
}

static struct dc_fs *fs_of_dev(dev_t dev, const char *name)
{
	static struct dcio_ratelimit rl;
	struct dc_fs *fs = find_fs(&dev, NULL);
	uint64_t dropped;

	if (fs != NULL)
		return fs;
	/* a filesystem mounted under the export after it was created */
	if (claim_again("a lookup crossed into a new filesystem") == 0)
		fs = find_fs(&dev, NULL);
	if (fs == NULL && dcio_ratelimit(&rl, 60, &dropped))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: %s is on a filesystem (dev %u:%u) this module cannot export (another FSAL's, or without file handles): answered XDEV (%" PRIu64
			" more not logged)",
			name[0] ? name : "an object", major(dev), minor(dev),
			dropped);
	return fs;
}

struct dc_fs *dc_ident_fs_of(const struct dc_fh *fh)
{
	struct dc_fs *fs = find_fs(NULL, fh);

	/* after a restart, a handle into a filesystem mounted under an
	 * export may come before anything crossed into it */
	if (fs == NULL &&
	    claim_again("a handle names an unknown filesystem") == 0)
		fs = find_fs(NULL, fh);
	return fs;
}

int dc_open_fh(const struct dc_fs *fs, const struct dc_fh *fh, int flags)
{
	union dc_kfh k;

	k.fh.handle_bytes = dc_fh_kernel_len(fh);
	k.fh.handle_type = dc_fh_type(fh);
	memcpy(k.fh.f_handle, dc_fh_kernel_bytes(fh), k.fh.handle_bytes);
	return open_by_handle_at(fs->mount_fd, &k.fh, flags | O_CLOEXEC);
}

/* The object fd is (an O_PATH fd, or any other): its attributes and its
 * handle both come from that one fd, so they are always one inode's. */
static fsal_status_t ident_fd(int fd, const char *name, struct dc_fs *dir_fs,
			      struct dc_fh *fh, struct dc_fs **out,
			      struct stat *st)
{
	union dc_kfh k;
	struct dc_fs *fs;
	int mnt_id, err;

	if (fstat(fd, st) != 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: fstat of %s: %s",
			     name[0] ? name : "an object", strerror(err));
		return posix2fsal_status(err);
	}
	if (dir_fs != NULL && st->st_dev == dir_fs->dev) {
		fs = dir_fs;
		dc_fs_get(fs);
	} else {
		fs = fs_of_dev(st->st_dev, name);
		if (fs == NULL) {
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE: %s: no filesystem of dev %u:%u",
				name[0] ? name : "an object", major(st->st_dev),
				minor(st->st_dev));
			return fsalstat(ERR_FSAL_XDEV, EXDEV);
		}
	}
	k.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &k.fh, &mnt_id, AT_EMPTY_PATH) != 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: name_to_handle_at of %s: %s",
			     name[0] ? name : "an object", strerror(err));
		dc_fs_put(fs);
		return posix2fsal_status(err);
	}
	if (dc_fh_from_kernel(fh, fs->fsid_type, fs->fsid_bytes, fs->fsid_len,
			      k.fh.handle_type, k.fh.f_handle,
			      k.fh.handle_bytes) != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE: %s: file handle of %u bytes (and fsid of %u) does not fit an NFSv3 handle",
			fs->path, k.fh.handle_bytes, fs->fsid_len);
		dc_fs_put(fs);
		return fsalstat(ERR_FSAL_NOTSUPP, EOVERFLOW);
	}
	*out = fs;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* name ("": dirfd itself) is looked up once, O_PATH without following a
 * symlink or opening anything: a rename onto the name between a stat and a
 * handle lookup would otherwise pair one file's owner and mode with another
 * file's handle. */
fsal_status_t dc_ident_at(int dirfd, const char *name, struct dc_fs *dir_fs,
			  struct dc_fh *fh, struct dc_fs **out, struct stat *st)
{
	fsal_status_t rc;
	int fd, err;

	if (name[0] == '\0')
		return ident_fd(dirfd, name, dir_fs, fh, out, st);
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL, "DONTCACHE: open of %s: %s", name,
			     strerror(err));
		return posix2fsal_status(err);
	}
	rc = ident_fd(fd, name, dir_fs, fh, out, st);
	close(fd);
	return rc;
}

int dc_fh_from_desc(struct dc_export *x, const void *buf, size_t len,
		    struct dc_fh *fh)
{
	struct glist_head *g;
	int n;

	if (dc_fh_parse_host(buf, len, fh) == 0)
		return 0;
	n = dc_fh_verify_wire(buf, len, x->key);
	if (n < 0) {
		/* MDCACHE keeps an object's parent handle as some export
		 * minted it, and hands it to whichever export the object is
		 * used through; clients' handles never come here unverified
		 * (wire_to_host checks them against their own export) */
		PTHREAD_MUTEX_lock(&DC.lock);
		glist_for_each(g, &DC.exports) {
			struct dc_export *o =
				glist_entry(g, struct dc_export, node);

			n = dc_fh_verify_wire(buf, len, o->key);
			if (n >= 0)
				break;
		}
		PTHREAD_MUTEX_unlock(&DC.lock);
	}
	if (n < 0)
		return -1;
	return dc_fh_parse_host(buf, (size_t)n, fh);
}

/* Path's filesystem is not in ganesha's list: ganesha 6.5 leaves tmpfs (and
 * others it would never export itself) out of it. The export still serves
 * that one filesystem through a dc_fs of the module's own (fsid: statfs's
 * f_fsid, else the device), shared by the exports on it; nothing mounted
 * under it is crossed. */
static int private_fs(struct dc_export *x, const struct stat *st)
{
	struct dc_fs *fs = find_fs(&st->st_dev, NULL);
	struct statfs sf;
	uint32_t w[2];

	if (fs != NULL) {
		if (fs->gfs != NULL) {
			dc_fs_put(fs);
			return EXDEV;
		}
		PTHREAD_MUTEX_lock(&DC.fs_mu);
		fs->private_users++;
		PTHREAD_MUTEX_unlock(&DC.fs_mu);
		x->root_fs = fs;
		return 0;
	}
	fs = gsh_calloc(1, sizeof(*fs));
	fs->mount_fd = open(x->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->mount_fd < 0) {
		int err = errno;

		gsh_free(fs);
		return err;
	}
	if (fstatfs(fs->mount_fd, &sf) == 0 &&
	    (sf.f_fsid.__val[0] != 0 || sf.f_fsid.__val[1] != 0)) {
		memcpy(w, &sf.f_fsid, sizeof(w));
		fs->fsid.major = w[0];
		fs->fsid.minor = w[1];
		fs->fsid_type = FSID_TWO_UINT32;
	} else {
		fs->fsid.major = major(st->st_dev);
		fs->fsid.minor = minor(st->st_dev);
		fs->fsid_type = FSID_DEVICE;
	}
	fs_encode_fsid(fs);
	fs->refs = 2; /* the list's and the export's */
	fs->claimed = true;
	fs->private_users = 1;
	fs->dev = st->st_dev;
	fs->path = gsh_strdup(x->path);
	probe_owner(fs, fs->mount_fd);
	PTHREAD_MUTEX_lock(&DC.fs_mu);
	glist_add_tail(&DC.filesystems, &fs->node);
	PTHREAD_MUTEX_unlock(&DC.fs_mu);
	x->root_fs = fs;
	LogEvent(
		COMPONENT_FSAL,
		"DONTCACHE export %u: Path %s: its filesystem is not one ganesha lists (ganesha 6.5 leaves tmpfs out): exported on its own, filesystems mounted under it are not crossed",
		x->export_id, x->path);
	return 0;
}

int dc_ident_export_init(struct dc_export *x)
{
	struct stat st;
	int rc;

	rc = resolve_posix_filesystem(x->path, &DC.fsal, &x->export, claim_fs,
				      unclaim_fs, &x->export.root_fs);
	if (rc == ENOENT && fstat(x->root_fd, &st) == 0)
		rc = private_fs(x, &st);
	if (rc == 0 && x->root_fs != NULL)
		return 0;
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: Path %s: its filesystem cannot be claimed: %s",
			x->export_id, x->path, strerror(rc));
		return rc;
	}
	if (fstat(x->root_fd, &st) != 0)
		return errno;
	x->root_fs = find_fs(&st.st_dev, NULL);
	if (x->root_fs == NULL) {
		LogCrit(COMPONENT_FSAL,
			"DONTCACHE export %u: Path %s: its filesystem is not this module's",
			x->export_id, x->path);
		return EXDEV;
	}
	return 0;
}

void dc_ident_export_fini(struct dc_export *x)
{
	struct dc_fs *fs = x->root_fs;
	bool last = false;

	unclaim_all_export_maps(&x->export);
	if (fs != NULL && fs->gfs == NULL) {
		/* a private filesystem leaves the list with its last export */
		PTHREAD_MUTEX_lock(&DC.fs_mu);
		if (--fs->private_users == 0 && fs->claimed) {
			glist_del(&fs->node);
			fs->claimed = false;
			last = true;
		}
		PTHREAD_MUTEX_unlock(&DC.fs_mu);
		if (last)
			dc_fs_put(fs);
	}
	if (x->root_fs != NULL) {
		dc_fs_put(x->root_fs);
		x->root_fs = NULL;
	}
}
