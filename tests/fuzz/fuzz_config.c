// SPDX-License-Identifier: LGPL-3.0-or-later
/* libFuzzer target: config value parsing of the I/O engine (io/modes.c):
 * dcio_parse_write_mode / dcio_parse_read_mode / dcio_parse_flush_mode on arbitrary strings.
 * Accepted values must be exactly the documented names (case-insensitive) and round-trip
 * through the *_name functions; NULL and empty strings are refused.
 * Build: clang -fsanitize=fuzzer,address,undefined (tests/integration/fault_fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	enum dcio_write_mode w;
	enum dcio_read_mode r;
	enum dcio_flush_mode f;

	memcpy(s, data, size);
	s[size] = 0;
	if (dcio_parse_write_mode(s, &w) == 0) {
		const char *n = dcio_write_mode_name(w);

		if (!n || strcasecmp(n, s) ||
		    dcio_parse_write_mode(n, &w) != 0 ||
		    strcmp(dcio_write_mode_name(w), n))
			abort();
	}
	if (dcio_parse_read_mode(s, &r) == 0) {
		const char *n = dcio_read_mode_name(r);

		if (!n || strcasecmp(n, s) ||
		    dcio_parse_read_mode(n, &r) != 0 ||
		    strcmp(dcio_read_mode_name(r), n))
			abort();
	}
	if (dcio_parse_flush_mode(s, &f) == 0) {
		const char *n = dcio_flush_mode_name(f);

		if (!n || strcasecmp(n, s) ||
		    dcio_parse_flush_mode(n, &f) != 0 ||
		    strcmp(dcio_flush_mode_name(f), n))
			abort();
	}
	if (size == 0 && (dcio_parse_write_mode(s, &w) == 0 ||
			  dcio_parse_read_mode(s, &r) == 0 ||
			  dcio_parse_flush_mode(s, &f) == 0))
		abort();
	if (dcio_parse_write_mode(NULL, &w) == 0 ||
	    dcio_parse_read_mode(NULL, &r) == 0 ||
	    dcio_parse_flush_mode(NULL, &f) == 0)
		abort();
	/* out-of-range enum values must not crash the name functions */
	(void)dcio_write_mode_name((enum dcio_write_mode)(size % 7));
	(void)dcio_read_mode_name((enum dcio_read_mode)(size % 5));
	(void)dcio_flush_mode_name((enum dcio_flush_mode)(size % 4));
	free(s);
	return 0;
}
