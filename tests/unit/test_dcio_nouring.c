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
	struct tl_fs fs;
	CU_ASSERT_EQUAL_FATAL(tl_fs_ext4(&fs), 0);
	struct dcio_engine_params ep = { .threads = 2,
					 .ring_entries = 64,
					 .use_uring = true };
	struct dcio_engine *e;
	CU_ASSERT_EQUAL_FATAL(dcio_engine_create(&ep, NULL, &e), 0);
	CU_ASSERT_FALSE(dcio_engine_uses_uring(e));
	int dfd = open(fs.dir, O_RDONLY | O_DIRECTORY);
	struct dcio_export_params p =
		tl_params(DCIO_WRITE_DONTCACHE, DCIO_READ_DONTCACHE,
			  DCIO_FLUSH_COALESCED);
	struct dcio_export *x;
	CU_ASSERT_EQUAL_FATAL(dcio_export_create(e, &p, "nouring", dfd, &x), 0);
	struct dcio_file *f;
	CU_ASSERT_EQUAL_FATAL(dcio_file_open(x, tl_open(&fs, "f", O_TRUNC), &f),
			      0);

	static char buf[1 << 20], back[1 << 20];
	tl_fill(buf, sizeof(buf), 0, 5);
	struct tl_wait w;
	tl_wait_init(&w);
	for (int i = 0; i < 16; i++) {
		struct iovec iov = { buf + i * 65536, 65536 };
		CU_ASSERT_EQUAL(
			dcio_write(f, &iov, 1, (uint64_t)i * 65536,
				   i == 15 ? DCIO_FILE_SYNC : DCIO_UNSTABLE,
				   tl_done, &w),
			0);
	}
	tl_wait_for(&w, 16);
	CU_ASSERT_EQUAL(w.errs, 0);
	CU_ASSERT_EQUAL(dcio_commit(f, 0, 0), 0);
	size_t got;
	CU_ASSERT_EQUAL(tl_read(f, back, sizeof(back), 0, &got), 0);
	CU_ASSERT_EQUAL(got, sizeof(back));
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	char *js = tl_stats(x);
	char v[32];
	CU_ASSERT_TRUE(tl_json_get(js, "backend", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(v, "pool");
	CU_ASSERT_EQUAL(tl_json_num(js, "writes.dontcache.ops"), 16);
	CU_ASSERT_EQUAL(tl_json_num(js, "fallbacks.dontcache_write"), 0);
	free(js);
	CU_ASSERT_EQUAL(dcio_file_close(f), 0);
	dcio_export_destroy(x);
	dcio_engine_destroy(e);
	close(dfd);
	tl_fs_cleanup(&fs);
}

int main(void)
{
	if (refuse_io_uring()) {
		fprintf(stderr, "cannot install the seccomp filter\n");
		return 1;
	}
	/* the filter must really refuse io_uring_setup, or the test proves nothing */
	char params[256] = { 0 };
	if (syscall(__NR_io_uring_setup, 8, params) != -1 || errno != EPERM) {
		fprintf(stderr, "io_uring_setup not refused\n");
		return 1;
	}
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("no io_uring", NULL, NULL);
	CU_add_test(s, "io_uring refused: pool with the same semantics",
		    t_pool_fallback);
	return tl_run_tests();
}
