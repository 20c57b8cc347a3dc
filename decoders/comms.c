// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"

struct ct_comm_entry {
	uint32_t pid;                /* by_tid: a tid reused by another process is not its */
	bool from_proc;              /* by_pid: named by the process record, kept */
	char comm[CT_COMM_LEN];
};

static void put(struct idmap *m, uint64_t key, uint32_t pid, const char *comm, bool from_proc)
{
	struct ct_comm_entry *e = idmap_get_or_new(m, key, sizeof(*e), NULL);

	if (!e)   /* out of memory, or key 0: the record goes unnamed, as before */
		return;
	e->pid = pid;
	e->from_proc = from_proc;
	memcpy(e->comm, comm, CT_COMM_LEN);
}

void ct_comms_note(struct ct_comms *cs, uint32_t pid, uint32_t tid, const char *comm)
{
	const struct ct_comm_entry *p = idmap_get(&cs->by_pid, pid);

	put(&cs->by_tid, tid, pid, comm, false);
	/* The main thread's name is the process's (as ps shows it), unless
	 * the process record said it; any thread's, until one of those comes. */
	if (!p || (!p->from_proc && tid == pid))
		put(&cs->by_pid, pid, pid, comm, false);
}

void ct_comms_proc(struct ct_comms *cs, const struct ct_proc *p)
{
	put(&cs->by_pid, p->h.pid, p->h.pid, p->comm, true);
	if (p->source == CT_PROC_EXEC)   /* exec leaves one thread, tid = pid, renamed */
		put(&cs->by_tid, p->h.pid, p->h.pid, p->comm, false);
}

const char *ct_comms_find(const struct ct_comms *cs, uint32_t pid, uint32_t tid)
{
	const struct ct_comm_entry *e = idmap_get(&cs->by_tid, tid);

	if (e && e->pid == pid)
		return e->comm;
	e = idmap_get(&cs->by_pid, pid);
	return e ? e->comm : NULL;
}

struct dead_threads {
	uint32_t pid;
	uint64_t *tids;
	size_t n;
};

static void collect_thread(uint64_t tid, void *val, void *ctx)
{
	const struct ct_comm_entry *e = val;
	struct dead_threads *dead = ctx;

	if (e->pid == dead->pid)
		dead->tids[dead->n++] = tid;
}

void ct_comms_forget_pid(struct ct_comms *cs, uint32_t pid)
{
	struct dead_threads dead = { pid, NULL, 0 };
	size_t i;

	free(idmap_del(&cs->by_pid, pid));
	if (!cs->by_tid.used)
		return;
	/* idmap_each must not change the map: the tids first, then delete. */
	dead.tids = malloc(cs->by_tid.used * sizeof(*dead.tids));
	if (!dead.tids)
		return;   /* out of memory: kept until the end, harmless */
	idmap_each(&cs->by_tid, collect_thread, &dead);
	for (i = 0; i < dead.n; i++)
		free(idmap_del(&cs->by_tid, dead.tids[i]));
	free(dead.tids);
}

void ct_comms_free(struct ct_comms *cs)
{
	idmap_free_all(&cs->by_tid);
	idmap_free_all(&cs->by_pid);
}
