// SPDX-License-Identifier: MIT
/*
 * A stand-in for JIT code (XLA's, Triton's launchers, CPython's JIT) for
 * the -k tests: machine code generated into an anonymous executable
 * mapping, which no file and no FDE describes, calls back into the
 * program, which makes the driver call.
 *   jitprog FILE fp N [MS]     the generated code keeps a frame pointer
 *                              (push rbp; mov rbp, rsp), as XLA's CPU code
 *                              and JITs built for profilers do
 *   jitprog FILE nofp N [MS]   it uses rbp as a general register
 * N calls of run_jit -> generated code -> do_ioctl -> ioctl; MS: first 100
 * calls, then a pause of MS ms (-k's tables are built in it).  Prints the
 * address of the generated code ("jit 0x...").
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NO_TAIL(x) ({ int r_ = (x); __asm__ volatile("" : "+r"(r_)); r_; })

typedef int (*callee_fn)(int);
typedef int (*jit_fn)(int fd, callee_fn f);

/* fd in edi stays there; the callee is in rsi. */
static const uint8_t with_fp[] = {
	0x55,                           /* push rbp */
	0x48, 0x89, 0xe5,               /* mov rbp, rsp */
	0xff, 0xd6,                     /* call rsi */
	0x5d,                           /* pop rbp */
	0xc3,                           /* ret */
};

static const uint8_t without_fp[] = {
	0x55,                                       /* push rbp (callee-saved) */
	0x48, 0xc7, 0xc5, 0x34, 0x12, 0x00, 0x00,   /* mov rbp, 0x1234: a value, not a frame */
	0xff, 0xd6,                                 /* call rsi */
	0x5d,                                       /* pop rbp */
	0xc3,                                       /* ret */
};

static NOINLINE int do_ioctl(int fd)
{
	uint32_t params[8] = { 0xc1d00001, 0x5c000001, 0x803, 0, 0, 0, 0, 0 };

	return NO_TAIL(ioctl(fd, _IOWR('F', 0x2a, char[32]), params));
}

static NOINLINE int run_jit(jit_fn jit, int fd)
{
	return NO_TAIL(jit(fd, do_ioctl));
}

int main(int argc, char **argv)
{
	const uint8_t *code;
	size_t size;
	void *mem;
	long n;
	int fd;

	if (argc < 4 || (strcmp(argv[2], "fp") && strcmp(argv[2], "nofp"))) {
		fprintf(stderr, "usage: jitprog FILE fp|nofp N [MS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	code = strcmp(argv[2], "fp") ? without_fp : with_fp;
	size = strcmp(argv[2], "fp") ? sizeof(without_fp) : sizeof(with_fp);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, size);
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	printf("jit %p\n", mem);
	fflush(stdout);
	n = atol(argv[3]);
	if (argc > 4) {
		for (int i = 0; i < 100; i++)
			run_jit((jit_fn)mem, fd);
		usleep((useconds_t)atol(argv[4]) * 1000);
	}
	for (long i = 0; i < n; i++)
		run_jit((jit_fn)mem, fd);
	return 0;
}
