// SPDX-License-Identifier: MIT
/* A launch's parameters and what CUDA's own copy and memset kernels did,
 * on its line (print_params.h; docs/GPUWORK.md, "Parameters"). */
#include <inttypes.h>
#include <string.h>

#include "decoder.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "print_params.h"

/* The parameters a launch was given, as uploaded (bytes in memory
 * order, hex): whole in JSON, the first 64 bytes in text with -v. */
#define PARAMS_TEXT_BYTES 64

void ct_print_params(struct ct_decoder *d, const struct gw_event *ev)
{
	uint8_t b[GW_UPLOAD_KEEP_DW * 4];
	size_t n;

	if (!ev->params || (!d->o.json && !d->o.verbose))
		return;
	n = gw_params_bytes(ev, b, sizeof(b));
	if (d->o.json) {
		em_bytes(&d->em, "params", b, n);
		em_hex(&d->em, "params_offset", ev->params_at);
		if (ev->params_cut)
			em_bool(&d->em, "params_cut", true);
		return;
	}
	out_printf(&d->out, " params@0x%x=", ev->params_at);
	out_hex_bytes(&d->out, b, n < PARAMS_TEXT_BYTES ? n : PARAMS_TEXT_BYTES);
	if (n > PARAMS_TEXT_BYTES || ev->params_cut)
		out_puts(&d->out, "...");
}

/* What one of CUDA's own kernels did, from its parameters. */
void ct_print_kernel_op(struct ct_decoder *d, const struct gw_event *ev)
{
	const struct gw_kop *op = ev->op;

	if (!op)
		return;
	if (d->o.json) {
		em_open(&d->em, "op");
		em_str(&d->em, "what", op->what);
		em_u64(&d->em, "bytes", op->bytes);
		if (!strcmp(op->what, "copy"))
			em_hex(&d->em, "src", op->src);
		else
			em_hex(&d->em, "fill", op->fill);
		em_hex(&d->em, "dst", op->dst);
		em_close(&d->em);
	} else if (!strcmp(op->what, "copy")) {
		out_printf(&d->out, " (copy %" PRIu64 " B 0x%" PRIx64 " -> 0x%" PRIx64 ")", op->bytes,
			   op->src, op->dst);
	} else {
		out_printf(&d->out, " (set %" PRIu64 " B at 0x%" PRIx64 " to 0x%02x)", op->bytes,
			   op->dst, op->fill);
	}
}

