// SPDX-License-Identifier: MIT
/*
 * Numbers as a reader wants them (issue 22 item 15): addresses and sizes
 * of address space in hex in text and plain numbers in JSON, by the kinds
 * gen-layouts.awk derives from the names; arrays cut at their count,
 * whatever their length (flattened pciBarInfo[8], the 70 {index, data}
 * entries of GPU_GET_INFO_V2, the 200 classes of GET_CLASSLIST_V2), the
 * count never trusted past the array and what is left out always said; the
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

/* A check that the line holds want, and the line itself when it does not. */
static void has(const char *l, const char *want, const char *what)
{
	ok(strstr(l, want) != NULL, what);
	if (!strstr(l, want))
		printf("#   got: %s\n", l);
}

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

/* Entry i of the array called field, 4-byte members at their offsets. */
static void put_entry(const struct ct_layout *l, unsigned char *buf, const char *field,
		      uint32_t esize, uint32_t i, uint32_t a, uint32_t b)
{
	unsigned char *p = buf + ct_layout_field(l, field)->offset + (size_t)esize * i;

	memcpy(p, &a, 4);
	if (esize >= 8)
		memcpy(p + 4, &b, 4);
}

/* GPU_GET_INFO_V2 (70 entries of {index, data}) with count entries set,
 * count in gpuInfoListSize; junk: an entry past them that is not zero. */
static void gpu_info(struct ct_decoder *d, uint64_t ts, uint32_t count, uint32_t set, bool junk)
{
	unsigned char p[564] = { 0 };
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_CTRL, NV2080_CTRL_CMD_GPU_GET_INFO_V2,
						   sizeof(p), 0);
	uint32_t i;

	put_field(l, p, "gpuInfoListSize", count);
	for (i = 0; i < set; i++)
		put_entry(l, p, "gpuInfoList", 8, i, i == 0 ? 17 : i == 1 ? 34 : i, i == 0);
	if (junk)
		put_entry(l, p, "gpuInfoList", 8, 5, 0xdead, 0xbeef);
	control(d, ts, NV2080_CTRL_CMD_GPU_GET_INFO_V2, p, sizeof(p));
}

static char *decode(bool json, int verbose)
{
	struct mem_decoder m;
	struct ct_decode_opts o = { .json = json, .verbose = verbose };
	struct ct_decoder *d = mem_start(&m, o);
	const struct ct_layout *l;
	unsigned char gid[268] = { 0 }, bars[200] = { 0 }, range[24] = { 0 }, classes[804] = { 0 };

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

	gpu_info(d, 1000004000, 2, 2, false);       /* 2 of 70 */
	gpu_info(d, 1000005000, 1000, 70, false);   /* a count past the array: all 70 */
	gpu_info(d, 1000006000, 1, 1, true);        /* something past the count */
	l = ct_layout_find(CT_LAYOUT_CTRL, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, sizeof(classes), 0);
	put_field(l, classes, "numClasses", 2);
	put_entry(l, classes, "classList", 4, 0, NV01_DEVICE_0, 0);
	put_entry(l, classes, "classList", 4, 1, NV20_SUBDEVICE_0, 0);
	control(d, 1000007000, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, classes, sizeof(classes));
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
	has(l, "*params={index=0, flags=0x2, length=16, "
		  "data=GPU-522785cf-a4e1-59e3-b8b3-922fa6deacce})",
	    "GET_GID_INFO: its UUID, as nvidia-smi writes it");
	l = line(text, 1);
	ok(strstr(l, "pciBarCount=2, pciBarInfo[0].flags=0x0, pciBarInfo[0].barSize=0, "
		  "pciBarInfo[0].barSizeBytes=0x0, pciBarInfo[0].barOffset=0x102002000000, ") &&
	   strstr(l, "pciBarInfo[1].barSizeBytes=0x2000000000") && !strstr(l, "pciBarInfo[2]."),
	   "PCI BAR info: 2 of its 8 entries (pciBarCount), offsets and sizes in hex");
	if (strstr(l, "pciBarInfo[2].") || !strstr(l, "barOffset=0x"))
		printf("#   got: %s\n", l);
	has(l, "pciBarInfo[1].barOffset=0x0, pciBarInfo[2..7]=... not all zero})",
	    "the 6 entries past the count are said, and that one holds something");
	l = line(json, 2);
	has(l, "\"pciBarInfo[1].barOffset\":0,\"pciBarInfo_omitted\":6,"
		  "\"pciBarInfo_omitted_zero\":false}",
	    "JSON: pciBarInfo_omitted, pciBarInfo_omitted_zero");
	l = line(text, 2);
	has(l, "UVM_CREATE_EXTERNAL_RANGE, base=0x200000000, length=0x600000, ",
	    "UVM: base and length in hex, as strace prints addresses");
	l = line(json, 3);
	has(l, "\"base\":8589934592,\"length\":6291456,",
	    "JSON keeps them numbers");
	l = line(text, 3);
	has(l, "*params={gpuInfoListSize=2, gpuInfoList=[{index=17, data=1}, "
		  "{index=34, data=0}, ... 68 more, all zero]})",
	    "GPU_GET_INFO_V2: 2 of its 70 {index, data} entries, and how many are left out");
	l = line(text, 4);
	ok(strstr(l, "gpuInfoListSize=1000, gpuInfoList=[{index=17, data=1}, ") &&
	   strstr(l, ", {index=69, data=0}]})") && !strstr(l, "more"),
	   "a count past the array (1000 of 70): all 70 entries, never more");
	if (!strstr(l, "{index=69, data=0}]})"))
		printf("#   got: %.300s ... %s\n", l, strlen(l) > 200 ? l + strlen(l) - 200 : l);
	l = line(text, 5);
	has(l, "gpuInfoList=[{index=17, data=1}, ... 69 more, not all zero]})",
	    "a count that leaves out something that is not zero says so");
	l = line(json, 6);
	has(l, "\"gpuInfoList\":[{\"index\":17,\"data\":1}],\"gpuInfoList_omitted\":69,"
		  "\"gpuInfoList_omitted_zero\":false}",
	    "JSON: the entries as objects, then gpuInfoList_omitted and _omitted_zero");
	l = line(text, 6);
	has(l, "*params={numClasses=2, classList=[0x80<NV01_DEVICE_0>, "
		  "0x2080<NV20_SUBDEVICE_0>, ... 198 more, all zero]})",
	    "GET_CLASSLIST_V2: 2 of its 200 classes, named");
	l = line(json, 7);
	has(l, "\"classList\":[{\"class\":\"0x80\",\"class_name\":\"NV01_DEVICE_0\"},"
		  "{\"class\":\"0x2080\",\"class_name\":\"NV20_SUBDEVICE_0\"}],"
		  "\"classList_omitted\":198,\"classList_omitted_zero\":true}",
	    "JSON: a class entry is an object with its name, as a handle's is");
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
