/* SPDX-License-Identifier: MIT */
/*
 * The layout-driven field printer: every field of a struct whose layout
 * (decoders/layouts/layouts.h) is known, by name and kind, through emit.c, so one
 * walk serves text and JSON.
 */
#ifndef CT_FIELDS_H
#define CT_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "emit.h"
#include "layouts.h"
#include "objects.h"

struct ct_field_printer {
	struct emit *em;
	struct ct_objects *objs;   /* names handles */
	int verbose;               /* 2: hex dumps of byte arrays in text */
};

/* What a field may need to be named. */
struct ct_field_ctx {
	uint32_t esc_nr;   /* the 'F' escape the struct belongs to, 0 if none */
	uint32_t client;   /* the struct's first handle: hClient / hRoot */
	/* Names the call's description looked up already (describe.c), used
	 * for a field that holds the same value rather than looked up again:
	 * its RM control command, its NV_STATUS. */
	bool has_ctrl, has_status;
	uint32_t ctrl, status;
	const char *ctrl_name, *status_name;
	/* The driver wrote nothing back (the call failed before it, or has not
	 * returned): NV_STATUS fields hold only what the program put there,
	 * and are left out. */
	bool not_written;
};

/* The struct in buf (len bytes, may be shorter than the layout: the fields
 * that fit are printed) as key={...} or a JSON object. */
void ct_print_struct(const struct ct_field_printer *p, const char *key,
		     const struct ct_layout *l, const unsigned char *buf, uint32_t len,
		     const struct ct_field_ctx *outer);
/* A GPU UUID as NVIDIA prints it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx. */
void ct_print_uuid(struct emit *e, const char *key, const unsigned char *u);

/* Little-endian integer of size bytes (at most 8 are read). */
uint64_t ct_field_u(const unsigned char *p, uint32_t size);
/* The first handle of an RM struct is its client (hClient, hRoot); 0 if none. */
uint32_t ct_first_handle(const struct ct_layout *l, const unsigned char *buf, uint32_t len);
/* How many u32 entries of an n-entry array are in use: up to the last
 * non-zero one (handle and GPU id arrays leave the rest 0). */
uint32_t ct_u32s_used(const unsigned char *p, uint32_t n);

#endif
