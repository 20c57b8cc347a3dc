// SPDX-License-Identifier: MIT
/*
 * One label for the names of functions of the same code (kname_merge.h).
 * Names are cut into words (runs of letters and digits) and single other
 * bytes, and aligned on the words they all have (a longest common
 * subsequence): each place between those where they differ becomes {a|b}.
 * Names too long for that, or that differ in too many places, keep what
 * they share at the start and the end, the middle of each an alternative.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kname_merge.h"

#define RUNS_MAX      6     /* places names differ, written out word by word */
#define LCS_MAX_WORDS 1024  /* words a name may have to be aligned word by word (4 MiB) */

struct word {
	const char *s;
	size_t n;
};

struct name {
	struct word *w;
	size_t nw;
};

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		return;   /* sized by the caller: never */
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static size_t word_len(const char *s)
{
	size_t n = 0;

	if (!isalnum((unsigned char)*s))
		return 1;
	while (isalnum((unsigned char)s[n]))
		n++;
	return n;
}

static bool split(const char *s, struct name *nm)
{
	size_t n = 0, i;

	for (const char *p = s; *p; p += word_len(p))
		n++;
	if (!(nm->w = calloc(n ? n : 1, sizeof(*nm->w))))
		return false;
	for (i = 0; *s; i++, s += nm->w[i - 1].n)
		nm->w[i] = (struct word){ s, word_len(s) };
	nm->nw = n;
	return true;
}

static bool same(const struct word *a, const struct word *b)
{
	return a->n == b->n && !memcmp(a->s, b->s, a->n);
}

/* Words [from, to) of name i as one string. */
static void span(struct buf *b, const struct name *nm, size_t from, size_t to)
{
	if (from < to)
		put(b, nm->w[from].s, (size_t)(nm->w[to - 1].s + nm->w[to - 1].n - nm->w[from].s));
}

/* {a|b|...}: words [from[i], to[i]) of each name, each text once; "|..."
 * where more functions matched than the names kept. */
static void alternatives(struct buf *b, const struct name *nm, uint32_t n, const size_t *from,
			 const size_t *to, bool more)
{
	put(b, "{", 1);
	for (uint32_t i = 0; i < n; i++) {
		size_t at = b->len, len;
		bool seen = false;

		if (i)
			put(b, "|", 1);
		span(b, &nm[i], from[i], to[i]);
		len = b->len - at - (i ? 1 : 0);
		for (uint32_t j = 0; j < i && !seen; j++) {   /* an earlier name's text? */
			struct buf t = { b->p + b->len + 1, 0, b->cap - b->len - 1 };

			if (t.cap < len + 1)
				break;
			span(&t, &nm[j], from[j], to[j]);
			seen = t.len == len && !memcmp(t.p, b->p + b->len - len, len);
		}
		if (seen) {
			b->len = at;
			b->p[at] = '\0';
		}
	}
	if (more)
		put(b, "|...", 4);
	put(b, "}", 1);
}

/* The longest common subsequence of words a[0..na) and b[0..nb): for
 * each of its words, its index in a and in b; its length.  0 where the
 * table would be too large (then the caller does without). */
static size_t lcs(const struct word *const *a, size_t na, const struct word *b, size_t nb,
		  size_t *ia, size_t *ib)
{
	uint32_t *t;
	size_t i, j, k, n;

	if (na > LCS_MAX_WORDS || nb > LCS_MAX_WORDS ||
	    !(t = calloc((na + 1) * (nb + 1), sizeof(*t))))
		return 0;
#define T(i, j) t[(i) * (nb + 1) + (j)]
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;)
			T(i, j) = same(a[i], &b[j]) ? T(i + 1, j + 1) + 1 :
				  T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1);
	n = T(0, 0);
	for (i = j = k = 0; k < n;) {
		if (same(a[i], &b[j])) {
			ia[k] = i++;
			ib[k++] = j++;
		} else if (T(i + 1, j) >= T(i, j + 1)) {
			i++;
		} else {
			j++;
		}
	}
#undef T
	free(t);
	return n;
}

/* The words every name has, in order (a subsequence of each: of name 0
 * and each other in turn), and where each name has them: pos[i][k]. */
static size_t common_words(const struct name *nm, uint32_t n, size_t **pos)
{
	const struct word **c = malloc((nm[0].nw + 1) * sizeof(*c));
	size_t *ia = malloc((nm[0].nw + 1) * sizeof(*ia)), nc = nm[0].nw;

	for (size_t k = 0; c && k < nc; k++)
		c[k] = &nm[0].w[k];
	for (uint32_t i = 1; c && ia && i < n && nc; i++) {
		nc = lcs(c, nc, nm[i].w, nm[i].nw, ia, pos[i]);
		for (size_t k = 0; k < nc; k++)
			c[k] = c[ia[k]];
	}
	for (uint32_t i = 0; c && ia && i < n && nc; i++)
		if (lcs(c, nc, nm[i].w, nm[i].nw, ia, pos[i]) != nc)
			nc = 0;   /* cannot be: a subsequence of each */
	if (!c || !ia)
		nc = 0;
	free(ia);
	free(c);
	return nc;
}

/* Gap k of name i (the words between its common words k - 1 and k). */
static void gap(const struct name *nm, size_t *const *pos, size_t nc, uint32_t i, size_t k,
		size_t *from, size_t *to)
{
	*from = k ? pos[i][k - 1] + 1 : 0;
	*to = k < nc ? pos[i][k] : nm[i].nw;
}

static bool gap_differs(const struct name *nm, size_t *const *pos, size_t nc, uint32_t n,
			size_t k, bool *empty)
{
	size_t f0, t0, f, t;
	bool differ = false;

	gap(nm, pos, nc, 0, k, &f0, &t0);
	*empty = f0 == t0;
	for (uint32_t i = 1; i < n; i++) {
		gap(nm, pos, nc, i, k, &f, &t);
		*empty |= f == t;
		differ |= t - f != t0 - f0;
		for (size_t w = 0; !differ && w < t - f; w++)
			differ = !same(&nm[i].w[f + w], &nm[0].w[f0 + w]);
	}
	return differ;
}

/* Word by word, around the words every name has: each place they differ
 * as {a|b}, a place where one has nothing taken with the next common word
 * (no empty alternative).  false if there is no such alignment or too
 * many places. */
static bool word_by_word(struct buf *b, const struct name *nm, uint32_t n, bool more)
{
	size_t *pos[CT_KNAME_MERGE_MAX] = { 0 }, from[CT_KNAME_MERGE_MAX], to[CT_KNAME_MERGE_MAX];
	size_t nc = 0, places = 0, k;
	bool ok = true, empty;

	for (uint32_t i = 0; i < n && ok; i++)
		ok = (pos[i] = malloc((nm[0].nw + 1) * sizeof(size_t))) != NULL;
	if (ok)
		nc = common_words(nm, n, pos);
	for (k = 0; nc && k <= nc; k++)
		places += gap_differs(nm, pos, nc, n, k, &empty);
	ok = nc && places && places <= RUNS_MAX;
	for (k = 0; ok && k <= nc; k++) {
		bool differs = gap_differs(nm, pos, nc, n, k, &empty);
		size_t end = differs && empty ? k + 1 : k;   /* with the next common word */

		if (end > nc) {   /* nothing after it to take in: the ends do better */
			ok = false;
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			gap(nm, pos, nc, i, k, &from[i], &to[i]);
			to[i] = end < nc ? pos[i][end] : nm[i].nw;
		}
		if (differs) {
			alternatives(b, nm, n, from, to, more);
			k = end;
		} else {
			span(b, &nm[0], from[0], to[0]);
		}
		if (k < nc)
			span(b, &nm[0], pos[0][k], pos[0][k] + 1);
	}
	for (uint32_t i = 0; i < n; i++)
		free(pos[i]);
	return ok;
}

/* What all share at the start and at the end (whole words, every middle
 * left at least one word), the middles as alternatives. */
static void ends(struct buf *b, const struct name *nm, uint32_t n, bool more)
{
	size_t p = 0, q = 0, min = nm[0].nw, from[CT_KNAME_MERGE_MAX], to[CT_KNAME_MERGE_MAX];
	bool go;

	for (uint32_t i = 1; i < n; i++)
		min = nm[i].nw < min ? nm[i].nw : min;
	for (go = true; go && p < min; p += go)
		for (uint32_t i = 1; i < n && go; i++)
			go = same(&nm[i].w[p], &nm[0].w[p]);
	for (go = true; go && q < min; q += go)
		for (uint32_t i = 1; i < n && go; i++)
			go = same(&nm[i].w[nm[i].nw - 1 - q], &nm[0].w[nm[0].nw - 1 - q]);
	for (uint32_t i = 0; i < n; i++)
		while (p + q >= nm[i].nw && (q || p))
			q ? q-- : p--;   /* every middle at least a word, where it has one */
	span(b, &nm[0], 0, p);
	for (uint32_t i = 0; i < n; i++) {
		from[i] = p;
		to[i] = nm[i].nw - q;
	}
	alternatives(b, nm, n, from, to, more);
	span(b, &nm[0], nm[0].nw - q, nm[0].nw);
}

char *ct_kname_merge(const char *const *names, uint32_t n, uint32_t total)
{
	struct name nm[CT_KNAME_MERGE_MAX] = { 0 };
	struct buf b = { NULL, 0, 64 };
	bool ok = n >= 2 && n <= CT_KNAME_MERGE_MAX;

	for (uint32_t i = 0; ok && i < n; i++) {
		b.cap += 2 * strlen(names[i]) + 8;   /* a name can be written twice: room to compare */
		ok = split(names[i], &nm[i]);
	}
	if (ok && (b.p = malloc(b.cap))) {
		b.p[0] = '\0';
		if (!word_by_word(&b, nm, n, total > n)) {
			b.len = 0;
			b.p[0] = '\0';
			ends(&b, nm, n, total > n);
		}
	}
	for (uint32_t i = 0; i < CT_KNAME_MERGE_MAX; i++)
		free(nm[i].w);
	return b.p;
}
