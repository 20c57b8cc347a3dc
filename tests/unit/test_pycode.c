// SPDX-License-Identifier: MIT
/*
 * Naming a frame from a code object in process memory (capture/python/pycode.c),
 * on objects built in this test's own memory by each version's table
 * (read through process_vm_readv of itself, as the capture reads a
 * traced process): a live code object is named; one that its allocator
 * freed (the free-list link written over its reference count, the rest
 * intact, as pymalloc leaves it) stays unnamed, whatever its check.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "pyabi.h"
#include "pycode.h"
#include "pyframes.h"
#include "tap.h"

/* Room for any version's objects; each built zeroed, 16-byte aligned. */
struct fake {
	_Alignas(16) uint8_t code[CT_PY_CODE_CHUNK + 64];
	_Alignas(16) uint8_t file[256];
	_Alignas(16) uint8_t qualname[256];
	_Alignas(16) uint8_t linetable[64];
};

static void put(uint8_t *obj, uint32_t off, uint64_t v, size_t n)
{
	memcpy(obj + off, &v, n);
}

/* A compact ASCII str holding s. */
static void make_str(const struct ct_pyabi *a, uint8_t *obj, const char *s)
{
	uint32_t state = 1u << a->unicode_kind_shift | 1u << a->unicode_compact_bit |
			 1u << a->unicode_ascii_bit;

	put(obj, a->object_ob_refcnt, 1, 8);
	put(obj, a->unicode_length, strlen(s), 8);
	put(obj, a->unicode_hash, (uint64_t)-1, 8);
	put(obj, a->unicode_state, state, 4);
	memcpy(obj + a->unicode_ascii_size, s, strlen(s) + 1);
}

/* The check the kernel sends for the code object f->code (as bpf/pyframes.bpf.h builds it). */
static uint64_t kernel_check(const struct ct_pyabi *a, const struct fake *f)
{
	struct ct_py_code_id id = {
		.filename = (uintptr_t)f->file,
		.qualname = (uintptr_t)f->qualname,
		.linetable = (uintptr_t)f->linetable,
		.firstlineno = 40,
	};

	if (a->code_version != CT_PY_NONE)
		id.version = 7;
	if (!id.version) {
		memcpy(id.filename_head, f->file + a->unicode_hash, CT_PY_NAME_HEAD);
		memcpy(id.qualname_head, f->qualname + a->unicode_hash, CT_PY_NAME_HEAD);
	}
	return ct_py_check(&id);
}

static void make_code(const struct ct_pyabi *a, struct fake *f)
{
	memset(f, 0, sizeof(*f));
	make_str(a, f->file, "model.py");
	make_str(a, f->qualname, "Net.forward");
	put(f->linetable, a->object_ob_refcnt, 1, 8);   /* an empty bytes: no line */
	put(f->code, a->object_ob_refcnt, 1, 8);
	put(f->code, a->code_filename, (uintptr_t)f->file, 8);
	put(f->code, a->code_qualname != CT_PY_NONE ? a->code_qualname : a->code_name,
	    (uintptr_t)f->qualname, 8);
	put(f->code, a->code_linetable, (uintptr_t)f->linetable, 8);
	put(f->code, a->code_firstlineno, 40, 4);
	if (a->code_version != CT_PY_NONE)
		put(f->code, a->code_version, 7, 4);
}

/* Names the frame on f's code object with a fresh cache; 0 and the names, or -1. */
static int name(const struct ct_pyabi *a, struct fake *f, uint64_t check, struct ct_pyname *nm,
		struct ct_pycode *c)
{
	struct ct_pytypes types = { 0 };   /* types unknown: the liveness alone decides */
	struct ct_pyframe_raw raw = { .code = (uintptr_t)f->code, .check = check };

	ct_pycode_init(c, getpid(), a, &types);
	return ct_pycode_name(c, &raw, nm);
}

static void one_version(unsigned minor)
{
	const struct ct_pyabi *a = ct_pyabi_builtin(minor);
	struct fake *f = calloc(1, sizeof(*f));
	struct ct_pyname nm;
	struct ct_pycode c;
	uint64_t check, link = (uintptr_t)f->file;   /* a free-list link: a heap address */
	int rc;

	if (!ok(a && f, "3.%u: a table", minor))
		return;
	make_code(a, f);
	check = kernel_check(a, f);
	rc = name(a, f, check, &nm, &c);
	ok(rc == 0 && nm.file && !strcmp(nm.file, "model.py") && nm.qualname &&
	   !strcmp(nm.qualname, "Net.forward"),
	   "3.%u: a live code object is named (%s %s)", minor, rc ? "-" : nm.file,
	   rc ? "-" : nm.qualname);
	ct_pycode_free(&c);

	put(f->code, a->object_ob_refcnt, link, 8);
	ok(name(a, f, check, &nm, &c) == -1,
	   "3.%u: freed (a free-list link over its count, the rest intact): unnamed", minor);
	ct_pycode_free(&c);
	put(f->code, a->object_ob_refcnt, 0, 8);
	ok(name(a, f, check, &nm, &c) == -1, "3.%u: freed, the last of its free list (0): unnamed",
	   minor);
	ct_pycode_free(&c);

	/* Live counts: immortal, and (3.14) ob_flags above a static object's count. */
	put(f->code, a->object_ob_refcnt, 0x3fffffff, 8);
	ok(name(a, f, check, &nm, &c) == 0, "3.%u: an immortal count is alive", minor);
	ct_pycode_free(&c);
	if (a->object_ob_overflow != CT_PY_NONE) {
		put(f->code, a->object_ob_refcnt, 0xc0000000ull | 5ull << 48, 8);
		ok(name(a, f, check, &nm, &c) == 0, "3.%u: ob_flags set, ob_overflow 0: alive", minor);
		ct_pycode_free(&c);
	}
	free(f);
}

/* A fork's child inherits what its parent read before the fork: named
 * without its own memory (gone: an impossible pid), with the check. */
static void inherit(unsigned minor)
{
	const struct ct_pyabi *a = ct_pyabi_builtin(minor);
	struct ct_pytypes types = { 0 };
	struct fake *f = calloc(1, sizeof(*f));
	struct ct_pycode parent, child;
	struct ct_pyframe_raw raw;
	struct ct_pyname nm;
	uint64_t after;

	if (!ok(a && f, "3.%u: a table", minor))
		return;
	make_code(a, f);
	raw = (struct ct_pyframe_raw){ .code = (uintptr_t)f->code, .check = kernel_check(a, f) };
	ok(name(a, f, raw.check, &nm, &parent) == 0, "3.%u: the parent names it", minor);
	after = ct_now_ns(CLOCK_MONOTONIC) + 1;

	ct_pycode_init(&child, 0x3fffffff, a, &types);
	ct_pycode_inherit(&child, &parent, after);
	ok(ct_pycode_name(&child, &raw, &nm) == 0 && !strcmp(nm.qualname, "Net.forward"),
	   "3.%u: a child forked after the parent read it names it, its memory gone", minor);
	raw.check ^= 1;
	ok(ct_pycode_name(&child, &raw, &nm) == -1,
	   "3.%u: ... but not a code object of another check at that address", minor);
	ct_pycode_free(&child);

	raw.check ^= 1;
	ct_pycode_init(&child, 0x3fffffff, a, &types);
	ct_pycode_inherit(&child, &parent, 1);
	ok(ct_pycode_name(&child, &raw, &nm) == -1,
	   "3.%u: a child forked before the parent read it inherits nothing of it", minor);
	ct_pycode_free(&child);
	ct_pycode_free(&parent);
	free(f);
}

int main(void)
{
	for (unsigned minor = 10; minor <= 14; minor++)
		one_version(minor);
	inherit(12);
	inherit(11);
	return tap_done();
}
