/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work's facts: method numbers of the host, compute and copy classes,
 * bit fields (GPFIFO entries, method headers, USERD, QMD layouts) and their
 * values, from NVIDIA's class headers (decoders/gputables/ tables, made by
 * decoders/gputables/import.sh; provenance in their #From lines).  A scope is a class
 * as 4 hex digits ("c86f"), "dma" (the method header), "userd", or a QMD
 * layout "qmd:CLASS:VERSION" ("qmd:cbc0:04_00").
 */
#ifndef CT_GWTABLES_H
#define CT_GWTABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw_method { uint32_t cls, method; const char *name; };
struct gw_field  { const char *scope, *name; uint32_t hi, lo; };
struct gw_value  { const char *scope, *name; uint32_t value; };

extern const struct gw_method gw_methods[];
extern const struct gw_field gw_fields[];
extern const struct gw_value gw_values[];
extern const unsigned gw_nmethods, gw_nfields, gw_nvalues;

/* The method's name in class cls ("LAUNCH_DMA"), NULL if unknown. */
const char *gw_method_name(uint32_t cls, uint32_t method);
/* Method number of name in cls; false if cls has none. */
bool gw_method_find(uint32_t cls, const char *name, uint32_t *method);
/* True if the tables know class cls's methods. */
bool gw_class_known(uint32_t cls);
const struct gw_field *gw_field_find(const char *scope, const char *name);
bool gw_value_find(const char *scope, const char *name, uint32_t *value);
/* The name of value v of field (scope, "FIELD_"), without that prefix;
 * NULL if none. */
const char *gw_value_name(const char *scope, const char *field, uint32_t v);
/* "c86f" for 0xc86f. */
void gw_scope_of(uint32_t cls, char buf[8]);

/* Field f of one dword (f->hi < 32). */
uint32_t gw_get(uint32_t word, const struct gw_field *f);
/* Field f of an array of n dwords, as NVIDIA's MW(hi:lo) numbers bits
 * across them (at most 64 bits); false if f is NULL or past n. */
bool gw_get_mw(const uint32_t *dw, size_t n, const struct gw_field *f, uint64_t *out);

#endif
