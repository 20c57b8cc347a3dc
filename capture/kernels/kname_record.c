// SPDX-License-Identifier: MIT
/* A lookup's result as the CT_REC_KERNEL_NAME record (kname_record.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "kname_record.h"

/* The name field: one name, or each candidate's (CT_KN_NAMES) as long
 * as they fit; its length with the NULs. */
static size_t name_field(const struct ct_kindex *x, const struct ct_kfound *r, const char *name,
			 char *out, uint32_t *flags)
{
	size_t at = strnlen(name, CT_KNAME_MAX - 1);

	memcpy(out, name, at);
	out[at++] = '\0';
	if (r->how != CT_KM_AMBIGUOUS || r->ncand < 2 || r->cand[0] != r->f)
		return at;
	for (uint32_t i = 1; i < r->ncand; i++) {
		const char *n = ct_kindex_name(x, r->cand[i]);
		size_t len = strlen(n);

		if (len + 1 > CT_KNAME_MAX - at)
			return at;   /* too long: the first name alone, as before */
		memcpy(out + at, n, len + 1);
		at += len + 1;
		*flags |= i + 1 == r->ncand ? CT_KN_NAMES : 0;
	}
	return at;
}

struct ct_kernel_name *ct_kname_record(const struct ct_kindex *x, uint32_t pid, uint64_t program,
				       uint32_t how, const struct ct_kfound *r, const char *name,
				       uint32_t size)
{
	const char *module = r->f ? ct_kindex_path(x, r->f) : "";
	size_t mlen = strnlen(module, CT_KMODULE_MAX - 1), nlen;
	struct ct_kernel_name *rec = calloc(1, sizeof(*rec) + CT_KNAME_MAX + mlen + 1);
	uint32_t flags = 0;
	char *s;

	if (!rec)
		return NULL;
	s = (char *)(rec + 1);
	nlen = name_field(x, r, name, s, &flags);
	if (!(flags & CT_KN_NAMES))
		nlen = strlen(s) + 1;   /* a list cut short is not sent */
	rec->h.type = CT_REC_KERNEL_NAME;
	rec->h.size = (uint32_t)(sizeof(*rec) + nlen + (mlen ? mlen + 1 : 0));
	rec->h.ts_ns = ct_now_ns(CLOCK_MONOTONIC);
	rec->h.pid = pid;
	rec->program = program;
	rec->code_hash = r->f ? r->f->hash : r->hash;
	rec->code_size = r->f ? r->f->size : size;
	rec->how = how;
	rec->arch = r->f ? r->f->arch : 0;
	if (r->how == CT_KM_AMBIGUOUS) {
		rec->flags |= CT_KN_AMBIGUOUS | flags;
		rec->candidates = r->candidates;
	}
	rec->name_size = (uint32_t)nlen;
	rec->module_size = mlen ? (uint32_t)mlen + 1 : 0;
	if (mlen) {
		memcpy(s + nlen, module, mlen);
		s[nlen + mlen] = '\0';
	}
	return rec;
}
