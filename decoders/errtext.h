/* SPDX-License-Identifier: MIT */
/*
 * The strerror() text of the errno values that calls failed with, each
 * looked up once: glibc's strerror goes through gettext every time, a few
 * hundred instructions on every failed call's line.
 */
#ifndef CT_ERRTEXT_H
#define CT_ERRTEXT_H

#define CT_ERRTEXT_MAX 256   /* errno values above are looked up every time */

struct ct_errtext {
	char *msg[CT_ERRTEXT_MAX];   /* malloc'd copies, NULL until first asked */
};

/* strerror(err): valid until ct_errtext_free(), or for an err that is not
 * kept, until the next strerror(). */
const char *ct_errtext(struct ct_errtext *t, int err);
void ct_errtext_free(struct ct_errtext *t);

#endif
