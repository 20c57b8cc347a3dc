// SPDX-License-Identifier: MIT
/*
 * GPFIFO entries (gpuwork.h's gw_gp), by the fields the class's header
 * names (gpuwork_class.c): a segment, or a control entry when its length
 * is 0 ("CONTROL", NVIDIA's dev_pbdma.ref: no pushbuffer data is fetched;
 * GP_ENTRY1_OPCODE says what to do with GP_ENTRY0_OPERAND).
 */
#include <string.h>

#include "gpuwork_class.h"

static const char *value_name(const struct gw_class *k, const char *field, uint32_t v)
{
	return gw_value_name(k->scope, field, v);
}

static void decode_control(const struct gw_class *k, uint32_t w0, uint32_t w1, struct gw_gp *gp)
{
	gp->control = true;
	gp->opcode = gw_get(w1, k->gp_opcode);
	gp->operand = gw_get(w0, k->gp_operand);
	gp->opcode_name = value_name(k, "GP_ENTRY1_OPCODE", gp->opcode);
	/* The base is the address bits above those a segment entry holds:
	 * above GET_HI's, which start at bit 32 (uvm_hopper_host.c: va >> 40). */
	if (k->has_set_base && gp->opcode == k->gp_op_set_base) {
		uint32_t shift = 32 + k->gp_get_hi->hi - k->gp_get_hi->lo + 1;

		gp->sets_base = true;
		gp->base = (uint64_t)gw_get(w0, k->gp_base_operand) << shift;
	}
}

static void decode_flags(const struct gw_class *k, uint32_t w0, uint32_t w1, struct gw_gp *gp)
{
	if (k->gp_level) {
		gp->level_v = gw_get(w1, k->gp_level);
		gp->level = value_name(k, "GP_ENTRY1_LEVEL", gp->level_v);
	}
	if (k->gp_sync) {
		gp->sync_v = gw_get(w1, k->gp_sync);
		gp->sync = value_name(k, "GP_ENTRY1_SYNC", gp->sync_v);
	}
	if (k->gp_fetch) {
		gp->fetch_v = gw_get(w0, k->gp_fetch);
		gp->fetch = value_name(k, "GP_ENTRY0_FETCH", gp->fetch_v);
	}
}

bool gw_gp_decode(uint32_t chan_class, uint64_t entry, struct gw_gp *gp)
{
	const struct gw_class *k = gw_class_get(chan_class);
	uint32_t w0 = (uint32_t)entry, w1 = (uint32_t)(entry >> 32);

	memset(gp, 0, sizeof(*gp));
	if (!k->gp_get || !k->gp_get_hi || !k->gp_length || !k->gp_opcode || !k->gp_operand)
		return false;
	decode_flags(k, w0, w1, gp);
	gp->dwords = gw_get(w1, k->gp_length);
	if (!gp->dwords) {
		decode_control(k, w0, w1, gp);
		return true;
	}
	gp->va = (uint64_t)gw_get(w1, k->gp_get_hi) << 32 |
		 (uint64_t)gw_get(w0, k->gp_get) << k->gp_get->lo;
	return true;
}

uint64_t gw_gp_address(const struct gw_gp *gp, uint64_t base)
{
	return base | gp->va;
}
