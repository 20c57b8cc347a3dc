// SPDX-License-Identifier: MIT
/*
 * Numbers as a reader wants them (issue 22 item 15): addresses and sizes
 * of address space in hex in text and plain numbers in JSON, by the kinds
 * gen-layouts.awk derives from the names; arrays cut at their count; the
 * GPU UUID of NV2080_CTRL_CMD_GPU_GET_GID_INFO; -vv hex dumps with an
 * ASCII column.  Structs built field by field through the layouts.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfacts.h"
#include "tap.h"
#include "records.h"

static const unsigned char uuid[16] = { 0x52, 0x27, 0x85, 0xcf, 0xa4, 0xe1, 0x59, 0xe3,
					0xb8, 0xb3, 0x92, 0x2f, 0xa6, 0xde, 0xac, 0xce };

static void kind_is(enum ct_layout_family fam, uint32_t req, uint32_t size, const char *field,
		    enum ct_field_kind want)
{
	const struct ct_layout *l = ct_layout_find(fam, req, size, 0);
	const struct ct_field *f = ct_layout_field(l, field);

	ok(f && f->kind == want, "%s.%s: kind %d (got %d)", l ? l->name : "?", field, want,
	   f ? f->kind : -1);
}

/* An RM control with params, -v. */
static void control(struct ct_decoder *d, uint64_t ts, uint32_t cmd, const void *params,
		    uint32_t size)
{
	unsigned char a[32] = { 0 };
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ESCAPE, NV_ESC_RM_CONTROL, 32, 0);

	put_field(l, a, "hClient", 0xc1d00001);
	put_field(l, a, "hObject", 0xc1d00001);
	put_field(l, a, "cmd", cmd);
	put_field(l, a, "params", 0x7ffd00002000);
	put_field(l, a, "paramsSize", size);
	call(d, ts, REQ(NV_ESC_RM_CONTROL, 32), a, sizeof(a), params, size);
}

static char *decode(bool json, int verbose)
{
	struct mem_decoder m;
	struct ct_decode_opts o = { .json = json, .verbose = verbose };
	struct ct_decoder *d = mem_start(&m, o);
	const struct ct_layout *l;
	unsigned char gid[268] = { 0 }, bars[200] = { 0 }, range[24] = { 0 };

	ct_decoder_feed(d, meta());
	l = ct_layout_find(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_GPU_GET_GID_INFO, sizeof(gid), 0);
	put_field(l, gid, "flags", 2);
	put_field(l, gid, "length", 16);
	memcpy(gid + ct_layout_field(l, "data")->offset, uuid, sizeof(uuid));
	control(d, 1000001000, NV2080_CTRL_CMD_GPU_GET_GID_INFO, gid, sizeof(gid));

	l = ct_layout_find(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO, sizeof(bars), 0);
	put_field(l, bars, "pciBarCount", 2);
	put_field(l, bars, "pciBarInfo[0].barOffset", 0x102002000000);
	put_field(l, bars, "pciBarInfo[1].barSizeBytes", 0x2000000000);
	put_field(l, bars, "pciBarInfo[2].barOffset", 0x1234);   /* past the count */
	control(d, 1000002000, NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO, bars, sizeof(bars));

	l = ct_layout_find(CT_LAYOUT_UVM, UVM_CREATE_EXTERNAL_RANGE, sizeof(range), 0);
	put_field(l, range, "base", 0x200000000);
	put_field(l, range, "length", 0x600000);
	call(d, 1000003000, UVM_CREATE_EXTERNAL_RANGE, range, sizeof(range), NULL, 0);
	return mem_end(&m);
}

int main(void)
{
	char *text = decode(false, 1), *json = decode(true, 1), *vv = decode(false, 2), *l;

	kind_is(CT_LAYOUT_UVM, UVM_CREATE_EXTERNAL_RANGE, 24, "base", CT_FK_ADDR);
	kind_is(CT_LAYOUT_UVM, UVM_CREATE_EXTERNAL_RANGE, 24, "length", CT_FK_SIZE);
	kind_is(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_GPU_GET_GID_INFO, 268, "length", CT_FK_COUNT);
	kind_is(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_GPU_GET_GID_INFO, 268, "data", CT_FK_UUID);
	kind_is(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO, 200, "pciBarCount",
		CT_FK_COUNT);
	kind_is(CT_LAYOUT_ESCAPE, NV_ESC_RM_CONTROL, 32, "paramsSize", CT_FK_U);

	l = line(text, 0);
	ok(strstr(l, "*params={index=0, flags=0x2, length=16, "
		  "data=GPU-522785cf-a4e1-59e3-b8b3-922fa6deacce})") != NULL,
	   "GET_GID_INFO: its UUID, as nvidia-smi writes it");
	if (!strstr(l, "data=GPU-"))
		printf("#   got: %s\n", l);
	l = line(text, 1);
	ok(strstr(l, "pciBarCount=2, pciBarInfo[0].flags=0x0, pciBarInfo[0].barSize=0, "
		  "pciBarInfo[0].barSizeBytes=0x0, pciBarInfo[0].barOffset=0x102002000000, ") &&
	   strstr(l, "pciBarInfo[1].barSizeBytes=0x2000000000") && !strstr(l, "pciBarInfo[2]"),
	   "PCI BAR info: 2 of its 8 entries (pciBarCount), offsets and sizes in hex");
	if (strstr(l, "pciBarInfo[2]") || !strstr(l, "barOffset=0x"))
		printf("#   got: %s\n", l);
	l = line(text, 2);
	ok(strstr(l, "UVM_CREATE_EXTERNAL_RANGE, base=0x200000000, length=0x600000, ") != NULL,
	   "UVM: base and length in hex, as strace prints addresses");
	if (!strstr(l, "base=0x"))
		printf("#   got: %s\n", l);
	l = line(json, 3);
	ok(strstr(l, "\"base\":8589934592,\"length\":6291456,") != NULL,
	   "JSON keeps them numbers");
	if (!strstr(l, "\"base\":8589934592"))
		printf("#   got: %s\n", l);
	ok(strstr(vv, "      0000: 00 00 00 00 02 00 00 00 10 00 00 00 52 27 85 cf  "
		      "|............R'..|\n") != NULL &&
	   strstr(vv, "      0100: 00 00 00 00 00 00 00 00 00 00 00 00              "
		      "|............|\n") != NULL,
	   "-vv hex dumps: an ASCII column ('.' for the rest), aligned on a short last row");
	if (!strstr(vv, "|............R'..|"))
		printf("#   got: %.1500s\n", vv);
	free(text);
	free(json);
	free(vv);
	return tap_done();
}
