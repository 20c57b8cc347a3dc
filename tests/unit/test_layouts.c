/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the generated struct layouts (decoders/layouts.h).  The
 * expected values were read from shared/nvabi (struct_layouts.tsv,
 * uvm_layouts_580.142.txt, versions/<tag>/struct_layouts.tsv), not from the
 * generated files.  TAP output; exit status 1 if any check fails.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layouts.h"

static int n_test, n_fail;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	n_test++;
	if (!cond)
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const struct ct_field *field(const struct ct_layout *l, const char *name)
{
	if (!l)
		return NULL;
	for (uint32_t i = 0; i < l->nfields; i++)
		if (strcmp(l->fields[i].name, name) == 0)
			return &l->fields[i];
	return NULL;
}

/* One check per field: present, at that offset, of that size and kind. */
static void expect(const struct ct_layout *l, const char *lname, const char *name,
		   uint32_t off, uint32_t size, enum ct_field_kind kind)
{
	const struct ct_field *f = field(l, name);

	ok(f && f->offset == off && f->size == size && f->kind == kind,
	   "%s.%s at %u, %u bytes, kind %d (got %s%u, %u, %d)", lname, name, off, size, (int)kind,
	   f ? "" : "no field ", f ? f->offset : 0, f ? f->size : 0, f ? f->kind : -1);
}

static void test_escapes(void)
{
	const struct ct_layout *l = ct_layout_escape(0x2a, 32);

	ok(l && strcmp(l->name, "NVOS54_PARAMETERS") == 0 && l->size == 32,
	   "NV_ESC_RM_CONTROL 0x2a/32 is NVOS54_PARAMETERS");
	expect(l, "NVOS54", "hClient", 0, 4, CT_FK_HANDLE);
	expect(l, "NVOS54", "hObject", 4, 4, CT_FK_HANDLE);
	expect(l, "NVOS54", "cmd", 8, 4, CT_FK_U);
	expect(l, "NVOS54", "flags", 12, 4, CT_FK_U);
	expect(l, "NVOS54", "params", 16, 8, CT_FK_PTR);
	expect(l, "NVOS54", "paramsSize", 24, 4, CT_FK_U);
	expect(l, "NVOS54", "status", 28, 4, CT_FK_STATUS);
	ok(l && l->nfields == 7, "NVOS54 has 7 fields");

	l = ct_layout_escape(0x2b, 48);
	ok(l && strcmp(l->name, "NVOS64_PARAMETERS") == 0, "NV_ESC_RM_ALLOC 0x2b/48 is NVOS64_PARAMETERS");
	expect(l, "NVOS64", "hClass", 12, 4, CT_FK_CLASS);
	expect(l, "NVOS64", "pAllocParms", 16, 8, CT_FK_PTR);
	expect(l, "NVOS64", "paramsSize", 32, 4, CT_FK_U);
	expect(l, "NVOS64", "status", 40, 4, CT_FK_STATUS);

	l = ct_layout_escape(0x2b, 32);
	ok(l && strcmp(l->name, "NVOS21_PARAMETERS") == 0, "NV_ESC_RM_ALLOC 0x2b/32 is NVOS21_PARAMETERS");
	expect(l, "NVOS21", "paramsSize", 24, 4, CT_FK_U);
	expect(l, "NVOS21", "status", 28, 4, CT_FK_STATUS);

	ok(ct_layout_escape(0x2a, 33) == NULL, "NV_ESC_RM_CONTROL of unknown size 33 -> NULL");
	ok(ct_layout_escape(0x2b, 0) == NULL, "NV_ESC_RM_ALLOC of size 0 -> NULL");
	ok(ct_layout_escape(0x32, 32) == NULL, "NV_ESC_RM_CONFIG_GET (no struct) -> NULL");
	ok(ct_layout_escape(0xff, 32) == NULL, "unknown escape nr -> NULL");

	/* Older sizes, from versions/<tag>/ (version_diffs.txt). */
	l = ct_layout_escape(0x57, 56);
	ok(l && strcmp(l->name, "NVOS46_PARAMETERS") == 0 && !field(l, "flags2"),
	   "NVOS46 before 580 (56 bytes) has no flags2");
	expect(l, "NVOS46/56", "dmaOffset", 40, 8, CT_FK_U);
	expect(l, "NVOS46/56", "status", 48, 4, CT_FK_STATUS);
	l = ct_layout_escape(0x57, 64);
	expect(l, "NVOS46/64", "kindOverride", 40, 4, CT_FK_U);
	expect(l, "NVOS46/64", "status", 56, 4, CT_FK_STATUS);
	l = ct_layout_escape(0x58, 40);
	ok(l && !field(l, "size"), "NVOS47 before 550 (40 bytes) has no size field");
	expect(l, "NVOS47/40", "status", 32, 4, CT_FK_STATUS);
	l = ct_layout_escape(0x58, 48);
	expect(l, "NVOS47/48", "size", 32, 8, CT_FK_U);
	expect(l, "NVOS47/48", "status", 40, 4, CT_FK_STATUS);

	/* Same size, different layout: the driver version decides. */
	l = ct_layout_escape_drv(0x2b, 32, ct_driver_version("525.60.11"));
	ok(l && !field(l, "paramsSize"), "NVOS21 at 525.60.11: no paramsSize");
	expect(l, "NVOS21@525", "status", 24, 4, CT_FK_STATUS);
	l = ct_layout_escape_drv(0x2b, 32, ct_driver_version("580.159.04"));
	expect(l, "NVOS21@580.159.04", "status", 28, 4, CT_FK_STATUS);
	l = ct_layout_escape_drv(0x2b, 40, ct_driver_version("515.43.04"));
	expect(l, "NVOS64/40@515", "status", 32, 4, CT_FK_STATUS);
	l = ct_layout_escape_drv(0x2b, 40, ct_driver_version("525.60.11"));
	expect(l, "NVOS64/40@525", "flags", 32, 4, CT_FK_U);
	expect(l, "NVOS64/40@525", "status", 36, 4, CT_FK_STATUS);
	ok(ct_layout_escape_drv(0x2b, 32, ct_driver_version("470.57.02")) == NULL,
	   "NVOS21 at 470 (before every known layout of that size) -> NULL");
	ok(ct_layout_escape_drv(0x2a, 32, ct_driver_version("470.57.02")) == ct_layout_escape(0x2a, 32),
	   "a single layout at a size applies whatever the driver");
	ok(ct_layout_escape_drv(0x2b, 32, 0) == ct_layout_escape(0x2b, 32), "driver 0 (unknown) -> newest");

	/* Nested structs are flattened. */
	l = ct_layout_escape(0x4e, 56);
	expect(l, "nvos33_with_fd", "params.hMemory", 8, 4, CT_FK_HANDLE);
	expect(l, "nvos33_with_fd", "params.pLinearAddress", 32, 8, CT_FK_PTR);
	expect(l, "nvos33_with_fd", "fd", 48, 4, CT_FK_FD);
	l = ct_layout_escape(0x35, 24);
	expect(l, "NVOS57", "sharePolicy.accessMask", 12, 4, CT_FK_U);
	expect(l, "NVOS57", "status", 20, 4, CT_FK_STATUS);

	l = ct_layout_by_name("NVOS54_PARAMETERS", 32);
	ok(l && l == ct_layout_escape(0x2a, 32), "ct_layout_by_name(NVOS54_PARAMETERS, 32)");
	ok(ct_layout_by_name("NVOS54_PARAMETERS", 40) == NULL, "ct_layout_by_name with a wrong size -> NULL");
	ok(ct_layout_by_name("NO_SUCH_PARAMS", 32) == NULL, "ct_layout_by_name unknown -> NULL");
	ok(ct_layout_by_name(NULL, 32) == NULL, "ct_layout_by_name(NULL) -> NULL");
	l = ct_layout_by_name("NVOS21_PARAMETERS", 32);
	ok(l && field(l, "paramsSize"), "ct_layout_by_name(NVOS21_PARAMETERS, 32) is the newest");
}

static void test_uvm(void)
{
	const struct ct_layout *l = ct_layout_uvm(0x25, 40);

	ok(l && strcmp(l->name, "UVM_REGISTER_GPU_PARAMS") == 0, "UVM_REGISTER_GPU 0x25/40");
	expect(l, "UVM_REGISTER_GPU", "gpu_uuid", 0, 16, CT_FK_UUID);
	expect(l, "UVM_REGISTER_GPU", "numaEnabled", 16, 1, CT_FK_BOOL);
	expect(l, "UVM_REGISTER_GPU", "numaNodeId", 20, 4, CT_FK_S);
	expect(l, "UVM_REGISTER_GPU", "rmCtrlFd", 24, 4, CT_FK_FD);
	expect(l, "UVM_REGISTER_GPU", "hClient", 28, 4, CT_FK_HANDLE);
	expect(l, "UVM_REGISTER_GPU", "rmStatus", 36, 4, CT_FK_STATUS);

	l = ct_layout_uvm(0x30000001, 16);
	ok(l && strcmp(l->name, "UVM_INITIALIZE_PARAMS") == 0, "UVM_INITIALIZE 0x30000001/16");
	expect(l, "UVM_INITIALIZE", "flags", 0, 8, CT_FK_U);
	expect(l, "UVM_INITIALIZE", "rmStatus", 8, 4, CT_FK_STATUS);

	l = ct_layout_uvm(0x21, 9264);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION", "perGpuAttributes", 24, 9216, CT_FK_BYTES);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION", "hMemory", 9256, 4, CT_FK_HANDLE);
	ok(ct_layout_uvm(0x21, 1200) == NULL, "UVM_MAP_EXTERNAL_ALLOCATION of the pre-550.163 size -> NULL");
	ok(ct_layout_uvm(0x25, 41) == NULL, "UVM_REGISTER_GPU of unknown size -> NULL");
	ok(ct_layout_uvm(0x2a, 32) == NULL, "UVM 0x2a/32 is not the escape 0x2a/32");
	ok(ct_layout_escape(0x25, 40) == NULL, "escape 0x25/40 is not the UVM 0x25/40");
}

static void test_driver_version(void)
{
	ok(ct_driver_version("580.142") == 580142000u, "ct_driver_version(580.142)");
	ok(ct_driver_version("580.159.04") == 580159004u, "ct_driver_version(580.159.04)");
	ok(ct_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
			     "Release Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Oct 30 05:45:20 UTC 2025")
	   == 580159004u, "ct_driver_version of a /proc/driver/nvidia/version line");
	ok(ct_driver_version("") == 0 && ct_driver_version(NULL) == 0, "ct_driver_version of nothing -> 0");
	ok(ct_driver_version("x86_64 1. .5 1.2.3.4 1..2 v580.1") == 0, "ct_driver_version ignores non-versions");
	ok(ct_driver_version("99999999999.1") == 0, "ct_driver_version rejects an overflowing major");
}

/* Invariants of every layout: the generator checks them, this checks the generator. */
static void test_all(void)
{
	size_t n = ct_layout_count(), nesc = 0, nuvm = 0, nfields = 0;
	int sorted = 1, fields_ok = 1, kinds_ok = 1, lookup_ok = 1;

	ok(n > 0 && ct_layout_at(n) == NULL, "ct_layout_count() = %zu, ct_layout_at(count) is NULL", n);
	for (size_t i = 0; i < n; i++) {
		const struct ct_layout *l = ct_layout_at(i), *p = i ? ct_layout_at(i - 1) : NULL;
		uint32_t end = 0;

		if (l->family == CT_LAYOUT_ESCAPE)
			nesc++;
		else
			nuvm++;
		nfields += l->nfields;
		if (p && (p->family > l->family || (p->family == l->family &&
		    (p->req > l->req || (p->req == l->req && (p->size > l->size ||
		    (p->size == l->size && p->until >= l->since)))))))
			sorted = 0;
		if (l->nfields == 0 || l->size == 0 || l->since > l->until)
			fields_ok = 0;
		for (uint32_t j = 0; j < l->nfields; j++) {
			const struct ct_field *f = &l->fields[j];

			if (f->size == 0 || f->offset < end || f->offset + f->size > l->size || !f->name[0]) {
				fields_ok = 0;
				printf("# %s/%u: field %s at %u+%u\n", l->name, l->size, f->name, f->offset, f->size);
			}
			end = f->offset + f->size;
			switch (f->kind) {
			case CT_FK_U: case CT_FK_S:
				kinds_ok &= f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
				break;
			case CT_FK_HANDLE: case CT_FK_STATUS: case CT_FK_FD: case CT_FK_CLASS:
				kinds_ok &= f->size == 4;
				break;
			case CT_FK_PTR:
				kinds_ok &= f->size == 8;
				break;
			case CT_FK_BOOL:
				kinds_ok &= f->size == 1;
				break;
			case CT_FK_UUID:
				kinds_ok &= f->size == 16;
				break;
			case CT_FK_BYTES:
				break;
			default:
				kinds_ok = 0;
			}
		}
		/* Every layout is reachable through the lookup, with its own driver range. */
		if ((l->family == CT_LAYOUT_ESCAPE ? ct_layout_escape_drv(l->req, l->size, l->since)
		     : ct_layout_uvm_drv(l->req, l->size, l->since)) != l ||
		    (l->family == CT_LAYOUT_ESCAPE ? ct_layout_escape_drv(l->req, l->size, l->until)
		     : ct_layout_uvm_drv(l->req, l->size, l->until)) != l)
			lookup_ok = 0;
	}
	ok(sorted, "layouts sorted by (family, req, size), driver ranges disjoint");
	ok(fields_ok, "every layout's fields are in offset order, do not overlap, and lie inside its size");
	ok(kinds_ok, "every field's size suits its kind");
	ok(lookup_ok, "every layout is found by its request, size and driver range");
	printf("# %zu escape layouts, %zu UVM layouts, %zu fields, tag %s\n", nesc, nuvm, nfields, ct_layouts_tag);
}

int main(void)
{
	test_escapes();
	test_uvm();
	test_driver_version();
	test_all();
	printf("1..%d\n", n_test);
	if (n_fail)
		printf("# %d of %d failed\n", n_fail, n_test);
	return n_fail ? 1 : 0;
}
