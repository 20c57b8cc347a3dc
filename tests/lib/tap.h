/* SPDX-License-Identifier: MIT */
/*
 * TAP for the C unit tests (tests/run.sh counts the lines):
 *   ok(cond, "what %d", x);      "ok N - what" or "not ok N - what"
 *   ok_str(got, want, "what");   ok(), and on failure both strings as # lines
 *   return tap_done();           "1..N", exit status 1 if any failed
 * Header-only: each test is one program.
 */
#ifndef CT_TAP_H
#define CT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);   /* a test that then crashes still shows how far it got */
	return cond;
}

__attribute__((unused))
static bool ok_str(const char *got, const char *want, const char *what)
{
	bool same = got && want && strcmp(got, want) == 0;

	ok(same, "%s", what);
	if (!same)
		printf("#   got:  %s\n#   want: %s\n", got ? got : "(null)", want ? want : "(null)");
	return same;
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif
