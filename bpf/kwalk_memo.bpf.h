/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The thread's last walk, kept for the next: a loop's calls come from the
 * same frames, and a walk that meets one of the last walk's frames (the
 * same pc and sp, and rbp where the steps out from it use rbp) checks the
 * words those steps read (return addresses, saved rbps) against what they
 * read then, instead of searching each frame's rule and stepping it.  A
 * walk is a function of its start, of those words and of the tables (the
 * kept walk is tagged with their generation), so where every word is the
 * same, so is every frame out to the end; where one differs, the walk goes
 * on by the rules from the frame that met it.  One walk kept per CPU, for
 * the thread that made it.  Included by kwalk.bpf.h.
 */
#ifndef CT_KWALK_MEMO_BPF_H
#define CT_KWALK_MEMO_BPF_H

#define KWM_MASK (CT_KSTACK_FRAMES - 1)
#define KWM_SKIP 8   /* the last walk's frames passed a step (more: the next step) */
#define KWM_TRIES 4  /* checks a walk starts; after as many words changed, the rules alone */

struct kw_memo {
	__u64 who;          /* kw_who: the process and the tables' generation */
	__u32 tid, n;       /* the thread; its frames (0: none kept) */
	__u32 end, _pad;    /* how the walk ended */
	__u64 end_sp;       /* sp after its last step */
	__u64 top;          /* its outermost sp (or end_sp): where the check's read ends */
	struct kw_mframe f[CT_KSTACK_FRAMES];   /* by depth from the end: f[0] the outermost */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kw_memo);
} kwalk_memo SEC(".maps");

/* At the walk's start: the last walk's frames to meet, if it was this thread's. */
static __always_inline void memo_begin(struct kwalk *w, const struct kw_memo *m, __u32 tid)
{
	w->vd = -1;
	w->cursor = m->tid == tid && m->who == w->who && m->n <= CT_KSTACK_FRAMES ?
		    (__s32)m->n - 1 : -1;
}

/* Whether the walk's frame is one of the last walk's: then its check begins. */
static __always_inline bool memo_meets(struct kwalk *w, const struct kw_memo *m)
{
	const struct kw_mframe *f = NULL;
	__s32 d = w->cursor;

	/* sp only grows as a walk goes out: frames below it cannot be met. */
	for (int i = 0; i < KWM_SKIP && d >= 0; i++) {
		f = &m->f[d & KWM_MASK];
		if (f->sp >= w->sp)
			break;
		d--;
	}
	w->cursor = d;
	if (d < 0 || !f || f->sp != w->sp || f->pc != w->pc)
		return false;
	if (f->flags & KWM_NEEDS_BP &&
	    !(w->bp_known && f->flags & KWM_BP_KNOWN && f->bp == w->bp))
		return false;
	/* as long as the walk by rules would be: within its frame bound */
	if (w->n + d + 1 >= CT_KSTACK_FRAMES)
		return false;
	w->vd = d;
	w->vk = w->n;
	w->vstart = d;
	w->tries++;
	return true;
}

/*
 * The check's words, in one read from sp to the last walk's top (at most
 * KW_BUF, within the walk's bound): a read's fixed part is most of its
 * cost, and the check, unlike the walk, knows where it will read.  Where
 * the read fails, the words are read as the walk reads them.
 */
static __always_inline void memo_window(struct kwalk_rec *o, const struct kw_memo *m)
{
	struct kwalk *w = &o->w;
	__u64 n = m->top - w->sp, bound = w->sp0 + CT_KSTACK_BYTES - w->sp, first;

	if (m->top <= w->sp)
		return;
	if (n > bound)
		n = bound;
	n = n > KW_BUF ? KW_BUF : (n + 7) & ~7ull;
	if (n >= 8 && !(w->sp & 7) && !kw_read_window(o, w->sp, n, &first))
		w->win_n = 0;
}

/* A frame the check does not find as it was: the walk goes on from where
 * it met the last one, by the rules, and meets no frame up to this one. */
static __always_inline bool memo_differs(struct kwalk *w, __s32 d)
{
	w->vd = -1;
	if (w->gap_end) {   /* past a gap, rbp unknown: the copy (kwalk.bpf.h, kw_gap) */
		w->copy = w->gap_why;
		count(CT_CNT_KWALK_GAP_DIFFERED);
		return false;
	}
	w->cursor = w->tries < KWM_TRIES ? d - 1 : -1;
	w->end = CT_STACK_END_ERROR;
	w->need = 0;
	return false;
}

/* One frame of the check: its pc taken, its step's words read and
 * compared; 1: a word differs (memo_differs done), or the last frame. */
static __always_inline long memo_check_frame(struct kwalk_rec *o, const struct kw_memo *m, __s32 d)
{
	const struct kw_mframe *f = &m->f[d & KWM_MASK], *up;
	struct kwalk *w = &o->w;
	__u64 v;

	o->pcs[(w->vk + w->vstart - d) & KWM_MASK] = f->pc;
	if (d <= 0)
		return 1;
	/* in the step's order: a window starts at the lower word */
	up = &m->f[(d - 1) & KWM_MASK];
	if (f->flags & KWM_SLOT && (!stack_word_at(o, up->sp + f->slot * 8, &v) || v != up->bp))
		return memo_differs(w, d), 1;
	if (!stack_word_at(o, up->sp - 8, &v) || v != up->pc)
		return memo_differs(w, d), 1;
	return 0;
}

/* KWM_UNROLL frames a call of bpf_loop's callback, the frame in a register. */
#define KWM_UNROLL 8

/* The check's end, at the last walk's outermost frame: done as it ended. */
static __always_inline long memo_checked(struct kwalk_rec *o, const struct kw_memo *m)
{
	struct kwalk *w = &o->w;
	__u32 top = w->vstart;
	__u64 v;

	if (m->f[0].flags & KWM_ZERO_RA &&
	    (!stack_word_at(o, m->end_sp - 16, &v) || !stack_word_at(o, m->end_sp - 8, &v) || v))
		return memo_differs(w, 0), 0;
	w->vd = -1;
	w->n = w->vk + top + 1;
	w->fp += m->f[top & KWM_MASK].fps;
	w->end = m->end;
	w->sp = m->end_sp;
	w->reused = top + 1;
	return 1;
}

/*
 * A call of the walk's loop while it checks (kwalk_steps): KWM_UNROLL of
 * the last walk's frames, from the one the walk met out to its end, in
 * turn.  1: the walk is done, as the last one ended; 0: on, checking, or
 * by the rules from where it met the last walk (a word differed).
 */
static __always_inline long memo_check_frames(struct kwalk_rec *o, const struct kw_memo *m)
{
	struct kwalk *w = &o->w;
	__s32 d = w->vd;

	for (int k = 0; k < KWM_UNROLL; k++, d--) {
		if (!memo_check_frame(o, m, d))
			continue;
		if (w->vd < 0)   /* a word differed */
			return 0;
		return memo_checked(o, m);
	}
	w->vd = d;
	return 0;
}

/* The walk's own frame into the log, before its step. */
static __always_inline struct kw_mframe *memo_log(struct kwalk_rec *o)
{
	struct kwalk *w = &o->w;
	struct kw_mframe *l = &o->log[w->n & KWM_MASK];

	l->pc = w->pc;
	l->sp = w->sp;
	l->bp = w->bp;
	l->flags = w->bp_known ? KWM_BP_KNOWN : 0;
	l->slot = 0;
	return l;
}

/* What the step by rule will read and use, for the log. */
static __always_inline void memo_log_rule(struct kw_mframe *l, const struct ct_uw_row *r)
{
	__u32 rbp = CT_UW_RBP_KIND(r->rbp);

	if (r->kind == CT_UW_CFA_RBP)
		l->flags |= KWM_USES_BP;
	if (rbp == CT_UW_RBP_SAVED) {
		l->flags |= KWM_SLOT;
		l->slot = CT_UW_RBP_OFF(r->rbp) / 8;
	} else if (rbp == CT_UW_RBP_SAME) {
		l->flags |= KWM_SAME_BP;
	}
}

/* ... and what the step by frame pointer did: stepped (0), or ended. */
static __always_inline void memo_log_fp(struct kw_mframe *l, const struct kwalk *w, long ended)
{
	l->flags |= KWM_USES_BP;
	if (!ended) {
		l->flags |= KWM_FP | KWM_SLOT;
		l->slot = -2;   /* rbp's chain: the caller's rbp at rbp, its sp rbp + 16 */
	} else if (w->end == CT_STACK_END_COMPLETE_FP) {
		l->flags |= KWM_FP | KWM_ZERO_RA;
	}
}

struct memo_put_ctx {
	struct kwalk_rec *o;
	struct kw_memo *m;
	__u32 k, base;   /* the log's frames [0, k) go to depths base - i */
};

/* A frame of the log into the kept walk, outermost first: whether the
 * steps from it out need rbp, and their steps by frame pointer. */
static long memo_put(__u32 j, void *ctx)
{
	struct memo_put_ctx *p = ctx;
	__u32 i = p->k - 1 - j, d = p->base - i;
	struct kw_mframe *f = &p->m->f[d & KWM_MASK];
	const struct kw_mframe *up = d > 0 ? &p->m->f[(d - 1) & KWM_MASK] : NULL;
	bool needs;

	*f = p->o->log[i & KWM_MASK];
	needs = f->flags & KWM_USES_BP ||
		(f->flags & KWM_SAME_BP && up && up->flags & KWM_NEEDS_BP);
	if (needs)
		f->flags |= KWM_NEEDS_BP;
	f->fps = !!(f->flags & KWM_FP) + (up ? up->fps : 0);
	return 0;
}

/* After a walk to its end: kept for the thread's next (one that met the
 * last walk puts only its own frames in front of the ones it checked). */
static __always_inline void memo_keep(struct kwalk_rec *o, struct kw_memo *m, __u32 tid)
{
	struct kwalk *w = &o->w;
	struct memo_put_ctx p = { .o = o, .m = m };

	if (w->end != CT_STACK_END_COMPLETE && w->end != CT_STACK_END_COMPLETE_FP &&
	    w->end != CT_STACK_END_NO_FP)
		return;
	if (!w->n || w->n > CT_KSTACK_FRAMES)
		return;
	p.k = w->reused ? w->vk : w->n;
	p.base = w->n - 1;
	bpf_loop(p.k, memo_put, &p, 0);
	m->n = w->n;
	m->tid = tid;
	m->who = w->who;
	m->end = w->end;
	m->end_sp = w->sp;
	m->top = m->f[0].flags & KWM_ZERO_RA ? m->end_sp : m->f[0].sp;
}

#endif /* CT_KWALK_MEMO_BPF_H */
