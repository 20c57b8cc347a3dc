/* SPDX-License-Identifier: MIT */
/*
 * Cubins a file holds bare, without a fatbin around them: libcuda keeps
 * the kernels CUDA runs for itself (device-to-device copies, memsets) as
 * ELF images of machine EM_CUDA in its data (driver 580.159.04: 363 of
 * them in libcuda.so, no .nv_fatbin section; H200, 2026-11-27).  Pure:
 * bytes in, one callback per image out, every extent checked.
 */
#ifndef CT_EMBEDDED_H
#define CT_EMBEDDED_H

#include <stddef.h>
#include <stdint.h>

typedef void (*ct_embedded_fn)(void *ctx, const uint8_t *elf, size_t n);

/* Calls fn for each 64-bit little-endian EM_CUDA ELF image inside p[0..n)
 * whose headers and sections lie within it, n: the image's extent (its
 * headers and sections, whichever ends last).  Returns how many. */
size_t ct_embedded_cubins(const uint8_t *p, size_t n, ct_embedded_fn fn, void *ctx);

#endif
