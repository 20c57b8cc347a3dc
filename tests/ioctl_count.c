// SPDX-License-Identifier: MIT
/*
 * libioctlcount: an LD_PRELOAD reference count of NVIDIA ioctls and mmaps,
 * to check the tracer's event counts against.
 *
 *   cc -shared -fPIC -O2 -o build/libioctlcount.so tests/ioctl_count.c -ldl
 *   LD_PRELOAD=build/libioctlcount.so IOCTLCOUNT_OUT=/tmp/c.txt prog ...
 *
 * Counted: ioctl/mmap/mmap64 calls whose fd is a character device with a
 * major that /proc/devices names "nvidia*", or is one of the files listed
 * in IOCTLCOUNT_DEVICES (colon-separated, matched by st_dev + st_ino).
 * Failed calls count too: the tracer sees them as well.
 *
 * At exit each process appends, in one write(2) to IOCTLCOUNT_OUT opened
 * O_APPEND (default stderr):
 *   ioctlcount pid=P ioctls=N mmaps=M
 *   req 0xREQ COUNT                      (one line per request seen)
 * Processes that leave by _exit(2), exec or a signal write nothing.
 * Real CUDA programs reach ioctl through libc's PLT from libcuda.so (also
 * with a static cudart), so interposing the libc symbol sees them all.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*mmap64_fn)(void *, size_t, int, int, int, off64_t);

static _Atomic(ioctl_fn) real_ioctl;
static _Atomic(mmap_fn) real_mmap;
static _Atomic(mmap64_fn) real_mmap64;

/* ---- which fds count: read once, lazily ---- */

#define MAX_MAJORS  16
#define MAX_DEVICES 16

static unsigned majors[MAX_MAJORS];
static int nmajors;
static struct { dev_t dev; ino_t ino; } devices[MAX_DEVICES];
static int ndevices;
static atomic_int init_state;   /* 0 not yet, 1 in progress, 2 done */

/* Raw open/read, no stdio: stdio may malloc, and malloc may mmap. */
static void load_majors(void)
{
	char buf[8192];
	int fd = open("/proc/devices", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n, len = 0;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';

	/* Character devices come first; the block list shares major numbers. */
	char *end = strstr(buf, "Block devices:");
	if (end)
		*end = '\0';
	for (char *save, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned major;
		char name[64];
		if (sscanf(line, " %u %63s", &major, name) == 2 &&
		    !strncmp(name, "nvidia", 6) && nmajors < MAX_MAJORS)
			majors[nmajors++] = major;
	}
}

static void load_devices(void)
{
	const char *env = getenv("IOCTLCOUNT_DEVICES");
	char list[4096];
	if (!env || strlen(env) >= sizeof(list))
		return;
	strcpy(list, env);
	for (char *save, *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		struct stat st;
		if (ndevices < MAX_DEVICES && stat(p, &st) == 0) {
			devices[ndevices].dev = st.st_dev;
			devices[ndevices].ino = st.st_ino;
			ndevices++;
		}
	}
}

static void ensure_init(void)
{
	if (atomic_load_explicit(&init_state, memory_order_acquire) == 2)
		return;
	int expect = 0;
	if (atomic_compare_exchange_strong(&init_state, &expect, 1)) {
		load_majors();
		load_devices();
		atomic_store_explicit(&init_state, 2, memory_order_release);
	} else {
		while (atomic_load_explicit(&init_state, memory_order_acquire) != 2)
			sched_yield();
	}
}

/* fstat every call: a per-fd cache goes stale when fds are closed and reused. */
static int tracked(int fd)
{
	struct stat st;
	if (fd < 0)
		return 0;
	ensure_init();
	if (nmajors == 0 && ndevices == 0)
		return 0;   /* nothing to match: spare the fstat */
	int saved = errno;   /* callers must see the real call's errno only */
	int r = fstat(fd, &st);
	errno = saved;
	if (r < 0)
		return 0;
	if (S_ISCHR(st.st_mode))
		for (int i = 0; i < nmajors; i++)
			if (major(st.st_rdev) == majors[i])
				return 1;
	for (int i = 0; i < ndevices; i++)
		if (st.st_dev == devices[i].dev && st.st_ino == devices[i].ino)
			return 1;
	return 0;
}

/* ---- counters: lock-free, open addressing by request ---- */

#define NSLOTS 512   /* power of two; far more requests than CUDA uses */

static struct { _Atomic uint64_t key; atomic_ulong count; } slots[NSLOTS];
static atomic_ulong n_ioctls, n_mmaps, n_overflow;

static void count_request(unsigned long req)
{
	uint64_t key = (uint32_t)req + 1ull;   /* the kernel's cmd is 32 bits; 0 = empty */
	uint32_t h = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 40);
	for (int i = 0; i < NSLOTS; i++) {
		unsigned s = (h + i) & (NSLOTS - 1);
		uint64_t k = atomic_load(&slots[s].key);
		if (k == 0) {
			uint64_t zero = 0;
			if (atomic_compare_exchange_strong(&slots[s].key, &zero, key))
				k = key;
			else
				k = zero;   /* someone else claimed it: zero now holds their key */
		}
		if (k == key) {
			atomic_fetch_add(&slots[s].count, 1);
			return;
		}
	}
	atomic_fetch_add(&n_overflow, 1);
}

/* A forked child starts from zero: its line reports only its own calls. */
static void reset_in_child(void)
{
	for (int i = 0; i < NSLOTS; i++) {
		atomic_store(&slots[i].key, 0);
		atomic_store(&slots[i].count, 0);
	}
	atomic_store(&n_ioctls, 0);
	atomic_store(&n_mmaps, 0);
	atomic_store(&n_overflow, 0);
	if (atomic_load(&init_state) == 1) {   /* fork raced a loader thread */
		nmajors = ndevices = 0;
		atomic_store(&init_state, 0);
	}
}

/* ---- interposers ---- */

static void resolve(void)
{
	atomic_store(&real_ioctl, (ioctl_fn)dlsym(RTLD_NEXT, "ioctl"));
	atomic_store(&real_mmap, (mmap_fn)dlsym(RTLD_NEXT, "mmap"));
	atomic_store(&real_mmap64, (mmap64_fn)dlsym(RTLD_NEXT, "mmap64"));
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);   /* every ioctl request takes one word */
	va_end(ap);

	if (tracked(fd)) {
		atomic_fetch_add(&n_ioctls, 1);
		count_request(req);
	}
	ioctl_fn f = atomic_load(&real_ioctl);
	if (!f) {   /* called before our constructor ran */
		resolve();
		f = atomic_load(&real_ioctl);
	}
	return f(fd, req, arg);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!(flags & MAP_ANONYMOUS) && tracked(fd))
		atomic_fetch_add(&n_mmaps, 1);
	mmap_fn f = atomic_load(&real_mmap);
	if (!f) {
		resolve();
		f = atomic_load(&real_mmap);
	}
	return f(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (!(flags & MAP_ANONYMOUS) && tracked(fd))
		atomic_fetch_add(&n_mmaps, 1);
	mmap64_fn f = atomic_load(&real_mmap64);
	if (!f) {
		resolve();
		f = atomic_load(&real_mmap64);
	}
	return f(addr, len, prot, flags, fd, off);
}

/* ---- setup and report ---- */

__attribute__((constructor)) static void ioctlcount_init(void)
{
	resolve();
	pthread_atfork(NULL, NULL, reset_in_child);
}

__attribute__((destructor)) static void ioctlcount_report(void)
{
	char buf[32768];
	size_t len = 0;
	len += snprintf(buf, sizeof(buf), "ioctlcount pid=%d ioctls=%lu mmaps=%lu\n",
			(int)getpid(), atomic_load(&n_ioctls), atomic_load(&n_mmaps));
	for (int i = 0; i < NSLOTS && len < sizeof(buf); i++) {
		uint64_t k = atomic_load(&slots[i].key);
		if (k)
			len += snprintf(buf + len, sizeof(buf) - len, "req 0x%llx %lu\n",
					(unsigned long long)(k - 1), atomic_load(&slots[i].count));
	}
	unsigned long other = atomic_load(&n_overflow);
	if (other && len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - len, "req other %lu\n", other);
	if (len > sizeof(buf))
		len = sizeof(buf);

	/* One write to an O_APPEND file keeps processes' reports whole. */
	const char *out = getenv("IOCTLCOUNT_OUT");
	int fd = out ? open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : 2;
	if (fd < 0)
		return;
	ssize_t w = write(fd, buf, len);
	(void)w;   /* nowhere left to report a failure */
	if (fd != 2)
		close(fd);
}
