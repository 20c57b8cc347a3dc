// SPDX-License-Identifier: MIT
/*
 * A launch's kernel as printed (kname.h): " <name>" before its grid, with
 * what makes it less than certain said; in JSON "kernel", "kernel_mangled",
 * "kernel_module", "kernel_found" (how), and for code several functions
 * have, "kernel_candidates" with "kernel_names" and "kernel_mangled_names"
 * where the trace holds them.
 */
#include <string.h>

#include "decoder.h"
#include "print_kname.h"

/* The name comes from the trace: escaped, so that it cannot forge lines. */
void ct_print_kernel(struct ct_decoder *d, const struct ct_kname *k)
{
	const char *label;

	if (!k)
		return;
	out_putc(&d->out, ' ');
	if (!(k->flags & CT_KN_AMBIGUOUS)) {
		em_text(&d->out, k->name, strlen(k->name));
		if (k->how == CT_KN_COPY_SIZE)
			out_puts(&d->out, " (by its size)");
	} else if ((label = ct_kname_label(k))) {
		em_text(&d->out, label, strlen(label));
		if (k->how == CT_KN_COPY_SIZE)   /* named by a copy's size, not its code */
			out_printf(&d->out, " (by its size: %u functions of it)", k->candidates);
		else
			out_printf(&d->out, " (%u functions have this code)", k->candidates);
	} else {   /* an older trace: one name of them */
		out_printf(&d->out, "? (%u functions match, one is ", k->candidates);
		em_text(&d->out, k->name, strlen(k->name));
		out_putc(&d->out, ')');
	}
}

static void names_json(struct emit *e, const char *key, char *const *names, uint32_t n)
{
	em_str_list_begin(e, key);
	for (uint32_t i = 0; i < n; i++)
		em_str_list_item(e, names[i], strlen(names[i]));
	em_str_list_end(e);
}

void ct_print_kernel_json(struct ct_decoder *d, const struct ct_kname *k)
{
	struct emit *e = &d->em;
	const char *label;

	if (!k)
		return;
	label = ct_kname_label(k);
	em_str(e, "kernel", label ? label : "?");
	em_str(e, "kernel_mangled", k->mangled);
	if (k->module[0])
		em_str(e, "kernel_module", k->module);
	em_str(e, "kernel_found", ct_kname_how(k->how));
	if (!(k->flags & CT_KN_AMBIGUOUS))
		return;
	em_u64(e, "kernel_candidates", k->candidates);
	if (k->nalt) {
		names_json(e, "kernel_names", k->alt, k->nalt);
		names_json(e, "kernel_mangled_names", k->alt_mangled, k->nalt);
	}
}
