/* SPDX-License-Identifier: MIT */
#ifndef CT_DETACH_H
#define CT_DETACH_H

struct bpf_link;

/* Destroys the links at once, each in its own thread, and sets them NULL. */
void ct_detach_links(struct bpf_link **links, int n);

/*
 * Leaves the detaching of the links to a child process that does it once
 * this one has exited.  0: the child holds them (the caller's own closes
 * are then quick); -1: no child, the caller detaches them itself.
 */
int ct_detach_in_background(struct bpf_link **links, int n);

#endif
