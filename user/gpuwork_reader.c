// SPDX-License-Identifier: MIT
/*
 * --gpu-work's poller (gpuwork_reader.h): GPPut from each channel's USERD,
 * then the new ring entries and their segments, all by pread() on
 * /proc/PID/mem, which reaches the driver's mappings of video memory
 * through their vm_ops->access.  Every length read from there is checked
 * against the ring's size and the bound before it is used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "gpuwork.h"
#include "gpuwork_chans.h"
#include "gpuwork_reader.h"
#include "gwtables.h"

#define GW_MAX_PROCS 1024

struct gw_proc { uint32_t pid; int fd; };

struct ct_gpuwork {
	char proc_root[256];
	uint32_t max_dwords;
	ct_gpuwork_sink_fn sink;
	void *ctx;
	struct gw_chans chans;
	struct gw_proc procs[GW_MAX_PROCS];
	int nprocs;
	uint32_t gpput_off, gpget_off;    /* byte offsets in the USERD (tables) */
	bool probe;                       /* CUDATRACE_GPUWORK_PROBE: say how memory reads */
	struct ct_gpu_seg *rec;           /* one record, max_dwords long */
	struct ct_gpuwork_stats st;
};

struct ct_gpuwork *ct_gpuwork_new(const char *proc_root, uint32_t max_dwords,
				  ct_gpuwork_sink_fn sink, void *ctx)
{
	const struct gw_field *put = gw_field_find("userd", "GPPut");
	const struct gw_field *get = gw_field_find("userd", "GPGet");
	struct ct_gpuwork *g;

	if (!put || !get || max_dwords > CT_GPU_SEG_MAX) {
		fprintf(stderr, "cudatrace: --gpu-work: the tables lack the USERD layout "
				"(rebuild from decoders/tables/gw_fields.tsv)\n");
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g || !(g->rec = malloc(sizeof(*g->rec) + (size_t)max_dwords * 4))) {
		free(g);
		fprintf(stderr, "cudatrace: out of memory\n");
		return NULL;
	}
	snprintf(g->proc_root, sizeof(g->proc_root), "%s", proc_root);
	g->max_dwords = max_dwords;
	g->sink = sink;
	g->ctx = ctx;
	g->gpput_off = put->lo / 8;
	g->gpget_off = get->lo / 8;
	g->probe = getenv("CUDATRACE_GPUWORK_PROBE") != NULL;
	return g;
}

static void close_proc(struct ct_gpuwork *g, int i)
{
	if (g->procs[i].fd >= 0)
		close(g->procs[i].fd);
	g->procs[i] = g->procs[--g->nprocs];
}

void ct_gpuwork_free(struct ct_gpuwork *g)
{
	if (!g)
		return;
	while (g->nprocs)
		close_proc(g, 0);
	gw_chans_free(&g->chans);
	free(g->rec);
	free(g);
}

const struct ct_gpuwork_stats *ct_gpuwork_stats(const struct ct_gpuwork *g)
{
	return &g->st;
}

/* /proc/PID/mem, opened once per process; -1 if it cannot be. */
static int mem_fd(struct ct_gpuwork *g, uint32_t pid)
{
	char path[300];
	int i;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid)
			return g->procs[i].fd;
	if (g->nprocs == GW_MAX_PROCS)
		return -1;
	snprintf(path, sizeof(path), "%s/%u/mem", g->proc_root, pid);
	g->procs[g->nprocs] = (struct gw_proc){ pid, open(path, O_RDONLY | O_CLOEXEC) };
	return g->procs[g->nprocs++].fd;
}

static void forget_proc(struct ct_gpuwork *g, uint32_t pid)
{
	for (int i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid) {
			close_proc(g, i);
			return;
		}
}

void ct_gpuwork_learn(struct ct_gpuwork *g, const struct ct_rec *r)
{
	if (gw_chans_learn(&g->chans, r))
		g->st.channels++;
	if (r->type == CT_REC_PROC_EXIT ||
	    (r->type == CT_REC_PROC && ((const struct ct_proc *)r)->source == CT_PROC_EXEC))
		forget_proc(g, r->pid);
}

static bool read_exact(int fd, uint64_t addr, void *buf, size_t n)
{
	return addr <= (uint64_t)INT64_MAX - n && pread(fd, buf, n, (off_t)addr) == (ssize_t)n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void start_record(struct ct_gpuwork *g, const struct gw_ring *r, uint32_t index,
			 uint32_t get, uint32_t put)
{
	struct ct_gpu_seg *s = g->rec;

	memset(s, 0, sizeof(*s));
	s->h.type = CT_REC_GPU_SEG;
	s->h.ts_ns = now_ns();
	s->h.pid = r->pid;
	s->client = r->client;
	s->channel = r->handle;
	s->chan_class = r->cls;
	s->gpu = r->gpu;
	s->ring_index = index;
	s->ring_entries = r->entries;
	s->gp_get = get;
	s->gp_put = put;
}

static void send(struct ct_gpuwork *g)
{
	g->rec->h.size = (uint32_t)(sizeof(*g->rec) + (size_t)g->rec->ndwords * 4);
	g->sink(g->ctx, &g->rec->h);
}

/* Entries [from, to) could not be read: one record says how many. */
static void lost(struct ct_gpuwork *g, const struct gw_ring *r, uint32_t from, uint32_t n,
		 uint32_t get, uint32_t put)
{
	start_record(g, r, from, get, put);
	g->rec->flags = CT_GS_LOST;
	g->rec->lost = n;
	g->st.lost += n;
	send(g);
}

/* CUDATRACE_GPUWORK_PROBE (docs/GPUWORK.md): for the first segment of a
 * channel, which mapping holds an address and whether process_vm_readv
 * reads it as /proc/PID/mem does. */
static void probe(const struct ct_gpuwork *g, uint32_t pid, const char *what, uint64_t addr)
{
	char path[300], line[512];
	uint32_t v;
	struct iovec local = { &v, 4 }, remote = { (void *)(uintptr_t)addr, 4 };
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
	FILE *f;

	fprintf(stderr, "cudatrace: gpu-work probe: pid %u %s 0x%llx: process_vm_readv %s\n", pid,
		what, (unsigned long long)addr, n == 4 ? "read it" : strerror(errno));
	snprintf(path, sizeof(path), "%s/%u/maps", g->proc_root, pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			fprintf(stderr, "cudatrace: gpu-work probe:   in %s", line);
	}
	fclose(f);
}

/* One ring entry and its segment. */
static void read_entry(struct ct_gpuwork *g, int fd, const struct gw_ring *r, uint32_t i,
		       uint32_t get, uint32_t put)
{
	struct ct_gpu_seg *s = g->rec;
	uint64_t entry, va;
	uint32_t n, want;

	if (!read_exact(fd, r->ring_va + (uint64_t)i * sizeof(entry), &entry, sizeof(entry))) {
		lost(g, r, i, 1, get, put);
		return;
	}
	start_record(g, r, i, get, put);
	s->entry = entry;
	if (!gw_gp_entry(r->cls, entry, &va, &want)) {
		s->flags = CT_GS_FAULT;
		g->st.unreadable++;
		send(g);
		return;
	}
	s->va = va;
	s->want_dwords = want;
	n = s->want_dwords < g->max_dwords ? s->want_dwords : g->max_dwords;
	if (n && !read_exact(fd, s->va, s + 1, (size_t)n * 4)) {
		s->flags = CT_GS_FAULT;
		g->st.unreadable++;
		send(g);
		return;
	}
	s->ndwords = n;
	if (n < s->want_dwords) {
		s->flags |= CT_GS_TRUNC;
		g->st.truncated++;
	}
	g->st.segments++;
	g->st.bytes += (uint64_t)n * 4;
	send(g);
}

static void poll_ring(struct ct_gpuwork *g, struct gw_ring *r)
{
	uint32_t put, get, i, n;
	int fd;

	if (!gw_chans_resolve(&g->chans, r))
		return;
	fd = mem_fd(g, r->pid);
	if (fd < 0 || !read_exact(fd, r->userd_cpu + g->gpput_off, &put, 4) ||
	    !read_exact(fd, r->userd_cpu + g->gpget_off, &get, 4))
		return;   /* not readable now (gone, or not ours): nothing learned */
	if (put >= r->entries) {
		/* Not a ring index: the USERD is not what we think. */
		lost(g, r, r->next, 0, get, put);
		r->dead = true;
		return;
	}
	n = (put + r->entries - r->next) % r->entries;
	if (g->probe && n && !r->probed) {
		uint64_t entry = 0, va = 0;
		uint32_t len;

		r->probed = true;
		probe(g, r->pid, "USERD", r->userd_cpu);
		probe(g, r->pid, "ring", r->ring_va);
		if (read_exact(fd, r->ring_va + (uint64_t)r->next * 8, &entry, 8) &&
		    gw_gp_entry(r->cls, entry, &va, &len))
			probe(g, r->pid, "segment", va);
	}
	for (i = 0; i < n; i++)
		read_entry(g, fd, r, (r->next + i) % r->entries, get, put);
	r->next = put;
}

void ct_gpuwork_poll(struct ct_gpuwork *g, uint64_t now)
{
	struct timespec t0, t1;
	size_t i;

	(void)now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (i = 0; i < g->chans.nrings; i++)
		if (!g->chans.rings[i].dead)
			poll_ring(g, &g->chans.rings[i]);
	gw_chans_sweep(&g->chans);
	g->st.polls++;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	g->st.cpu_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
			(uint64_t)(t1.tv_nsec - t0.tv_nsec);
}

void ct_gpuwork_report(const struct ct_gpuwork *g)
{
	const struct ct_gpuwork_stats *s = &g->st;

	fprintf(stderr, "cudatrace: gpu-work: %llu channels, %llu segments read (%llu bytes, "
			"%llu cut at the bound), %llu unreadable, %llu ring entries lost; "
			"%llu polls in %.1f ms of CPU\n",
		(unsigned long long)s->channels, (unsigned long long)s->segments,
		(unsigned long long)s->bytes, (unsigned long long)s->truncated,
		(unsigned long long)s->unreadable, (unsigned long long)s->lost,
		(unsigned long long)s->polls, (double)s->cpu_ns / 1e6);
}
