// SPDX-License-Identifier: MIT
/* Code mappings kept for the kernel namer (kmaps_keep.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "kmaps_keep.h"
#include "msg.h"
#include "privs.h"

/* Processes kept at once (the oldest read gives way), and how often a
 * process's mappings are read again: libraries loaded later (cuBLAS,
 * a framework's own) join within that. */
#define CT_KMAPS_PROCS    256
#define CT_KMAPS_EVERY_NS 200000000ull
/* Processes the reader asked for that the keeper has not taken yet; the
 * reader's memory of whom it asked for lately (direct-mapped by pid). */
#define CT_KMAPS_WANT     64
#define CT_KMAPS_ASKED    1024

struct kept {
	uint32_t pid;           /* 0: free */
	uint64_t read_ns;
	struct ct_codemaps maps;
};

struct asked { uint32_t pid; uint64_t ns; };

struct ct_kmaps_keep {
	const char *proc_root;
	pthread_mutex_t lock;   /* v: the keeper thread and the namer */
	struct kept v[CT_KMAPS_PROCS];
	/* The reader's requests: it only tries the lock, it never waits. */
	pthread_mutex_t want_lock;
	pthread_cond_t wake;
	uint32_t want[CT_KMAPS_WANT];
	int nwant;
	bool stop;
	struct asked asked[CT_KMAPS_ASKED];   /* the reader's alone */
	pthread_t keeper;
	bool running;
};

static void *keeper_main(void *arg);

struct ct_kmaps_keep *ct_kmaps_keep_new(const char *proc_root)
{
	struct ct_kmaps_keep *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->proc_root = proc_root;
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&k->want_lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	err = pthread_create(&k->keeper, NULL, keeper_main, k);
	if (err) {
		ct_err("cannot start the kernel names' mappings thread: %s\n", strerror(err));
		ct_kmaps_keep_free(k);
		return NULL;
	}
	k->running = true;
	return k;
}

void ct_kmaps_keep_free(struct ct_kmaps_keep *k)
{
	if (!k)
		return;
	if (k->running) {
		pthread_mutex_lock(&k->want_lock);
		k->stop = true;
		pthread_cond_signal(&k->wake);
		pthread_mutex_unlock(&k->want_lock);
		pthread_join(k->keeper, NULL);
	}
	for (int i = 0; i < CT_KMAPS_PROCS; i++)
		ct_codemaps_free(&k->v[i].maps);
	pthread_cond_destroy(&k->wake);
	pthread_mutex_destroy(&k->want_lock);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* pid's slot, else a free one, else the one read longest ago. */
static struct kept *slot_of(struct ct_kmaps_keep *k, uint32_t pid)
{
	struct kept *oldest = &k->v[0];

	for (int i = 0; i < CT_KMAPS_PROCS; i++) {
		if (k->v[i].pid == pid)
			return &k->v[i];
		if (!k->v[i].pid || (oldest->pid && k->v[i].read_ns < oldest->read_ns))
			oldest = &k->v[i];
	}
	ct_codemaps_free(&oldest->maps);
	memset(oldest, 0, sizeof(*oldest));
	return oldest;
}

/* Whether pid is a zombie, or gone: its maps read empty. */
static bool exiting(const char *proc_root, uint32_t pid)
{
	char path[256], buf[512], *state;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%u/stat", proc_root, pid);
	if (!(f = fopen(path, "re")))
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	state = strrchr(buf, ')');   /* after the command name, which may hold anything */
	return !state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X';
}

/* Keeper thread: reads pid's mappings again (the reader asks at most
 * every CT_KMAPS_EVERY_NS). */
static void refresh(struct ct_kmaps_keep *k, uint32_t pid, uint64_t now_ns)
{
	struct ct_codemaps fresh = { 0 };
	struct kept *s;

	pthread_mutex_lock(&k->lock);
	s = slot_of(k, pid);
	/* Mappings already kept move over with their open files; an exiting
	 * process (empty maps) would take them with it: keep what was read. */
	if (!exiting(k->proc_root, pid) &&
	    ct_codemaps_read(k->proc_root, pid, s->pid == pid ? &s->maps : NULL, &fresh) == 0) {
		ct_codemaps_free(&s->maps);
		s->maps = fresh;
		s->pid = pid;
		s->read_ns = now_ns;
	}
	pthread_mutex_unlock(&k->lock);
}

/* Takes the reader's requests, or waits for some; false once stopped. */
static bool take_wanted(struct ct_kmaps_keep *k, uint32_t *pids, int *n)
{
	bool go;

	pthread_mutex_lock(&k->want_lock);
	while (!k->nwant && !k->stop)
		pthread_cond_wait(&k->wake, &k->want_lock);
	*n = k->nwant;
	memcpy(pids, k->want, sizeof(*pids) * (size_t)*n);
	k->nwant = 0;
	go = !k->stop;
	pthread_mutex_unlock(&k->want_lock);
	return go;
}

/*
 * The keeper: reading /proc/PID/maps of a large process and opening its
 * files takes milliseconds, which the reader thread (GPU-work polls due
 * every 0.1 ms when busy) must never spend.  Started before the capture
 * drops its privileges, it drops its own (a thread's capabilities are its
 * own).
 */
static void *keeper_main(void *arg)
{
	struct ct_kmaps_keep *k = arg;
	uint32_t pids[CT_KMAPS_WANT];
	int n, err = ct_drop_privileges();

	if (err && err != -ENOTSUP)
		ct_warn("the kernel names' mappings thread could not drop privileges: %s\n",
			strerror(-err));
	while (take_wanted(k, pids, &n))
		for (int i = 0; i < n; i++)
			refresh(k, pids[i], ct_now_ns(CLOCK_MONOTONIC));
	return NULL;
}

void ct_kmaps_keep_watch(struct ct_kmaps_keep *k, const struct ct_rec *r, uint64_t now_ns)
{
	struct asked *a = &k->asked[r->pid % CT_KMAPS_ASKED];

	if (r->type != CT_REC_IOCTL_ENTER && r->type != CT_REC_MMAP)
		return;
	if (a->pid == r->pid && now_ns - a->ns < CT_KMAPS_EVERY_NS)
		return;   /* asked lately: the keeper reads it again in its time */
	if (pthread_mutex_trylock(&k->want_lock))
		return;   /* the keeper is taking requests: the next record asks */
	if (k->nwant < CT_KMAPS_WANT) {
		k->want[k->nwant++] = r->pid;
		a->pid = r->pid;
		a->ns = now_ns;
		pthread_cond_signal(&k->wake);
	}
	pthread_mutex_unlock(&k->want_lock);
}

bool ct_kmaps_keep_use(struct ct_kmaps_keep *k, uint32_t pid,
		       void (*fn)(void *ctx, const struct ct_codemaps *maps), void *ctx)
{
	bool found = false;

	pthread_mutex_lock(&k->lock);
	for (int i = 0; i < CT_KMAPS_PROCS; i++)
		if (k->v[i].pid == pid && k->v[i].maps.n) {
			fn(ctx, &k->v[i].maps);
			found = true;
			break;
		}
	pthread_mutex_unlock(&k->lock);
	return found;
}

void ct_kmaps_keep_forget(struct ct_kmaps_keep *k, uint32_t pid)
{
	pthread_mutex_lock(&k->lock);
	for (int i = 0; i < CT_KMAPS_PROCS; i++)
		if (k->v[i].pid == pid) {
			ct_codemaps_free(&k->v[i].maps);
			memset(&k->v[i], 0, sizeof(k->v[i]));
		}
	pthread_mutex_unlock(&k->lock);
}
