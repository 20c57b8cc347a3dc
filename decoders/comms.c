// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "grow.h"

struct thread_comm {
	uint32_t pid;                /* a tid reused by another process is not its */
	char comm[CT_COMM_LEN];
};

struct process_comm {
	bool named;                  /* comm is set */
	bool from_proc;              /* named by the process record: kept */
	char comm[CT_COMM_LEN];
	uint32_t *tids;              /* its threads in by_tid, forgotten with it: an
				      * exit costs its own threads, not the map */
	size_t ntids, cap;
};

static struct process_comm *process(struct ct_comms *cs, uint32_t pid)
{
	return idmap_get_or_new(&cs->by_pid, pid, sizeof(struct process_comm), NULL);
}

static void name_process(struct process_comm *p, const char *comm, bool from_proc)
{
	p->named = true;
	p->from_proc = from_proc;
	memcpy(p->comm, comm, CT_COMM_LEN);
}

/* Thread tid of pid is called comm. */
static void name_thread(struct ct_comms *cs, struct process_comm *p, uint32_t pid,
			uint32_t tid, const char *comm)
{
	bool made;
	struct thread_comm *t = idmap_get_or_new(&cs->by_tid, tid, sizeof(*t), &made);
	uint32_t *more;

	if (!t)   /* out of memory, or tid 0: the record goes unnamed, as before */
		return;
	if (made || t->pid != pid) {
		more = ct_grow(p->tids, &p->cap, p->ntids + 1, sizeof(*more), 4);
		if (!more) {   /* cannot be forgotten with its process: not kept */
			free(idmap_del(&cs->by_tid, tid));
			return;
		}
		p->tids = more;
		p->tids[p->ntids++] = tid;
	}
	t->pid = pid;
	memcpy(t->comm, comm, CT_COMM_LEN);
}

void ct_comms_note(struct ct_comms *cs, uint32_t pid, uint32_t tid, const char *comm)
{
	struct process_comm *p = process(cs, pid);

	if (!p)
		return;
	name_thread(cs, p, pid, tid, comm);
	/* The main thread's name is the process's (as ps shows it), unless
	 * the process record said it; any thread's, until one of those comes. */
	if (!p->named || (!p->from_proc && tid == pid))
		name_process(p, comm, false);
}

void ct_comms_proc(struct ct_comms *cs, const struct ct_proc *p)
{
	struct process_comm *pc = process(cs, p->h.pid);

	if (!pc)
		return;
	name_process(pc, p->comm, true);
	if (p->source == CT_PROC_EXEC)   /* exec leaves one thread, tid = pid, renamed */
		name_thread(cs, pc, p->h.pid, p->h.pid, p->comm);
}

const char *ct_comms_find(const struct ct_comms *cs, uint32_t pid, uint32_t tid)
{
	const struct thread_comm *t = idmap_get(&cs->by_tid, tid);
	const struct process_comm *p;

	if (t && t->pid == pid)
		return t->comm;
	p = idmap_get(&cs->by_pid, pid);
	return p && p->named ? p->comm : NULL;
}

void ct_comms_forget_pid(struct ct_comms *cs, uint32_t pid)
{
	struct process_comm *p = idmap_del(&cs->by_pid, pid);
	const struct thread_comm *t;

	if (!p)
		return;
	for (size_t i = 0; i < p->ntids; i++)
		if ((t = idmap_get(&cs->by_tid, p->tids[i])) && t->pid == pid)
			free(idmap_del(&cs->by_tid, p->tids[i]));
	free(p->tids);
	free(p);
}

static void free_process(uint64_t pid, void *val, void *ctx)
{
	struct process_comm *p = val;

	(void)pid;
	(void)ctx;
	free(p->tids);
	free(p);
}

void ct_comms_free(struct ct_comms *cs)
{
	idmap_free_all(&cs->by_tid);
	idmap_drain(&cs->by_pid, free_process, NULL);
	idmap_free(&cs->by_pid);
}
