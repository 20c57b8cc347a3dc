// SPDX-License-Identifier: MIT
/*
 * capture/stacks/uw_space.c: where -k's rows go.  An old run is reused
 * only after a grace period that began after it was given back, and only
 * when the rows after the last in use are short; neighbours join; a grace
 * that fails reuses nothing.
 */
#include "tap.h"
#include "uw_space.h"

static int graces, grace_rc;

static int stub_grace(void)
{
	graces++;
	return grace_rc;
}

static struct ct_uw_space fresh(uint32_t max)
{
	struct ct_uw_space s;

	ct_uw_space_init(&s, max);
	s.grace = stub_grace;
	graces = grace_rc = 0;
	return s;
}

int main(void)
{
	struct ct_uw_space s = fresh(100);
	uint32_t a = 1, b = 1, c = 1, d = 1;
	bool t;

	t = ct_uw_space_take(&s, 30, &a) && ct_uw_space_take(&s, 30, &b);
	ok(t && a == 0 && b == 30, "runs go after the last row in use (0, 30): %u, %u", a, b);
	ct_uw_space_give(&s, a, 30);
	t = ct_uw_space_take(&s, 35, &c);
	ok(t && c == 60 && graces == 0 && s.spare == 30,
	   "with room after the last, an old run waits (not reused, no grace): at %u", c);
	ct_uw_space_give(&s, b, 30);
	t = ct_uw_space_take(&s, 50, &d);
	ok(t && d == 0 && graces == 1 && s.spare == 10,
	   "rows short: one grace, then the two old runs, joined, hold 50 rows: at %u, "
	   "%llu spare", d, (unsigned long long)s.spare);
	t = ct_uw_space_take(&s, 20, &d);
	ok(!t && graces == 1,
	   "nothing old waiting and 10 rows free in pieces of 10 and 5: no room for 20, no grace");
	ct_uw_space_free(&s);

	s = fresh(100);
	ct_uw_space_take(&s, 60, &a);
	ct_uw_space_take(&s, 30, &b);
	ct_uw_space_give(&s, b, 30);
	t = ct_uw_space_take(&s, 35, &c);
	ok(t && c == 60 && graces == 1 && s.end == 95 && s.spare == 0,
	   "old rows at the end go back to the tail after the grace: at %u, end %u", c, s.end);
	ct_uw_space_free(&s);

	s = fresh(100);
	grace_rc = -1;
	ct_uw_space_take(&s, 60, &a);
	ct_uw_space_take(&s, 30, &b);
	ct_uw_space_give(&s, a, 60);
	t = ct_uw_space_take(&s, 40, &c);
	ok(!t && graces == 1 && s.spare == 60 && s.nold == 1,
	   "a grace that fails: the old run not reused, still waiting");
	grace_rc = 0;
	t = ct_uw_space_take(&s, 40, &c);
	ok(t && c == 0 && graces == 2,
	   "... reused after the next grace: at %u", c);
	ct_uw_space_free(&s);
	return tap_done();
}
