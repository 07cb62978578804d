// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_quota: an over-quota (or full-filesystem) client hammering one file.
 *
 * ft_quota [-H host -p nfsport -M mntport] -e export [-f name] [-n writes] [-u uid]
 * Creates <name> (default quota_file) as uid (-u, AUTH_SYS uid = gid; default: no AUTH_SYS
 * ids), then sends <writes> (default 20000) 1-byte UNSTABLE WRITEs at descending even
 * offsets 2 x (writes - i), one at a time, and one COMMIT of the whole file. Prints
 *   ft_quota: writes=N ok=N nospc=N dquot=N other=N commit=STATUS ms=N us_per_write=N
 * exit 0 when every WRITE got an answer, 2 on setup failure.
 */
#include "ftlib.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct nfsc_opts o = { "127.0.0.1", 12049, 12050, NULL };
	struct nfsc_conn c;
	struct nfsc_fh file;
	const char *name = "quota_file";
	long n = 20000, ok = 0, nospc = 0, dquot = 0, other = 0;
	int opt, st, uid = -1, last_other = 0;
	uint32_t cnt;
	uint64_t t0, ms;
	char verf[8];
	unsigned char byte = 'q';

	while ((opt = getopt(argc, argv, FT_COMMON_OPTS "f:n:u:")) != -1)
		if (opt == 'f')
			name = optarg;
		else if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'u')
			uid = atoi(optarg);
		else if (!ft_common_opt(&o, opt, optarg))
			ft_die("usage: ft_quota -e export [-f name] [-n writes] [-u uid]");
	if (!o.export || n <= 0)
		ft_die("ft_quota: -e export required, -n > 0");
	if (nfsc_connect(&c, &o, uid, uid, 10000) != 0)
		ft_die("ft_quota: connect: %s", c.err);
	st = ft_create(&c, &c.root, name, &file);
	if (st != NFS3_OK)
		ft_die("ft_quota: create %s: %s", name, nfsc_st(st));
	t0 = nfsc_now_ms();
	for (long i = 0; i < n; i++) {
		st = nfsc_write(&c, &file, 2 * (uint64_t)(n - i), &byte, 1,
				UNSTABLE, &cnt, NULL, verf);
		if (st == NFS3_OK)
			ok++;
		else if (st == NFS3ERR_NOSPC)
			nospc++;
		else if (st == NFS3ERR_DQUOT)
			dquot++;
		else {
			other++;
			last_other = st;
			if (st < 0)
				ft_die("ft_quota: WRITE %ld: %s", i, c.err);
		}
	}
	ms = nfsc_now_ms() - t0;
	st = nfsc_commit(&c, &file, 0, 0, verf);
	printf("ft_quota: writes=%ld ok=%ld nospc=%ld dquot=%ld other=%ld last_other=%s commit=%s ms=%llu us_per_write=%llu\n",
	       n, ok, nospc, dquot, other,
	       last_other ? nfsc_st(last_other) : "none", nfsc_st(st),
	       (unsigned long long)ms,
	       (unsigned long long)(ms * 1000 / (uint64_t)n));
	nfsc_disconnect(&c);
	return 0;
}
