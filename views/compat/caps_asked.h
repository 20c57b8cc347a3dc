/* SPDX-License-Identifier: MIT */
/* The capabilities the traced container asks for, and whether runsc with
 * its default allowed set would start it (caps_asked.c). */
#ifndef CT_COMPAT_CAPS_ASKED_H
#define CT_COMPAT_CAPS_ASKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudatrace.h"
#include "gvisor_abi.h"

enum ct_asked {
	CT_ASKED_OK,        /* runsc starts it */
	CT_ASKED_REFUSED,   /* it asks for capabilities runsc does not allow */
	CT_ASKED_UNKNOWN,   /* it names a capability this gVisor does not know */
	CT_ASKED_UNJUDGED,  /* this gVisor has no capability flag */
};

/* The value of variable name in process record p's environment (checked
 * by ct_record_check) into buf; false if it has none. */
bool ct_caps_asked_env(const struct ct_proc *p, const char *name, char *buf, size_t n);
/* How runsc, allowing its default (s->caps_flag_default), takes a container
 * that asks for asked: *refused the capabilities it does not allow, *bad
 * the name it does not know. */
enum ct_asked ct_caps_asked_judge(const struct ct_gv_snapshot *s, const char *asked,
				  uint16_t *refused, const char **bad);

#endif
