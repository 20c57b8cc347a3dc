// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "errtext.h"

const char *ct_errtext(struct ct_errtext *t, int err)
{
	if (err < 0 || err >= CT_ERRTEXT_MAX)
		return strerror(err);
	if (!t->msg[err])
		t->msg[err] = strdup(strerror(err));
	return t->msg[err] ? t->msg[err] : strerror(err);
}

void ct_errtext_free(struct ct_errtext *t)
{
	for (int i = 0; i < CT_ERRTEXT_MAX; i++) {
		free(t->msg[i]);
		t->msg[i] = NULL;
	}
}
