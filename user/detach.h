/* SPDX-License-Identifier: MIT */
#ifndef CT_DETACH_H
#define CT_DETACH_H

struct bpf_link;

/* Destroys the links at once, each in its own thread, and sets them NULL. */
void ct_detach_links(struct bpf_link **links, int n);

#endif
