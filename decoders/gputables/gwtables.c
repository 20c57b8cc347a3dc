// SPDX-License-Identifier: MIT
/* Lookups in the generated --gpu-work tables (gwtables.h).  Fields and
 * values by name are looked up once per class (gpuwork.c caches): plain
 * scans.  A method's name and a value's name are looked up for every
 * method decoded: through indexes sorted once, on first use (a scan of
 * 1,260 methods and of 975 values by strcmp was 28% of the decoder's time
 * on a stand-in's 50,000 launches). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gwtables.h"

static uint16_t *method_ix, *value_ix;   /* gw_methods by (cls, method), gw_values by (scope, value) */
static pthread_once_t ix_once = PTHREAD_ONCE_INIT;

/* Ties in table order: the first match is the one a scan would find. */
static int by_index(const void *a, const void *b)
{
	return *(const uint16_t *)a < *(const uint16_t *)b ? -1 : 1;
}

static int by_method(const void *a, const void *b)
{
	const struct gw_method *x = &gw_methods[*(const uint16_t *)a], *y = &gw_methods[*(const uint16_t *)b];

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->method != y->method)
		return x->method < y->method ? -1 : 1;
	return by_index(a, b);
}

static int value_cmp(const char *scope, uint32_t v, const struct gw_value *y)
{
	int c = strcmp(scope, y->scope);

	if (c)
		return c;
	return v < y->value ? -1 : v > y->value;
}

static int by_value(const void *a, const void *b)
{
	const struct gw_value *x = &gw_values[*(const uint16_t *)a];
	int c = value_cmp(x->scope, x->value, &gw_values[*(const uint16_t *)b]);

	return c ? c : by_index(a, b);
}

/* NULL indexes (out of memory) leave the lookups to plain scans. */
static void build_indexes(void)
{
	_Static_assert(sizeof(*method_ix) == 2, "indexes of 16 bits");
	if (gw_nmethods <= UINT16_MAX && (method_ix = malloc(gw_nmethods * sizeof(*method_ix)))) {
		for (unsigned i = 0; i < gw_nmethods; i++)
			method_ix[i] = (uint16_t)i;
		qsort(method_ix, gw_nmethods, sizeof(*method_ix), by_method);
	}
	if (gw_nvalues <= UINT16_MAX && (value_ix = malloc(gw_nvalues * sizeof(*value_ix)))) {
		for (unsigned i = 0; i < gw_nvalues; i++)
			value_ix[i] = (uint16_t)i;
		qsort(value_ix, gw_nvalues, sizeof(*value_ix), by_value);
	}
}

const char *gw_method_name(uint32_t cls, uint32_t method)
{
	size_t lo = 0, hi = gw_nmethods;

	pthread_once(&ix_once, build_indexes);
	if (!method_ix) {
		for (unsigned i = 0; i < gw_nmethods; i++)
			if (gw_methods[i].cls == cls && gw_methods[i].method == method)
				return gw_methods[i].name;
		return NULL;
	}
	while (lo < hi) {   /* the first at or after (cls, method) */
		size_t mid = lo + (hi - lo) / 2;
		const struct gw_method *m = &gw_methods[method_ix[mid]];

		if (m->cls < cls || (m->cls == cls && m->method < method))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < gw_nmethods && gw_methods[method_ix[lo]].cls == cls &&
	    gw_methods[method_ix[lo]].method == method)
		return gw_methods[method_ix[lo]].name;
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

static bool value_of_field(const struct gw_value *x, const char *field, size_t n)
{
	return !strncmp(x->name, field, n) && x->name[n] == '_';
}

const char *gw_value_name(const char *scope, const char *field, uint32_t v)
{
	size_t n = strlen(field), lo = 0, hi = gw_nvalues;

	pthread_once(&ix_once, build_indexes);
	if (!value_ix) {
		for (unsigned i = 0; i < gw_nvalues; i++)
			if (gw_values[i].value == v && !strcmp(gw_values[i].scope, scope) &&
			    value_of_field(&gw_values[i], field, n))
				return gw_values[i].name + n + 1;
		return NULL;
	}
	while (lo < hi) {   /* the first at or after (scope, v) */
		size_t mid = lo + (hi - lo) / 2;

		if (value_cmp(scope, v, &gw_values[value_ix[mid]]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the values of (scope, v): one a field, usually; the table's order among them */
	for (; lo < gw_nvalues && !value_cmp(scope, v, &gw_values[value_ix[lo]]); lo++)
		if (value_of_field(&gw_values[value_ix[lo]], field, n))
			return gw_values[value_ix[lo]].name + n + 1;
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
