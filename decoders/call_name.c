// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "call_name.h"
#include "labels.h"

const char *ct_call_specific_name(const struct ct_call *c, char *buf, size_t n)
{
	if (c->kind != CT_CALL_IOCTL)
		return c->name;
	if (c->has_ctrl)
		return ct_ctrl_label(c->ctrl, c->ctrl_name, buf, n);
	if (c->has_class && c->class_name)
		return c->class_name;
	if (c->has_class) {
		snprintf(buf, n, "0x%x", c->hclass);
		return buf;
	}
	return ct_request_label(c->request, c->name, buf, n);
}
