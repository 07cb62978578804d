// SPDX-License-Identifier: LGPL-3.0-or-later
/* libFuzzer target: FSAL_DONTCACHE wire-handle decoding (handle_codec.c).
 * 1. dc_fh_verify_wire / dc_fh_parse_host on arbitrary bytes: no crash, no out-of-bounds, and
 *    what they accept is consistent (a verified wire handle re-encodes to itself).
 * 2. Round trip: key | fsid_type | fsid_len | fh_type | fsid + kernel handle taken from the
 *    input -> wire form must verify;
 *    any one-byte change, truncation or extension must not.
 * Build: clang -fsanitize=fuzzer,address,undefined (tests/integration/fault_fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handle_codec.h"

static const uint8_t fixed_key[DC_KEY_LEN] = { 0x0f, 0x1e, 0x2d, 0x3c,
					       0x4b, 0x5a, 0x69, 0x78,
					       0x87, 0x96, 0xa5, 0xb4,
					       0xc3, 0xd2, 0xe1, 0xf0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_fh fh;
	uint8_t wire[DC_FH_WIRE_MAX + 8], again[DC_FH_WIRE_MAX + 8];
	int n;

	/* 1. arbitrary bytes (copied so ASan sees the exact extent) */
	{
		uint8_t *copy = malloc(size ? size : 1);

		memcpy(copy, data, size);
		n = dc_fh_verify_wire(copy, size, fixed_key);
		if (n >= 0) {
			/* only possible with a valid tag: must re-encode to the same bytes */
			if (dc_fh_parse_host(copy, (size_t)n, &fh) != 0)
				abort();
			if (dc_fh_to_wire(&fh, fixed_key, again,
					  sizeof(again)) != (int)size ||
			    memcmp(again, copy, size))
				abort();
		}
		if (dc_fh_parse_host(copy, size, &fh) == 0) {
			if (fh.len != size ||
			    dc_fh_kernel_len(&fh) + dc_fh_fsid_len(&fh) +
					    DC_FH_HDR !=
				    size ||
			    memcmp(fh.host, copy, size))
				abort();
			(void)dc_fh_type(&fh);
			(void)dc_fh_fsid_type(&fh);
			(void)dc_fh_fsid_bytes(&fh);
			(void)dc_fh_kernel_bytes(&fh);
		}
		free(copy);
	}

	/* 2. round trip and tamper */
	if (size >= DC_KEY_LEN + 4) {
		const uint8_t *key = data;
		int fsid_type = data[DC_KEY_LEN];
		unsigned int fsid_len = data[DC_KEY_LEN + 1] % 20;
		int type = data[DC_KEY_LEN + 2];
		const uint8_t *p = data + DC_KEY_LEN + 3;
		size_t rest = size - DC_KEY_LEN - 3, klen;
		int wl;

		if (fsid_len > rest)
			fsid_len = (unsigned int)rest;
		klen = rest - fsid_len;
		if (klen > DC_FH_MAX_PAYLOAD + 4)
			klen = DC_FH_MAX_PAYLOAD + 4;
		if (dc_fh_from_kernel(&fh, fsid_type, p, fsid_len, type,
				      p + fsid_len, (unsigned)klen) != 0) {
			if (klen >= 1 && fsid_len <= DC_FH_FSID_MAX &&
			    klen + fsid_len <= DC_FH_MAX_PAYLOAD)
				abort(); /* must fit */
			return 0;
		}
		klen += fsid_len; /* below: fsid and kernel handle together */
		wl = dc_fh_to_wire(&fh, key, wire, sizeof(wire));
		if (wl != (int)(DC_FH_HDR + klen + DC_FH_TAG) ||
		    wl > DC_FH_WIRE_MAX)
			abort();
		if (dc_fh_verify_wire(wire, (size_t)wl, key) !=
		    (int)(DC_FH_HDR + klen))
			abort();
		/* every single-byte change is rejected */
		for (int i = 0; i < wl; i++) {
			uint8_t flip = (uint8_t)(1 + (data[i % size] % 255));

			wire[i] ^= flip;
			if (dc_fh_verify_wire(wire, (size_t)wl, key) >= 0)
				abort();
			wire[i] ^= flip;
		}
		/* truncated and extended */
		for (int l = 0; l < wl; l++)
			if (dc_fh_verify_wire(wire, (size_t)l, key) >= 0)
				abort();
		if (wl < (int)sizeof(wire)) {
			wire[wl] = data[0];
			if (dc_fh_verify_wire(wire, (size_t)wl + 1, key) >= 0)
				abort();
		}
		/* another key */
		{
			uint8_t k2[DC_KEY_LEN];

			memcpy(k2, key, DC_KEY_LEN);
			k2[data[size - 1] % DC_KEY_LEN] ^= 0x5a;
			if (dc_fh_verify_wire(wire, (size_t)wl, k2) >= 0)
				abort();
		}
	}
	return 0;
}
