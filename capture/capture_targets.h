/* SPDX-License-Identifier: MIT */
/*
 * What a live capture traces (capture_targets.c): the NVIDIA device files
 * and --device ones; the command it starts (-- COMMAND), the -p processes,
 * the --cgroup directory.
 */
#ifndef CT_CAPTURE_TARGETS_H
#define CT_CAPTURE_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>

struct ct_devices;
struct ct_options;

/* The NVIDIA majors and nodes (/proc/devices, /dev) and the --device
 * files.  0, or -1 after saying why. */
int ct_targets_devices(struct ct_devices *devs, const struct ct_options *o);

/* The command, once started. */
struct ct_child {
	pid_t pid;          /* -1: none */
	int status;         /* waitpid's, once done */
	bool done;
	bool released;      /* let go (ct_child_go): it may have run */
	bool terminated;    /* sent SIGTERM (ct_child_wait) */
};

/* -- COMMAND (as -u's user): forked, but held on *go_fd until ct_child_go,
 * so that its pid enters the filter before it runs.  0 (also with no
 * command), or -1 after saying why. */
int ct_child_start(struct ct_child *ch, const struct ct_options *o, int *go_fd);
/* Lets it run, unless a stop signal came first: 0 (let go, or no
 * command), 1 (a stop came: it exits without running), -1 if it cannot
 * be told. */
int ct_child_go(struct ct_child *ch, int *go_fd);
/* True once it has exited (reaped here, without waiting). */
bool ct_child_exited(struct ct_child *ch);
/* Waits for it to exit, after a SIGTERM if terminate. */
void ct_child_wait(struct ct_child *ch, bool terminate);
/* strace's convention: the command's exit status is ours (rc 0 only);
 * stopped by stop_sig (0: none) before it was let go, or stopped and
 * exiting 0 anyway, 128 + stop_sig. */
int ct_child_exit_status(const struct ct_child *ch, int rc, int stop_sig);

/* -p: a pidfd on each process (pidfds[i], or -1 without pidfd_open).
 * 0, or -1 after naming one that does not exist. */
int ct_pids_open(const struct ct_options *o, int *pidfds);
/* Like strace -p: true while any of them has not exited. */
bool ct_pids_alive(const struct ct_options *o, const int *pidfds);
void ct_pids_close(const struct ct_options *o, const int *pidfds);

/* --cgroup: an open cgroup v2 directory, or -1 with the reason said. */
int ct_cgroup_open(const char *path);

#endif
