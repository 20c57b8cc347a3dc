/* SPDX-License-Identifier: MIT */
/*
 * The running driver's struct offsets for the BPF program (bpf/nvlayout.h),
 * looked up by field name in the layout tables (decoders/layouts/layouts.h).
 */
#ifndef CT_BPF_LAYOUT_H
#define CT_BPF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "nvlayout.h"

/* ct_driver_version() of <proc_root>/driver/nvidia/version; 0 if there is
 * none (no NVIDIA driver loaded: stand-in devices in tests). */
uint32_t ct_running_driver(const char *proc_root);

/* Fills l from the layouts in use at driver drv (0: the newest).  -1, with
 * the reason in err, if a struct the program reads has no layout there or
 * lacks a field it needs. */
int ct_bpf_layout_fill(struct ct_bpf_layout *l, uint32_t drv, char *err, size_t errlen);

#endif
