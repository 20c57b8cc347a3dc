// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfi_rules.h"
#include "clock.h"
#include "codemaps.h"
#include "frames_cache.h"
#include "idmap.h"
#include "ktables.h"
#include "symbolize.h"
#include "unwind.h"
#include "msg.h"

/* The ring buffer's own header before each record (BPF_RINGBUF_HDR_SZ). */
#define CT_RINGBUF_HDR 8
#define UNWIND_MAX_FRAMES 256    /* bound on frames (and so on CFI steps) per stack */
/* walk_fast ends at UNWIND_MAX_FRAMES frames added: each must be added */
_Static_assert(UNWIND_MAX_FRAMES <= CT_FRAMES_MAX, "the frame bound must fit the record");

struct uw_proc {
	uint32_t pid;
	struct ct_codemaps maps;
	Dwfl *dwfl;              /* NULL: no module could be reported */
	struct ct_cfi_rules rules;   /* of dwfl's addresses: cleared when its modules change */
	bool maps_failed;        /* /proc/PID/maps was gone at the first look */
	const struct ct_stack *cur;   /* the stack being unwound */
	/* The unwinder's last read, if it failed: what stopped the walk (a
	 * return address that cannot be read ends it as if the stack did). */
	bool last_read_failed;
	bool bad_read;           /* it was below sp */
	uint64_t need;           /* else: bytes from sp it would have needed */
	uint64_t gen;            /* the state of its mappings (ct_unwinder.gen when they changed) */
};

/* Return addresses whose tables were asked for already, in a process's
 * state of its mappings: a table asked for is built or being built, and
 * most frames of a copied stack were in the copies before it (JAX: 872
 * addresses in 29,922 frames), each a mapping's search and two lookups. */
#define ASKED_BITS 12
#define ASKED_SLOTS (1u << ASKED_BITS)
struct asked_slot {
	uint64_t pc, gen;
	uint32_t pid;
};

/* A module of a process's Dwfl: where its file's names are, and its bias. */
struct uw_mod {
	struct ct_symfile *file;
	uint64_t bias;
};

struct ct_unwinder {
	const char *proc_root;
	struct ct_symbolizer *syms;
	ct_unwind_sink sink;
	void *ctx;
	struct idmap procs;      /* pid -> struct uw_proc */
	struct ct_frames_builder fb;
	unsigned char *mapbuf;
	bool check;              /* CT_UNWIND_CHECK: each fast walk checked against libdw's */
	struct ct_unwind_stats st;
	struct ct_ktables *kt;   /* -k walked in the kernel: its tables; NULL: copied */
	struct ct_frames_cache *named;   /* walks named (the kernel's, the copies'), by frame addresses */
	uint64_t gen;            /* moved on at every change of a process's mappings */
	unsigned char *recbuf;   /* a FRAMES record from the cache, with its call's header */
	struct asked_slot *asked;   /* ASKED_SLOTS, direct-mapped */
	/* A walk's frames before they are named (a copy's fast walk, the
	 * kernel's walk), named only where the cache does not hold the same
	 * walk named already (a loop's calls walk it again and again: naming,
	 * four strings a frame, was half of a copy's cost). */
	struct {
		uint32_t n;
		uint64_t pcs[UNWIND_MAX_FRAMES];
		uint64_t elf[UNWIND_MAX_FRAMES];
		struct ct_symfile *file[UNWIND_MAX_FRAMES];
	} walked;
	/* A kernel walk's gap (CT_REC_KSTACK_GAP): its stack bytes as a copy
	 * from the frame it could not step, for the walk that follows; and
	 * that walk's frames with the gap's put in. */
	struct {
		bool have;
		struct ct_kstack_gap g;
		struct ct_stack *s;      /* CT_KSTACK_GAP_MAX bytes after it */
		uint64_t pcs[CT_KSTACK_FRAMES];
	} gap;
	/* CT_UNWIND_CHECK with the kernel's walk: its last walk, which the
	 * copy of the same call that follows is compared with. */
	struct {
		bool have;
		uint32_t tid, n, end;
		uint64_t ts;
		uint64_t pcs[CT_KSTACK_FRAMES];
	} kcheck;
};

bool ct_unwind_check_on(void)
{
	const char *v = getenv(CT_UNWIND_CHECK_ENV);

	return v && *v;
}

bool ct_stack_walk_in_kernel(void)
{
	const char *v = getenv(CT_STACK_COPY_ENV);

	return !(v && *v);
}

/* Debug files by build-id, never downloaded (symbolize.c says why). */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* --- libdw's view of the process: the copied stack and registers -------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw_proc *p = arg;

	(void)dwfl;
	if (*thread_argp || !p->cur)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur->h.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct uw_proc *p = arg;

	(void)dwfl;
	if (!p->cur || (pid_t)p->cur->h.tid != tid)
		return false;
	*thread_argp = p;
	return true;
}

/* The word at addr of the copied stack; false if it is not in the copy. */
static bool stack_word(const struct ct_stack *s, uint64_t addr, uint64_t *result)
{
	uint64_t sp = s->regs[CT_REG_RSP];

	if (addr < sp || addr - sp > s->size || s->size - (addr - sp) < sizeof(*result))
		return false;
	memcpy(result, (const unsigned char *)(s + 1) + (addr - sp), sizeof(*result));
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_proc *p = arg;
	const struct ct_stack *s = p->cur;
	uint64_t sp = s->regs[CT_REG_RSP], word;

	(void)dwfl;
	p->last_read_failed = !stack_word(s, addr, &word);
	if (p->last_read_failed) {
		p->bad_read = addr < sp;
		p->need = addr < sp ? 0 : addr - sp + sizeof(*result);
		return false;
	}
	*result = word;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_proc *p = arg;
	Dwarf_Word regs[CT_STACK_NREGS];

	for (int i = 0; i < CT_STACK_NREGS; i++)
		regs[i] = p->cur->regs[i];
	return dwfl_thread_state_registers(thread, 0, CT_STACK_NREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* --- modules ------------------------------------------------------------- */

static int free_module_data(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start,
			    void *arg)
{
	(void)mod;
	(void)name;
	(void)start;
	(void)arg;
	free(*ud);
	*ud = NULL;
	return DWARF_CB_OK;
}

static void drop_dwfl(struct uw_proc *p)
{
	ct_cfi_rules_clear(&p->rules);
	if (!p->dwfl)
		return;
	dwfl_getmodules(p->dwfl, free_module_data, NULL, 0);
	dwfl_end(p->dwfl);
	p->dwfl = NULL;
}

static bool same_file(const struct ct_codemap *a, const struct ct_codemap *b)
{
	return a->ino == b->ino && a->dev == b->dev;
}

/* Whether file i was reported already: an earlier mapping of it, or (when
 * adding) a mapping kept from before. */
static bool reported_before(const struct ct_codemaps *ms, size_t i, bool adding)
{
	for (size_t j = 0; j < ms->n; j++) {
		if (j == i || !ms->v[j].is_elf || !same_file(&ms->v[j], &ms->v[i]))
			continue;
		if (j < i || (adding && !ms->v[j].fresh))
			return true;
	}
	return false;
}

static size_t report_modules(struct ct_unwinder *u, struct uw_proc *p, bool adding)
{
	size_t i, n = 0;

	for (i = 0; i < p->maps.n; i++) {
		const struct ct_codemap *m = &p->maps.v[i];
		const char *base = strrchr(m->path, '/');
		Dwfl_Module *mod;
		struct uw_mod *um;
		void **ud;
		int fd;

		if (!m->is_elf || (adding && !m->fresh) || reported_before(&p->maps, i, adding) ||
		    (fd = dup(m->fd)) < 0)
			continue;
		mod = dwfl_report_elf(p->dwfl, base ? base + 1 : m->path, m->path, fd, m->bias,
				      true);
		if (!mod) {
			close(fd);
			continue;
		}
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud && (um = calloc(1, sizeof(*um)))) {
			um->file = ct_symbolizer_file(u->syms, m);
			um->bias = m->bias;
			*ud = um;
		}
		n++;
	}
	return n;
}

/* One module per file, placed by the bias of its first executable mapping. */
static void build_dwfl(struct ct_unwinder *u, struct uw_proc *p)
{
	size_t n;

	drop_dwfl(p);
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl)
		return;
	dwfl_report_begin(p->dwfl);
	n = report_modules(u, p, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!n || !dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_callbacks, p))
		drop_dwfl(p);
}

/* A library loaded: report it alone; libdw keeps what it knows of the rest. */
static void add_to_dwfl(struct ct_unwinder *u, struct uw_proc *p)
{
	ct_cfi_rules_clear(&p->rules);   /* an address without a module may have one now */
	dwfl_report_begin_add(p->dwfl);
	report_modules(u, p, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
}

static void send_mappings(struct ct_unwinder *u, const struct uw_proc *p, uint64_t ts)
{
	for (size_t i = 0; i < p->maps.n; i++) {
		if (!p->maps.v[i].fresh)
			continue;
		ct_codemap_record(&p->maps.v[i], p->pid, ts, u->mapbuf);
		u->sink(u->ctx, (const struct ct_rec *)u->mapbuf);
	}
}

static struct uw_proc *get_proc(struct ct_unwinder *u, uint32_t pid)
{
	struct uw_proc *p = idmap_get(&u->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	idmap_put(&u->procs, pid, p);
	return p;
}

static void read_maps(struct ct_unwinder *u, struct uw_proc *p, uint64_t ts)
{
	struct ct_codemaps fresh;
	bool had = p->maps.n > 0;

	size_t before = p->maps.n, kept = 0;

	u->st.maps_reads++;
	if (ct_codemaps_read(u->proc_root, p->pid, &p->maps, &fresh)) {
		/* Gone: keep what we had, the stacks still queued need it. */
		p->maps_failed = !had;
		return;
	}
	p->maps = fresh;
	p->maps_failed = false;
	for (size_t i = 0; i < p->maps.n; i++)
		kept += !p->maps.v[i].fresh;
	send_mappings(u, p, ts);
	ct_ktables_proc(u->kt, p->pid, &p->maps);
	p->gen = ++u->gen;
	if (p->dwfl && kept == before) {
		if (kept < p->maps.n)
			add_to_dwfl(u, p);
	} else {
		build_dwfl(u, p);
	}
}

void ct_unwinder_refresh(struct ct_unwinder *u, uint32_t pid, uint64_t ts)
{
	struct uw_proc *p = get_proc(u, pid);

	if (p)
		read_maps(u, p, ts);
}

/*
 * A file mapped executable: opened by the path the kernel gave, so that it
 * is held even if the process exits at once; /proc/PID/maps otherwise.
 */
static void code_mapped(struct ct_unwinder *u, const struct ct_code_map *r)
{
	struct uw_proc *p = get_proc(u, r->h.pid);
	enum ct_codemap_added added;
	struct ct_codemap m;

	if (!p)
		return;
	if (ct_codemap_from_record(u->proc_root, r, &m)) {
		read_maps(u, p, r->h.ts_ns);
		return;
	}
	for (size_t i = 0; i < p->maps.n; i++)
		p->maps.v[i].fresh = false;
	added = ct_codemaps_add(&p->maps, &m);
	if (added == CT_CODEMAP_UNCHANGED)
		return;   /* known already */
	p->maps_failed = false;
	send_mappings(u, p, r->h.ts_ns);
	ct_ktables_proc(u->kt, p->pid, &p->maps);
	p->gen = ++u->gen;
	/* libdw keeps a module it was told of: one replaced means all anew. */
	if (p->dwfl && added == CT_CODEMAP_ADDED)
		add_to_dwfl(u, p);
	else
		build_dwfl(u, p);
}

static void free_proc(uint64_t pid, void *val, void *ctx)
{
	struct uw_proc *p = val;

	(void)pid;
	(void)ctx;
	drop_dwfl(p);
	ct_codemaps_free(&p->maps);
	free(p);
}

void ct_unwinder_forget(struct ct_unwinder *u, uint32_t pid)
{
	struct uw_proc *p = idmap_del(&u->procs, pid);

	ct_ktables_forget(u->kt, pid);
	if (p)
		free_proc(pid, p, NULL);
}

/* --- unwinding ----------------------------------------------------------- */

struct walk {
	struct ct_unwinder *u;
	struct uw_proc *p;
	bool no_module;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;
	Dwfl_Module *mod;
	struct uw_mod *um;
	void **ud = NULL;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	mod = dwfl_addrmodule(w->p->dwfl, activation ? pc : pc - 1);
	if (mod)
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	um = ud ? *ud : NULL;
	ct_frames_add(&w->u->fb, w->u->syms, um ? um->file : NULL, pc, um ? pc - um->bias : 0, activation);
	w->no_module = mod == NULL;
	return w->u->fb.nframes >= UNWIND_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Why the walk stopped, from the copy's flags and the unwinder's last read.
 * A failed read of a return address ends libdw's walk as if the stack
 * ended there (rc 0): that failed read is what tells the two apart. */
static uint32_t end_kind(const struct uw_proc *p, const struct ct_stack *s, int rc,
			 bool no_module, uint32_t nframes)
{
	if (nframes >= UNWIND_MAX_FRAMES)
		return CT_STACK_END_MAX_FRAMES;
	if (s->flags & CT_STACK_FAULT)
		return CT_STACK_END_BAD_READ;
	if (p->last_read_failed) {   /* below sp, or past the copy: more stack, or its end */
		if (!p->bad_read && s->flags & CT_STACK_TRUNC)
			return CT_STACK_END_COPY_SHORT;
		return CT_STACK_END_BAD_READ;
	}
	if (rc == 0)
		return CT_STACK_END_COMPLETE;
	if (no_module || nframes)
		return CT_STACK_END_NO_CFI;
	return CT_STACK_END_ERROR;
}

/* ct_frames.status, as traces before CT_REC_STACK_END had it (a copy too
 * short is no longer called the end). */
static uint32_t frames_status(uint32_t kind, bool no_module)
{
	switch (kind) {
	case CT_STACK_END_COMPLETE:
	case CT_STACK_END_COMPLETE_FP:
		return CT_UNWIND_END;
	case CT_STACK_END_NO_FP:
		return CT_UNWIND_NO_CFI;
	case CT_STACK_END_COPY_SHORT:
	case CT_STACK_END_BAD_READ:
		return CT_UNWIND_NO_STACK;
	case CT_STACK_END_MAX_FRAMES:
	case CT_STACK_END_MAX_BYTES:
		return CT_UNWIND_MAX_FRAMES;
	case CT_STACK_END_NO_MAPS:
		return CT_UNWIND_NO_MAPS;
	case CT_STACK_END_NO_CFI:
		return no_module ? CT_UNWIND_NO_CFI : CT_UNWIND_ERROR;
	}
	return CT_UNWIND_ERROR;
}

/* libdw's walk over the copied stack: how it ended (end->need_bytes set). */
static uint32_t walk_libdw(struct ct_unwinder *u, struct uw_proc *p, const struct ct_stack *s,
			   struct ct_stack_end *end, bool *no_module)
{
	struct walk w = { .u = u, .p = p };
	uint32_t kind;
	int rc;

	p->cur = s;
	p->last_read_failed = false;
	rc = dwfl_getthread_frames(p->dwfl, (pid_t)s->h.tid, on_frame, &w);
	p->cur = NULL;
	kind = end_kind(p, s, rc, w.no_module, u->fb.nframes);
	if (kind == CT_STACK_END_COPY_SHORT)
		end->need_bytes = p->need > UINT32_MAX ? UINT32_MAX : (uint32_t)p->need;
	*no_module = w.no_module;
	return kind;
}

/*
 * The walk libdw makes, from the rules kept (cfi_rules.h) alone: the same
 * frames, each named as on_frame names it.  False where a frame has no
 * rule or a read leaves the copy: then libdw walks the stack, and tells
 * why such a stack ends.
 */
/* Code no CFI covers (JIT code, a gap between FDEs): followed by its frame
 * pointer where rbp is one, and else the end of the walk, as the kernel's
 * walk does (kwalk.bpf.h). */
static bool no_cfi(const struct ct_cfi_rule *r)
{
	return r && !r->usable && (r->none == CT_CFI_NO_MODULE || r->none == CT_CFI_NO_FDE);
}

/* A read the walk needs is not in the copy: the stack ends there as
 * libdw's walk would end it (end_kind), needing the bytes up to top. */
static bool read_out(struct uw_proc *p, const struct ct_stack *s, uint64_t low, uint64_t top,
		     uint32_t nframes, uint32_t *kind)
{
	uint64_t sp = s->regs[CT_REG_RSP];

	p->last_read_failed = true;
	p->bad_read = low < sp;
	p->need = low < sp ? 0 : top - sp;
	*kind = end_kind(p, s, 0, false, nframes);
	return true;
}

static void walked_add(struct ct_unwinder *u, struct ct_symfile *file, uint64_t pc,
		       uint64_t elf_addr)
{
	uint32_t i = u->walked.n++;

	u->walked.pcs[i] = pc;
	u->walked.elf[i] = elf_addr;
	u->walked.file[i] = file;
}

/* Where a walk from the kept rules starts: a copy's registers, or the
 * frame a kernel walk could not step (a gap's), walked up to the frame
 * the kernel met above it (stop_sp and stop_pc; 0: to the end). */
struct walk_start {
	uint64_t pc, sp, bp, stop_sp, stop_pc;
	bool bp_known, activation;   /* activation: pc is where the thread is, not a return address */
};

/* The walk from the kept rules: its frames in u->walked, not named yet;
 * false: left to libdw. */
static bool walk_rules(struct ct_unwinder *u, struct uw_proc *p, const struct ct_stack *s,
		       const struct walk_start *at, uint32_t *kind)
{
	uint64_t pc = at->pc, sp = at->sp, bp = at->bp;
	bool bp_known = at->bp_known, fp_used = false;

	u->walked.n = 0;
	for (bool activation = at->activation;; activation = false) {
		const struct ct_cfi_rule *r;
		bool fp, fp_ok;
		const struct uw_mod *um;
		uint64_t cfa;

		if (at->stop_sp && sp >= at->stop_sp) {   /* a gap's walk: at the frame met, or past it */
			*kind = sp == at->stop_sp && pc == at->stop_pc ? CT_STACK_END_COMPLETE
								       : CT_STACK_END_ERROR;
			return true;
		}
		r = ct_cfi_rule_at(&p->rules, p->dwfl, activation ? pc : pc - 1);
		fp = no_cfi(r);
		fp_ok = fp && bp_known && bp >= sp && !(bp & 7);
		if (!r || (!r->usable && !fp)) {
			u->st.left_to_libdw[r ? r->none : CT_CFI_NO_MODULE]++;
			return false;
		}
		um = r->module_data;
		walked_add(u, um ? um->file : NULL, pc, um ? pc - um->bias : 0);
		if (u->walked.n >= UNWIND_MAX_FRAMES || r->outermost)
			break;
		if (fp && !fp_ok) {
			*kind = CT_STACK_END_NO_FP;
			return true;
		}
		if (fp) {
			uint64_t caller_bp;

			if (!stack_word(s, bp, &caller_bp) || !stack_word(s, bp + 8, &pc))
				return read_out(p, s, bp, bp + 16, u->walked.n, kind);
			sp = bp + 16;
			bp = caller_bp;
			fp_used = true;
			if (!pc)   /* a zeroed return address: the outermost frame */
				break;
			continue;
		}
		if (r->cfa_reg == CT_REG_RBP && !bp_known) {
			u->st.left_to_libdw[CT_CFI_RBP_SHAPE]++;
			return false;
		}
		cfa = (r->cfa_reg == CT_REG_RSP ? sp : bp) + (int64_t)r->cfa_off;
		if ((r->rbp == CT_CFI_RBP_SAVED && !stack_word(s, cfa + (int64_t)r->rbp_off, &bp)) ||
		    !stack_word(s, cfa + (int64_t)r->ra_off, &pc))
			return read_out(p, s, cfa + (int64_t)(r->rbp == CT_CFI_RBP_SAVED ?
							    r->rbp_off : r->ra_off),
					cfa + (int64_t)r->ra_off + 8, u->walked.n, kind);
		bp_known = r->rbp == CT_CFI_RBP_SAVED || (bp_known && r->rbp == CT_CFI_RBP_SAME);
		sp = cfa + (int64_t)r->rsp_off;
	}
	p->last_read_failed = false;
	*kind = at->stop_sp ? CT_STACK_END_ERROR : end_kind(p, s, 0, false, u->walked.n);
	if (fp_used && *kind == CT_STACK_END_COMPLETE)
		*kind = CT_STACK_END_COMPLETE_FP;
	return true;
}

static bool walk_fast(struct ct_unwinder *u, struct uw_proc *p, const struct ct_stack *s,
		      uint32_t *kind)
{
	struct walk_start at = { .pc = s->regs[CT_REG_RIP], .sp = s->regs[CT_REG_RSP],
				 .bp = s->regs[CT_REG_RBP], .bp_known = true, .activation = true };

	return walk_rules(u, p, s, &at, kind);
}

/* Ends as compared: the kernel's frame-pointer kinds are the capture's
 * (libdw guesses from rbp where no CFI is, and where rbp is no frame
 * pointer its guess reads outside the stack or finds no module). */
static uint32_t end_class(uint32_t kind)
{
	if (kind == CT_STACK_END_COMPLETE_FP)
		return CT_STACK_END_COMPLETE;
	if (kind == CT_STACK_END_NO_FP || kind == CT_STACK_END_BAD_READ)
		return CT_STACK_END_NO_CFI;
	return kind;
}

/* CT_UNWIND_CHECK: whether libdw's walk (in u->fb now) found the frames
 * and the end the fast walk found (pcs[n], kind); says where it did not. */
static void check_fast(struct ct_unwinder *u, const struct ct_stack *s, const uint64_t *pcs,
		       uint32_t n, uint32_t kind, uint32_t libdw_kind)
{
	uint32_t i = 0;

	while (i < n && i < u->fb.nframes && pcs[i] == u->fb.frames[i].pc)
		i++;
	u->st.checked++;
	if (i == n && n == u->fb.nframes && end_class(kind) == end_class(libdw_kind))
		return;
	if (u->st.check_mismatches++ < 5)
		ct_err(CT_UNWIND_CHECK_ENV ": tid %u: fast walk %u frames (end %u), "
			"libdw %u (end %u), first difference at frame %u\n", s->h.tid, n, kind,
			u->fb.nframes, libdw_kind, i);
}

/* The stack's walk: its frames in u->walked (the fast walk's, not named
 * yet; returns false), or named in u->fb (libdw's walk; true). */
static bool walk_stack(struct ct_unwinder *u, struct uw_proc *p, const struct ct_stack *s,
		       struct ct_stack_end *end, uint32_t *status)
{
	uint32_t fast_kind = 0;
	bool fast, no_module = false;

	end->need_bytes = 0;
	if (!p->dwfl) {
		ct_frames_add(&u->fb, u->syms, NULL, s->regs[CT_REG_RIP], 0, true);
		end->kind = CT_STACK_END_NO_MAPS;
		*status = CT_UNWIND_NO_MAPS;
		return true;
	}
	fast = walk_fast(u, p, s, &fast_kind);
	u->st.fast += fast;
	if (fast && !u->check) {
		end->kind = fast_kind;
		if (fast_kind == CT_STACK_END_COPY_SHORT)
			end->need_bytes = p->need > UINT32_MAX ? UINT32_MAX : (uint32_t)p->need;
		*status = frames_status(end->kind, false);
		return false;
	}
	ct_frames_begin(&u->fb);
	end->kind = walk_libdw(u, p, s, end, &no_module);
	if (fast)
		check_fast(u, s, u->walked.pcs, u->walked.n, fast_kind, end->kind);
	*status = frames_status(end->kind, no_module);
	return true;
}

/* The executable mapping that holds pc, or NULL (the maps are by address). */
static const struct ct_codemap *map_at(const struct uw_proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->maps.n;

	while (lo < hi) {   /* the first mapping that ends above pc */
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps.v[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->maps.n && pc >= p->maps.v[lo].start ? &p->maps.v[lo] : NULL;
}

/* Whether pc's table was asked for already in this state of p's mappings
 * (a slot holds the last address asked for that falls in it). */
static bool asked_before(struct ct_unwinder *u, const struct uw_proc *p, uint64_t pc)
{
	struct asked_slot *a = &u->asked[((pc ^ p->pid) * 0x9e3779b97f4a7c15ull) >> (64 - ASKED_BITS)];

	if (a->pc == pc && a->pid == p->pid && a->gen == p->gen)
		return true;
	*a = (struct asked_slot){ .pc = pc, .gen = p->gen, .pid = p->pid };
	return false;
}

/* The kernel copied this stack (no table for one of its files yet): the
 * tables of the files its frames (pcs[n]) pass through are built, for the
 * next, and the one its walk stopped at, which may lie past the copy. */
static void want_tables(struct ct_unwinder *u, const struct uw_proc *p, const uint64_t *pcs,
			uint32_t n, uint64_t want_pc, uint32_t exact)
{
	const struct ct_codemap *m;
	uint64_t look;

	for (uint32_t i = 0; i < n; i++)
		if (!asked_before(u, p, look = i < exact ? pcs[i] : pcs[i] - 1) && (m = map_at(p, look)))
			ct_ktables_want(u->kt, m, look);
	if (want_pc && (m = map_at(p, want_pc)))
		ct_ktables_want(u->kt, m, want_pc);
}

/* CT_UNWIND_CHECK: the capture's walk of the copy (in u->fb) against the
 * kernel's walk of the same call.  The walk is not bounded by the copy's
 * size: where the copy ends short, only the frames it holds are compared,
 * and the walk must have found them all. */
static void check_kernel(struct ct_unwinder *u, const struct ct_stack *s, uint32_t kind)
{
	uint32_t i = 0, n = u->kcheck.n;

	while (i < n && i < u->fb.nframes && u->kcheck.pcs[i] == u->fb.frames[i].pc)
		i++;
	u->st.kchecked++;
	if (i == n && n == u->fb.nframes && end_class(u->kcheck.end) == end_class(kind))
		return;
	if (kind == CT_STACK_END_COPY_SHORT && i == u->fb.nframes) {
		u->st.kcheck_past_copy++;
		return;
	}
	if (u->st.kcheck_mismatches++ < 5)
		ct_err(CT_UNWIND_CHECK_ENV ": tid %u: kernel walk %u frames "
			"(end %u), the copy's unwinding %u (end %u), first difference at frame %u\n",
			s->h.tid, n, u->kcheck.end, u->fb.nframes, kind, i);
}

/* Work done since t0 (monotonic) and c0 (the thread's CPU clock). */
static void count_busy(struct ct_unwinder *u, uint64_t t0, uint64_t c0)
{
	u->st.busy_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
	u->st.cpu_ns += ct_now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* A FRAMES record from the cache, with the header of the call it is for. */
static const struct ct_frames *from_cache(struct ct_unwinder *u, const struct ct_frames *named,
					  const struct ct_rec *h)
{
	struct ct_frames *f = (struct ct_frames *)u->recbuf;

	memcpy(f, named, named->h.size);
	f->h = *h;
	f->h.type = CT_REC_FRAMES;
	f->h.size = named->h.size;
	return f;
}

/* u->walked's frames named into the FRAMES record of the call h (in u->fb),
 * and kept under key. */
static const struct ct_frames *name_frames(struct ct_unwinder *u, const struct ct_frames_key *key,
					   const struct ct_rec *h, uint32_t status)
{
	const struct ct_frames *f;

	ct_frames_begin(&u->fb);
	for (uint32_t i = 0; i < u->walked.n; i++)
		ct_frames_add(&u->fb, u->syms, u->walked.file[i], u->walked.pcs[i],
			      u->walked.elf[i], i == 0);
	f = ct_frames_end(&u->fb, h, status, key->span);
	ct_frames_cache_put(u->named, key, f);
	return f;
}

/* The fast walk's frames (u->walked) named, from the cache where the same
 * walk was named before in this state of the process's mappings. */
static const struct ct_frames *name_walked(struct ct_unwinder *u, const struct uw_proc *p,
					   const struct ct_stack *s, uint32_t status, uint32_t kind)
{
	struct ct_frames_key key = { .pid = s->h.pid, .gen = p->gen, .pcs = u->walked.pcs,
				     .n = u->walked.n, .end = kind, .span = s->size };
	const struct ct_frames *named = ct_frames_cache_get(u->named, &key);

	u->st.fast_named += named != NULL;
	return named ? from_cache(u, named, &s->h) : name_frames(u, &key, &s->h, status);
}

/* The frames libdw's walk named (u->fb): their addresses, as a fast walk's. */
static void walked_from_fb(struct ct_unwinder *u)
{
	u->walked.n = 0;
	for (uint32_t i = 0; i < u->fb.nframes && i < UNWIND_MAX_FRAMES; i++)
		u->walked.pcs[u->walked.n++] = u->fb.frames[i].pc;
}

void ct_unwinder_stack(struct ct_unwinder *u, const struct ct_stack *s)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC), c0 = ct_now_ns(CLOCK_THREAD_CPUTIME_ID);
	struct uw_proc *p = get_proc(u, s->h.pid);
	struct ct_stack_end end = { .h = s->h };
	bool pair = u->kcheck.have && u->kcheck.tid == s->h.tid && u->kcheck.ts == s->h.ts_ns;
	const struct ct_frames *f;
	uint32_t status;
	bool in_fb;

	u->kcheck.have = false;
	if (!pair) {   /* a check's copy is not what -k sends */
		u->st.ring_records++;
		u->st.ring_bytes += s->h.size + CT_RINGBUF_HDR;
	}
	if (!p)
		return;
	if (!p->maps.n && !p->maps_failed)
		read_maps(u, p, s->h.ts_ns);
	ct_frames_begin(&u->fb);
	in_fb = walk_stack(u, p, s, &end, &status);
	if (pair) {   /* the kernel's walk of this call went to the sink already */
		check_kernel(u, s, end.kind);   /* CT_UNWIND_CHECK: libdw's walk, in u->fb */
		count_busy(u, t0, c0);
		return;
	}
	if (in_fb)
		walked_from_fb(u);
	if (u->kt)
		want_tables(u, p, u->walked.pcs, u->walked.n, s->want_pc, 1);
	f = in_fb ? ct_frames_end(&u->fb, &s->h, status, s->size) :
		    name_walked(u, p, s, status, end.kind);
	u->sink(u->ctx, &f->h);
	end.h.type = CT_REC_STACK_END;
	end.h.size = sizeof(end);
	u->sink(u->ctx, &end.h);
	u->st.stacks++;
	u->st.holes += !!(s->flags & CT_STACK_HOLES);
	u->st.frames += f->nframes;
	count_busy(u, t0, c0);
}

/* The kernel's frame addresses named as the copy's frames would be, and
 * kept (a record holds at most CT_KSTACK_FRAMES: format/record.c). */
_Static_assert(CT_KSTACK_FRAMES <= UNWIND_MAX_FRAMES, "a kernel walk's frames fit u->walked");
static const struct ct_frames *name_kernel_stack(struct ct_unwinder *u, const struct uw_proc *p,
						 const struct ct_kstack *k, const uint64_t *pcs,
						 uint32_t n, const struct ct_frames_key *key)
{
	u->walked.n = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ct_codemap *m = map_at(p, i ? pcs[i] - 1 : pcs[i]);
		struct ct_symfile *sf = m && m->is_elf ? ct_symbolizer_file(u->syms, m) : NULL;

		walked_add(u, sf, pcs[i], sf ? pcs[i] - m->bias : 0);
	}
	return name_frames(u, key, &k->h, frames_status(key->end, false));
}

/* The kernel's gap for the walk that follows, kept as a copy from the
 * frame it could not step (its checks: format/record.c). */
static void gap_taken(struct ct_unwinder *u, const struct ct_kstack_gap *g)
{
	struct ct_stack *s = u->gap.s;
	uint32_t n = (uint32_t)(g->end_sp - g->sp);

	u->st.ring_bytes += g->h.size + CT_RINGBUF_HDR;
	u->gap.have = true;
	u->gap.g = *g;
	memset(s, 0, sizeof(*s));
	s->h = g->h;
	s->regs[CT_REG_RIP] = g->pc;
	s->regs[CT_REG_RSP] = g->sp;
	s->regs[CT_REG_RBP] = g->bp;
	s->size = n;
	memcpy(s + 1, g + 1, n);
}

/*
 * A kernel walk with a gap (k->gap_at): the frames between the one it
 * could not step and the last walk's it met above, walked here from the
 * gap's bytes and put in (u->gap.pcs), their tables asked for.  Where the
 * walk here does not come to the frame the kernel met (its gap lost, or
 * walked otherwise), the stack ends after what it found: counted.  The
 * frames; *n and *kind their count and end.
 */
static const uint64_t *bridged(struct ct_unwinder *u, struct uw_proc *p, const struct ct_kstack *k,
			       const uint64_t *pcs, uint32_t *n, uint32_t *kind)
{
	const struct ct_kstack_gap *g = &u->gap.g;
	struct walk_start at = { .pc = g->pc, .sp = g->sp, .bp = g->bp, .bp_known = g->bp_known,
				 .activation = k->gap_at == 1, .stop_sp = g->end_sp,
				 .stop_pc = g->end_pc };
	uint32_t got = 0, walked_kind = CT_STACK_END_ERROR, out = k->gap_at;
	bool ok = u->gap.have && k->gap_at < k->nframes && g->h.tid == k->h.tid &&
		  g->h.ts_ns == k->h.ts_ns &&
		  g->at == k->gap_at && pcs[k->gap_at - 1] == g->pc && pcs[k->gap_at] == g->end_pc;

	u->gap.have = false;
	if (ok && !p->maps.n && !p->maps_failed)   /* the walk needs the code maps */
		read_maps(u, p, k->h.ts_ns);
	if (ok && p->dwfl && walk_rules(u, p, u->gap.s, &at, &walked_kind))
		got = u->walked.n;
	if (got)   /* the frame it could not step is the walk's first */
		want_tables(u, p, u->walked.pcs, got, 0, at.activation);
	memcpy(u->gap.pcs, pcs, k->gap_at * sizeof(*pcs));
	for (uint32_t i = 1; i < got && out < CT_KSTACK_FRAMES; i++)
		u->gap.pcs[out++] = u->walked.pcs[i];
	if (walked_kind != CT_STACK_END_COMPLETE) {
		u->st.gaps_lost++;
		*kind = CT_STACK_END_ERROR;
	} else {
		u->st.gaps++;
		for (uint32_t i = k->gap_at; i < k->nframes && out < CT_KSTACK_FRAMES; i++)
			u->gap.pcs[out++] = pcs[i];
		*kind = (uint64_t)k->nframes + got - 1 > CT_KSTACK_FRAMES ? CT_STACK_END_MAX_FRAMES
									  : k->end;
	}
	*n = out;
	return u->gap.pcs;
}

/* A stack the kernel walked: its frames named as the copy's would be. */
static void kernel_stack(struct ct_unwinder *u, const struct ct_kstack *k)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	const uint64_t *pcs = (const uint64_t *)(k + 1);
	struct uw_proc *p = get_proc(u, k->h.pid);
	uint32_t n = k->nframes, kind = k->end;
	struct ct_stack_end end = { .h = k->h, .need_bytes = k->need_bytes };
	struct ct_frames_key key;
	const struct ct_frames *named;

	if (!p)
		return;
	if (k->gap_at)
		pcs = bridged(u, p, k, pcs, &n, &kind);
	end.kind = kind;
	key = (struct ct_frames_key){ .pid = k->h.pid, .pcs = pcs, .n = n, .end = kind,
				      .span = k->span_bytes, .gen = p->gen };
	named = ct_frames_cache_get(u->named, &key);
	if (!named) {   /* may read the files' pages: the CPU clock says what was work */
		uint64_t m0 = ct_now_ns(CLOCK_MONOTONIC), c0 = ct_now_ns(CLOCK_THREAD_CPUTIME_ID);

		named = name_kernel_stack(u, p, k, pcs, n, &key);
		count_busy(u, m0, c0);
		t0 += ct_now_ns(CLOCK_MONOTONIC) - m0;   /* counted */
	} else {
		named = from_cache(u, named, &k->h);
	}
	u->sink(u->ctx, &named->h);
	end.h.type = CT_REC_STACK_END;
	end.h.size = sizeof(end);
	u->sink(u->ctx, &end.h);
	if (u->check) {
		u->kcheck.have = true;
		u->kcheck.tid = k->h.tid;
		u->kcheck.ts = k->h.ts_ns;
		u->kcheck.n = n;
		u->kcheck.end = kind;
		memcpy(u->kcheck.pcs, pcs, n * sizeof(*pcs));
	}
	u->st.stacks++;
	u->st.kstacks++;
	u->st.kstack_fp += k->fp_frames > 0;
	u->st.frames += n;
	t0 = ct_now_ns(CLOCK_MONOTONIC) - t0;
	u->st.busy_ns += t0;
	u->st.cpu_ns += t0;
}

int ct_unwinder_walk_in_kernel(struct ct_unwinder *u, const struct ct_uw_fds *fds)
{
	if (fds->procs < 0)
		return 0;
	u->kt = ct_ktables_new(*fds, CT_UW_ROWS_MAX);
	if (!u->kt) {
		ct_err("-k: cannot set up the kernel's unwind tables (%m); "
			"set " CT_STACK_COPY_ENV "=1 to copy the stacks instead\n");
		return -1;
	}
	return 0;
}

bool ct_unwinder_ktables_stats(const struct ct_unwinder *u, struct ct_ktables_stats *st)
{
	if (!u->kt)
		return false;
	*st = ct_ktables_stats(u->kt);
	return true;
}

struct ct_unwinder *ct_unwinder_new(const char *proc_root, ct_unwind_sink sink, void *ctx)
{
	struct ct_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	elf_version(EV_CURRENT);
	u->proc_root = proc_root;
	u->sink = sink;
	u->ctx = ctx;
	u->fb.buf = malloc(CT_FRAMES_BUF);
	u->recbuf = malloc(CT_FRAMES_BUF);
	u->named = ct_frames_cache_new();
	u->asked = calloc(ASKED_SLOTS, sizeof(*u->asked));
	u->mapbuf = malloc(sizeof(struct ct_mapping) + 4096);
	u->gap.s = malloc(sizeof(struct ct_stack) + CT_KSTACK_GAP_MAX);
	u->check = ct_unwind_check_on();
	u->syms = ct_symbolizer_new(u->check);
	if (!u->fb.buf || !u->recbuf || !u->named || !u->asked || !u->mapbuf || !u->gap.s ||
	    !u->syms) {
		ct_unwinder_free(u);
		return NULL;
	}
	return u;
}

void ct_unwinder_free(struct ct_unwinder *u)
{
	if (!u)
		return;
	ct_ktables_free(u->kt);
	idmap_drain(&u->procs, free_proc, NULL);
	idmap_free(&u->procs);
	ct_symbolizer_free(u->syms);
	free(u->fb.buf);
	free(u->recbuf);
	free(u->asked);
	ct_frames_cache_free(u->named);
	free(u->mapbuf);
	free(u->gap.s);
	free(u);
}

const struct ct_unwind_stats *ct_unwinder_stats(const struct ct_unwinder *u)
{
	return &u->st;
}

const struct ct_naming_stats *ct_unwinder_naming(const struct ct_unwinder *u)
{
	return ct_symbolizer_stats(u->syms);
}

void ct_unwinder_keep_cache(struct ct_unwinder *u)
{
	ct_symbolizer_keep_cache(u->syms);
}

bool ct_unwinder_take(struct ct_unwinder *u, const struct ct_rec *r)
{
	switch (r->type) {
	case CT_REC_STACK:
		ct_unwinder_stack(u, (const struct ct_stack *)r);
		return true;
	case CT_REC_KSTACK_GAP:
		gap_taken(u, (const struct ct_kstack_gap *)r);
		return true;
	case CT_REC_KSTACK:
		u->st.ring_records++;
		u->st.ring_bytes += r->size + CT_RINGBUF_HDR;
		kernel_stack(u, (const struct ct_kstack *)r);
		return true;
	case CT_REC_CODE_MAP:
		code_mapped(u, (const struct ct_code_map *)r);
		return true;
	case CT_REC_PROC:
		/* A new program: none of the old mappings stay. */
		if (((const struct ct_proc *)r)->source == CT_PROC_EXEC) {
			ct_unwinder_forget(u, r->pid);
			ct_unwinder_refresh(u, r->pid, r->ts_ns);
		}
		return false;
	case CT_REC_PROC_EXIT:
		ct_unwinder_forget(u, r->pid);
		return false;
	}
	return false;
}
