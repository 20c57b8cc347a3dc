// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "devices.h"

uint32_t ct_kdev(unsigned long long udev)
{
	return (major(udev) << 20) | (minor(udev) & 0xfffff);
}

int ct_read_nvidia_majors(struct ct_devices *d, const char *proc_devices)
{
	char line[256], name[128];
	bool chr = false;
	unsigned int major;
	FILE *f = fopen(proc_devices, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Character devices:", 18) == 0) {
			chr = true;
			continue;
		}
		if (strncmp(line, "Block devices:", 14) == 0)
			chr = false;
		if (!chr || sscanf(line, "%u %127s", &major, name) != 2)
			continue;
		if (strncmp(name, "nvidia", 6) != 0 || d->nmajors >= CT_MAX_MAJORS)
			continue;
		d->majors[d->nmajors].major = major;
		d->majors[d->nmajors].kind =
			strcmp(name, "nvidia-uvm") == 0 ? CT_DEV_UVM : CT_DEV_NVIDIA;
		snprintf(d->majors[d->nmajors].name, sizeof(d->majors[0].name), "%.47s", name);
		d->nmajors++;
	}
	fclose(f);
	return 0;
}

static struct ct_device *add_node(struct ct_devices *d, const char *path,
				  const struct stat *st)
{
	struct ct_device *dev;

	if (d->ndevs >= CT_MAX_DEVICES)
		return NULL;
	dev = &d->devs[d->ndevs++];
	dev->regfile = !S_ISCHR(st->st_mode);
	dev->kdev = ct_kdev(dev->regfile ? st->st_dev : st->st_rdev);
	dev->ino = dev->regfile ? st->st_ino : 0;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	return dev;
}

static void scan_dir(struct ct_devices *d, const char *dir, const char *prefix)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char path[512];
	struct stat st;

	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISCHR(st.st_mode))
			add_node(d, path, &st);
	}
	closedir(dp);
}

void ct_scan_dev_nodes(struct ct_devices *d, const char *devdir)
{
	char caps[512];

	scan_dir(d, devdir, "nvidia");
	snprintf(caps, sizeof(caps), "%s/nvidia-caps", devdir);
	scan_dir(d, caps, "nvidia");
}

int ct_add_user_device(struct ct_devices *d, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *real;

	if (stat(path, &st)) {
		snprintf(err, errlen, "--device %s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--device %s: is a directory; name a device node or file", path);
		return -EISDIR;
	}
	if (d->ndevs >= CT_MAX_DEVICES) {
		snprintf(err, errlen, "--device %s: too many devices (at most %d)", path,
			 CT_MAX_DEVICES);
		return -E2BIG;
	}
	real = realpath(path, NULL);
	add_node(d, real ? real : path, &st)->user = true;
	free(real);
	d->nuser++;
	return 0;
}
