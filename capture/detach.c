// SPDX-License-Identifier: MIT
/*
 * Detaching a BPF program from a syscall's own tracepoint (a perf event)
 * waits in the kernel for RCU grace periods: 40-60 ms per tracepoint on a
 * 2-CPU virtual machine, ~150 ms for two on the 16-CPU H100 machine, one
 * after the other when closed in turn.  Closed from several threads at
 * once, the waits overlap.  And nobody needs to wait for them: the trace is
 * complete and closed by then, so a child process that outlives cudatrace
 * by that long pays them instead of the user.
 */
#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "detach.h"

#define CT_MAX_LINKS 16

static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

void ct_detach_links(struct bpf_link **links, int n)
{
	pthread_t threads[CT_MAX_LINKS];
	bool started[CT_MAX_LINKS] = { false };
	int i;

	for (i = 0; i < n; i++) {
		if (!links[i])
			continue;
		/* No thread (or too many links): detach it here, in turn. */
		if (i >= CT_MAX_LINKS || pthread_create(&threads[i], NULL, destroy_link, links[i]))
			bpf_link__destroy(links[i]);
		else
			started[i] = true;
	}
	for (i = 0; i < n && i < CT_MAX_LINKS; i++)
		if (started[i])
			pthread_join(threads[i], NULL);
	for (i = 0; i < n; i++)
		links[i] = NULL;
}

int ct_detach_in_background(struct bpf_link **links, int n)
{
	int cue[2], null;
	pid_t pid;
	char c;

	if (pipe2(cue, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(cue[0]);
		close(cue[1]);
		return -1;
	}
	if (pid > 0) {
		/* The write end stays open until this process exits: the cue. */
		close(cue[0]);
		return 0;
	}
	/* The child: no output of its own, and pipes to the caller's readers
	 * must see their end when cudatrace exits, not after this child. */
	close(cue[1]);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	/* Until the parent has exited, its references keep the links attached
	 * and a close here would be quick, leaving the waits to it. */
	while (read(cue[0], &c, 1) < 0 && errno == EINTR)
		;
	ct_detach_links(links, n);
	_exit(0);
}
