/* SPDX-License-Identifier: MIT */
/* --kernels-of FILE: the GPU functions of a file's fatbins (kernels_of.c). */
#ifndef CT_KERNELS_OF_H
#define CT_KERNELS_OF_H

#include "options.h"

/* 0, or 1 after saying why FILE could not be read. */
int ct_kernels_of(const struct ct_options *o);

#endif
