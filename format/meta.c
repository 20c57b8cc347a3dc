// SPDX-License-Identifier: MIT
/* Parsing of the CT_REC_META record: key=value lines. */
#include <string.h>

#include "fnv1a.h"
#include "meta.h"

void ct_meta_foreach(const struct ct_rec *meta,
		     void (*fn)(const char *key, const char *value, void *ctx), void *ctx)
{
	const char *p = (const char *)(meta + 1), *end = (const char *)meta + meta->size;
	char line[1200];

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char *eq;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			eq = strchr(line, '=');
			if (eq) {
				*eq = 0;
				fn(line, eq + 1, ctx);
			}
		}
		p += n + 1;
	}
}

uint64_t ct_meta_id(const struct ct_rec *meta)
{
	size_t body = meta->size > sizeof(*meta) ? meta->size - sizeof(*meta) : 0;

	return ct_fnv1a(meta + 1, body);
}
