// SPDX-License-Identifier: LGPL-3.0-or-later
/* See rpcc.h. */
#include "rpcc.h"

#include <rpc/xdr_inline.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RPCC_TIMEOUT_MS 60000
#define RPC_CALL 0
#define RPC_REPLY 1
#define RPC_VERS 2
#define MSG_ACCEPTED 0
#define ACCEPT_SUCCESS 0
#define FLAVOR_SYS 1
#define LAST_FRAG 0x80000000u

static int fail(struct rpcc *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct rpcc *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	rpcc_close(c);
	return -1;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int recv_all(int fd, char *p, size_t n, int timeout_ms)
{
	while (n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, timeout_ms) != 1)
			return -1;
		r = recv(fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int rpcc_connect(struct rpcc *c, const char *host, int port, uint32_t prog,
		 uint32_t vers, size_t bufsz)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int one = 1;

	c->sock = -1;
	c->prog = prog;
	c->vers = vers;
	c->bufsz = bufsz;
	if (!c->machine)
		c->machine = "rpcc";
	if (!c->timeout_ms)
		c->timeout_ms = RPCC_TIMEOUT_MS;
	c->err[0] = '\0';
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return fail(c, "bad address %.60s", host);
	c->sbuf = malloc(bufsz);
	c->rbuf = malloc(bufsz);
	if (!c->sbuf || !c->rbuf)
		return fail(c, "no memory for %zu-byte buffers", bufsz);
	c->sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->sock < 0 ||
	    connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return fail(c, "connect to %.60s:%d: %s", host, port,
			    strerror(errno));
	setsockopt(c->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

void rpcc_close(struct rpcc *c)
{
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	free(c->sbuf);
	free(c->rbuf);
	c->sbuf = c->rbuf = NULL;
}

/* The call header with an AUTH_SYS credential (stamp 0, no extra groups) and
 * an AUTH_NONE verifier. */
static bool encode_header(struct rpcc *c, XDR *x, uint32_t xid, uint32_t proc)
{
	char cred[256];
	XDR cx;
	uint32_t stamp = 0, zero = 0, ngids = 0, len;
	char *mach = (char *)c->machine;

	xdrmem_create(&cx, cred, sizeof(cred), XDR_ENCODE);
	if (!xdr_uint32_t(&cx, &stamp) || !xdr_string(&cx, &mach, 255) ||
	    !xdr_uint32_t(&cx, &c->uid) || !xdr_uint32_t(&cx, &c->gid) ||
	    !xdr_uint32_t(&cx, &ngids))
		return false;
	len = XDR_GETPOS(&cx);

	uint32_t hdr[] = { xid,	    RPC_CALL, RPC_VERS,	  c->prog,
			   c->vers, proc,     FLAVOR_SYS, len };
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		if (!xdr_uint32_t(x, &hdr[i]))
			return false;
	return xdr_opaque(x, cred, len) && xdr_uint32_t(x, &zero) &&
	       xdr_uint32_t(x, &zero);
}

int rpcc_call(struct rpcc *c, uint32_t proc, xdrproc_t xargs, void *args,
	      xdrproc_t xres, void *res)
{
	XDR x;
	uint32_t xid = ++c->xid, v, len, mark;
	size_t got = 0;
	char verf[400];

	if (c->sock < 0)
		return -1;
	xdrmem_create(&x, c->sbuf + 4, (u_int)(c->bufsz - 4), XDR_ENCODE);
	if (!encode_header(c, &x, xid, proc) || !xargs(&x, args))
		return fail(c, "cannot encode call %u (larger than %zu?)", proc,
			    c->bufsz);
	len = XDR_GETPOS(&x);
	mark = htonl(LAST_FRAG | len);
	memcpy(c->sbuf, &mark, 4);
	if (send_all(c->sock, c->sbuf, len + 4) != 0)
		return fail(c, "send: %s", strerror(errno));

	/* reply: record fragments until the last one */
	for (;;) {
		if (recv_all(c->sock, (char *)&mark, 4, c->timeout_ms) != 0)
			return fail(c, "no reply to xid %u within %d ms", xid,
				    c->timeout_ms);
		mark = ntohl(mark);
		len = mark & ~LAST_FRAG;
		if (got + len > c->bufsz)
			return fail(c, "reply larger than %zu", c->bufsz);
		if (recv_all(c->sock, c->rbuf + got, len, c->timeout_ms) != 0)
			return fail(c, "reply to xid %u cut short", xid);
		got += len;
		if (mark & LAST_FRAG)
			break;
	}
	xdrmem_create(&x, c->rbuf, (u_int)got, XDR_DECODE);
	/* xid, REPLY, MSG_ACCEPTED, verifier, SUCCESS */
	if (!xdr_uint32_t(&x, &v) || v != xid || !xdr_uint32_t(&x, &v) ||
	    v != RPC_REPLY || !xdr_uint32_t(&x, &v) || v != MSG_ACCEPTED ||
	    !xdr_uint32_t(&x, &v) || !xdr_uint32_t(&x, &len) ||
	    len > sizeof(verf) || !xdr_opaque(&x, verf, len) ||
	    !xdr_uint32_t(&x, &v) || v != ACCEPT_SUCCESS)
		return fail(c, "xid %u: not an accepted, successful reply",
			    xid);
	if (!xres(&x, res)) {
		xdr_free(xres, res);
		return fail(c, "xid %u: cannot decode the reply", xid);
	}
	return 0;
}
