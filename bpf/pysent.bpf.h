/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A thread's last Python record, kept for its next: a loop's calls come
 * from the same outer frames (30 functions deep, all but the innermost),
 * and a frame's 32 bytes through the ring cost more than its compare in
 * the frame loop, where its fields are at hand.  A stack as deep as the
 * last one leaves out its outermost frames that are the last one's
 * (ct_pystack.outer_kept); the capture puts them back.  Kept in the
 * thread's own storage (py_thread), so a thread that moves between CPUs
 * keeps it; tagged with the process entry it was made under, and numbered,
 * which the capture checks.  Its frames' checks serve the next walk too:
 * each was made while the process's count of code objects made read
 * counter (see py_code_cache), so while it still does, a frame whose code
 * object is the one at its depth last time takes its check from here, and
 * a loop's calls look up no cache.  And a stack that is the last one's,
 * code object for code object, names none the capture has not been sent
 * (py_sent_new_code: no read ahead).  Included by pyframes.bpf.h.
 *
 * The compare is by depth from the innermost frame, in the frame loop (a
 * pass of its own from the outermost, after it, cost 4 ns a frame: more
 * than the bytes it saved); so only a stack as deep as the last leaves
 * frames out.  A frame's CT_PYF_ENTRY mark may come after its compare
 * (3.12's shim frames mark the frame before them), so the marks are
 * compared apart, as bits by depth.
 */
#ifndef CT_PYSENT_BPF_H
#define CT_PYSENT_BPF_H

#define PY_SENT_FRAMES 128      /* frames kept: a deeper stack is sent whole */
#define PY_SENT_UNROLL 4        /* frames a call of bpf_loop's callback, in the copy */

struct py_sent_frame {
	__u64 code, instr, check;
};

struct py_sent {
	__u64 proc_id;                       /* ct_py_proc.proc_id of its process */
	__u64 scope;                         /* where counter was read (py_code_cached's) */
	__u32 counter;                       /* the count of code objects its checks hold at */
	__u32 seq;                           /* the thread's records sent; 0: none */
	__u32 n;                             /* the last record's frames */
	__u32 kept;                          /* ... of them in f: at most PY_SENT_FRAMES */
	__u32 unsent;                        /* 1: it did not go into the ring (full) */
	__u32 _pad;
	__u64 entries[2];                    /* bit i: frame i has CT_PYF_ENTRY */
	struct py_sent_frame f[PY_SENT_FRAMES];   /* innermost first */
};

/* The depths whose checks a walk may take (py_sent_check): 0 where the
 * count of code objects moved, or there is none (3.10, 3.11). */
static __always_inline __u32 py_sent_checks_kept(const struct py_sent *s, __u64 proc_id,
						 __u64 scope, __u32 counter)
{
	return counter && s->counter == counter && s->scope == scope && s->proc_id == proc_id ?
	       s->kept : 0;
}

/* Frame n's check, where its code object is the one at that depth last
 * time; 0: not kept.  checks_n: py_sent_checks_kept's, read from memory at
 * each frame (a bound the verifier knew would split the frame loop's
 * states by the depth's value). */
static __always_inline __u64 py_sent_check(const struct py_sent *s, __u32 checks_n, __u32 n,
					   __u64 code)
{
	const struct py_sent_frame *k = &s->f[n & (PY_SENT_FRAMES - 1)];

	return n < checks_n && k->code == code ? k->check : 0;
}

/*
 * Frame n is the one at its depth in the last record (marks aside), given
 * its check and instruction: a check is taken from there (py_sent_check)
 * only with the code object there, so the instruction is all that is left
 * to compare.  A frame without a check (one still to be made in the check
 * loop, or unreadable) is never taken as the same.  Depth is not compared
 * with the last record's: a stack leaves frames out only where it is as
 * deep as the last (up to PY_SENT_FRAMES), and a branch on the depth would
 * split the frame loop's verifier states by its value.
 */
static __always_inline bool py_sent_same_instr(const struct py_sent *s, __u32 n, __u64 check,
					       __u64 instr)
{
	return check && s->f[n & (PY_SENT_FRAMES - 1)].instr == instr;
}

/* Non-zero where frame n's code object or check is not the one at its
 * depth in the last record: for the check loop, whose checks were not
 * taken from there. */
static __always_inline __u64 py_sent_code_differs(const struct py_sent *s, __u32 n,
						  const struct ct_pyframe_raw *f)
{
	const struct py_sent_frame *k = &s->f[n & (PY_SENT_FRAMES - 1)];

	return (k->code ^ f->code) | (k->check ^ f->check);
}

/*
 * Whether a stack of n frames may name code objects that were not in the
 * thread's last record, for the capture to read ahead: where that record
 * is of another process entry or depth, the stack is too deep to compare,
 * or the check loop found a frame unlike it (code_differs).  A frame whose
 * check the frame loop took from the record is that record's.
 */
static __always_inline bool py_sent_new_code(const struct py_sent *s, __u64 proc_id, __u32 n,
					     __u64 code_differs)
{
	return !s->seq || s->proc_id != proc_id || s->n != n || n > PY_SENT_FRAMES ||
	       code_differs;
}

/* The mark's bit for frame n (the bits of frames past PY_SENT_FRAMES fold
 * onto others': such a stack is never compared). */
static __always_inline void py_sent_mark(__u64 *entries, __u32 n)
{
	entries[(n >> 6) & 1] |= 1ULL << (n & 63);
}

/* 1 + the highest bit set, 0 for none: the bits below it set, counted.
 * Without a branch: each would double the paths the verifier walks. */
static __always_inline __u32 bits_end(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	v -= (v >> 1) & 0x5555555555555555ULL;
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (__u32)((v * 0x0101010101010101ULL) >> 56);
}

/*
 * How many of the stack's outermost frames (n, the innermost differ_end of
 * them unlike the last record's by the frame loop; its marks' bits in
 * entries) are left out; 0 where the last record was of another depth or
 * process entry, and every CT_PY_WHOLE_EVERY records (the capture may have
 * lost one: that bounds what the loss takes with it).
 */
static __always_inline __u32 py_sent_same_outer(const struct py_sent *s, __u64 proc_id, __u32 n,
						__u32 differ_end, const __u64 *entries)
{
	__u32 marks_end;

	if (!s->seq || s->unsent || s->proc_id != proc_id || s->n != n || n > PY_SENT_FRAMES ||
	    !((s->seq + 1) & (CT_PY_WHOLE_EVERY - 1)) || differ_end > n)
		return 0;
	marks_end = bits_end(entries[1] ^ s->entries[1]);
	marks_end = marks_end ? 64 + marks_end : bits_end(entries[0] ^ s->entries[0]);
	if (marks_end > differ_end)
		differ_end = marks_end;
	return differ_end < n ? n - differ_end : 0;
}

struct py_sent_copy {
	const struct ct_pyframe_raw *frames;
	struct py_sent *sent;
	__u32 j, end;
};

static long py_sent_copy_frames(__u32 i, void *ctx)
{
	struct py_sent_copy *c = ctx;

	for (int k = 0; k < PY_SENT_UNROLL; k++) {
		const struct ct_pyframe_raw *f = &c->frames[c->j & (CT_PY_FRAMES_MAX - 1)];

		if (c->j >= c->end)
			return 1;
		c->sent->f[c->j & (PY_SENT_FRAMES - 1)] =
			(struct py_sent_frame){ f->code, f->instr, f->check };
		c->j++;
	}
	return 0;
}

/* The record about to be sent (seq; n frames, the outermost outer_kept of
 * them the last one's; its marks' bits; its checks made at counter, in
 * scope) is now the thread's last; unsent is set where the send fails. */
static __always_inline void py_sent_keep(struct py_sent *s, __u64 proc_id, __u64 scope,
					 __u32 counter, __u32 seq,
					 const struct ct_pyframe_raw *frames, __u32 n,
					 __u32 outer_kept, const __u64 *entries)
{
	struct py_sent_copy c = { .frames = frames, .sent = s };

	c.end = n < PY_SENT_FRAMES ? n : PY_SENT_FRAMES;
	if (outer_kept <= c.end)
		c.end -= outer_kept;
	if (c.end)
		bpf_loop(PY_SENT_FRAMES / PY_SENT_UNROLL, py_sent_copy_frames, &c, 0);
	s->n = n;
	s->kept = n < PY_SENT_FRAMES ? n : PY_SENT_FRAMES;
	s->counter = counter;
	s->scope = scope;
	s->entries[0] = entries[0];
	s->entries[1] = entries[1];
	s->seq = seq;
	s->unsent = 0;
	s->proc_id = proc_id;
}

#endif /* CT_PYSENT_BPF_H */
