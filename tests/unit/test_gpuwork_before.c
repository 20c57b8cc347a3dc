// SPDX-License-Identifier: MIT
/* Which processes had the driver's memory mapped before a capture
 * (capture/gpuwork/gpuwork_before.c), on a made-up /proc: their /dev/nvidia* and
 * --device mappings count; other files, this process, and what is not a
 * pid do not. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuwork_before.h"
#include "tap.h"

static char root[] = "/tmp/ct-gwbefore-XXXXXX";

static void proc(const char *pid, const char *maps)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/maps", root, pid);
	f = fopen(path, "w");
	if (f) {
		fputs(maps, f);
		fclose(f);
	}
}

int main(void)
{
	struct ct_devices devs = { 0 };
	struct ct_gpuwork_before b;
	uint32_t some[] = { 11, 13, 99 };
	char cmd[300];

	if (!ok(mkdtemp(root) != NULL, "a made-up /proc"))
		return tap_done();
	devs.ndevs = 1;
	devs.devs[0].user = true;
	snprintf(devs.devs[0].path, sizeof(devs.devs[0].path), "/tmp/stand-in ctl");
	proc("11", "7f0000000000-7f0000010000 rw-s 00000000 00:05 123 /dev/nvidiactl\n"
		   "7f0000010000-7f0000020000 rw-s 00000000 00:05 124 /dev/nvidia0\n"
		   "7f0000020000-7f0000030000 r-xp 00000000 08:01 99 /usr/lib/libcuda.so.1\n");
	proc("12", "7f0000000000-7f0000010000 r-xp 00000000 08:01 99 /usr/lib/libc.so.6\n"
		   "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n");
	proc("13", "2c0000000-2c0100000 rw-p 00000000 00:00 0\n"
		   "7f0000000000-7f0000001000 rw-s 00000000 08:01 5 /tmp/stand-in ctl\n");
	proc("14", "7f0000000000-7f0000010000 rw-s 00000000 00:05 125 /dev/nvidia-uvm\n");
	proc("self", "7f0000000000-7f0000010000 rw-s 00000000 00:05 123 /dev/nvidiactl\n");

	ct_gpuwork_before_scan(&b, root, some, 3, 14, &devs);
	ok(b.nprocs == 2 && b.pids[0] == 11 && b.pids[1] == 13 && b.mappings == 3,
	   "-p: the named processes with /dev/nvidia* or --device mappings (%u, %llu mappings)",
	   b.nprocs, b.mappings);
	ct_gpuwork_before_scan(&b, root, NULL, 0, 14, &devs);
	ok(b.nprocs == 2 && b.mappings == 3,
	   "system-wide: every process but this one, nothing that is not a pid (%u)", b.nprocs);
	ct_gpuwork_before_scan(&b, root, some + 2, 1, 0, &devs);
	ok(b.nprocs == 0, "a process that is gone: nothing");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ok(system(cmd) == 0, "cleaned up");
	return tap_done();
}
