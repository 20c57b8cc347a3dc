// SPDX-License-Identifier: MIT
/*
 * syscall_blocks [SECONDS [BLOCK]]: getppid, a system call cudatrace does
 * not trace, for SECONDS (default 30) in blocks of BLOCK calls (default
 * 5000), one line per block (bench/blocks.h).  bench/attach_windows.py
 * reads the tax of each tracer from it.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "blocks.h"

static void getppid_call(void)
{
	syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	return run_blocks(argc, argv, "syscall_blocks", 5000, getppid_call);
}
