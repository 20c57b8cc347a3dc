// SPDX-License-Identifier: MIT
/*
 * The decoder's set-up (decoders/decode.c): it takes any number of views
 * (a live capture with --metrics, -c, -e, --perfetto, --sqlite and --compat
 * asks for 9; there were at most 8) and runs them in the order added; and
 * a part it cannot allocate makes ct_decoder_new fail, not a decoder that
 * crashes at the first Python frames record (ct_pystacks_new went
 * unchecked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "records.h"

/*
 * Allocation failure, injected without a hook in the program: this test's
 * own strdup comes before libc's for every object linked into it, and it
 * fails for one string only, given as --py-user (which only
 * ct_pystacks_new copies).
 */
static const char FAIL_DUP[] = "strdup-fails-for-this";
static int dups_failed;

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (strcmp(s, FAIL_DUP) == 0) {
		dups_failed++;
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(n);
	return p ? memcpy(p, s, n) : NULL;
}

#define NVIEWS 12

static int order[NVIEWS * 2], norder, finished[NVIEWS], records[NVIEWS];

static void saw_call(void *ctx, const struct ct_call *c)
{
	(void)c;
	if (norder < NVIEWS * 2)
		order[norder++] = (int)(long)ctx;
}

static int finish(void *ctx)
{
	finished[(long)ctx]++;
	return 0;
}

static void saw_record(void *ctx, const struct ct_rec *r)
{
	(void)r;
	records[(long)ctx]++;
}

static void many_views(void)
{
	struct mem_decoder m;
	struct ct_decoder *d = mem_start(&m, (struct ct_decode_opts){ .quiet = true });
	uint32_t a[8] = { 1, 1, 0x20800110, 0, 0x2000, 0x7ffd, 0, 0 };
	bool in_order = true, all_finished = true, all_records = true;
	int added = 0;
	long i;

	for (i = 0; i < NVIEWS; i++) {
		struct ct_view v = { .call = saw_call, .finish = finish, .record = saw_record,
				     .ctx = (void *)i };

		added += ct_decoder_add_view(d, &v) == 0;
	}
	ok(added == NVIEWS, "%d views added (%d taken; there were at most 8)", NVIEWS, added);
	ct_decoder_feed(d, meta());
	call(d, 1000001000, REQ(0x2a, 32), a, sizeof(a), NULL, 0);
	free(mem_end(&m));
	for (i = 0; i < NVIEWS; i++) {
		in_order &= i < norder && order[i] == i;
		all_finished &= finished[i] == 1;
		all_records &= records[i] == 3;   /* the header, the entry, the exit */
	}
	ok(norder == NVIEWS && in_order, "each saw the call once, in the order added (%d calls seen)",
	   norder);
	ok(all_finished && all_records, "each saw every record and was finished once");
}

static void pystacks_oom(void)
{
	struct ct_decode_opts o = { .py_user = FAIL_DUP };
	struct ct_decoder *d;

	o.out = stdout;
	d = ct_decoder_new(&o);
	ok(dups_failed == 1, "the injected failure hit ct_pystacks_new's copy of --py-user");
	ok(d == NULL, "ct_decoder_new: NULL when the Python frames part cannot be allocated");
	ct_decoder_free(d);
	o.py_user = "train.py";
	d = ct_decoder_new(&o);
	ok(d != NULL, "and a decoder when it can");
	ct_decoder_free(d);
}

int main(void)
{
	many_views();
	pystacks_oom();
	return tap_done();
}
