// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the readers of files the traced processes map
 * (capture/kernels/): the input is a .nv_fatbin section (containers,
 * entries, LZ4 and zstd payloads, the cubins in them) and, taken whole,
 * a cubin; every function found is indexed, then looked up from the
 * input's own bytes.  Built and run by `make fuzz-fatbin` (fuzz.mk).
 */
#include <stddef.h>
#include <stdint.h>

#include "cubin.h"
#include "fatbin.h"
#include "kindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(void *ctx, const struct ct_cubin_func *f)
{
	(void)ctx;
	(void)ct_code_hash(f->code, f->size, f->masks, f->nmasks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_kindex x;
	bool fresh;

	ct_kindex_init(&x);
	ct_kindex_add_fatbin(&x, "fuzz", 1, 1, data, size);
	ct_kindex_add_cubin(&x, ct_kindex_file(&x, "fuzz-cubin", 2, 2, &fresh), data, size);
	ct_kindex_add_embedded_to(&x, ct_kindex_file(&x, "fuzz-bare", 3, 3, &fresh), data, size);
	ct_cubin_functions(data, size, one, NULL);
	(void)ct_kindex_lookup(&x, data, size);
	(void)ct_kindex_by_size(&x, 0, size, 0, NULL);
	ct_kindex_free(&x);
	return 0;
}
