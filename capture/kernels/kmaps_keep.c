// SPDX-License-Identifier: MIT
/* Code mappings kept for the kernel namer (kmaps_keep.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmaps_keep.h"

/* Processes kept at once (the oldest read gives way), and how often a
 * process's mappings are read again: libraries loaded later (cuBLAS,
 * a framework's own) join within that. */
#define CT_KMAPS_PROCS    256
#define CT_KMAPS_EVERY_NS 200000000ull

struct kept {
	uint32_t pid;           /* 0: free */
	uint64_t read_ns;
	struct ct_codemaps maps;
};

struct ct_kmaps_keep {
	const char *proc_root;
	pthread_mutex_t lock;   /* the reader only tries it: it never waits */
	struct kept v[CT_KMAPS_PROCS];
};

struct ct_kmaps_keep *ct_kmaps_keep_new(const char *proc_root)
{
	struct ct_kmaps_keep *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->proc_root = proc_root;
	pthread_mutex_init(&k->lock, NULL);
	return k;
}

void ct_kmaps_keep_free(struct ct_kmaps_keep *k)
{
	if (!k)
		return;
	for (int i = 0; i < CT_KMAPS_PROCS; i++)
		ct_codemaps_free(&k->v[i].maps);
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

void ct_kmaps_keep_watch(struct ct_kmaps_keep *k, const struct ct_rec *r, uint64_t now_ns)
{
	struct ct_codemaps fresh = { 0 };
	struct kept *s;

	if (r->type != CT_REC_IOCTL_ENTER && r->type != CT_REC_MMAP)
		return;
	if (pthread_mutex_trylock(&k->lock))
		return;   /* the namer is reading them: next time */
	s = slot_of(k, r->pid);
	if (s->pid == r->pid && now_ns - s->read_ns < CT_KMAPS_EVERY_NS) {
		pthread_mutex_unlock(&k->lock);
		return;
	}
	/* Mappings already kept move over with their open files; an exiting
	 * process (empty maps) would take them with it: keep what was read. */
	if (!exiting(k->proc_root, r->pid) &&
	    ct_codemaps_read(k->proc_root, r->pid, s->pid == r->pid ? &s->maps : NULL, &fresh) == 0) {
		ct_codemaps_free(&s->maps);
		s->maps = fresh;
		s->pid = r->pid;
	}
	s->read_ns = now_ns;
	pthread_mutex_unlock(&k->lock);
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
