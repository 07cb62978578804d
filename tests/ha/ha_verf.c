// SPDX-License-Identifier: LGPL-3.0-or-later
/* ha_verf: the NFSv4.1 write verifier one server answers (tests/lib/nfs4c).
 * (The NFSv3 one: ft_writer's record, see verifier.sh; libnfs and libntirpc
 * headers do not mix in one program.)
 *
 * ha_verf [-H host] [-p port] -e EXPORT [-n NAME]
 *
 * OPEN (create) EXPORT/NAME, an UNSTABLE WRITE of 4 KiB, a COMMIT, CLOSE.
 * Prints
 *   ha_verf: v4_write=HEX v4_commit=HEX
 * exit 0 when every call succeeded and the WRITE and the COMMIT answered one
 * verifier, 1 otherwise, 2 on usage or connection errors.
 */
#include "nfs4c.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr,
		"usage: ha_verf [-H host] [-p port] -e EXPORT [-n NAME]\n");
	exit(2);
}

static void hex4(const verifier4 v, char out[17])
{
	for (int k = 0; k < NFS4_VERIFIER_SIZE; k++)
		snprintf(out + 2 * k, 3, "%02x", (unsigned char)v[k]);
}

int main(int argc, char **argv)
{
	struct nfs4c_opts o = NFS4C_OPTS_DEFAULT;
	const char *name = "ha_verf.v4";
	char wv[17] = "-", cv[17] = "-", owner[64], buf[4096];
	struct nfs4c c;
	struct nfs4c_file dir, f;
	struct nfs4c_wres wr;
	verifier4 verf;
	int opt, st;

	while ((opt = getopt(argc, argv, NFS4C_COMMON_OPTS "n:")) != -1) {
		if (opt == 'n')
			name = optarg;
		else if (!nfs4c_common_opt(&o, opt, optarg))
			usage();
	}
	if (o.export == NULL)
		usage();
	memset(buf, 'w', sizeof(buf));
	snprintf(owner, sizeof(owner), "ha_verf.%d", (int)getpid());
	if (nfs4c_connect(&c, o.host, o.port, 1, owner) != 0)
		return 2;
	st = nfs4c_lookup_dir(&c, o.export, &dir);
	if (st == NFS4_OK)
		st = nfs4c_open(&c, &dir, name, true, OPEN4_SHARE_ACCESS_BOTH,
				&f);
	if (st == NFS4_OK) {
		st = nfs4c_write(&c, &f, 0, buf, sizeof(buf), UNSTABLE4, &wr);
		if (st == NFS4_OK) {
			hex4(wr.verf, wv);
			st = nfs4c_commit(&c, &f, 0, 0, verf);
		}
		if (st == NFS4_OK)
			hex4(verf, cv);
		nfs4c_close_file(&c, &f);
	}
	if (st != NFS4_OK)
		fprintf(stderr, "ha_verf: %s: %s\n", name, nfs4c_st(st));
	nfs4c_close(&c);
	printf("ha_verf: v4_write=%s v4_commit=%s\n", wv, cv);
	if (st != NFS4_OK || strcmp(wv, cv) != 0)
		return 1;
	return 0;
}
