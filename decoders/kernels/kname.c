// SPDX-License-Identifier: MIT
/* Kernel names by process and program address (kname.h). */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "kname.h"
#include "kname_merge.h"

static const char *const hows[CT_KN_HOWS] = {
	[CT_KN_INLINE] = "inline", [CT_KN_MODULE] = "module", [CT_KN_COPY_READ] = "copy",
	[CT_KN_COPY_SIZE] = "copy-size", [CT_KN_JIT] = "jit",
};

const char *ct_kname_how(uint32_t how)
{
	return how < CT_KN_HOWS && hows[how] ? hows[how] : "?";
}

static char *demangled(char *mangled)
{
	char *d = !strncmp(mangled, "_Z", 2) ? ct_demangle(mangled) : NULL;   /* bounded */

	return d ? d : mangled;
}

static void kname_free(struct ct_kname *k)
{
	if (!k)
		return;
	for (uint32_t i = 1; i < k->nalt; i++) {
		if (k->alt[i] != k->alt_mangled[i])
			free(k->alt[i]);
		free(k->alt_mangled[i]);
	}
	free(k->alt);
	free(k->alt_mangled);
	free(k->shown);
	if (k->name != k->mangled)
		free(k->name);
	free(k->mangled);
	free(k->module);
	free(k);
}

static void free_entry(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	kname_free(val);
}

static void free_proc(uint64_t key, void *val, void *ctx)
{
	struct idmap *m = val;

	(void)key;
	(void)ctx;
	idmap_drain(m, free_entry, NULL);
	free(m);
}

void ct_knames_table_free(struct ct_knames_table *t)
{
	idmap_drain(&t->procs, free_proc, NULL);
	memset(t, 0, sizeof(*t));
}

/* A process's key: pid + 1, as the map holds no key 0 (a trace may say pid 0). */
static uint64_t proc_key(uint32_t pid)
{
	return (uint64_t)pid + 1;
}

/* The names after the first in the record's name field (CT_KN_NAMES),
 * and their label; on failure k keeps only the first. */
static void learn_alternatives(struct ct_kname *k, const char *field, uint32_t size)
{
	const char *const *names;
	uint32_t n = 0, at;

	for (at = 0; at < size && n < CT_KNAME_MERGE_MAX; n++)
		at += (uint32_t)strnlen(field + at, size - at) + 1;
	if (n < 2 || !(k->alt = calloc(n, sizeof(*k->alt))) ||
	    !(k->alt_mangled = calloc(n, sizeof(*k->alt_mangled))))
		return;
	k->alt[0] = k->name;
	k->alt_mangled[0] = k->mangled;
	k->nalt = 1;
	for (at = (uint32_t)strlen(field) + 1; k->nalt < n; k->nalt++) {
		char *m = strdup(field + at);

		if (!m)
			break;
		at += (uint32_t)strlen(m) + 1;
		k->alt_mangled[k->nalt] = m;
		k->alt[k->nalt] = demangled(m);
	}
	names = (const char *const *)k->alt;
	k->shown = ct_kname_merge(names, k->nalt, k->candidates);
}

const char *ct_kname_label(const struct ct_kname *k)
{
	return !(k->flags & CT_KN_AMBIGUOUS) ? k->name : k->shown;
}

/* The record passed ct_record_check: both strings NUL-terminated. */
void ct_kname_learn(struct ct_knames_table *t, const struct ct_kernel_name *r)
{
	const char *mangled = (const char *)(r + 1);
	struct idmap *m = idmap_get_or_new(&t->procs, proc_key(r->h.pid), sizeof(*m), NULL);
	struct ct_kname *k = m ? calloc(1, sizeof(*k)) : NULL;

	if (!k)
		return;
	k->program = r->program;
	k->code_hash = r->code_hash;
	k->pid = r->h.pid;
	k->how = r->how;
	k->flags = r->flags;
	k->candidates = r->candidates;
	k->arch = r->arch;
	k->code_size = r->code_size;
	k->mangled = strdup(mangled);
	k->module = strdup(r->module_size ? mangled + r->name_size : "");
	if (!k->mangled || !k->module) {
		kname_free(k);
		return;
	}
	k->name = demangled(k->mangled);
	if ((r->flags & (CT_KN_AMBIGUOUS | CT_KN_NAMES)) == (CT_KN_AMBIGUOUS | CT_KN_NAMES))
		learn_alternatives(k, mangled, r->name_size);
	kname_free(idmap_put(m, r->program, k));
	t->records++;
}

const struct ct_kname *ct_kname_find(const struct ct_knames_table *t, uint32_t pid,
				     uint64_t program)
{
	const struct idmap *m = idmap_get(&t->procs, proc_key(pid));

	return m ? idmap_get(m, program) : NULL;
}
