// SPDX-License-Identifier: MIT
/*
 * The special decoders (special.h).  Objects (handles created, duplicated,
 * exported, freed, mapped) are learned in objects.c from the same calls;
 * docs/DECODERS.md lists both.
 */
#include <stdio.h>

#include "decoder.h"
#include "nvfacts.h"
#include "nvtables.h"
#include "special.h"

/* NV_ESC_RM_CONTROL: NVOS54.cmd names the command and its params' layout. */
static void describe_control(const struct ct_decoder *d, struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	const struct nv_ctrl_info *ci;

	if (!ct_read_u32(c->layout, ct_ioctl_arg(r), r->arg_size, "cmd", &c->ctrl))
		return;
	c->has_ctrl = true;
	ci = nv_ctrl_lookup(c->ctrl);
	c->ctrl_name = ci ? ci->name : NULL;
	c->nested_name = "*params";
	if (r->nest_ptr && r->nest_want)
		c->nested_layout = ct_layout_find(CT_LAYOUT_CTRL, c->ctrl, r->nest_want, d->driver);
}

/* NV_ESC_RM_ALLOC: NVOS21/NVOS64.hClass names the class and its alloc params.
 * The capture sizes the nested buffer by the class (CUDA leaves paramsSize 0). */
static void describe_alloc(const struct ct_decoder *d, struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	const struct nv_class_info *cl;

	if (!ct_read_u32(c->layout, ct_ioctl_arg(r), r->arg_size, "hClass", &c->hclass))
		return;
	c->has_class = true;
	cl = nv_class_lookup(c->hclass);
	c->class_name = cl ? cl->name : NULL;
	c->nested_name = "*pAllocParms";
	if (r->nest_ptr && r->nest_want)
		c->nested_layout = ct_layout_find(CT_LAYOUT_ALLOC, c->hclass, r->nest_want,
						    d->driver);
}

/* NV_ESC_IOCTL_XFER_CMD wraps another escape: nv_ioctl_xfer_t.cmd is its
 * number, and the buffer behind .ptr has that escape's layout. */
static void describe_xfer(const struct ct_decoder *d, struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	uint32_t cmd;

	if (!ct_read_u32(c->layout, ct_ioctl_arg(r), r->arg_size, "cmd", &cmd))
		return;
	c->xfer_nr = cmd & 0xff;
	c->nested_name = "*ptr";
	if (c->xfer_nr && r->nest_ptr && r->nest_want)
		c->nested_layout = ct_layout_find(CT_LAYOUT_ESCAPE, c->xfer_nr, r->nest_want,
						    d->driver);
}

/* NV_ESC_CARD_INFO: an array of nv_ioctl_card_info_t (at the trace's
 * driver), one per card; the unused slots have valid = 0 and are skipped. */
static bool print_card_info(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	const unsigned char *arg = ct_ioctl_arg(r);
	const struct ct_field_ctx fc = { .esc_nr = c->esc_nr, .client = c->client };
	const struct ct_layout *l = ct_gpus_card_info_layout(d->driver);
	uint32_t i, shown = 0, valid;

	if (!l || !r->arg_size || r->arg_size % l->size)
		return false;
	if (d->o.json)
		em_str_list_begin(&d->em, "args");
	else
		out_putc(&d->out, '[');
	for (i = 0; i + l->size <= r->arg_size; i += l->size) {
		if (!ct_read_u32(l, arg + i, l->size, "valid", &valid) || !valid)
			continue;
		if (!d->o.json)
			out_puts(&d->out, shown ? ", {" : "{");
		ct_print_struct(&d->fp, NULL, l, arg + i, l->size, &fc);
		if (!d->o.json)
			out_putc(&d->out, '}');
		shown++;
	}
	if (d->o.json)
		em_str_list_end(&d->em);
	else
		out_printf(&d->out, "] /* %u of %u slots valid */", shown, r->arg_size / l->size);
	return true;
}

static void learn_card_info(struct ct_decoder *d, const struct ct_ioctl *ex)
{
	ct_gpus_card_info(&d->gpus, ct_ioctl_arg(ex), ex->arg_size);
}

/* NV_ESC_ATTACH_GPUS_TO_FD: an array of NvU32 RM gpu ids, 0 = unused. */
static bool print_gpu_ids(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	const unsigned char *arg = ct_ioctl_arg(r);
	uint32_t used, i;

	if (!r->arg_size || r->arg_size % 4)
		return false;
	used = 4 * ct_u32s_used(arg, r->arg_size / 4);
	em_str_list_begin(&d->em, "gpu_ids");
	for (i = 0; i < used; i += 4) {
		char id[16];
		int n = snprintf(id, sizeof(id), "0x%x", (uint32_t)ct_field_u(arg + i, 4));

		em_str_list_item(&d->em, id, (size_t)n);
	}
	em_str_list_end(&d->em);
	return true;
}

/* The fd is attached to the GPU its ids name, if they name one. */
static int gpu_of_ids(const struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	const unsigned char *arg = ct_ioctl_arg(r);
	uint32_t id = 0, v, i;

	for (i = 0; i + 4 <= r->arg_size; i += 4) {
		v = (uint32_t)ct_field_u(arg + i, 4);
		if (v && id && v != id)
			return -1;   /* several GPUs */
		id = v ? v : id;
	}
	return id ? ct_gpus_by_id(&d->gpus, id) : -1;
}

static const struct ct_special specials[] = {
	{ NV_ESC_RM_CONTROL,        .describe = describe_control },
	{ NV_ESC_RM_ALLOC,          .describe = describe_alloc },
	{ NV_ESC_IOCTL_XFER_CMD,    .describe = describe_xfer },
	{ NV_ESC_CARD_INFO,         .print_arg = print_card_info, .learn = learn_card_info },
	{ NV_ESC_ATTACH_GPUS_TO_FD, .print_arg = print_gpu_ids, .gpu = gpu_of_ids },
};

const struct ct_special *ct_special_find(uint32_t esc_nr)
{
	size_t i;

	for (i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		if (specials[i].esc_nr == esc_nr)
			return &specials[i];
	return NULL;
}
