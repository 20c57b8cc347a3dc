/* SPDX-License-Identifier: MIT */
/*
 * Reading one field of a captured driver struct by its name, through the
 * layout tables (layouts.h), so that no view hard-codes an offset: the
 * layout of the driver version the trace came from says where it is.
 */
#ifndef CT_FIELD_GET_H
#define CT_FIELD_GET_H

#include <stdbool.h>
#include <stdint.h>
#include "call.h"
#include "layouts.h"

/* The field called name, or whose last component is name ("hRoot" finds
 * "params.hRoot" of a wrapper struct); NULL if the layout has none. */
const struct ct_field *ct_field_named(const struct ct_layout *l, const char *name);

/* The unsigned value (1 to 8 bytes, little-endian) of field name in buf
 * (len bytes captured); false if there is no such field or it lies
 * beyond what was captured. */
bool ct_field_u64(const struct ct_layout *l, const unsigned char *buf, uint32_t len,
		  const char *name, uint64_t *out);

/* The layouts of a finished ioctl call: its argument (escape or UVM
 * request at the size captured), and the nested buffer of an RM_ALLOC
 * (the class's allocation params) or RM_CONTROL (the command's params).
 * drv: ct_driver_version() of the trace's header, 0 if unknown. */
const struct ct_layout *ct_call_arg_layout(const struct ct_call *c, uint32_t drv);
const struct ct_layout *ct_call_nested_layout(const struct ct_call *c, uint32_t drv);

#endif
