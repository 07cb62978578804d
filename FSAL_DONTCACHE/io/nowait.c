// SPDX-License-Identifier: LGPL-3.0-or-later
/* Reads served on the caller's thread: a read whose data is in the page
 * cache is answered by preadv2(RWF_NOWAIT) at once, without the hand-off to
 * an engine thread (which costs a context switch each way and queues a 4 KiB
 * read behind 1 MiB writes on the same pool). What would block goes to the
 * engine: pages not cached, O_DIRECT reads, errors (the engine's path retries,
 * falls back and counts them). */
#include "core.h"
#include "req.h"

#include <errno.h>

#define NOWAIT_MAX_IOV 16

int dcio_read_nowait(struct dcio_file *f, const struct iovec *iov, int iovcnt,
		     uint64_t offset, size_t *bytes)
{
	struct iovec part[NOWAIT_MAX_IOV];
	struct dcio_export *x;
	uint64_t len, done = 0, t0;
	int flags = RWF_NOWAIT;

	if (!f || !bytes || iovcnt < 0 || (iovcnt && !iov))
		return EINVAL;
	x = f->x;
	if (iovcnt > NOWAIT_MAX_IOV || XP(x, read_mode) == DCIO_READ_DIRECT ||
	    XP(x, flush_mode) == DCIO_FLUSH_INLINE)
		return EAGAIN;
	flags |= cached_read_flags(x);
	t0 = now_ns();
	engine_read_seen(f->e, t0);
	len = iov_total(iov, iovcnt);
	/* bounded: every pass moves forward or leaves */
	while (done < len) {
		int n = iov_slice(iov, iovcnt, done, len - done, part);
		ssize_t r = f->e->sys.preadv2(f->fd, part, n,
					      (off_t)(offset + done), flags);

		if (r < 0)
			return EAGAIN; /* not cached, or an error: the engine decides */
		if (r == 0)
			break; /* end of file */
		done += (uint64_t)r;
	}
	ST_ADD(x->st.r_ops, 1);
	ST_ADD(x->st.r_bytes, done);
	ST_ADD(x->st.r_nowait, 1);
	hist_add(&x->st.lat_r, now_ns() - t0);
	*bytes = done;
	return 0;
}
