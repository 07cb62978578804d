// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_busy's NFSv3 side (see ft_busy3.h). */
#include "ft_busy3.h"
#include "ftlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct b3 {
	struct nfsc_conn c;
	struct nfsc_fh fh; /* the current file */
};

struct b3 *b3_open(const char *host, int nfsport, int mntport,
		   const char *export, int timeout_ms)
{
	struct nfsc_opts o = { host, nfsport, mntport, export };
	struct b3 *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	if (ft_connect(&b->c, &o) != 0) {
		fprintf(stderr, "ft_busy: NFSv3: %s\n", b->c.err);
		free(b);
		return NULL;
	}
	b->c.timeout_ms = timeout_ms;
	return b;
}

void b3_close(struct b3 *b)
{
	nfsc_disconnect(&b->c);
	free(b);
}

const char *b3_st(int st)
{
	return nfsc_st(st);
}

static int write_at(struct b3 *b, uint64_t off, uint32_t len)
{
	char *buf = malloc(len ? len : 1);
	int st;

	if (buf == NULL)
		return -1;
	memset(buf, 'w', len);
	st = nfsc_write(&b->c, &b->fh, off, buf, len, UNSTABLE, NULL, NULL,
			NULL);
	free(buf);
	return st;
}

int b3_create_write(struct b3 *b, const char *name, uint32_t len)
{
	int st = ft_create(&b->c, &b->c.root, name, &b->fh);

	return st == NFS3_OK ? write_at(b, 0, len) : st;
}

int b3_write(struct b3 *b, uint64_t off, uint32_t len)
{
	return write_at(b, off, len);
}

int b3_commit(struct b3 *b)
{
	return nfsc_commit(&b->c, &b->fh, 0, 0, NULL);
}

int b3_lookup_commit(struct b3 *b, const char *name)
{
	int st = nfsc_lookup(&b->c, &b->c.root, name, &b->fh, NULL);

	return st == NFS3_OK ? b3_commit(b) : st;
}
