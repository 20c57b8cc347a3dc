/* SPDX-License-Identifier: MIT */
/*
 * Inside the --gpu-work decoder (gpuwork.c): what one class's methods and
 * fields are, looked up by name in the tables once and kept.
 */
#ifndef CT_GPUWORK_CLASS_H
#define CT_GPUWORK_CLASS_H

#include "gpuwork.h"
#include "gwtables.h"

#define GW_NO_METHOD 0xffffffffu
#define GW_QMD_VERSIONS 8

#define GW_QMD_DEPS 2   /* DEPENDENT_QMD0 and 1: the pointers the layouts have */

struct gw_qmd_layout {
	char version[8];               /* "04_00" */
	char scope[24];                /* "qmd:cbc0:04_00" */
	const struct gw_field *major, *minor;   /* minor may be NULL */
	uint32_t want_major, want_minor;
	const struct gw_field *grid[3], *block[3], *smem, *regs, *prog_lo, *prog_hi;
	/* clusters (V04+): GPC_CGA_* is the cluster's shape in blocks */
	const struct gw_field *cga[3], *type;
	/* constant bank 0, where a launch's parameters are: its address
	 * (<< cb_shift: V04 keeps it shifted by 6), size (<< 4) and valid bit */
	const struct gw_field *cb_lo, *cb_hi, *cb_size, *cb_valid;
	uint32_t cb_shift;
	/* chains: what the GPU does with dependent QMD i when this one ends */
	const struct gw_field *dep_enable[GW_QMD_DEPS], *dep_action[GW_QMD_DEPS],
			      *dep_pointer[GW_QMD_DEPS], *dep_counter, *require_pcas;
	char action_prefix[GW_QMD_DEPS][40];   /* the action's values' prefix */
	/* the actions that schedule it: QMD_SCHEDULE, QMD_INVALIDATE_COPY_SCHEDULE */
	uint32_t act_schedule[GW_QMD_DEPS][2], require_true;
	bool have_schedule[GW_QMD_DEPS][2], have_require_true;
};

struct gw_class {
	uint32_t cls;
	char scope[8];
	enum gw_engine engine;
	/* host */
	uint32_t set_object, sem_addr_lo, sem_addr_hi, sem_payload_lo, sem_payload_hi, sem_execute;
	const struct gw_field *sem_op, *sem_size;
	uint32_t sem_size_32;
	/* host: GPFIFO entry fields (GP_ENTRY0_*, GP_ENTRY1_*); the opcode that
	 * sets a segment base, where the class has one */
	const struct gw_field *gp_get, *gp_get_hi, *gp_length, *gp_level, *gp_sync, *gp_fetch,
			      *gp_opcode, *gp_operand, *gp_base_operand;
	uint32_t gp_op_set_base;
	bool has_set_base;
	/* compute */
	uint32_t line_length_in, line_count, offset_out_upper, offset_out, launch_dma,
		 load_inline_data, send_pcas_a, send_pcas2_b, send_pcas_b,
		 report_a, report_b, report_c, report_d;
	const struct gw_field *pcas2_action, *pcas_b_schedule, *report_op;
	struct gw_qmd_layout qmd[GW_QMD_VERSIONS];
	int nqmd;
	/* copy (line_length_in, line_count, launch_dma shared with compute) */
	uint32_t offset_in_upper, offset_in_lower, offset_out_lower, sem_a, sem_b, sem_payload;
	const struct gw_field *transfer_type, *multi_line, *remap, *sem_type;
};

/* The class's facts, looked up on first use; never NULL (unknown classes
 * get an entry with no methods). */
const struct gw_class *gw_class_get(uint32_t cls);

#endif
