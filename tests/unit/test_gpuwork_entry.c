// SPDX-License-Identifier: MIT
/* GPFIFO entries (decoders/gpuwork/gpuwork_entry.c) from hand-made bytes: segments
 * with their level, sync and fetch, and the control entries of length 0
 * (NOP, ILLEGAL, GP_CRC, PB_CRC, SET_PB_SEGMENT_EXTENDED_BASE, an opcode no
 * header has), on Hopper's host class and on Ampere's, which has no
 * extended base; then the entries CUDA really put on the H100
 * (traces/h100-gpuwork-accept.ctrace).  The bit positions below are
 * written by hand from clc86f.h on purpose: an independent copy of what
 * the generated tables say. */
#include <stdio.h>
#include <string.h>

#include "cudatrace.h"
#include "gpuwork.h"
#include "tap.h"
#include "trace_file.h"

#define HOPPER 0xc86fu   /* HOPPER_CHANNEL_GPFIFO_A */
#define AMPERE 0xc56fu   /* AMPERE_CHANNEL_GPFIFO_A */

/* GP_ENTRY0: FETCH 0:0, GET 31:2; GP_ENTRY1: GET_HI 7:0 (OPCODE when
 * LENGTH is 0), LEVEL 9:9, LENGTH 30:10, SYNC 31:31 */
static uint64_t segment(uint64_t va, uint32_t dwords, int level, int sync, int fetch)
{
	uint32_t w0 = ((uint32_t)va & ~3u) | (uint32_t)fetch;
	uint32_t w1 = (uint32_t)(va >> 32) & 0xff;

	w1 |= (uint32_t)level << 9 | dwords << 10 | (uint32_t)sync << 31;
	return (uint64_t)w1 << 32 | w0;
}

static uint64_t control(uint32_t opcode, uint32_t operand, int sync)
{
	return (uint64_t)(opcode | (uint32_t)sync << 31) << 32 | operand;
}

static bool named(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

static void segments(void)
{
	struct gw_gp gp;

	ok(gw_gp_decode(HOPPER, segment(0x2c0001000ull, 385, 1, 0, 0), &gp) && !gp.control &&
	   gp.va == 0x2c0001000ull && gp.dwords == 385, "a segment: address and length");
	ok(named(gp.level, "SUBROUTINE") && named(gp.sync, "PROCEED") &&
	   named(gp.fetch, "UNCONDITIONAL"), "its level, sync and fetch by name");
	ok(gw_gp_decode(HOPPER, segment(0xff00000004ull, 1, 0, 1, 1), &gp) &&
	   gp.va == 0xff00000004ull && named(gp.level, "MAIN") && named(gp.sync, "WAIT") &&
	   named(gp.fetch, "CONDITIONAL"), "MAIN, SYNC_WAIT, FETCH_CONDITIONAL; 40 address bits");
	ok(gw_gp_address(&gp, 0x30000000000ull) == 0x3ff00000004ull,
	   "an extended base sets the bits above the entry's");
	ok(!gw_gp_decode(0x1234, segment(0x1000, 4, 0, 0, 0), &gp),
	   "a class whose entries no table has: not decoded");
}

static void controls(void)
{
	static const struct { uint32_t op; const char *name; } ops[] = {
		{ 0, "NOP" }, { 1, "ILLEGAL" }, { 2, "GP_CRC" }, { 3, "PB_CRC" },
	};
	struct gw_gp gp;
	bool decoded;
	unsigned i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ok(gw_gp_decode(HOPPER, control(ops[i].op, 0xdeadbeef, 0), &gp) && gp.control &&
		   named(gp.opcode_name, ops[i].name) && gp.operand == 0xdeadbeef && !gp.sets_base,
		   "length 0: control entry %s with its operand, no segment", ops[i].name);
	ok(gw_gp_decode(HOPPER, control(0, 0, 1), &gp) && named(gp.sync, "WAIT"),
	   "a control entry keeps its sync (a NOP that waits)");
	decoded = gw_gp_decode(HOPPER, control(4, 0x1ffff << 8, 0), &gp);
	ok(decoded && named(gp.opcode_name, "SET_PB_SEGMENT_EXTENDED_BASE") && gp.sets_base &&
	   gp.base == 0x1ffffull << 40, "SET_PB_SEGMENT_EXTENDED_BASE: the bits above 40 (0x%llx)",
	   (unsigned long long)gp.base);
	ok(gw_gp_decode(HOPPER, control(0x7f, 1, 0), &gp) && gp.control && !gp.opcode_name &&
	   gp.opcode == 0x7f, "an opcode no header names: by number");
	ok(gw_gp_decode(AMPERE, control(4, 0x100, 0), &gp) && gp.control && !gp.opcode_name &&
	   !gp.sets_base, "Ampere's host class has no extended base: opcode 4 is not one");
}

/* Every entry CUDA put on the H100 (580.159.04): segments at SUBROUTINE
 * level, PROCEED, UNCONDITIONAL; their addresses as the reader found them. */
static void real_h100(void)
{
	char err[256];
	struct ct_reader *r = ct_reader_open("traces/h100-gpuwork-accept.ctrace", err, sizeof(err));
	int n = 0, sub = 0, same_va = 0;
	const void *rec;
	size_t len;

	if (!ok(r != NULL, "the H100 trace"))
		return;
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK) {
		const struct ct_gpu_seg *s = rec;
		struct gw_gp gp;

		if (s->h.type != CT_REC_GPU_SEG || (s->flags & CT_GS_LOST) ||
		    !gw_gp_decode(s->chan_class, s->entry, &gp))
			continue;
		n++;
		sub += !gp.control && named(gp.level, "SUBROUTINE") && named(gp.sync, "PROCEED") &&
		       named(gp.fetch, "UNCONDITIONAL");
		same_va += gw_gp_address(&gp, 0) == s->va && gp.dwords == s->want_dwords;
	}
	ct_reader_close(r);
	ok(n == 404 && sub == n, "H100: %d of %d entries are SUBROUTINE-level segments", sub, n);
	ok(same_va == n, "their address and length are the reader's (%d)", same_va);
}

int main(void)
{
	segments();
	controls();
	real_h100();
	return tap_done();
}
