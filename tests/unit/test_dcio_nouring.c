// SPDX-License-Identifier: LGPL-3.0-or-later
/* Without io_uring (io_uring_setup refused by a seccomp filter, as with io_uring_disabled=2) the engine falls back to the pwritev2/preadv2 pool and keeps the same semantics. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dcio_testlib.h"

static int refuse_io_uring(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return errno;
	return 0;
}

static void t_pool_fallback(void)
{
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
			  DCIO_FLUSH_COALESCED);
	struct tl_ctx c;

	tl_ctx_open(&c, &(struct tl_setup){
				.p = &p, .name = "nouring", .flags = O_TRUNC });
	CU_ASSERT_FALSE(dcio_engine_uses_uring(c.e));
	struct dcio_file *f = c.f;

	static char buf[1 << 20], back[1 << 20];
	tl_fill(buf, sizeof(buf), 0, 5);
	struct tl_wait w;
	tl_wait_init(&w);
	for (int i = 0; i < 16; i++) {
		struct iovec iov = { buf + i * 65536, 65536 };
		CU_ASSERT_EQUAL(
			dcio_write(f, &iov, 1, (uint64_t)i * 65536,
				   i == 15 ? DCIO_FILE_SYNC : DCIO_UNSTABLE,
				   NULL, NULL, tl_done, &w),
			0);
	}
	tl_wait_for(&w, 16);
	CU_ASSERT_EQUAL(w.errs, 0);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);
	size_t got;
	CU_ASSERT_EQUAL(tl_read(f, back, sizeof(back), 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	char *js = tl_stats(c.x);
	char v[32];
	CU_ASSERT_TRUE(tl_json_get(js, "backend", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "pool");
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.ops"), 16);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_write"), 0);
	free(js);
	CU_ASSERT_EQUAL(tl_ctx_close(&c), 0);
}

static const struct tl_case cases[] = {
	{ "io_uring refused: pool with the same semantics", t_pool_fallback },
};

int main(void)
{
	int err;

	tl_require(0);
	err = refuse_io_uring();
	if (err) {
		fprintf(stderr, "SKIP: cannot install the seccomp filter: %s\n",
			strerror(err));
		return TL_SKIP;
	}
	/* the filter must really refuse io_uring_setup, or the test proves nothing */
	char params[256] = { 0 };
	if (syscall(__NR_io_uring_setup, 8, params) != -1 || errno != EPERM) {
		fprintf(stderr, "io_uring_setup not refused\n");
		return 1;
	}
	return TL_RUN_SUITE("no io_uring", cases);
}
