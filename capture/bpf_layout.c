// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "bpf_layout.h"
#include "cudatrace.h"
#include "layouts.h"
#include "nvfacts.h"

uint32_t ct_running_driver(const char *proc_root)
{
	char path[512], line[512];
	uint32_t drv = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/driver/nvidia/version", proc_root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		drv = ct_driver_version(line);
	fclose(f);
	return drv;
}

/* The escapes whose struct points to a buffer, and its fields' names. */
static const struct {
	uint32_t nr;
	const char *ptr, *len, *cls;
} nested_escapes[] = {
	{ NV_ESC_RM_CONTROL, "params", "paramsSize", NULL },
	{ NV_ESC_RM_ALLOC, "pAllocParms", "paramsSize", "hClass" },   /* NVOS64 at 515/525: no paramsSize */
	{ NV_ESC_IOCTL_XFER_CMD, "ptr", "size", NULL },
};

/* The RM controls whose params name an export fd (field "fd"). */
static const uint32_t fd_controls[] = {
	NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD,
	NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD,
	NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO,
	NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD,
	NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD,
	NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t offset_of(const struct ct_layout *l, const char *name)
{
	const struct ct_field *f = name ? ct_layout_field(l, name) : NULL;

	return f ? f->offset : CT_NO_FIELD;
}

static int fill_nested(struct ct_bpf_layout *out, uint32_t drv, char *err, size_t errlen)
{
	size_t i, k, n, used = 0;

	for (i = 0; i < NELEM(nested_escapes); i++) {
		const struct ct_layout *ls[CT_NESTED_MAX];

		n = ct_layout_sizes(CT_LAYOUT_ESCAPE, nested_escapes[i].nr, drv, ls, CT_NESTED_MAX);
		if (n == 0 || n > CT_NESTED_MAX - used) {
			snprintf(err, errlen, "escape 0x%x has %zu layouts at driver %u",
				 nested_escapes[i].nr, n, drv);
			return -1;
		}
		for (k = 0; k < n; k++) {
			struct ct_nested_at *at = &out->nested[used++];

			at->nr = nested_escapes[i].nr;
			at->size = ls[k]->size;
			at->ptr_off = offset_of(ls[k], nested_escapes[i].ptr);
			at->len_off = offset_of(ls[k], nested_escapes[i].len);
			at->class_off = offset_of(ls[k], nested_escapes[i].cls);
			if (at->ptr_off == CT_NO_FIELD || at->size > CT_ARG_MAX - 1) {
				snprintf(err, errlen, "%s (%u bytes) has no field %s", ls[k]->name,
					 ls[k]->size, nested_escapes[i].ptr);
				return -1;
			}
		}
	}
	return 0;
}

static int fill_controls(struct ct_bpf_layout *out, uint32_t drv, char *err, size_t errlen)
{
	const struct ct_layout *ctl = NULL;
	size_t i, n;

	if (ct_layout_sizes(CT_LAYOUT_ESCAPE, NV_ESC_RM_CONTROL, drv, &ctl, 1) != 1 ||
	    offset_of(ctl, "cmd") == CT_NO_FIELD) {
		snprintf(err, errlen, "no single NVOS54 layout with a cmd field at driver %u", drv);
		return -1;
	}
	out->ctrl_nr = NV_ESC_RM_CONTROL;
	out->ctrl_size = ctl->size;
	out->ctrl_cmd_off = offset_of(ctl, "cmd");
	for (i = 0; i < NELEM(fd_controls); i++) {
		const struct ct_layout *ls[4], *newest = NULL;
		size_t k;

		/* Several sizes: the newest layout in use (the BPF side keys on cmd alone). */
		n = ct_layout_sizes(CT_LAYOUT_CTRL, fd_controls[i], drv, ls, 4);
		for (k = 0; k < n && k < 4; k++)
			if (!newest || ls[k]->since > newest->since)
				newest = ls[k];
		out->fd_ctrl[i].cmd = fd_controls[i];
		out->fd_ctrl[i].off = offset_of(newest, "fd");
		if (out->fd_ctrl[i].off != CT_NO_FIELD && out->fd_ctrl[i].off >= CT_FD_OFF_MAX) {
			snprintf(err, errlen, "control 0x%x has its fd at %u", fd_controls[i],
				 out->fd_ctrl[i].off);
			return -1;
		}
	}
	return 0;
}

int ct_bpf_layout_fill(struct ct_bpf_layout *l, uint32_t drv, char *err, size_t errlen)
{
	size_t i;

	_Static_assert(NELEM(fd_controls) <= CT_FD_CTRL_MAX, "fd_ctrl too small");
	memset(l, 0, sizeof(*l));
	for (i = 0; i < CT_FD_CTRL_MAX; i++)
		l->fd_ctrl[i].off = CT_NO_FIELD;
	if (fill_nested(l, drv, err, errlen) || fill_controls(l, drv, err, errlen))
		return -1;
	return 0;
}
