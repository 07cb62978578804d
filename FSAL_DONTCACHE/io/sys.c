// SPDX-License-Identifier: LGPL-3.0-or-later
/* The syscall seam: every syscall on a file's data goes through the
 * engine's table (struct dcio_syscalls), so that tests can answer for the
 * kernel; these are its defaults. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sys.h"

static int real_fdatasync(int fd)
{
	return fdatasync(fd);
}
static int real_fsync(int fd)
{
	return fsync(fd);
}

static int real_sync_file_range(int fd, off_t off, off_t len,
				unsigned int flags)
{
	return sync_file_range(fd, off, len, flags);
}

/* posix_fadvise returns the errno; the table uses -1/errno like the rest */
static int real_fadvise(int fd, off_t off, off_t len, int advice)
{
	int rc = posix_fadvise(fd, off, len, advice);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

#ifndef SYS_cachestat
#define SYS_cachestat 451 /* Linux 6.5, the same number on every arch */
#endif

/* cachestat(2) over [off, off + len): -1/errno (ENOSYS before Linux 6.5) */
static int real_cachestat(int fd, uint64_t off, uint64_t len,
			  struct dcio_cachestat *cs)
{
	struct {
		uint64_t off, len;
	} range = { off, len };
	struct {
		uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
			nr_recently_evicted;
	} k;

	if (syscall(SYS_cachestat, fd, &range, &k, 0) != 0)
		return -1;
	cs->nr_cache = k.nr_cache;
	cs->nr_dirty = k.nr_dirty;
	cs->nr_writeback = k.nr_writeback;
	return 0;
}

/* per thread, not glibc's broadcast to every thread */
static int real_setfsuid(uid_t id)
{
	return (int)syscall(SYS_setfsuid, id);
}

static int real_setfsgid(gid_t id)
{
	return (int)syscall(SYS_setfsgid, id);
}

void sys_fill(struct dcio_syscalls *d, const struct dcio_syscalls *s)
{
	if (s)
		*d = *s;
	else
		memset(d, 0, sizeof(*d));
	if (!d->pwritev2)
		d->pwritev2 = pwritev2;
	if (!d->preadv2)
		d->preadv2 = preadv2;
	if (!d->fdatasync)
		d->fdatasync = real_fdatasync;
	if (!d->fsync)
		d->fsync = real_fsync;
	if (!d->sync_file_range)
		d->sync_file_range = real_sync_file_range;
	if (!d->posix_fadvise)
		d->posix_fadvise = real_fadvise;
	if (!d->ftruncate)
		d->ftruncate = ftruncate;
	if (!d->fallocate)
		d->fallocate = fallocate;
	if (!d->cachestat)
		d->cachestat = real_cachestat;
	if (!d->setfsuid)
		d->setfsuid = real_setfsuid;
	if (!d->setfsgid)
		d->setfsgid = real_setfsgid;
}
