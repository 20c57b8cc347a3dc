// SPDX-License-Identifier: MIT
/*
 * A launch's kernel as printed (kname.h): " <name>" before its grid, with
 * what makes it less than certain said; in JSON "kernel", "kernel_mangled",
 * "kernel_module", "kernel_found" (how), and "kernel_candidates" when
 * functions of other names matched too.
 */
#include <string.h>

#include "decoder.h"
#include "print_kname.h"

/* The name comes from the trace: escaped, so that it cannot forge lines. */
void ct_print_kernel(struct ct_decoder *d, const struct ct_kname *k)
{
	if (!k)
		return;
	if (k->flags & CT_KN_AMBIGUOUS)
		out_printf(&d->out, " ? (%u functions match, one is ", k->candidates);
	else
		out_putc(&d->out, ' ');
	em_text(&d->out, k->name, strlen(k->name));
	if (k->flags & CT_KN_AMBIGUOUS)
		out_putc(&d->out, ')');
	else if (k->how == CT_KN_COPY_SIZE)
		out_puts(&d->out, " (by its size)");
}

void ct_print_kernel_json(struct ct_decoder *d, const struct ct_kname *k)
{
	struct emit *e = &d->em;

	if (!k)
		return;
	em_str(e, "kernel", (k->flags & CT_KN_AMBIGUOUS) ? "?" : k->name);
	em_str(e, "kernel_mangled", k->mangled);
	if (k->module[0])
		em_str(e, "kernel_module", k->module);
	em_str(e, "kernel_found", ct_kname_how(k->how));
	if (k->flags & CT_KN_AMBIGUOUS)
		em_u64(e, "kernel_candidates", k->candidates);
}
