// SPDX-License-Identifier: LGPL-3.0-or-later
#include "stats.h"
#include <stdlib.h>
#include <string.h>

int dcb_results_init(struct dcb_results *r, int nconns,
		     uint64_t measure_start_ns)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < OP_NUM; i++)
		hist_init(&r->lat[i]);
	r->measure_start_ns = measure_start_ns;
	r->tl_ns = 1000000000ULL;
	r->nconns = nconns;
	r->conn = calloc(nconns ? nconns : 1, sizeof(*r->conn));
	return r->conn ? 0 : -1;
}

void dcb_results_free(struct dcb_results *r)
{
	free(r->conn);
	free(r->tl);
	r->conn = NULL;
	r->tl = NULL;
}

struct dcb_tl *dcb_tl_at(struct dcb_results *r, int sec)
{
	if (sec < 0)
		sec = 0;
	if (sec >= r->cap_tl) {
		int cap = r->cap_tl ? r->cap_tl : 64;
		while (cap <= sec)
			cap *= 2;
		struct dcb_tl *n = realloc(r->tl, cap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + r->cap_tl, 0, (cap - r->cap_tl) * sizeof(*n));
		r->tl = n;
		r->cap_tl = cap;
	}
	if (sec >= r->ntl)
		r->ntl = sec + 1;
	return &r->tl[sec];
}

void dcb_account(struct dcb_results *r, int conn, enum dcb_op op,
		 uint64_t bytes, uint64_t now, uint64_t lat)
{
	struct dcb_conn_stats *c =
		(conn >= 0 && conn < r->nconns) ? &r->conn[conn] : NULL;
	r->bytes[op] += bytes;
	r->ops[op]++;
	if (c) {
		c->bytes[op] += bytes;
		c->ops[op]++;
	}
	if (now >= r->measure_start_ns) {
		r->m_bytes[op] += bytes;
		r->m_ops[op]++;
		hist_add(&r->lat[op], lat);
		if (c) {
			c->m_bytes[op] += bytes;
			c->m_ops[op]++;
		}
	}
	struct dcb_tl *t = dcb_tl_at(r, (int)(now / r->tl_ns));
	if (t) {
		t->bytes[op] += bytes;
		t->ops[op]++;
		t->lat_sum_ns[op] += lat;
		if (lat > t->lat_max_ns[op])
			t->lat_max_ns[op] = lat;
	}
}

void dcb_account_nfs_error(struct dcb_results *r, int conn, int status)
{
	if (conn >= 0 && conn < r->nconns)
		r->conn[conn].errors++;
	for (int i = 0; i < r->n_nfs_err; i++)
		if (r->nfs_err[i].status == status) {
			r->nfs_err[i].count++;
			return;
		}
	int i = r->n_nfs_err < DCB_MAX_STATUS ? r->n_nfs_err++
					      : DCB_MAX_STATUS - 1;
	if (r->nfs_err[i].status != status)
		r->nfs_err[i].count =
			0; /* table full: last slot collects the rest */
	r->nfs_err[i].status = status;
	r->nfs_err[i].count++;
}

uint64_t dcb_nfs_error_count(const struct dcb_results *r, int status)
{
	for (int i = 0; i < r->n_nfs_err; i++)
		if (r->nfs_err[i].status == status)
			return r->nfs_err[i].count;
	return 0;
}

uint64_t dcb_nfs_errors_total(const struct dcb_results *r)
{
	uint64_t t = 0;
	for (int i = 0; i < r->n_nfs_err; i++)
		t += r->nfs_err[i].count;
	return t;
}

const char *dcb_nfs_status_name(int s)
{
	switch (s) {
	case 0:
		return "NFS3_OK";
	case 1:
		return "NFS3ERR_PERM";
	case 2:
		return "NFS3ERR_NOENT";
	case 5:
		return "NFS3ERR_IO";
	case 6:
		return "NFS3ERR_NXIO";
	case 13:
		return "NFS3ERR_ACCES";
	case 17:
		return "NFS3ERR_EXIST";
	case 18:
		return "NFS3ERR_XDEV";
	case 19:
		return "NFS3ERR_NODEV";
	case 20:
		return "NFS3ERR_NOTDIR";
	case 21:
		return "NFS3ERR_ISDIR";
	case 22:
		return "NFS3ERR_INVAL";
	case 27:
		return "NFS3ERR_FBIG";
	case 28:
		return "NFS3ERR_NOSPC";
	case 30:
		return "NFS3ERR_ROFS";
	case 31:
		return "NFS3ERR_MLINK";
	case 63:
		return "NFS3ERR_NAMETOOLONG";
	case 66:
		return "NFS3ERR_NOTEMPTY";
	case 69:
		return "NFS3ERR_DQUOT";
	case 70:
		return "NFS3ERR_STALE";
	case 71:
		return "NFS3ERR_REMOTE";
	case 10001:
		return "NFS3ERR_BADHANDLE";
	case 10002:
		return "NFS3ERR_NOT_SYNC";
	case 10003:
		return "NFS3ERR_BAD_COOKIE";
	case 10004:
		return "NFS3ERR_NOTSUPP";
	case 10005:
		return "NFS3ERR_TOOSMALL";
	case 10006:
		return "NFS3ERR_SERVERFAULT";
	case 10007:
		return "NFS3ERR_BADTYPE";
	case 10008:
		return "NFS3ERR_JUKEBOX";
	}
	return "NFS3ERR_UNKNOWN";
}

static double window_s(const struct dcb_results *r, uint64_t end_ns)
{
	if (end_ns <= r->measure_start_ns)
		return 0;
	return (double)(end_ns - r->measure_start_ns) / 1e9;
}

double dcb_rate_mbps(const struct dcb_results *r, enum dcb_op op,
		     uint64_t end_ns)
{
	double w = window_s(r, end_ns);
	return w > 0 ? (double)r->m_bytes[op] / 1e6 / w : 0;
}

double dcb_rate_iops(const struct dcb_results *r, enum dcb_op op,
		     uint64_t end_ns)
{
	double w = window_s(r, end_ns);
	return w > 0 ? (double)r->m_ops[op] / w : 0;
}
