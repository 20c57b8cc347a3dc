// SPDX-License-Identifier: MIT
/*
 * libioctlunwind: an independent check of cudatrace -k's api/caller.  An
 * LD_PRELOAD ioctl() that, for each call on an NVIDIA device node, unwinds
 * its own stack with libgcc's _Unwind_Backtrace (CFI, in the process),
 * names frames with dladdr, and writes one line per call:
 *
 *   tid request api caller
 *
 * api: the dladdr name of the outermost frame of the first run of frames in
 * libcuda.so*; caller: the frame just outside that run (dladdr name, else
 * module+0xOFF); "-" where there is none.  Lines go with write(2) to
 * $IOCTLUNWIND_DIR/PID.txt (O_APPEND), so _exit loses nothing.
 *
 *   cc -O2 -shared -fPIC -o libioctlunwind.so ioctl_unwind.c -ldl
 * IOCTLUNWIND_ALL=1 logs every ioctl (for stand-in files).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <unwind.h>

#define MAX_FRAMES 128

typedef int (*ioctl_fn)(int, unsigned long, ...);

static unsigned majors[16];
static int nmajors = -1;

static void load_majors(void)
{
	char line[128];
	FILE *f = fopen("/proc/devices", "re");

	nmajors = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned major;
		char name[64];

		if (!strncmp(line, "Block", 5))
			break;
		if (sscanf(line, " %u %63s", &major, name) == 2 && !strncmp(name, "nvidia", 6) &&
		    nmajors < 16)
			majors[nmajors++] = major;
	}
	if (f)
		fclose(f);
}

static int is_nvidia(int fd)
{
	struct stat st;

	if (nmajors < 0)
		load_majors();
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return 0;
	for (int i = 0; i < nmajors; i++)
		if (major(st.st_rdev) == majors[i])
			return 1;
	return 0;
}

struct bt {
	uintptr_t pc[MAX_FRAMES];
	int n;
};

static _Unwind_Reason_Code on_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct bt *b = arg;

	if (b->n >= MAX_FRAMES)
		return _URC_END_OF_STACK;
	b->pc[b->n++] = _Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

static int in_lib(uintptr_t pc, Dl_info *di)
{
	const char *base;

	if (!dladdr((void *)(pc - 1), di) || !di->dli_fname)
		return 0;
	base = strrchr(di->dli_fname, '/');
	return fnmatch("libcuda.so*", base ? base + 1 : di->dli_fname, 0) == 0;
}

static void name_of(uintptr_t pc, char *buf, size_t n)
{
	Dl_info di;
	const char *base;

	if (!dladdr((void *)(pc - 1), &di) || !di.dli_fname) {
		snprintf(buf, n, "0x%lx", (unsigned long)pc);
	} else if (di.dli_sname) {
		snprintf(buf, n, "%s", di.dli_sname);
	} else {
		base = strrchr(di.dli_fname, '/');
		snprintf(buf, n, "%s+0x%lx", base ? base + 1 : di.dli_fname,
			 (unsigned long)(pc - (uintptr_t)di.dli_fbase));
	}
}

static void log_call(unsigned long req)
{
	struct bt b = { .n = 0 };
	char api[256] = "-", caller[256] = "-", line[600], path[512];
	const char *dir = getenv("IOCTLUNWIND_DIR");
	Dl_info di;
	int i = 0, fd;

	if (!dir)
		return;
	_Unwind_Backtrace(on_frame, &b);
	while (i < b.n && !in_lib(b.pc[i], &di))
		i++;
	if (i < b.n) {
		while (i + 1 < b.n && in_lib(b.pc[i + 1], &di))
			i++;
		name_of(b.pc[i], api, sizeof(api));
		if (i + 1 < b.n)
			name_of(b.pc[i + 1], caller, sizeof(caller));
	}
	snprintf(path, sizeof(path), "%s/%d.txt", dir, getpid());
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "%ld 0x%lx %s %s\n", (long)syscall(SYS_gettid), req, api,
		 caller);
	if (write(fd, line, strlen(line)) < 0) {
		/* nothing to do */
	}
	close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
	static ioctl_fn real;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (is_nvidia(fd) || getenv("IOCTLUNWIND_ALL"))   /* _ALL: stand-in tests */
		log_call(req);
	return real(fd, req, arg);
}
