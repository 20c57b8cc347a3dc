// SPDX-License-Identifier: MIT
/*
 * preload_logger: the user-space way to log NVIDIA ioctls, for comparison
 * with cudatrace in `make bench`.  An LD_PRELOAD library that interposes
 * libc's ioctl() and appends one text line per call to a file:
 *
 *   fd request ret arg32 params64
 *
 * fd and ret in decimal, request in hex, arg32 the first 32 bytes of the
 * argument as they were before the call, params64 the first 64 bytes of the
 * nested buffer (RM_CONTROL params, RM_ALLOC pAllocParms) or "-", both as
 * hex.  Argument bytes are read for NVIDIA requests only (type 'F', or one
 * of the few nvidia-uvm numbers listed below, whose sizes are not in the
 * request): reading other requests' arguments as memory could fault.
 *
 *   cc -O2 -shared -fPIC -o build/bench/preload_logger.so bench/preload_logger.c -ldl -pthread
 *   PRELOAD_LOG=/tmp/log.txt LD_PRELOAD=build/bench/preload_logger.so prog ...
 *
 * Lines are built in a 1 MiB buffer per process under a mutex and written
 * with write(2) when it fills, at fork and at exit; a process that dies by
 * a signal or _exit(2) loses what was in the buffer (which is the
 * approach's usual weakness, with static binaries and raw syscalls that
 * never reach libc's ioctl()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef int (*ioctl_fn)(int, unsigned long, ...);

static ioctl_fn real_ioctl;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static char buf[1 << 20];
static size_t used;

static void flush_locked(void)
{
	size_t off = 0;
	while (log_fd >= 0 && off < used) {
		ssize_t w = write(log_fd, buf + off, used - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	used = 0;
}

static void at_prepare(void) { pthread_mutex_lock(&mu); flush_locked(); }
static void at_parent(void) { pthread_mutex_unlock(&mu); }
static void at_child(void) { pthread_mutex_unlock(&mu); }

__attribute__((constructor)) static void init(void)
{
	real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	const char *path = getenv("PRELOAD_LOG");
	if (path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	pthread_atfork(at_prepare, at_parent, at_child);
}

__attribute__((destructor)) static void fini(void)
{
	pthread_mutex_lock(&mu);
	flush_locked();
	pthread_mutex_unlock(&mu);
}

static const char hexd[] = "0123456789abcdef";

static char *put_hex(char *p, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*p++ = hexd[b[i] >> 4];
		*p++ = hexd[b[i] & 15];
	}
	return p;
}

static char *put_dec(char *p, long v)
{
	char t[24];
	int n = 0;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	do
		t[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = t[--n];
	return p;
}

/* Argument size of an NVIDIA request, 0 if not one this logger knows.
 * UVM requests are plain numbers: a few sizes from uvm_ioctl.h. */
static size_t nvidia_arg_size(unsigned long req)
{
	if (_IOC_TYPE(req) == 'F')
		return _IOC_SIZE(req);
	switch (req) {
	case 0x30000001ul: return 16;   /* UVM_INITIALIZE */
	case 0x21: return 9264;         /* UVM_MAP_EXTERNAL_ALLOCATION */
	case 0x22: return 24;           /* UVM_FREE */
	case 0x25: return 40;           /* UVM_REGISTER_GPU */
	case 0x49: return 24;           /* UVM_CREATE_EXTERNAL_RANGE */
	case 0x4b: return 8;            /* UVM_MM_INITIALIZE */
	}
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");

	unsigned char a[32], p[64];
	size_t alen = 0, plen = 0;
	size_t want = arg ? nvidia_arg_size(req) : 0;
	if (want) {
		alen = want < 32 ? want : 32;
		memcpy(a, arg, alen);
		if (_IOC_TYPE(req) == 'F' && alen == 32) {
			uint64_t ptr;
			uint32_t size = 0;
			memcpy(&ptr, a + 16, 8);
			if (_IOC_NR(req) == 0x2a)                          /* NVOS54 */
				memcpy(&size, a + 24, 4);
			else if (_IOC_NR(req) == 0x2b && _IOC_SIZE(req) == 48) /* NVOS64 */
				memcpy(&size, (unsigned char *)arg + 32, 4);
			else if (_IOC_NR(req) == 0x2b)                     /* NVOS21 */
				memcpy(&size, a + 24, 4);
			if (ptr && size) {
				plen = size < 64 ? size : 64;
				memcpy(p, (void *)(uintptr_t)ptr, plen);
			}
		}
	}

	int ret = real_ioctl(fd, req, arg);
	int saved_errno = errno;

	/* fd req ret: < 50 bytes; hex 64 + 128; separators */
	char line[320], *q = line;
	q = put_dec(q, fd);
	*q++ = ' ';
	*q++ = '0';
	*q++ = 'x';
	for (int s = 28; s >= 0; s -= 4)
		*q++ = hexd[(req >> s) & 15];
	*q++ = ' ';
	q = put_dec(q, ret);
	*q++ = ' ';
	if (alen)
		q = put_hex(q, a, alen);
	else
		*q++ = '-';
	*q++ = ' ';
	if (plen)
		q = put_hex(q, p, plen);
	else
		*q++ = '-';
	*q++ = '\n';

	pthread_mutex_lock(&mu);
	if (used + (size_t)(q - line) > sizeof(buf))
		flush_locked();
	memcpy(buf + used, line, (size_t)(q - line));
	used += (size_t)(q - line);
	pthread_mutex_unlock(&mu);
	errno = saved_errno;
	return ret;
}
