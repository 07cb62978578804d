// SPDX-License-Identifier: LGPL-3.0-or-later
/* Mode names for config values: parse (case-insensitive) and print. */
#include <errno.h>
#include <strings.h>

#include "dcio.h"

static const char *const wnames[] = { "dontcache", "buffered", "direct",
				      "dropbehind" };
static const char *const rnames[] = { "buffered", "dontcache", "direct" };
static const char *const fnames[] = { "coalesced", "inline" };
static const char *const knames[] = { "auto", "inline", "deferred" };

static int lookup(const char *s, const char *const *names, int n)
{
	if (!s)
		return -1;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	return -1;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

int dcio_parse_write_mode(const char *s, enum dcio_write_mode *out)
{
	int i = lookup(s, wnames, N(wnames));

	if (i < 0)
		return EINVAL;
	*out = (enum dcio_write_mode)i;
	return 0;
}

int dcio_parse_read_mode(const char *s, enum dcio_read_mode *out)
{
	int i = lookup(s, rnames, N(rnames));

	if (i < 0)
		return EINVAL;
	*out = (enum dcio_read_mode)i;
	return 0;
}

int dcio_parse_flush_mode(const char *s, enum dcio_flush_mode *out)
{
	int i = lookup(s, fnames, N(fnames));

	if (i < 0)
		return EINVAL;
	*out = (enum dcio_flush_mode)i;
	return 0;
}

const char *dcio_write_mode_name(enum dcio_write_mode m)
{
	return (unsigned int)m < (unsigned int)N(wnames) ? wnames[m]
							 : "unknown";
}

const char *dcio_read_mode_name(enum dcio_read_mode m)
{
	return (unsigned int)m < (unsigned int)N(rnames) ? rnames[m]
							 : "unknown";
}

const char *dcio_flush_mode_name(enum dcio_flush_mode m)
{
	return (unsigned int)m < (unsigned int)N(fnames) ? fnames[m]
							 : "unknown";
}

int dcio_parse_kick(const char *s, enum dcio_kick *out)
{
	int i = lookup(s, knames, N(knames));

	if (i < 0)
		return EINVAL;
	*out = (enum dcio_kick)i;
	return 0;
}

const char *dcio_kick_name(enum dcio_kick k)
{
	return (unsigned int)k < (unsigned int)N(knames) ? knames[k]
							 : "unknown";
}
