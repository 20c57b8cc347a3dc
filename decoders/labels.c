// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "labels.h"
#include "nvtables.h"

const char *ct_request_name(uint32_t cmd)
{
	const struct nv_esc_info *e;
	const struct uvm_ioctl_info *u;

	if (IOC_TYPE(cmd) == NV_IOCTL_MAGIC) {
		e = nv_esc_lookup(IOC_NR(cmd));
		return e ? e->name : NULL;
	}
	u = uvm_ioctl_lookup(cmd);
	return u ? u->name : NULL;
}

const char *ct_request_label(uint32_t request, const char *name, char *buf, size_t n)
{
	if (name)
		return name;
	if (IOC_DIR(request) || IOC_TYPE(request))
		snprintf(buf, n, "_IOC(%u, 0x%x, 0x%x, 0x%x)", IOC_DIR(request),
			 IOC_TYPE(request), IOC_NR(request), IOC_SIZE(request));
	else
		snprintf(buf, n, "0x%x", request);
	return buf;
}

const char *ct_ctrl_label(uint32_t cmd, const char *name, char *buf, size_t n)
{
	if (name)
		return name;
	/* Bit 15 of the low half: a GSS legacy command, passed through to GSP. */
	snprintf(buf, n, "0x%08x (no public name%s)", cmd,
		 (cmd & 0x8000) ? ", GSS legacy" : "");
	return buf;
}

bool ct_call_is_uvm(const struct ct_call *c)
{
	return c->kind == CT_CALL_IOCTL && IOC_TYPE(c->request) != NV_IOCTL_MAGIC &&
	       (c->name || (c->path && strstr(c->path, "nvidia-uvm")));
}
