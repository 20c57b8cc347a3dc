// SPDX-License-Identifier: MIT
/*
 * nvfake: issue NVIDIA-shaped ioctls (x86-64, driver 580 ABI) on a stand-in
 * file so the tracer can be tested without a GPU.  On a regular file every
 * ioctl fails with ENOTTY; that is fine, the tracer copies the arguments at
 * syscall entry and exit either way.
 *
 * usage: nvfake -f PATH [-u UVMPATH] [--expect FILE] MODE [ARGS]
 *   -f PATH        stand-in for /dev/nvidiactl (created if missing)
 *   -u UVMPATH     stand-in for /dev/nvidia-uvm (default: the -f file)
 *   --expect FILE  script mode only: JSON Lines of every syscall sent
 * modes:
 *   script               one of each request below, then mmap+munmap
 *   burst N [CMD]        N RM_CONTROL back to back; "sent N ns_per_ioctl X"
 *                        (CMD: the control command, 0xHEX, instead of 0xcafe0200)
 *   threads T N          T threads x N RM_CONTROL each
 *   fork K               K children do one RM_CONTROL each, parent one too
 *   export               objects through an export fd, across processes (below)
 *   first                one RM_CONTROL as the very first thing main does
 *                        (only when spelled exactly "nvfake -f PATH first")
 *   wait-then SECS MODE  open the files, sleep SECS (tracer attaches by
 *                        pid), then run MODE
 *   then-wait SECS MODE  run MODE, then sleep SECS (the process stays while
 *                        a tracer reads its /proc, e.g. its cgroup)
 *
 * Byte patterns.  fill(buf, n, seed) writes little-endian u32 words
 * word[j] = seed << 24 | j (the tail is cut to n bytes), so every buffer
 * names its call in its top byte and its offset in the low bytes.
 * script call k (1-based, in the order below) uses seed 0xa0 + k and sets
 * handles hClient/hRoot = 0xc1d00000+k, hObject/hObjectParent = 0x0b1e0000+k,
 * hObjectNew/hObjectOld = 0x0e170000+k, hClass = 0xc0de0000+k,
 * RM_CONTROL cmd = 0xcafe0100+k, flags and status 0:
 *   1 RM_CONTROL  NVOS54, params 64 bytes
 *   2 RM_CONTROL  NVOS54, params NULL, paramsSize 0  (no nested buffer)
 *   3 RM_CONTROL  NVOS54, params 10000 bytes (over the tracer's default -s)
 *   4 RM_ALLOC    NVOS64, pAllocParms 40 bytes, pRightsRequested NULL
 *   5 RM_ALLOC    NVOS21, pAllocParms 24 bytes
 *   6 RM_FREE     NVOS00
 *   7 XFER_CMD    wraps RM_CONTROL: nested = the 32-byte NVOS54, whose own
 *                 params (48 bytes, seed 0xa0+k+0x10) is a second level
 *   8-11 UVM_INITIALIZE, UVM_MM_INITIALIZE, UVM_REGISTER_GPU,
 *                 UVM_MAP_EXTERNAL_ALLOCATION: whole arg filled with the
 *                 pattern (values are meaningless, bytes are checkable)
 *   then mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0), munmap.
 * The other modes send RM_CONTROL with hClient 0xc1d00000, 64-byte params:
 *   burst: hObject 0x0b0b0000, cmd 0xcafe0200, seed 0xb0
 *   threads: thread i (0-based): hObject 0x7e000000+i, cmd 0xcafe0300, seed 0x10+i
 *   fork: child i (1..K), parent i = 0: hObject 0xf0000000+i, cmd 0xcafe0400, seed i
 *   first: hObject 0x0f1f0000, cmd 0xcafe0500, seed 0xf1
 * export (RM object export/import, ctrl0000unix.h layouts): the parent
 * opens an export file (a memfd) as fd A and sends EXPORT_OBJECTS_TO_FD
 * (0x3d0b, fd A, objects[0] 0x0e170001), passes fd A to a child over a unix
 * socket (SCM_RIGHTS), where it arrives as fd B != A; the child sends
 * IMPORT_OBJECTS_FROM_FD (0x3d0c, fd B, hParent 0x0d000002, objects[0]
 * 0x0e170002).  Then the parent opens a second export file, fd D, and sends
 * EXPORT_OBJECT_TO_FD (0x3d05, fd D, hObject 0x0e170003).  Prints
 * "export pid P fd A", "import pid C fd B", "other pid P fd D", "sent 3".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- driver ABI (nv-ioctl-numbers.h, nvos.h, uvm_ioctl.h) ---- */

#define NV_IOCTL_MAGIC        'F'
#define NV_ESC_RM_FREE        0x29
#define NV_ESC_RM_CONTROL     0x2a
#define NV_ESC_RM_ALLOC       0x2b
#define NV_ESC_IOCTL_XFER_CMD 0xd3
/* _IOWR wants a type and takes sizeof itself; spell out the size instead. */
#define NV_REQ(nr, obj)       _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, nr, sizeof(obj))

/* UVM requests are plain numbers, not _IOC encoded. */
#define UVM_INITIALIZE              0x30000001ul
#define UVM_MM_INITIALIZE           0x4bul
#define UVM_REGISTER_GPU            0x25ul
#define UVM_MAP_EXTERNAL_ALLOCATION 0x21ul

struct nvos54 {         /* NV_ESC_RM_CONTROL */
	uint32_t hClient, hObject, cmd, flags;
	uint64_t params;
	uint32_t paramsSize, status;
};
struct nvos64 {         /* NV_ESC_RM_ALLOC, current form */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms, pRightsRequested;
	uint32_t paramsSize, flags, status, _pad;
};
struct nvos21 {         /* NV_ESC_RM_ALLOC, old form */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms;
	uint32_t paramsSize, status;
};
struct nvos00 {         /* NV_ESC_RM_FREE */
	uint32_t hRoot, hObjectParent, hObjectOld, status;
};
struct nv_xfer {        /* nv_ioctl_xfer_t */
	uint32_t cmd, size;
	uint64_t ptr;
};

_Static_assert(sizeof(struct nvos54) == 32 && offsetof(struct nvos54, params) == 16 &&
	       offsetof(struct nvos54, status) == 28, "NVOS54 layout");
_Static_assert(sizeof(struct nvos64) == 48 && offsetof(struct nvos64, pRightsRequested) == 24 &&
	       offsetof(struct nvos64, status) == 40, "NVOS64 layout");
_Static_assert(sizeof(struct nvos21) == 32 && offsetof(struct nvos21, paramsSize) == 24, "NVOS21 layout");
_Static_assert(sizeof(struct nvos00) == 16, "NVOS00 layout");
_Static_assert(sizeof(struct nv_xfer) == 16 && offsetof(struct nv_xfer, ptr) == 8, "xfer layout");

/* UVM argument sizes; the contents are only a pattern here. */
#define UVM_INITIALIZE_SIZE     16
#define UVM_MM_INITIALIZE_SIZE  8
#define UVM_REGISTER_GPU_SIZE   40
#define UVM_MAP_EXTERNAL_SIZE   9264

/* ---- helpers ---- */

static int nv_fd = -1, uvm_fd = -1;
static FILE *expect_f;

static long tid_now(void) { return syscall(SYS_gettid); }
static uint64_t ptr64(const void *p) { return (uint64_t)(uintptr_t)p; }

static void fill(void *buf, size_t n, uint32_t seed)
{
	unsigned char *b = buf;
	for (size_t i = 0; i < n; i++) {
		uint32_t w = seed << 24 | (uint32_t)(i / 4);
		b[i] = (unsigned char)(w >> (8 * (i % 4)));
	}
}

static void put_hex(FILE *f, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static long num_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);
	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "nvfake: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/*
 * One ioctl.  With --expect the object is written before the call so
 * arg_in/nested_in are the bytes as sent even if a real driver rewrote them.
 */
static long send_ioctl(int fd, unsigned long req, void *arg, size_t arg_len,
		       const void *nest, size_t nest_len)
{
	if (expect_f) {
		fprintf(expect_f, "{\"syscall\":\"ioctl\",\"fd\":%d,\"request\":\"0x%lx\","
			"\"arg\":\"0x%" PRIx64 "\",\"arg_in\":\"", fd, req, ptr64(arg));
		put_hex(expect_f, arg, arg_len);
		fputs("\",\"nested_in\":\"", expect_f);
		if (nest)
			put_hex(expect_f, nest, nest_len);
		fprintf(expect_f, "\",\"tid\":%ld", tid_now());
	}
	long r = ioctl(fd, req, arg);
	if (r < 0)
		r = -errno;     /* the kernel's view, what the tracer records */
	if (expect_f)
		fprintf(expect_f, ",\"ret\":%ld}\n", r);
	return r;
}

/* The RM_CONTROL used by burst, threads, fork and first. */
static void rm_control(uint32_t hobj, uint32_t cmd, void *params, uint32_t size)
{
	struct nvos54 p = { .hClient = 0xc1d00000, .hObject = hobj, .cmd = cmd,
			    .params = ptr64(params), .paramsSize = size };
	send_ioctl(nv_fd, NV_REQ(NV_ESC_RM_CONTROL, p), &p, sizeof(p), params, size);
}

/* ---- modes ---- */

static void script(void)
{
	static unsigned char p1[64], p3[10000], p4[40], p5[24], p7[48];
	static unsigned char u8a[UVM_INITIALIZE_SIZE], u9[UVM_MM_INITIALIZE_SIZE],
		u10[UVM_REGISTER_GPU_SIZE], u11[UVM_MAP_EXTERNAL_SIZE];
	uint32_t k = 0;

	/* 1-3: RM_CONTROL with a normal, an absent and an oversized params */
	struct { unsigned char *buf; uint32_t size; } ctl[] = {
		{ p1, sizeof(p1) }, { NULL, 0 }, { p3, sizeof(p3) },
	};
	for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		k++;
		if (ctl[i].buf)
			fill(ctl[i].buf, ctl[i].size, 0xa0 + k);
		struct nvos54 c = { 0xc1d00000 + k, 0x0b1e0000 + k, 0xcafe0100 + k, 0,
				    ptr64(ctl[i].buf), ctl[i].size, 0 };
		send_ioctl(nv_fd, NV_REQ(NV_ESC_RM_CONTROL, c), &c, sizeof(c), ctl[i].buf, ctl[i].size);
	}

	k++;    /* 4: RM_ALLOC, NVOS64 */
	fill(p4, sizeof(p4), 0xa0 + k);
	struct nvos64 a64 = { 0xc1d00000 + k, 0x0b1e0000 + k, 0x0e170000 + k, 0xc0de0000 + k,
			      ptr64(p4), 0, sizeof(p4), 0, 0, 0 };
	send_ioctl(nv_fd, NV_REQ(NV_ESC_RM_ALLOC, a64), &a64, sizeof(a64), p4, sizeof(p4));

	k++;    /* 5: RM_ALLOC, NVOS21 */
	fill(p5, sizeof(p5), 0xa0 + k);
	struct nvos21 a21 = { 0xc1d00000 + k, 0x0b1e0000 + k, 0x0e170000 + k, 0xc0de0000 + k,
			      ptr64(p5), sizeof(p5), 0 };
	send_ioctl(nv_fd, NV_REQ(NV_ESC_RM_ALLOC, a21), &a21, sizeof(a21), p5, sizeof(p5));

	k++;    /* 6: RM_FREE */
	struct nvos00 fr = { 0xc1d00000 + k, 0x0b1e0000 + k, 0x0e170000 + k, 0 };
	send_ioctl(nv_fd, NV_REQ(NV_ESC_RM_FREE, fr), &fr, sizeof(fr), NULL, 0);

	k++;    /* 7: XFER_CMD wrapping an RM_CONTROL */
	fill(p7, sizeof(p7), 0xa0 + k + 0x10);
	struct nvos54 inner = { 0xc1d00000 + k, 0x0b1e0000 + k, 0xcafe0100 + k, 0,
				ptr64(p7), sizeof(p7), 0 };
	struct nv_xfer x = { NV_ESC_RM_CONTROL, sizeof(inner), ptr64(&inner) };
	send_ioctl(nv_fd, NV_REQ(NV_ESC_IOCTL_XFER_CMD, x), &x, sizeof(x), &inner, sizeof(inner));

	/* 8-11: UVM, on the UVM stand-in */
	struct { unsigned long req; unsigned char *buf; size_t size; } uvm[] = {
		{ UVM_INITIALIZE, u8a, sizeof(u8a) },
		{ UVM_MM_INITIALIZE, u9, sizeof(u9) },
		{ UVM_REGISTER_GPU, u10, sizeof(u10) },
		{ UVM_MAP_EXTERNAL_ALLOCATION, u11, sizeof(u11) },
	};
	for (size_t i = 0; i < sizeof(uvm) / sizeof(uvm[0]); i++) {
		k++;
		fill(uvm[i].buf, uvm[i].size, 0xa0 + k);
		send_ioctl(uvm_fd, uvm[i].req, uvm[i].buf, uvm[i].size, NULL, 0);
	}

	/* mmap needs a file long enough to map; device nodes are left alone */
	struct stat st;
	if (fstat(nv_fd, &st) < 0)
		die("fstat");
	if (S_ISREG(st.st_mode) && st.st_size < 65536 && ftruncate(nv_fd, 65536) < 0)
		die("ftruncate");
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, nv_fd, 0);
	int merr = errno;
	if (expect_f) {
		fprintf(expect_f, "{\"syscall\":\"mmap\",\"fd\":%d,\"len\":4096,\"prot\":%d,"
			"\"flags\":%d,\"offset\":0,", nv_fd, PROT_READ | PROT_WRITE, MAP_SHARED);
		if (m == MAP_FAILED)
			fprintf(expect_f, "\"ret\":\"-%d\"", merr);
		else
			fprintf(expect_f, "\"ret\":\"0x%" PRIx64 "\"", ptr64(m));
		fprintf(expect_f, ",\"tid\":%ld}\n", tid_now());
	}
	if (m == MAP_FAILED) {
		fprintf(stderr, "nvfake: mmap: %s\n", strerror(merr));
		return;
	}
	if (munmap(m, 4096) < 0)
		die("munmap");
	if (expect_f)
		fprintf(expect_f, "{\"syscall\":\"munmap\",\"addr\":\"0x%" PRIx64 "\",\"len\":4096,"
			"\"tid\":%ld}\n", ptr64(m), tid_now());
	printf("sent ioctls %" PRIu32 " mmaps 1 munmaps 1\n", k);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void burst(long n, uint32_t cmd)
{
	unsigned char params[64];
	fill(params, sizeof(params), 0xb0);
	struct nvos54 p = { 0xc1d00000, 0x0b0b0000, cmd, 0, ptr64(params), sizeof(params), 0 };
	unsigned long req = NV_REQ(NV_ESC_RM_CONTROL, p);
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		(void)ioctl(nv_fd, req, &p);   /* ENOTTY expected on a stand-in */
	double t1 = now_ns();
	printf("sent %ld ns_per_ioctl %.1f\n", n, n ? (t1 - t0) / n : 0.0);
}

struct worker {
	pthread_t th;
	pthread_barrier_t *go;
	long idx, n, tid, sent;
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	unsigned char params[64];
	fill(params, sizeof(params), 0x10 + (uint32_t)w->idx);
	w->tid = tid_now();
	pthread_barrier_wait(w->go);   /* start together to overlap in the tracer */
	for (long i = 0; i < w->n; i++, w->sent++)
		rm_control(0x7e000000 + (uint32_t)w->idx, 0xcafe0300, params, sizeof(params));
	return NULL;
}

static void threads(long t, long n)
{
	pthread_barrier_t go;
	if (t < 1 || pthread_barrier_init(&go, NULL, (unsigned)t))
		die("threads");
	struct worker *w = calloc(t, sizeof(*w));
	if (!w)
		die("calloc");
	for (long i = 0; i < t; i++) {
		w[i] = (struct worker){ .go = &go, .idx = i, .n = n };
		if (pthread_create(&w[i].th, NULL, thread_main, &w[i]))
			die("pthread_create");
	}
	long total = 0;
	for (long i = 0; i < t; i++) {
		pthread_join(w[i].th, NULL);
		printf("thread %ld tid %ld sent %ld\n", i, w[i].tid, w[i].sent);
		total += w[i].sent;
	}
	printf("sent %ld\n", total);
	pthread_barrier_destroy(&go);
	free(w);
}

static void fork_children(long k)
{
	unsigned char params[64];
	pid_t *pids = calloc(k + 1, sizeof(*pids));
	if (!pids)
		die("calloc");
	fflush(NULL);   /* else children would flush the parent's buffers again */
	for (long i = 1; i <= k; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			fill(params, sizeof(params), (uint32_t)i);
			rm_control(0xf0000000 + (uint32_t)i, 0xcafe0400, params, sizeof(params));
			exit(0);   /* exit, not _exit: LD_PRELOAD counters report at exit */
		}
	}
	fill(params, sizeof(params), 0);
	rm_control(0xf0000000, 0xcafe0400, params, sizeof(params));
	int bad = 0;
	for (long i = 1; i <= k; i++) {
		int st;
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		printf("child %ld pid %d\n", i, (int)pids[i]);
	}
	printf("parent pid %d\nsent %ld\n", (int)getpid(), k + 1);
	free(pids);
	if (bad) {
		fprintf(stderr, "nvfake: %d children failed\n", bad);
		exit(1);
	}
}

/* Sends fd over sock with SCM_RIGHTS. */
static void send_fd(int sock, int fd)
{
	char byte = 'x', cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &m, 0) != 1)
		die("sendmsg");
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(c = CMSG_FIRSTHDR(&m)) || c->cmsg_type != SCM_RIGHTS)
		die("recvmsg");
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void export_import(void)
{
	static unsigned char ex[2128], im[652], one[24];
	uint32_t v;
	int sv[2], a, b, d, st, pad;
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	a = memfd_create("export", MFD_CLOEXEC);
	if (a < 0)
		die("memfd_create");
	v = (uint32_t)a;      memcpy(ex + 0, &v, 4);       /* fd */
	v = 0x0d000001;       memcpy(ex + 4, &v, 4);       /* hDevice */
	v = 1;                memcpy(ex + 8, &v, 2);       /* maxObjects */
	v = 0x0e170001;       memcpy(ex + 76, &v, 4);      /* objects[0] */
	v = 1;                memcpy(ex + 2124, &v, 2);    /* numObjects; index 0 */
	rm_control(0xc1d00000, 0x3d0b, ex, sizeof(ex));
	printf("export pid %d fd %d\n", (int)getpid(), a);
	fflush(NULL);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(a);
		pad = open("/dev/null", O_RDONLY);   /* takes A's number: B != A */
		(void)pad;
		b = recv_fd(sv[1]);
		v = (uint32_t)b;      memcpy(im + 0, &v, 4);   /* fd */
		v = 0x0d000002;       memcpy(im + 4, &v, 4);   /* hParent */
		v = 0x0e170002;       memcpy(im + 8, &v, 4);   /* objects[0] */
		v = 1;                memcpy(im + 648, &v, 2); /* numObjects; index 0 */
		rm_control(0xc1d00000, 0x3d0c, im, sizeof(im));
		printf("import pid %d fd %d\n", (int)getpid(), b);
		exit(0);
	}
	send_fd(sv[0], a);
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
	d = memfd_create("other", MFD_CLOEXEC);
	if (d < 0)
		die("memfd_create");
	v = 1;                memcpy(one + 0, &v, 4);      /* type RM */
	v = 0x0d000001;       memcpy(one + 4, &v, 4);      /* hDevice */
	v = 0x0e170003;       memcpy(one + 12, &v, 4);     /* hObject */
	v = (uint32_t)d;      memcpy(one + 16, &v, 4);     /* fd */
	rm_control(0xc1d00000, 0x3d05, one, sizeof(one));
	printf("other pid %d fd %d\nsent 3\n", (int)getpid(), d);
}

static void run_mode(char **a, int n)
{
	if (n < 1)
		goto usage;
	if (!strcmp(a[0], "script") && n == 1) {
		script();
	} else if (!strcmp(a[0], "burst") && (n == 2 || n == 3)) {
		burst(num_arg(a[1]), n == 3 ? (uint32_t)strtoul(a[2], NULL, 16) : 0xcafe0200);
	} else if (!strcmp(a[0], "threads") && n == 3) {
		threads(num_arg(a[1]), num_arg(a[2]));
	} else if (!strcmp(a[0], "fork") && n == 2) {
		fork_children(num_arg(a[1]));
	} else if (!strcmp(a[0], "export") && n == 1) {
		export_import();
	} else if (!strcmp(a[0], "first") && n == 1) {
		unsigned char params[64];
		fill(params, sizeof(params), 0xf1);
		rm_control(0x0f1f0000, 0xcafe0500, params, sizeof(params));
		printf("sent 1\n");
	} else if (!strcmp(a[0], "wait-then") && n >= 3) {
		double s = strtod(a[1], NULL);
		struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
		printf("pid %d waiting %s\n", (int)getpid(), a[1]);
		fflush(stdout);   /* the harness reads the pid before we wake */
		nanosleep(&ts, NULL);
		run_mode(a + 2, n - 2);
	} else if (!strcmp(a[0], "then-wait") && n >= 3) {
		double s = strtod(a[1], NULL);
		struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

		run_mode(a + 2, n - 2);
		fflush(stdout);
		nanosleep(&ts, NULL);
	} else {
		goto usage;
	}
	return;
usage:
	fprintf(stderr, "usage: nvfake -f PATH [-u UVMPATH] [--expect FILE] "
		"script | burst N [CMD] | threads T N | fork K | export | first | wait-then SECS MODE... | then-wait SECS MODE...\n");
	exit(2);
}

static int open_standin(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

int main(int argc, char **argv)
{
	/* first: the RM_CONTROL comes before any other work in main */
	if (argc == 4 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "first")) {
		unsigned char params[64];
		nv_fd = open_standin(argv[2]);
		fill(params, sizeof(params), 0xf1);
		rm_control(0x0f1f0000, 0xcafe0500, params, sizeof(params));
		printf("sent 1\n");
		return 0;
	}

	const char *path = NULL, *uvm_path = NULL, *expect_path = NULL;
	char **pos = calloc(argc, sizeof(*pos));
	int npos = 0;
	if (!pos)
		die("calloc");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "-u") && i + 1 < argc)
			uvm_path = argv[++i];
		else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
			expect_path = argv[++i];
		else
			pos[npos++] = argv[i];
	}
	if (!path)
		run_mode(NULL, 0);   /* prints usage */
	if (expect_path && (npos == 0 || strcmp(pos[npos - 1], "script"))) {
		fprintf(stderr, "nvfake: --expect only applies to script\n");
		return 2;
	}
	nv_fd = open_standin(path);
	uvm_fd = uvm_path ? open_standin(uvm_path) : nv_fd;
	if (expect_path && !(expect_f = fopen(expect_path, "w")))
		die(expect_path);

	run_mode(pos, npos);

	if (expect_f && fclose(expect_f))
		die(expect_path);
	free(pos);
	return 0;
}
