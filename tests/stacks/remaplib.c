// SPDX-License-Identifier: MIT
/*
 * A library built twice (libremap_a.so, libremap_b.so) with one function
 * named differently (THROUGH: through_lib_a, through_lib_b) and the same
 * layout, so that one loaded after the other was unloaded lands at the
 * same addresses (tests/stacks/remapprog.c).
 */
#include <sys/ioctl.h>

#define NOINLINE __attribute__((noinline))
#define NO_TAIL(x) ({ int r_ = (x); __asm__ volatile("" : "+r"(r_)); r_; })

static NOINLINE int THROUGH(int fd)
{
	char params[32] = { 0 };

	return NO_TAIL(ioctl(fd, _IOWR('F', 0x2a, char[32]), params));
}

int remap_call(int fd)
{
	return NO_TAIL(THROUGH(fd));
}
