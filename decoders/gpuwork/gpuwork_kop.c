// SPDX-License-Identifier: MIT
/*
 * CUDA's own kernels' operations (gpuwork_kop.h).  A name alone is not
 * enough: a program may call a kernel of its own memset32, so only
 * functions the capture found in libcuda, by their code, are read.
 */
#include <stdio.h>
#include <string.h>

#include "cudatrace.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "gwtables.h"
#include "kname.h"

/* Field f of the bank, from the parameters uploaded at e->params_at:
 * false if f lies outside what was kept. */
static bool param(const struct gw_event *e, const struct gw_field *f, uint64_t *v)
{
	uint64_t base = (uint64_t)e->params_at * 8;
	struct gw_field rel;

	if (!f || f->lo < base)
		return false;
	rel = *f;
	rel.lo = (uint32_t)(f->lo - base);
	rel.hi = (uint32_t)(f->hi - base);
	return gw_get_mw(e->params, e->params_ndw, &rel, v);
}

/* Whether module is libcuda (its path's last part "libcuda.so..."). */
static bool from_libcuda(const char *module)
{
	const char *base = strrchr(module, '/');

	return !strncmp(base ? base + 1 : module, "libcuda.so", 10);
}

/* A kernel whose size is its grid's (kvalues.tsv: BYTES_PER_THREAD):
 * the bytes, false if the table has none or they overflow. */
static bool grid_bytes(const struct gw_event *e, const char *scope, uint64_t *bytes)
{
	uint32_t per;
	uint64_t n = 1;

	if (!gw_value_find(scope, "BYTES_PER_THREAD", &per) || !per)
		return false;
	for (int i = 0; i < 3; i++) {
		if (!e->grid[i] || !e->block[i] ||
		    n > UINT64_MAX / e->grid[i] / e->block[i])
			return false;
		n *= (uint64_t)e->grid[i] * e->block[i];
	}
	if (n > UINT64_MAX / per)
		return false;
	*bytes = n * per;
	return true;
}

bool gw_kernel_op(const struct gw_event *e, const struct ct_kname *k, struct gw_kop *op)
{
	char scope[64];
	const struct gw_field *dst, *count, *src, *fill;
	uint64_t words, v;

	if (!k || !e->params || (k->flags & CT_KN_AMBIGUOUS) ||
	    (k->how != CT_KN_INLINE && k->how != CT_KN_MODULE && k->how != CT_KN_COPY_READ) ||
	    !from_libcuda(k->module) ||
	    (size_t)snprintf(scope, sizeof(scope), "kparams:%s", k->name) >= sizeof(scope))
		return false;
	dst = gw_field_find(scope, "DST_ADDRESS");
	count = gw_field_find(scope, "COUNT_DWORDS");
	src = gw_field_find(scope, "SRC_ADDRESS");
	fill = gw_field_find(scope, "FILL_BYTE");
	memset(op, 0, sizeof(*op));
	if (!param(e, dst, &op->dst))
		return false;
	if (count) {
		if (!param(e, count, &words) || words > UINT64_MAX / 4)
			return false;
		op->bytes = words * 4;
	} else if (!grid_bytes(e, scope, &op->bytes)) {
		return false;
	}
	if (src && param(e, src, &op->src)) {
		op->what = "copy";
		return true;
	}
	if (fill && param(e, fill, &v)) {
		op->what = "set";
		op->fill = (uint32_t)v;
		return true;
	}
	return false;
}
