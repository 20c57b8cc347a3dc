/* SPDX-License-Identifier: MIT */
/*
 * Filters: -e KEY=PATTERN[,PATTERN...], --failed, --tid, --comm.  A filter
 * is a view (call.h) that runs first, so it hides calls from the views
 * after it and from the printed output, for -r and live capture alike.
 * docs/VIEWS.md ("Filters") is the reference for what matches what.
 */
#ifndef CT_FILTER_H
#define CT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include "call.h"

struct ct_filter;

/* Most --comm names; the kernel's traced_comms map (64 entries) holds as
 * many and the dynamic loaders' names (prognames.h). */
#define CT_FILTER_MAX_COMMS 60

/*
 * Adds one command-line option to *fp (allocated on first use): opt is
 * "-e", "--failed" (arg NULL), "--tid" or "--comm".  Returns 0, or -1
 * after one line on stderr naming the bad part, e.g.
 *   cudatrace: -e 'ctl=X': unknown key 'ctl' (known: esc, ctrl, ...)
 */
int ct_filter_parse(struct ct_filter **fp, const char *opt, const char *arg);

/* Whether the call passes every filter.  Not const: --comm remembers the
 * mappings it let through, to judge their munmap (which has no comm). */
bool ct_filter_match(struct ct_filter *f, const struct ct_call *c);
struct gw_event;
/* Whether a --gpu-work event passes -e kernel= (all pass without it). */
bool ct_filter_gpu_match(const struct ct_filter *f, const struct gw_event *e);

/* The view; f stays the caller's (the view has no finish). */
struct ct_view ct_filter_view(struct ct_filter *f);

/* True if some filter needs the decoder (-e, --failed, --tid, a --comm
 * pattern): those cannot go with -w, which writes raw records. */
bool ct_filter_needs_decoder(const struct ct_filter *f);

/* True if some -e has key api or caller: it needs a trace taken with -k. */
bool ct_filter_needs_stacks(const struct ct_filter *f);
/* Whether it has -e py= (Python frames: -k or --py-stack). */
bool ct_filter_needs_pystacks(const struct ct_filter *f);

/*
 * The --comm names the kernel can check itself, before copying anything:
 * each CT_COMM_LEN bytes, zero-padded, and after them the dynamic loaders'
 * names (the kernel sees a program started through the loader under the
 * loader's name; the decoder filters it by the program's).  Returns how
 * many, or 0 when the kernel cannot filter by name (no --comm, or a
 * wildcard among them).
 */
size_t ct_filter_kernel_comms(const struct ct_filter *f, const char (**names)[CT_COMM_LEN]);

void ct_filter_free(struct ct_filter *f);

#endif
