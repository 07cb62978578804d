// SPDX-License-Identifier: LGPL-3.0-or-later
/* Fault-test helpers: see ftlib.h. */
#include "ftlib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ft_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

bool ft_common_opt(struct nfsc_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'H':
		o->host = arg;
		return true;
	case 'p':
		o->nfsport = atoi(arg);
		return true;
	case 'M':
		o->mntport = atoi(arg);
		return true;
	case 'e':
		o->export = arg;
		return true;
	}
	return false;
}

int ft_connect(struct nfsc_conn *c, const struct nfsc_opts *o)
{
	return nfsc_connect(c, o, -1, -1, 10000);
}

int ft_lookup_path(struct nfsc_conn *c, const char *path, struct nfsc_fh *out)
{
	char buf[4096], *save = NULL, *tok;
	struct nfsc_fh cur = c->root;
	int st;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		struct nfsc_fh next;

		st = nfsc_lookup(c, &cur, tok, &next, NULL);
		if (st != NFS3_OK)
			return st;
		cur = next;
	}
	*out = cur;
	return NFS3_OK;
}

int ft_create(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	      struct nfsc_fh *out)
{
	int st = nfsc_create(c, dir, name, UNCHECKED, 0644, NULL, out, NULL);

	if (st == NFS3_OK && out->len == 0)
		st = nfsc_lookup(c, dir, name, out, NULL);
	return st;
}

int ft_mkdir(struct nfsc_conn *c, const struct nfsc_fh *dir, const char *name,
	     struct nfsc_fh *out)
{
	int st = nfsc_mkdir(c, dir, name, 0755, out, NULL);

	if ((st == NFS3_OK && out->len == 0) || st == NFS3ERR_EXIST)
		st = nfsc_lookup(c, dir, name, out, NULL);
	return st;
}

/* ---- pattern ---- */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t ft_seed(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	return mix64(h);
}

void ft_pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	while (i < len) {
		uint64_t o = off + i;
		uint64_t w = mix64(seed ^ (o >> 3) * 0x2545f4914f6cdd1dULL);
		unsigned b = (unsigned)(o & 7);

		if (b == 0 && len - i >= 8) {
			memcpy(p + i, &w,
			       8); /* little-endian host: same bytes as below */
			i += 8;
			continue;
		}
		p[i++] = (unsigned char)(w >> (8 * b));
	}
}

void ft_verf_hex(const char verf[8], char out[17])
{
	for (int i = 0; i < 8; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)verf[i]);
}

bool ft_verf_parse(const char *hex, char verf[8])
{
	for (int i = 0; i < 8; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		verf[i] = (char)v;
	}
	return true;
}
