/* Engine files that outlive their handle. Ganesha may evict the handle of a
 * file whose engine file remembers lost write-back data (or an error no
 * COMMIT has seen): the engine file then waits here, keyed by the file
 * handle, until a new handle of the same file needs its engine file (the
 * handle that does I/O, not one MDCACHE builds and throws away) and adopts
 * it, so that the next COMMIT of that data still fails. A file with no links
 * left is closed instead (no COMMIT can reach it). Bounded: past DC_KEPT_MAX the oldest is
 * closed and its memory is lost, which is logged. */
#include "dc_int.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

struct dc_kept {
	struct glist_head node;
	struct dc_fh fh;
	struct dcio_file *io;		/* may be NULL: only pending_err */
	bool io_rdonly;
	int pending_err;
};

static void close_kept(struct dc_export *x, struct dc_kept *k, const char *why)
{
	int rc = k->io != NULL ? dcio_file_close(k->io) : 0;

	LogWarn(COMPONENT_FSAL,
		"DONTCACHE export %u: %s: the memory of a lost write-back (%s) is dropped",
		x->export_id, why, strerror(k->pending_err ? k->pending_err : rc ? rc : EIO));
	gsh_free(k);
}

static bool unlinked(struct dcio_file *io)
{
	struct stat st;

	return io != NULL && fstat(dcio_file_fd(io), &st) == 0 && st.st_nlink == 0;
}

void dc_kept_init(struct dc_export *x)
{
	PTHREAD_MUTEX_init(&x->kept_mu, NULL);
	glist_init(&x->kept);
}

void dc_kept_put(struct dc_export *x, const struct dc_fh *fh, struct dcio_file *io,
		 bool io_rdonly, int pending_err)
{
	struct dc_kept *k, *old = NULL;
	unsigned int n;

	if (unlinked(io)) {
		dcio_file_close(io);
		return;
	}
	k = gsh_calloc(1, sizeof(*k));
	k->fh = *fh;
	k->io = io;
	k->io_rdonly = io_rdonly;
	k->pending_err = pending_err;
	PTHREAD_MUTEX_lock(&x->kept_mu);
	glist_add_tail(&x->kept, &k->node);
	if (++x->nkept > DC_KEPT_MAX) {
		old = glist_first_entry(&x->kept, struct dc_kept, node);
		glist_del(&old->node);
		x->nkept--;
	}
	n = x->nkept;
	PTHREAD_MUTEX_unlock(&x->kept_mu);
	LogEvent(COMPONENT_FSAL,
		 "DONTCACHE export %u: handle evicted with lost write-back data: engine file kept (%u kept)",
		 x->export_id, n);
	if (old != NULL)
		close_kept(x, old, "too many evicted files with lost write-back data");
}

bool dc_kept_take(struct dc_export *x, const struct dc_fh *fh, struct dc_file_state *f)
{
	struct dc_kept *k = NULL, *it;
	struct glist_head *n;

	PTHREAD_MUTEX_lock(&x->kept_mu);
	glist_for_each(n, &x->kept) {
		it = glist_entry(n, struct dc_kept, node);
		if (dc_fh_eq(&it->fh, fh)) {
			k = it;
			glist_del(&k->node);
			x->nkept--;
			break;
		}
	}
	PTHREAD_MUTEX_unlock(&x->kept_mu);
	if (k == NULL)
		return false;
	f->io = k->io;
	f->io_rdonly = k->io_rdonly;
	if (f->pending_err == 0)
		f->pending_err = k->pending_err;
	gsh_free(k);
	return true;
}

void dc_kept_drain(struct dc_export *x)
{
	struct dc_kept *k;

	for (;;) {
		PTHREAD_MUTEX_lock(&x->kept_mu);
		k = glist_first_entry(&x->kept, struct dc_kept, node);
		if (k != NULL) {
			glist_del(&k->node);
			x->nkept--;
		}
		PTHREAD_MUTEX_unlock(&x->kept_mu);
		if (k == NULL)
			break;
		close_kept(x, k, "export released");
	}
	PTHREAD_MUTEX_destroy(&x->kept_mu);
}
