// SPDX-License-Identifier: LGPL-3.0-or-later
/* NFSv4.2 as a chosen caller (nfs4c, AUTH_SYS uid/gid), for the
 * writes-as-the-caller scenario (ascaller.sh). Prints one summary line; the
 * script judges it.
 *
 * usage: it_caller4 -e EXPORT -u UID -g GID CMD NAME [ARG]
 *   fill NAME MiB    OPEN CREATE (UNCHECKED, 0644) for write, 1 MiB UNSTABLE
 *                    WRITEs until MiB are written or one fails, COMMIT, CLOSE:
 *                    "fill written=BYTES status=ST at=write|commit|none"
 *   poke NAME [KiB]  OPEN for write, one UNSTABLE WRITE at 0 of 8 bytes (or
 *                    KiB KiB) starting "written!", COMMIT, CLOSE:
 *                    "poke status=ST"
 *   alloc NAME MiB   OPEN CREATE for write, ALLOCATE [0, MiB), CLOSE:
 *                    "alloc status=ST" */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4c.h"

#define MiB (1024u * 1024u)

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	struct nfs4c c;
	struct nfs4c_file d, f;
	int uid = -1, gid = -1, opt, st;
	const char *at = "none";

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "u:g:")) != -1) {
		if (opt == 'u')
			uid = atoi(optarg);
		else if (opt == 'g')
			gid = atoi(optarg);
		else if (!nfs4c_common_opt(&o, opt, optarg))
			return 2;
	}
	if (argc - optind < 2 || uid < 0 || gid < 0 || !o.export) {
		fprintf(stderr,
			"usage: it_caller4 -e EXPORT -u UID -g GID fill|poke|alloc NAME [MiB]\n");
		return 2;
	}
	const char *cmd = argv[optind], *name = argv[optind + 1];
	/* MiB for fill and alloc, KiB for poke */
	uint64_t mib = argc - optind > 2 ? (uint64_t)atoi(argv[optind + 2]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (nfs4c_connect(&c, o.host, o.port, 2, "it_caller4") != 0)
		return 1;
	c.r.uid = (uint32_t)uid;
	c.r.gid = (uint32_t)gid;
	st = nfs4c_lookup_dir(&c, o.export, &d);
	if (st == 0)
		st = nfs4c_open(&c, &d, name, strcmp(cmd, "poke") != 0,
				OPEN4_SHARE_ACCESS_WRITE, &f);
	if (st != 0) {
		printf("%s written=0 status=%s at=open\n", cmd, nfs4c_st(st));
		nfs4c_close(&c);
		return st == -1;
	}
	if (strcmp(cmd, "fill") == 0) {
		uint64_t done = 0;
		char *buf = malloc(MiB);

		memset(buf, 0x5a, MiB);
		while (done < mib * MiB) {
			struct nfs4c_wres wr;

			st = nfs4c_write(&c, &f, done, buf, MiB, UNSTABLE4,
					 &wr);
			if (st != 0) {
				at = "write";
				break;
			}
			done += wr.count;
		}
		if (st == 0) {
			st = nfs4c_commit(&c, &f, 0, 0, NULL);
			if (st != 0)
				at = "commit";
		}
		printf("fill written=%llu status=%s at=%s\n",
		       (unsigned long long)done, nfs4c_st(st), at);
		free(buf);
	} else if (strcmp(cmd, "poke") == 0) {
		uint32_t len = mib ? (uint32_t)mib * 1024 : 8;
		char *buf = malloc(len);

		memset(buf, 0x5a, len);
		memcpy(buf, "written!", 8);
		st = nfs4c_write(&c, &f, 0, buf, len, UNSTABLE4, NULL);
		free(buf);
		if (st == 0)
			st = nfs4c_commit(&c, &f, 0, 0, NULL);
		printf("poke status=%s\n", nfs4c_st(st));
	} else if (strcmp(cmd, "alloc") == 0) {
		st = nfs4c_falloc(&c, &f, true, 0, mib * MiB);
		printf("alloc status=%s\n", nfs4c_st(st));
	} else {
		fprintf(stderr, "it_caller4: unknown command %s\n", cmd);
		st = -1;
	}
	nfs4c_close_file(&c, &f);
	nfs4c_close(&c);
	return st == -1;
}
