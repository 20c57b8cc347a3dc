/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work's decoder: the method dwords of one pushbuffer segment in,
 * what the GPU was told out: kernel launches (grid, block, shared memory
 * and the QMD address, from the QMD the same channel uploaded inline),
 * copies (bytes, source, destination), semaphores, subchannel bindings,
 * and every other method by name or by number.  Pure: no I/O, every count
 * bounded by the segment's length.  A channel's state (which class each
 * subchannel is bound to, the last value of each method, recent inline
 * uploads) carries from one segment to the next, as on the GPU.
 * Numbers and layouts come from gwtables.h.
 */
#ifndef CT_GPUWORK_H
#define CT_GPUWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gw_kind {
	GW_LAUNCH,      /* a compute kernel was scheduled: by its own send, or
			 * (graph set) by a QMD it depends on */
	GW_EMPTY_QMD,   /* a QMD of grid 0 was scheduled: no kernel runs (CUDA
			 * sends one of QMD_TYPE GRID_NULL before each launch on
			 * Hopper, 580.159.04: it waits on DEPENDENCE_COUNTER, the
			 * launch after it decrements it; shown with -v) */
	GW_COPY,        /* a copy engine transfer (fill: a memset-like remap) */
	GW_SEMAPHORE,   /* a semaphore operation (host, compute or copy) */
	GW_BIND,        /* SET_OBJECT: a class bound to a subchannel */
	GW_METHOD,      /* any other method (name NULL: unknown) */
	GW_BAD,         /* a header the format does not allow, or a count past the end */
	GW_GP,          /* the GPFIFO entry itself (gp): a control entry, or with -v
			 * the segment's level, sync and fetch */
	GW_GRAPH,       /* a QMD sent that starts others when it ends (dependent
			 * QMDs it SCHEDULEs: a CUDA graph's head); the kernels
			 * follow as GW_LAUNCH events with graph set */
	GW_QMD_LOAD,    /* a QMD sent that its send does not start
			 * (REQUIRE_SCHEDULING_PCAS: the QMD that SCHEDULEs it
			 * does; CUDA sends a graph's nodes so at its first launch) */
	GW_UNSEEN,      /* a QMD a chain leads to that cannot be followed (not
			 * seen uploaded, the chain too long): its work is unseen */
	GW_KINDS
};
extern const char *const gw_kind_names[GW_KINDS];

/* What a class's engine is, by the methods it has. */
enum gw_engine { GW_ENG_UNKNOWN, GW_ENG_HOST, GW_ENG_COMPUTE, GW_ENG_COPY };
extern const char *const gw_engine_names[];   /* "?", "HOST", "COMPUTE", "COPY" */

/*
 * One GPFIFO entry (gpuwork_entry.c; clc86f.h GP_ENTRY0/GP_ENTRY1): a
 * pushbuffer segment to fetch (address bits 39:2 and a length in dwords),
 * or, when the length is 0, a control entry: an opcode (NOP, ILLEGAL,
 * GP_CRC, PB_CRC, SET_PB_SEGMENT_EXTENDED_BASE) and its operand, no
 * segment.  Each names its level (MAIN, SUBROUTINE: every entry CUDA
 * put on the H100 was SUBROUTINE), sync and fetch mode, as the class's
 * header does.
 */
struct gw_gp {
	bool control;
	uint64_t va;              /* segment: the address bits the entry holds */
	uint32_t dwords;          /* segment: its length */
	uint32_t opcode, operand; /* control */
	const char *opcode_name;  /* NULL: no table names that opcode */
	bool sets_base;           /* SET_PB_SEGMENT_EXTENDED_BASE ... */
	uint64_t base;            /* ... the address bits above the entry's that it sets */
	const char *level, *sync, *fetch;   /* value names; NULL if not named */
	uint32_t level_v, sync_v, fetch_v;
};

/* Entry of host class chan_class into gp; false if the tables lack the
 * class's entry fields (then nothing in gp is meaningful). */
bool gw_gp_decode(uint32_t chan_class, uint64_t entry, struct gw_gp *gp);
/* The address of a segment entry's pushbuffer, under the base the last
 * SET_PB_SEGMENT_EXTENDED_BASE of the same ring set (0 before any). */
uint64_t gw_gp_address(const struct gw_gp *gp, uint64_t base);

struct gw_tie;
struct gw_qmds;

#define GW_EVENT_DEPS 2
#define GW_UPLOAD_KEEP_DW 256   /* dwords kept of an inline upload: a QMD, parameters */
struct ct_kname;
struct gw_kop;

struct gw_event {
	enum gw_kind kind;
	uint32_t at;            /* dword index of the method's data in the segment */
	uint32_t subch, cls;    /* cls: class bound to subch, 0 if unknown */
	enum gw_engine engine;
	uint32_t method, data;  /* GW_METHOD, GW_BIND (data: SET_OBJECT's); GW_BAD: the header */
	const char *name;       /* GW_METHOD: method name or NULL; GW_BAD: why;
				 * GW_SEMAPHORE: the operation ("RELEASE") */
	/* GW_LAUNCH and the QMD kinds (GW_EMPTY_QMD, GW_GRAPH, GW_QMD_LOAD, GW_UNSEEN) */
	uint64_t qmd;
	bool have_qmd;          /* the QMD was seen uploaded (this process's segments) */
	const char *qmd_version;  /* "04_00" */
	uint32_t grid[3];       /* in blocks, clusters or not */
	uint32_t cluster[3];    /* blocks per cluster (GPC_CGA_*); 0,0,0: no clusters */
	uint32_t block[3], smem;
	uint32_t regs;          /* REGISTER_COUNT: registers a thread, as the launch asks */
	uint64_t program;
	const char *qmd_type;   /* QMD_TYPE's value name ("GRID_CTA"), NULL: none */
	uint32_t dep_counter;   /* DEPENDENCE_COUNTER: ends it waits for */
	struct gw_dep {         /* what the GPU does with another QMD when this one ends */
		uint64_t qmd;
		const char *action;   /* "QMD_SCHEDULE", NULL: no name */
		uint32_t action_v;
		bool schedules;       /* the action starts it (..._SCHEDULE) */
	} deps[GW_EVENT_DEPS];
	uint32_t ndeps;
	/* a kernel a graph's head started (GW_LAUNCH, GW_UNSEEN) or the head
	 * itself (GW_GRAPH): the head's address and which of its sends */
	uint64_t graph;         /* 0: not part of a graph */
	uint32_t graph_launch;
	uint32_t graph_kernels, graph_unseen;   /* GW_GRAPH: what its chain gave */
	const struct ct_kname *kernel;   /* what the capture named program (kname.h), or NULL */
	const struct gw_kop *op;  /* CUDA's own copy or memset kernel: what it did
				   * (gpuwork_kop.h), or NULL; set with kernel */
	/* GW_LAUNCH sent by its own send: constant bank 0 (0: none valid),
	 * and the parameters this channel uploaded into it for this launch:
	 * the bytes written past the bank's start after the bank's own
	 * upload (docs/GPUWORK.md, "Parameters"), valid during the emit
	 * callback; params NULL where none were seen */
	uint64_t cbank0;
	uint32_t cbank0_size;
	const uint32_t *params;
	uint32_t params_at;       /* their offset in the bank, bytes */
	uint32_t params_ndw;      /* dwords kept (at most GW_UPLOAD_KEEP_DW) */
	bool params_cut;          /* the upload was longer than what is kept */
	/* GW_COPY */
	uint64_t src, dst, bytes;
	bool fill;
	/* GW_SEMAPHORE */
	uint64_t sem_addr, payload;
	/* GW_GP (va: the segment's, with the ring's base) */
	const struct gw_gp *gp;
	uint64_t va;
	/* GW_LAUNCH, GW_COPY: the driver call it came after (gpuwork_tie.h),
	 * NULL where the decoder has no window for it */
	const struct gw_tie *after;
};

/* A launch's parameters as uploaded, bytes in memory order, into out
 * (room bytes at most); how many. */
size_t gw_params_bytes(const struct gw_event *e, uint8_t *out, size_t room);

typedef void (*gw_emit_fn)(void *ctx, const struct gw_event *e);

struct gw_chan;

/* A channel of class chan_class (its host class); NULL if out of memory. */
struct gw_chan *gw_chan_new(uint32_t chan_class);
/* The process's remembered QMDs (gpuwork_qmds.h), shared by its channels:
 * uploads go there, and chains of QMDs are followed through it. */
void gw_chan_set_qmds(struct gw_chan *c, struct gw_qmds *q);
void gw_chan_free(struct gw_chan *c);
/* The class bound to subchannel s (0 unknown). */
uint32_t gw_chan_subch_class(const struct gw_chan *c, uint32_t s);

/* Decodes n dwords of one segment, calling emit for each event in order;
 * cut: the segment was cut short (its last method may be).  A segment that
 * cannot be a method stream gives one GW_BAD and changes nothing. */
void gw_decode(struct gw_chan *c, const uint32_t *dw, uint32_t n, bool cut, gw_emit_fn emit,
	       void *ctx);

/* Which subchannels the methods of a segment address (bit s: subchannel
 * s), and whether it binds a class (SET_OBJECT): a reader that cares for
 * one engine's methods decodes only the segments that reach it.  No
 * state changes. */
uint32_t gw_seg_subchannels(const struct gw_chan *c, const uint32_t *dw, uint32_t n,
			    bool *binds);

/* Each dword of an inline upload (compute LAUNCH_DMA + LOAD_INLINE_DATA)
 * as it is decoded: the upload's destination, its length in dwords, the
 * dword's index in it (kernel names: capture/kernels/). */
typedef void (*gw_inline_fn)(void *ctx, uint64_t dst, uint64_t ndwords, uint64_t at,
			     uint32_t dword);
void gw_chan_on_inline(struct gw_chan *c, gw_inline_fn fn, void *ctx);

/* The engine of class cls (from the methods the tables give it). */
enum gw_engine gw_engine_of(uint32_t cls);


#endif
