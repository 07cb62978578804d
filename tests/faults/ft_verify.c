// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_verify: reads back every acknowledged byte recorded by ft_writer and compares it with
 * the deterministic pattern; counts false successes.
 *
 * ft_verify [-H host -p nfsport -M mntport -e export | -l localdir] [-V] [-u] [-v] REC...
 *   -l dir   read the files from a local directory (the export's filesystem mounted on the
 *            server side) instead of through NFS
 *   -V       (NFS) COMMIT each file and require a write verifier different from every
 *            verifier in its record (the server restarted since)
 *   -u       (NFS) remove the files afterwards
 *   -v       one line per file
 * A byte is "acknowledged durable" when a stable WRITE answered DATA_SYNC/FILE_SYNC covered
 * it, or an OK COMMIT with the WRITE's verifier covered an UNSTABLE WRITE acknowledged before
 * the COMMIT was sent. A false success is such a COMMIT (or stable WRITE) whose bytes do not
 * read back identical. Lines "M label" in a record start a phase: statuses are counted per
 * phase. Exit 0 when every durable byte matched (and -V held), 1 otherwise, 2 on errors.
 */
#include "ftlib.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wr {
	uint64_t n, off;
	uint32_t len;
	char verf[8];
	int stable;
	int phase;
	int bad; /* some byte of it mismatches */
};

struct cm {
	uint64_t off;
	uint32_t count;
	int st;
	char verf[8];
	uint64_t acks;
	int phase;
};

#define MAXPH 16
struct phase {
	char name[64];
	uint64_t commits_ok, commits_err, writes_ok, write_err, false_commits,
		false_stable;
	uint64_t commit_err_by[64];
};

static struct phase g_ph[MAXPH];
static int g_nph;

static struct {
	uint64_t files, durable_bytes, bad_bytes, false_commits, false_stable,
		lost_unacked;
	uint64_t verf_unchanged, verf_checked, read_errors, commits_ok,
		commits_err, write_err;
	uint64_t unlinked, unreadable;
} T;

static int phase_id(const char *name)
{
	for (int i = 0; i < g_nph; i++)
		if (!strcmp(g_ph[i].name, name))
			return i;
	if (g_nph == MAXPH)
		return MAXPH - 1;
	snprintf(g_ph[g_nph].name, sizeof(g_ph[0].name), "%s", name);
	return g_nph++;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* merged durable intervals */
struct ivs {
	uint64_t (*v)[2];
	size_t n, cap;
};

static void iv_add(struct ivs *s, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n][0] = lo;
	s->v[s->n][1] = hi;
	s->n++;
}

static void iv_merge(struct ivs *s)
{
	size_t o = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (size_t i = 1; i < s->n; i++) {
		if (s->v[i][0] <= s->v[o][1]) {
			if (s->v[i][1] > s->v[o][1])
				s->v[o][1] = s->v[i][1];
		} else {
			o++;
			s->v[o][0] = s->v[i][0];
			s->v[o][1] = s->v[i][1];
		}
	}
	s->n = o + 1;
}

static int nfs_mode, opt_V, opt_u, opt_v;
static const char *localdir;
static struct nfsc_conn g_c;
static struct nfsc_opts g_o = { "127.0.0.1", 12049, 12050, NULL };

/* Reads [0, size) into buf; bytes past EOF stay zero. Returns 0 or -1. */
static int read_file(const char *path, unsigned char *buf, uint64_t size,
		     struct nfsc_fh *fh, int *exists)
{
	*exists = 1;
	if (!nfs_mode) {
		char p[4096];
		int fd;
		uint64_t off = 0;

		snprintf(p, sizeof(p), "%s/%s", localdir, path);
		fd = open(p, O_RDONLY);
		if (fd < 0) {
			*exists = 0;
			return errno == ENOENT ? 0 : -1;
		}
		while (off < size) {
			ssize_t r = pread(fd, buf + off,
					  size - off > (1 << 20) ? (1 << 20)
								 : size - off,
					  (off_t)off);
			if (r < 0 && errno == EIO) {
				/* unreadable: those bytes stay zero (so they count as lost) */
				uint64_t n = size - off > 4096
						     ? 4096 - off % 4096
						     : size - off;

				r = pread(fd, buf + off, n, (off_t)off);
				if (r < 0) {
					if (T.unreadable++ == 0)
						fprintf(stderr,
							"ft_verify: %s: EIO at %llu\n",
							p,
							(unsigned long long)
								off);
					memset(buf + off, 0, n);
					r = (ssize_t)n;
				}
			}
			if (r < 0) {
				fprintf(stderr,
					"ft_verify: read %s at %llu: %s\n", p,
					(unsigned long long)off,
					strerror(errno));
				close(fd);
				return -1;
			}
			if (r == 0)
				break;
			off += (uint64_t)r;
		}
		close(fd);
		return 0;
	}
	int st = ft_lookup_path(&g_c, path, fh);

	if (st == NFS3ERR_NOENT) {
		*exists = 0;
		return 0;
	}
	if (st != NFS3_OK) {
		fprintf(stderr, "ft_verify: lookup %s: %s %s\n", path,
			nfsc_st(st), g_c.err);
		return -1;
	}
	for (uint64_t off = 0; off < size;) {
		uint32_t want = size - off > (1 << 20) ? (1 << 20)
						       : (uint32_t)(size - off),
			 got = 0;
		bool eof = false;

		st = nfsc_read(&g_c, fh, off, want, buf + off, &got, &eof);
		if (st != NFS3_OK) {
			fprintf(stderr, "ft_verify: read %s at %llu: %s %s\n",
				path, (unsigned long long)off, nfsc_st(st),
				g_c.err);
			return -1;
		}
		off += got;
		if (eof || got == 0)
			break;
	}
	return 0;
}

static int range_bad(const unsigned char *bad, uint64_t lo, uint64_t hi)
{
	return hi > lo && memchr(bad + lo, 1, hi - lo) != NULL;
}

static int verify_record(const char *recpath)
{
	FILE *f = fopen(recpath, "r");
	char line[1024], path[600] = "", vh[32];
	unsigned long long seed = 0;
	struct wr *w = NULL;
	struct cm *c = NULL;
	size_t nw = 0, cw = 0, nc = 0, cc = 0;
	int phase = phase_id("main"), removed = 0, exists, rc = 0;
	uint64_t maxend = 0;
	struct ivs dur = { 0 };
	unsigned char *data, *bad;
	struct nfsc_fh fh;

	if (!f) {
		fprintf(stderr, "ft_verify: %s: %s\n", recpath,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, d;
		unsigned len;
		int st, committed;
		char label[64];

		switch (line[0]) {
		case 'F':
			if (sscanf(line, "F %599s %llu", path, &seed) != 2)
				goto bad_line;
			break;
		case 'M':
			if (sscanf(line, "M %63s", label) == 1)
				phase = phase_id(label);
			break;
		case 'R':
			removed = 1;
			break;
		case 'U':
		case 'S':
			committed = 0;
			if (line[0] == 'U'
				    ? sscanf(line, "U %llu %llu %u %16s", &a,
					     &b, &len, vh) != 4
				    : sscanf(line, "S %llu %llu %u %16s %d", &a,
					     &b, &len, vh, &committed) != 5)
				goto bad_line;
			if (nw == cw) {
				cw = cw ? 2 * cw : 1024;
				w = realloc(w, cw * sizeof(*w));
			}
			w[nw].n = a;
			w[nw].off = b;
			w[nw].len = len;
			ft_verf_parse(vh, w[nw].verf);
			w[nw].stable = line[0] == 'S';
			w[nw].phase = phase;
			w[nw].bad = 0;
			if (b + len > maxend)
				maxend = b + len;
			g_ph[phase].writes_ok++;
			nw++;
			break;
		case 'E':
			g_ph[phase].write_err++;
			T.write_err++;
			break;
		case 'C':
			if (sscanf(line, "C %llu %u %d %16s %llu", &a, &len,
				   &st, vh, &d) != 5)
				goto bad_line;
			if (nc == cc) {
				cc = cc ? 2 * cc : 256;
				c = realloc(c, cc * sizeof(*c));
			}
			c[nc].off = a;
			c[nc].count = len;
			c[nc].st = st;
			ft_verf_parse(vh, c[nc].verf);
			c[nc].acks = d;
			c[nc].phase = phase;
			if (st == NFS3_OK) {
				g_ph[phase].commits_ok++;
				T.commits_ok++;
			} else {
				g_ph[phase].commits_err++;
				g_ph[phase].commit_err_by[st >= 0 && st < 64
								  ? st
								  : 63]++;
				T.commits_err++;
			}
			nc++;
			break;
		default:
			continue;
		}
		continue;
	bad_line:
		fprintf(stderr, "ft_verify: %s: bad line: %s", recpath, line);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (!*path) {
		fprintf(stderr, "ft_verify: %s: no F line\n", recpath);
		return -1;
	}
	T.files++;
	if (removed)
		goto out;

	data = calloc(1, maxend + 1);
	bad = calloc(1, maxend + 1);
	if (!data || !bad)
		ft_die("ft_verify: out of memory (%llu bytes)",
		       (unsigned long long)maxend);
	if (read_file(path, data, maxend, &fh, &exists) != 0) {
		T.read_errors++;
		rc = -1;
		goto free_out;
	}
	/* bad[] = 1 where the file differs from the pattern */
	{
		unsigned char *pat = malloc(1 << 20);

		for (uint64_t off = 0; off < maxend; off += 1 << 20) {
			uint64_t n = maxend - off > (1 << 20) ? (1 << 20)
							      : maxend - off;

			ft_pattern_fill(seed, off, pat, n);
			for (uint64_t i = 0; i < n; i++)
				bad[off + i] = data[off + i] != pat[i];
		}
		free(pat);
	}
	for (size_t i = 0; i < nw; i++)
		w[i].bad = range_bad(bad, w[i].off, w[i].off + w[i].len);
	/* stable writes */
	for (size_t i = 0; i < nw; i++) {
		if (!w[i].stable)
			continue;
		iv_add(&dur, w[i].off, w[i].off + w[i].len);
		if (w[i].bad) {
			T.false_stable++;
			g_ph[w[i].phase].false_stable++;
			if (opt_v)
				printf("  FALSE SUCCESS: %s stable write #%llu [%llu,+%u) reads back different\n",
				       path, (unsigned long long)w[i].n,
				       (unsigned long long)w[i].off, w[i].len);
		}
	}
	/* commits; writes are in ack order (w[i].n ascending) */
	for (size_t j = 0; j < nc; j++) {
		uint64_t lo = c[j].off,
			 hi = c[j].count ? c[j].off + c[j].count : UINT64_MAX;
		int false_success = 0;

		if (c[j].st != NFS3_OK)
			continue;
		for (size_t i = 0; i < nw && w[i].n < c[j].acks; i++) {
			uint64_t a, b;

			if (w[i].stable || memcmp(w[i].verf, c[j].verf, 8))
				continue;
			a = w[i].off > lo ? w[i].off : lo;
			b = w[i].off + w[i].len < hi ? w[i].off + w[i].len : hi;
			if (a >= b)
				continue;
			iv_add(&dur, a, b);
			if (w[i].bad && range_bad(bad, a, b)) {
				if (!false_success && opt_v)
					printf("  FALSE SUCCESS: %s COMMIT [%llu,+%u) OK (phase %s) but write #%llu [%llu,+%u) reads back different\n",
					       path,
					       (unsigned long long)c[j].off,
					       c[j].count,
					       g_ph[c[j].phase].name,
					       (unsigned long long)w[i].n,
					       (unsigned long long)w[i].off,
					       w[i].len);
				false_success = 1;
			}
		}
		if (false_success) {
			T.false_commits++;
			g_ph[c[j].phase].false_commits++;
		}
	}
	iv_merge(&dur);
	{
		uint64_t db = 0, bb = 0;

		for (size_t k = 0; k < dur.n; k++) {
			db += dur.v[k][1] - dur.v[k][0];
			for (uint64_t p = dur.v[k][0]; p < dur.v[k][1]; p++)
				bb += bad[p];
		}
		T.durable_bytes += db;
		T.bad_bytes += bb;
		if (bb)
			rc = 1;
		/* acknowledged-unstable bytes never covered by a successful COMMIT that are lost:
		 * the server must have reported those (they are what the error rule is about) */
		for (size_t i = 0; i < nw; i++)
			if (!w[i].stable && w[i].bad)
				T.lost_unacked++;
		if (opt_v)
			printf("  %s: %s writes=%zu commits=%zu durable=%llu mismatched=%llu\n",
			       path, exists ? "present" : "MISSING", nw, nc,
			       (unsigned long long)db, (unsigned long long)bb);
	}
	if (nfs_mode && opt_V && exists) {
		char v[8];
		int st = nfsc_commit(&g_c, &fh, 0, 0, v);

		T.verf_checked++;
		if (st != NFS3_OK) {
			fprintf(stderr,
				"ft_verify: %s: COMMIT for the verifier: %s\n",
				path, nfsc_st(st));
			rc = -1;
		} else {
			int same = 0;

			for (size_t i = 0; i < nw && !same; i++)
				same = !memcmp(w[i].verf, v, 8);
			for (size_t j = 0; j < nc && !same; j++)
				same = c[j].st == NFS3_OK &&
				       !memcmp(c[j].verf, v, 8);
			if (same) {
				T.verf_unchanged++;
				rc = 1;
				fprintf(stderr,
					"ft_verify: %s: write verifier unchanged across restart\n",
					path);
			}
		}
	}
	if (nfs_mode && opt_u && exists) {
		char parent[600], *slash;
		struct nfsc_fh dir;
		int st;

		snprintf(parent, sizeof(parent), "%s", path);
		slash = strrchr(parent, '/');
		if (slash) {
			*slash = 0;
			st = ft_lookup_path(&g_c, parent, &dir);
		} else {
			dir = g_c.root;
			st = NFS3_OK;
		}
		if (st == NFS3_OK)
			st = nfsc_remove(&g_c, &dir, slash ? slash + 1 : path);
		if (st == NFS3_OK)
			T.unlinked++;
		else
			fprintf(stderr, "ft_verify: remove %s: %s\n", path,
				nfsc_st(st));
	}
free_out:
	free(data);
	free(bad);
out:
	free(w);
	free(c);
	free(dur.v);
	return rc;
}

int main(int argc, char **argv)
{
	int opt, fails = 0, errs = 0;

	while ((opt = getopt(argc, argv, FT_COMMON_OPTS "l:Vuv")) != -1) {
		if (ft_common_opt(&g_o, opt, optarg))
			continue;
		switch (opt) {
		case 'l':
			localdir = optarg;
			break;
		case 'V':
			opt_V = 1;
			break;
		case 'u':
			opt_u = 1;
			break;
		case 'v':
			opt_v = 1;
			break;
		default:
			ft_die("usage: ft_verify [-e export | -l dir] [-V] [-u] [-v] REC...");
		}
	}
	if (optind >= argc)
		ft_die("ft_verify: no records");
	nfs_mode = localdir == NULL;
	if (nfs_mode) {
		if (!g_o.export)
			ft_die("ft_verify: -e export or -l dir");
		if (ft_connect(&g_c, &g_o) != 0)
			ft_die("ft_verify: connect: %s", g_c.err);
	}
	for (int i = optind; i < argc; i++) {
		int r = verify_record(argv[i]);

		if (r < 0)
			errs++;
		else if (r > 0)
			fails++;
	}
	for (int p = 0; p < g_nph; p++) {
		printf("phase %s: writes_ok=%llu write_errors=%llu commits_ok=%llu commits_failed=%llu",
		       g_ph[p].name, (unsigned long long)g_ph[p].writes_ok,
		       (unsigned long long)g_ph[p].write_err,
		       (unsigned long long)g_ph[p].commits_ok,
		       (unsigned long long)g_ph[p].commits_err);
		for (int s = 0; s < 64; s++)
			if (g_ph[p].commit_err_by[s])
				printf(" %s=%llu", nfsc_st(s),
				       (unsigned long long)g_ph[p]
					       .commit_err_by[s]);
		printf(" false_success_commits=%llu false_success_stable=%llu\n",
		       (unsigned long long)g_ph[p].false_commits,
		       (unsigned long long)g_ph[p].false_stable);
	}
	printf("ft_verify: files=%llu durable_bytes=%llu mismatched_bytes=%llu "
	       "false_success_commits=%llu false_success_stable=%llu lost_unacked_writes=%llu "
	       "commits_ok=%llu commits_failed=%llu write_errors=%llu verifier=%s unlinked=%llu "
	       "unreadable_blocks=%llu errors=%d\n",
	       (unsigned long long)T.files, (unsigned long long)T.durable_bytes,
	       (unsigned long long)T.bad_bytes,
	       (unsigned long long)T.false_commits,
	       (unsigned long long)T.false_stable,
	       (unsigned long long)T.lost_unacked,
	       (unsigned long long)T.commits_ok,
	       (unsigned long long)T.commits_err,
	       (unsigned long long)T.write_err,
	       !opt_V		  ? "unchecked"
	       : T.verf_unchanged ? "UNCHANGED"
				  : "changed",
	       (unsigned long long)T.unlinked, (unsigned long long)T.unreadable,
	       errs);
	if (nfs_mode)
		nfsc_disconnect(&g_c);
	return errs ? 2 : fails ? 1 : 0;
}
