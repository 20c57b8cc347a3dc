/* SPDX-License-Identifier: MIT */
/*
 * The QMDs a process uploaded inline, by GPU address: what a QMD sent
 * later, or started by another QMD (a CUDA graph's kernels), holds.
 * Bounded: at most GW_QMDS_MAX addresses per process; an upload to a new
 * address past that is not kept, and counted.  Pure memory, no I/O.
 */
#ifndef CT_GPUWORK_QMDS_H
#define CT_GPUWORK_QMDS_H

#include <stdbool.h>
#include <stdint.h>

#define GW_QMDS_MAX  8192   /* addresses kept per process (a table of 16384 slots of 816 bytes, 13.4 MB, at most) */
#define GW_QMD_KEEP  128    /* dwords kept of each: every QMD layout fits */
#define GW_QMD_PARAMS_KEEP 64   /* dwords kept of its launch's parameters */

struct gw_qmd_slot {
	uint64_t addr;          /* 0: free */
	uint32_t n;             /* dwords kept */
	uint32_t walk;          /* the chain walk that last reached it (cycles) */
	uint32_t dec_walk;      /* the walk whose decrements `decs` counts */
	uint32_t decs;          /* DECREMENT_DEPENDENCEs it had in that walk */
	uint32_t launches;      /* times it was sent as a graph's head */
	uint32_t dw[GW_QMD_KEEP];
	/* the parameters uploaded with it (gpuwork.h: params*): what a graph's
	 * kernel, started by the GPU from this QMD, was given */
	uint32_t pn, p_at;
	bool p_cut;
	uint32_t pdw[GW_QMD_PARAMS_KEEP];
};

struct gw_qmds;

struct gw_qmds *gw_qmds_new(void);
void gw_qmds_free(struct gw_qmds *m);
/* Keeps n dwords uploaded at addr (the first GW_QMD_KEEP); an upload of
 * other bytes to a kept address starts its launches again.  false if the
 * address is new and memory is full (counted) or addr is 0. */
bool gw_qmds_put(struct gw_qmds *m, uint64_t addr, const uint32_t *dw, uint32_t n);
/* The parameters uploaded with the QMD kept at addr (n 0: none); cut:
 * the upload was longer than what is kept.  Nothing if addr is not kept. */
void gw_qmds_set_params(struct gw_qmds *m, uint64_t addr, const uint32_t *dw, uint32_t n,
			uint32_t at, bool cut);
/* The slot kept for addr, NULL if none. */
struct gw_qmd_slot *gw_qmds_get(struct gw_qmds *m, uint64_t addr);
/* A new walk's number: slots it reaches get it (gw_qmd_slot.walk). */
uint32_t gw_qmds_new_walk(struct gw_qmds *m);
/* Uploads not kept: memory was full. */
uint64_t gw_qmds_not_kept(const struct gw_qmds *m);
uint32_t gw_qmds_count(const struct gw_qmds *m);
/* Two arrays of GW_QMDS_MAX entries for a chain walk (gpuwork_qmd.c),
 * made on first use; false if out of memory. */
bool gw_qmds_scratch(struct gw_qmds *m, uint64_t **stack, uint64_t **found);

#endif
