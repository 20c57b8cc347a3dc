// SPDX-License-Identifier: MIT
/*
 * A library unloaded and another loaded where it was (dlclose, dlopen):
 * the capture must name the second one's frames from the second file.
 * Loads LIB_A, calls its remap_call N times, unloads it; the same for
 * LIB_B; between calls it sleeps GAP_US.  Prints each library's code
 * address ("LIB_A 0x..."), for the test to see they met.
 * Usage: remapprog DEVICE LIB_A LIB_B N GAP_US
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NO_TAIL(x) ({ int r_ = (x); __asm__ volatile("" : "+r"(r_)); r_; })

typedef int (*call_fn)(int);

static NOINLINE int call_lib(call_fn f, int fd)
{
	return NO_TAIL(f(fd));
}

static int use_library(const char *label, const char *path, int fd, long n, long gap_us)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	call_fn f = h ? (call_fn)dlsym(h, "remap_call") : NULL;

	if (!f) {
		fprintf(stderr, "remapprog: %s: %s\n", path, dlerror());
		return -1;
	}
	printf("%s %p\n", label, (void *)f);
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		call_lib(f, fd);
		if (gap_us)
			usleep((useconds_t)gap_us);
	}
	return dlclose(h);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: remapprog DEVICE LIB_A LIB_B N GAP_US\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (use_library("LIB_A", argv[2], fd, atol(argv[4]), atol(argv[5])) ||
	    use_library("LIB_B", argv[3], fd, atol(argv[4]), atol(argv[5])))
		return 1;
	return 0;
}
