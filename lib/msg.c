// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

/* The prefix joins the format, so that one vfprintf writes the message:
 * stderr is unbuffered, and a message in one write() is not cut in two by
 * what the traced command prints meanwhile.  A format too long for the
 * buffer (none is) goes out in two writes, the same bytes. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char joined[512];
	size_t np = strlen(prefix), nf = strlen(fmt);

	if (np + nf < sizeof(joined)) {
		memcpy(joined, prefix, np);
		memcpy(joined + np, fmt, nf + 1);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		vfprintf(stderr, joined, ap);
#pragma GCC diagnostic pop
		return;
	}
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
}

void ct_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("cudatrace: ", fmt, ap);
	va_end(ap);
}

void ct_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("cudatrace: warning: ", fmt, ap);
	va_end(ap);
}
