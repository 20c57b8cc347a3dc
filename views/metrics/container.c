// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "container.h"

/* n hex digits at p, and no more. */
static bool hex_run(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)p[i]))
			return false;
	return !isxdigit((unsigned char)p[n]);
}

/* The last 64-hex-digit id in the path: the innermost container. */
static void find_id(const char *path, char *id)
{
	const char *p;

	for (p = path; *p; p++)
		if ((p == path || !isxdigit((unsigned char)p[-1])) && hex_run(p, 64)) {
			memcpy(id, p, 64);
			id[64] = 0;
		}
}

/* "pod" then a uid, with '-' (cgroupfs) or '_' (systemd slices) between
 * its groups; the uid is given with '-'. */
static void find_pod(const char *path, char *pod)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	static const char prefix[] = "pod";
	const char *p = path;
	char buf[37];

	while ((p = strstr(p, prefix)) != NULL) {
		const char *q = p + sizeof(prefix) - 1;
		size_t k = 0;
		int g;

		for (g = 0; g < 5; g++) {
			int i;

			for (i = 0; i < groups[g] && isxdigit((unsigned char)*q); i++)
				buf[k++] = *q++;
			if (i != groups[g])
				break;
			if (g < 4) {
				if (*q != '-' && *q != '_')
					break;
				buf[k++] = '-';
				q++;
			}
		}
		if (g == 5 && !isxdigit((unsigned char)*q)) {
			buf[k] = 0;
			memcpy(pod, buf, k + 1);
			return;
		}
		p += 3;
	}
}

void ct_container_from_path(const char *path, struct ct_container *out)
{
	out->id[0] = 0;
	out->pod[0] = 0;
	find_id(path, out->id);
	find_pod(path, out->pod);
}

void ct_container_of_pid(const char *proc_root, uint32_t pid, struct ct_container *out)
{
	char fn[128], line[4096];
	FILE *f;

	out->id[0] = 0;
	out->pod[0] = 0;
	snprintf(fn, sizeof(fn), "%s/%u/cgroup", proc_root, pid);
	f = fopen(fn, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) == 0) {   /* the cgroup v2 line */
			line[strcspn(line, "\n")] = 0;
			ct_container_from_path(line + 3, out);
			break;
		}
	}
	fclose(f);
}
