// SPDX-License-Identifier: MIT
#include <string.h>

#include "field_get.h"
#include "record.h"

const struct ct_field *ct_field_named(const struct ct_layout *l, const char *name)
{
	size_t n = strlen(name);
	uint32_t i;

	for (i = 0; l && i < l->nfields; i++) {
		const char *f = l->fields[i].name;
		size_t fl = strlen(f);

		if (strcmp(f, name) == 0 ||
		    (fl > n && f[fl - n - 1] == '.' && strcmp(f + fl - n, name) == 0))
			return &l->fields[i];
	}
	return NULL;
}

bool ct_field_u64(const struct ct_layout *l, const unsigned char *buf, uint32_t len,
		  const char *name, uint64_t *out)
{
	const struct ct_field *f = ct_field_named(l, name);
	uint64_t v = 0;
	uint32_t i;

	if (!f || !buf || f->size == 0 || f->size > 8 || f->offset > len ||
	    f->size > len - f->offset)
		return false;
	for (i = 0; i < f->size; i++)
		v |= (uint64_t)buf[f->offset + i] << (8 * i);
	*out = v;
	return true;
}

static const struct ct_ioctl *call_rec(const struct ct_call *c)
{
	if (c->kind != CT_CALL_IOCTL)
		return NULL;
	return c->ex ? c->ex : c->en;
}

const struct ct_layout *ct_call_arg_layout(const struct ct_call *c, uint32_t drv)
{
	const struct ct_ioctl *r = call_rec(c);

	if (!r)
		return NULL;
	if (IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC)
		return ct_layout_escape_drv(IOC_NR(r->cmd), r->arg_size, drv);
	return ct_layout_uvm_drv(r->cmd, r->arg_size, drv);
}

const struct ct_layout *ct_call_nested_layout(const struct ct_call *c, uint32_t drv)
{
	const struct ct_ioctl *r = call_rec(c);

	if (!r || !r->nest_ptr || !r->nest_want)
		return NULL;
	if (c->has_ctrl)
		return ct_layout_ctrl(c->ctrl, r->nest_want, drv);
	if (c->has_class)
		return ct_layout_alloc(c->hclass, r->nest_want, drv);
	return NULL;
}
