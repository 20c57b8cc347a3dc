// SPDX-License-Identifier: MIT
/* UTF-8 as RFC 3629 defines it (utf8.h). */
#include "utf8.h"

static int is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t ct_utf8_char_len(const char *s, size_t avail)
{
	const unsigned char *p = (const unsigned char *)s;
	/* The second byte's range depends on the first (RFC 3629, section 4):
	 * it is what rules out overlong forms, surrogates and > U+10FFFF. */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (!avail)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;   /* 0x80-0xc1: continuation or overlong; 0xf5-0xff: never */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n > avail || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (!is_cont(p[i]))
			return 0;
	return n;
}
