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

#include <stdbool.h>
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
	CT_FK_ADDR,     /* NvU64 holding an address (by its name: docs/LAYOUTS.md) */
	CT_FK_SIZE,     /* NvU64 size or length of address space (by its name) */
	CT_FK_COUNT,    /* how many entries (or bytes) an array beside it holds */
};

struct ct_field {
	const char *name;       /* "hClient"; members of nested structs as "params.hClient",
				 * array elements as "hUserdMemory[0]", "displays[1].frame" */
	uint32_t offset;
	uint32_t size;
	uint8_t kind;           /* enum ct_field_kind */
	/* An array (or one element of a flattened one) whose use a count field
	 * says: that field's index in the layout, -1 if none.  index: the
	 * element's index ("pciBarInfo[3].x": 3), -1 for a whole array, whose
	 * count is then of bytes (data, length), or of entries (handles). */
	int16_t count;
	int16_t index;
	/* A whole array whose entries are known (array_elems.tsv): its entry
	 * layout, ct_layout_elem(f); 0 if none. */
	uint16_t elem;
};

/* One entry of an array: size bytes, its members at offsets from the
 * entry's start, in offset order, all inside size.  An entry that is one
 * scalar (NvU32 classList[200]) has one member named "" of the entry's size. */
struct ct_elem {
	uint32_t size;
	const struct ct_field *fields;
	uint32_t nfields;
};

/* The entry layout of array f, NULL if its entries are not known. */
const struct ct_elem *ct_layout_elem(const struct ct_field *f);

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

/*
 * The one lookup: the layout of request req (escape nr, UVM request,
 * control command or class, by family) at exactly size bytes, for a trace
 * from driver drv (ct_driver_version(); 0 = unknown, the newest).  Where
 * one size had several layouts over the driver releases (NVOS21 before and
 * after 535, NVOS64 at 515 and 525), the one in use at drv; NULL if drv
 * predates them all, or if no layout of that size is known: fall back to
 * a hex dump rather than misread.
 *
 * For CT_LAYOUT_ALLOC the RM copies in as many alloc params bytes as its
 * class table says (rmapiGetClassAllocParamSize()), and CUDA leaves
 * NVOS64.paramsSize 0: pass the sizeof of the class's struct at that
 * driver (shared/nvabi alloc_classes.tsv), not paramsSize.
 */
const struct ct_layout *ct_layout_find(enum ct_layout_family fam, uint32_t req,
				       uint32_t size, uint32_t drv);

/* Every size of req known in fam, each with the layout ct_layout_find()
 * gives for it at drv, smallest size first; up to max into out.  Returns
 * how many there are (may exceed max).  For whoever must know the layouts
 * before seeing a size: the capture filling the BPF program's offsets,
 * tests building structs. */
size_t ct_layout_sizes(enum ct_layout_family fam, uint32_t req, uint32_t drv,
		       const struct ct_layout **out, size_t max);

/* The field called name ("status", "params.hMemory", "objects"), else the
 * first member whose last component is name ("hRoot" finds "params.hRoot"
 * of a wrapper struct); NULL if l is NULL or has none. */
const struct ct_field *ct_layout_field(const struct ct_layout *l, const char *name);

/*
 * Checked reads by field name from buf (len bytes, the struct as copied
 * from the traced process; len may be short).  False, with *out left
 * alone, if l is NULL, the field is unknown, does not fit in len, or is
 * wider than out.  Integers are read in host order, zero-extended.
 */
bool ct_read_u32(const struct ct_layout *l, const void *buf, uint32_t len,
		 const char *field, uint32_t *out);
bool ct_read_u64(const struct ct_layout *l, const void *buf, uint32_t len,
		 const char *field, uint64_t *out);
/* Element i of an array of 4-byte values (NvHandle objects[512]). */
bool ct_read_u32_elem(const struct ct_layout *l, const void *buf, uint32_t len,
		      const char *field, uint32_t i, uint32_t *out);
/* The other way, for tests that build a driver's structs: false if the
 * field is unknown, does not fit in len, or v does not fit in the field. */
bool ct_write_u64(const struct ct_layout *l, void *buf, uint32_t len,
		  const char *field, uint64_t v);

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
