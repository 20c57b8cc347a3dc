// SPDX-License-Identifier: MIT
/*
 * Filters (-e, --failed, --tid, --comm), run as the first view.  What each
 * key matches is in docs/VIEWS.md, "Filters"; keep the two in step.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "gpuwork.h"
#include "kname.h"
#include "labels.h"
#include "stack.h"
#include "nvtables.h"
#include "prognames.h"
#include "msg.h"

_Static_assert(CT_FILTER_MAX_COMMS + CT_NLOADER_COMMS <= 64,
	       "bpf/cudatrace.bpf.c: traced_comms holds 64 names");


enum key { K_ESC, K_CTRL, K_CLASS, K_UVM, K_SYSCALL, K_STATUS, K_API, K_CALLER, K_PY, K_KERNEL,
	   K_MAX };

static const char *const key_names[K_MAX] = {
	"esc", "ctrl", "class", "uvm", "syscall", "status", "api", "caller", "py", "kernel",
};
#define KNOWN_KEYS "esc, ctrl, class, uvm, syscall, status, api, caller, py, kernel"

/* What an unknown exact name is called in the error. */
static const char *const key_what[K_MAX] = {
	"escape", "RM control", "class", "UVM request", "syscall", "NV_STATUS", "api", "caller",
	"Python frame", "kernel",
};

/* Keys whose names come from the trace (-k stacks, kernel names), not from tables. */
static bool free_names(enum key k)
{
	return k == K_API || k == K_CALLER || k == K_PY || k == K_KERNEL;
}

struct pat {
	bool is_num;     /* 0x...: compare the number */
	uint32_t num;
	const char *glob;   /* else a shell pattern (fnmatch), into expr.buf */
};

struct expr {
	enum key key;
	struct pat *pats;
	size_t npats;
	char *buf;       /* the patterns, NUL-separated */
};

/* --comm with a mapping set: (pid, address) of mmaps whose comm passed. */
struct maprec {
	struct maprec *next;
	uint32_t pid;
	uint64_t addr;
};
#define MAP_BUCKETS 4096
#define TID_CACHE 1024

struct ct_filter {
	struct expr *exprs;
	size_t nexprs;
	bool failed;
	uint32_t *tids;
	size_t ntids;
	char *comms[CT_FILTER_MAX_COMMS];  /* patterns, or names cut to 15 chars */
	size_t ncomms;
	bool comm_wild;                    /* a --comm has a wildcard */
	char kcomms[CT_FILTER_MAX_COMMS + CT_NLOADER_COMMS][CT_COMM_LEN];
	struct maprec **maps;              /* MAP_BUCKETS, when ncomms */
	struct { uint32_t tid; char comm[CT_COMM_LEN + 1]; } tidcomm[TID_CACHE];
};

/* One line on stderr: "cudatrace: OPT 'ARG': what". */
static int fail(const char *opt, const char *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(const char *opt, const char *arg, const char *fmt, ...)
{
	char *what = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	ct_err("%s '%s': %s\n", opt, arg, what ? what : "(out of memory)");
	free(what);
	return -1;
}

/*
 * NULL if s is a well-formed fnmatch pattern, else what is wrong with it.
 * glibc's fnmatch takes an unclosed '[' as a literal; we say so instead,
 * since it is almost always a typo.
 */
static const char *check_glob(const char *s, bool *wild)
{
	size_t i = 0;

	*wild = false;
	while (s[i]) {
		if (s[i] == '\\') {
			if (!s[i + 1])
				return "a trailing '\\' escapes nothing";
			i += 2;
			continue;
		}
		if (s[i] == '*' || s[i] == '?') {
			*wild = true;
		} else if (s[i] == '[') {
			size_t j = i + 1;

			if (s[j] == '!' || s[j] == '^')
				j++;
			if (s[j] == ']')    /* a ']' first is a member */
				j++;
			while (s[j] && s[j] != ']')
				j++;
			if (!s[j])
				return "unbalanced '['";
			*wild = true;
			i = j;
		}
		i++;
	}
	return NULL;
}

static bool pat_matches(const char *glob, const char *name, const char *prefix)
{
	size_t n;

	if (!name)
		return false;
	if (fnmatch(glob, name, FNM_CASEFOLD) == 0)
		return true;
	n = prefix ? strlen(prefix) : 0;
	return n && strncmp(name, prefix, n) == 0 && fnmatch(glob, name + n, FNM_CASEFOLD) == 0;
}

static const char *key_prefix(enum key k)
{
	return k == K_ESC ? "NV_ESC_" : k == K_UVM ? "UVM_" : NULL;
}

/* Whether an exact name (no wildcard) is one the decoder can ever give. */
static bool name_known(enum key k, const char *glob)
{
	const char *pre = key_prefix(k);
	size_t i;

	switch (k) {
	case K_ESC:
		for (i = 0; i < nv_esc_count(); i++)
			if (pat_matches(glob, nv_esc_at(i)->name, pre))
				return true;
		return false;
	case K_CTRL:
		for (i = 0; i < nv_ctrl_count(); i++)
			if (pat_matches(glob, nv_ctrl_at(i)->name, NULL))
				return true;
		return false;
	case K_CLASS:
		for (i = 0; i < nv_class_count(); i++)
			if (pat_matches(glob, nv_class_at(i)->name, NULL))
				return true;
		return false;
	case K_UVM:
		for (i = 0; i < uvm_ioctl_count(); i++)
			if (pat_matches(glob, uvm_ioctl_at(i)->name, pre))
				return true;
		return false;
	case K_SYSCALL:
		return pat_matches(glob, "ioctl", NULL) || pat_matches(glob, "mmap", NULL) ||
		       pat_matches(glob, "munmap", NULL);
	case K_API:
	case K_CALLER:
	case K_PY:
	case K_KERNEL:
		return true;
	case K_STATUS:
		for (i = 0; i < nv_status_count(); i++)
			if (pat_matches(glob, nv_status_at(i)->name, NULL))
				return true;
		return false;
	case K_MAX:
		break;
	}
	return false;
}

/* "0x2a": a number; false if s is not exactly hex that fits 32 bits. */
static bool parse_hex(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	v = strtoull(s + 2, &end, 16);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* The KEY of KEY=PAT: its index, or -1 after saying why. */
static int parse_key(const char *arg, const char *eq)
{
	size_t klen = (size_t)(eq - arg);
	int k;

	if (!klen)
		return fail("-e", arg, "no key before '=' (keys: " KNOWN_KEYS ")");
	for (k = 0; k < K_MAX; k++)
		if (strlen(key_names[k]) == klen && strncmp(arg, key_names[k], klen) == 0)
			return k;
	return fail("-e", arg, "unknown key '%.*s' (known: " KNOWN_KEYS ")", (int)klen, arg);
}

/* One PAT of KEY=PAT,...: a hex number, a known name, or a shell pattern. */
static int parse_pattern(const struct expr *e, char *item, struct pat *pt, const char *arg)
{
	const char *why;
	bool wild;

	if (!*item)
		return fail("-e", arg, "empty pattern in the list '%s'", strchr(arg, '=') + 1);
	why = check_glob(item, &wild);
	if (why)
		return fail("-e", arg, "%s in '%s'", why, item);
	if (free_names(e->key)) {
		pt->glob = item;   /* any function name: -k stacks name them */
		return 0;
	}
	if (e->key != K_SYSCALL && !wild && item[0] == '0' && (item[1] == 'x' || item[1] == 'X')) {
		if (!parse_hex(item, &pt->num))
			return fail("-e", arg, "bad hex number '%s'", item);
		pt->is_num = true;
		return 0;
	}
	if (!wild && !name_known(e->key, item)) {
		if (e->key == K_SYSCALL)
			return fail("-e", arg, "unknown syscall '%s' (ioctl, mmap or munmap)", item);
		return fail("-e", arg, "unknown %s '%s' (not in the name tables of driver %s; "
			    "a hex value or a pattern with * also works)", key_what[e->key], item,
			    nv_tables_tag);
	}
	pt->glob = item;
	return 0;
}

static int parse_expr(struct ct_filter *f, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct expr e = { 0 }, *ne;
	char *p, *item, *next;
	size_t n;
	int k;

	if (!eq)
		return fail("-e", arg, "expected KEY=PATTERN[,PATTERN...] (keys: " KNOWN_KEYS ")");
	k = parse_key(arg, eq);
	if (k < 0)
		return -1;
	e.key = (enum key)k;
	if (!eq[1])
		return fail("-e", arg, "empty value for '%s'", key_names[k]);
	if (eq[1] == ',' || strstr(eq + 1, ",,") || eq[strlen(eq) - 1] == ',')
		return fail("-e", arg, "empty pattern in the list '%s'", eq + 1);
	e.buf = strdup(eq + 1);
	for (n = 1, p = e.buf; e.buf && *p; p++)
		n += *p == ',';
	e.pats = calloc(n, sizeof(*e.pats));
	if (!e.buf || !e.pats)
		goto oom;
	for (item = e.buf; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		if (parse_pattern(&e, item, &e.pats[e.npats], arg))
			goto bad;
		e.npats++;
	}
	ne = realloc(f->exprs, (f->nexprs + 1) * sizeof(*f->exprs));
	if (!ne)
		goto oom;
	f->exprs = ne;
	f->exprs[f->nexprs++] = e;
	return 0;
oom:
	ct_err("out of memory\n");
bad:
	free(e.buf);
	free(e.pats);
	return -1;
}

static int parse_tids(struct ct_filter *f, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	if (!copy) {
		ct_err("out of memory\n");
		return -1;
	}
	if (!*arg)
		rc = fail("--tid", arg, "empty list of thread ids");
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;
		uint32_t *nt;
		char *end;

		errno = 0;
		v = strtoul(tok, &end, 10);
		if (errno || end == tok || *end || tok[0] == '-' || tok[0] == '+' || v == 0 ||
		    v > INT32_MAX) {
			rc = fail("--tid", arg, "'%s' is not a thread id", tok);
			break;
		}
		nt = realloc(f->tids, (f->ntids + 1) * sizeof(*nt));
		if (!nt) {
			ct_err("out of memory\n");
			rc = -1;
			break;
		}
		f->tids = nt;
		f->tids[f->ntids++] = (uint32_t)v;
	}
	free(copy);
	return rc;
}

/* After the user's names in kcomms: the loaders' (prognames.h). */
static void add_loader_comms(struct ct_filter *f)
{
	static const char *const loaders[] = CT_LOADER_COMMS;
	size_t i;

	for (i = 0; i < CT_NLOADER_COMMS; i++) {
		memset(f->kcomms[f->ncomms + i], 0, CT_COMM_LEN);
		memcpy(f->kcomms[f->ncomms + i], loaders[i], strlen(loaders[i]));
	}
}

static int parse_comms(struct ct_filter *f, const char *arg)
{
	char *copy = strdup(arg), *item, *next;
	int rc = 0;

	if (!copy) {
		ct_err("out of memory\n");
		return -1;
	}
	for (item = copy; item && !rc; item = next) {
		const char *why;
		bool wild;
		char *c;

		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		if (!*item) {
			rc = fail("--comm", arg, "empty name");
			break;
		}
		why = check_glob(item, &wild);
		if (why) {
			rc = fail("--comm", arg, "%s in '%s'", why, item);
			break;
		}
		/* An escaped name is left to fnmatch, in user space. */
		wild |= strchr(item, '\\') != NULL;
		if (f->ncomms >= CT_FILTER_MAX_COMMS) {
			rc = fail("--comm", arg, "more than %d names", CT_FILTER_MAX_COMMS);
			break;
		}
		c = strdup(item);
		if (!c) {
			ct_err("out of memory\n");
			rc = -1;
			break;
		}
		if (!wild) {
			/* The kernel keeps 15 characters of a name: compare those. */
			size_t n = strlen(c);

			if (n > CT_COMM_LEN - 1)
				c[CT_COMM_LEN - 1] = 0;
			memset(f->kcomms[f->ncomms], 0, CT_COMM_LEN);
			memcpy(f->kcomms[f->ncomms], c, strlen(c));
		}
		f->comm_wild |= wild;
		f->comms[f->ncomms++] = c;
	}
	free(copy);
	add_loader_comms(f);
	if (!rc && !f->maps) {
		f->maps = calloc(MAP_BUCKETS, sizeof(*f->maps));
		if (!f->maps) {
			ct_err("out of memory\n");
			rc = -1;
		}
	}
	return rc;
}

int ct_filter_parse(struct ct_filter **fp, const char *opt, const char *arg)
{
	struct ct_filter *f = *fp;

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f) {
			ct_err("out of memory\n");
			return -1;
		}
		*fp = f;
	}
	if (strcmp(opt, "-e") == 0)
		return parse_expr(f, arg);
	if (strcmp(opt, "--tid") == 0)
		return parse_tids(f, arg);
	if (strcmp(opt, "--comm") == 0)
		return parse_comms(f, arg);
	if (strcmp(opt, "--failed") == 0) {
		f->failed = true;
		return 0;
	}
	ct_err("unknown filter option %s\n", opt);
	return -1;
}

/* --- matching -------------------------------------------------------------- */

/* Any pattern of e against the value's number, name and hex form. */
static bool expr_value(const struct expr *e, uint32_t num, const char *name)
{
	const char *pre = key_prefix(e->key);
	char hex[16];
	size_t i;

	snprintf(hex, sizeof(hex), "0x%x", num);
	for (i = 0; i < e->npats; i++) {
		const struct pat *p = &e->pats[i];

		if (p->is_num ? p->num == num :
		    pat_matches(p->glob, name, pre) || pat_matches(p->glob, hex, NULL))
			return true;
	}
	return false;
}

/* py=PAT: the call's Python frame by file:line (the file whole or its base
 * name), by file, or by function. */
static bool py_matches(const struct expr *e, const struct ct_call *c)
{
	char where[4200], base_where[4200];
	const char *base;

	if (!c->py || !c->py_file)
		return false;
	base = ct_base_name(c->py_file);
	snprintf(where, sizeof(where), "%s:%d", c->py_file, c->py->line);
	snprintf(base_where, sizeof(base_where), "%s:%d", base, c->py->line);
	for (size_t i = 0; i < e->npats; i++) {
		const char *g = e->pats[i].glob;

		if (pat_matches(g, where, NULL) || pat_matches(g, base_where, NULL) ||
		    pat_matches(g, c->py_file, NULL) || pat_matches(g, base, NULL) ||
		    pat_matches(g, c->py_func, NULL))
			return true;
	}
	return false;
}

static bool expr_matches(const struct expr *e, const struct ct_call *c)
{
	static const char *const kinds[] = { "ioctl", "mmap", "munmap" };
	size_t i;

	switch (e->key) {
	case K_ESC:
		return c->kind == CT_CALL_IOCTL && IOC_TYPE(c->request) == NV_IOCTL_MAGIC &&
		       expr_value(e, IOC_NR(c->request), c->name);
	case K_CTRL:
		return c->has_ctrl && expr_value(e, c->ctrl, c->ctrl_name);
	case K_CLASS:
		return c->has_class && expr_value(e, c->hclass, c->class_name);
	case K_UVM:
		return ct_call_is_uvm(c) && expr_value(e, c->request, c->name);
	case K_STATUS:
		return c->has_status && expr_value(e, c->status, c->status_name);
	case K_SYSCALL:
		for (i = 0; i < e->npats; i++)
			if (pat_matches(e->pats[i].glob, kinds[c->kind], NULL))
				return true;
		return false;
	case K_API:
	case K_CALLER:
		for (i = 0; i < e->npats; i++)
			if (pat_matches(e->pats[i].glob, e->key == K_API ? c->api : c->caller, NULL))
				return true;
		return false;
	case K_PY:
		return py_matches(e, c);
	case K_KERNEL:
		return false;   /* a driver call launches no kernel the GPU work names */
	case K_MAX:
		break;
	}
	return false;
}

static bool comm_in(const struct ct_filter *f, const char *comm)
{
	size_t i;

	for (i = 0; i < f->ncomms; i++)
		if (fnmatch(f->comms[i], comm, 0) == 0)
			return true;
	return false;
}

static size_t map_hash(uint32_t pid, uint64_t addr)
{
	uint64_t h = (addr >> 12) * 0x9e3779b97f4a7c15ull ^ pid;

	return (size_t)(h ^ (h >> 29)) % MAP_BUCKETS;
}

/*
 * A munmap record carries no comm: it passes --comm when the mmap it
 * undoes did (as in the kernel, which reports only such munmaps), else,
 * for a mapping made before the trace began, by its thread's last comm.
 */
static bool munmap_comm(struct ct_filter *f, const struct ct_call *c)
{
	struct maprec **pp = &f->maps[map_hash(c->pid, c->munmap->addr)], *m;
	size_t t = c->tid % TID_CACHE;

	for (; (m = *pp); pp = &m->next) {
		if (m->pid == c->pid && m->addr == c->munmap->addr) {
			*pp = m->next;
			free(m);
			return true;
		}
	}
	return f->tidcomm[t].tid == c->tid && f->tidcomm[t].comm[0] &&
	       comm_in(f, f->tidcomm[t].comm);
}

/* A launch's kernel against a pattern: its name or mangled name; code
 * several functions have, by its label only (a pattern for one of them
 * must not take the launch for that one). */
static bool kernel_matches(const char *glob, const struct ct_kname *k)
{
	const char *label = ct_kname_label(k);

	if (k->flags & CT_KN_AMBIGUOUS)
		return label && pat_matches(glob, label, NULL);
	return pat_matches(glob, k->name, NULL) || pat_matches(glob, k->mangled, NULL);
}

static bool comm_passes(struct ct_filter *f, const struct ct_call *c)
{
	size_t t = c->tid % TID_CACHE;
	bool ok;

	if (c->kind == CT_CALL_MUNMAP)
		return munmap_comm(f, c);
	f->tidcomm[t].tid = c->tid;
	memcpy(f->tidcomm[t].comm, c->comm, sizeof(f->tidcomm[t].comm));
	ok = comm_in(f, c->comm);
	if (ok && c->kind == CT_CALL_MMAP && !c->failed) {
		struct maprec *m = malloc(sizeof(*m));
		size_t h = map_hash(c->pid, (uint64_t)c->ret);

		if (m) {
			m->pid = c->pid;
			m->addr = (uint64_t)c->ret;
			m->next = f->maps[h];
			f->maps[h] = m;
		}
	}
	return ok;
}

bool ct_filter_match(struct ct_filter *f, const struct ct_call *c)
{
	size_t i;

	/* First: it keeps its books on every call, whatever the others say. */
	if (f->ncomms && !comm_passes(f, c))
		return false;
	if (f->failed && !c->failed)
		return false;
	if (f->ntids) {
		for (i = 0; i < f->ntids && f->tids[i] != c->tid; i++)
			;
		if (i == f->ntids)
			return false;
	}
	for (i = 0; i < f->nexprs; i++)
		if (!expr_matches(&f->exprs[i], c))
			return false;
	return true;
}

/* -e kernel=PAT: launches whose kernel (demangled or mangled, or its
 * jit: id) matches; every other --gpu-work event goes.  Without such a key
 * all GPU work passes. */
bool ct_filter_gpu_match(const struct ct_filter *f, const struct gw_event *e)
{
	size_t i, j;

	for (i = 0; i < f->nexprs; i++) {
		const struct expr *x = &f->exprs[i];
		bool hit = false;

		if (x->key != K_KERNEL)
			continue;
		if (e->kind != GW_LAUNCH || !e->kernel)
			return false;
		for (j = 0; j < x->npats && !hit; j++)
			hit = kernel_matches(x->pats[j].glob, e->kernel);
		if (!hit)
			return false;
	}
	return true;
}

static bool view_filter(void *ctx, const struct ct_call *c)
{
	return ct_filter_match(ctx, c);
}

static bool view_gpu_filter(void *ctx, const struct ct_gpu_seg *s, const struct gw_event *e)
{
	(void)s;
	return ct_filter_gpu_match(ctx, e);
}

struct ct_view ct_filter_view(struct ct_filter *f)
{
	struct ct_view v = { .filter = view_filter, .gpu_filter = view_gpu_filter, .ctx = f };

	return v;
}

bool ct_filter_needs_decoder(const struct ct_filter *f)
{
	return f && (f->nexprs || f->failed || f->ntids || f->comm_wild);
}

static bool has_key(const struct ct_filter *f, bool (*which)(enum key k))
{
	for (size_t i = 0; f && i < f->nexprs; i++)
		if (which(f->exprs[i].key))
			return true;
	return false;
}

static bool native_stack_key(enum key k)
{
	return k == K_API || k == K_CALLER;
}

static bool python_key(enum key k)
{
	return k == K_PY;
}

bool ct_filter_needs_stacks(const struct ct_filter *f)
{
	return has_key(f, native_stack_key);
}

bool ct_filter_needs_pystacks(const struct ct_filter *f)
{
	return has_key(f, python_key);
}

size_t ct_filter_kernel_comms(const struct ct_filter *f, const char (**names)[CT_COMM_LEN])
{
	if (!f || !f->ncomms || f->comm_wild)
		return 0;
	if (names)
		*names = (const char (*)[CT_COMM_LEN])f->kcomms;
	return f->ncomms + CT_NLOADER_COMMS;
}

void ct_filter_free(struct ct_filter *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nexprs; i++) {
		free(f->exprs[i].buf);
		free(f->exprs[i].pats);
	}
	free(f->exprs);
	free(f->tids);
	for (i = 0; i < f->ncomms; i++)
		free(f->comms[i]);
	if (f->maps) {
		for (i = 0; i < MAP_BUCKETS; i++) {
			struct maprec *m = f->maps[i], *n;

			for (; m; m = n) {
				n = m->next;
				free(m);
			}
		}
		free(f->maps);
	}
	free(f);
}
