// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "gpus.h"

/* nv_ioctl_card_info_t, 580 (decoders/layouts/escape_fields.tsv). */
#define CI_VALID         0
#define CI_DOMAIN        4
#define CI_BUS           8
#define CI_SLOT          9
#define CI_FUNCTION      10
#define CI_GPU_ID        16
#define CI_MINOR         56

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

void ct_gpus_card_info(struct ct_gpus *g, const unsigned char *arg, uint32_t len)
{
	uint32_t off, domain, minor, gpu_id;
	int i;

	for (off = 0; off + CT_CARD_INFO_SIZE <= len; off += CT_CARD_INFO_SIZE) {
		const unsigned char *c = arg + off;

		if (!c[CI_VALID])
			continue;
		memcpy(&domain, c + CI_DOMAIN, 4);
		memcpy(&minor, c + CI_MINOR, 4);
		memcpy(&gpu_id, c + CI_GPU_ID, 4);
		for (i = 0; i < g->n; i++)
			if (g->gpu[i].domain == domain && g->gpu[i].bus == c[CI_BUS] &&
			    g->gpu[i].slot == c[CI_SLOT] && g->gpu[i].function == c[CI_FUNCTION] &&
			    minor < 4096) {
				g->gpu[i].minor = (int)minor;
				g->gpu[i].gpu_id = gpu_id;
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
