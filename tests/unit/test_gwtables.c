// SPDX-License-Identifier: MIT
/*
 * The --gpu-work tables' name lookups through their sorted indexes
 * (decoders/gputables/gwtables.c) against plain scans of the generated
 * tables: every method, and every value under every field its name can
 * end, gives the name a scan finds first.
 */
#include <stdio.h>
#include <string.h>

#include "gwtables.h"
#include "tap.h"

static const char *scan_method(uint32_t cls, uint32_t method)
{
	for (unsigned i = 0; i < gw_nmethods; i++)
		if (gw_methods[i].cls == cls && gw_methods[i].method == method)
			return gw_methods[i].name;
	return NULL;
}

static const char *scan_value(const char *scope, const char *field, uint32_t v)
{
	size_t n = strlen(field);

	for (unsigned i = 0; i < gw_nvalues; i++)
		if (gw_values[i].value == v && !strcmp(gw_values[i].scope, scope) &&
		    !strncmp(gw_values[i].name, field, n) && gw_values[i].name[n] == '_')
			return gw_values[i].name + n + 1;
	return NULL;
}

/* Each field a value's name can be cut to at an underscore. */
static unsigned check_value(const struct gw_value *x, unsigned *checked)
{
	char field[256];
	unsigned bad = 0;

	for (size_t i = 1; x->name[i] && i < sizeof(field); i++) {
		if (x->name[i] != '_')
			continue;
		memcpy(field, x->name, i);
		field[i] = 0;
		bad += gw_value_name(x->scope, field, x->value) != scan_value(x->scope, field, x->value);
		bad += gw_value_name(x->scope, field, x->value + 1) !=
		       scan_value(x->scope, field, x->value + 1);
		(*checked)++;
	}
	return bad;
}

int main(void)
{
	unsigned bad = 0, checked = 0, i;

	for (i = 0; i < gw_nmethods; i++) {
		bad += gw_method_name(gw_methods[i].cls, gw_methods[i].method) !=
		       scan_method(gw_methods[i].cls, gw_methods[i].method);
		bad += gw_method_name(gw_methods[i].cls, gw_methods[i].method + 2) !=
		       scan_method(gw_methods[i].cls, gw_methods[i].method + 2);
	}
	ok(gw_nmethods > 100 && !bad, "%u methods (and the address after each): the name a scan "
	   "finds, %u differ", gw_nmethods, bad);
	ok(!gw_method_name(0xffff, 0) && !gw_method_name(0, 0x100), "no class, no name");
	bad = 0;
	for (i = 0; i < gw_nvalues; i++)
		bad += check_value(&gw_values[i], &checked);
	ok(gw_nvalues > 100 && checked > gw_nvalues && !bad,
	   "%u values under %u field cuts (and the value after each): the name a scan finds, "
	   "%u differ", gw_nvalues, checked, bad);
	ok(!gw_value_name("zzzz", "QMD_TYPE", 0), "no scope, no name");
	return tap_done();
}
