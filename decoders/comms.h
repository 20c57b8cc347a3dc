/* SPDX-License-Identifier: MIT */
/*
 * The command name of each traced thread, for the records that carry none.
 * A munmap record (released without a comm, so never to change) is named
 * after its thread's last comm, as the kernel gave it in the thread's
 * ioctl or mmap records; a thread not seen before gets its process's name:
 * that of its process record, else of its main thread's calls.
 */
#ifndef CT_COMMS_H
#define CT_COMMS_H

#include <stdint.h>
#include "cudatrace.h"
#include "idmap.h"

struct ct_comms {
	struct idmap by_tid;   /* tid -> its pid and its comm (comms.c) */
	struct idmap by_pid;   /* pid -> its name and its threads in by_tid */
};

/* A record of thread tid of pid that carries comm (CT_COMM_LEN bytes). */
void ct_comms_note(struct ct_comms *cs, uint32_t pid, uint32_t tid, const char *comm);
/* A process record: its name; after an exec, its one thread's too. */
void ct_comms_proc(struct ct_comms *cs, const struct ct_proc *p);
/* The comm (CT_COMM_LEN bytes) to give a record of tid of pid that has
 * none, or NULL if neither the thread nor its process was named yet. */
const char *ct_comms_find(const struct ct_comms *cs, uint32_t pid, uint32_t tid);
/* The process exited: its threads' names go with it. */
void ct_comms_forget_pid(struct ct_comms *cs, uint32_t pid);
void ct_comms_free(struct ct_comms *cs);

#endif
