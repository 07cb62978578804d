// SPDX-License-Identifier: LGPL-3.0-or-later
/* Shared helpers for the dcio CUnit suites. */
#include <CUnit/Basic.h>
#include "dcio_testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

int tl_fs_ext4(struct tl_fs *fs)
{
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->dir, sizeof(fs->dir), "/var/tmp/dcio-test-XXXXXX");
	return mkdtemp(fs->dir) ? 0 : errno;
}

int tl_fs_tmpfs(struct tl_fs *fs, unsigned size_mb)
{
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->dir, sizeof(fs->dir), "/tmp/dcio-tmpfs-XXXXXX");
	if (!mkdtemp(fs->dir))
		return errno;
	char opt[64];
	snprintf(opt, sizeof(opt), "size=%um,mode=0700", size_mb);
	if (mount("tmpfs", fs->dir, "tmpfs", 0, opt) < 0) {
		int err = errno;
		rmdir(fs->dir);
		return err;
	}
	snprintf(fs->mnt, sizeof(fs->mnt), "%s", fs->dir);
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

void tl_fs_cleanup(struct tl_fs *fs)
{
	if (!fs->dir[0])
		return;
	if (fs->mnt[0]) {
		umount2(fs->mnt, MNT_DETACH);
		rmdir(fs->mnt);
	} else {
		nftw(fs->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	fs->dir[0] = 0;
}

char *tl_path(const struct tl_fs *fs, const char *name)
{
	static __thread char buf[512];
	snprintf(buf, sizeof(buf), "%s/%s", fs->dir, name);
	return buf;
}

int tl_open(const struct tl_fs *fs, const char *name, int flags)
{
	return open(tl_path(fs, name), O_CREAT | O_RDWR | O_CLOEXEC | flags,
		    0644);
}

void tl_wait_init(struct tl_wait *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
}

void tl_done(void *arg, int err, size_t bytes)
{
	struct tl_wait *w = arg;
	pthread_mutex_lock(&w->mu);
	w->n++;
	w->bytes += bytes;
	if (err) {
		w->errs++;
		w->last_err = err;
	}
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void tl_wait_for(struct tl_wait *w, int n)
{
	pthread_mutex_lock(&w->mu);
	while (w->n < n)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void tl_op_done(void *arg, int err, size_t bytes)
{
	struct tl_op *op = arg;
	pthread_mutex_lock(&op->w->mu);
	op->err = err;
	op->bytes = bytes;
	op->calls++;
	pthread_mutex_unlock(&op->w->mu);
	tl_done(op->w, err, bytes);
}

struct dcio_export_params tl_params(enum dcio_write_mode wm,
				    enum dcio_read_mode rm,
				    enum dcio_flush_mode fm)
{
	struct dcio_export_params p = {
		.write_mode = wm,
		.read_mode = rm,
		.flush_mode = fm,
		.max_inflight_bytes = 64 << 20,
		.inflight_wait_ms = 10000,
		.flush_file_bytes = 1 << 20,
		.flush_export_bytes = 8 << 20,
		.flush_interval_ms = 100,
	};
	return p;
}

int tl_write(struct dcio_file *f, const void *buf, size_t len, uint64_t off,
	     enum dcio_stable st)
{
	struct tl_wait w;
	struct tl_op op = { .w = &w };
	struct iovec iov = { (void *)buf, len };
	tl_wait_init(&w);
	int rc = dcio_write(f, &iov, 1, off, st, NULL, NULL, tl_op_done, &op);
	if (rc)
		return rc;
	tl_wait_for(&w, 1);
	if (!op.err && op.bytes != len)
		return -1;
	return op.err;
}

int tl_read(struct dcio_file *f, void *buf, size_t len, uint64_t off,
	    size_t *got)
{
	struct tl_wait w;
	struct tl_op op = { .w = &w };
	struct iovec iov = { buf, len };
	tl_wait_init(&w);
	int rc = dcio_read(f, &iov, 1, off, tl_op_done, &op);
	if (rc)
		return rc;
	tl_wait_for(&w, 1);
	if (got)
		*got = op.bytes;
	return op.err;
}

/* byte value depends on its file offset and a seed */
static unsigned char pat(uint64_t o, unsigned seed)
{
	uint64_t x = (o + 1) * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)seed * 0xbf58476d1ce4e5b9ull);
	return (unsigned char)(x >> 56);
}

void tl_fill(void *buf, size_t len, uint64_t off, unsigned seed)
{
	unsigned char *b = buf;
	for (size_t i = 0; i < len; i++)
		b[i] = pat(off + i, seed);
}

bool tl_check(const void *buf, size_t len, uint64_t off, unsigned seed)
{
	const unsigned char *b = buf;
	for (size_t i = 0; i < len; i++)
		if (b[i] != pat(off + i, seed))
			return false;
	return true;
}

double tl_resident(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		close(fd);
		return -1;
	}
	void *m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	long ps = sysconf(_SC_PAGESIZE);
	size_t pages = (st.st_size + ps - 1) / ps, in = 0;
	unsigned char *vec = malloc(pages);
	if (!vec || mincore(m, st.st_size, vec) < 0) {
		free(vec);
		munmap(m, st.st_size);
		return -1;
	}
	for (size_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	free(vec);
	munmap(m, st.st_size);
	return (double)in / (double)pages;
}

char *tl_stats(struct dcio_export *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	dcio_export_stats_json(x, o);
	fclose(o);
	return buf;
}

double tl_stat(struct dcio_export *x, const char *path)
{
	char *js = tl_stats(x);
	double v = tl_json_num(js, path);

	free(js);
	return v;
}

double tl_wait_stat(struct dcio_export *x, const char *path, enum tl_cmp cmp,
		    double value, int ms)
{
	struct timespec t0, t;
	double v;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		v = tl_stat(x, path);
		if (cmp == TL_AT_LEAST ? v >= value : v <= value)
			return v;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >=
		    ms)
			return v;
		usleep(1000);
	}
}

/* ---- JSON: a strict recursive-descent walk that records the raw text of
 * the value at one dotted path. */
struct jp {
	const char *s;
	const char *want;
	char *out;
	size_t outlen;
	bool found;
	char path[512];
	char **keys; /* tl_json_keys: the leaves' paths */
	size_t nkeys;
	int in_array;
};

static void ws(struct jp *j)
{
	while (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r')
		j->s++;
}

static bool value(struct jp *j);

static bool string(struct jp *j, char *key, size_t keylen)
{
	size_t n = 0;
	if (*j->s != '"')
		return false;
	j->s++;
	while (*j->s && *j->s != '"') {
		char c = *j->s++;
		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\') {
			c = *j->s++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)*j->s++))
						return false;
				c = '?';
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return false;
			}
		}
		if (key && n + 1 < keylen)
			key[n++] = c;
	}
	if (key)
		key[n] = 0;
	if (*j->s != '"')
		return false;
	j->s++;
	return true;
}

static bool number(struct jp *j)
{
	const char *p = j->s;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	if (*p == '0')
		p++;
	else
		while (isdigit((unsigned char)*p))
			p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	j->s = p;
	return true;
}

static bool object(struct jp *j)
{
	size_t base = strlen(j->path);
	j->s++;
	ws(j);
	if (*j->s == '}') {
		j->s++;
		return true;
	}
	for (;;) {
		char key[128];
		ws(j);
		if (!string(j, key, sizeof(key)))
			return false;
		ws(j);
		if (*j->s++ != ':')
			return false;
		snprintf(j->path + base, sizeof(j->path) - base, "%s%s",
			 base ? "." : "", key);
		if (!value(j))
			return false;
		j->path[base] = 0;
		ws(j);
		if (*j->s == ',') {
			j->s++;
			continue;
		}
		if (*j->s == '}') {
			j->s++;
			return true;
		}
		return false;
	}
}

static bool elements(struct jp *j)
{
	j->s++;
	ws(j);
	if (*j->s == ']') {
		j->s++;
		return true;
	}
	for (;;) {
		if (!value(j))
			return false;
		ws(j);
		if (*j->s == ',') {
			j->s++;
			continue;
		}
		if (*j->s == ']') {
			j->s++;
			return true;
		}
		return false;
	}
}

static bool array(struct jp *j)
{
	bool ok;

	j->in_array++;
	ok = elements(j);
	j->in_array--;
	return ok;
}

static bool value(struct jp *j)
{
	ws(j);
	const char *start = j->s;
	bool ok;
	if (*j->s == '{')
		ok = object(j);
	else if (*j->s == '[')
		ok = array(j);
	else if (*j->s == '"')
		ok = string(j, NULL, 0);
	else if (!strncmp(j->s, "true", 4) || !strncmp(j->s, "null", 4))
		ok = (j->s += 4, true);
	else if (!strncmp(j->s, "false", 5))
		ok = (j->s += 5, true);
	else
		ok = number(j);
	if (ok && j->keys && !j->in_array && *start != '{') {
		j->keys = realloc(j->keys, (j->nkeys + 1) * sizeof(*j->keys));
		j->keys[j->nkeys++] = strdup(j->path);
	}
	if (ok && j->want && !strcmp(j->path, j->want)) {
		size_t n = (size_t)(j->s - start);
		if (*start == '"' && n >= 2) {
			start++;
			n -= 2;
		}
		if (n >= j->outlen)
			n = j->outlen - 1;
		memcpy(j->out, start, n);
		j->out[n] = 0;
		j->found = true;
	}
	return ok;
}

static bool walk(struct jp *j)
{
	if (!value(j))
		return false;
	ws(j);
	return *j->s == 0;
}

bool tl_json_valid(const char *s)
{
	struct jp j = { .s = s };
	return s && walk(&j);
}

bool tl_json_get(const char *s, const char *path, char *out, size_t outlen)
{
	struct jp j = { .s = s, .want = path, .out = out, .outlen = outlen };
	return s && walk(&j) && j.found;
}

size_t tl_json_keys(const char *s, char ***keys)
{
	struct jp j = { .s = s, .keys = malloc(sizeof(char *)) };

	if (!s || !walk(&j)) {
		tl_free_keys(j.keys, j.nkeys);
		*keys = NULL;
		return 0;
	}
	*keys = j.keys;
	return j.nkeys;
}

void tl_free_keys(char **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

double tl_json_num(const char *s, const char *path)
{
	char buf[64];
	if (!tl_json_get(s, path, buf, sizeof(buf)))
		return -1;
	char *end;
	double v = strtod(buf, &end);
	return *end ? -1 : v;
}

int tl_run_tests(void)
{
	unsigned int fails;

	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

int tl_run_suite(const char *name, const struct tl_case *cases, size_t n)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(name, NULL, NULL);
	for (size_t i = 0; s && i < n; i++)
		if (!CU_add_test(s, cases[i].name, cases[i].fn))
			s = NULL;
	if (!s) {
		fprintf(stderr, "cannot register the cases: %s\n",
			CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	return tl_run_tests();
}

void tl_ctx_open(struct tl_ctx *c, const struct tl_setup *s)
{
	static const struct dcio_engine_params dep = { .threads = 2 };
	struct dcio_export_params dp = tl_params(
		DCIO_WRITE_DONTCACHE, DCIO_READ_BUFFERED, DCIO_FLUSH_COALESCED);
	bool nofs = !s->fs && s->kind == TL_FS_NONE;

	memset(c, 0, sizeof(*c));
	c->dfd = -1;
	if (s->fs) {
		c->fs = *s->fs;
	} else if (!nofs) {
		CU_ASSERT_EQUAL_FATAL(s->kind == TL_FS_TMPFS
					      ? tl_fs_tmpfs(&c->fs, s->tmpfs_mb)
					      : tl_fs_ext4(&c->fs),
				      0);
		c->own_fs = true;
	}
	CU_ASSERT_EQUAL_FATAL(
		dcio_engine_create(s->ep ? s->ep : &dep, s->sys, &c->e), 0);
	if (!nofs && !s->no_dirfd) {
		c->dfd = open(c->fs.dir, O_RDONLY | O_DIRECTORY);
		CU_ASSERT_FATAL(c->dfd >= 0);
	}
	CU_ASSERT_EQUAL_FATAL(dcio_export_create(c->e, s->p ? s->p : &dp,
						 s->name ? s->name : "t",
						 c->dfd, &c->x),
			      0);
	if (nofs || s->no_file)
		return;
	CU_ASSERT_EQUAL_FATAL(
		dcio_file_open(
			c->x,
			tl_open(&c->fs, s->file ? s->file : "f", s->flags),
			&c->f),
		0);
}

int tl_ctx_close(struct tl_ctx *c)
{
	int rc = c->f ? dcio_file_close(c->f) : 0;

	c->f = NULL;
	dcio_export_destroy(c->x);
	dcio_engine_destroy(c->e);
	if (c->dfd >= 0)
		close(c->dfd);
	if (c->own_fs)
		tl_fs_cleanup(&c->fs);
	return rc;
}

static void skip(const char *why)
{
	fprintf(stderr, "SKIP: %s\n", why);
	exit(TL_SKIP);
}

void tl_require(unsigned needs)
{
	struct tl_fs fs;
	struct statfs sf;
	char msg[256];
	int err;

	err = tl_fs_ext4(&fs);
	if (err) {
		snprintf(msg, sizeof(msg),
			 "cannot make a directory in /var/tmp: %s",
			 strerror(err));
		skip(msg);
	}
	if ((needs & TL_NEED_EXT4) &&
	    (statfs(fs.dir, &sf) < 0 || sf.f_type != EXT4_SUPER_MAGIC)) {
		tl_fs_cleanup(&fs);
		skip("/var/tmp is not ext4");
	}
	if (needs & TL_NEED_DONTCACHE) {
		int fd = tl_open(&fs, "probe", O_TRUNC);
		char b[4096] = { 0 };
		struct iovec iov = { b, sizeof(b) };

		err = fd < 0 || pwritev2(fd, &iov, 1, 0, RWF_DONTCACHE) < 0
			      ? errno
			      : 0;
		if (fd >= 0)
			close(fd);
		if (err) {
			tl_fs_cleanup(&fs);
			snprintf(msg, sizeof(msg),
				 "no RWF_DONTCACHE writes on /var/tmp: %s",
				 strerror(err));
			skip(msg);
		}
	}
	if (needs & TL_NEED_DIRECT) {
		int fd = tl_open(&fs, "probe", O_DIRECT);

		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (err) {
			tl_fs_cleanup(&fs);
			snprintf(msg, sizeof(msg),
				 "no O_DIRECT on /var/tmp: %s", strerror(err));
			skip(msg);
		}
	}
	tl_fs_cleanup(&fs);
	if (needs & TL_NEED_TMPFS) {
		err = tl_fs_tmpfs(&fs, 1);
		if (err) {
			snprintf(msg, sizeof(msg), "cannot mount a tmpfs: %s",
				 strerror(err));
			skip(msg);
		}
		tl_fs_cleanup(&fs);
	}
}

char *tl_readme_section(const char *path, const char *first, const char *end)
{
	FILE *f = fopen(path, "r");
	char line[4096], *buf = NULL;
	size_t len = 0;
	FILE *o;
	int in = 0;

	if (!f)
		return NULL;
	o = open_memstream(&buf, &len);
	while (fgets(line, sizeof(line), f)) {
		if (!in && !strncmp(line, first, strlen(first))) {
			in = 1;
			continue;
		}
		if (in && !strncmp(line, end, strlen(end)))
			break;
		if (in)
			fputs(line, o);
	}
	fclose(f);
	fclose(o);
	if (!in) {
		free(buf);
		return NULL;
	}
	return buf;
}

size_t tl_backticked(const char *text, char ***names)
{
	size_t n = 0;
	int paren = 0;

	*names = NULL;
	for (const char *p = text; *p; p++) {
		if (*p == '(') {
			paren++;
		} else if (*p == ')') {
			paren -= paren > 0;
		} else if (*p == '`') {
			const char *e = strchr(p + 1, '`');

			if (!e)
				break;
			if (!paren) {
				*names = realloc(*names,
						 (n + 1) * sizeof(**names));
				(*names)[n++] = strndup(p + 1, e - p - 1);
			}
			p = e;
		}
	}
	return n;
}
