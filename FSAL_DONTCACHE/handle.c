// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE namespace: handles from name_to_handle_at/open_by_handle_at,
 * lookup, readdir, create ops, link/rename/unlink, attributes. */
#include "dc_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "FSAL/access_check.h"

static int hdl_open(struct dc_handle *h, int flags)
{
	return dc_open_fh(h->fs, &h->fh, flags);
}

fsal_status_t dc_stat_attrs(const struct dc_fs *fs, const struct stat *st,
			    struct fsal_attrlist *attrs)
{
	if (attrs == NULL)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	posix2fsal_attributes_all(st, attrs);
	attrs->fsid = fs->fsid;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Takes the reference to fs. The export given to ganesha's handle init is
 * the request's, as FSAL_VFS does: the object itself belongs to no export. */
static struct dc_handle *alloc_handle(const struct dc_fh *fh, struct dc_fs *fs,
				      const struct stat *st)
{
	struct dc_handle *h = gsh_calloc(1, sizeof(*h));

	h->fh = *fh;
	h->fs = fs;
	dc_obj_handle_init(&h->obj_handle, op_ctx->fsal_export,
			   posix2fsal_type(st->st_mode));
	h->obj_handle.obj_ops = &DC.handle_ops;
	h->obj_handle.fsid = fs->fsid;
	h->obj_handle.fs = fs->gfs;
	h->obj_handle.fileid = st->st_ino;
	if (h->obj_handle.type == REGULAR_FILE) {
		dc_fd_handle_init(h);
		/* the engine state of the file, shared with its other handles
		 * (a kept one included) */
		h->file.ef = dc_efile_get(fs, fh, h->obj_handle.fileid);
	}
	return h;
}

static bool skip_name(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

/* Builds a handle for name in dirfd (name "" = dirfd itself), whose
 * filesystem is dir_fs (NULL: not known). */
fsal_status_t dc_make_handle(int dirfd, const char *name, struct dc_fs *dir_fs,
			     struct dc_handle **out,
			     struct fsal_attrlist *attrs)
{
	struct dc_fh fh;
	struct dc_fs *fs;
	struct stat st;
	fsal_status_t rc = dc_ident_at(dirfd, name, dir_fs, &fh, &fs, &st);

	if (FSAL_IS_ERROR(rc))
		return rc;
	*out = alloc_handle(&fh, fs, &st);
	return dc_stat_attrs(fs, &st, attrs);
}

/* A name from the wire is one path component: never empty, never with a
 * '/' (which would walk out of the directory, or the export). "." and ".."
 * are only for lookup. */
static fsal_status_t check_name(const char *name, bool lookup)
{
	if (name[0] == '\0' || strchr(name, '/') != NULL)
		return fsalstat(ERR_FSAL_ACCESS, EACCES);
	if (!lookup && skip_name(name))
		return fsalstat(ERR_FSAL_EXIST, EEXIST);
	if (strlen(name) > 255)
		return fsalstat(ERR_FSAL_NAMETOOLONG, ENAMETOOLONG);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

fsal_status_t dc_check_name(const char *name)
{
	return check_name(name, false);
}

/* A directory handle opened for *at() calls. */
static int dir_fd(struct dc_handle *dir)
{
	return hdl_open(dir, O_PATH | O_DIRECTORY);
}

/**
 * @brief Look up a name in a directory
 *
 * @param[in] parent The directory
 * @param[in] path The name
 * @param[out] handle The new handle
 * @param[out] attrs_out The object's attributes (optional)
 *
 * @return FSAL status
 */
static fsal_status_t dc_lookup(struct fsal_obj_handle *parent, const char *path,
			       struct fsal_obj_handle **handle,
			       struct fsal_attrlist *attrs_out)
{
	struct dc_handle *dir = dc_hdl(parent), *h = NULL;
	fsal_status_t st;
	int fd;

	*handle = NULL;
	if (parent->type != DIRECTORY)
		return fsalstat(ERR_FSAL_NOTDIR, ENOTDIR);
	st = check_name(path, true);
	if (FSAL_IS_ERROR(st))
		return st;
	fd = dir_fd(dir);
	if (fd < 0)
		return posix2fsal_status(errno);
	/* ".." of the export root stays inside the export. */
	if (strcmp(path, "..") == 0) {
		struct dc_export *x = dc_ctx_export();
		struct stat a, b;

		if (x != NULL && fstat(fd, &a) == 0 &&
		    fstat(x->root_fd, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			path = "";
	}
	st = dc_make_handle(fd, path, dir->fs, &h, attrs_out);
	close(fd);
	if (!FSAL_IS_ERROR(st))
		*handle = &h->obj_handle;
	return st;
}

/**
 * @brief Look up the export's root (or a path below it)
 *
 * @param[in] exp_hdl The export
 * @param[in] path The name
 * @param[out] handle The new handle
 * @param[out] attrs_out The object's attributes (optional)
 *
 * @return FSAL status
 */
fsal_status_t dc_lookup_path(struct fsal_export *exp_hdl, const char *path,
			     struct fsal_obj_handle **handle,
			     struct fsal_attrlist *attrs_out)
{
	struct dc_export *x = dc_exp(exp_hdl);
	struct dc_handle *h = NULL;
	fsal_status_t st;
	size_t n = strlen(x->path);
	int fd;

	*handle = NULL;
	/* Only the export root and paths below it. */
	if (strncmp(path, x->path, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/'))
		return fsalstat(ERR_FSAL_NOENT, ENOENT);
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return posix2fsal_status(errno);
	st = dc_make_handle(fd, "", x->root_fs, &h, attrs_out);
	close(fd);
	if (!FSAL_IS_ERROR(st))
		*handle = &h->obj_handle;
	return st;
}

/**
 * @brief Make an object handle from a wire handle
 *
 * @param[in] exp_hdl The export
 * @param[in] desc The handle's bytes
 * @param[out] handle The new handle
 * @param[out] attrs_out The object's attributes (optional)
 *
 * @return FSAL status
 */
fsal_status_t dc_create_handle(struct fsal_export *exp_hdl,
			       struct gsh_buffdesc *desc,
			       struct fsal_obj_handle **handle,
			       struct fsal_attrlist *attrs_out)
{
	struct dc_export *x = dc_exp(exp_hdl);
	struct dc_handle *h = NULL;
	struct dc_fh fh;
	struct dc_fs *fs;
	fsal_status_t st;
	int fd;

	*handle = NULL;
	if (dc_fh_from_desc(x, desc->addr, desc->len, &fh) != 0)
		return fsalstat(ERR_FSAL_BADHANDLE, 0);
	/* a filesystem no longer mounted (or no longer exported) */
	fs = dc_ident_fs_of(&fh);
	if (fs == NULL)
		return fsalstat(ERR_FSAL_STALE, ESTALE);
	fd = dc_open_fh(fs, &fh, O_PATH | O_NOFOLLOW);
	if (fd < 0) {
		int err = errno;

		dc_fs_put(fs);
		/* A handle of a deleted file (or from another fs) is stale. */
		if (err == ENOENT || err == ESTALE || err == EINVAL)
			return fsalstat(ERR_FSAL_STALE, ESTALE);
		return posix2fsal_status(err);
	}
	st = dc_make_handle(fd, "", fs, &h, attrs_out);
	dc_fs_put(fs);
	close(fd);
	if (!FSAL_IS_ERROR(st))
		*handle = &h->obj_handle;
	return st;
}

/**
 * @brief Get an object's attributes
 *
 * @param[in] obj The object
 * @param[out] attrs The attributes
 *
 * @return FSAL status
 */
static fsal_status_t dc_getattrs(struct fsal_obj_handle *obj,
				 struct fsal_attrlist *attrs)
{
	struct dc_handle *h = dc_hdl(obj);
	struct stat st;
	int fd = hdl_open(h, O_PATH | O_NOFOLLOW), err = 0;

	/* the handle's inode is gone: ENOENT becomes ESTALE */
	if (fd < 0)
		err = (errno == ENOENT || errno == ESTALE) ? ESTALE : errno;
	else if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err != 0) {
		if (attrs->request_mask & ATTR_RDATTR_ERR)
			attrs->valid_mask = ATTR_RDATTR_ERR;
		return posix2fsal_status(err);
	}
	return dc_stat_attrs(h->fs, &st, attrs);
}

/* getdents64 gives d_off, the cookie that resumes after each entry. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/**
 * @brief Read a directory
 *
 * @param[in] dir_hdl The directory
 * @param[in] whence Start of the listing (cookie)
 * @param[in] dir_state Argument for cb
 * @param[in] cb Callback for each entry
 * @param[in] attrmask Attributes each entry needs
 * @param[out] eof Whether the listing ended
 *
 * @return FSAL status
 */
static fsal_status_t dc_readdir(struct fsal_obj_handle *dir_hdl,
				fsal_cookie_t *whence, void *dir_state,
				fsal_readdir_cb cb, attrmask_t attrmask,
				bool *eof)
{
	struct dc_handle *dir = dc_hdl(dir_hdl);
	char buf[32768] __attribute__((aligned(8)));
	fsal_status_t st = fsalstat(ERR_FSAL_NO_ERROR, 0);
	bool stop = false;
	int fd = hdl_open(dir, O_RDONLY | O_DIRECTORY);

	*eof = false;
	if (fd < 0)
		return posix2fsal_status(errno);
	if (whence != NULL && lseek(fd, (off_t)*whence, SEEK_SET) < 0) {
		st = posix2fsal_status(errno);
		goto out;
	}
	while (!stop) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (n < 0) {
			st = posix2fsal_status(errno);
			break;
		}
		if (n == 0) {
			*eof = true;
			break;
		}
		for (long pos = 0; pos < n && !stop;) {
			struct linux_dirent64 *d = (void *)(buf + pos);
			struct fsal_attrlist attrs;
			struct dc_handle *h = NULL;
			fsal_status_t hs;

			pos += d->d_reclen;
			if (skip_name(d->d_name))
				continue;
			fsal_prepare_attrs(&attrs, attrmask);
			hs = dc_make_handle(fd, d->d_name, dir->fs, &h, &attrs);
			if (FSAL_IS_ERROR(hs)) {
				fsal_release_attrs(&attrs);
				/* raced with unlink, or a submount: not listed */
				if (hs.major == ERR_FSAL_NOENT ||
				    hs.major == ERR_FSAL_XDEV)
					continue;
				st = hs;
				stop = true;
				break;
			}
			if (cb(d->d_name, &h->obj_handle, &attrs, dir_state,
			       (fsal_cookie_t)d->d_off) >= DIR_READAHEAD)
				stop = true;
			fsal_release_attrs(&attrs);
		}
	}
out:
	close(fd);
	return st;
}

/* Runs a create-type syscall as the client, so ownership and setgid
 * inheritance come out as the kernel would make them for a local user. */
#define AS_CALLER(expr)                               \
	({                                            \
		int _r;                               \
		fsal_set_credentials(&op_ctx->creds); \
		_r = (expr);                          \
		int _e = errno;                       \
		fsal_restore_ganesha_credentials();   \
		errno = _e;                           \
		_r;                                   \
	})

/* Undoes a create that failed half-way. The name may meanwhile have been
 * renamed over by another client: only the object this call created is
 * removed (same inode), and as the caller, never as root. If the handle
 * could not even be made, the name is left alone: nothing proves it is
 * still ours. */
void dc_unlink_created(int dfd, const char *name, dev_t dev, ino_t ino,
		       bool is_dir)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    st.st_ino != ino || st.st_dev != dev) {
		LogInfo(COMPONENT_FSAL,
			"DONTCACHE: %s changed while its create failed: left in place",
			name);
		return;
	}
	(void)AS_CALLER(unlinkat(dfd, name, is_dir ? AT_REMOVEDIR : 0));
}

/* What a create op makes: a symlink to target, else by the type in mode a
 * directory or a node (dev for devices). */
struct dc_mk {
	mode_t mode;
	dev_t dev;
	const char *target;
};

/* The handle of what create_at just made at name. mkdirat, mknodat and
 * symlinkat give no fd: the name is opened once (O_PATH, no symlink
 * followed) and the handle and its attributes come from that fd. A local
 * rename onto the name in between would hand out another file as the one
 * created, and apply the create's attributes to it: the object must be of
 * the type made and the caller's (the owner a create as the caller gives),
 * else the create answers STALE (what it made is gone from the name) and
 * that object is left alone. */
static fsal_status_t finish_create(struct dc_handle *dir, int dfd,
				   const char *name, const struct dc_mk *mk,
				   struct fsal_attrlist *attrs_in,
				   struct fsal_obj_handle **new_obj,
				   struct fsal_attrlist *attrs_out)
{
	object_file_type_t type =
		mk->target != NULL ? SYMBOLIC_LINK : posix2fsal_type(mk->mode);
	struct dc_handle *h = NULL;
	struct fsal_attrlist made;
	fsal_status_t st;
	uint64_t want_owner;
	int fd, err;

	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: open of %s after its create: %s", name,
			     strerror(err));
		return posix2fsal_status(err == ENOENT ? ESTALE : err);
	}
	fsal_prepare_attrs(&made, ATTR_TYPE | ATTR_OWNER);
	st = dc_make_handle(fd, "", dir->fs, &h, &made);
	close(fd);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: the handle of %s after its create: %s",
			     name, fsal_err_txt(st));
		fsal_release_attrs(&made);
		return st;
	}
	/* a filesystem that forces the owner (vfat, exfat with uid=) gives
	 * the new object that one: the kernel's server answers the create
	 * with it */
	want_owner = h->fs->owner_forced ? h->fs->forced_uid
					 : op_ctx->creds.caller_uid;
	if (made.type != type || made.owner != want_owner) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE: %s was replaced after its create (type %d owner %" PRIu64
			", made type %d owner %" PRIu64 "): STALE",
			name, made.type, made.owner, type, want_owner);
		fsal_release_attrs(&made);
		h->obj_handle.obj_ops->release(&h->obj_handle);
		return fsalstat(ERR_FSAL_STALE, ESTALE);
	}
	fsal_release_attrs(&made);
	*new_obj = &h->obj_handle;
	if (attrs_in != NULL && attrs_in->valid_mask != 0) {
		st = h->obj_handle.obj_ops->setattr2(&h->obj_handle, false,
						     NULL, attrs_in);
		if (FSAL_IS_ERROR(st)) {
			LogFullDebug(COMPONENT_FSAL,
				     "DONTCACHE: attributes of the new %s: %s",
				     name, fsal_err_txt(st));
			dc_unlink_created(dfd, name, h->fs->dev,
					  h->obj_handle.fileid,
					  h->obj_handle.type == DIRECTORY);
			h->obj_handle.obj_ops->release(&h->obj_handle);
			*new_obj = NULL;
			return st;
		}
	}
	if (attrs_out != NULL)
		return dc_getattrs(&h->obj_handle, attrs_out);
	return st;
}

static int mk_at(int dfd, const char *name, const struct dc_mk *mk)
{
	if (mk->target != NULL)
		return symlinkat(mk->target, dfd, name);
	if (S_ISDIR(mk->mode))
		return mkdirat(dfd, name, mk->mode & ~S_IFMT);
	return mknodat(dfd, name, mk->mode, mk->dev);
}

/* Makes name in dir as the caller, then its handle (finish_create). */
static fsal_status_t create_at(struct dc_handle *dir, const char *name,
			       const struct dc_mk *mk,
			       struct fsal_attrlist *attrs_in,
			       struct fsal_obj_handle **new_obj,
			       struct fsal_attrlist *attrs_out)
{
	fsal_status_t st;
	int fd = dir_fd(dir);

	if (fd < 0)
		return posix2fsal_status(errno);
	if (AS_CALLER(mk_at(fd, name, mk)) != 0)
		st = posix2fsal_status(errno);
	else
		st = finish_create(dir, fd, name, mk, attrs_in, new_obj,
				   attrs_out);
	close(fd);
	return st;
}

static mode_t take_mode(struct fsal_attrlist *attrs, mode_t dflt)
{
	mode_t m = dflt;

	if (attrs != NULL && FSAL_TEST_MASK(attrs->valid_mask, ATTR_MODE)) {
		m = fsal2unix_mode(attrs->mode);
		FSAL_UNSET_MASK(attrs->valid_mask, ATTR_MODE);
	}
	return m & ~op_ctx->fsal_export->exp_ops.fs_umask(op_ctx->fsal_export);
}

/**
 * @brief Create a directory
 *
 * @param[in] dir_hdl The directory
 * @param[in] name The name
 * @param[in] attrs_in The attributes to set
 * @param[out] new_obj The object opened or created
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
static fsal_status_t dc_mkdir(struct fsal_obj_handle *dir_hdl, const char *name,
			      struct fsal_attrlist *attrs_in,
			      struct fsal_obj_handle **new_obj,
			      struct fsal_attrlist *attrs_out DC_PARENT_ATTRS)
{
	struct dc_handle *dir = dc_hdl(dir_hdl);
	struct dc_mk mk = { .mode = S_IFDIR | take_mode(attrs_in, 0755) };
	fsal_status_t st = check_name(name, false);

	*new_obj = NULL;
	if (FSAL_IS_ERROR(st))
		return st;
	return create_at(dir, name, &mk, attrs_in, new_obj, attrs_out);
}

/**
 * @brief Create a special file (fifo, socket, device)
 *
 * @param[in] dir_hdl The directory
 * @param[in] name The name
 * @param[in] nodetype The type of file
 * @param[in] attrs_in The attributes to set
 * @param[out] new_obj The object opened or created
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
static fsal_status_t dc_mknode(struct fsal_obj_handle *dir_hdl,
			       const char *name, object_file_type_t nodetype,
			       struct fsal_attrlist *attrs_in,
			       struct fsal_obj_handle **new_obj,
			       struct fsal_attrlist *attrs_out DC_PARENT_ATTRS)
{
	struct dc_handle *dir = dc_hdl(dir_hdl);
	struct dc_mk mk = { .mode = take_mode(attrs_in, 0644) };
	fsal_status_t st = check_name(name, false);

	*new_obj = NULL;
	if (FSAL_IS_ERROR(st))
		return st;
	switch (nodetype) {
	case CHARACTER_FILE:
		mk.mode |= S_IFCHR;
		mk.dev =
			makedev(attrs_in->rawdev.major, attrs_in->rawdev.minor);
		break;
	case BLOCK_FILE:
		mk.mode |= S_IFBLK;
		mk.dev =
			makedev(attrs_in->rawdev.major, attrs_in->rawdev.minor);
		break;
	case SOCKET_FILE:
		mk.mode |= S_IFSOCK;
		break;
	case FIFO_FILE:
		mk.mode |= S_IFIFO;
		break;
	default:
		return fsalstat(ERR_FSAL_BADTYPE, EINVAL);
	}
	if (attrs_in != NULL)
		FSAL_UNSET_MASK(attrs_in->valid_mask, ATTR_RAWDEV);
	return create_at(dir, name, &mk, attrs_in, new_obj, attrs_out);
}

/**
 * @brief Create a symbolic link
 *
 * @param[in] dir_hdl The directory
 * @param[in] name The name
 * @param[in] link_path The link's target
 * @param[in] attrs_in The attributes to set
 * @param[out] new_obj The object opened or created
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
static fsal_status_t dc_symlink(struct fsal_obj_handle *dir_hdl,
				const char *name, const char *link_path,
				struct fsal_attrlist *attrs_in,
				struct fsal_obj_handle **new_obj,
				struct fsal_attrlist *attrs_out DC_PARENT_ATTRS)
{
	struct dc_handle *dir = dc_hdl(dir_hdl);
	struct dc_mk mk = { .target = link_path };
	fsal_status_t st = check_name(name, false);

	*new_obj = NULL;
	if (FSAL_IS_ERROR(st))
		return st;
	/* Linux symlinks have no mode of their own. */
	if (attrs_in != NULL)
		FSAL_UNSET_MASK(attrs_in->valid_mask, ATTR_MODE);
	return create_at(dir, name, &mk, attrs_in, new_obj, attrs_out);
}

/**
 * @brief Read a symbolic link
 *
 * @param[in] obj The object
 * @param[out] out The handle's bytes
 * @param[in] refresh Re-read the link
 *
 * @return FSAL status
 */
static fsal_status_t dc_readlink(struct fsal_obj_handle *obj,
				 struct gsh_buffdesc *out, bool refresh)
{
	char buf[PATH_MAX];
	ssize_t n;
	int fd;

	if (obj->type != SYMBOLIC_LINK)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	fd = hdl_open(dc_hdl(obj), O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(errno);
	n = readlinkat(fd, "", buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return posix2fsal_status(errno);
	buf[n] = '\0';
	out->addr = gsh_strdup(buf);
	out->len = (size_t)n + 1;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Opens a (with aflags) and then directory b for a call on two objects
 * (link, rename): 0, or the errno of the open that failed. put_fds closes
 * whichever is open. */
static int get_fds(struct dc_handle *a, int aflags, struct dc_handle *b,
		   int fd[2])
{
	fd[0] = hdl_open(a, aflags);
	fd[1] = fd[0] < 0 ? -1 : dir_fd(b);
	return fd[0] < 0 || fd[1] < 0 ? errno : 0;
}

static fsal_status_t put_fds(const int fd[2], int err)
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return posix2fsal_status(err);
}

/**
 * @brief Create a hard link
 *
 * ganesha checks the target directory of a link itself (fs_info says the
 * FSAL does not). The link is made as the caller, through the object's
 * /proc/self/fd magic link (linkat(AT_EMPTY_PATH) would need
 * CAP_DAC_READ_SEARCH, which the caller's fsuid drops), so the kernel
 * applies its own rules to it as to a local user: with
 * fs.protected_hardlinks a caller may link only a file it owns, or a
 * regular one it may read and write that is neither setuid nor setgid-
 * executable.
 *
 * @param[in] obj The object
 * @param[in] destdir The directory to link into
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
static fsal_status_t dc_link(struct fsal_obj_handle *obj,
			     struct fsal_obj_handle *destdir,
			     const char *name DC_PARENT_ATTRS)
{
	fsal_status_t st = check_name(name, false);
	char proc[64];
	int fd[2], err;

	if (FSAL_IS_ERROR(st))
		return st;
	err = get_fds(dc_hdl(obj), O_PATH | O_NOFOLLOW, dc_hdl(destdir), fd);
	if (err == 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd[0]);
		if (AS_CALLER(linkat(AT_FDCWD, proc, fd[1], name,
				     AT_SYMLINK_FOLLOW)) != 0)
			err = errno;
	}
	return put_fds(fd, err);
}

/**
 * @brief Rename an object
 *
 * Removals and renames run as the caller: ganesha leaves their permission
 * checks (write+search on the directories, the sticky bit) to the FSAL.
 *
 * @param[in] obj The object
 * @param[in] olddir The source directory
 * @param[in] old_name The source name
 * @param[in] newdir The target directory
 * @param[out] DC_RENAME_ATTRS (ganesha 6.5) both directories' attributes before and after, left unset
 *
 * @return FSAL status
 */
static fsal_status_t dc_rename(struct fsal_obj_handle *obj,
			       struct fsal_obj_handle *olddir,
			       const char *old_name,
			       struct fsal_obj_handle *newdir,
			       const char *new_name DC_RENAME_ATTRS)
{
	fsal_status_t st = check_name(old_name, false);
	int fd[2], err;

	if (!FSAL_IS_ERROR(st))
		st = check_name(new_name, false);
	if (FSAL_IS_ERROR(st))
		return st;
	err = get_fds(dc_hdl(olddir), O_PATH | O_DIRECTORY, dc_hdl(newdir), fd);
	if (err == 0 &&
	    AS_CALLER(renameat(fd[0], old_name, fd[1], new_name)) != 0)
		err = errno;
	return put_fds(fd, err);
}

/**
 * @brief Remove a name from a directory
 *
 * @param[in] dir_hdl The directory
 * @param[in] obj The object
 * @param[out] DC_PARENT_ATTRS (ganesha 6.5) the directory's attributes before and after, left unset as FSAL_VFS leaves them
 *
 * @return FSAL status
 */
static fsal_status_t dc_unlink(struct fsal_obj_handle *dir_hdl,
			       struct fsal_obj_handle *obj,
			       const char *name DC_PARENT_ATTRS)
{
	fsal_status_t st = check_name(name, false);
	int fd, err = 0;

	if (FSAL_IS_ERROR(st))
		return st;
	fd = dir_fd(dc_hdl(dir_hdl));
	if (fd < 0)
		return posix2fsal_status(errno);
	if (AS_CALLER(unlinkat(fd, name,
			       obj->type == DIRECTORY ? AT_REMOVEDIR : 0)) != 0)
		err = errno;
	close(fd);
	return posix2fsal_status(err);
}

static int set_times(int fd, struct fsal_attrlist *a)
{
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

	if (FSAL_TEST_MASK(a->valid_mask, ATTR_ATIME_SERVER))
		ts[0].tv_nsec = UTIME_NOW;
	else if (FSAL_TEST_MASK(a->valid_mask, ATTR_ATIME))
		ts[0] = a->atime;
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_MTIME_SERVER))
		ts[1].tv_nsec = UTIME_NOW;
	else if (FSAL_TEST_MASK(a->valid_mask, ATTR_MTIME))
		ts[1] = a->mtime;
	if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
		return 0;
	return utimensat(fd, "", ts, AT_EMPTY_PATH);
}

static int set_mode(struct dc_handle *h, int fd, struct fsal_attrlist *a)
{
	char proc[64];

	if (!FSAL_TEST_MASK(a->valid_mask, ATTR_MODE) ||
	    h->obj_handle.type == SYMBOLIC_LINK)
		return 0;
	/* O_PATH fds cannot fchmod; the magic link names the same inode. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return chmod(proc, fsal2unix_mode(a->mode));
}

static int set_owner(int fd, struct fsal_attrlist *a)
{
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;

	if (FSAL_TEST_MASK(a->valid_mask, ATTR_OWNER))
		uid = (uid_t)a->owner;
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_GROUP))
		gid = (gid_t)a->group;
	if (uid == (uid_t)-1 && gid == (gid_t)-1)
		return 0;
	return fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

static bool caller_in_group(uint64_t gid)
{
	const struct user_cred *c = &op_ctx->creds;

	if (c->caller_gid == gid)
		return true;
	for (unsigned int i = 0; i < c->caller_glen; i++)
		if (c->caller_garray[i] == gid)
			return true;
	return false;
}

static bool explicit_times(const struct fsal_attrlist *a)
{
	return FSAL_TEST_MASK(a->valid_mask, ATTR_ATIME | ATTR_MTIME);
}

/* ganesha's SETATTR rule (fsal_check_setattr_perms, no ACLs here), checked
 * again in the module before anything changes: only the owner changes mode,
 * times or group (to one of its groups), nobody gives a file away; times set
 * to the server's clock need write permission. Size: dc_truncate. */
static fsal_status_t setattr_perm(struct fsal_obj_handle *obj,
				  const struct fsal_attrlist *a)
{
	struct fsal_attrlist cur;
	fsal_status_t st;
	bool owner;

	if (op_ctx->fsal_export->exp_ops.is_superuser(op_ctx->fsal_export,
						      &op_ctx->creds))
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	fsal_prepare_attrs(&cur, ATTR_OWNER | ATTR_GROUP | ATTR_MODE);
	st = dc_getattrs(obj, &cur);
	fsal_release_attrs(&cur);
	if (FSAL_IS_ERROR(st))
		return st;
	owner = op_ctx->creds.caller_uid == cur.owner;
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_OWNER) &&
	    (a->owner != op_ctx->creds.caller_uid || !owner))
		return fsalstat(ERR_FSAL_PERM, EPERM);
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_GROUP) &&
	    (a->group != cur.group || !owner) &&
	    (!caller_in_group(a->group) || !owner))
		return fsalstat(ERR_FSAL_PERM, EPERM);
	if (owner)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_MODE) || explicit_times(a))
		return fsalstat(ERR_FSAL_PERM, EPERM);
	if (FSAL_TEST_MASK(a->valid_mask,
			   ATTR_ATIME_SERVER | ATTR_MTIME_SERVER))
		return obj->obj_ops->test_access(obj, FSAL_W_OK, NULL, NULL,
						 false);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief Set attributes (size, mode, owner, times)
 *
 * Every check comes before the first change. Mode, owner and explicit
 * times are then changed as the caller, so the kernel enforces the same
 * rule; server-clock times (allowed to a writer that is not the owner,
 * which utimensat refuses unless both are "now") as the server.
 *
 * @param[in] obj The object
 * @param[in] bypass Whether to bypass share reservations (delegations)
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] a The attributes to set
 *
 * @return FSAL status
 */
static fsal_status_t dc_setattr2(struct fsal_obj_handle *obj, bool bypass,
				 struct state_t *state, struct fsal_attrlist *a)
{
	struct dc_handle *h = dc_hdl(obj);
	fsal_status_t st = fsalstat(ERR_FSAL_NO_ERROR, 0);
	int fd, err = 0;

	if (FSAL_TEST_MASK(a->valid_mask, ATTR_MODE))
		a->mode &= ~op_ctx->fsal_export->exp_ops.fs_umask(
			op_ctx->fsal_export);
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_SIZE) &&
	    obj->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	st = setattr_perm(obj, a);
	if (FSAL_IS_ERROR(st))
		return st;
	if (FSAL_TEST_MASK(a->valid_mask, ATTR_SIZE)) {
		st = dc_truncate(h, bypass, state, a->filesize);
		if (FSAL_IS_ERROR(st))
			return st;
	}
	fd = hdl_open(h, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(errno);
	if (AS_CALLER(set_mode(h, fd, a)) != 0 ||
	    AS_CALLER(set_owner(fd, a)) != 0 ||
	    (explicit_times(a) ? AS_CALLER(set_times(fd, a))
			       : set_times(fd, a)) != 0)
		err = errno;
	close(fd);
	return posix2fsal_status(err);
}

/**
 * @brief Write the handle as the client sees it (with its MAC)
 *
 * @param[in] obj The object
 * @param[in] output_type The handle's form
 * @param[in] fh_desc The handle's bytes
 *
 * @return FSAL status
 */
static fsal_status_t dc_handle_to_wire(const struct fsal_obj_handle *obj,
				       fsal_digesttype_t output_type,
				       struct gsh_buffdesc *fh_desc)
{
	const struct dc_handle *h = dc_hdl(obj);
	struct dc_export *x = dc_ctx_export();
	int n;

	/* the MAC of the export the object is seen through: each export
	 * refuses handles it did not mint */
	if (x == NULL)
		return fsalstat(ERR_FSAL_SERVERFAULT, 0);
	switch (output_type) {
	case FSAL_DIGEST_NFSV3:
	case FSAL_DIGEST_NFSV4:
		n = dc_fh_to_wire(&h->fh, x->key, fh_desc->addr, fh_desc->len);
		if (n < 0)
			return fsalstat(ERR_FSAL_TOOSMALL, 0);
		fh_desc->len = (size_t)n;
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	default:
		return fsalstat(ERR_FSAL_SERVERFAULT, 0);
	}
}

/**
 * @brief The handle's key for ganesha's handle cache
 *
 * @param[in] obj The object
 * @param[in] fh_desc The handle's bytes
 */
static void dc_handle_to_key(struct fsal_obj_handle *obj,
			     struct gsh_buffdesc *fh_desc)
{
	struct dc_handle *h = dc_hdl(obj);

	fh_desc->addr = h->fh.host;
	fh_desc->len = h->fh.len;
}

/**
 * @brief Compare two handles
 *
 * @param[in] a One handle
 * @param[in] b The other handle
 *
 * @return true when both name the same file
 */
static bool dc_handle_cmp(struct fsal_obj_handle *a, struct fsal_obj_handle *b)
{
	return dc_fh_eq(&dc_hdl(a)->fh, &dc_hdl(b)->fh);
}

/**
 * @brief Merge a duplicate handle's share state into the kept one
 *
 * MDCACHE made a second handle (dupe) of a file it has an entry for (OPENs
 * by name racing past its cache) and keeps the first (orig): the share
 * reservation an open took on the dupe moves to the original, or the open
 * is refused (SHARE_DENIED; MDCACHE then closes it on the dupe) when it
 * conflicts with one taken there meanwhile. ganesha's merge_share does
 * that under the original's obj_lock; nobody else sees the dupe. The
 * engine file is the file's, shared by both handles (efile.c): nothing
 * else moves.
 *
 * @param[in] orig_hdl The handle kept
 * @param[in] dupe_hdl The duplicate
 *
 * @return FSAL status
 */
static fsal_status_t dc_merge(struct fsal_obj_handle *orig_hdl,
			      struct fsal_obj_handle *dupe_hdl)
{
	if (orig_hdl->type != REGULAR_FILE || dupe_hdl->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	return merge_share(orig_hdl, &dc_hdl(orig_hdl)->file.share,
			   &dc_hdl(dupe_hdl)->file.share);
}

/**
 * @brief Release an object handle
 *
 * @param[in] obj The object
 */
static void dc_release(struct fsal_obj_handle *obj)
{
	struct dc_handle *h = dc_hdl(obj);

	if (obj->type == REGULAR_FILE) {
		dc_fd_handle_fini(h);
		dc_file_release(h);
	}
	dc_fs_put(h->fs);
	dc_obj_handle_fini(obj);
	gsh_free(h);
}

void dc_handle_ops_init(struct fsal_obj_ops *ops)
{
	fsal_default_obj_ops_init(ops);
	ops->release = dc_release;
	ops->merge = dc_merge;
	ops->lookup = dc_lookup;
	ops->readdir = dc_readdir;
	ops->mkdir = dc_mkdir;
	ops->mknode = dc_mknode;
	ops->symlink = dc_symlink;
	ops->readlink = dc_readlink;
	ops->getattrs = dc_getattrs;
	ops->setattr2 = dc_setattr2;
	ops->link = dc_link;
	ops->rename = dc_rename;
	ops->unlink = dc_unlink;
	ops->handle_to_wire = dc_handle_to_wire;
	ops->handle_to_key = dc_handle_to_key;
	ops->handle_cmp = dc_handle_cmp;
	ops->open2 = dc_open2;
	ops->reopen2 = dc_reopen2;
	ops->status2 = dc_state_openflags;
	ops->read2 = dc_read2;
	ops->write2 = dc_write2;
	ops->commit2 = dc_commit2;
	ops->lock_op2 = dc_lock_op2;
	ops->close2 = dc_close2;
	ops->fallocate = dc_fallocate;
	ops->seek2 = dc_seek2;
	ops->getxattrs = dc_getxattrs;
	ops->setxattrs = dc_setxattrs;
	ops->removexattrs = dc_removexattrs;
	ops->listxattrs = dc_listxattrs;
	dc_fd_obj_ops_init(ops);
}
