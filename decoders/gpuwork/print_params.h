/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work launch lines: the parameters a launch was given (JSON
 * params, params_offset, params_cut; text with -v) and, for CUDA's own
 * copy and memset kernels, what they did (JSON op; text "(copy N B SRC ->
 * DST)", "(set N B at DST to 0xBB)").
 */
#ifndef CT_PRINT_PARAMS_H
#define CT_PRINT_PARAMS_H

struct ct_decoder;
struct gw_event;

void ct_print_params(struct ct_decoder *d, const struct gw_event *ev);
void ct_print_kernel_op(struct ct_decoder *d, const struct gw_event *ev);

#endif
