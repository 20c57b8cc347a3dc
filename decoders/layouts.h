/* SPDX-License-Identifier: MIT */
/*
 * Field layouts of the NVIDIA driver's ioctl parameter structs, so that a
 * decoder can print every field by name.  The data lives in
 * decoders/layouts/{escape,uvm,ctrl,alloc}_fields.tsv (from NVIDIA's open
 * headers, provenance in each file's '#From' lines); gen-layouts.awk turns
 * them into sorted C arrays at build time.  See docs/LAYOUTS.md.
 *
 * A layout is matched on the request AND the size the caller passed, as
 * envytools demmt does: NVIDIA changes struct sizes between driver
 * releases, and a size with no known layout must fall back to a hex dump
 * rather than be misread.
 */
#ifndef CT_LAYOUTS_H
#define CT_LAYOUTS_H

#include <stddef.h>
#include <stdint.h>

enum ct_field_kind {
	CT_FK_U,        /* unsigned integer, 1/2/4/8 bytes */
	CT_FK_S,        /* signed integer, 1/2/4/8 bytes */
	CT_FK_HANDLE,   /* NvHandle, 4 bytes */
	CT_FK_STATUS,   /* NV_STATUS, 4 bytes */
	CT_FK_PTR,      /* NvP64 user pointer, 8 bytes */
	CT_FK_BOOL,     /* NvBool, 1 byte */
	CT_FK_UUID,     /* NvProcessorUuid, 16 bytes */
	CT_FK_FD,       /* file descriptor, 4 bytes */
	CT_FK_CLASS,    /* RM class id (hClass), 4 bytes */
	CT_FK_BYTES,    /* arrays, unions, anything else: hex dump */
	CT_FK_HANDLES,  /* NvHandle array, a multiple of 4 bytes */
};

struct ct_field {
	const char *name;       /* "hClient"; members of nested structs as "params.hClient",
				 * array elements as "hUserdMemory[0]", "displays[1].frame" */
	uint32_t offset;
	uint32_t size;
	uint8_t kind;           /* enum ct_field_kind */
};

enum ct_layout_family {
	CT_LAYOUT_ESCAPE,       /* NV_ESC_* params, req = escape nr */
	CT_LAYOUT_UVM,          /* /dev/nvidia-uvm params, req = UVM request */
	CT_LAYOUT_CTRL,         /* NV_ESC_RM_CONTROL params, req = NVOS54.cmd */
	CT_LAYOUT_ALLOC,        /* NV_ESC_RM_ALLOC params, req = NVOS21/64.hClass */
};

struct ct_layout {
	const char *name;       /* "NVOS54_PARAMETERS" */
	uint32_t size;          /* sizeof, which is also the matching key */
	const struct ct_field *fields;  /* in offset order, no overlaps, all inside size */
	uint32_t nfields;
	uint8_t family;         /* enum ct_layout_family */
	uint32_t req;           /* escape nr (_IOC_NR), UVM request number, control
				 * command (NVOS54.cmd) or class (hClass) */
	/* First and last driver (ct_driver_version()) seen with this exact
	 * layout, among the tags imported; used only to choose between
	 * layouts of one request that share a size. */
	uint32_t since, until;
};

/* NULL if no layout of exactly that size is known for the request.  Where
 * the layout at that size changed between driver releases (NVOS21 before
 * and after 535), this is the newest one; use the _drv forms when the
 * trace says which driver produced it. */
const struct ct_layout *ct_layout_escape(uint32_t nr, uint32_t size);
const struct ct_layout *ct_layout_uvm(uint32_t cmd, uint32_t size);
const struct ct_layout *ct_layout_by_name(const char *name, uint32_t size);

/* As above, for a trace from driver version drv (ct_driver_version()).
 * If several layouts share the size, the one in use at drv, NULL if drv
 * predates them all; drv == 0 means unknown and gives the newest. */
const struct ct_layout *ct_layout_escape_drv(uint32_t nr, uint32_t size, uint32_t drv);
const struct ct_layout *ct_layout_uvm_drv(uint32_t cmd, uint32_t size, uint32_t drv);

/* The params struct of an RM control command (NVOS54_PARAMETERS.cmd, at
 * NVOS54.params, paramsSize bytes) and the allocation params of an RM class
 * (NVOS21/NVOS64 hClass, at pAllocParms).  Matched on the command or class
 * AND the size, chosen by driver as the _drv forms above (drv 0 = newest).
 * The RM copies in as many alloc params bytes as its class table says
 * (rmapiGetClassAllocParamSize()), and CUDA leaves NVOS64.paramsSize 0: pass
 * the sizeof of the class's struct at that driver (shared/nvabi
 * alloc_classes.tsv), not paramsSize. */
const struct ct_layout *ct_layout_ctrl(uint32_t cmd, uint32_t size, uint32_t drv);
const struct ct_layout *ct_layout_alloc(uint32_t hclass, uint32_t size, uint32_t drv);

/* "580.159.04" -> 580159004 (major * 1000000 + minor * 1000 + patch).
 * Takes a bare version or a whole /proc/driver/nvidia/version line (the
 * first blank-separated token of the form N.N or N.N.N); 0 if none. */
uint32_t ct_driver_version(const char *s);

/* Iteration over every layout, sorted by (family, req, size, since):
 * escapes first, then UVM, control, alloc; for tests and tools. */
size_t ct_layout_count(void);
const struct ct_layout *ct_layout_at(size_t i);

/* Driver tag the layout files were imported at, e.g. "580.142". */
extern const char ct_layouts_tag[];

#endif /* CT_LAYOUTS_H */
