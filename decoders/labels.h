/* SPDX-License-Identifier: MIT */
/*
 * Names of requests and RM control commands, one place for the printer,
 * the summary, the filters and the Perfetto view.
 */
#ifndef CT_LABELS_H
#define CT_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "call.h"

/* Name of an ioctl request: NV_ESC_*, UVM_*, or NULL. */
const char *ct_request_name(uint32_t cmd);
/* An ioctl request: its NV_ESC_/UVM_ name, else the form the decoder prints
 * ("_IOC(3, 0x46, 0x99, 0x10)" or "0x1234"). */
const char *ct_request_label(uint32_t request, const char *name, char *buf, size_t n);
/* An RM control command without a public name:
 * "0x20809064 (no public name, GSS legacy)" or "0x20810108 (no public name)". */
const char *ct_ctrl_label(uint32_t cmd, const char *name, char *buf, size_t n);
/* A UVM request: not an 'F' escape, and either named or made on nvidia-uvm. */
bool ct_call_is_uvm(const struct ct_call *c);

#endif
