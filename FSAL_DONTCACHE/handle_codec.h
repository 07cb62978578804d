/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Wire handles of FSAL_DONTCACHE: pure code, no ganesha types.
 *
 * host form (the MDCACHE key: names one object on one filesystem):
 *   [version 1 = 2][fsid_type 1][fsid_len 1][fsid fsid_len]
 *   [fh_type 1][fh_len 1][f_handle fh_len]
 * wire form:  host form + [tag 16]   tag = SipHash-2-4-128(export key, host form)
 *
 * fsid is the filesystem's id as ganesha knows it (struct fsal_filesystem:
 * statfs's f_fsid for most, stable across restarts), f_handle comes from
 * name_to_handle_at(2) on that filesystem: both survive restarts, and two
 * filesystems' objects never share a key even where their kernel handles are
 * the same bytes (the root of every fresh ext4). The tag stops clients from
 * forging handles that open_by_handle_at(2) would resolve outside the export:
 * each export has its own key (dc_key_bind), so a handle minted by one export
 * is refused by another. Nothing in a wire handle is trusted until its tag
 * verified. Version 1 handles (no fsid, before 1.1) are refused.
 */
#ifndef DC_HANDLE_CODEC_H
#define DC_HANDLE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DC_FH_VERSION 2
/* the fixed bytes of the host form: version, fsid_type, fsid_len, fh_type,
 * fh_len */
#define DC_FH_HDR 5
#define DC_FH_TAG 16
#define DC_FH_FSID_MAX 16
/* ganesha's NFSv3 handle leaves 59 bytes to the FSAL (NFS3_FHSIZE 64). */
#define DC_FH_WIRE_MAX 59
#define DC_FH_HOST_MAX (DC_FH_WIRE_MAX - DC_FH_TAG)
/* fsid and kernel handle together */
#define DC_FH_MAX_PAYLOAD (DC_FH_HOST_MAX - DC_FH_HDR)
#define DC_KEY_LEN 16

struct dc_fh {
	uint8_t len; /* bytes used in host[] */
	uint8_t host[DC_FH_HOST_MAX];
};

static inline bool dc_fh_eq(const struct dc_fh *a, const struct dc_fh *b)
{
	return a->len == b->len && memcmp(a->host, b->host, a->len) == 0;
}

void dc_siphash128(const uint8_t key[DC_KEY_LEN], const void *msg, size_t len,
		   uint8_t out[16]);

/* Builds the host form from a filesystem id (fsid_len bytes, up to
 * DC_FH_FSID_MAX, of type fsid_type) and a kernel handle; -1 if it does not
 * fit or is empty. */
int dc_fh_from_kernel(struct dc_fh *fh, int fsid_type, const void *fsid,
		      unsigned int fsid_len, int fh_type, const void *f_handle,
		      unsigned int fh_len);
/* Writes the wire form; returns its length, or -1 if buf is too small. */
int dc_fh_to_wire(const struct dc_fh *fh, const uint8_t key[DC_KEY_LEN],
		  void *buf, size_t buflen);
/* Verifies a wire handle. Returns the host length (wire minus tag) or -1 for a
 * truncated, oversized, malformed or forged handle. */
int dc_fh_verify_wire(const void *wire, size_t len,
		      const uint8_t key[DC_KEY_LEN]);
/* Parses a host-form handle (already verified); -1 if malformed. */
int dc_fh_parse_host(const void *host, size_t len, struct dc_fh *out);
int dc_fh_fsid_type(const struct dc_fh *fh);
unsigned int dc_fh_fsid_len(const struct dc_fh *fh);
const uint8_t *dc_fh_fsid_bytes(const struct dc_fh *fh);
int dc_fh_type(const struct dc_fh *fh);
unsigned int dc_fh_kernel_len(const struct dc_fh *fh);
const uint8_t *dc_fh_kernel_bytes(const struct dc_fh *fh);

/* Where dc_key_load says which step failed and its errno (one line, no
 * newline): the module points it at ganesha's LogFullDebug; NULL (the unit
 * tests) says nothing. */
extern void (*dc_codec_debug)(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Loads the 16-byte secret from path, creating it (0600, from getrandom, the
 * directory fsynced) if it does not exist. Returns 0 or an errno: a file of
 * the wrong size is EINVAL; one not owned by root (the effective uid) or
 * with any group/other permission bit is EPERM. */
int dc_key_load(const char *path, uint8_t key[DC_KEY_LEN]);

/* The key that MACs one export's handles: SipHash of the export id and the
 * kernel handle of its root under the secret. Exports sharing a key file thus
 * still refuse each other's handles relabelled with their id. */
void dc_key_bind(const uint8_t secret[DC_KEY_LEN], uint16_t export_id,
		 const void *root_fh, size_t root_len, uint8_t key[DC_KEY_LEN]);

#endif
