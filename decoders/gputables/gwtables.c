// SPDX-License-Identifier: MIT
/* Lookups in the generated --gpu-work tables (gwtables.h).  The tables are
 * small and looked up once per class (gpuwork.c caches): plain scans. */
#include <stdio.h>
#include <string.h>

#include "gwtables.h"

const char *gw_method_name(uint32_t cls, uint32_t method)
{
	unsigned i;

	for (i = 0; i < gw_nmethods; i++)
		if (gw_methods[i].cls == cls && gw_methods[i].method == method)
			return gw_methods[i].name;
	return NULL;
}

bool gw_method_find(uint32_t cls, const char *name, uint32_t *method)
{
	unsigned i;

	for (i = 0; i < gw_nmethods; i++)
		if (gw_methods[i].cls == cls && !strcmp(gw_methods[i].name, name)) {
			*method = gw_methods[i].method;
			return true;
		}
	return false;
}

bool gw_class_known(uint32_t cls)
{
	unsigned i;

	for (i = 0; i < gw_nmethods; i++)
		if (gw_methods[i].cls == cls)
			return true;
	return false;
}

const struct gw_field *gw_field_find(const char *scope, const char *name)
{
	unsigned i;

	for (i = 0; i < gw_nfields; i++)
		if (!strcmp(gw_fields[i].scope, scope) && !strcmp(gw_fields[i].name, name))
			return &gw_fields[i];
	return NULL;
}

bool gw_value_find(const char *scope, const char *name, uint32_t *value)
{
	unsigned i;

	for (i = 0; i < gw_nvalues; i++)
		if (!strcmp(gw_values[i].scope, scope) && !strcmp(gw_values[i].name, name)) {
			*value = gw_values[i].value;
			return true;
		}
	return false;
}

const char *gw_value_name(const char *scope, const char *field, uint32_t v)
{
	size_t n = strlen(field);
	unsigned i;

	for (i = 0; i < gw_nvalues; i++)
		if (gw_values[i].value == v && !strcmp(gw_values[i].scope, scope) &&
		    !strncmp(gw_values[i].name, field, n) && gw_values[i].name[n] == '_')
			return gw_values[i].name + n + 1;
	return NULL;
}

void gw_scope_of(uint32_t cls, char buf[8])
{
	snprintf(buf, 8, "%04x", cls & 0xffff);
}

uint32_t gw_get(uint32_t word, const struct gw_field *f)
{
	uint32_t width = f->hi - f->lo + 1;

	return width >= 32 ? word >> f->lo : (word >> f->lo) & ((1u << width) - 1);
}

bool gw_get_mw(const uint32_t *dw, size_t n, const struct gw_field *f, uint64_t *out)
{
	uint64_t v = 0;
	uint32_t bit;

	if (!f || f->hi < f->lo || f->hi - f->lo >= 64 || f->hi / 32 >= n)
		return false;
	for (bit = f->hi + 1; bit-- > f->lo;)
		v = v << 1 | ((dw[bit / 32] >> (bit % 32)) & 1);
	*out = v;
	return true;
}
