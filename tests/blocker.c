// SPDX-License-Identifier: MIT
/*
 * blocker: process life-cycle cases for tests/live/lifecycle.py.
 *
 * usage:
 *   blocker block PATH N
 *       Opens PATH read-write (a FIFO: FIONREAD works on it), makes N
 *       ioctl(fd, FIONREAD, &int) calls that return at once, then one
 *       ioctl(fd, FIONREAD, p) where p is in a page registered with
 *       userfaultfd for missing pages: the kernel's put_user() faults and
 *       waits for a userfaultfd reply that never comes.  Prints
 *       "blocking PID" on stdout just before the last call.  Exits 3 if
 *       that call ever returns, 4 if userfaultfd cannot be set up.
 *   blocker calls PATH N FD TAG [wait|hold]
 *       Opens PATH as descriptor FD (dup2), prints "ready PID"; with
 *       "wait" or "hold", reads one line from stdin first; then makes N NVIDIA-shaped
 *       NV_ESC_RM_CONTROL ioctls on it: hClient = TAG, hObject = i
 *       (1..N), cmd 0xcafe0600.  They fail (ENOTTY) on a plain file; the
 *       tracer records them all the same.  Prints "done N" and exits 0
 *       ("hold": only once stdin reaches its end).
 *   blocker spawn PID PROG [ARGS...]
 *       clone3() with set_tid = PID (root only): the child, with exactly
 *       that pid, execs PROG.  Waits for it and exits with its status.
 *       Exits 75 if PID is taken (EEXIST), 76 if clone3/set_tid is not
 *       available.
 *   blocker spawn-noexec PID COMM PATH N FD TAG
 *       The same, but the child does not exec: it renames itself COMM
 *       (prctl) and runs "calls PATH N FD TAG" (a fork that reuses a pid).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

/* NV_ESC_RM_CONTROL: _IOWR('F', 0x2a, NVOS54), NVOS54 is 32 bytes. */
struct nvos54 {
	uint32_t hClient, hObject, cmd, flags;
	uint64_t params;
	uint32_t paramsSize, status;
};
#define NV_RM_CONTROL _IOC(_IOC_READ | _IOC_WRITE, 'F', 0x2a, sizeof(struct nvos54))

static void die(const char *what)
{
	fprintf(stderr, "blocker: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "blocker: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static int new_uffd(void)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	int dev;

	if (fd >= 0)
		return fd;
	/* unprivileged_userfaultfd=0 and no CAP_SYS_PTRACE: try the device. */
	dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	close(dev);
	return fd;
}

static int do_block(const char *path, long n)
{
	long pagesz = sysconf(_SC_PAGESIZE), i;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	int fd, uffd, avail;
	void *page;
	long r;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(path);
	for (i = 0; i < n; i++)
		if (ioctl(fd, FIONREAD, &avail) != 0)
			die("FIONREAD");
	uffd = new_uffd();
	if (uffd < 0) {
		fprintf(stderr, "blocker: userfaultfd: %s\n", strerror(errno));
		return 4;
	}
	if (ioctl(uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "blocker: UFFDIO_API: %s\n", strerror(errno));
		return 4;
	}
	page = mmap(NULL, (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED)
		die("mmap");
	reg.range.start = (uintptr_t)page;
	reg.range.len = (uint64_t)pagesz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		fprintf(stderr, "blocker: UFFDIO_REGISTER: %s\n", strerror(errno));
		return 4;
	}
	printf("blocking %d\n", (int)getpid());
	fflush(stdout);
	/* The page is missing and nobody answers the fault: this never returns. */
	r = ioctl(fd, FIONREAD, page);
	printf("returned %ld errno %d\n", r, r ? errno : 0);
	return 3;
}

static int do_calls(const char *path, long n, long want_fd, long tag, int wait, int hold)
{
	char line[64];
	long i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(path);
	if (fd != want_fd) {
		if (dup2(fd, (int)want_fd) < 0)
			die("dup2");
		close(fd);
		fd = (int)want_fd;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (wait && !fgets(line, sizeof(line), stdin))
		return 2;
	for (i = 1; i <= n; i++) {
		struct nvos54 a = { .hClient = (uint32_t)tag, .hObject = (uint32_t)i,
				    .cmd = 0xcafe0600 };

		ioctl(fd, NV_RM_CONTROL, &a);
	}
	printf("done %ld\n", n);
	fflush(stdout);
	while (hold && fgets(line, sizeof(line), stdin))
		;
	return 0;
}

/* A child with exactly this pid (clone3 set_tid: CAP_SYS_ADMIN). */
static pid_t clone_as(pid_t pid)
{
	struct clone_args ca;
	pid_t tids[1] = { pid };

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uint64_t)(uintptr_t)tids;
	ca.set_tid_size = 1;
	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

static int wait_for(pid_t child)
{
	int st;

	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

static int do_spawn(long pid, char **argv, int exec, const char *comm)
{
	pid_t child;

	fflush(stdout);
	child = clone_as((pid_t)pid);
	if (child < 0) {
		fprintf(stderr, "blocker: clone3 with set_tid %ld: %s\n", pid, strerror(errno));
		return errno == EEXIST ? 75 : 76;
	}
	if (child == 0) {
		if (exec) {
			execv(argv[0], argv);
			fprintf(stderr, "blocker: exec %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		prctl(PR_SET_NAME, comm, 0, 0, 0);
		_exit(do_calls(argv[0], num(argv[1]), num(argv[2]), num(argv[3]), 0, 0));
	}
	return wait_for(child);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "block"))
		return do_block(argv[2], num(argv[3]));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "calls"))
		return do_calls(argv[2], num(argv[3]), num(argv[4]), num(argv[5]),
				argc == 7 && (!strcmp(argv[6], "wait") || !strcmp(argv[6], "hold")),
				argc == 7 && !strcmp(argv[6], "hold"));
	if (argc >= 4 && !strcmp(argv[1], "spawn"))
		return do_spawn(num(argv[2]), argv + 3, 1, NULL);
	if (argc == 8 && !strcmp(argv[1], "spawn-noexec"))
		return do_spawn(num(argv[2]), argv + 4, 0, argv[3]);
	fprintf(stderr, "usage: blocker block PATH N | calls PATH N FD TAG [wait|hold] |\n"
			"       spawn PID PROG [ARGS] | spawn-noexec PID COMM PATH N FD TAG\n");
	return 2;
}
