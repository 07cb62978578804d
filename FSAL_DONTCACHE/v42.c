// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE NFSv4.2 operations: ALLOCATE and DEALLOCATE (fallocate
 * through the engine, after the engine writes of the range in flight), SEEK
 * (lseek SEEK_DATA/SEEK_HOLE; acknowledged data still in the page cache is
 * data), and user extended attributes (GETXATTR, SETXATTR, LISTXATTRS,
 * REMOVEXATTR in the "user." namespace, done as the caller so that the
 * kernel's permission rules apply). */
#include "dc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/xattr.h>
#include <unistd.h>

#define DC_XATTR_PREFIX "user."
#define DC_XATTR_PREFIX_LEN (sizeof(DC_XATTR_PREFIX) - 1)
#define DC_XATTR_NAME_MAX 255 /* the kernel's XATTR_NAME_MAX */
#define DC_XATTR_LIST_TRIES 5

/* ALLOCATE / DEALLOCATE ----------------------------------------------- */

/**
 * @brief Allocate or deallocate a range (NFSv4.2 ALLOCATE, DEALLOCATE)
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] offset Start of the range
 * @param[in] length The range's length
 * @param[in] allocate true: ALLOCATE; false: DEALLOCATE
 *
 * @return FSAL status
 */
fsal_status_t dc_fallocate(struct fsal_obj_handle *obj, struct state_t *state,
			   uint64_t offset, uint64_t length, bool allocate)
{
	struct dc_handle *h = dc_hdl(obj);
	struct dcio_file *io;
	fsal_status_t st;
	int rc;

	if (obj->type != REGULAR_FILE)
		return fsalstat(obj->type == DIRECTORY ? ERR_FSAL_ISDIR
						       : ERR_FSAL_INVAL,
				0);
	/* the state first, then the range, as the kernel server does */
	st = dc_fd_check_io(h, false, state, FSAL_O_WRITE, false);
	if (FSAL_IS_ERROR(st))
		return st;
	rc = dcio_falloc_check(offset, length);
	if (rc == 0)
		rc = dc_efile_io(h->file.ef, true, &io);
	if (rc == 0) {
		/* as the caller, like FSAL_VFS (root could use reserved
		 * blocks) */
		fsal_set_credentials(&op_ctx->creds);
		rc = dcio_fallocate(io, allocate ? DCIO_ALLOCATE : DCIO_PUNCH,
				    offset, length);
		fsal_restore_ganesha_credentials();
		dc_efile_io_done(h->file.ef);
	}
	dc_fd_io_end(h, state, FSAL_O_WRITE);
	return posix2fsal_status(rc);
}

/* SEEK ------------------------------------------------------------------ */

/* SEEK tells where a file's data is: the caller must be one who may READ
 * it, whatever stateid came (the kernel server checks read permission for
 * SEEK as for READ, with any stateid; ganesha never asks the FSAL for a
 * special stateid, answering OK itself). ganesha's READ rule: read
 * permission, the owner's bits skipped, else execute permission. */
static fsal_status_t seek_permission(struct fsal_obj_handle *obj)
{
	fsal_status_t st;

	st = obj->obj_ops->test_access(obj, FSAL_READ_ACCESS, NULL, NULL, true);
	if (st.major != ERR_FSAL_ACCESS)
		return st;
	return obj->obj_ops->test_access(obj, FSAL_EXECUTE_ACCESS, NULL, NULL,
					 false);
}

/**
 * @brief Find the next data or hole (NFSv4.2 SEEK)
 *
 * RFC 7862 15.11: NXIO for an offset at or past the end of the file; a
 * search that finds nothing is NFS4_OK with sr_eof (offset: the file
 * size).
 *
 * @param[in] obj The object
 * @param[in] state The state (open, lock or share), or NULL
 * @param[in] info The seek's arguments and results
 *
 * @return FSAL status
 */
fsal_status_t dc_seek2(struct fsal_obj_handle *obj, struct state_t *state,
		       struct io_info *info)
{
	struct dc_handle *h = dc_hdl(obj);
	uint64_t off = info->io_content.hole.di_offset;
	fsal_status_t st;
	struct stat sb;
	int whence, fd, err = 0;
	off_t r;

	if (obj->type != REGULAR_FILE)
		return fsalstat(obj->type == DIRECTORY ? ERR_FSAL_ISDIR
						       : ERR_FSAL_INVAL,
				0);
	switch (info->io_content.what) {
	case NFS4_CONTENT_DATA:
		whence = SEEK_DATA;
		break;
	case NFS4_CONTENT_HOLE:
		whence = SEEK_HOLE;
		break;
	default:
		return fsalstat(ERR_FSAL_UNION_NOTSUPP, 0);
	}
	st = dc_fd_check_io(h, false, state, FSAL_O_ANY, false);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: SEEK of file %" PRIu64 ": state: %s",
			     obj->fileid, fsal_err_txt(st));
		return st;
	}
	dc_fd_io_end(h, state, FSAL_O_ANY); /* FSAL_O_ANY: none was taken */
	st = seek_permission(obj);
	if (FSAL_IS_ERROR(st)) {
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: SEEK of file %" PRIu64
			     ": the caller may not read it: %s",
			     obj->fileid, fsal_err_txt(st));
		return st;
	}
	/* not the engine's fd: its file position is none of SEEK's business */
	fd = dc_open_fh(h->fs, &h->fh, O_RDONLY | O_NOFOLLOW);
	/* the handle's inode is gone: ENOENT becomes ESTALE */
	if (fd < 0) {
		err = errno == ENOENT ? ESTALE : errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: SEEK of file %" PRIu64 ": open: %s",
			     obj->fileid, strerror(err));
		return posix2fsal_status(err);
	}
	if (fstat(fd, &sb) != 0) {
		err = errno;
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE: SEEK of file %" PRIu64 ": fstat: %s",
			     obj->fileid, strerror(err));
	} else if (off >= (uint64_t)sb.st_size) {
		err = ENXIO;
	} else {
		r = lseek(fd, (off_t)off, whence);
		if (r >= 0) {
			info->io_eof = (uint64_t)r >= (uint64_t)sb.st_size;
			info->io_content.hole.di_offset = (uint64_t)r;
		} else if (errno == ENXIO) {
			info->io_eof = TRUE;
			info->io_content.hole.di_offset = (uint64_t)sb.st_size;
		} else {
			err = errno;
			LogFullDebug(COMPONENT_FSAL,
				     "DONTCACHE: SEEK of file %" PRIu64
				     ": lseek: %s",
				     obj->fileid, strerror(err));
		}
	}
	close(fd);
	return posix2fsal_status(err);
}

/* Extended attributes --------------------------------------------------- */

/* The wire name is the name in the "user." namespace (RFC 8276): never
 * another namespace, never empty, no NUL, and within the kernel's limit. */
static fsal_status_t xattr_name(const xattrkey4 *k, char *out, size_t outlen)
{
	size_t n = k->utf8string_len;

	if (n == 0 || k->utf8string_val == NULL ||
	    memchr(k->utf8string_val, '\0', n) != NULL)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	if (DC_XATTR_PREFIX_LEN + n > DC_XATTR_NAME_MAX ||
	    DC_XATTR_PREFIX_LEN + n >= outlen)
		return fsalstat(ERR_FSAL_NAMETOOLONG, ENAMETOOLONG);
	memcpy(out, DC_XATTR_PREFIX, DC_XATTR_PREFIX_LEN);
	memcpy(out + DC_XATTR_PREFIX_LEN, k->utf8string_val, n);
	out[DC_XATTR_PREFIX_LEN + n] = '\0';
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static fsal_status_t xattr_status(int err)
{
	switch (err) {
	case ENODATA:
		return fsalstat(ERR_FSAL_NOXATTR, err);
	case ERANGE: /* the value does not fit the buffer given */
	case E2BIG: /* a value larger than the kernel takes */
		return fsalstat(ERR_FSAL_XATTR2BIG, err);
	case ENOTSUP:
		return fsalstat(ERR_FSAL_NOTSUPP, err);
	case ENOENT:
		return fsalstat(ERR_FSAL_STALE, ESTALE);
	default:
		return posix2fsal_status(err);
	}
}

/* The object as a path the *xattr calls follow to it, whatever its type
 * (an O_PATH fd opens nothing; fgetxattr refuses those). */
struct xattr_obj {
	int fd;
	char path[64];
};

static int xattr_open(struct dc_handle *h, struct xattr_obj *o)
{
	o->fd = dc_open_fh(h->fs, &h->fh, O_PATH | O_NOFOLLOW);
	if (o->fd < 0) /* the handle's inode is gone: ENOENT is ESTALE */
		return errno == ENOENT ? ESTALE : errno;
	snprintf(o->path, sizeof(o->path), "/proc/self/fd/%d", o->fd);
	return 0;
}

enum xattr_op { XATTR_GET, XATTR_SET, XATTR_REMOVE };

/* One xattr call on obj's inode, run as the caller so the kernel checks
 * read or write permission (and the sticky-directory rule) as it would for
 * a local user: refused like a READ or WRITE would be. A GET with a
 * zero-length buffer asks for the size (ganesha's retry after XATTR2BIG)
 * and puts the value's length in val; flags are SET's. */
static fsal_status_t xattr_call(struct fsal_obj_handle *obj, enum xattr_op op,
				xattrkey4 *key, xattrvalue4 *val, int flags)
{
	char name[DC_XATTR_NAME_MAX + 1];
	struct xattr_obj o;
	fsal_status_t st = xattr_name(key, name, sizeof(name));
	ssize_t n;
	int err;

	if (FSAL_IS_ERROR(st))
		return st;
	err = xattr_open(dc_hdl(obj), &o);
	if (err != 0)
		return posix2fsal_status(err);
	fsal_set_credentials(&op_ctx->creds);
	switch (op) {
	case XATTR_GET:
		n = getxattr(o.path, name,
			     val->utf8string_len ? val->utf8string_val : NULL,
			     val->utf8string_len);
		break;
	case XATTR_SET:
		n = setxattr(o.path, name, val->utf8string_val,
			     val->utf8string_len, flags);
		break;
	default:
		n = removexattr(o.path, name);
		break;
	}
	err = errno;
	fsal_restore_ganesha_credentials();
	close(o.fd);
	if (n < 0)
		return xattr_status(err);
	if (op == XATTR_GET)
		val->utf8string_len = (u_int)n;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/**
 * @brief Get a user extended attribute
 *
 * @param[in] obj The object
 * @param[in] xa_name The attribute's name
 * @param[in] xa_value The value
 *
 * @return FSAL status
 */
fsal_status_t dc_getxattrs(struct fsal_obj_handle *obj, xattrkey4 *xa_name,
			   xattrvalue4 *xa_value)
{
	return xattr_call(obj, XATTR_GET, xa_name, xa_value, 0);
}

/**
 * @brief Set a user extended attribute
 *
 * @param[in] obj The object
 * @param[in] option Create, replace or either
 * @param[in] xa_name The attribute's name
 * @param[in] xa_value The value
 *
 * @return FSAL status
 */
fsal_status_t dc_setxattrs(struct fsal_obj_handle *obj, setxattr_option4 option,
			   xattrkey4 *xa_name, xattrvalue4 *xa_value)
{
	int flags;

	switch (option) {
	case SETXATTR4_EITHER:
		flags = 0;
		break;
	case SETXATTR4_CREATE: /* EEXIST -> NFS4ERR_EXIST */
		flags = XATTR_CREATE;
		break;
	case SETXATTR4_REPLACE: /* ENODATA -> NFS4ERR_NOXATTR */
		flags = XATTR_REPLACE;
		break;
	default:
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	}
	return xattr_call(obj, XATTR_SET, xa_name, xa_value, flags);
}

/**
 * @brief Remove a user extended attribute
 *
 * @param[in] obj The object
 * @param[in] xa_name The attribute's name
 *
 * @return FSAL status
 */
fsal_status_t dc_removexattrs(struct fsal_obj_handle *obj, xattrkey4 *xa_name)
{
	return xattr_call(obj, XATTR_REMOVE, xa_name, NULL, 0);
}

/**
 * @brief List user extended attributes
 *
 * ganesha's helper keeps the "user." names, strips the prefix, and pages
 * them by cookie within la_maxcount.
 *
 * @param[in] obj The object
 * @param[in] la_maxcount Largest answer
 * @param[in] la_cookie Start of the listing
 * @param[out] lr_eof Whether the listing ended
 * @param[out] lr_names The names
 *
 * @return FSAL status
 */
fsal_status_t dc_listxattrs(struct fsal_obj_handle *obj, count4 la_maxcount,
			    nfs_cookie4 *la_cookie, bool_t *lr_eof,
			    xattrlist4 *lr_names)
{
	struct xattr_obj o;
	fsal_status_t st;
	char *buf = NULL;
	ssize_t n = -1;
	int err, i;

	err = xattr_open(dc_hdl(obj), &o);
	if (err != 0)
		return posix2fsal_status(err);
	fsal_set_credentials(&op_ctx->creds);
	/* the list may grow between the size query and the read */
	for (i = 0, err = ERANGE; i < DC_XATTR_LIST_TRIES && err == ERANGE;
	     i++) {
		err = 0;
		n = listxattr(o.path, NULL, 0);
		if (n < 0) {
			err = errno;
			break;
		}
		gsh_free(buf);
		buf = gsh_malloc((size_t)n + 1);
		n = listxattr(o.path, buf, (size_t)n);
		if (n < 0)
			err = errno;
	}
	fsal_restore_ganesha_credentials();
	close(o.fd);
	if (err != 0)
		st = err == ERANGE ? fsalstat(ERR_FSAL_DELAY, err)
				   : xattr_status(err);
	else
		st = fsal_listxattr_helper(buf, (size_t)n, la_maxcount,
					   la_cookie, lr_eof, lr_names);
	gsh_free(buf);
	return st;
}
