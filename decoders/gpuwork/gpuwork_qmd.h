/* SPDX-License-Identifier: MIT */
/*
 * Inside the --gpu-work decoder: one QMD's bytes -> a launch event's
 * fields (grid in blocks, cluster, block, dependent QMDs), what its send
 * does, and the chain of QMDs it starts when it ends (a CUDA graph).
 */
#ifndef CT_GPUWORK_QMD_H
#define CT_GPUWORK_QMD_H

#include "gpuwork_class.h"
#include "gpuwork_qmds.h"

/* SEND_PCAS_A and DEPENDENT_QMD*_POINTER hold a QMD's address >> 8
 * (clcbc0.h: SEND_PCAS_A_QMD_ADDRESS_SHIFTED8). */
#define GW_QMD_ADDR_SHIFT 8

/* What a QMD is, beside the event's fields. */
struct gw_qmd_facts {
	const struct gw_qmd_layout *q;   /* NULL: no layout of the class matches */
	bool require_pcas;               /* REQUIRE_SCHEDULING_PCAS is TRUE */
	bool schedules;                  /* a dependent QMD is SCHEDULEd when it ends */
};

/* Fills e's QMD fields (have_qmd, grid in blocks, cluster, ...) from the
 * n dwords of a QMD of class k; f says the rest. */
void gw_qmd_read(struct gw_event *e, const struct gw_class *k, const uint32_t *dw, uint32_t n,
		 struct gw_qmd_facts *f);

/* The kind of event a send of this QMD is (GW_LAUNCH, GW_EMPTY_QMD,
 * GW_GRAPH or GW_QMD_LOAD). */
enum gw_kind gw_qmd_send_kind(const struct gw_event *e, const struct gw_qmd_facts *f);

typedef void (*gw_qmd_out_fn)(void *arg, struct gw_event *e);

/*
 * head was sent and runs (GW_GRAPH): follows the QMDs it SCHEDULEs, and
 * theirs, through m (bounded by GW_QMDS_MAX, each QMD once), and gives
 * out, in order: head (graph_launch N, the kernels and unseen QMDs it
 * led to), head's own kernel if it has one, then each kernel started
 * (GW_LAUNCH; GW_EMPTY_QMD for one of grid 0) and each QMD that could not
 * be followed (GW_UNSEEN, name saying why), all marked graph launch N.
 */
void gw_qmd_walk(struct gw_qmds *m, const struct gw_class *k, struct gw_event *head,
		 gw_qmd_out_fn out, void *arg);

#endif
