/* SPDX-License-Identifier: MIT */
/*
 * Which GPU a UUID names.  The trace header lists every GPU's PCI address
 * and UUID (META gpu=), NV_ESC_CARD_INFO tells each process the minor
 * number (/dev/nvidiaN) of each PCI address; together they let a call that
 * names a GPU only by UUID (UVM_REGISTER_GPU, UVM_REGISTER_CHANNEL ...)
 * count as a call on GPU N, like the calls on /dev/nvidiaN.
 */
#ifndef CT_GPUS_H
#define CT_GPUS_H

#include <stdint.h>

#include "layouts.h"

#define CT_GPUS_MAX 64

struct ct_gpus {
	uint32_t driver;                  /* ct_driver_version() of the trace, 0 unknown */
	int n;
	struct {
		uint32_t domain, bus, slot, function;
		unsigned char uuid[16];
		int minor;                /* -1 until CARD_INFO names it */
		uint32_t gpu_id;          /* the RM's id (CARD_INFO gpu_id) */
	} gpu[CT_GPUS_MAX];
};

/* A META gpu= value: "0000:00:07.0 GPU-3a888b0d-5608-... NVIDIA H200". */
void ct_gpus_meta(struct ct_gpus *g, const char *val);
/* nv_ioctl_card_info_t at driver drv (0: the newest): NV_ESC_CARD_INFO's
 * argument is an array of them, of l->size bytes each. */
const struct ct_layout *ct_gpus_card_info_layout(uint32_t drv);
/* The argument of a successful NV_ESC_CARD_INFO, read through the layout
 * at g->driver. */
void ct_gpus_card_info(struct ct_gpus *g, const unsigned char *arg, uint32_t len);
/* The minor number of the GPU with this UUID, or -1. */
int ct_gpus_by_uuid(const struct ct_gpus *g, const unsigned char *uuid);
/* The minor number of the GPU with this RM gpu id (ATTACH_GPUS_TO_FD), or -1. */
int ct_gpus_by_id(const struct ct_gpus *g, uint32_t gpu_id);

#endif
