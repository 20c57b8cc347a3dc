// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "gpus.h"
#include "nvfacts.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "GPU-" then 32 hex digits, dashes anywhere between them. */
static int parse_uuid(const char *s, unsigned char *out)
{
	int i = 0, hi, lo;

	if (strncmp(s, "GPU-", 4) != 0)
		return -1;
	for (s += 4; i < 16; i++) {
		while (*s == '-')
			s++;
		hi = hexval(s[0]);
		lo = hi < 0 ? -1 : hexval(s[1]);
		if (lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return 0;
}

void ct_gpus_meta(struct ct_gpus *g, const char *val)
{
	unsigned int domain, bus, slot, function;
	char uuid[64];

	if (g->n >= CT_GPUS_MAX ||
	    sscanf(val, "%x:%x:%x.%x %63s", &domain, &bus, &slot, &function, uuid) != 5 ||
	    parse_uuid(uuid, g->gpu[g->n].uuid))
		return;
	g->gpu[g->n].domain = domain;
	g->gpu[g->n].bus = bus;
	g->gpu[g->n].slot = slot;
	g->gpu[g->n].function = function;
	g->gpu[g->n].minor = -1;
	g->n++;
}

const struct ct_layout *ct_gpus_card_info_layout(uint32_t drv)
{
	const struct ct_layout *l = NULL;

	/* One size per driver: the escape's size is that of the array. */
	ct_layout_sizes(CT_LAYOUT_ESCAPE, NV_ESC_CARD_INFO, drv, &l, 1);
	return l;
}

void ct_gpus_card_info(struct ct_gpus *g, const unsigned char *arg, uint32_t len)
{
	static const char *const names[] = { "valid", "pci_info.domain", "pci_info.bus",
					     "pci_info.slot", "pci_info.function", "gpu_id",
					     "minor_number" };
	const struct ct_layout *l = ct_gpus_card_info_layout(g->driver);
	uint32_t off, f[7];
	size_t k;
	int i;

	for (off = 0; l && off < len && l->size <= len - off; off += l->size) {
		for (k = 0; k < 7; k++)
			if (!ct_read_u32(l, arg + off, l->size, names[k], &f[k]))
				return;
		if (!f[0])
			continue;
		for (i = 0; i < g->n; i++)
			if (g->gpu[i].domain == f[1] && g->gpu[i].bus == f[2] &&
			    g->gpu[i].slot == f[3] && g->gpu[i].function == f[4] && f[6] < 4096) {
				g->gpu[i].minor = (int)f[6];
				g->gpu[i].gpu_id = f[5];
			}
	}
}

int ct_gpus_by_uuid(const struct ct_gpus *g, const unsigned char *uuid)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (memcmp(g->gpu[i].uuid, uuid, 16) == 0)
			return g->gpu[i].minor;
	return -1;
}

int ct_gpus_by_id(const struct ct_gpus *g, uint32_t gpu_id)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->gpu[i].minor >= 0 && g->gpu[i].gpu_id == gpu_id)
			return g->gpu[i].minor;
	return -1;
}
