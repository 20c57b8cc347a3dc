// SPDX-License-Identifier: MIT
/*
 * The kernel namer's mappings are read on a thread of their own, never on
 * the reader thread (capture/kernels/kmaps_keep.h): a /proc whose maps
 * file is a FIFO no one writes yet stands in for a read that takes long.
 * ct_kmaps_keep_watch must return at once; the mappings arrive once the
 * FIFO is written, and stay (with their open file) for the namer.  Run by
 * tests/live/kernel_names.py.  usage: kmaps_keep_check SCRATCH_DIR
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "kmaps_keep.h"
#include "tap.h"

#define PID 4242u

static int found_n = -1, found_fd = -1;
static char found_path[256];

static void take(void *ctx, const struct ct_codemaps *maps)
{
	(void)ctx;
	found_n = (int)maps->n;
	if (maps->n) {
		found_fd = maps->v[0].fd;
		snprintf(found_path, sizeof(found_path), "%s", maps->v[0].path);
	}
}

static void bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		bail(path);
}

int main(int argc, char **argv)
{
	struct ct_rec r = { .type = CT_REC_MMAP, .size = sizeof(struct ct_mmap), .pid = PID };
	char dir[512], path[600];
	struct ct_kmaps_keep *k;
	uint64_t t0, took;
	int fd, i;

	if (argc != 2)
		bail("usage: kmaps_keep_check SCRATCH_DIR");
	alarm(20);   /* a watch that does the read blocks on the FIFO: killed, failed */
	snprintf(dir, sizeof(dir), "%s/%u", argv[1], PID);
	if (mkdir(dir, 0700) && access(dir, F_OK))
		bail(dir);
	snprintf(path, sizeof(path), "%s/stat", dir);
	write_file(path, "4242 (stand in) S 1 4242 4242 0 -1\n");
	snprintf(path, sizeof(path), "%s/maps", dir);
	unlink(path);
	if (mkfifo(path, 0600))
		bail(path);

	if (!(k = ct_kmaps_keep_new(argv[1])))
		bail("ct_kmaps_keep_new failed");
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	ct_kmaps_keep_watch(k, &r, t0);
	took = ct_now_ns(CLOCK_MONOTONIC) - t0;
	ok(took < 1000000000ull, "the watch returns while the maps cannot be read yet (%.3f ms)",
	   (double)took / 1e6);
	/* (ct_kmaps_keep_use would wait here: the keeper reads under its lock) */

	fd = open(path, O_WRONLY);   /* waits for the keeper to open it */
	if (fd < 0 || dprintf(fd, "7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 %s\n",
			      "/bin/true") < 0 || close(fd))
		bail("cannot write the FIFO");
	for (i = 0; i < 3000 && !ct_kmaps_keep_use(k, PID, take, NULL); i++)
		usleep(1000);
	ok(found_n == 1 && found_fd >= 0 && !strcmp(found_path, "/bin/true"),
	   "the keeper read the mapping and holds its file open (%d maps, fd %d, %s)", found_n,
	   found_fd, found_path);

	t0 = ct_now_ns(CLOCK_MONOTONIC);
	for (i = 0; i < 1000; i++)
		ct_kmaps_keep_watch(k, &r, t0 + (uint64_t)i);
	took = ct_now_ns(CLOCK_MONOTONIC) - t0;
	ok(took < 100000000ull, "1000 more records of the process: asked once at most (%.3f ms)",
	   (double)took / 1e6);
	ct_kmaps_keep_forget(k, PID);
	ok(!ct_kmaps_keep_use(k, PID, take, NULL), "forgotten when the namer is done");
	ct_kmaps_keep_free(k);
	unlink(path);
	return tap_done();
}
