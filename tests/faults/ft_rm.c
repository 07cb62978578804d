// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_rm: one NFSv3 REMOVE of PATH (below the export's root), waiting up to
 * 300 s for the answer (the server may hold it: fault_reaper_rebind.sh).
 *   ft_rm [-H host] [-p port] [-M mntport] -e EXPORT PATH
 * Prints "remove PATH: STATUS"; exit 0 when the server answered OK, 1 on
 * another answer, 2 on usage or connection failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftlib.h"

int main(int argc, char **argv)
{
	struct nfsc_opts o = { .host = "127.0.0.1" };
	struct nfsc_conn c;
	struct nfsc_fh dir;
	char *path, *slash, *name;
	int opt, st;

	while ((opt = getopt(argc, argv, FT_COMMON_OPTS)) != -1)
		if (!ft_common_opt(&o, opt, optarg))
			goto usage;
	if (optind + 1 != argc || o.export == NULL)
		goto usage;
	path = strdup(argv[optind]);
	if (path == NULL)
		ft_die("out of memory");
	if (ft_connect(&c, &o) != 0)
		ft_die("connect: %s", c.err);
	c.timeout_ms = 300000;
	slash = strrchr(path, '/');
	if (slash != NULL) {
		*slash = '\0';
		name = slash + 1;
		st = ft_lookup_path(&c, path, &dir);
		if (st != 0)
			ft_die("lookup %s: %s", path, nfsc_st(st));
	} else {
		name = path;
		dir = c.root;
	}
	st = nfsc_remove(&c, &dir, name);
	printf("remove %s: %s\n", argv[optind], nfsc_st(st));
	nfsc_disconnect(&c);
	free(path);
	return st == 0 ? 0 : 1;
usage:
	fprintf(stderr,
		"usage: ft_rm [-H host] [-p port] [-M mntport] -e EXPORT PATH\n");
	return 2;
}
