// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_writer: N libnfs raw-API NFSv3 writers (one thread, one TCP connection and one file
 * each) that keep a record of every acknowledged byte (format in ftlib.h).
 *
 * ft_writer [-H host -p nfsport -M mntport] -e export -r recdir [options]
 *   -n N       writers (16)                -d dir     directory in the export ("" = root)
 *   -P prefix  file names <dir>/<prefix>_<i>  (record <recdir>/<prefix>_<i>.rec)
 *   -t secs    run time (0 = until -L or an error stops the writer)
 *   -L bytes   bytes each writer writes (0 = unlimited)  -o off  first offset (0)
 *   -W bytes   wrap offsets at this file size (0 = no wrap)
 *   -b bytes   largest WRITE (65536); sizes vary 1..b, mostly 4 KiB multiples
 *   -F         every WRITE exactly -b bytes (the last one of -L may be shorter)
 *   -q depth   WRITEs in flight per writer (4)
 *   -s pct     percent of WRITEs sent stable (half DATA_SYNC, half FILE_SYNC) (10)
 *   -c bytes   COMMIT after this many UNSTABLE bytes acknowledged (1 MiB; 0 = never)
 *   -C         COMMIT the whole file at the end (after draining)
 *   -x N       stop a writer after N failed WRITEs/COMMITs (0 = never)
 *   -a         append to existing records (keeps the ack numbering)
 *   -K N       no WRITEs: N COMMITs per file (alternately whole file and [0, 1 MiB)),
 *              recorded (with -a: covering everything recorded before)
 *   -i secs    print "P <ms> <acked bytes> <commits ok> <failures>" every secs
 *   -S seed    random seed
 * Exit 0 when every writer ran (errors from the server are recorded, not fatal),
 * 2 on setup failure. A connection lost (server killed) ends that writer quietly.
 */
#include "ftlib.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct nfsc_opts g_o = { "127.0.0.1", 12049, 12050, NULL };
static int g_n = 16, g_q = 4, g_stable_pct = 10, g_final_commit, g_append,
	   g_interval;
static int g_maxfail, g_commit_only, g_fixed;
static const char *g_dir = "", *g_prefix = "w", *g_recdir;
static uint64_t g_secs, g_limit, g_wrap, g_block = 65536,
					 g_commit_every = 1 << 20, g_first;
static unsigned g_seed = 1;

static atomic_ullong a_promoted;
static atomic_ullong a_bytes, a_commits_ok, a_fail, a_stable, a_unstable,
	a_commit_fail;
static atomic_ullong a_write_fail, a_jukebox, a_dead, a_running, a_final_ok,
	a_final_fail;

struct slot {
	struct nfsc_call k;
	int busy;
	uint64_t off;
	uint32_t len;
	int stable;
	unsigned char *buf;
};

struct writer {
	int id;
	pthread_t th;
	struct nfsc_conn c;
	struct nfsc_fh fh;
	char path[512];
	uint64_t seed;
	FILE *rec;
	unsigned rnd;
	uint64_t acks; /* U/S lines so far */
	uint64_t next, written; /* next offset (before wrap), bytes issued */
	uint64_t lo, hi,
		pend; /* unstable acks since the last COMMIT was sent */
	int commits_sent;
	int fails;
	int setup_ok;
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void vhex(const char v[8], char out[17])
{
	ft_verf_hex(v, out);
}

static int count_acks(const char *recpath, uint64_t *acks)
{
	FILE *f = fopen(recpath, "r");
	char line[512];

	*acks = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] == 'U' || line[0] == 'S')
			(*acks)++;
	fclose(f);
	return 0;
}

static int setup(struct writer *w)
{
	char name[256], recpath[1024];
	struct nfsc_fh dir;
	int st;

	snprintf(name, sizeof(name), "%s_%d", g_prefix, w->id);
	snprintf(w->path, sizeof(w->path), "%s%s%s", g_dir, *g_dir ? "/" : "",
		 name);
	w->seed = ft_seed(w->path);
	if (ft_connect(&w->c, &g_o) != 0) {
		fprintf(stderr, "writer %d: connect: %s\n", w->id, w->c.err);
		return -1;
	}
	if (*g_dir) {
		st = ft_lookup_path(&w->c, g_dir, &dir);
		if (st == NFS3ERR_NOENT)
			st = ft_mkdir(&w->c, &w->c.root, g_dir, &dir);
		if (st != NFS3_OK) {
			fprintf(stderr, "writer %d: dir %s: %s %s\n", w->id,
				g_dir, nfsc_st(st), w->c.err);
			return -1;
		}
	} else {
		dir = w->c.root;
	}
	st = nfsc_lookup(&w->c, &dir, name, &w->fh, NULL);
	if (st == NFS3ERR_NOENT)
		st = ft_create(&w->c, &dir, name, &w->fh);
	if (st != NFS3_OK) {
		fprintf(stderr, "writer %d: create %s: %s %s\n", w->id, w->path,
			nfsc_st(st), w->c.err);
		return -1;
	}
	snprintf(recpath, sizeof(recpath), "%s/%s.rec", g_recdir, name);
	if (g_append && count_acks(recpath, &w->acks) == 0) {
		w->rec = fopen(recpath, "a");
	} else {
		w->acks = 0;
		w->rec = fopen(recpath, "w");
		if (w->rec)
			fprintf(w->rec, "F %s %llu\n", w->path,
				(unsigned long long)w->seed);
	}
	if (!w->rec) {
		fprintf(stderr, "writer %d: %s: %s\n", w->id, recpath,
			strerror(errno));
		return -1;
	}
	setvbuf(w->rec, NULL, _IOFBF, 1 << 16);
	return 0;
}

static void fail(struct writer *w, int st)
{
	if (st == NFS3ERR_JUKEBOX) {
		a_jukebox++;
		return;
	}
	w->fails++;
	a_fail++;
}

static void on_write_done(struct writer *w, struct slot *s)
{
	char vh[17];

	s->busy = 0;
	if (s->k.st == NFS3_OK && s->k.count > 0) {
		uint32_t n = s->k.count < s->len ? s->k.count : s->len;

		vhex(s->k.verf, vh);
		/* answered stable: durable whatever was asked (an UNSTABLE
		 * write answered FILE_SYNC needs no COMMIT: promoted) */
		if (s->k.committed != UNSTABLE) {
			fprintf(w->rec, "S %llu %llu %u %s %d\n",
				(unsigned long long)w->acks,
				(unsigned long long)s->off, n, vh,
				s->k.committed);
			a_stable++;
			if (s->stable == UNSTABLE)
				a_promoted++;
		} else {
			fprintf(w->rec, "U %llu %llu %u %s\n",
				(unsigned long long)w->acks,
				(unsigned long long)s->off, n, vh);
			if (w->pend == 0 || s->off < w->lo)
				w->lo = s->off;
			if (w->pend == 0 || s->off + n > w->hi)
				w->hi = s->off + n;
			w->pend += n;
			a_unstable++;
		}
		w->acks++;
		a_bytes += n;
	} else if (s->k.st == -1) {
		/* connection lost: not an answer from the server */
	} else {
		fprintf(w->rec, "E %llu %u %d\n", (unsigned long long)s->off,
			s->len, s->k.st);
		a_write_fail++;
		fail(w, s->k.st);
	}
}

struct commit_state {
	struct nfsc_call k;
	int busy;
	uint64_t off;
	uint32_t count;
	uint64_t acks;
};

static void on_commit_done(struct writer *w, struct commit_state *cs)
{
	char vh[17];

	cs->busy = 0;
	if (cs->k.st == -1)
		return;
	vhex(cs->k.verf, vh);
	fprintf(w->rec, "C %llu %u %d %s %llu\n", (unsigned long long)cs->off,
		cs->count, cs->k.st,
		cs->k.st == NFS3_OK ? vh : "0000000000000000",
		(unsigned long long)cs->acks);
	if (cs->k.st == NFS3_OK) {
		a_commits_ok++;
	} else {
		a_commit_fail++;
		fail(w, cs->k.st);
	}
}

static int send_commit(struct writer *w, struct commit_state *cs, int whole)
{
	uint64_t off = 0, len = 0;

	if (!whole && w->pend && (w->commits_sent % 3) != 2 &&
	    w->hi - w->lo < 0xffffffffULL) {
		off = w->lo;
		len = w->hi - w->lo;
	}
	if (nfsc_commit_async(&w->c, &cs->k, &w->fh, off, (uint32_t)len) != 0)
		return -1;
	cs->busy = 1;
	cs->off = off;
	cs->count = (uint32_t)len;
	cs->acks = w->acks;
	w->pend = 0;
	w->commits_sent++;
	return 0;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct slot *slots = calloc(g_q, sizeof(*slots));
	struct commit_state cs = { 0 };
	uint64_t end = g_secs ? nfsc_now_ms() + g_secs * 1000 : 0;
	uint64_t last_progress = nfsc_now_ms();
	int stopping = 0, i;

	w->c.timeout_ms = 60000;
	for (i = 0; i < g_q; i++)
		slots[i].buf = malloc(g_block);
	a_running++;
	w->next = g_first;
	for (i = 0; i < g_commit_only && !w->c.dead; i++) {
		uint32_t len = i % 2 ? 1 << 20 : 0;

		if (nfsc_commit_async(&w->c, &cs.k, &w->fh, 0, len) != 0)
			break;
		cs.busy = 1;
		cs.off = 0;
		cs.count = len;
		cs.acks = w->acks;
		nfsc_wait(&w->c, &cs.k);
		on_commit_done(w, &cs);
	}
	if (g_commit_only)
		stopping = 1;
	for (;;) {
		int inflight = cs.busy;

		if (!stopping) {
			if ((end && nfsc_now_ms() >= end) ||
			    (g_limit && w->written >= g_limit) ||
			    (g_maxfail && w->fails >= g_maxfail) || w->c.dead)
				stopping = 1;
		}
		for (i = 0; i < g_q && !stopping && !w->c.dead; i++) {
			struct slot *s = &slots[i];
			uint64_t off;
			uint32_t len;
			unsigned r;

			if (s->busy)
				continue;
			r = rnd(&w->rnd);
			len = g_fixed ? (uint32_t)g_block
			      : (r % 16 == 0)
				      ? 1 + rnd(&w->rnd) % g_block
				      : 4096 * (1 +
						rnd(&w->rnd) %
							(g_block / 4096
								 ? g_block /
									   4096
								 : 1));
			if (len > g_block)
				len = g_block;
			if (g_limit && w->written + len > g_limit)
				len = (uint32_t)(g_limit - w->written);
			if (len == 0)
				break;
			off = w->next;
			if (g_wrap) {
				off %= g_wrap;
				if (off + len > g_wrap)
					len = (uint32_t)(g_wrap - off);
			}
			s->off = off;
			s->len = len;
			r = rnd(&w->rnd) % 100;
			s->stable = (int)r < g_stable_pct
					    ? (r % 2 ? DATA_SYNC : FILE_SYNC)
					    : UNSTABLE;
			ft_pattern_fill(w->seed, off, s->buf, len);
			if (nfsc_write_async(&w->c, &s->k, &w->fh, off, s->buf,
					     len, s->stable) != 0) {
				stopping = 1;
				break;
			}
			s->busy = 1;
			w->next += len;
			w->written += len;
		}
		for (i = 0; i < g_q; i++)
			inflight |= slots[i].busy;
		if (!inflight) {
			if (w->c.dead)
				break;
			if (stopping) {
				/* final whole-file COMMIT once everything is answered */
				if (g_final_commit) {
					if (send_commit(w, &cs, 1) != 0)
						break;
					nfsc_wait(&w->c, &cs.k);
					on_commit_done(w, &cs);
					if (cs.k.st == NFS3_OK)
						a_final_ok++;
					else
						a_final_fail++;
				}
				break;
			}
		}
		if (!stopping && !cs.busy && g_commit_every &&
		    w->pend >= g_commit_every)
			send_commit(w, &cs, 0);
		nfsc_pump(&w->c,
			  50); /* on failure libnfs fails every pending call */
		for (i = 0; i < g_q; i++)
			if (slots[i].busy && slots[i].k.done)
				on_write_done(w, &slots[i]);
		if (cs.busy && cs.k.done)
			on_commit_done(w, &cs);
		if (nfsc_now_ms() - last_progress > 1000) {
			fflush(w->rec);
			last_progress = nfsc_now_ms();
		}
		if (w->c.dead) {
			/* Pending calls were failed by the disconnect. */
			for (i = 0; i < g_q; i++)
				if (slots[i].busy) {
					slots[i].k.done = 1;
					on_write_done(w, &slots[i]);
				}
			cs.busy = 0;
			a_dead++;
			break;
		}
	}
	fflush(w->rec);
	fclose(w->rec);
	nfsc_disconnect(&w->c);
	for (i = 0; i < g_q; i++)
		free(slots[i].buf);
	free(slots);
	a_running--;
	return NULL;
}

int main(int argc, char **argv)
{
	struct writer *ws;
	uint64_t t0;
	int opt, i, started = 0;

	while ((opt = getopt(argc, argv,
			     FT_COMMON_OPTS
			     "n:d:P:r:t:L:o:W:b:Fq:s:c:Cx:aK:i:S:")) != -1) {
		if (ft_common_opt(&g_o, opt, optarg))
			continue;
		switch (opt) {
		case 'n':
			g_n = atoi(optarg);
			break;
		case 'd':
			g_dir = optarg;
			break;
		case 'P':
			g_prefix = optarg;
			break;
		case 'r':
			g_recdir = optarg;
			break;
		case 't':
			g_secs = strtoull(optarg, NULL, 0);
			break;
		case 'L':
			g_limit = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			g_first = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			g_wrap = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			g_block = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			g_fixed = 1;
			break;
		case 'q':
			g_q = atoi(optarg);
			break;
		case 's':
			g_stable_pct = atoi(optarg);
			break;
		case 'c':
			g_commit_every = strtoull(optarg, NULL, 0);
			break;
		case 'C':
			g_final_commit = 1;
			break;
		case 'x':
			g_maxfail = atoi(optarg);
			break;
		case 'a':
			g_append = 1;
			break;
		case 'K':
			g_commit_only = atoi(optarg);
			break;
		case 'i':
			g_interval = atoi(optarg);
			break;
		case 'S':
			g_seed = (unsigned)strtoul(optarg, NULL, 0);
			break;
		default:
			ft_die("usage: see the comment at the top of ft_writer.c");
		}
	}
	if (!g_o.export || !g_recdir || g_n < 1 || g_q < 1 || g_block < 1 ||
	    g_block > (1 << 20))
		ft_die("ft_writer: -e export and -r recdir are required (block <= 1 MiB)");
	if (!g_secs && !g_limit && !g_maxfail && !g_commit_only)
		ft_die("ft_writer: give -t, -L or -x so writers stop");
	mkdir(g_recdir, 0755);
	ws = calloc(g_n, sizeof(*ws));
	for (i = 0; i < g_n; i++) {
		ws[i].id = i;
		ws[i].rnd = g_seed * 7919u + (unsigned)i * 104729u;
		if (setup(&ws[i]) != 0) {
			nfsc_disconnect(&ws[i].c);
			continue;
		}
		ws[i].setup_ok = 1;
	}
	for (i = 0; i < g_n; i++)
		if (ws[i].setup_ok &&
		    pthread_create(&ws[i].th, NULL, writer_main, &ws[i]) == 0)
			started++;
	if (started < g_n) {
		fprintf(stderr, "ft_writer: only %d of %d writers started\n",
			started, g_n);
	}
	t0 = nfsc_now_ms();
	if (g_interval > 0) {
		uint64_t next = t0 + (uint64_t)g_interval * 1000;

		usleep(100000);
		while (a_running > 0) {
			usleep(100000);
			if (nfsc_now_ms() >= next) {
				printf("P %llu %llu %llu %llu\n",
				       (unsigned long long)(nfsc_now_ms() - t0),
				       (unsigned long long)a_bytes,
				       (unsigned long long)a_commits_ok,
				       (unsigned long long)a_fail);
				fflush(stdout);
				next += (uint64_t)g_interval * 1000;
			}
		}
	}
	for (i = 0; i < g_n; i++)
		if (ws[i].setup_ok)
			pthread_join(ws[i].th, NULL);
	printf("ft_writer: writers=%d started=%d secs=%.1f acked_bytes=%llu stable_writes=%llu "
	       "unstable_writes=%llu commits_ok=%llu commit_errors=%llu write_errors=%llu "
	       "jukebox=%llu connections_lost=%llu final_commits_ok=%llu final_commits_failed=%llu "
	       "promoted=%llu\n",
	       g_n, started, (nfsc_now_ms() - t0) / 1000.0,
	       (unsigned long long)a_bytes, (unsigned long long)a_stable,
	       (unsigned long long)a_unstable, (unsigned long long)a_commits_ok,
	       (unsigned long long)a_commit_fail,
	       (unsigned long long)a_write_fail, (unsigned long long)a_jukebox,
	       (unsigned long long)a_dead, (unsigned long long)a_final_ok,
	       (unsigned long long)a_final_fail,
	       (unsigned long long)a_promoted);
	free(ws);
	return started == g_n ? 0 : 2;
}
