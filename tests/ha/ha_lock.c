// SPDX-License-Identifier: LGPL-3.0-or-later
/* ha_lock: a POSIX-lock holder and a lock probe for tests/ha/reclaim_v41.sh,
 * run on a Linux NFSv4.1 client (a qemu guest) across a failover of the
 * server.
 *
 * ha_lock hold FILE SECS [RECLEN]
 *   opens FILE (created if missing), takes a write lock on the whole file
 *   (fcntl F_SETLKW), prints "locked", then for SECS seconds writes record i
 *   (RECLEN bytes, 4096 by default, a pattern of i) at i * RECLEN and
 *   fsyncs it, one line "w I MS" per record (MS: ms since the epoch when its
 *   fsync returned). At the end it reads every record back and prints
 *   ha_lock: writes=N max_gap_ms=G gap_end_ms=E bad=B errors=X
 *   (G: the longest time between two fsyncs returning, E: when that gap
 *   ended). Exit 0 when every write, fsync and read back succeeded and
 *   matched, 1 otherwise.
 * ha_lock check FILE N [RECLEN]
 *   reads records 0..N-1 of FILE (on the server's disk, after the run) and
 *   prints "ha_lock check: records=N bad=B"; exit 0 when all match.
 * ha_lock probe FILE
 *   opens FILE and tries a write lock on the whole file without waiting
 *   (F_SETLK). Prints "conflict ERRNO-NAME" and exits 0 when it is refused
 *   with EAGAIN or EACCES (someone holds it), "granted" and exits 1 when it
 *   is granted, exits 2 on any other error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void fill(char *buf, size_t len, uint64_t i)
{
	size_t k;

	for (k = 0; k < len; k++)
		buf[k] = (char)((i * 131 + k * 7 + (i >> 8)) & 0xff);
	if (len >= sizeof(i))
		memcpy(buf, &i, sizeof(i));
}

static int wrlock(int fd, int cmd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 0;
	return fcntl(fd, cmd, &fl);
}

static int probe(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (wrlock(fd, F_SETLK) == 0) {
		printf("granted\n");
		close(fd);
		return 1;
	}
	if (errno == EAGAIN || errno == EACCES) {
		printf("conflict %s\n", errno == EAGAIN ? "EAGAIN" : "EACCES");
		close(fd);
		return 0;
	}
	printf("F_SETLK: %s\n", strerror(errno));
	close(fd);
	return 2;
}

static int check(const char *path, uint64_t n, size_t reclen)
{
	char *buf = malloc(reclen), *rd = malloc(reclen);
	uint64_t i, bad = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf || !rd) {
		printf("open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		fill(buf, reclen, i);
		if (pread(fd, rd, reclen, (off_t)(i * reclen)) !=
			    (ssize_t)reclen ||
		    memcmp(buf, rd, reclen) != 0)
			bad++;
	}
	close(fd);
	printf("ha_lock check: records=%llu bad=%llu\n", (unsigned long long)n,
	       (unsigned long long)bad);
	return bad == 0 ? 0 : 1;
}

static int hold(const char *path, int secs, size_t reclen)
{
	char *buf = malloc(reclen), *rd = malloc(reclen);
	int64_t end, last, t, gap = 0, gap_end = 0;
	uint64_t n = 0, i, bad = 0, errs = 0;
	int fd;

	if (!buf || !rd)
		return 1;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (wrlock(fd, F_SETLKW) != 0) {
		printf("F_SETLKW: %s\n", strerror(errno));
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	last = now_ms();
	end = last + (int64_t)secs * 1000;
	while (now_ms() < end) {
		fill(buf, reclen, n);
		if (pwrite(fd, buf, reclen, (off_t)(n * reclen)) !=
			    (ssize_t)reclen ||
		    fsync(fd) != 0) {
			printf("e %llu %s\n", (unsigned long long)n,
			       strerror(errno));
			fflush(stdout);
			if (++errs > 5)
				break;
			continue;
		}
		t = now_ms();
		if (t - last > gap) {
			gap = t - last;
			gap_end = t;
		}
		last = t;
		printf("w %llu %lld\n", (unsigned long long)n, (long long)t);
		fflush(stdout);
		n++;
		usleep(100000);
	}
	for (i = 0; i < n; i++) {
		fill(buf, reclen, i);
		if (pread(fd, rd, reclen, (off_t)(i * reclen)) !=
			    (ssize_t)reclen ||
		    memcmp(buf, rd, reclen) != 0)
			bad++;
	}
	printf("ha_lock: writes=%llu max_gap_ms=%lld gap_end_ms=%lld bad=%llu errors=%llu\n",
	       (unsigned long long)n, (long long)gap, (long long)gap_end,
	       (unsigned long long)bad, (unsigned long long)errs);
	close(fd);
	return (bad == 0 && errs == 0 && n > 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "hold") == 0)
		return hold(argv[2], atoi(argv[3]),
			    argc > 4 ? (size_t)atol(argv[4]) : 4096);
	if (argc >= 4 && strcmp(argv[1], "check") == 0)
		return check(argv[2], strtoull(argv[3], NULL, 10),
			     argc > 4 ? (size_t)atol(argv[4]) : 4096);
	if (argc == 3 && strcmp(argv[1], "probe") == 0)
		return probe(argv[2]);
	fprintf(stderr,
		"usage: ha_lock hold FILE SECS [RECLEN] | check FILE N [RECLEN] | probe FILE\n");
	return 2;
}
