/* SPDX-License-Identifier: MIT */
/*
 * A process started through the dynamic loader ("ld-linux-x86-64.so.2
 * /usr/bin/nvidia-smi") has the loader's name as its comm: the kernel
 * names a process after the file it executed.  The program's name is in
 * the argv of its process record; this keeps it per process, so that its
 * calls are shown and filtered (--comm) under the name a plain start
 * would have given them.  Threads the program renamed keep their names.
 */
#ifndef CT_PROGNAMES_H
#define CT_PROGNAMES_H

#include <stddef.h>
#include <stdint.h>
#include "cudatrace.h"
#include "idmap.h"

/* The comms glibc's loaders get (x86-64, aarch64, i386, /usr/bin/ld.so),
 * cut to CT_COMM_LEN - 1 as the kernel cuts them. */
#define CT_LOADER_COMMS { "ld-linux-x86-64", "ld-linux-aarch6", "ld-linux.so.2", "ld.so" }
#define CT_NLOADER_COMMS 4

struct ct_prognames {
	struct idmap by_pid;   /* pid -> malloc'd struct progname */
};

/* True if comm (CT_COMM_LEN bytes, NUL-padded) is one of the loaders'. */
bool ct_is_loader_comm(const char *comm);
/* A process record: remembers (or forgets) the program behind the loader. */
void ct_prognames_learn(struct ct_prognames *pn, const struct ct_proc *p);
/* The name to show and filter for a thread of pid called comm: the
 * program's if comm is the loader's, else comm (NULL stays NULL). */
const char *ct_prognames_comm(const struct ct_prognames *pn, uint32_t pid, const char *comm);
/* A child starts as its parent's copy. */
void ct_prognames_fork(struct ct_prognames *pn, uint32_t parent, uint32_t child);
void ct_prognames_forget(struct ct_prognames *pn, uint32_t pid);
void ct_prognames_free(struct ct_prognames *pn);

#endif
