/* SPDX-License-Identifier: MIT */
/* A launch's kernel name in text and JSON lines (print_kname.c). */
#ifndef CT_PRINT_KNAME_H
#define CT_PRINT_KNAME_H

#include "kname.h"

struct ct_decoder;

void ct_print_kernel(struct ct_decoder *d, const struct ct_kname *k);
void ct_print_kernel_json(struct ct_decoder *d, const struct ct_kname *k);

#endif
