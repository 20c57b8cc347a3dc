/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * -k walked in the kernel: the user stack unwound here, from the tables
 * the capture compiled from each file's CFI and loaded into maps
 * (unwind_tables.h), and only the frame addresses sent (CT_REC_KSTACK,
 * 8 bytes a frame) instead of the stack's bytes (CT_REC_STACK, KiBs).
 * Each frame reads two words at most (its return address and saved rbp)
 * with bpf_probe_read_user.  Code no table covers (JIT code, gaps between
 * FDEs) is walked by frame pointer where rbp is one.  A frame the tables
 * cannot walk (a file whose table is not loaded yet, a rule of another
 * shape) makes the caller copy the stack as before, for the capture to
 * unwind: counted by why (CT_CNT_KWALK_COPY_*).  A frame that is one of
 * the thread's last walk's is not stepped: the words that walk read from
 * there out are read again, in one read, and compared (kwalk_memo.bpf.h).
 * Included by stacks.bpf.h.
 */
#ifndef CT_KWALK_BPF_H
#define CT_KWALK_BPF_H

#include "emit.bpf.h"
#include "unwind_tables.h"

const volatile __u32 stack_walk = 0;    /* 1: walk here; 0: copy every stack */
const volatile __u32 stack_check = 0;   /* CT_UNWIND_CHECK: a walked stack is copied too */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);   /* CT_UW_PROCS_MAX with -k */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ct_uw_proc);
} uw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);   /* CT_UW_FILES_MAX with -k */
	__uint(map_flags, BPF_F_MMAPABLE);   /* an entry is one word, stored at once */
	__type(key, __u32);
	__type(value, struct ct_uw_file);
} uw_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);   /* CT_UW_ROWS_MAX with -k */
	__uint(map_flags, BPF_F_MMAPABLE);   /* the capture writes rows in place */
	__type(key, __u32);
	__type(value, struct ct_uw_row);
} uw_rows SEC(".maps");

/*
 * The walk's state lives in the per-CPU map value, not on the BPF stack:
 * the verifier checks bpf_loop's callback again for each iteration until
 * its states repeat, and values it knows exactly (a frame count on the
 * stack) never repeat; a map value's fields it does not know.
 */
struct kwalk {
	__u64 pc, sp, bp, sp0;
	__u32 n, end, need, fp, copy, bp_known;
	__u64 win_lo;      /* the stack bytes in win: [win_lo, win_lo + win_n) */
	__u32 win_n, tgid, reads, pad0;   /* reads: of the stack, this walk */
	__u64 who;         /* kw_who(tgid, gen): what a cached rule must match */
	__u32 misses, pad; /* rules not in the cache, this walk */
	__u64 want;        /* KW_PENDING, KW_LAZY: the pc whose table is missing */
	/* kwalk_memo.bpf.h: the thread's last walk, by depth from its end */
	__s32 cursor;      /* the last walk's frame this one may meet next; -1: none */
	__s32 vd;          /* the last walk's frame being checked; -1: walking */
	__u32 vk, vstart;  /* where the check began: this walk's frame, the last walk's */
	__u32 reused, tries; /* frames taken from the last walk, checked; checks begun */
	/* kw_gap: past a frame without a table, through the last walk's */
	__u64 gap_sp, gap_bp, gap_end;   /* gap_end: 0, none; its frame is pcs[gap_at - 1] */
	__u32 gap_at, gap_bp_known, gap_why, pad1;   /* gap_why: the copy it spared */
};

/*
 * A frame as its step found it, for the next walk of the thread to check
 * its words rather than search its rule (kwalk_memo.bpf.h): where the
 * step read the stack is the caller's sp - 8 (its return address) and,
 * with KWM_SLOT, the caller's sp + slot words (its rbp).
 */
struct kw_mframe {
	__u64 pc, sp, bp;
	__u8 flags;        /* KWM_* */
	__s8 slot;         /* KWM_SLOT: the caller's rbp at its sp + slot * 8 */
	__u16 fps;         /* steps by frame pointer from here out, this one's included */
	__u32 _pad;
};

#define KWM_BP_KNOWN 0x01  /* rbp was known at this frame */
#define KWM_USES_BP  0x02  /* its step used rbp (CFA = rbp + N, a frame-pointer step) */
#define KWM_SAME_BP  0x04  /* its step left rbp to the caller as it was */
#define KWM_SLOT     0x08  /* its step read the caller's rbp from the stack */
#define KWM_FP       0x10  /* a step by frame pointer */
#define KWM_ZERO_RA  0x20  /* the last frame: its frame-pointer step read a zero return address */
#define KWM_NEEDS_BP 0x40  /* the steps from here out depend on rbp here */

/*
 * A frame's words are read through a window of the stack: one read of up
 * to 2 KiB serves the frames above it while they are small.  A read's
 * fixed part (the user access and its checks) is most of its cost: on an
 * H200 host 58 ns for 16 bytes, 60 for 512, 73 for 2 KiB, 117 for 4 KiB
 * (bench/costs win_*); PyTorch's 25 native frames take 4 reads of 2 KiB
 * against 7 of 512, stackprog's 104 small frames 16 against 35.
 */
#ifndef CT_KWALK_WINDOW   /* a power of two; other sizes only to measure them */
#define CT_KWALK_WINDOW 2048
#endif
#define KW_WIN CT_KWALK_WINDOW

/* The check against the thread's last walk (kwalk_memo.bpf.h) knows the
 * span of the words it reads: one read of it up to this, for all. */
#ifndef CT_KWALK_CHECK_WINDOW   /* a power of two, at least KW_WIN */
#define CT_KWALK_CHECK_WINDOW 16384
#endif
#define KW_BUF CT_KWALK_CHECK_WINDOW

struct kwalk_rec {
	struct ct_kstack rec;
	__u64 pcs[CT_KSTACK_FRAMES];
	struct kwalk w;
	__u64 win[KW_BUF / 8];
	struct kw_mframe log[CT_KSTACK_FRAMES];   /* this walk's frames, for the next */
};

/*
 * Each CPU keeps the last rules it found, by pc and process: a loop's
 * calls walk the same frames again, and a hit skips both searches.  An
 * entry holds while the tables' generation (uw_gen, which the capture
 * moves on whenever a process's mappings change) is the one it was
 * found in.  Four ways a set: a miss costs two binary searches through
 * tables of MiBs, and in a direct-mapped cache two of a loop's pcs that
 * share a slot (for 25 pcs in 512 slots, about one run in two by the
 * birthday bound, by where ASLR puts the libraries) would miss on both
 * at every call.  (Measured on an H200, PyTorch's loop: 0.00 to 0.02
 * rules searched a stack either way in four runs; the ways cost nothing
 * measurable.)
 */
#ifndef KW_CACHE_WAYS   /* other shapes only to measure them */
#define KW_CACHE_SETS_LOG2 8
#define KW_CACHE_WAYS 4
#endif
#define KW_CACHE_SETS (1u << KW_CACHE_SETS_LOG2)
struct kw_cached {
	__u64 pc;
	__u64 who;   /* kw_who: the process and the tables' generation */
	struct ct_uw_row row;
};

struct kw_set {
	struct kw_cached way[KW_CACHE_WAYS];
	__u32 next, _pad;   /* the way the next miss replaces, in turn */
};

struct kw_cache {
	struct kw_set set[KW_CACHE_SETS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kw_cache);
} kwalk_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} uw_gen SEC(".maps");

static __always_inline __u64 kw_who(__u32 tgid, __u32 gen)
{
	return (__u64)tgid << 32 | gen;
}

/* bpf_loop's context, on the stack: pointers only. */
struct kwalk_ctx {
	struct kwalk_rec *out;
	struct ct_uw_proc *proc;
	struct kw_cache *cache;
	struct kw_memo *memo;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kwalk_rec);
} kwalk_scratch SEC(".maps");

/* Why a walk gave up for the copy (0: it did not). */
enum kwalk_copy {
	KW_WALKED,
	KW_NO_PROC = CT_CNT_KWALK_COPY_NO_PROC,
	KW_PENDING = CT_CNT_KWALK_COPY_PENDING,
	KW_NO_TABLE = CT_CNT_KWALK_COPY_NO_TABLE,
	KW_NEW_MAP = CT_CNT_KWALK_COPY_NEW_MAP,
	KW_OTHER = CT_CNT_KWALK_COPY_OTHER,
	KW_LAZY = CT_CNT_KWALK_COPY_LAZY,
};

#define KW_PAGE 4096   /* the smallest page: a window clipped to one is readable where its word is */

/* The window read from addr, n bytes (8 to KW_BUF, by 8), and its first
 * word; false where a page of it cannot be read. */
static __always_inline bool kw_read_window(struct kwalk_rec *o, __u64 addr, __u64 n, __u64 *out)
{
	struct kwalk *w = &o->w;

	keep_in_register(n);   /* the bound is checked on the register the read gets */
	w->reads++;
	if (n < 8 || n > KW_BUF || bpf_probe_read_user(o->win, n, (void *)addr))
		return false;
	w->win_lo = addr;
	w->win_n = n;
	*out = o->win[0];
	return true;
}

/*
 * A new window of the stack from addr, within CT_KSTACK_BYTES of sp (a
 * walk costs by the frame, not by the byte: -k's size bounds only a
 * copy): 0, or the walk's end where it cannot be had (w->end set).
 * Global, so the verifier checks the reads once, not in each of the
 * walk's unrolled steps for each state it came with; a walk comes here
 * a few times (its reads of the stack), not once a word.
 */
__noinline long kw_window_at(struct kwalk_rec *o, __u64 addr)
{
	struct kwalk *w;
	__u64 n, bound, page, word;

	if (!o)
		return CT_STACK_END_BAD_READ;
	w = &o->w;
	if (addr < w->sp0) {
		w->end = CT_STACK_END_BAD_READ;
		return w->end;
	}
	if (addr - w->sp0 + 8 > CT_KSTACK_BYTES) {
		w->end = CT_STACK_END_MAX_BYTES;
		w->need = addr - w->sp0 + 8 > 0xffffffffull ? 0xffffffffu : addr - w->sp0 + 8;
		return w->end;
	}
	/* From addr, within the bound; where that crosses into a page that
	 * cannot be read (the stack's end), to the end of addr's page, still
	 * within the bound (the frames at a stack's top were read a word at
	 * a time before); else the word alone. */
	bound = w->sp0 + CT_KSTACK_BYTES - addr;
	n = bound < KW_WIN ? bound & ~7ull : KW_WIN;
	if (n >= 8 && n <= KW_WIN && kw_read_window(o, addr, n, &word))
		return 0;
	page = KW_PAGE - (addr & (KW_PAGE - 1));
	if (!(addr & 7) && page < n && kw_read_window(o, addr, page, &word))
		return 0;
	if (kw_read_window(o, addr, 8, &word))
		return 0;
	w->win_n = 0;
	w->end = CT_STACK_END_BAD_READ;
	return w->end;
}

/* The word at addr of the stack: from the window, else a new one
 * (kw_window_at); false (the walk's end set) where it cannot be had. */
static __always_inline bool stack_word_at(struct kwalk_rec *o, __u64 addr, __u64 *out)
{
	struct kwalk *w = &o->w;
	__u64 off = addr - w->win_lo;

	/* The window lies within the bounds above (it is read only there),
	 * and its bytes count by 8: one test for the frames it serves. */
	if (off < w->win_n && !(off & 7)) {
		*out = o->win[(off / 8) & (KW_BUF / 8 - 1)];
		return true;
	}
	if (kw_window_at(o, addr))
		return false;
	*out = o->win[0];
	return true;
}

#include "kwalk_memo.bpf.h"

/*
 * Binary searches of a fixed number of steps, each halving the range
 * [base, base + n) without leaving the loop early: both ways of a step
 * leave base and n unknown to the verifier alike, so it checks the loop
 * step by step, not path by path.
 */
static __always_inline struct ct_uw_map *find_map(struct ct_uw_proc *p, __u64 addr)
{
	__u32 base = 0, n = p->n, half, at;

	if (n > CT_UW_MAPS_MAX || !n)
		return NULL;
	for (int i = 0; i < CT_UW_MAPS_SEARCH && n > 1; i++) {
		half = n / 2;
		at = (base + half) & (CT_UW_MAPS_MAX - 1);
		if (p->maps[at].start <= addr)
			base = at;
		n -= half;
	}
	at = base & (CT_UW_MAPS_MAX - 1);
	if (addr < p->maps[at].start || addr >= p->maps[at].end)
		return NULL;
	return &p->maps[at];
}

/* The index in uw_rows of the row whose rule holds at addr (an ELF
 * address): the last of the file's rows that starts at or before it;
 * NO_ROW before the first. */
#define NO_ROW 0xffffffffu

static __always_inline __u32 find_row(const struct ct_uw_file *f, __u64 addr)
{
	__u32 base = f->first, n = f->n, half, key;
	struct ct_uw_row *r;

	for (int i = 0; i < CT_UW_SEARCH && n > 1; i++) {
		half = n / 2;
		key = base + half;
		r = bpf_map_lookup_elem(&uw_rows, &key);
		if (!r)
			return NO_ROW;
		if (r->addr <= addr)
			base = key;
		n -= half;
	}
	r = bpf_map_lookup_elem(&uw_rows, &base);
	return r && r->addr <= addr ? base : NO_ROW;
}

static long vma_has_file(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(bool *)ctx = vma->vm_file != NULL;
	return 0;
}

/* A frame of code no table covers: its caller through rbp, where rbp
 * points into the stack above sp (the frame pointer's chain). */
static __always_inline long fp_step(struct kwalk_rec *o)
{
	struct kwalk *w = &o->w;
	__u64 bp, ra;

	if (!w->bp_known || w->bp < w->sp || (w->bp & 7)) {
		w->end = CT_STACK_END_NO_FP;
		return 1;
	}
	if (!stack_word_at(o, w->bp, &bp) || !stack_word_at(o, w->bp + 8, &ra))
		return 1;
	w->fp++;
	w->sp = w->bp + 16;
	w->bp = bp;
	w->pc = ra;
	if (!ra) {   /* a zeroed return address: the outermost frame */
		w->end = CT_STACK_END_COMPLETE_FP;
		return 1;
	}
	return 0;
}

/* A frame by its row's rule: CFA, return address, caller's rbp. */
static __always_inline long cfa_step(struct kwalk_rec *o, const struct ct_uw_row *r)
{
	struct kwalk *w = &o->w;
	__u32 rbp = CT_UW_RBP_KIND(r->rbp);
	__u64 cfa, ra, bp = w->bp;

	if (r->kind == CT_UW_CFA_RBP && !w->bp_known) {
		w->copy = KW_OTHER;
		return 1;
	}
	cfa = (r->kind == CT_UW_CFA_RSP ? w->sp : w->bp) + r->cfa_off;
	if (rbp == CT_UW_RBP_SAVED && !stack_word_at(o, cfa + CT_UW_RBP_OFF(r->rbp), &bp))
		return 1;
	if (!stack_word_at(o, cfa - 8, &ra))
		return 1;
	w->bp_known = rbp == CT_UW_RBP_SAVED || (w->bp_known && rbp == CT_UW_RBP_SAME);
	w->bp = bp;
	w->sp = cfa;
	w->pc = ra;
	return 0;
}

/* What a frame's pc asks of the step. */
enum kw_rule { KW_RULE, KW_FP, KW_STOP };

/* table_row's answer in one scalar (a global function returns no pointer,
 * and a pointer it loads from its arguments' memory is not one to the
 * verifier, so it is given the tables, not the walk): what the step does,
 * the row's index (KW_RULE) or why the walk stops (KW_STOP: enum
 * kwalk_copy), and whether look lies in a file the capture has mapped
 * (KW_WANT: then the capture builds what it needs, if the walk stops
 * here). */
#define KW_WANT (1ull << 34)
#define KW_ANSWER(rule, v) ((__u64)(rule) << 32 | (__u32)(v))

/*
 * The row holding look's rule (an exact pc, or a return address - 1) in
 * process p's tables, as KW_ANSWER: KW_RULE, KW_FP (no table covers it) or
 * KW_STOP.  Global, so the verifier checks it once: inlined, its two
 * binary searches were checked again in each of the walk's unrolled steps,
 * for each state they came with.  Called only where this CPU's cache of
 * rules misses: most walks call it not at all.
 */
__noinline __u64 table_row(struct ct_uw_proc *p, __u64 look)
{
	struct ct_uw_file *f, fv;
	struct ct_uw_map *m;
	struct ct_uw_row *r;
	bool has_file = true;
	__u32 at;

	if (!p)
		return KW_ANSWER(KW_STOP, KW_NO_PROC);
	m = find_map(p, look);
	if (!m) {
		/* Anonymous code (a JIT's) is walked by frame pointer; a file
		 * the table does not have yet is the capture's. */
		bpf_find_vma(bpf_get_current_task_btf(), look, vma_has_file, &has_file, 0);
		return has_file ? KW_ANSWER(KW_STOP, KW_NEW_MAP) : KW_ANSWER(KW_FP, 0);
	}
	if (m->file == CT_UW_FILE_PENDING || m->file == CT_UW_FILE_NONE)
		return KW_WANT | KW_ANSWER(KW_STOP, m->file == CT_UW_FILE_NONE ? KW_NO_TABLE
										: KW_PENDING);
	f = bpf_map_lookup_elem(&uw_files, &m->file);
	if (!f)
		return KW_WANT | KW_ANSWER(KW_STOP, KW_PENDING);
	/* One load: a lazy file's entry moves to a new run while we read. */
	*(__u64 *)&fv = *(volatile __u64 *)f;
	if (!fv.n)   /* not built yet, or none can be */
		return KW_WANT | KW_ANSWER(KW_STOP, fv.first == CT_UW_FILE_NONE ? KW_NO_TABLE
										 : KW_PENDING);
	at = find_row(&fv, look - m->bias);
	r = bpf_map_lookup_elem(&uw_rows, &at);
	if (!r || r->kind == CT_UW_NO_FDE)
		return KW_WANT | KW_ANSWER(KW_FP, 0);
	if (r->kind == CT_UW_OTHER || r->kind == CT_UW_NOT_BUILT)
		return KW_WANT | KW_ANSWER(KW_STOP, r->kind == CT_UW_OTHER ? KW_OTHER : KW_LAZY);
	return KW_WANT | KW_ANSWER(KW_RULE, at);
}

/* The rule at look from the tables (table_row), *rule set where it is
 * KW_RULE; w->copy set where it is KW_STOP. */
static __always_inline enum kw_rule table_rule(struct kwalk_ctx *c, __u64 look,
					       struct ct_uw_row *rule)
{
	struct kwalk *w = &c->out->w;
	struct ct_uw_row *r;
	__u64 answer;
	__u32 v;

	/* Looked up at the first rule not in the cache: most walks need none. */
	if (!c->proc && !(c->proc = bpf_map_lookup_elem(&uw_procs, &w->tgid))) {
		w->copy = KW_NO_PROC;
		return KW_STOP;
	}
	answer = table_row(c->proc, look);
	v = (__u32)answer;
	if (answer & KW_WANT)
		w->want = look;
	switch ((answer >> 32) & 3) {
	case KW_RULE:
		r = bpf_map_lookup_elem(&uw_rows, &v);
		if (!r)
			return KW_FP;
		*rule = *r;
		return KW_RULE;
	case KW_FP:
		return KW_FP;
	default:
		w->copy = v;
		return KW_STOP;
	}
}

/* The rule at look: from this CPU's cache of the last rules found, else
 * from the tables (and kept). */
static __always_inline enum kw_rule rule_at(struct kwalk_ctx *c, __u64 look,
					    struct ct_uw_row *rule)
{
	/* Fibonacci hashing: a library's pcs, close together, spread. */
	struct kw_set *set = &c->cache->set[(look * 0x9e3779b97f4a7c15ULL) >>
					    (64 - KW_CACHE_SETS_LOG2)];
	struct kwalk *w = &c->out->w;
	struct kw_cached *e;
	enum kw_rule k;

	for (int i = 0; i < KW_CACHE_WAYS; i++) {
		e = &set->way[i];
		if (e->pc == look && e->who == w->who) {
			*rule = e->row;
			return KW_RULE;
		}
	}
	w->misses++;
	k = table_rule(c, look, rule);
	if (k == KW_RULE) {
		e = &set->way[set->next & (KW_CACHE_WAYS - 1)];
		set->next++;
		e->pc = look;
		e->who = w->who;
		e->row = *rule;
	}
	return k;
}

/*
 * The walk stopped at a frame whose table the capture has not built yet
 * (w->copy KW_PENDING or KW_LAZY): where the thread's last walk has a
 * frame above it whose return address is still where it was, the walk
 * goes on from there as from any frame of the last walk it meets (its
 * words checked, kwalk_memo.bpf.h), and only the stack between the two is
 * sent (CT_REC_KSTACK_GAP), for the capture to walk with the file's CFI
 * and join them: a few KiB, where the copy is the whole stack (JAX's main
 * thread: 66 KiB on average in a first capture).
 * - The outermost such frame within CT_KSTACK_GAP_MAX: the last walk's
 *   frames that returned since may lie in the gap still, in locals not
 *   written since, where they were; its frames above where the two stacks
 *   part are the thread's now.  The capture joins the two only where its
 *   walk of the gap comes to that very frame (else: cut short, counted).
 * - Frames whose steps out need rbp there are passed over: rbp is not
 *   known past the gap.
 * - A word that differs from the last walk's past the gap: the copy.
 * True: the walk goes on, checking.
 */
#define KW_GAP_TRIES 32

/* The last walk's frame the gap ends at (kw_gap): its depth, or -1.
 * Global, so the verifier checks its loop once. */
__noinline __s32 kw_gap_find(struct kwalk_rec *o, const struct kw_memo *m)
{
	const struct kw_mframe *f;
	struct kwalk *w;
	__s32 d, at = -1;
	__u64 ra;

	if (!o || !m)
		return -1;
	w = &o->w;
	d = w->cursor;
	for (int i = 0; i < KW_GAP_TRIES && d >= 0; i++, d--) {
		f = &m->f[d & KWM_MASK];
		if (f->sp <= w->sp || (f->sp & 7) || f->flags & KWM_NEEDS_BP)
			continue;
		if (f->sp - w->sp > CT_KSTACK_GAP_MAX || w->n + d + 1 >= CT_KSTACK_FRAMES)
			break;
		if (!stack_word_at(o, f->sp - 8, &ra))
			break;
		if (ra == f->pc)
			at = d;
	}
	return at;
}

static __always_inline bool kw_gap(struct kwalk_rec *o, const struct kw_memo *m)
{
	struct kwalk *w = &o->w;
	const struct kw_mframe *f;
	__s32 d;

	if (w->gap_end || (w->copy != KW_PENDING && w->copy != KW_LAZY) || (w->sp & 7))
		return false;
	if (w->cursor < 0) {   /* this CPU keeps another thread's walk, or none */
		count(CT_CNT_KWALK_GAP_NO_MEMO);
		return false;
	}
	d = kw_gap_find(o, m);
	if (d < 0) {
		count(CT_CNT_KWALK_GAP_NOT_MET);
		return false;
	}
	f = &m->f[d & KWM_MASK];
	w->gap_why = w->copy;
	w->gap_sp = w->sp;
	w->gap_bp = w->bp;
	w->gap_bp_known = w->bp_known;
	w->gap_end = f->sp;
	w->gap_at = w->n;
	w->pc = f->pc;
	w->sp = f->sp;
	w->bp_known = 0;
	w->cursor = d;
	w->end = CT_STACK_END_ERROR;
	if (!memo_meets(w, m)) {   /* cannot be: its own bounds, checked above */
		w->gap_end = 0;
		return false;
	}
	w->copy = KW_WALKED;
	memo_window(o, m);
	return true;
}

static __always_inline long kwalk_step(void *ctx)
{
	struct kwalk_ctx *c = ctx;
	struct kwalk_rec *out = c->out;
	struct kwalk *w = &out->w;
	__u64 look = w->n ? w->pc - 1 : w->pc;
	struct kw_mframe *l;
	struct ct_uw_row r;
	__u32 n = w->n;
	long ended;

	if (n >= CT_KSTACK_FRAMES) {
		w->end = CT_STACK_END_MAX_FRAMES;
		return 1;
	}
	if (memo_meets(w, c->memo)) {
		memo_window(out, c->memo);
		return 1;   /* checked from the loop's next call (memo_check_frames) */
	}
	l = memo_log(out);
	out->pcs[n & (CT_KSTACK_FRAMES - 1)] = w->pc;
	w->n = n + 1;
	switch (rule_at(c, look, &r)) {
	case KW_STOP:
		kw_gap(out, c->memo);
		return 1;
	case KW_FP:
		ended = fp_step(out);
		memo_log_fp(l, w, ended);
		return ended;
	case KW_RULE:
		break;
	}
	if (w->n >= CT_KSTACK_FRAMES) {   /* as the capture's walk: the bound first */
		w->end = CT_STACK_END_MAX_FRAMES;
		return 1;
	}
	if (r.kind == CT_UW_OUTERMOST) {
		w->end = w->fp ? CT_STACK_END_COMPLETE_FP : CT_STACK_END_COMPLETE;
		return 1;
	}
	memo_log_rule(l, &r);
	return cfa_step(out, &r);
}

/*
 * KW_UNROLL frames a call of bpf_loop's callback: each call costs its
 * entry, its return and the walk's state loaded from the map value and
 * stored back, a good part of a frame that hits the rule cache and the
 * window.
 */
#ifndef KW_UNROLL
#define KW_UNROLL 4
#endif

static long kwalk_steps(__u32 i, void *ctx)
{
	struct kwalk_ctx *c = ctx;
	struct kwalk *w = &c->out->w;

	if (w->copy)   /* a gap whose check failed (memo_differs) */
		return 1;
	if (w->vd >= 0)
		return memo_check_frames(c->out, c->memo);
	for (int k = 0; k < KW_UNROLL; k++)
		if (kwalk_step(ctx))
			return w->vd >= 0 ? 0 : 1;   /* met the last walk: checked from the next call */
	return 0;
}

/* After a walk that gave up for a table not built (yet): the pc it needs,
 * which may lie past what the copy holds; else 0. */
static __always_inline __u64 kwalk_wanted(void)
{
	__u32 zero = 0;
	struct kwalk_rec *out = bpf_map_lookup_elem(&kwalk_scratch, &zero);

	if (!out || out->w.tgid != bpf_get_current_pid_tgid() >> 32 ||
	    (out->w.copy != KW_PENDING && out->w.copy != KW_LAZY))
		return 0;
	return out->w.want;
}

/*
 * Walks the calling thread's stack, for send_kstack to send (the Python
 * walk, between the two, may take words from the walk's read); false
 * where it could not (no table for a frame: the caller copies the stack,
 * counted).
 */
static __noinline bool walk_kstack(__u64 ts)
{
	struct pt_regs *regs = current_user_regs();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0;
	struct kwalk_ctx c;
	struct kwalk_rec *out;
	struct kwalk *w;
	__u32 *gen;
	TIMER_START(t_all);

	c.proc = NULL;
	c.out = out = bpf_map_lookup_elem(&kwalk_scratch, &zero);
	c.cache = bpf_map_lookup_elem(&kwalk_cache, &zero);
	c.memo = bpf_map_lookup_elem(&kwalk_memo, &zero);
	gen = bpf_map_lookup_elem(&uw_gen, &zero);
	if (!out || !c.cache || !c.memo || !gen)
		return false;
	w = &out->w;
	*w = (struct kwalk){ .pc = regs->ip, .sp = regs->sp, .sp0 = regs->sp, .bp = regs->bp,
			     .bp_known = 1, .end = CT_STACK_END_ERROR, .tgid = tgid,
			     .who = kw_who(tgid, *gen) };
	/* whose the window is: this call's (kwalk_stack_word) */
	out->rec.h.ts_ns = ts;
	out->rec.h.tid = (__u32)id;
	memo_begin(w, c.memo, (__u32)id);
	TIMER_START(t_walk);
	/* Frames stepped (each once), checked against the last walk (each
	 * once), and the calls cut short where the one becomes the other. */
	bpf_loop(CT_KSTACK_FRAMES / KW_UNROLL + CT_KSTACK_FRAMES / KWM_UNROLL + 2 * KWM_TRIES + 2,
		 kwalk_steps, &c, 0);
	TIMER_ADD(CT_CNT_TIMED_KWALK_NS, t_walk);
	TIMER_ADD(CT_CNT_TIMED_KSTACK_NS, t_all);
	if (w->copy) {
		count(w->copy);
		return false;
	}
	if (!w->gap_end)   /* its log lacks the gap's frames */
		memo_keep(out, c.memo, (__u32)id);
	return true;
}

/*
 * Bytes of the calling thread's stack at addr from this call's walk's
 * last read (after a check against the thread's last walk, its whole
 * stack, up to 16 KiB): the stack is as the walk read it, the thread
 * being in this call since.  False where the read does not hold it.
 */
static __always_inline const __u8 *kwalk_stack_bytes(__u64 ts, __u64 addr, __u32 len)
{
	__u32 zero = 0;
	struct kwalk_rec *out = bpf_map_lookup_elem(&kwalk_scratch, &zero);
	__u64 off;

	if (!out || out->rec.h.ts_ns != ts || out->rec.h.tid != (__u32)bpf_get_current_pid_tgid())
		return NULL;
	off = addr - out->w.win_lo;
	if (off >= out->w.win_n || len > out->w.win_n - off)
		return NULL;
	return (const __u8 *)out->win + (off & (KW_BUF - 1));
}

/* ... a word of it, aligned as the stack's words are. */
static __always_inline bool kwalk_stack_word(__u64 ts, __u64 addr, __u64 *v)
{
	const __u8 *at = (addr & 7) ? NULL : kwalk_stack_bytes(ts, addr, 8);

	if (!at)
		return false;
	*v = *(const __u64 *)at;
	return true;
}

struct kw_gap_rec {
	struct ct_kstack_gap rec;
	__u8 bytes[CT_KSTACK_GAP_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kw_gap_rec);
} kwalk_gap SEC(".maps");

/* The walk's gap (kw_gap), read and sent; false where it could not be
 * read (the caller ends the stack there). */
static __noinline bool send_gap(struct kwalk_rec *out)
{
	struct kwalk *w = &out->w;
	__u32 zero = 0;
	struct kw_gap_rec *g = bpf_map_lookup_elem(&kwalk_gap, &zero);
	__u64 n = w->gap_end - w->gap_sp, size;

	keep_in_register(n);
	if (!g || n < 8 || n > CT_KSTACK_GAP_MAX || (n & 7) ||
	    bpf_probe_read_user(g->bytes, n, (void *)w->gap_sp))
		return false;
	g->rec = (struct ct_kstack_gap){ .h = out->rec.h, .at = w->gap_at,
					 .bp_known = w->gap_bp_known,
					 .pc = out->pcs[(w->gap_at - 1) & (CT_KSTACK_FRAMES - 1)],
					 .sp = w->gap_sp, .bp = w->gap_bp, .end_sp = w->gap_end,
					 .end_pc = out->pcs[w->gap_at & (CT_KSTACK_FRAMES - 1)] };
	g->rec.h.type = CT_REC_KSTACK_GAP;
	size = sizeof(g->rec) + n;
	g->rec.h.size = size;
	if (size > sizeof(*g) || !emit_flags(g, size, want_wake_flags(size, w->want)))
		return false;
	count(CT_CNT_KWALK_GAPS);
	count_n(CT_CNT_KWALK_GAP_BYTES, n);
	return true;
}

/* Sends the frames walk_kstack found, in one sample with the call's
 * Python record where there is one (py_size bytes at py); true: the
 * Python record went into the ring. */
static __noinline bool send_kstack(const void *py, __u64 py_size)
{
	__u64 id = bpf_get_current_pid_tgid(), size;
	__u32 zero = 0;
	struct kwalk_rec *out = bpf_map_lookup_elem(&kwalk_scratch, &zero);
	struct kwalk *w;
	bool py_sent = false;
	TIMER_START(t_send);

	if (!out)
		return false;
	w = &out->w;
	out->rec.h.type = CT_REC_KSTACK;
	out->rec.h.pid = id >> 32;
	out->rec.nframes = w->n;
	out->rec.end = w->end == CT_STACK_END_COMPLETE && w->fp ? CT_STACK_END_COMPLETE_FP : w->end;
	out->rec.need_bytes = w->need;
	out->rec.fp_frames = w->fp;
	out->rec.span_bytes = w->sp - w->sp0 > CT_KSTACK_BYTES ? CT_KSTACK_BYTES : w->sp - w->sp0;
	out->rec.gap_at = 0;
	if (w->gap_end && send_gap(out)) {
		out->rec.gap_at = w->gap_at;
	} else if (w->gap_end) {   /* the stack ends where the gap begins */
		out->rec.nframes = w->n = w->gap_at;
		out->rec.end = CT_STACK_END_BAD_READ;
	}
	size = sizeof(struct ct_kstack) + (__u64)(w->n & (CT_KSTACK_FRAMES * 2 - 1)) * 8;
	if (size > sizeof(out->rec) + sizeof(out->pcs))
		return false;
	out->rec.h.size = size;
	if (py && py_size)
		py_sent = emit_two(py, py_size, CT_PYSTACK_RECORD_MAX, out, size,
				   sizeof(out->rec) + sizeof(out->pcs));
	else
		emit(out, size);
	count(CT_CNT_KWALK_DONE);
	count_n(CT_CNT_KWALK_FRAMES, w->n);
	count_n(CT_CNT_KWALK_READS, w->reads);
	count_n(CT_CNT_KWALK_MISSES, w->misses);
	count_n(CT_CNT_KWALK_REUSED, w->reused);
	TIMER_ADD(CT_CNT_TIMED_KSTACK_NS, t_send);
	return py_sent;
}

#endif /* CT_KWALK_BPF_H */
