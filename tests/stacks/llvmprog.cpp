// SPDX-License-Identifier: MIT
/*
 * -k through a large library (lazy tables, capture/stacks/ktables.c):
 * each ioctl is made from a callback that libLLVM calls
 * (CrashRecoveryContext::RunSafely), so every stack passes through
 * libLLVM-14.so (110 MB), the stand-in for XLA's library or
 * libtorch_cuda.so on the GPU machine, whose whole table takes seconds.
 *   llvmprog FILE N [US] [thread]   N calls, US microseconds apart (1000);
 *       thread: the second half each from a thread libLLVM starts
 *       (RunSafelyOnThread), through FDEs the first half did not need
 */
#include <fcntl.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fd;

static __attribute__((noinline)) void call_driver()
{
	ioctl(fd, 0x802, 0);
	__asm__ volatile("");   /* no tail call: this frame stays on the stack */
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: llvmprog FILE N [US]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	long n = atol(argv[2]), us = argc > 3 ? atol(argv[3]) : 1000;
	bool thread = argc > 4 && !strcmp(argv[4], "thread");
	llvm::CrashRecoveryContext crc;

	for (long i = 0; i < n; i++) {
		if (thread && i >= n / 2)
			crc.RunSafelyOnThread([] { call_driver(); });
		else
			crc.RunSafely([] { call_driver(); });
		if (us)
			usleep((useconds_t)us);
	}
	return 0;
}
