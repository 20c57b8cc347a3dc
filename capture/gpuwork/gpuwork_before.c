// SPDX-License-Identifier: MIT
/* Which traced processes had the NVIDIA driver's memory mapped before the
 * capture began (gpuwork_before.h), from /proc/PID/maps. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuwork_before.h"
#include "msg.h"

#define GW_BEFORE_SCAN_MAX 65536   /* processes looked at, system-wide */

/* A mapping of the driver: a /dev/nvidia* node or a --device file. */
static bool driver_path(const char *path, const struct ct_devices *devs)
{
	if (!strncmp(path, "/dev/nvidia", 11))
		return true;
	for (int i = 0; i < devs->ndevs; i++)
		if (devs->devs[i].user && !strcmp(path, devs->devs[i].path))
			return true;
	return false;
}

/* How many of pid's mappings are the driver's; 0 if it cannot be read. */
static unsigned long long driver_mappings(const char *proc_root, uint32_t pid,
					  const struct ct_devices *devs)
{
	char file[300], *line = NULL;
	size_t cap = 0;
	unsigned long long n = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%u/maps", proc_root, pid);
	if (!(f = fopen(file, "re")))
		return 0;
	while (getline(&line, &cap, f) > 0) {
		char *path = strchr(line, '/');

		if (path) {
			path[strcspn(path, "\n")] = 0;
			n += driver_path(path, devs);
		}
	}
	free(line);
	fclose(f);
	return n;
}

static void look_at(struct ct_gpuwork_before *b, const char *proc_root, uint32_t pid,
		    const struct ct_devices *devs)
{
	unsigned long long n = driver_mappings(proc_root, pid, devs);

	if (!n)
		return;
	if (b->nprocs < GW_BEFORE_NAMED)
		b->pids[b->nprocs] = pid;
	b->nprocs++;
	b->mappings += n;
}

void ct_gpuwork_before_scan(struct ct_gpuwork_before *b, const char *proc_root,
			    const uint32_t *pids, int npids, uint32_t self,
			    const struct ct_devices *devs)
{
	struct dirent *e;
	unsigned seen = 0;
	DIR *d;

	memset(b, 0, sizeof(*b));
	for (int i = 0; i < npids; i++)
		look_at(b, proc_root, pids[i], devs);
	if (npids || !(d = opendir(proc_root)))
		return;
	while ((e = readdir(d)) && seen < GW_BEFORE_SCAN_MAX) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (!isdigit((unsigned char)e->d_name[0]) || *end || pid == self || pid > UINT32_MAX)
			continue;
		seen++;
		look_at(b, proc_root, (uint32_t)pid, devs);
	}
	closedir(d);
}

/* "process 1234" or "3 processes (pid 1, 2, 3)" */
static void who(const struct ct_gpuwork_before *b, char *buf, size_t n)
{
	size_t len;
	unsigned i;

	if (b->nprocs == 1) {
		snprintf(buf, n, "process %u", b->pids[0]);
		return;
	}
	len = (size_t)snprintf(buf, n, "%u processes (pid ", b->nprocs);
	for (i = 0; i < b->nprocs && i < GW_BEFORE_NAMED && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%u", i ? ", " : "", b->pids[i]);
	if (len < n)
		snprintf(buf + len, n - len, "%s)", b->nprocs > GW_BEFORE_NAMED ? ", ..." : "");
}

void ct_gpuwork_before_say(const struct ct_gpuwork_before *b, bool at_end)
{
	char procs[GW_BEFORE_NAMED * 12 + 48];
	bool one = b->nprocs == 1;

	if (!b->nprocs)
		return;
	who(b, procs, sizeof(procs));
	if (at_end)
		ct_err("gpu-work: channels made before the capture began by %s "
				"were not followed: the GPU work on them is not in this capture; start "
				"the program under cudatrace to see all of it\n", procs);
	else
		ct_err("gpu-work: %s already %s the NVIDIA driver's memory "
				"mapped (%llu mapping%s): channels %s made before the capture began "
				"are not followed (nothing outside a process says where their rings "
				"are, nor how many there are); start the program under cudatrace to "
				"see all its GPU work\n", procs, one ? "has" : "have", b->mappings,
			b->mappings == 1 ? "" : "s", one ? "it" : "they");
}
