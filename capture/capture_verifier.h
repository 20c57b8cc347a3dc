/* SPDX-License-Identifier: MIT */
/*
 * The kernel verifier's own figures for each program a capture loads
 * (capture_verifier.c): how long it took and how many instructions it
 * walked of its limit.  Asked for with CT_BPF_VERIFIER_STATS=1; the
 * figures go to stderr, one line a program, for bench/load_cost.py and
 * the test that keeps the programs well inside the limit.
 */
#ifndef CT_CAPTURE_VERIFIER_H
#define CT_CAPTURE_VERIFIER_H

struct bpf_object;
struct ct_verifier_logs;

/* Where CT_BPF_VERIFIER_STATS=1, asks the kernel for each program's
 * figures at the next load; NULL where not asked (or out of memory: said). */
struct ct_verifier_logs *ct_verifier_stats_ask(struct bpf_object *obj);

/* Prints what the load just made of them, and frees l; NULL is fine. */
void ct_verifier_stats_print(struct ct_verifier_logs *l, struct bpf_object *obj);

#endif
