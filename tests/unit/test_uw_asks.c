// SPDX-License-Identifier: MIT
/* The unwind tables' asks kept across captures (capture/stacks/uw_asks.c):
 * kept and read back, and every file not of the format left unread. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_text.h"
#include "tap.h"
#include "uw_asks.h"

static char dir[] = "/tmp/ct-uwasks-XXXXXX";

/* Writes text as the file kept for id, then reads it. */
static int load_text(const char *id, const char *text, struct ct_uw_asks *a)
{
	int err = put_cache_text(dir, id, CT_UW_ASKS_SUFFIX, text);

	return err ? err : ct_uw_asks_load(dir, id, a);
}

static void round_trip(void)
{
	uint64_t addrs[] = { 0x1327, 0xfdd6b, 0, 0xffffffffffffffffull };
	struct ct_uw_asks a = { .addrs = addrs, .n = 4 }, b;

	ok(ct_uw_asks_save(dir, "lib-1", &a) == 0, "lazy asks kept");
	ok(ct_uw_asks_load(dir, "lib-1", &b) == 0 && !b.whole && b.n == 4 &&
	   memcmp(b.addrs, addrs, sizeof(addrs)) == 0, "and read back, every address");
	ct_uw_asks_free(&b);
	a = (struct ct_uw_asks){ .whole = true };
	ok(ct_uw_asks_save(dir, "lib-1", &a) == 0 && ct_uw_asks_load(dir, "lib-1", &b) == 0 &&
	   b.whole && b.n == 0, "a whole table's ask replaces them");
	ct_uw_asks_free(&b);
	ok(ct_uw_asks_load(dir, "none", &b) == -ENOENT, "none kept: -ENOENT");
}

static void refused(void)
{
	static const char *const bad[] = {
		"",                                           /* empty */
		"cudatrace-uw-asks 2\nwhole\n",               /* another version */
		"cudatrace-uw-asks 1\n",                      /* cut after the magic */
		"cudatrace-uw-asks 1\nwhole\nextra\n",        /* more after whole */
		"cudatrace-uw-asks 1\nlazy 2\n10\n",          /* fewer than said */
		"cudatrace-uw-asks 1\nlazy 1\n10\n20\n",      /* more than said */
		"cudatrace-uw-asks 1\nlazy 1\nzz\n",          /* not hex */
		"cudatrace-uw-asks 1\nlazy 1\n10 \n",         /* trailing junk */
		"cudatrace-uw-asks 1\nlazy 1\n10",            /* no line end */
		"cudatrace-uw-asks 1\nlazy 1x\n10\n",         /* a count with junk */
		"cudatrace-uw-asks 1\nlazy -1\n",             /* a negative count */
		"cudatrace-uw-asks 1\nlazy 65537\n",          /* over CT_UW_ASKS_MAX */
		"cudatrace-uw-asks 1\nlazy 1\n10000000000000000\n", /* over 64 bits */
	};
	struct ct_uw_asks a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int err = load_text("bad", bad[i], &a);

		ok(err == -EINVAL && !a.addrs && !a.n, "refused (-EINVAL, nothing kept): case %zu",
		   i);
	}
	ok(load_text("zero", "cudatrace-uw-asks 1\nlazy 0\n", &a) == 0 && !a.whole && !a.n,
	   "lazy 0 read as no FDE");
	ct_uw_asks_free(&a);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		return 1;
	round_trip();
	refused();
	ok(ct_uw_asks_save("/proc/no/such", "x", &(struct ct_uw_asks){ .whole = true }) < 0,
	   "a folder that cannot be made: an error, nothing else");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
