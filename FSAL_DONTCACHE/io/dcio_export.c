// SPDX-License-Identifier: LGPL-3.0-or-later
/* Exports: parameters, the RWF_DONTCACHE probe, the in-flight bound and the
 * write verifier generation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "log.h"
#include "util.h"

static int probe_file(int dirfd)
{
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	/* no O_TMPFILE here: a named file, unlinked at once */
	char name[64];

	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), ".dcio-probe-%d-%d-%d",
			 (int)getpid(), rand(), i);
		fd = openat(dirfd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			    0600);
		if (fd >= 0) {
			unlinkat(dirfd, name, 0);
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	return -1;
}

static bool unsupported(ssize_t r)
{
	return r < 0 && (errno == EOPNOTSUPP || errno == EINVAL);
}

/* Learns whether RWF_DONTCACHE writes and reads work on dirfd's filesystem.
 * Uses the real syscalls: it asks the filesystem, not the test seam. */
static int probe(struct dcio_export *x, int dirfd)
{
	int fd = probe_file(dirfd);

	if (fd < 0)
		return errno;
	char buf[4096];

	memset(buf, 0x5a, sizeof(buf));
	struct iovec iov = { buf, sizeof(buf) };

	x->probed_wok = !unsupported(pwritev2(fd, &iov, 1, 0, RWF_DONTCACHE));
	x->probed_rok = !unsupported(preadv2(fd, &iov, 1, 0, RWF_DONTCACHE));
	close(fd);
	return 0;
}

/* Dontcache_Kick = auto: what a RWF_DONTCACHE write does on this
 * filesystem, asked of the kernel rather than read from its version (a
 * distribution kernel may have backported the deferred kick, a later one
 * reverted it). A write of KICK_PROBE_BYTES, then at once cachestat(2) of
 * its pages: a kernel that kicks writeback inside the syscall left them
 * under writeback or already written and dropped; one that defers the kick
 * to its flusher left them dirty. More than half of them dirty is taken as
 * deferred. Where it cannot be told (no probe file, the write or cachestat
 * refused: cachestat is Linux 6.5, RWF_DONTCACHE 6.14) the kick is taken
 * as inline, what every kernel before 7.2 does: kick.c then still writes
 * buffered whenever kicked writes are slow. The write uses the real
 * syscall (it asks the filesystem), cachestat the engine's table (the
 * unit tests' seam). */
#define KICK_PROBE_BYTES (4u << 20)

static bool kick_probe(struct dcio_export *x, int dirfd, char *why,
		       size_t whylen)
{
	struct dcio_cachestat cs = { 0 };
	uint64_t pages;
	ssize_t r;
	char *buf;
	int fd, err;

	fd = probe_file(dirfd);
	if (fd < 0) {
		snprintf(why, whylen,
			 "probe skipped (no probe file: %s): taken as inline",
			 strerror(errno));
		return false;
	}
	buf = malloc(KICK_PROBE_BYTES);
	if (!buf) {
		close(fd);
		snprintf(why, whylen, "probe skipped (%s): taken as inline",
			 strerror(ENOMEM));
		return false;
	}
	memset(buf, 0x6b, KICK_PROBE_BYTES);
	struct iovec iov = { buf, KICK_PROBE_BYTES };

	r = pwritev2(fd, &iov, 1, 0, RWF_DONTCACHE);
	err = errno;
	if (r <= 0) {
		snprintf(
			why, whylen,
			"the probe's RWF_DONTCACHE write failed (%s): taken as inline",
			r < 0 ? strerror(err) : "nothing written");
		goto out;
	}
	pages = ((uint64_t)r + x->e->page - 1) / x->e->page;
	if (x->e->sys.cachestat(fd, 0, (uint64_t)r, &cs) != 0) {
		snprintf(
			why, whylen,
			"cachestat of the probe's pages failed (%s): taken as inline",
			strerror(errno));
		goto out;
	}
	snprintf(
		why, whylen,
		"probed: a %zd-byte RWF_DONTCACHE write left %llu of its %llu pages dirty (%llu under writeback, %llu cached): the kernel %s",
		r, (unsigned long long)cs.nr_dirty, (unsigned long long)pages,
		(unsigned long long)cs.nr_writeback,
		(unsigned long long)cs.nr_cache,
		cs.nr_dirty * 2 > pages ? "defers the writeback kick"
					: "kicks writeback in the syscall");
	free(buf);
	close(fd);
	return cs.nr_dirty * 2 > pages;
out:
	free(buf);
	close(fd);
	return false;
}

static void kick_decide(struct dcio_export *x, int dirfd)
{
	size_t n = sizeof(x->kick_why);

	switch (x->e->kick) {
	case DCIO_KICK_INLINE:
		snprintf(x->kick_why, n, "Dontcache_Kick = inline");
		x->kick_deferred = false;
		return;
	case DCIO_KICK_DEFERRED:
		snprintf(x->kick_why, n, "Dontcache_Kick = deferred");
		x->kick_deferred = true;
		return;
	default:
		break;
	}
	if (dirfd < 0) {
		snprintf(x->kick_why, n,
			 "no directory to probe: taken as inline");
		x->kick_deferred = false;
	} else if (!x->probed_wok) {
		snprintf(x->kick_why, n,
			 "no RWF_DONTCACHE writes on this filesystem");
		x->kick_deferred = false;
	} else {
		x->kick_deferred = kick_probe(x, dirfd, x->kick_why, n);
	}
}

bool dcio_export_kick_deferred(const struct dcio_export *x, char *why,
			       size_t whylen)
{
	if (whylen)
		snprintf(why, whylen, "%s", x->kick_why);
	return x->kick_deferred;
}

static bool uses_dontcache_writes(const struct dcio_export_params *p)
{
	return p->write_mode == DCIO_WRITE_DONTCACHE ||
	       p->write_mode == DCIO_WRITE_DIRECT;
}

int dcio_export_create(struct dcio_engine *e,
		       const struct dcio_export_params *p, const char *name,
		       int dirfd, struct dcio_export **out)
{
	if (!e || !p || !out || (unsigned int)p->write_mode >= DCIO_NR_WMODES ||
	    (unsigned int)p->read_mode > DCIO_READ_DIRECT ||
	    (unsigned int)p->flush_mode > DCIO_FLUSH_INLINE)
		return EINVAL;
	struct dcio_export *x = calloc(1, sizeof(*x));

	if (!x)
		return ENOMEM;
	x->e = e;
	x->p = *p;
	if (!XP(x, max_inflight_bytes))
		x->p.max_inflight_bytes = DCIO_DEF_INFLIGHT;
	snprintf(x->name, sizeof(x->name), "%s", name ? name : "");
	x->probed_wok = x->probed_rok = true;
	/* no probe file (read-only filesystem, no permission): assume support;
	 * the first EOPNOTSUPP switches the export over anyway */
	if (dirfd >= 0 && probe(x, dirfd) != 0)
		x->probe_failed = true;
	kick_decide(x, x->probe_failed ? -1 : dirfd);
	atomic_init(&x->wfallback, !x->probed_wok && uses_dontcache_writes(p));
	atomic_init(&x->rfallback,
		    !x->probed_rok && p->read_mode == DCIO_READ_DONTCACHE);
	atomic_init(&x->verifier_gen, 1);
	pthread_mutex_init(&x->mu, NULL);
	cond_init_mono(&x->cv);
	*out = x;
	return 0;
}

int dcio_export_update(struct dcio_export *x,
		       const struct dcio_export_params *p)
{
	if (!x || !p || (unsigned int)p->write_mode >= DCIO_NR_WMODES ||
	    (unsigned int)p->read_mode > DCIO_READ_DIRECT ||
	    (unsigned int)p->flush_mode > DCIO_FLUSH_INLINE)
		return EINVAL;
	/* files open their O_DIRECT fd at dcio_file_open only */
	if ((p->write_mode == DCIO_WRITE_DIRECT) !=
		    (XP(x, write_mode) == DCIO_WRITE_DIRECT) ||
	    (p->read_mode == DCIO_READ_DIRECT) !=
		    (XP(x, read_mode) == DCIO_READ_DIRECT))
		return EINVAL;
	pthread_mutex_lock(&x->mu);
	/* a filesystem that refused the probe's dontcache I/O: the new mode
	 * starts on the fallback (a fallback once taken is kept) */
	if (!x->probed_wok && uses_dontcache_writes(p))
		atomic_store(&x->wfallback, true);
	if (!x->probed_rok && p->read_mode == DCIO_READ_DONTCACHE)
		atomic_store(&x->rfallback, true);
	__atomic_store_n(&x->p.write_mode, p->write_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.read_mode, p->read_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.flush_mode, p->flush_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.max_inflight_bytes,
			 p->max_inflight_bytes ? p->max_inflight_bytes
					       : DCIO_DEF_INFLIGHT,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.inflight_wait_ms, p->inflight_wait_ms,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.flush_file_bytes, p->flush_file_bytes,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.flush_export_bytes, p->flush_export_bytes,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.flush_interval_ms, p->flush_interval_ms,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.caller_write_max, p->caller_write_max,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.stable_reply_ms, p->stable_reply_ms,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.cache_budget_bytes, p->cache_budget_bytes,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&x->p.kick_us_per_mib, p->kick_us_per_mib,
			 __ATOMIC_RELAXED);
	/* writers waiting for room see a raised bound at once */
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return 0;
}

void dcio_export_destroy(struct dcio_export *x)
{
	if (!x)
		return;
	count_wait_zero(&x->mu, &x->cv, &x->outstanding);
	pthread_cond_destroy(&x->cv);
	pthread_mutex_destroy(&x->mu);
	free(x);
}

bool dcio_export_fallback(const struct dcio_export *x)
{
	return atomic_load(&x->wfallback) || atomic_load(&x->rfallback);
}

const char *dcio_export_write_path(const struct dcio_export *x, char *why,
				   size_t whylen)
{
	bool fb = atomic_load(&x->wfallback);
	const char *cause =
		!x->probed_wok
			? "the filesystem refused the probe's RWF_DONTCACHE write at start"
			: "the filesystem refused a RWF_DONTCACHE write at run time";

	if (whylen)
		why[0] = '\0';
	switch (XP(x, write_mode)) {
	case DCIO_WRITE_DONTCACHE:
		if (fb) {
			snprintf(why, whylen, "fallback from dontcache: %s",
				 cause);
			return "dropbehind";
		}
		if (x->probe_failed)
			snprintf(
				why, whylen,
				"probe skipped (no probe file could be created): RWF_DONTCACHE assumed");
		return "dontcache";
	case DCIO_WRITE_DIRECT:
		if (fb)
			snprintf(why, whylen,
				 "unaligned parts as dropbehind: %s", cause);
		return "direct";
	case DCIO_WRITE_BUFFERED:
		return "buffered";
	default:
		return "dropbehind";
	}
}

const char *dcio_export_read_path(const struct dcio_export *x, char *why,
				  size_t whylen)
{
	if (whylen)
		why[0] = '\0';
	if (XP(x, read_mode) == DCIO_READ_DONTCACHE &&
	    atomic_load(&x->rfallback)) {
		snprintf(why, whylen,
			 "fallback from dontcache: the filesystem refused %s",
			 x->probed_rok
				 ? "a RWF_DONTCACHE read at run time"
				 : "the probe's RWF_DONTCACHE read at start");
		return "buffered";
	}
	return dcio_read_mode_name(XP(x, read_mode));
}

uint64_t dcio_export_verifier_gen(const struct dcio_export *x)
{
	return atomic_load(&x->verifier_gen);
}

uint64_t dcio_engine_verifier_gen(const struct dcio_engine *e)
{
	return atomic_load(&e->verifier_gen);
}

void dcio_engine_forget(struct dcio_engine *e)
{
	if (e)
		atomic_fetch_add(&e->verifier_gen, 1);
}
