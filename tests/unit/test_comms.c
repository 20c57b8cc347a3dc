// SPDX-License-Identifier: MIT
/*
 * decoders/comms.c: the name a munmap record (which has none) is shown
 * under: its thread's last comm, else its process's (process record, else
 * main thread, else any thread), never a name of another process's thread
 * that had the same tid, and nothing once the process exited.  A process's
 * exit costs its own threads, not the whole map: 100,000 processes of a
 * (hostile) trace exit in linear time.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "comms.h"

static const char *name(const char *s)
{
	static char buf[4][CT_COMM_LEN];
	static int n;
	char *b = buf[n++ % 4];

	memset(b, 0, CT_COMM_LEN);
	strncpy(b, s, CT_COMM_LEN - 1);
	return b;
}

static const char *got(const struct ct_comms *cs, uint32_t pid, uint32_t tid)
{
	return ct_comms_find(cs, pid, tid) ?: "(none)";
}

static struct ct_proc proc_rec(uint32_t pid, uint32_t source, const char *comm)
{
	struct ct_proc p = { .h = { .type = CT_REC_PROC, .size = sizeof(p), .pid = pid,
				    .tid = pid }, .source = source };

	memcpy(p.comm, name(comm), CT_COMM_LEN);
	return p;
}

#define NPROCS 100000

static void many_exits(void)
{
	struct ct_comms cs = { 0 };
	struct timespec t0, t1;
	uint32_t pid, named = 0;
	double s;

	for (pid = 1; pid <= NPROCS; pid++)
		ct_comms_note(&cs, pid, pid + NPROCS, name("t"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (pid = 1; pid <= NPROCS; pid++)
		ct_comms_forget_pid(&cs, pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (pid = 1; pid <= NPROCS; pid++)
		named += ct_comms_find(&cs, pid, pid + NPROCS) != NULL;
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* A scan of the map per exit (the first version) ran past 2 minutes here. */
	ok(named == 0 && cs.by_tid.used == 0 && s < 10,
	   "%d processes exit in %.3f s, every name gone", NPROCS, s);
	ct_comms_free(&cs);
}

int main(void)
{
	struct ct_comms cs = { 0 };
	struct ct_proc p;

	ok_str(got(&cs, 10, 10), "(none)", "nothing seen: no name");
	ct_comms_note(&cs, 10, 11, name("worker"));
	ok_str(got(&cs, 10, 11), "worker", "a thread: its own last comm");
	ok_str(got(&cs, 10, 12), "worker", "an unseen thread of a process seen only by one thread: "
	       "that thread's name, the only one known");
	ct_comms_note(&cs, 10, 10, name("main"));
	ok_str(got(&cs, 10, 12), "main", "an unseen thread: its process's main thread's name");
	ok_str(got(&cs, 10, 11), "worker", "a seen thread keeps its own");
	ct_comms_note(&cs, 10, 11, name("renamed"));
	ok_str(got(&cs, 10, 11), "renamed", "a thread that renamed itself: its latest comm");

	p = proc_rec(20, CT_PROC_SEEN, "server");
	ct_comms_proc(&cs, &p);
	ct_comms_note(&cs, 20, 21, name("helper"));
	ok_str(got(&cs, 20, 22), "server", "process record: the process's name, not a thread's");
	ct_comms_note(&cs, 20, 20, name("srv-main"));
	ok_str(got(&cs, 20, 22), "server", "the process record's name is kept over the main thread's");
	ok_str(got(&cs, 20, 11), "server", "tid 11 is process 10's: not taken for process 20");

	p = proc_rec(10, CT_PROC_EXEC, "newprog");
	ct_comms_proc(&cs, &p);
	ok_str(got(&cs, 10, 10), "newprog", "exec: the one thread left has the new image's name");

	ct_comms_note(&cs, 30, 12, name("reused"));
	ct_comms_note(&cs, 10, 12, name("old"));
	ct_comms_note(&cs, 30, 12, name("reused"));   /* tid 12 went to process 30 */
	ct_comms_forget_pid(&cs, 10);
	ok_str(got(&cs, 10, 11), "(none)", "the process exited: its threads' names are gone");
	ok_str(got(&cs, 10, 10), "(none)", "... and its own");
	ok_str(got(&cs, 20, 21), "helper", "another process's threads stay");
	ok_str(got(&cs, 30, 12), "reused", "a tid the exited process had before, now another's, stays");
	ct_comms_free(&cs);
	many_exits();
	return tap_done();
}
