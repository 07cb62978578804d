// SPDX-License-Identifier: LGPL-3.0-or-later
/* ha_reclaim: an NFSv4.1 client (tests/lib/nfs4c) that holds an open across
 * a restart of its server and reclaims it, or probes what a server in grace
 * answers (tests/ha/rados_cluster.sh).
 *
 * ha_reclaim hold [-H host] [-p port] -e EXPORT -n NAME -o OWNER [-t SECS]
 *		   [-R SECS]
 *   as client OWNER: OPEN (create) EXPORT/NAME for read and write, a FILE_SYNC
 *   WRITE of 4 KiB of 'a' at 0; prints "ha_reclaim: held"; then renews its
 *   lease (SEQUENCE) every second until the server is gone (the connection
 *   fails; at most -t SECS, default 120). Then connects again every 0.2 s
 *   (at most -R SECS, default 120) as the same OWNER without
 *   RECLAIM_COMPLETE, reclaims the open (OPEN CLAIM_PREVIOUS of the file's
 *   handle), sends RECLAIM_COMPLETE, WRITEs 4 KiB of 'b' at 4096 (FILE_SYNC)
 *   with the reclaimed stateid, READs both blocks back, CLOSEs. Prints
 *   "ha_reclaim: lost_ms=N back_ms=N reclaim=ST reclaim_complete=ST
 *    write=ST data=ok|bad" (ms from the start of the run, back: connected
 *   again); exit 0 when every step was NFS4_OK and the data matched.
 * ha_reclaim probe [-H host] [-p port] -e EXPORT -n NAME -o OWNER [-c]
 *   a new client OWNER: OPEN (create) EXPORT/NAME (CLAIM_NULL: new state),
 *   CLOSE; or with -c, without RECLAIM_COMPLETE, OPEN CLAIM_PREVIOUS of the
 *   existing EXPORT/NAME (a reclaim by a client the server never had).
 *   Prints "ha_reclaim: open=ST" or "ha_reclaim: reclaim=ST"; exit 0 when it
 *   was NFS4_OK, 1 otherwise, 2 on usage or connection errors.
 */
#include "nfs4c.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096

static void usage(void)
{
	fprintf(stderr,
		"usage: ha_reclaim hold|probe [-H host] [-p port] -e EXPORT "
		"-n NAME -o OWNER [-t SECS] [-R SECS] [-c]\n");
	exit(2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* true when host:port accepts a TCP connection (quietly: the server may be
 * down for a while) */
static bool port_open(const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* the file's handle: PUTROOTFH, LOOKUP of every component of EXPORT/NAME */
static int lookup_file(struct nfs4c *c, const char *export, const char *name,
		       struct nfs4c_file *f)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", export, name);
	return nfs4c_lookup_dir(c, path, f);
}

static int probe(struct nfs4c_opts *o, const char *name, const char *owner,
		 bool claim_previous)
{
	struct nfs4c c;
	struct nfs4c_file dir, f;
	int st;

	if (nfs4c_connect_owner(&c, o->host, o->port, 1, owner,
				!claim_previous) != 0)
		return 2;
	if (claim_previous) {
		st = lookup_file(&c, o->export, name, &f);
		if (st == NFS4_OK)
			st = nfs4c_open_reclaim(&c, &f,
						OPEN4_SHARE_ACCESS_BOTH);
		printf("ha_reclaim: reclaim=%s\n", nfs4c_st(st));
	} else {
		st = nfs4c_lookup_dir(&c, o->export, &dir);
		if (st == NFS4_OK)
			st = nfs4c_open(&c, &dir, name, true,
					OPEN4_SHARE_ACCESS_BOTH, &f);
		printf("ha_reclaim: open=%s\n", nfs4c_st(st));
	}
	if (st == NFS4_OK)
		nfs4c_close_file(&c, &f);
	nfs4c_close(&c);
	return st == NFS4_OK ? 0 : 1;
}

static int hold(struct nfs4c_opts *o, const char *name, const char *owner,
		int secs, int resecs)
{
	static char a[BLK], b[BLK], back[2 * BLK];
	struct nfs4c c;
	struct nfs4c_file dir, f;
	long long t0 = now_ms(), lost = -1, up = -1, end;
	int st, rst = -1, rcst = -1, wst = -1;
	bool data_ok = false;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	if (nfs4c_connect_owner(&c, o->host, o->port, 1, owner, true) != 0)
		return 2;
	st = nfs4c_lookup_dir(&c, o->export, &dir);
	if (st == NFS4_OK)
		st = nfs4c_open(&c, &dir, name, true, OPEN4_SHARE_ACCESS_BOTH,
				&f);
	if (st == NFS4_OK)
		st = nfs4c_write(&c, &f, 0, a, BLK, FILE_SYNC4, NULL);
	if (st != NFS4_OK) {
		fprintf(stderr, "ha_reclaim: open/write of %s: %s\n", name,
			nfs4c_st(st));
		nfs4c_close(&c);
		return 1;
	}
	printf("ha_reclaim: held\n");
	fflush(stdout);

	/* renew until the server is gone */
	for (end = t0 + secs * 1000LL; now_ms() < end;) {
		sleep_ms(1000);
		st = nfs4c_renew(&c);
		if (st == -1) {
			lost = now_ms() - t0;
			break;
		}
		if (st != NFS4_OK) {
			fprintf(stderr, "ha_reclaim: SEQUENCE: %s\n",
				nfs4c_st(st));
			nfs4c_close(&c);
			return 1;
		}
	}
	nfs4c_close(&c);
	if (lost < 0) {
		fprintf(stderr, "ha_reclaim: the server was never lost\n");
		return 1;
	}

	/* the same client again, once the server listens */
	for (end = now_ms() + resecs * 1000LL; now_ms() < end; sleep_ms(200)) {
		if (!port_open(o->host, o->port))
			continue;
		if (nfs4c_connect_owner(&c, o->host, o->port, 1, owner,
					false) == 0) {
			up = now_ms() - t0;
			break;
		}
	}
	if (up < 0) {
		fprintf(stderr, "ha_reclaim: no session within %d s\n", resecs);
		return 1;
	}
	/* the handle from before the restart; the server may still be busy */
	for (int i = 0; i < 50; i++) {
		rst = nfs4c_open_reclaim(&c, &f, OPEN4_SHARE_ACCESS_BOTH);
		if (rst != NFS4ERR_DELAY)
			break;
		sleep_ms(200);
	}
	if (rst == NFS4_OK) {
		rcst = nfs4c_reclaim_complete(&c);
		wst = nfs4c_write(&c, &f, BLK, b, BLK, FILE_SYNC4, NULL);
		if (wst == NFS4_OK &&
		    nfs4c_read_range(&c, &f, 0, back, sizeof(back)) == NFS4_OK)
			data_ok = memcmp(back, a, BLK) == 0 &&
				  memcmp(back + BLK, b, BLK) == 0;
		nfs4c_close_file(&c, &f);
	}
	nfs4c_close(&c);
	printf("ha_reclaim: lost_ms=%lld back_ms=%lld reclaim=%s "
	       "reclaim_complete=%s write=%s data=%s\n",
	       lost, up, nfs4c_st(rst), nfs4c_st(rcst), nfs4c_st(wst),
	       data_ok ? "ok" : "bad");
	return rst == NFS4_OK && rcst == NFS4_OK && wst == NFS4_OK && data_ok
		       ? 0
		       : 1;
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	const char *name = NULL, *owner = NULL, *mode;
	int opt, secs = 120, resecs = 120;
	bool claim_previous = false;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "n:o:t:R:c")) !=
	       -1) {
		switch (opt) {
		case 'n':
			name = optarg;
			break;
		case 'o':
			owner = optarg;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'R':
			resecs = atoi(optarg);
			break;
		case 'c':
			claim_previous = true;
			break;
		default:
			if (!nfs4c_common_opt(&o, opt, optarg))
				usage();
		}
	}
	if (o.export == NULL || name == NULL || owner == NULL)
		usage();
	if (strcmp(mode, "hold") == 0)
		return hold(&o, name, owner, secs, resecs);
	if (strcmp(mode, "probe") == 0)
		return probe(&o, name, owner, claim_previous);
	usage();
	return 2;
}
