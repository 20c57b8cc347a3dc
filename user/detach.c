// SPDX-License-Identifier: MIT
/*
 * Detaching a BPF program from a syscall's own tracepoint (a perf event)
 * waits in the kernel for RCU grace periods, ~40-60 ms per tracepoint on a
 * virtual machine, one after the other when closed in turn.  Closed from
 * several threads at once, the waits overlap: the capture ends after one
 * such wait instead of one per tracepoint.
 */
#include <pthread.h>
#include <stdbool.h>
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
