// SPDX-License-Identifier: MIT
/*
 * One label for the names of functions of the same code (kname_merge.h).
 * Names are cut into words (runs of letters and digits) and single other
 * bytes.  Names of as many words differ word by word: each run of words
 * that differs becomes {a|b}.  Otherwise what they share at the start and
 * the end stays, and the middle of each is an alternative.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kname_merge.h"

#define RUNS_MAX 4   /* runs of differing words written out word by word */

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

/* Names of as many words: runs of differing words; false if too many. */
static bool word_by_word(struct buf *b, const struct name *nm, uint32_t n, bool more)
{
	size_t nw = nm[0].nw, runs = 0, from[CT_KNAME_MERGE_MAX], to[CT_KNAME_MERGE_MAX];

	for (uint32_t i = 1; i < n; i++)
		if (nm[i].nw != nw)
			return false;
	for (size_t j = 0; j < nw; j++) {
		bool differ = false, next = false;

		for (uint32_t i = 1; i < n; i++) {
			differ |= !same(&nm[i].w[j], &nm[0].w[j]);
			next |= j + 1 < nw && !same(&nm[i].w[j + 1], &nm[0].w[j + 1]);
		}
		runs += differ && !next;
	}
	if (!runs || runs > RUNS_MAX)
		return false;
	for (size_t j = 0; j < nw;) {
		size_t k = j;
		bool differ = true;

		while (k < nw && differ) {
			differ = false;
			for (uint32_t i = 1; i < n; i++)
				differ |= !same(&nm[i].w[k], &nm[0].w[k]);
			k += differ;
		}
		if (k == j) {
			span(b, &nm[0], j, j + 1);
			j++;
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			from[i] = j;
			to[i] = k;
		}
		alternatives(b, nm, n, from, to, more);
		j = k;
	}
	return true;
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
