// SPDX-License-Identifier: LGPL-3.0-or-later
/* NFSv3 as a chosen caller (AUTH_SYS uid/gid), for the writes-as-the-caller
 * scenario (ascaller.sh). Prints one summary line; the script judges it.
 *
 * usage:
 *   it_caller3 -e EXPORT -u UID -g GID fill NAME MiB
 *       CREATE UNCHECKED NAME (0644) in the export's root, then 1 MiB
 *       UNSTABLE WRITEs until MiB are written or one fails, then COMMIT:
 *       "fill written=BYTES status=ST at=write|commit|none"; with -r a
 *       READ of 4 KiB before each WRITE (the module sends a WRITE over
 *       64 KiB after a READ to its engine threads: engine_pace_write)
 *   it_caller3 -e EXPORT -u UID -g GID poke NAME [KiB]
 *       LOOKUP NAME, one UNSTABLE WRITE at 0 of 8 bytes (or KiB KiB),
 *       starting "written!", then a COMMIT: "poke status=ST"
 *   it_caller3 -e EXPORT -u UID -g GID trunc NAME SIZE
 *       LOOKUP NAME, SETATTR size SIZE: "trunc status=ST"
 *   it_caller3 -e EXPORT -u UID -g GID mkdir NAME
 *       MKDIR NAME (0755) in the export's root: "mkdir status=ST"
 * -G GID[,GID...] sends those auxiliary groups in the AUTH_SYS credential
 * (none by default). */
#include "itlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024u * 1024u)

static int uid = -1, gid = -1;
static uint32_t aux[16];
static uint32_t naux;
static bool read_first;

static void opt(int c, const char *arg)
{
	if (c == 'u') {
		uid = atoi(arg);
	} else if (c == 'g') {
		gid = atoi(arg);
	} else if (c == 'G') {
		char *end = NULL;

		for (const char *p = arg; *p && naux < 16; p = end) {
			aux[naux++] = (uint32_t)strtoul(p, &end, 10);
			if (end == p)
				break;
			if (*end == ',')
				end++;
		}
	} else if (c == 'r') {
		read_first = true;
	}
}

int main(int argc, char **argv)
{
	struct it_opts o;
	struct nfsc_conn c;
	struct nfsc_fh fh;
	char verf[8] = { 0 };
	int i = it_parse(argc, argv, &o, "u:g:G:r", opt), st;

	if (argc - i < 2 || uid < 0 || gid < 0) {
		fprintf(stderr,
			"usage: it_caller3 -e EXPORT -u UID -g GID [-r] fill NAME MiB | poke NAME\n");
		return 2;
	}
	if (it_connect(&c, &o, uid, gid) != 0)
		return 1;
	if (naux) {
		struct AUTH *a = libnfs_authunix_create("it_caller3", uid, gid,
							naux, aux);

		if (!a) {
			fprintf(stderr, "it_caller3: no AUTH_SYS credential\n");
			return 1;
		}
		rpc_set_auth(c.rpc, a);
	}
	if (strcmp(argv[i], "fill") == 0 && argc - i >= 3) {
		uint64_t want = (uint64_t)atoi(argv[i + 2]) * MiB, done = 0;
		char *buf = malloc(MiB);
		const char *at = "none";

		memset(buf, 0x5a, MiB);
		st = nfsc_create(&c, &c.root, argv[i + 1], UNCHECKED, 0644,
				 verf, &fh, NULL);
		if (st != 0) {
			printf("fill written=0 status=%s at=create\n",
			       nfsc_st(st));
			return 1;
		}
		while (done < want) {
			uint32_t count = 0, got;
			stable_how how;
			bool eof;

			if (read_first) {
				st = nfsc_read(&c, &fh, done ? done - 4096 : 0,
					       4096, buf, &got, &eof);
				if (st != 0) {
					at = "read";
					break;
				}
				memset(buf, 0x5a, 4096);
			}
			st = nfsc_write(&c, &fh, done, buf, MiB, UNSTABLE,
					&count, &how, verf);
			if (st != 0) {
				at = "write";
				break;
			}
			done += count;
		}
		if (st == 0) {
			st = nfsc_commit(&c, &fh, 0, 0, verf);
			if (st != 0)
				at = "commit";
		}
		printf("fill written=%llu status=%s at=%s\n",
		       (unsigned long long)done, nfsc_st(st), at);
		free(buf);
		nfsc_disconnect(&c);
		return st == -1;
	}
	if (strcmp(argv[i], "poke") == 0) {
		uint32_t count = 0,
			 len = argc - i > 2 ? (uint32_t)atoi(argv[i + 2]) * 1024
					    : 8;
		stable_how how;
		char *buf = malloc(len);

		memset(buf, 0x5a, len);
		memcpy(buf, "written!", 8);
		st = nfsc_lookup(&c, &c.root, argv[i + 1], &fh, NULL);
		if (st == 0)
			st = nfsc_write(&c, &fh, 0, buf, len, UNSTABLE, &count,
					&how, verf);
		free(buf);
		if (st == 0)
			st = nfsc_commit(&c, &fh, 0, 0, verf);
		printf("poke status=%s\n", nfsc_st(st));
		nfsc_disconnect(&c);
		return st == -1;
	}
	if (strcmp(argv[i], "trunc") == 0 && argc - i >= 3) {
		sattr3 sa;

		nfsc_sattr_size(&sa, strtoull(argv[i + 2], NULL, 0));
		st = nfsc_lookup(&c, &c.root, argv[i + 1], &fh, NULL);
		if (st == 0)
			st = nfsc_setattr(&c, &fh, &sa);
		printf("trunc status=%s\n", nfsc_st(st));
		nfsc_disconnect(&c);
		return st == -1;
	}
	if (strcmp(argv[i], "mkdir") == 0) {
		st = nfsc_mkdir(&c, &c.root, argv[i + 1], 0755, NULL, NULL);
		printf("mkdir status=%s\n", nfsc_st(st));
		nfsc_disconnect(&c);
		return st == -1;
	}
	fprintf(stderr, "it_caller3: unknown command %s\n", argv[i]);
	return 2;
}
