// SPDX-License-Identifier: LGPL-3.0-or-later
/* ft_reaper_hook: an LD_PRELOAD library for ganesha 6.5 that holds its fd
 * reaper in the middle of lru_try_one (fault_reaper_rebind.sh).
 *
 * lru_try_one (src/FSAL/commonlib.c) takes the last fd of the fd LRU, marks
 * it lru_reclaim, drops fsal_fd_mutex and then reads fd->fsal_export three
 * times without a lock: for get_gsh_export_ref, for the op context and for
 * get_fsal_obj_hdl. The first read is the call to _get_gsh_export_ref, which
 * libganesha_nfsd.so makes through its PLT, so this library's definition
 * runs instead; it calls ganesha's and then, when called from lru_try_one
 * (ganesha passes __func__) while $FT_REAPER_HOOK_DIR/arm exists, removes
 * arm, creates $FT_REAPER_HOOK_DIR/paused and waits (at most 300 s) until
 * $FT_REAPER_HOOK_DIR/go exists, which it removes. Between the first read and
 * the other two the test then closes the fd, reopens it through another
 * export and removes an export. Every other call passes straight through. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct gsh_export;

typedef void (*ref_fn)(struct gsh_export *, char *, int, char *);

static void hook_path(char *buf, size_t size, const char *dir, const char *f)
{
	snprintf(buf, size, "%s/%s", dir, f);
}

static void hold(const char *dir)
{
	char arm[PATH_MAX], paused[PATH_MAX], go[PATH_MAX];
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int fd;

	hook_path(arm, sizeof(arm), dir, "arm");
	hook_path(paused, sizeof(paused), dir, "paused");
	hook_path(go, sizeof(go), dir, "go");
	if (unlink(arm) != 0)
		return; /* not armed (or another thread took it) */
	fd = open(paused, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 300 * 100; i++) {
		if (access(go, F_OK) == 0)
			break;
		nanosleep(&ts, NULL);
	}
	unlink(go);
}

void _get_gsh_export_ref(struct gsh_export *a_export, char *file, int line,
			 char *function)
{
	static ref_fn real;
	const char *dir;

	if (real == NULL)
		real = (ref_fn)dlsym(RTLD_NEXT, "_get_gsh_export_ref");
	if (real == NULL) {
		fprintf(stderr, "ft_reaper_hook: no _get_gsh_export_ref\n");
		abort();
	}
	real(a_export, file, line, function);
	dir = getenv("FT_REAPER_HOOK_DIR");
	if (dir != NULL && function != NULL &&
	    strcmp(function, "lru_try_one") == 0)
		hold(dir);
}
