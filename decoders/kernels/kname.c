// SPDX-License-Identifier: MIT
/* Kernel names by process and program address (kname.h). */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "kname.h"

static const char *const hows[CT_KN_HOWS] = {
	[CT_KN_INLINE] = "inline", [CT_KN_MODULE] = "module", [CT_KN_COPY_READ] = "copy",
	[CT_KN_COPY_SIZE] = "copy-size", [CT_KN_JIT] = "jit",
};

const char *ct_kname_how(uint32_t how)
{
	return how < CT_KN_HOWS && hows[how] ? hows[how] : "?";
}

static void kname_free(struct ct_kname *k)
{
	if (!k)
		return;
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
	if (!strncmp(mangled, "_Z", 2))
		k->name = ct_demangle(mangled);   /* bounded: names come from traces */
	if (!k->name)
		k->name = k->mangled;
	kname_free(idmap_put(m, r->program, k));
	t->records++;
}

const struct ct_kname *ct_kname_find(const struct ct_knames_table *t, uint32_t pid,
				     uint64_t program)
{
	const struct idmap *m = idmap_get(&t->procs, proc_key(pid));

	return m ? idmap_get(m, program) : NULL;
}
