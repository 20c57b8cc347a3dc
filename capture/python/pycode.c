// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <iconv.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "clock.h"
#include "pycode.h"
#include "pyframes.h"

#define FILE_MAX      4096          /* bytes of a file name kept */
#define QUALNAME_MAX  1024
#define LINETABLE_MAX (1u << 20)    /* a bigger line table is not believed */

#define CODES_MAX     (1u << 16)   /* cached code objects per process; then start again */

struct py_code {
	uint64_t addr, check;
	char *file, *qualname;
	int firstlineno;
	uint8_t *linetable;
	uint32_t linetable_len;
	uint64_t bytecode;          /* 3.11+: address of the first instruction */
	uint64_t read_ns;           /* when it was read (CLOCK_MONOTONIC) */
};

int ct_pymem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static uint64_t field_u64(const uint8_t *obj, uint32_t off)
{
	uint64_t v;

	memcpy(&v, obj + off, sizeof(v));
	return v;
}

/* Whether an object read from the process (its first bytes in obj) has the
 * type at address type: a freed object's memory reused holds another one.
 * type 0: not known (the symbol was not found), not checked. */
static bool of_type(const struct ct_pycode *c, const uint8_t *obj, uint64_t type)
{
	return !type || field_u64(obj, c->abi.object_ob_type) == type;
}

/*
 * Whether an object read from the process (its first bytes in obj) is
 * alive.  The allocator that freed it wrote its free-list link over the
 * first word, where the reference count is (pymalloc writes only that
 * word: a freed code object otherwise reads as it was, names and check
 * included, while its names' memory may hold other strings).  A live
 * object counts in the low 32 bits (3.12+ saturate there; before, no count
 * reaches 2^32), above them 0, or (3.14) ob_overflow 0 and ob_flags.  A
 * link is NULL or an address in mmap'd memory, far above 2^32.
 */
static bool alive(const struct ct_pycode *c, const uint8_t *obj)
{
	const struct ct_pyabi *a = &c->abi;
	uint64_t word = field_u64(obj, a->object_ob_refcnt);

	if ((uint32_t)word == 0)
		return false;
	if (a->object_ob_overflow == CT_PY_NONE)
		return word >> 32 == 0;
	return (uint16_t)field_u64(obj, a->object_ob_overflow) == 0;
}

/* A code object, alive: what both reads of one must find. */
static bool live_code(const struct ct_pycode *c, const uint8_t *obj)
{
	return of_type(c, obj, c->types.code) && alive(c, obj);
}

/*
 * Whether the object whose header (its first len bytes, no byte past it)
 * was read into head is still the same one: the header read again after
 * its contents, equal from the type on (the reference count moves in a
 * live object).  A process frees and reuses memory while we read it; an
 * object freed and its memory reused in between has another header.
 */
static bool unchanged(const struct ct_pycode *c, uint64_t addr, const uint8_t *head, size_t len)
{
	uint8_t again[CT_PY_CODE_CHUNK];
	size_t from = c->abi.object_ob_type;

	return len <= sizeof(again) && from < len && ct_pymem_read(c->pid, addr, again, len) == 0 &&
	       memcmp(again + from, head + from, len - from) == 0;
}

/* UCS-1/2/4 code units of a compact str into UTF-8 (iconv; UCS-4LE to
 * UTF-8 is built into glibc, static builds included).  NULL if invalid. */
static char *utf8_of(const uint8_t *data, uint64_t n, unsigned kind)
{
	uint32_t *wide = malloc(n * sizeof(*wide) + 1);
	char *out = malloc(n * 4 + 1), *in_p = (char *)wide, *out_p = out;
	size_t in_left = n * sizeof(*wide), out_left = n * 4;
	iconv_t cd = iconv_open("UTF-8", "UCS-4LE");

	for (uint64_t i = 0; wide && i < n; i++)
		wide[i] = kind == 1 ? data[i] : kind == 2 ? ((const uint16_t *)data)[i]
							  : ((const uint32_t *)data)[i];
	if (!wide || !out || cd == (iconv_t)-1 ||
	    iconv(cd, &in_p, &in_left, &out_p, &out_left) == (size_t)-1) {
		free(out);
		out = NULL;
	} else {
		*out_p = 0;
	}
	if (cd != (iconv_t)-1)
		iconv_close(cd);
	free(wide);
	return out;
}

/* A str object of the process as a malloc'd UTF-8 string (at most max code points), or NULL. */
static char *read_str(const struct ct_pycode *c, uint64_t addr, uint64_t max)
{
	const struct ct_pyabi *a = &c->abi;
	uint8_t head[CT_PY_CODE_CHUNK];
	uint32_t state, kind, hdr;
	int64_t len;
	uint8_t *data;
	char *s;

	if (!addr || a->unicode_compact_size > sizeof(head) ||
	    ct_pymem_read(c->pid, addr, head, a->unicode_compact_size) ||
	    !of_type(c, head, c->types.str))
		return NULL;
	memcpy(&state, head + a->unicode_state, sizeof(state));
	memcpy(&len, head + a->unicode_length, sizeof(len));
	if (len < 0)
		return NULL;
	if (!(state >> a->unicode_compact_bit & 1))
		return NULL;   /* a legacy str: never a code object's name */
	/* kind's bits run from its shift up to the compact bit */
	kind = state >> a->unicode_kind_shift & ((1u << (a->unicode_compact_bit -
							  a->unicode_kind_shift)) - 1);
	if ((uint64_t)len > max)
		len = (int64_t)max;
	if (kind != 1 && kind != 2 && kind != 4)
		return NULL;
	data = malloc((size_t)len * kind + 1);
	if (!data)
		return NULL;
	hdr = (state >> a->unicode_ascii_bit & 1) ? a->unicode_ascii_size : a->unicode_compact_size;
	s = ct_pymem_read(c->pid, addr + hdr, data, (size_t)len * kind) ||
	    !unchanged(c, addr, head, hdr) ? NULL : utf8_of(data, (uint64_t)len, kind);
	free(data);
	return s;
}

/* A bytes object's contents (at most max bytes); *n its length. */
static uint8_t *read_bytes(const struct ct_pycode *c, uint64_t addr, uint32_t max, uint32_t *n)
{
	const struct ct_pyabi *a = &c->abi;
	uint8_t head[CT_PY_CODE_CHUNK];
	int64_t len;
	uint8_t *b;

	if (!addr || a->bytes_ob_sval > sizeof(head) ||
	    ct_pymem_read(c->pid, addr, head, a->bytes_ob_sval) || !of_type(c, head, c->types.bytes))
		return NULL;
	memcpy(&len, head + a->bytes_ob_size, sizeof(len));
	if (len < 0 || (uint64_t)len > max)
		return NULL;
	b = malloc((size_t)len + 1);
	if (b && (ct_pymem_read(c->pid, addr + a->bytes_ob_sval, b, (size_t)len) ||
		  !unchanged(c, addr, head, a->bytes_ob_sval))) {
		free(b);
		return NULL;
	}
	*n = (uint32_t)len;
	return b;
}

static void free_code(struct py_code *pc)
{
	if (!pc)
		return;
	free(pc->file);
	free(pc->qualname);
	free(pc->linetable);
	free(pc);
}

/* As the kernel builds the check (bpf/pyframes.bpf.h): co_version, else
 * the names' heads; unreadable counts as zeros. */
static void read_name_heads(const struct ct_pycode *c, const uint8_t *obj,
			    struct ct_py_code_id *id)
{
	const struct ct_pyabi *a = &c->abi;

	id->version = a->code_version != CT_PY_NONE ? (uint32_t)field_u64(obj, a->code_version) : 0;
	memset(id->filename_head, 0, sizeof(id->filename_head));
	memset(id->qualname_head, 0, sizeof(id->qualname_head));
	if (id->version)
		return;
	if (ct_pymem_read(c->pid, id->filename + a->unicode_hash, id->filename_head,
			  CT_PY_NAME_HEAD))
		memset(id->filename_head, 0, sizeof(id->filename_head));
	if (ct_pymem_read(c->pid, id->qualname + a->unicode_hash, id->qualname_head,
			  CT_PY_NAME_HEAD))
		memset(id->qualname_head, 0, sizeof(id->qualname_head));
}

/* What the kernel's check covers, from a code object's first bytes (and
 * its names' heads, read now). */
static void code_id(const struct ct_pycode *c, const uint8_t *obj, struct ct_py_code_id *id)
{
	const struct ct_pyabi *a = &c->abi;

	id->filename = field_u64(obj, a->code_filename);
	id->qualname = field_u64(obj, a->code_qualname != CT_PY_NONE ? a->code_qualname
								      : a->code_name);
	id->linetable = field_u64(obj, a->code_linetable);
	id->firstlineno = (uint32_t)field_u64(obj, a->code_firstlineno);
	read_name_heads(c, obj, id);
}

/*
 * The code object at addr, read whole; NULL when unreadable or freed.  Its
 * check is taken after its names and line table are read: the process may
 * free the code object and reuse its memory meanwhile, and what was read is
 * the code object's only if a read after it finds it still alive, with a
 * check that still matches the kernel's (the caller compares).  Alive at
 * both reads, it held its names all along.
 */
static struct py_code *read_code(struct ct_pycode *c, uint64_t addr)
{
	const struct ct_pyabi *a = &c->abi;
	uint8_t obj[CT_PY_CODE_CHUNK], again[CT_PY_CODE_CHUNK];
	struct ct_py_code_id first, id;
	struct py_code *pc;

	c->reads++;
	if (ct_pymem_read(c->pid, addr, obj, sizeof(obj)) || !live_code(c, obj) ||
	    !(pc = calloc(1, sizeof(*pc)))) {
		c->read_fails++;
		return NULL;
	}
	pc->addr = addr;
	code_id(c, obj, &first);
	pc->firstlineno = (int)(uint32_t)first.firstlineno;
	pc->file = read_str(c, first.filename, FILE_MAX);
	pc->qualname = read_str(c, first.qualname, QUALNAME_MAX);
	pc->linetable = read_bytes(c, first.linetable, LINETABLE_MAX, &pc->linetable_len);
	if (a->code_code_adaptive != CT_PY_NONE)
		pc->bytecode = addr + a->code_code_adaptive;
	if (pc->file && pc->qualname && ct_pymem_read(c->pid, addr, again, sizeof(again)) == 0 &&
	    live_code(c, again)) {
		code_id(c, again, &id);
		/* names read from other objects than the check's are not its names */
		if (memcmp(&first, &id, sizeof(id)) == 0) {
			pc->check = ct_py_check(&id);
			pc->read_ns = ct_now_ns(CLOCK_MONOTONIC);
			return pc;
		}
	}
	c->read_fails++;
	free_code(pc);
	return NULL;
}

static void drop_code(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free_code(val);
}

/* Cached by address and check: the prefetch thread may have read a later
 * code object at the same address before a frame of the earlier one is named. */
static uint64_t code_key(uint64_t addr, uint64_t check)
{
	return addr ^ (check * 0x9e3779b97f4a7c15ULL);
}

/* The code object a frame names: cached, or read now; NULL if what is at
 * its address now is another one (freed, its memory reused). */
static struct py_code *code_of(struct ct_pycode *c, const struct ct_pyframe_raw *f)
{
	uint64_t key = code_key(f->code, f->check);
	struct py_code *pc = idmap_get(&c->codes, key);

	if (pc && pc->addr == f->code && pc->check == f->check)
		return pc;
	pc = read_code(c, f->code);
	if (!pc)
		return NULL;
	if (pc->check != f->check) {
		c->mismatches++;
		free_code(pc);
		return NULL;
	}
	if (c->codes.used >= CODES_MAX)
		idmap_drain(&c->codes, drop_code, NULL);
	free_code(idmap_put(&c->codes, key, pc));
	return pc;
}

static int line_of(const struct ct_pycode *c, const struct py_code *pc, uint64_t instr)
{
	uint64_t off;

	if (c->abi.code_code_adaptive == CT_PY_NONE) {   /* 3.10: f_lasti, an index */
		if ((int32_t)instr < 0)
			return pc->firstlineno;   /* f_lasti -1: not started */
		off = (uint64_t)(uint32_t)instr * c->abi.code_unit_size;
	} else {
		if (instr < pc->bytecode)
			return -1;
		off = instr - pc->bytecode;
	}
	if (off > UINT32_MAX || !pc->linetable)
		return -1;
	return ct_pyline(c->abi.minor, pc->linetable, pc->linetable_len, pc->firstlineno,
			 (uint32_t)off);
}

int ct_pycode_name(struct ct_pycode *c, const struct ct_pyframe_raw *f, struct ct_pyname *out)
{
	struct py_code *pc = f->code && f->check ? code_of(c, f) : NULL;

	out->file = out->qualname = NULL;
	out->line = -1;
	if (!pc)
		return -1;
	out->file = pc->file;
	out->qualname = pc->qualname;
	out->line = line_of(c, pc, f->instr);
	return 0;
}

void ct_pycode_prefetch(struct ct_pycode *c, const struct ct_pyframe_raw *f)
{
	if (f->code && f->check)
		code_of(c, f);
}

void ct_pycode_init(struct ct_pycode *c, pid_t pid, const struct ct_pyabi *abi,
		    const struct ct_pytypes *types)
{
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->abi = *abi;
	c->types = *types;
}

static struct py_code *copy_code(const struct py_code *pc)
{
	struct py_code *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	*n = *pc;
	n->file = strdup(pc->file);
	n->qualname = strdup(pc->qualname);
	n->linetable = pc->linetable ? malloc(pc->linetable_len ? pc->linetable_len : 1) : NULL;
	if (!n->file || !n->qualname || (pc->linetable && !n->linetable)) {
		free_code(n);
		return NULL;
	}
	if (n->linetable)
		memcpy(n->linetable, pc->linetable, pc->linetable_len);
	return n;
}

struct inherit {
	struct ct_pycode *c;
	uint64_t before_ns;
};

static void inherit_one(uint64_t key, void *val, void *ctx)
{
	const struct inherit *in = ctx;
	const struct py_code *pc = val;
	struct py_code *n;

	if (pc->read_ns >= in->before_ns || in->c->codes.used >= CODES_MAX || !(n = copy_code(pc)))
		return;
	free_code(idmap_put(&in->c->codes, key, n));
}

void ct_pycode_inherit(struct ct_pycode *c, const struct ct_pycode *from, uint64_t before_ns)
{
	struct inherit in = { .c = c, .before_ns = before_ns };

	idmap_each(&from->codes, inherit_one, &in);
}

void ct_pycode_free(struct ct_pycode *c)
{
	idmap_drain(&c->codes, drop_code, NULL);
	idmap_free(&c->codes);
}
