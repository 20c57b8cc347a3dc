// SPDX-License-Identifier: MIT
/*
 * Every special decoder (decoders/special.c) on known bytes: the exact
 * text and JSON line it prints, strace-test style.  The structs are built
 * field by field through the layouts, as the decoder reads them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfacts.h"
#include "tap.h"
#include "records.h"

#define GPU_LINE "gpu=0000:c1:00.0 GPU-522785cf-a4e1-59e3-b8b3-922fa6deacce NVIDIA H100\n"

static const struct ct_layout *esc(uint32_t nr, uint32_t size)
{
	return ct_layout_find(CT_LAYOUT_ESCAPE, nr, size, 0);
}

/* Decodes the calls that fill() makes, -v text or JSON; returns line i. */
static char *decoded(void (*fill)(struct ct_decoder *), bool json, int i)
{
	struct mem_decoder m;
	struct ct_decode_opts o = { .json = json, .verbose = 1, .durations = true };
	struct ct_decoder *d = mem_start(&m, o);
	char *text, *l;

	ct_decoder_feed(d, meta_lines("580.159.04", GPU_LINE));
	fill(d);
	text = mem_end(&m);
	l = strdup(line(text, json ? i + 1 : i));   /* JSON: the header is line 0 */
	free(text);
	return l;
}

static void check_line(void (*fill)(struct ct_decoder *), bool json, int i, const char *want,
		       const char *what)
{
	char *got = decoded(fill, json, i);

	ok_str(got, want, what);
	free(got);
}

/* RM_CONTROL: cmd names the command and the layout of *params. */
static void fill_control(struct ct_decoder *d)
{
	unsigned char a[32] = { 0 }, params[4] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_CONTROL, sizeof(a));

	put_field(l, a, "hClient", 0xc1d00001);
	put_field(l, a, "hObject", 0xc1d00001);
	put_field(l, a, "cmd", NV0000_CTRL_CMD_SYSTEM_GET_PLATFORM_TYPE);
	put_field(l, a, "params", 0x7ffd00002000);
	put_field(l, a, "paramsSize", sizeof(params));
	l = ct_layout_find(CT_LAYOUT_CTRL, NV0000_CTRL_CMD_SYSTEM_GET_PLATFORM_TYPE, sizeof(params), 0);
	put_field(l, params, "systemType", 2);
	call(d, 1000001000, REQ(NV_ESC_RM_CONTROL, 32), a, sizeof(a), params, sizeof(params));
}

/* RM_ALLOC: hClass names the class and the layout of *pAllocParms. */
static void fill_alloc(struct ct_decoder *d)
{
	unsigned char a[48] = { 0 }, params[56] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_ALLOC, sizeof(a));

	put_field(l, a, "hRoot", 0xc1d00001);
	put_field(l, a, "hObjectParent", 0xc1d00001);
	put_field(l, a, "hObjectNew", 0x5c000002);
	put_field(l, a, "hClass", NV01_DEVICE_0);
	put_field(l, a, "pAllocParms", 0x7ffd00002000);
	l = ct_layout_find(CT_LAYOUT_ALLOC, NV01_DEVICE_0, sizeof(params), 0);
	put_field(l, params, "deviceId", 0);
	call(d, 1000001000, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a), params, sizeof(params));
}

/* IOCTL_XFER_CMD: cmd is the escape it wraps, decoded by its own layout. */
static void fill_xfer(struct ct_decoder *d)
{
	unsigned char a[16] = { 0 }, inner[8] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_IOCTL_XFER_CMD, sizeof(a));

	put_field(l, a, "cmd", NV_ESC_SYS_PARAMS);
	put_field(l, a, "size", sizeof(inner));
	put_field(l, a, "ptr", 0x7ffd00002000);
	put_field(esc(NV_ESC_SYS_PARAMS, sizeof(inner)), inner, "memblock_size", 0x8000000);
	call(d, 1000001000, REQ(NV_ESC_IOCTL_XFER_CMD, 16), a, sizeof(a), inner, sizeof(inner));
}

/* CARD_INFO: an array; empty slots skipped; teaches gpu_id -> minor, which
 * ATTACH_GPUS_TO_FD then uses to say which GPU it attaches. */
static void fill_cards(struct ct_decoder *d)
{
	unsigned char a[3 * 72] = { 0 }, *slot = a + 72;
	const struct ct_layout *l = esc(NV_ESC_CARD_INFO, 72);
	uint32_t ids[4] = { 0xc100, 0, 0, 0 };

	put_field(l, slot, "valid", 1);
	put_field(l, slot, "pci_info.bus", 0xc1);
	put_field(l, slot, "pci_info.vendor_id", 0x10de);
	put_field(l, slot, "pci_info.device_id", 0x2330);
	put_field(l, slot, "gpu_id", 0xc100);
	put_field(l, slot, "minor_number", 3);
	memcpy(slot + 60, "nvidia3", 7);          /* dev_name, a char array */
	call(d, 1000001000, REQ(NV_ESC_CARD_INFO, sizeof(a)), a, sizeof(a), NULL, 0);
	call(d, 1000002000, REQ(NV_ESC_ATTACH_GPUS_TO_FD, sizeof(ids)), ids, sizeof(ids), NULL, 0);
}

int main(int argc, char **argv)
{
	void (*fills[])(struct ct_decoder *) = { fill_control, fill_alloc, fill_xfer, fill_cards };
	size_t i;

	if (argc > 1) {   /* print what is decoded, to write the expectations */
		for (i = 0; i < 4; i++) {
			printf("%s\n%s\n", decoded(fills[i], false, 0), decoded(fills[i], true, 0));
			printf("%s\n%s\n", decoded(fills[i], false, 1), decoded(fills[i], true, 1));
		}
		return 0;
	}
	(void)argv;
	check_line(fill_control, false, 0,
		   "0.000001 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_RM_CONTROL, hClie"
		   "nt=0xc1d00001, hObject=0xc1d00001, cmd=0x111<NV0000_CTRL_CMD_SYSTEM_GET_"
		   "PLATFORM_TYPE>, flags=0x0, params=0x7ffd00002000, paramsSize=4, status=N"
		   "V_OK, *params={systemType=2}) = 0 <0.000005>",
		   "RM_CONTROL: the command named, its params by their layout (text, -v)");
	check_line(fill_control, true, 0,
		   "{\"type\":\"ioctl\",\"ts_ns\":1000001000,\"pid\":4242,\"tid\":4242,\"com"
		   "m\":\"app\",\"fd\":3,\"path\":\"/dev/nvidiactl\",\"syscall\":\"ioctl\",\""
		   "request\":\"0xc020462a\",\"name\":\"NV_ESC_RM_CONTROL\",\"ret\":0,\"dura"
		   "tion_ns\":5000,\"cmd\":\"0x111\",\"cmd_name\":\"NV0000_CTRL_CMD_SYSTEM_G"
		   "ET_PLATFORM_TYPE\",\"args\":{\"hClient\":\"0xc1d00001\",\"hObject\":\"0x"
		   "c1d00001\",\"cmd\":\"0x111\",\"cmd_name\":\"NV0000_CTRL_CMD_SYSTEM_GET_P"
		   "LATFORM_TYPE\",\"flags\":\"0x0\",\"params\":\"0x7ffd00002000\",\"paramsS"
		   "ize\":4,\"status\":\"0x0\",\"status_name\":\"NV_OK\"},\"params\":{\"syst"
		   "emType\":2},\"arg_in\":\"0100d0c10100d0c1110100000000000000200000fd7f000"
		   "00400000000000000\",\"arg_out\":\"0100d0c10100d0c11101000000000000002000"
		   "00fd7f00000400000000000000\",\"nested_ptr\":\"0x7ffd00002000\",\"nested_"
		   "size\":4,\"nested_in\":\"02000000\",\"nested_out\":\"02000000\"}",
		   "RM_CONTROL: the command named, its params by their layout (JSON)");
	check_line(fill_alloc, false, 0,
		   "0.000001 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_RM_ALLOC, hRoot=0"
		   "xc1d00001, hObjectParent=0xc1d00001, hObjectNew=0x5c000002<NV01_DEVICE_0"
		   " #0>, hClass=0x80<NV01_DEVICE_0>, pAllocParms=0x7ffd00002000, pRightsReq"
		   "uested=0x0, paramsSize=0, flags=0x0, status=NV_OK, *pAllocParms={deviceI"
		   "d=0, hClientShare=0x0, hTargetClient=0x0, hTargetDevice=0x0, flags=0x0, "
		   "vaSpaceSize=0x0, vaStartInternal=0, vaLimitInternal=0, vaMode=0}) = 0 <0.0"
		   "00005>",
		   "RM_ALLOC: the class named, the handle it makes annotated, its alloc params by layout (text, -v)");
	check_line(fill_alloc, true, 0,
		   "{\"type\":\"ioctl\",\"ts_ns\":1000001000,\"pid\":4242,\"tid\":4242,\"com"
		   "m\":\"app\",\"fd\":3,\"path\":\"/dev/nvidiactl\",\"syscall\":\"ioctl\",\""
		   "request\":\"0xc030462b\",\"name\":\"NV_ESC_RM_ALLOC\",\"ret\":0,\"durati"
		   "on_ns\":5000,\"gpu\":0,\"hClass\":\"0x80\",\"hClass_name\":\"NV01_DEVICE"
		   "_0\",\"args\":{\"hRoot\":\"0xc1d00001\",\"hObjectParent\":\"0xc1d00001\""
		   ",\"hObjectNew\":\"0x5c000002\",\"hObjectNew_name\":\"NV01_DEVICE_0 #0\","
		   "\"hClass\":\"0x80\",\"hClass_name\":\"NV01_DEVICE_0\",\"pAllocParms\":\""
		   "0x7ffd00002000\",\"pRightsRequested\":\"0x0\",\"paramsSize\":0,\"flags\""
		   ":\"0x0\",\"status\":\"0x0\",\"status_name\":\"NV_OK\"},\"pAllocParms\":{"
		   "\"deviceId\":0,\"hClientShare\":\"0x0\",\"hTargetClient\":\"0x0\",\"hTar"
		   "getDevice\":\"0x0\",\"flags\":\"0x0\",\"vaSpaceSize\":0,\"vaStartInterna"
		   "l\":0,\"vaLimitInternal\":0,\"vaMode\":0},\"arg_in\":\"0100d0c10100d0c10"
		   "200005c8000000000200000fd7f000000000000000000000000000000000000000000000"
		   "0000000\",\"arg_out\":\"0100d0c10100d0c10200005c8000000000200000fd7f0000"
		   "000000000000000000000000000000000000000000000000\",\"nested_ptr\":\"0x7f"
		   "fd00002000\",\"nested_size\":56,\"nested_in\":\"000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "0000000000000000\",\"nested_out\":\"000000000000000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "0000\"}",
		   "RM_ALLOC: the class named, the handle it makes annotated, its alloc params by layout (JSON)");
	check_line(fill_xfer, false, 0,
		   "0.000001 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_IOCTL_XFER_CMD, c"
		   "md=0xd6<NV_ESC_SYS_PARAMS>, size=8, ptr=0x7ffd00002000, *ptr={memblock_s"
		   "ize=0x8000000}) = 0 <0.000005>",
		   "IOCTL_XFER_CMD: the wrapped escape named, its struct by that escape's layout (text, -v)");
	check_line(fill_xfer, true, 0,
		   "{\"type\":\"ioctl\",\"ts_ns\":1000001000,\"pid\":4242,\"tid\":4242,\"com"
		   "m\":\"app\",\"fd\":3,\"path\":\"/dev/nvidiactl\",\"syscall\":\"ioctl\",\""
		   "request\":\"0xc01046d3\",\"name\":\"NV_ESC_IOCTL_XFER_CMD\",\"ret\":0,\""
		   "duration_ns\":5000,\"args\":{\"cmd\":\"0xd6\",\"cmd_name\":\"NV_ESC_SYS_"
		   "PARAMS\",\"size\":8,\"ptr\":\"0x7ffd00002000\"},\"ptr\":{\"memblock_size"
		   "\":134217728},\"arg_in\":\"d60000000800000000200000fd7f0000\",\"arg_out\""
		   ":\"d60000000800000000200000fd7f0000\",\"nested_ptr\":\"0x7ffd00002000\","
		   "\"nested_size\":8,\"nested_in\":\"0000000800000000\",\"nested_out\":\"00"
		   "00000800000000\"}",
		   "IOCTL_XFER_CMD: the wrapped escape named, its struct by that escape's layout (JSON)");
	check_line(fill_cards, false, 0,
		   "0.000001 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_CARD_INFO, [{vali"
		   "d=true, pci_info.domain=0, pci_info.bus=193, pci_info.slot=0, pci_info.f"
		   "unction=0, pci_info.vendor_id=4318, pci_info.device_id=9008, gpu_id=4940"
		   "8, interrupt_line=0, reg_address=0x0, reg_size=0x0, fb_address=0x0, fb_size=0x0,"
		   " minor_number=3, dev_name=nvidia3}] /* 1 of 3 slots valid */) = 0 <0.000"
		   "005>",
		   "CARD_INFO: the valid slots of the array, by the card layout (text, -v)");
	check_line(fill_cards, true, 0,
		   "{\"type\":\"ioctl\",\"ts_ns\":1000001000,\"pid\":4242,\"tid\":4242,\"com"
		   "m\":\"app\",\"fd\":3,\"path\":\"/dev/nvidiactl\",\"syscall\":\"ioctl\",\""
		   "request\":\"0xc0d846c8\",\"name\":\"NV_ESC_CARD_INFO\",\"ret\":0,\"durat"
		   "ion_ns\":5000,\"args\":[{\"valid\":true,\"pci_info.domain\":0,\"pci_info"
		   ".bus\":193,\"pci_info.slot\":0,\"pci_info.function\":0,\"pci_info.vendor"
		   "_id\":4318,\"pci_info.device_id\":9008,\"gpu_id\":49408,\"interrupt_line"
		   "\":0,\"reg_address\":0,\"reg_size\":0,\"fb_address\":0,\"fb_size\":0,\"m"
		   "inor_number\":3,\"dev_name\":\"nvidia3\"}],\"arg_in\":\"0000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000100000000000000"
		   "c1000000de10302300c10000000000000000000000000000000000000000000000000000"
		   "000000000000000000000000030000006e76696469613300000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "00000000000000000000000000000000000000000000000000000000\",\"arg_out\":\""
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "0100000000000000c1000000de10302300c1000000000000000000000000000000000000"
		   "0000000000000000000000000000000000000000030000006e7669646961330000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "000000000000000000000000000000000000000000000000000000000000000000000000"
		   "\"}",
		   "CARD_INFO: the valid slots of the array, by the card layout (JSON)");
	check_line(fill_cards, false, 1,
		   "0.000002 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_ATTACH_GPUS_TO_FD"
		   ", gpu_ids=[\"0xc100\"]) = 0 <0.000005>",
		   "ATTACH_GPUS_TO_FD: the ids in use (text)");
	check_line(fill_cards, true, 1,
		   "{\"type\":\"ioctl\",\"ts_ns\":1000002000,\"pid\":4242,\"tid\":4242,\"com"
		   "m\":\"app\",\"fd\":3,\"path\":\"/dev/nvidiactl\",\"syscall\":\"ioctl\",\""
		   "request\":\"0xc01046d4\",\"name\":\"NV_ESC_ATTACH_GPUS_TO_FD\",\"ret\":0"
		   ",\"duration_ns\":5000,\"gpu\":3,\"gpu_ids\":[\"0xc100\"],\"arg_in\":\"00"
		   "c10000000000000000000000000000\",\"arg_out\":\"00c1000000000000000000000"
		   "0000000\"}",
		   "ATTACH_GPUS_TO_FD: the ids in use, and the GPU that CARD_INFO says id 0xc100 is (JSON)");
	return tap_done();
}
