// SPDX-License-Identifier: MIT
/*
 * What CUDA's own copy and memset kernels did, from their parameters
 * (decoders/gpuwork/gpuwork_kop.c, decoders/gputables/kparams.tsv): the
 * probe's real parameter bytes give the sizes probe.cu asked for; a name
 * alone, a name by size, an ambiguous one, another file's kernel of that
 * name, parameters cut short or uploaded past the fields, and a count
 * that overflows give nothing.  Built under ASan/UBSan too.
 */
#include <string.h>

#include "cudatrace.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "kname.h"
#include "tap.h"

#define LIBCUDA "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"

/* The H200 probe's (traces/kernels/probe.ctrace): cudaMemsetAsync(e, 153,
 * 188696) and the rest of cudaMemcpyAsync(e, d, 3304936) after the bulk
 * kernel's 806 x 256 x 16 bytes. */
static const uint32_t memset_params[8] = { 0x30000000, 0x7f2c, 0x99999999, 0, 0xb846, 0, 0, 0 };
static const uint32_t copy_params[6] = { 0x30326000, 0x7f2c, 0x50b26000, 0x7f2c, 0x37a, 0 };
/* An H200 run of tests/gpu/gen_kernels.py --seed 11 --kernels 300 --d2d 3
 * (2026-11-27): cudaMemcpyAsync(e, d, 1527416) ran as memcpy128, grid 372
 * of 256, with these parameters, then memcpy32_post of 3,704 bytes. */
static const uint32_t bulk_params[4] = { 0x54000000, 0x7f5d, 0x74800000, 0x7f5d };

static struct gw_event launch(const uint32_t *p, uint32_t ndw, uint32_t at)
{
	return (struct gw_event){ .kind = GW_LAUNCH, .params = p, .params_ndw = ndw,
				  .params_at = at };
}

static struct ct_kname kernel(const char *name, const char *module, uint32_t how, uint32_t flags)
{
	return (struct ct_kname){ .name = (char *)name, .mangled = (char *)name,
				  .module = (char *)module, .how = how, .flags = flags };
}

int main(void)
{
	struct gw_event e = launch(memset_params, 8, 0x210);
	struct ct_kname k = kernel("memset32", LIBCUDA, CT_KN_INLINE, 0);
	struct gw_kop op = { 0 };
	uint32_t big[6];
	bool got;

	ok(gw_kernel_op(&e, &k, &op) && !strcmp(op.what, "set") && op.bytes == 188696 &&
	   op.dst == 0x7f2c30000000ull && op.fill == 0x99,
	   "memset32: 188,696 bytes of 0x99 at e (%llu)", (unsigned long long)op.bytes);
	e = launch(copy_params, 6, 0x210);
	k = kernel("memcpy32_post", LIBCUDA, CT_KN_COPY_READ, 0);
	ok(gw_kernel_op(&e, &k, &op) && !strcmp(op.what, "copy") && op.bytes == 3560 &&
	   op.src == 0x7f2c50b26000ull && op.dst == 0x7f2c30326000ull,
	   "memcpy32_post: the copy's last 3,560 bytes, d + 0x326000 -> e + 0x326000");

	k = kernel("memcpy32_post", "/opt/app/libcudart.so.13", CT_KN_INLINE, 0);
	ok(!gw_kernel_op(&e, &k, &op), "another file's kernel of that name: nothing");
	k = kernel("memcpy32_post", LIBCUDA, CT_KN_COPY_SIZE, 0);
	ok(!gw_kernel_op(&e, &k, &op), "named by its size only: nothing");
	k = kernel("memcpy32_post", LIBCUDA, CT_KN_INLINE, CT_KN_AMBIGUOUS);
	ok(!gw_kernel_op(&e, &k, &op), "ambiguous: nothing");
	k = kernel("memcpy32_postX", LIBCUDA, CT_KN_INLINE, 0);
	ok(!gw_kernel_op(&e, &k, &op), "a kernel the table does not have: nothing");
	ok(!gw_kernel_op(&e, NULL, &op), "no name: nothing");

	k = kernel("memcpy32_post", LIBCUDA, CT_KN_INLINE, 0);
	e = launch(copy_params, 5, 0x210);
	ok(!gw_kernel_op(&e, &k, &op), "parameters cut before the count's last dword: nothing");
	e = launch(copy_params, 6, 0x218);
	ok(!gw_kernel_op(&e, &k, &op), "parameters uploaded past the destination's place: nothing");
	e = launch(NULL, 0, 0);
	ok(!gw_kernel_op(&e, &k, &op), "no parameters seen: nothing");
	memcpy(big, copy_params, sizeof(big));
	big[4] = 0xffffffffu, big[5] = 0xffffffffu;
	e = launch(big, 6, 0x210);
	ok(!gw_kernel_op(&e, &k, &op), "a count whose bytes do not fit 64 bits: nothing");
	big[5] = 0x3fffffffu;
	ok(gw_kernel_op(&e, &k, &op) && op.bytes == 0xfffffffffffffffcull,
	   "the largest count that fits: read as it is");

	/* memcpy128: the size is its grid's, 16 bytes a thread (kvalues.tsv) */
	e = launch(bulk_params, 4, 0x210);
	e.grid[0] = 372, e.grid[1] = e.grid[2] = 1;
	e.block[0] = 256, e.block[1] = e.block[2] = 1;
	k = kernel("memcpy128", LIBCUDA, CT_KN_MODULE, 0);
	got = gw_kernel_op(&e, &k, &op);
	ok(got && !strcmp(op.what, "copy") && op.bytes == 1523712 &&
	   op.src == 0x7f5d74800000ull && op.dst == 0x7f5d54000000ull,
	   "memcpy128, grid 372 of 256: 1,523,712 bytes d -> e, with memcpy32_post's 3,704 the "
	   "1,527,416 asked for (%llu)", (unsigned long long)op.bytes);
	e.grid[0] = 0;
	ok(!gw_kernel_op(&e, &k, &op), "memcpy128 with an empty grid: nothing");
	e.grid[0] = e.grid[1] = e.grid[2] = 0xffffffffu;
	e.block[0] = e.block[1] = 1024;
	ok(!gw_kernel_op(&e, &k, &op), "memcpy128 whose threads' bytes do not fit 64 bits: nothing");
	return tap_done();
}
