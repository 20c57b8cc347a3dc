/* SPDX-License-Identifier: MIT */
/* UTF-8 checks for text that leaves cudatrace in formats that require it. */
#ifndef CT_UTF8_H
#define CT_UTF8_H

#include <stddef.h>

/* U+FFFD, what an invalid byte becomes. */
#define CT_UTF8_REPLACEMENT "\xef\xbf\xbd"

/* The length (1 to 4) of the valid UTF-8 character that s (avail bytes)
 * starts with, or 0 when its first byte starts none: a stray continuation
 * byte, a sequence cut short, an overlong form, a surrogate or a code
 * point above U+10FFFF (RFC 3629). */
size_t ct_utf8_char_len(const char *s, size_t avail);

#endif
