// SPDX-License-Identifier: MIT
/*
 * What the capture gives the BPF program for a driver (capture/bpf_layout.c):
 * the escape structs that point to a buffer, at their sizes, with the
 * offsets of pointer, length and class, and the fd offset of each export
 * control, all by field name from the layout tables.  TAP.
 */
#include <stdio.h>
#include <string.h>

#include "bpf_layout.h"
#include "layouts.h"
#include "nvfacts.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	failed += !cond;
}

static const struct ct_nested_at *slot(const struct ct_bpf_layout *l, uint32_t nr, uint32_t size)
{
	for (int i = 0; i < CT_NESTED_MAX; i++)
		if (l->nested[i].size == size && l->nested[i].nr == nr)
			return &l->nested[i];
	return NULL;
}

static uint32_t fd_off(const struct ct_bpf_layout *l, uint32_t cmd)
{
	for (int i = 0; i < CT_FD_CTRL_MAX; i++)
		if (l->fd_ctrl[i].off != CT_NO_FIELD && l->fd_ctrl[i].cmd == cmd)
			return l->fd_ctrl[i].off;
	return CT_NO_FIELD;
}

int main(void)
{
	struct ct_bpf_layout l;
	const struct ct_nested_at *a;
	char err[200] = "";

	ok(ct_bpf_layout_fill(&l, ct_driver_version("515.43.04"), err, sizeof(err)) == 0,
	   "515.43.04: filled");
	a = slot(&l, NV_ESC_RM_ALLOC, 40);
	ok(a && a->ptr_off == 16 && a->len_off == CT_NO_FIELD && a->class_off == 12,
	   "515: NVOS64 is 40 bytes, no paramsSize: the class gives the size");
	a = slot(&l, NV_ESC_RM_ALLOC, 32);
	ok(a && a->len_off == CT_NO_FIELD, "515: NVOS21 has no paramsSize either");

	ok(ct_bpf_layout_fill(&l, ct_driver_version("580.142"), err, sizeof(err)) == 0,
	   "580.142: filled");
	a = slot(&l, NV_ESC_RM_ALLOC, 48);
	ok(a && a->ptr_off == 16 && a->len_off == 32 && a->class_off == 12,
	   "580: NVOS64 of 48 bytes, paramsSize at 32");
	a = slot(&l, NV_ESC_RM_ALLOC, 32);
	ok(a && a->len_off == 24, "580: NVOS21, paramsSize at 24");
	a = slot(&l, NV_ESC_RM_CONTROL, 32);
	ok(a && a->ptr_off == 16 && a->len_off == 24 && a->class_off == CT_NO_FIELD,
	   "NVOS54: params at 16, paramsSize at 24");
	a = slot(&l, NV_ESC_IOCTL_XFER_CMD, 16);
	ok(a && a->ptr_off == 8 && a->len_off == 4, "nv_ioctl_xfer_t: ptr at 8, size at 4");
	ok(l.ctrl_nr == NV_ESC_RM_CONTROL && l.ctrl_size == 32 && l.ctrl_cmd_off == 8,
	   "NVOS54 for the fileref: 32 bytes, cmd at 8");
	ok(fd_off(&l, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD) == 16 &&
	   fd_off(&l, NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD) == 72 &&
	   fd_off(&l, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD) == 0,
	   "export controls: fd at 16, 72, 0");
	ok(fd_off(&l, NV2080_CTRL_CMD_GPU_GET_NAME_STRING) == CT_NO_FIELD,
	   "a control that names no fd has no slot");

	ok(ct_bpf_layout_fill(&l, 0, err, sizeof(err)) == 0 && slot(&l, NV_ESC_RM_ALLOC, 48),
	   "no driver (stand-in devices): the newest layouts");
	if (err[0])
		printf("# %s\n", err);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
