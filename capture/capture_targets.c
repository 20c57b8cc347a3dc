// SPDX-License-Identifier: MIT
/*
 * What a live capture traces (capture_targets.h): the device files it
 * knows, the command it starts and lets go, the -p processes it watches
 * until they exit, the --cgroup directory it checks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_signals.h"
#include "capture_targets.h"
#include "devices.h"
#include "options.h"
#include "run_as.h"
#include "msg.h"

int ct_targets_devices(struct ct_devices *devs, const struct ct_options *o)
{
	char err[512];
	int i;

	ct_read_nvidia_majors(devs, "/proc/devices");
	ct_scan_dev_nodes(devs, o->dev_root);
	for (i = 0; i < o->ndevices; i++) {
		if (ct_add_user_device(devs, o->devices[i], err, sizeof(err))) {
			ct_err("%s\n", err);
			return -1;
		}
	}
	if (devs->nmajors == 0 && devs->nuser == 0) {
		ct_err("no NVIDIA device nodes found (no nvidia* entry in "
				"/proc/devices: is the driver loaded?); use --device PATH to "
				"trace another device or file\n");
		return -1;
	}
	return 0;
}

/*
 * Forks the command stopped on a pipe, so its pid can enter the filter
 * before it runs a single instruction of the new program.  Forked with the
 * signals held: the child lets them in only with the dispositions
 * cudatrace was started with, never with cudatrace's handlers.
 */
static pid_t spawn_stopped(char **argv, const struct ct_run_as *ra, int *go_fd)
{
	sigset_t old;
	int p[2], err;
	pid_t pid;
	char b;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	ct_signals_hold(&old);
	pid = fork();
	if (pid == 0) {
		ct_signals_child_reset(&old);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(127);   /* cudatrace went away, or stopped, before starting us */
		close(p[0]);
		if (ra && (err = ct_run_as_enter(ra))) {   /* -u: strace's order, then exec */
			ct_err("-u: cannot become uid %u: %s\n",
				(unsigned)ra->uid, strerror(-err));
			_exit(127);
		}
		execvp(argv[0], argv);
		ct_err("cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	err = errno;
	ct_signals_release(&old);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		errno = err;
		return -1;
	}
	*go_fd = p[1];
	return pid;
}

int ct_child_start(struct ct_child *ch, const struct ct_options *o, int *go_fd)
{
	struct ct_run_as ra;

	if (o->run_as && ct_run_as_lookup(o->run_as, &ra))
		return -1;
	if (o->command) {
		ch->pid = spawn_stopped(o->command, o->run_as ? &ra : NULL, go_fd);
		if (ch->pid < 0) {
			ct_err("cannot start %s: %s\n", o->command[0],
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

int ct_child_go(struct ct_child *ch, int *go_fd)
{
	sigset_t old;
	int rc = 0;

	if (*go_fd < 0)
		return 0;
	/* Held: a stop that comes after the check finds the command let go,
	 * and stops it (ct_child_wait). */
	ct_signals_hold(&old);
	if (ct_stop_signal())
		rc = 1;
	else if (write(*go_fd, "g", 1) == 1)
		ch->released = true;
	else
		rc = -1;
	ct_signals_release(&old);
	close(*go_fd);   /* not let go: it sees EOF and exits 127 */
	*go_fd = -1;
	return rc;
}

bool ct_child_exited(struct ct_child *ch)
{
	int status;

	if (ch->pid > 0 && !ch->done && waitpid(ch->pid, &status, WNOHANG) == ch->pid) {
		ch->done = true;
		ch->status = status;
	}
	return ch->done;
}

void ct_child_wait(struct ct_child *ch, bool terminate)
{
	if (ch->pid > 0 && !ch->done) {
		if (terminate) {
			kill(ch->pid, SIGTERM);
			ch->terminated = true;
		}
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->done = true;
	}
}

int ct_child_exit_status(const struct ct_child *ch, int rc, int stop_sig)
{
	int status;

	if (rc != 0 || ch->pid <= 0)
		return rc;
	if (stop_sig && !ch->released)   /* it never ran: strace's 128 + signal */
		return 128 + stop_sig;
	if (!ch->done)
		return rc;
	status = WIFSIGNALED(ch->status) ? 128 + WTERMSIG(ch->status) :
		 WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : rc;
	/* Stopped, it did not finish: never 0, though it took SIGTERM and
	 * exited 0. */
	return status == 0 && ch->terminated && stop_sig ? 128 + stop_sig : status;
}

/*
 * Each -p process is held by a pidfd: it names that process and no other,
 * so a new process that gets the pid after it exits is not taken for it.
 * Without pidfd_open (before Linux 5.3, or a thread id) /proc is asked.
 */
int ct_pids_open(const struct ct_options *o, int *pidfds)
{
	int i;

	for (i = 0; i < o->npids; i++) {
		pidfds[i] = (int)syscall(SYS_pidfd_open, (pid_t)o->pids[i], 0);
		if ((pidfds[i] < 0 && errno == ESRCH) ||
		    (kill((pid_t)o->pids[i], 0) && errno == ESRCH)) {
			ct_err("no such process: %u\n", o->pids[i]);
			return -1;
		}
	}
	return 0;
}

/* Without a pidfd: whether /proc/PID/stat shows a process that can still
 * make calls (a zombie has made its last). */
static bool proc_alive(const char *proc_root, uint32_t pid)
{
	char path[64], buf[256], *rp;
	int fd, n;

	snprintf(path, sizeof(path), "%s/%u/stat", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

bool ct_pids_alive(const struct ct_options *o, const int *pidfds)
{
	int i;

	for (i = 0; i < o->npids; i++) {
		struct pollfd pfd = { .fd = pidfds[i], .events = POLLIN };

		/* Readable once the process has exited (a zombie included). */
		if (pfd.fd >= 0) {
			if (poll(&pfd, 1, 0) != 1)
				return true;   /* not yet (or EINTR: ask again later) */
			continue;
		}
		if (proc_alive(o->proc_root, o->pids[i]))
			return true;
	}
	return false;
}

void ct_pids_close(const struct ct_options *o, const int *pidfds)
{
	int i;

	for (i = 0; i < o->npids; i++)
		if (pidfds[i] >= 0)
			close(pidfds[i]);
}

#define CGROUP2_SUPER_MAGIC 0x63677270

int ct_cgroup_open(const char *path)
{
	struct statfs fs;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		ct_err("--cgroup %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		ct_err("--cgroup %s: not a cgroup v2 directory (look under "
				"/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system)\n",
			path);
		close(fd);
		return -1;
	}
	return fd;
}
