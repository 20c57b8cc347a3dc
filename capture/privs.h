/* SPDX-License-Identifier: MIT */
#ifndef CT_PRIVS_H
#define CT_PRIVS_H

/*
 * Once the BPF programs are loaded and attached, keep only what the
 * capture still needs: CAP_BPF (ring buffer and counter maps), CAP_PERFMON,
 * CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (naming fds and processes in /proc),
 * CAP_DAC_OVERRIDE (rotated trace files), and under sudo CAP_CHOWN (they go
 * to the user who ran sudo: run_as.h).  Everything else goes, from the
 * bounding set too, and no exec can gain privileges back.
 * Returns 0, or -errno (the capture goes on, with a warning).
 */
int ct_drop_privileges(void);

#endif
