/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* rpcc: ONC RPC calls over one TCP connection with record marking and
 * AUTH_SYS, encoded and decoded with libntirpc's XDR (no portmapper, no
 * retransmission: one call at a time, answered in order). The raw core of the
 * NFSv4 test clients (nfs4c.h); libnfs (nfsc.h) serves the NFSv3 ones.
 *
 * A call is rejected, or fails on the wire, or times out: rpcc_call returns
 * -1 and c->err says why; the connection is then dead (closed). */
#ifndef RPCC_H
#define RPCC_H

#include <stddef.h>
#include <stdint.h>

#include <rpc/xdr.h>

struct rpcc {
	int sock;
	uint32_t xid;
	uint32_t prog, vers;
	/* AUTH_SYS credential of every call: change between calls at will */
	uint32_t uid, gid;
	const char *machine;
	int timeout_ms;
	size_t bufsz;
	char *sbuf, *rbuf;
	char err[160];
};

/* TCP connection to host (IPv4 literal):port for program prog version vers;
 * bufsz bounds one call and one reply. Returns 0 or -1 (c->err). */
int rpcc_connect(struct rpcc *c, const char *host, int port, uint32_t prog,
		 uint32_t vers, size_t bufsz);
void rpcc_close(struct rpcc *c);

/* One call of procedure proc: args encoded by xargs, the accepted reply's
 * body decoded into res by xres (free it with xdr_free(xres, res)). Returns 0
 * or -1 (nothing to free then). */
int rpcc_call(struct rpcc *c, uint32_t proc, xdrproc_t xargs, void *args,
	      xdrproc_t xres, void *res);

#endif
