/* SPDX-License-Identifier: MIT */
/* Which files are traced: NVIDIA char-device majors and --device files. */
#ifndef CT_DEVICES_H
#define CT_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#define CT_MAX_MAJORS  32
#define CT_MAX_DEVICES 256

enum ct_dev_kind { CT_DEV_NVIDIA = 1, CT_DEV_UVM = 2 };

struct ct_major {
	uint32_t major;
	uint8_t kind;
	char name[48];
};

/* A file the filter accepts, named: a char device node or a regular file. */
struct ct_device {
	uint32_t kdev;      /* kernel dev_t encoding (major << 20 | minor) */
	bool regfile;       /* kdev is the file system's s_dev, ino matters */
	uint64_t ino;
	bool user;          /* named with --device: add to the filter */
	char path[256];
};

struct ct_devices {
	struct ct_major majors[CT_MAX_MAJORS];
	int nmajors;
	struct ct_device devs[CT_MAX_DEVICES];
	int ndevs;
	int nuser;          /* how many came from --device */
};

/* Kernel's dev_t from a user-space one (st_rdev/st_dev). */
uint32_t ct_kdev(unsigned long long udev);

/* Reads /proc/devices (or path for tests) for majors named nvidia*. */
int ct_read_nvidia_majors(struct ct_devices *d, const char *proc_devices);
/* Lists the nvidia nodes in /dev and /dev/nvidia-caps so paths can be named. */
void ct_scan_dev_nodes(struct ct_devices *d, const char *devdir);
/* Adds a --device PATH.  0, or -errno with a message in err. */
int ct_add_user_device(struct ct_devices *d, const char *path, char *err, size_t errlen);

#endif
