// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_busy: load and races around a file's engine file (issue 17 items 3-5),
 * NFSv4.1 through tests/lib/nfs4c, NFSv3 through tests/lib/nfsc (ft_busy3.c).
 *
 * ft_busy [-H host] [-p nfsport] [-M mntport] -e EXPORT CMD ...
 *   (EXPORT: the export's path, also its NFSv4 pseudo path)
 *
 * writers4 [-n N] [-t SECS] [-b BYTES] NAME
 *   N NFSv4.1 clients (one session each) OPEN NAME (created) for WRITE and
 *   send UNSTABLE WRITEs of BYTES to it one after another for SECS seconds
 *   (offsets wrap at 32 WRITEs), then CLOSE. Prints
 *     writers4: writes=W delay=D errors=E max_write_ms=M
 *   (D: NFS4ERR_DELAY answers, E: any other failure); exit 0 when E is 0.
 *
 * sharedeny -l LOCAL NAME
 *   A share reservation taken by a stateless NFSv3 WRITE lasts until that
 *   WRITE ends (item 4). NAME (in the export's root, LOCAL its directory on
 *   the server, the mount point of its own filesystem) is written and
 *   committed over NFSv3; LOCAL's filesystem is frozen (FIFREEZE), so that
 *   the next NFSv3 WRITE of NAME blocks in the server; while it is in
 *   flight an NFSv4.1 OPEN of NAME for READ with deny WRITE must be
 *   NFS4ERR_SHARE_DENIED. After the thaw the WRITE must answer OK and the
 *   same OPEN must then be granted (no reservation left behind). One
 *   "ok"/"not ok" line per check, exit 0 when all passed.
 *
 * files3 create|commit [-n N] PREFIX
 *   create: N files PREFIX_<i> CREATEd (UNCHECKED) and written (4 KiB
 *   UNSTABLE) over NFSv3. commit: each LOOKed UP and COMMITted. Prints
 *     files3: <cmd> files=N failed=F
 *   exit 0 when F is 0.
 *
 * Exit 2 on usage or connection failure. */
#include "ft_busy3.h"
#include "nfs4c.h"
#include "tcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define NO_DELEG OPEN4_SHARE_ACCESS_WANT_NO_DELEG
#define MAX_WRITERS 64

static struct {
	const char *host;
	int nfsport, mntport;
	const char *export;
} g_o = { "127.0.0.1", 12049, 12050, NULL };
static int g_n = 16, g_secs = 20;
static uint32_t g_bytes = 256 << 10;
static const char *g_local;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ft_busy: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct b3 *open3(void)
{
	struct b3 *b =
		b3_open(g_o.host, g_o.nfsport, g_o.mntport, g_o.export, 120000);

	if (b == NULL)
		exit(2);
	return b;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ft_busy [-H host] [-p port] [-M mntport] -e EXPORT "
		"writers4 [-n N] [-t SECS] [-b BYTES] NAME |\n"
		"       sharedeny -l LOCAL NAME | files3 create|commit [-n N] "
		"PREFIX\n");
	exit(2);
}

static int connect4(struct nfs4c *c, struct nfs4c_file *dir, const char *tag)
{
	if (nfs4c_connect(c, g_o.host, g_o.nfsport, 1, tag) != 0)
		return -1;
	if (nfs4c_lookup_dir(c, g_o.export, dir) != NFS4_OK) {
		fprintf(stderr, "ft_busy: %s: LOOKUP of %s failed\n", tag,
			g_o.export);
		nfs4c_close(c);
		return -1;
	}
	return 0;
}

/* writers4 ---------------------------------------------------------------- */

static atomic_ullong a_writes, a_delay, a_errors, a_max_ms;
static const char *g_name;

struct w4 {
	int id;
	pthread_t t;
	int setup; /* 0 ok */
};

static void note_max(unsigned long long ms)
{
	unsigned long long cur = atomic_load(&a_max_ms);

	while (ms > cur && !atomic_compare_exchange_weak(&a_max_ms, &cur, ms))
		;
}

static void *writer4(void *arg)
{
	struct w4 *w = arg;
	struct nfs4c c;
	struct nfs4c_file dir, f;
	char tag[32];
	char *buf = malloc(g_bytes);
	uint64_t end, i = 0;
	int st;

	w->setup = -1;
	if (buf == NULL)
		return NULL;
	memset(buf, 'a' + w->id % 26, g_bytes);
	snprintf(tag, sizeof(tag), "ft_busy-w%d", w->id);
	if (connect4(&c, &dir, tag) != 0) {
		free(buf);
		return NULL;
	}
	st = nfs4c_open(&c, &dir, g_name, true,
			OPEN4_SHARE_ACCESS_WRITE | NO_DELEG, &f);
	if (st != NFS4_OK) {
		fprintf(stderr, "ft_busy: writer %d: OPEN %s: %s\n", w->id,
			g_name, nfs4c_st(st));
		nfs4c_close(&c);
		free(buf);
		return NULL;
	}
	w->setup = 0;
	end = now_ms() + (uint64_t)g_secs * 1000;
	while (now_ms() < end) {
		uint64_t t0 = now_ms();
		uint64_t off = ((i++ * MAX_WRITERS + w->id) % 32) * g_bytes;

		st = nfs4c_write(&c, &f, off, buf, g_bytes, UNSTABLE4, NULL);
		note_max(now_ms() - t0);
		if (st == NFS4_OK) {
			atomic_fetch_add(&a_writes, 1);
		} else if (st == NFS4ERR_DELAY) {
			atomic_fetch_add(&a_delay, 1);
		} else {
			atomic_fetch_add(&a_errors, 1);
			fprintf(stderr, "ft_busy: writer %d: WRITE: %s\n",
				w->id, nfs4c_st(st));
			if (st < 0)
				break;
		}
	}
	if (st >= 0)
		nfs4c_close_file(&c, &f);
	nfs4c_close(&c);
	free(buf);
	return NULL;
}

static int cmd_writers4(int argc, char **argv)
{
	static struct w4 w[MAX_WRITERS];
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "n:t:b:")) != -1) {
		switch (opt) {
		case 'n':
			g_n = atoi(optarg);
			break;
		case 't':
			g_secs = atoi(optarg);
			break;
		case 'b':
			g_bytes = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || g_n < 1 || g_n > MAX_WRITERS ||
	    g_bytes == 0 || g_bytes > (1u << 20))
		usage();
	g_name = argv[optind];
	for (int i = 0; i < g_n; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].t, NULL, writer4, &w[i]) != 0)
			die("pthread_create");
	}
	for (int i = 0; i < g_n; i++) {
		pthread_join(w[i].t, NULL);
		bad += w[i].setup != 0;
	}
	printf("writers4: writes=%llu delay=%llu errors=%llu max_write_ms=%llu "
	       "setup_failed=%d\n",
	       (unsigned long long)a_writes, (unsigned long long)a_delay,
	       (unsigned long long)a_errors, (unsigned long long)a_max_ms, bad);
	return bad ? 2 : a_errors ? 1 : 0;
}

/* sharedeny ---------------------------------------------------------------- */

struct inflight_write {
	struct b3 *b;
	atomic_int done;
	int st;
};

static void *slow_write(void *arg)
{
	struct inflight_write *iw = arg;

	iw->st = b3_write(iw->b, 0, 64 << 10);
	atomic_store(&iw->done, 1);
	return NULL;
}

struct inflight_open {
	struct nfs4c *c;
	struct nfs4c_file *dir, f;
	const char *name;
	atomic_int done;
	int st;
};

static int open_deny_write(struct nfs4c *c, struct nfs4c_file *dir,
			   const char *name, struct nfs4c_file *f);

static void *deny_open(void *arg)
{
	struct inflight_open *io = arg;

	io->st = open_deny_write(io->c, io->dir, io->name, &io->f);
	atomic_store(&io->done, 1);
	return NULL;
}

static int freeze(int fd, bool on)
{
	return ioctl(fd, on ? FIFREEZE : FITHAW, 0);
}

static int open_deny_write(struct nfs4c *c, struct nfs4c_file *dir,
			   const char *name, struct nfs4c_file *f)
{
	return nfs4c_open_deny(c, dir, name, false,
			       OPEN4_SHARE_ACCESS_READ | NO_DELEG,
			       OPEN4_SHARE_DENY_WRITE, f);
}

static int cmd_sharedeny(int argc, char **argv)
{
	struct b3 *b;
	struct nfs4c c4;
	struct nfs4c_file dir, f;
	struct inflight_write iw = { 0 };
	struct inflight_open io = { 0 };
	pthread_t t, to;
	int opt, st, mfd;
	bool early;
	const char *name;

	while ((opt = getopt(argc, argv, "l:")) != -1) {
		if (opt != 'l')
			usage();
		g_local = optarg;
	}
	if (optind != argc - 1 || g_local == NULL)
		usage();
	name = argv[optind];
	mfd = open(g_local, O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		die("open %s: %s", g_local, strerror(errno));
	b = open3();
	if (connect4(&c4, &dir, "ft_busy-share") != 0)
		die("NFSv4.1 session failed");

	st = b3_create_write(b, name, 4096);
	if (st == 0)
		st = b3_commit(b);
	if (st != 0)
		die("NFSv3 CREATE/WRITE/COMMIT of %s: %s", name, b3_st(st));

	/* an OPEN deny WRITE with no WRITE in flight is granted */
	st = open_deny_write(&c4, &dir, name, &f);
	tc_ok(st == NFS4_OK, "OPEN READ deny WRITE with nothing in flight: %s",
	      nfs4c_st(st));
	if (st == NFS4_OK)
		nfs4c_close_file(&c4, &f);

	if (freeze(mfd, true) != 0)
		die("FIFREEZE %s: %s", g_local, strerror(errno));
	iw.b = b;
	if (pthread_create(&t, NULL, slow_write, &iw) != 0) {
		freeze(mfd, false);
		die("pthread_create");
	}
	sleep(2); /* the WRITE reaches the server and blocks there */
	tc_ok(!atomic_load(&iw.done),
	      "the NFSv3 WRITE is in flight on the frozen filesystem");
	io.c = &c4;
	io.dir = &dir;
	io.name = name;
	if (pthread_create(&to, NULL, deny_open, &io) != 0) {
		freeze(mfd, false);
		die("pthread_create");
	}
	for (int i = 0; i < 50 && !atomic_load(&io.done); i++)
		usleep(100000);
	early = atomic_load(&io.done);
	if (early) {
		tc_ok(io.st == NFS4ERR_SHARE_DENIED,
		      "OPEN READ deny WRITE while an NFSv3 WRITE is in flight: "
		      "%s (want NFS4ERR_SHARE_DENIED)",
		      nfs4c_st(io.st));
		tc_ok(!atomic_load(&iw.done),
		      "the NFSv3 WRITE was still in flight when the OPEN was "
		      "answered");
	} else {
		/* FSAL_VFS 4.3 holds the object lock across its write: the
		 * OPEN waits for the WRITE to end, which is as good */
		printf("# the OPEN waits for the in-flight WRITE\n");
	}
	if (freeze(mfd, false) != 0)
		fprintf(stderr, "ft_busy: FITHAW %s: %s\n", g_local,
			strerror(errno));
	pthread_join(t, NULL);
	pthread_join(to, NULL);
	if (!early)
		tc_ok(io.st == NFS4_OK,
		      "the OPEN that waited is granted after the thaw: %s",
		      nfs4c_st(io.st));
	if (io.st == NFS4_OK)
		nfs4c_close_file(&c4, &io.f);
	tc_ok(iw.st == 0, "the NFSv3 WRITE answers after the thaw: %s",
	      b3_st(iw.st));

	st = open_deny_write(&c4, &dir, name, &f);
	tc_ok(st == NFS4_OK,
	      "OPEN READ deny WRITE after the WRITE ended: %s (no reservation "
	      "left behind)",
	      nfs4c_st(st));
	if (st == NFS4_OK) {
		/* and a stateless WRITE beside that open is refused */
		st = b3_write(b, 0, 4096);
		tc_ok(st != 0,
		      "an NFSv3 WRITE beside the deny-WRITE open is refused: %s",
		      b3_st(st));
		nfs4c_close_file(&c4, &f);
	}
	st = b3_write(b, 0, 4096);
	tc_ok(st == 0, "an NFSv3 WRITE after its CLOSE: %s", b3_st(st));
	nfs4c_close(&c4);
	b3_close(b);
	close(mfd);
	printf("sharedeny: checks=%d failed=%d\n", tc_checks, tc_failures);
	return tc_failures ? 1 : 0;
}

/* files3 ------------------------------------------------------------------- */

static int cmd_files3(int argc, char **argv)
{
	struct b3 *b;
	char name[256];
	int opt, failed = 0;
	bool create;
	const char *prefix;

	if (argc < 2)
		usage();
	create = strcmp(argv[1], "create") == 0;
	if (!create && strcmp(argv[1], "commit") != 0)
		usage();
	argc--;
	argv++;
	optind = 0;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			usage();
		g_n = atoi(optarg);
	}
	if (optind != argc - 1 || g_n < 1)
		usage();
	prefix = argv[optind];
	b = open3();
	for (int i = 0; i < g_n; i++) {
		int st;

		snprintf(name, sizeof(name), "%s_%d", prefix, i);
		st = create ? b3_create_write(b, name, 4096)
			    : b3_lookup_commit(b, name);
		if (st != 0) {
			if (failed++ < 5)
				fprintf(stderr, "ft_busy: %s %s: %s\n", argv[0],
					name, b3_st(st));
			if (st < 0)
				break;
		}
	}
	b3_close(b);
	printf("files3: %s files=%d failed=%d\n", argv[0], g_n, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	int opt;

	/* the options before the command only */
	while ((opt = getopt(argc, argv, "+H:p:M:e:")) != -1) {
		switch (opt) {
		case 'H':
			g_o.host = optarg;
			break;
		case 'p':
			g_o.nfsport = atoi(optarg);
			break;
		case 'M':
			g_o.mntport = atoi(optarg);
			break;
		case 'e':
			g_o.export = optarg;
			break;
		default:
			usage();
		}
	}
	if (g_o.export == NULL || optind >= argc)
		usage();
	argc -= optind;
	argv += optind;
	optind = 0;
	if (strcmp(argv[0], "writers4") == 0)
		return cmd_writers4(argc, argv);
	if (strcmp(argv[0], "sharedeny") == 0)
		return cmd_sharedeny(argc, argv);
	if (strcmp(argv[0], "files3") == 0)
		return cmd_files3(argc, argv);
	usage();
}
