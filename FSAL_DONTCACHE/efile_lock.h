/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The lock of an engine file (efile.c), without ganesha types so that the
 * unit test of its discipline (tests/unit/test_efile_lock.c) builds the
 * very same lock.
 *
 * I/O holds it for reading from finding the engine file open to handing
 * the request to the engine; that hand-off may wait for in-flight room (up
 * to the export's Inflight_Wait_Ms), and a synchronous write, COMMIT or
 * truncate runs under it. A close (ganesha's fd reclaim: MDCACHE's LRU
 * thread in 4.3, the fd reaper in 6.5 under the fd's work mutex; the last
 * NFSv4 CLOSE; a handle's release) holds it for writing from its decision
 * to its end, so that no WRITE is acknowledged between the two (the error
 * rule). glibc's default rwlock lets new readers in while a writer waits:
 * under a steady stream of WRITEs to one file its close waited as long as
 * they went on, and fd reclaim stopped with it. (Ganesha 6.5 makes every
 * lock it initializes without attributes writer-preferring; 4.3 leaves
 * glibc's default: the lock is now built the same on both.) Writer-
 * preferring, new I/O queues behind a waiting close, which then waits only
 * for the I/O already holding the lock: each at most Inflight_Wait_Ms in
 * the admission (then it is answered DELAY/JUKEBOX) or one synchronous
 * request. The I/O that
 * queued finds the engine file closed and opens it again (dc_efile_io).
 * Nonrecursive: no thread takes it twice for reading (a second read lock
 * behind a waiting writer would never be granted). */
#ifndef DC_EFILE_LOCK_H
#define DC_EFILE_LOCK_H

#include <pthread.h>

static inline void dc_io_lock_attr(pthread_rwlockattr_t *attr)
{
	pthread_rwlockattr_init(attr);
	pthread_rwlockattr_setkind_np(
		attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
}

#endif
