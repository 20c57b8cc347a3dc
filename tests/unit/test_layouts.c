/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the generated struct layouts (decoders/layouts/layouts.h).  The
 * expected values were read from shared/nvabi (struct_layouts.tsv,
 * uvm_layouts_580.142.txt, versions/<tag>/struct_layouts.tsv, and the
 * sizeof columns of ctrl_cmds.tsv, alloc_classes.tsv and uvm_ioctls.tsv) and,
 * for the fields of the RM control and alloc params structs and of the UVM
 * params structs at other tags than 580.142, from the output of the offsetof
 * probes compiled against the headers (docs/LAYOUTS.md), not from the
 * generated files.  Where shared/nvabi is at hand ($CT_NVABI,
 * ../shared/nvabi or shared/nvabi), every control, alloc and UVM layout is
 * also checked against its sizeof columns at every tag.  TAP output; exit
 * status 1 if any check fails.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include "tap.h"
#include "layouts.h"


/* A scan by struct name: newest wins; where several classes share a
 * struct (NV_MEMORY_ALLOCATION_PARAMS), the first. */
static const struct ct_layout *ct_layout_by_name(const char *name, uint32_t size)
{
	const struct ct_layout *pick = NULL;

	if (!name)
		return NULL;
	for (size_t i = 0; i < ct_layout_count(); i++) {
		const struct ct_layout *l = ct_layout_at(i);

		if (l->size == size && strcmp(l->name, name) == 0 && (!pick || l->until > pick->until))
			pick = l;
	}
	return pick;
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
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2a, 32, 0);

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

	/* NVOS32 (VID_HEAP_CONTROL) comes from escape_probe_fields.tsv. */
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x4a, 184, 0);
	ok(l && strcmp(l->name, "NVOS32_PARAMETERS") == 0, "NV_ESC_RM_VID_HEAP_CONTROL 0x4a/184 is NVOS32");
	expect(l, "NVOS32", "function", 8, 4, CT_FK_U);
	expect(l, "NVOS32", "hVASpace", 12, 4, CT_FK_HANDLE);
	expect(l, "NVOS32", "status", 20, 4, CT_FK_STATUS);
	expect(l, "NVOS32", "free", 32, 8, CT_FK_U);
	expect(l, "NVOS32", "data", 40, 144, CT_FK_BYTES);

	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 48, 0);
	ok(l && strcmp(l->name, "NVOS64_PARAMETERS") == 0, "NV_ESC_RM_ALLOC 0x2b/48 is NVOS64_PARAMETERS");
	expect(l, "NVOS64", "hClass", 12, 4, CT_FK_CLASS);
	expect(l, "NVOS64", "pAllocParms", 16, 8, CT_FK_PTR);
	expect(l, "NVOS64", "paramsSize", 32, 4, CT_FK_U);
	expect(l, "NVOS64", "status", 40, 4, CT_FK_STATUS);

	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, 0);
	ok(l && strcmp(l->name, "NVOS21_PARAMETERS") == 0, "NV_ESC_RM_ALLOC 0x2b/32 is NVOS21_PARAMETERS");
	expect(l, "NVOS21", "paramsSize", 24, 4, CT_FK_U);
	expect(l, "NVOS21", "status", 28, 4, CT_FK_STATUS);

	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x2a, 33, 0) == NULL, "NV_ESC_RM_CONTROL of unknown size 33 -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 0, 0) == NULL, "NV_ESC_RM_ALLOC of size 0 -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x32, 32, 0) == NULL, "NV_ESC_RM_CONFIG_GET (no struct) -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0xff, 32, 0) == NULL, "unknown escape nr -> NULL");

	/* Older sizes, from versions/<tag>/ (version_diffs.txt). */
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x57, 56, 0);
	ok(l && strcmp(l->name, "NVOS46_PARAMETERS") == 0 && !field(l, "flags2"),
	   "NVOS46 before 580 (56 bytes) has no flags2");
	expect(l, "NVOS46/56", "dmaOffset", 40, 8, CT_FK_ADDR);
	expect(l, "NVOS46/56", "status", 48, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x57, 64, 0);
	expect(l, "NVOS46/64", "kindOverride", 40, 4, CT_FK_U);
	expect(l, "NVOS46/64", "status", 56, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x58, 40, 0);
	ok(l && !field(l, "size"), "NVOS47 before 550 (40 bytes) has no size field");
	expect(l, "NVOS47/40", "status", 32, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x58, 48, 0);
	expect(l, "NVOS47/48", "size", 32, 8, CT_FK_SIZE);
	expect(l, "NVOS47/48", "status", 40, 4, CT_FK_STATUS);

	/* Same size, different layout: the driver version decides. */
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, ct_driver_version("525.60.11"));
	ok(l && !field(l, "paramsSize"), "NVOS21 at 525.60.11: no paramsSize");
	expect(l, "NVOS21@525", "status", 24, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, ct_driver_version("580.159.04"));
	expect(l, "NVOS21@580.159.04", "status", 28, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 40, ct_driver_version("515.43.04"));
	expect(l, "NVOS64/40@515", "status", 32, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 40, ct_driver_version("525.60.11"));
	expect(l, "NVOS64/40@525", "flags", 32, 4, CT_FK_U);
	expect(l, "NVOS64/40@525", "status", 36, 4, CT_FK_STATUS);
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, ct_driver_version("470.57.02")) == NULL,
	   "NVOS21 at 470 (before every known layout of that size) -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x2a, 32, ct_driver_version("470.57.02")) == ct_layout_find(CT_LAYOUT_ESCAPE, 0x2a, 32, 0),
	   "a single layout at a size applies whatever the driver");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, 0) == ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 32, 0), "driver 0 (unknown) -> newest");

	/* Nested structs are flattened. */
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x4e, 56, 0);
	expect(l, "nvos33_with_fd", "params.hMemory", 8, 4, CT_FK_HANDLE);
	expect(l, "nvos33_with_fd", "params.pLinearAddress", 32, 8, CT_FK_PTR);
	expect(l, "nvos33_with_fd", "fd", 48, 4, CT_FK_FD);
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x35, 24, 0);
	expect(l, "NVOS57", "sharePolicy.accessMask", 12, 4, CT_FK_U);
	expect(l, "NVOS57", "status", 20, 4, CT_FK_STATUS);

	l = ct_layout_by_name("NVOS54_PARAMETERS", 32);
	ok(l && l == ct_layout_find(CT_LAYOUT_ESCAPE, 0x2a, 32, 0), "ct_layout_by_name(NVOS54_PARAMETERS, 32)");
	ok(ct_layout_by_name("NVOS54_PARAMETERS", 40) == NULL, "ct_layout_by_name with a wrong size -> NULL");
	ok(ct_layout_by_name("NO_SUCH_PARAMS", 32) == NULL, "ct_layout_by_name unknown -> NULL");
	ok(ct_layout_by_name(NULL, 32) == NULL, "ct_layout_by_name(NULL) -> NULL");
	l = ct_layout_by_name("NVOS21_PARAMETERS", 32);
	ok(l && field(l, "paramsSize"), "ct_layout_by_name(NVOS21_PARAMETERS, 32) is the newest");
}

static void test_uvm(void)
{
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_UVM, 0x25, 40, 0);

	ok(l && strcmp(l->name, "UVM_REGISTER_GPU_PARAMS") == 0, "UVM_REGISTER_GPU 0x25/40");
	expect(l, "UVM_REGISTER_GPU", "gpu_uuid", 0, 16, CT_FK_UUID);
	expect(l, "UVM_REGISTER_GPU", "numaEnabled", 16, 1, CT_FK_BOOL);
	expect(l, "UVM_REGISTER_GPU", "numaNodeId", 20, 4, CT_FK_S);
	expect(l, "UVM_REGISTER_GPU", "rmCtrlFd", 24, 4, CT_FK_FD);
	expect(l, "UVM_REGISTER_GPU", "hClient", 28, 4, CT_FK_HANDLE);
	expect(l, "UVM_REGISTER_GPU", "rmStatus", 36, 4, CT_FK_STATUS);

	l = ct_layout_find(CT_LAYOUT_UVM, 0x30000001, 16, 0);
	ok(l && strcmp(l->name, "UVM_INITIALIZE_PARAMS") == 0, "UVM_INITIALIZE 0x30000001/16");
	expect(l, "UVM_INITIALIZE", "flags", 0, 8, CT_FK_U);
	expect(l, "UVM_INITIALIZE", "rmStatus", 8, 4, CT_FK_STATUS);

	l = ct_layout_find(CT_LAYOUT_UVM, 0x21, 9264, 0);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION", "perGpuAttributes", 24, 9216, CT_FK_BYTES);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION", "hMemory", 9256, 4, CT_FK_HANDLE);
	ok(l && l->since == 550163001u && l->until == 595045004u,
	   "UVM_MAP_EXTERNAL_ALLOCATION/9264 from 550.163.01 to 595.45.04");
	ok(ct_layout_find(CT_LAYOUT_UVM, 0x25, 41, 0) == NULL, "UVM_REGISTER_GPU of unknown size -> NULL");
	ok(ct_layout_find(CT_LAYOUT_UVM, 0x2a, 32, 0) == NULL, "UVM 0x2a/32 is not the escape 0x2a/32");
	ok(ct_layout_find(CT_LAYOUT_ESCAPE, 0x25, 40, 0) == NULL, "escape 0x25/40 is not the UVM 0x25/40");

	/* uvm_fields.tsv (580.142, shared/nvabi) and uvm_api_fields.tsv (every
	 * tag, probes) agree at 580.142: one layout over the whole range. */
	l = ct_layout_find(CT_LAYOUT_UVM, 0x17, 16, 0);
	ok(l && strcmp(l->name, "UVM_CREATE_RANGE_GROUP_PARAMS") == 0 && l->since == 515043004u &&
	   l->until == 595045004u, "UVM_CREATE_RANGE_GROUP/16: one layout, 515.43.04..595.45.04");
	ok(ct_layout_find(CT_LAYOUT_UVM, 0x25, 40, ct_driver_version("515.43.04")) == ct_layout_find(CT_LAYOUT_UVM, 0x25, 40, 0),
	   "UVM_REGISTER_GPU/40 at 515.43.04 is the 580.142 layout");

	/* The UVM requests of the H100 traces that had no layout before. */
	l = ct_layout_find(CT_LAYOUT_UVM, 0x18, 16, ct_driver_version("580.159.04"));
	ok(l && strcmp(l->name, "UVM_DESTROY_RANGE_GROUP_PARAMS") == 0 && l->nfields == 2,
	   "UVM_DESTROY_RANGE_GROUP 0x18/16");
	expect(l, "UVM_DESTROY_RANGE_GROUP", "rangeGroupId", 0, 8, CT_FK_U);
	expect(l, "UVM_DESTROY_RANGE_GROUP", "rmStatus", 8, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x41, 40, ct_driver_version("580.159.04"));
	ok(l && strcmp(l->name, "UVM_MAP_DYNAMIC_PARALLELISM_REGION_PARAMS") == 0 && l->nfields == 4,
	   "UVM_MAP_DYNAMIC_PARALLELISM_REGION 0x41/40");
	expect(l, "UVM_MAP_DYNAMIC_PARALLELISM_REGION", "base", 0, 8, CT_FK_ADDR);
	expect(l, "UVM_MAP_DYNAMIC_PARALLELISM_REGION", "length", 8, 8, CT_FK_SIZE);
	expect(l, "UVM_MAP_DYNAMIC_PARALLELISM_REGION", "gpuUuid", 16, 16, CT_FK_UUID);
	expect(l, "UVM_MAP_DYNAMIC_PARALLELISM_REGION", "rmStatus", 32, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x1c, 28, ct_driver_version("580.159.04"));
	ok(l && strcmp(l->name, "UVM_UNREGISTER_CHANNEL_PARAMS") == 0 && l->nfields == 4,
	   "UVM_UNREGISTER_CHANNEL 0x1c/28");
	expect(l, "UVM_UNREGISTER_CHANNEL", "gpuUuid", 0, 16, CT_FK_UUID);
	expect(l, "UVM_UNREGISTER_CHANNEL", "hClient", 16, 4, CT_FK_HANDLE);
	expect(l, "UVM_UNREGISTER_CHANNEL", "hChannel", 20, 4, CT_FK_HANDLE);
	expect(l, "UVM_UNREGISTER_CHANNEL", "rmStatus", 24, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x1a, 20, ct_driver_version("580.159.04"));
	ok(l && strcmp(l->name, "UVM_UNREGISTER_GPU_VASPACE_PARAMS") == 0 && l->nfields == 2,
	   "UVM_UNREGISTER_GPU_VASPACE 0x1a/20");
	expect(l, "UVM_UNREGISTER_GPU_VASPACE", "gpuUuid", 0, 16, CT_FK_UUID);
	expect(l, "UVM_UNREGISTER_GPU_VASPACE", "rmStatus", 16, 4, CT_FK_STATUS);

	/* Other structs: pointers, nested structs, arrays. */
	l = ct_layout_find(CT_LAYOUT_UVM, 0x10, 56, 0);
	expect(l, "UVM_MAP_EVENT_QUEUE", "userRODataAddr", 8, 8, CT_FK_PTR);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x9, 44, ct_driver_version("580.142"));
	expect(l, "UVM_RUN_TEST", "multiGpu.peerGpuUuid", 20, 16, CT_FK_UUID);
	expect(l, "UVM_RUN_TEST", "multiGpu.peerId", 36, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x14, 520, 0);
	expect(l, "UVM_GET_GPU_UUID_TABLE", "gpuUuidArray", 0, 512, CT_FK_BYTES);
	expect(l, "UVM_GET_GPU_UUID_TABLE", "validCount", 512, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x4e, 56, 0);
	expect(l, "UVM_ALLOC_DEVICE_P2P", "rmCtrlFd", 40, 4, CT_FK_FD);
	expect(l, "UVM_ALLOC_DEVICE_P2P", "hMemory", 48, 4, CT_FK_HANDLE);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x7ff, 8, 0);
	expect(l, "UVM_IS_8_SUPPORTED", "is8Supported", 0, 4, CT_FK_U);

	/* Sizes and fields that changed between drivers. */
	l = ct_layout_find(CT_LAYOUT_UVM, 0x21, 1200, ct_driver_version("550.40.07"));
	ok(l && l->since == 515043004u && l->until == 550040007u,
	   "UVM_MAP_EXTERNAL_ALLOCATION at its pre-550.163 size (1200): 515.43.04..550.40.07");
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION/1200", "perGpuAttributes", 24, 1152, CT_FK_BYTES);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION/1200", "hMemory", 1192, 4, CT_FK_HANDLE);
	expect(l, "UVM_MAP_EXTERNAL_ALLOCATION/1200", "rmStatus", 1196, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x1c, 12, ct_driver_version("590.48.01"));
	ok(l && !field(l, "gpuUuid"), "UVM_UNREGISTER_CHANNEL/12 (590+): no gpuUuid");
	expect(l, "UVM_UNREGISTER_CHANNEL/12", "hClient", 0, 4, CT_FK_HANDLE);
	expect(l, "UVM_UNREGISTER_CHANNEL/12", "rmStatus", 8, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x2a, 40, ct_driver_version("535.288.01"));
	ok(l && !field(l, "preferredCpuNumaNode"), "UVM_SET_PREFERRED_LOCATION/40 at 535: no preferredCpuNumaNode");
	expect(l, "UVM_SET_PREFERRED_LOCATION@535", "rmStatus", 32, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x2a, 40, ct_driver_version("550.40.07"));
	expect(l, "UVM_SET_PREFERRED_LOCATION@550", "preferredCpuNumaNode", 32, 4, CT_FK_S);
	expect(l, "UVM_SET_PREFERRED_LOCATION@550", "rmStatus", 36, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x33, 80, ct_driver_version("535.43.02"));
	expect(l, "UVM_MIGRATE@535", "cpuNumaNode", 52, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x33, 80, ct_driver_version("580.159.04"));
	expect(l, "UVM_MIGRATE@580", "cpuNumaNode", 52, 4, CT_FK_S);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x38, 56, ct_driver_version("560.35.03"));
	expect(l, "UVM_TOOLS_INIT_EVENT_TRACKER@560", "version", 48, 4, CT_FK_U);
	expect(l, "UVM_TOOLS_INIT_EVENT_TRACKER@560", "rmStatus", 52, 4, CT_FK_STATUS);
	l = ct_layout_find(CT_LAYOUT_UVM, 0x38, 56, ct_driver_version("570.86.15"));
	ok(l && !field(l, "version"), "UVM_TOOLS_INIT_EVENT_TRACKER/56 at 570: no version");
	l = ct_layout_find(CT_LAYOUT_UVM, 0x38, 64, 0);
	ok(l && l->since == 550163001u && l->until == 550163001u,
	   "UVM_TOOLS_INIT_EVENT_TRACKER/64 in 550.163.01 only");
	expect(l, "UVM_TOOLS_INIT_EVENT_TRACKER/64", "grantedVersion", 56, 4, CT_FK_U);
	ok(ct_layout_find(CT_LAYOUT_UVM, 0xc9, 4, 0) == NULL, "UVM_TEST_RNG_SANITY 0xc9/4: no layout for the UVM_TEST_* ioctls");
}

/* The control commands with a params struct in the H100 traces
 * (the traces/ directory, driver 580.159.04): command, paramsSize as traced, and
 * the struct that shared/nvabi ctrl_cmds.tsv names, with that sizeof. */
static const struct { uint32_t cmd, size; const char *st; } trace_ctrls[] = {
	{ 0x00000101u, 40u, "NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS" },	/* NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION */
	{ 0x0000013au, 1352u, "NV0000_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS" },	/* NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX */
	{ 0x000001f0u, 4u, "NV0000_CTRL_SYSTEM_GET_FEATURES_PARAMS" },	/* NV0000_CTRL_CMD_SYSTEM_GET_FEATURES */
	{ 0x00000201u, 128u, "NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS */
	{ 0x00000202u, 40u, "NV0000_CTRL_GPU_GET_ID_INFO_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_ID_INFO */
	{ 0x00000205u, 32u, "NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 */
	{ 0x00000214u, 384u, "NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_PROBED_IDS */
	{ 0x00000215u, 132u, "NV0000_CTRL_GPU_ATTACH_IDS_PARAMS" },	/* NV0000_CTRL_CMD_GPU_ATTACH_IDS */
	{ 0x0000021bu, 12u, "NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_PCI_INFO */
	{ 0x00000279u, 12u, "NV0000_CTRL_GPU_QUERY_DRAIN_STATE_PARAMS" },	/* NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE */
	{ 0x0000027bu, 4u, "NV0000_CTRL_GPU_GET_MEMOP_ENABLE_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE */
	{ 0x00000288u, 3076u, "NV0000_CTRL_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS" },	/* NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS */
	{ 0x00000289u, 4u, "NV0000_CTRL_GPU_ASYNC_ATTACH_ID_PARAMS" },	/* NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID */
	{ 0x00000a04u, 2244u, "NV0000_SYNC_GPU_BOOST_GROUP_INFO_PARAMS" },	/* NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO */
	{ 0x00000d01u, 12u, "NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS" },	/* NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE */
	{ 0x00000d04u, 12u, "NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS" },	/* NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY */
	{ 0x00800280u, 4u, "NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS" },	/* NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES */
	{ 0x00800289u, 8u, "NV0080_CTRL_GPU_GET_VIRTUALIZATION_MODE_PARAMS" },	/* NV0080_CTRL_CMD_GPU_GET_VIRTUALIZATION_MODE */
	{ 0x00800292u, 804u, "NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS" },	/* NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 */
	{ 0x00801307u, 3u, "NV0080_CTRL_FB_GET_CAPS_V2_PARAMS" },	/* NV0080_CTRL_CMD_FB_GET_CAPS_V2 */
	{ 0x00801402u, 3u, "NV0080_CTRL_HOST_GET_CAPS_V2_PARAMS" },	/* NV0080_CTRL_CMD_HOST_GET_CAPS_V2 */
	{ 0x0080170du, 24u, "NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS" },	/* NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST */
	{ 0x00801909u, 1u, "NV0080_CTRL_PERF_CUDA_LIMIT_CONTROL_PARAMS" },	/* NV0080_CTRL_CMD_PERF_CUDA_LIMIT_SET_CONTROL */
	{ 0x20800102u, 564u, "NV2080_CTRL_GPU_GET_INFO_V2_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_INFO_V2 */
	{ 0x20800110u, 132u, "NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_NAME_STRING */
	{ 0x20800111u, 64u, "NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_SHORT_NAME_STRING */
	{ 0x20800119u, 4u, "NV2080_CTRL_GPU_GET_SIMULATION_INFO_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_SIMULATION_INFO */
	{ 0x2080012fu, 1464u, "NV2080_CTRL_GPU_QUERY_ECC_STATUS_PARAMS" },	/* NV2080_CTRL_CMD_GPU_QUERY_ECC_STATUS */
	{ 0x20800131u, 4u, "NV2080_CTRL_GPU_QUERY_COMPUTE_MODE_RULES_PARAMS" },	/* NV2080_CTRL_CMD_GPU_QUERY_COMPUTE_MODE_RULES */
	{ 0x2080014au, 268u, "NV2080_CTRL_GPU_GET_GID_INFO_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_GID_INFO */
	{ 0x20800170u, 340u, "NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_ENGINES_V2 */
	{ 0x20800195u, 260u, "NV2080_CTRL_GPU_GET_COMPUTE_POLICY_CONFIG_PARAMS" },	/* NV2080_CTRL_CMD_GPU_GET_COMPUTE_POLICY_CONFIG */
	{ 0x208001a3u, 56u, "NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO_PARAMS" },	/* NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO */
	{ 0x20800406u, 264u, "NV2080_CTRL_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO_PARAMS" },	/* NV2080_CTRL_CMD_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO */
	{ 0x20801201u, 32u, "NV2080_CTRL_GR_GET_INFO_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_INFO */
	{ 0x20801210u, 32u, "NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS" },	/* NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE */
	{ 0x20801218u, 16u, "NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_CTX_BUFFER_SIZE */
	{ 0x2080121bu, 9240u, "NV2080_CTRL_GR_GET_GLOBAL_SM_ORDER_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER */
	{ 0x20801227u, 48u, "NV2080_CTRL_GR_GET_CAPS_V2_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_CAPS_V2 */
	{ 0x2080122au, 24u, "NV2080_CTRL_GR_GET_GPC_MASK_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_GPC_MASK */
	{ 0x2080122bu, 24u, "NV2080_CTRL_GR_GET_TPC_MASK_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_TPC_MASK */
	{ 0x20801230u, 32u, "NV2080_CTRL_GR_GET_SM_ISSUE_RATE_MODIFIER_PARAMS" },	/* NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER */
	{ 0x20801303u, 1028u, "NV2080_CTRL_FB_GET_INFO_V2_PARAMS" },	/* NV2080_CTRL_CMD_FB_GET_INFO_V2 */
	{ 0x20801701u, 16u, "NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS" },	/* NV2080_CTRL_CMD_MC_GET_ARCH_INFO */
	{ 0x20801801u, 16u, "NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS" },	/* NV2080_CTRL_CMD_BUS_GET_PCI_INFO */
	{ 0x20801803u, 200u, "NV2080_CTRL_BUS_GET_PCI_BAR_INFO_PARAMS" },	/* NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO */
	{ 0x20801823u, 420u, "NV2080_CTRL_BUS_GET_INFO_V2_PARAMS" },	/* NV2080_CTRL_CMD_BUS_GET_INFO_V2 */
	{ 0x2080182au, 112u, "NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS_PARAMS" },	/* NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS */
	{ 0x2080182bu, 28u, "NV2080_CTRL_CMD_BUS_GET_C2C_INFO_PARAMS" },	/* NV2080_CTRL_CMD_BUS_GET_C2C_INFO */
	{ 0x2080200au, 8u, "NV2080_CTRL_PERF_BOOST_PARAMS" },	/* NV2080_CTRL_CMD_PERF_BOOST */
	{ 0x20802a0au, 136u, "NV2080_CTRL_CE_GET_ALL_CAPS_PARAMS" },	/* NV2080_CTRL_CMD_CE_GET_ALL_CAPS */
	{ 0x20803002u, 13344u, "NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS" },	/* NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS */
	{ 0x20803601u, 72u, "NV2080_CTRL_GSP_GET_FEATURES_PARAMS" },	/* NV2080_CTRL_CMD_GSP_GET_FEATURES */
	{ 0x20803801u, 1928u, "NV2080_CTRL_GRMGR_GET_GR_FS_INFO_PARAMS" },	/* NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO */
	{ 0x503c0102u, 16u, "NV503C_CTRL_REGISTER_VA_SPACE_PARAMS" },	/* NV503C_CTRL_CMD_REGISTER_VA_SPACE */
	{ 0x503c0104u, 32u, "NV503C_CTRL_REGISTER_VIDMEM_PARAMS" },	/* NV503C_CTRL_CMD_REGISTER_VIDMEM */
	{ 0x503c0105u, 4u, "NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS" },	/* NV503C_CTRL_CMD_UNREGISTER_VIDMEM */
	{ 0x83de0309u, 4u, "NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS" },	/* NV83DE_CTRL_CMD_DEBUG_SET_EXCEPTION_MASK */
	{ 0x906f0101u, 16u, "NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS" },	/* NV906F_CTRL_GET_CLASS_ENGINEID */
	{ 0x90e60102u, 8u, "NV90E6_CTRL_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK_PARAMS" },	/* NV90E6_CTRL_CMD_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK */
	{ 0xa06c0101u, 3u, "NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS" },	/* NVA06C_CTRL_CMD_GPFIFO_SCHEDULE */
	{ 0xa06c0103u, 8u, "NVA06C_CTRL_SET_TIMESLICE_PARAMS" },	/* NVA06C_CTRL_CMD_SET_TIMESLICE */
	{ 0xa06c0105u, 8u, "NVA06C_CTRL_PREEMPT_PARAMS" },	/* NVA06C_CTRL_CMD_PREEMPT */
	{ 0xc36f0108u, 4u, "NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS" },	/* NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN */
	{ 0xcb330101u, 6u, "NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES_PARAMS" },	/* NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES */
};

/* The classes allocated in those traces, with their alloc_classes.tsv struct
 * and sizeof (NV01_ROOT_CLIENT's params are an NvHandle). */
static const struct { uint32_t cls, size; const char *st; } trace_allocs[] = {
	{ 0x003eu, 128u, "NV_MEMORY_ALLOCATION_PARAMS" },	/* NV01_MEMORY_SYSTEM */
	{ 0x0040u, 128u, "NV_MEMORY_ALLOCATION_PARAMS" },	/* NV01_MEMORY_LOCAL_USER */
	{ 0x0041u, 4u, "NvHandle" },	/* NV01_ROOT_CLIENT */
	{ 0x0079u, 24u, "NV0005_ALLOC_PARAMETERS" },	/* NV01_EVENT_OS_EVENT */
	{ 0x0080u, 56u, "NV0080_ALLOC_PARAMETERS" },	/* NV01_DEVICE_0 */
	{ 0x00deu, 8u, "NV00DE_ALLOC_PARAMETERS" },	/* RM_USER_SHARED_DATA */
	{ 0x2080u, 4u, "NV2080_ALLOC_PARAMETERS" },	/* NV20_SUBDEVICE_0 */
	{ 0x2081u, 4u, "NV2081_ALLOC_PARAMETERS" },	/* NV2081_BINAPI */
	{ 0x503cu, 4u, "NV503C_ALLOC_PARAMETERS" },	/* NV50_THIRD_PARTY_P2P */
	{ 0x50a0u, 128u, "NV_MEMORY_ALLOCATION_PARAMS" },	/* NV50_MEMORY_VIRTUAL */
	{ 0x83deu, 12u, "NV83DE_ALLOC_PARAMETERS" },	/* GT200_DEBUGGER */
	{ 0x9067u, 12u, "NV_CTXSHARE_ALLOCATION_PARAMETERS" },	/* FERMI_CONTEXT_SHARE_A */
	{ 0x90f1u, 56u, "NV_VASPACE_ALLOCATION_PARAMETERS" },	/* FERMI_VASPACE_A */
	{ 0xa06cu, 20u, "NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS" },	/* KEPLER_CHANNEL_GROUP_A */
	{ 0xc639u, 8u, "NVC639_ALLOCATION_PARAMETERS" },	/* AMPERE_SMC_CONFIG_SESSION */
	{ 0xc640u, 8u, "NVC640_ALLOCATION_PARAMETERS" },	/* AMPERE_SMC_MONITOR_SESSION */
	{ 0xc661u, 2u, "NV_HOPPER_USERMODE_A_PARAMS" },	/* HOPPER_USERMODE_A */
	{ 0xc86fu, 368u, "NV_CHANNEL_ALLOC_PARAMS" },	/* HOPPER_CHANNEL_GPFIFO_A */
	{ 0xc8b5u, 8u, "NVB0B5_ALLOCATION_PARAMETERS" },	/* HOPPER_DMA_COPY_A */
	{ 0xcb33u, 4u, "NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS" },	/* NV_CONFIDENTIAL_COMPUTE */
	{ 0xcbc0u, 16u, "NV_GR_ALLOCATION_PARAMETERS" },	/* HOPPER_COMPUTE_A */
};

static void test_ctrl(void)
{
	uint32_t drv = ct_driver_version("580.159.04");
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_CTRL, 0x205, 32, 0);
	int all = 1;

	ok(l && strcmp(l->name, "NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS") == 0 && l->nfields == 8 &&
	   l->family == CT_LAYOUT_CTRL && l->req == 0x205,
	   "NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 0x205/32, 8 fields");
	expect(l, "GET_ID_INFO_V2", "gpuId", 0, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "gpuFlags", 4, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "deviceInstance", 8, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "subDeviceInstance", 12, 4, CT_FK_U);

	/* refine.tsv: handle arrays and the rmObject member of the union. */
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x3d0b, 2128, drv);
	expect(l, "EXPORT_OBJECTS_TO_FD", "objects", 76, 2048, CT_FK_HANDLES);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x3d0c, 652, drv);
	expect(l, "IMPORT_OBJECTS_FROM_FD", "objects", 8, 512, CT_FK_HANDLES);
	expect(l, "IMPORT_OBJECTS_FROM_FD", "objectTypes", 520, 128, CT_FK_BYTES);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x3d05, 24, drv);
	expect(l, "EXPORT_OBJECT_TO_FD", "object.data.rmObject.hObject", 12, 4, CT_FK_HANDLE);
	expect(l, "EXPORT_OBJECT_TO_FD", "fd", 16, 4, CT_FK_FD);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x3d06, 20, drv);
	expect(l, "IMPORT_OBJECT_FROM_FD", "object.data.rmObject.hParent", 12, 4, CT_FK_HANDLE);
	expect(l, "IMPORT_OBJECT_FROM_FD", "object.data.rmObject.hObject", 16, 4, CT_FK_HANDLE);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x205, 32, 0);
	expect(l, "GET_ID_INFO_V2", "sliStatus", 16, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "boardId", 20, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "gpuInstance", 24, 4, CT_FK_U);
	expect(l, "GET_ID_INFO_V2", "numaId", 28, 4, CT_FK_S);
	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x205, 32, drv) == l, "GET_ID_INFO_V2 at 580.159.04 is the same layout");

	l = ct_layout_find(CT_LAYOUT_CTRL, 0x20801303, 1028, drv);
	ok(l && strcmp(l->name, "NV2080_CTRL_FB_GET_INFO_V2_PARAMS") == 0 && l->nfields == 2,
	   "NV2080_CTRL_CMD_FB_GET_INFO_V2 0x20801303/1028");
	expect(l, "FB_GET_INFO_V2", "fbInfoListSize", 0, 4, CT_FK_COUNT);
	expect(l, "FB_GET_INFO_V2", "fbInfoList", 4, 1024, CT_FK_BYTES);

	l = ct_layout_find(CT_LAYOUT_CTRL, 0xd01, 12, drv);
	expect(l, "GET_ADDR_SPACE_TYPE", "hObject", 0, 4, CT_FK_HANDLE);
	expect(l, "GET_ADDR_SPACE_TYPE", "mapFlags", 4, 4, CT_FK_U);
	expect(l, "GET_ADDR_SPACE_TYPE", "addrSpaceType", 8, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x503c0104, 32, drv);
	expect(l, "NV503C_REGISTER_VIDMEM", "hMemory", 0, 4, CT_FK_HANDLE);
	expect(l, "NV503C_REGISTER_VIDMEM", "address", 8, 8, CT_FK_ADDR);
	expect(l, "NV503C_REGISTER_VIDMEM", "offset", 24, 8, CT_FK_ADDR);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x0080170d, 24, drv);
	expect(l, "FIFO_GET_CHANNELLIST", "numChannels", 0, 4, CT_FK_U);
	expect(l, "FIFO_GET_CHANNELLIST", "pChannelHandleList", 8, 8, CT_FK_PTR);
	expect(l, "FIFO_GET_CHANNELLIST", "pChannelList", 16, 8, CT_FK_PTR);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x101, 40, drv);
	expect(l, "GET_BUILD_VERSION", "pVersionBuffer", 16, 8, CT_FK_PTR);
	/* Nested struct members are flattened. */
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x2080122b, 24, drv);
	expect(l, "GR_GET_TPC_MASK", "grRouteInfo.flags", 0, 4, CT_FK_U);
	expect(l, "GR_GET_TPC_MASK", "grRouteInfo.route", 8, 8, CT_FK_U);
	expect(l, "GR_GET_TPC_MASK", "tpcMask", 20, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0xa06c0101, 3, drv);
	expect(l, "GPFIFO_SCHEDULE", "bEnable", 0, 1, CT_FK_BOOL);
	expect(l, "GPFIFO_SCHEDULE", "bSkipEnable", 2, 1, CT_FK_BOOL);

	/* Sizes and fields that changed between drivers. */
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x20800102, 564, drv);
	expect(l, "GPU_GET_INFO_V2/564", "gpuInfoList", 4, 560, CT_FK_BYTES);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x20800102, 500, 0);
	ok(l && l->since == 515043004u && l->until == 525060011u,
	   "GPU_GET_INFO_V2 at its 515/525 size (500) is known too");
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x102, 104, ct_driver_version("535.288.01"));
	ok(l && field(l, "bSEVEnabled") && !field(l, "bCCEnabled"), "GET_CPU_INFO/104 at 535: bSEVEnabled");
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x102, 104, ct_driver_version("560.35.03"));
	ok(l && field(l, "bCCEnabled") && !field(l, "bSEVEnabled"), "GET_CPU_INFO/104 at 560: bCCEnabled");
	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x102, 104, 0) == l, "GET_CPU_INFO/104, driver unknown: the newest");
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x0073029a, 16, ct_driver_version("580.65.06"));
	ok(l && !field(l, "bDoNotSkipLt"), "HDMI_FRL_LINK_CONFIG/16 at 580.65.06: no bDoNotSkipLt");
	expect(l, "HDMI_FRL_LINK_CONFIG@580.65", "bLtSkipped", 13, 1, CT_FK_BOOL);
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x0073029a, 16, drv);
	expect(l, "HDMI_FRL_LINK_CONFIG@580.159", "bDoNotSkipLt", 13, 1, CT_FK_BOOL);
	expect(l, "HDMI_FRL_LINK_CONFIG@580.159", "bLtSkipped", 14, 1, CT_FK_BOOL);

	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x205, 40, drv) == NULL, "GET_ID_INFO_V2 of a wrong size -> NULL");
	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x20808159, 332, drv) == NULL, "a GSS legacy command (bit 15) -> NULL");
	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x20810108, 992, drv) == NULL, "an NV2081 command (no public struct) -> NULL");
	ok(ct_layout_find(CT_LAYOUT_CTRL, 0x2a, 32, 0) == NULL && ct_layout_find(CT_LAYOUT_ESCAPE, 0x205, 32, 0) == NULL,
	   "control 0x2a/32 is not the escape 0x2a/32, nor escape 0x205 the control");

	for (size_t i = 0; i < sizeof(trace_ctrls) / sizeof(trace_ctrls[0]); i++) {
		l = ct_layout_find(CT_LAYOUT_CTRL, trace_ctrls[i].cmd, trace_ctrls[i].size, drv);
		if (!l || strcmp(l->name, trace_ctrls[i].st) != 0 || l->size != trace_ctrls[i].size) {
			all = 0;
			printf("# control 0x%08x/%u: want %s, got %s\n", trace_ctrls[i].cmd, trace_ctrls[i].size,
			       trace_ctrls[i].st, l ? l->name : "NULL");
		}
	}
	ok(all, "each of the %zu control commands with params in the H100 traces has its layout at 580.159.04",
	   sizeof(trace_ctrls) / sizeof(trace_ctrls[0]));
}

static void test_alloc(void)
{
	uint32_t drv = ct_driver_version("580.159.04");
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ALLOC, 0x80, 56, 0);
	int all = 1;

	ok(l && strcmp(l->name, "NV0080_ALLOC_PARAMETERS") == 0 && l->family == CT_LAYOUT_ALLOC &&
	   l->nfields == 9, "NV01_DEVICE_0 0x80/56 is NV0080_ALLOC_PARAMETERS, 9 fields");
	expect(l, "NV0080_ALLOC", "deviceId", 0, 4, CT_FK_U);
	expect(l, "NV0080_ALLOC", "hClientShare", 4, 4, CT_FK_HANDLE);
	expect(l, "NV0080_ALLOC", "hTargetClient", 8, 4, CT_FK_HANDLE);
	expect(l, "NV0080_ALLOC", "hTargetDevice", 12, 4, CT_FK_HANDLE);
	expect(l, "NV0080_ALLOC", "flags", 16, 4, CT_FK_U);
	expect(l, "NV0080_ALLOC", "vaSpaceSize", 24, 8, CT_FK_SIZE);
	expect(l, "NV0080_ALLOC", "vaStartInternal", 32, 8, CT_FK_U);
	expect(l, "NV0080_ALLOC", "vaLimitInternal", 40, 8, CT_FK_U);
	expect(l, "NV0080_ALLOC", "vaMode", 48, 4, CT_FK_U);

	l = ct_layout_find(CT_LAYOUT_ALLOC, 0xc86f, 368, drv);
	ok(l && strcmp(l->name, "NV_CHANNEL_ALLOC_PARAMS") == 0, "HOPPER_CHANNEL_GPFIFO_A 0xc86f/368");
	expect(l, "NV_CHANNEL_ALLOC", "hObjectError", 0, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "gpFifoOffset", 8, 8, CT_FK_ADDR);
	expect(l, "NV_CHANNEL_ALLOC", "gpFifoEntries", 16, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_ALLOC", "hContextShare", 24, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "hVASpace", 28, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "hUserdMemory[0]", 32, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "hUserdMemory[7]", 60, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "userdOffset[7]", 120, 8, CT_FK_ADDR);
	expect(l, "NV_CHANNEL_ALLOC", "engineType", 128, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_ALLOC", "instanceMem.base", 144, 8, CT_FK_ADDR);
	expect(l, "NV_CHANNEL_ALLOC", "instanceMem.cacheAttrib", 164, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_ALLOC", "hPhysChannelGroup", 240, 4, CT_FK_HANDLE);
	expect(l, "NV_CHANNEL_ALLOC", "eccErrorNotifierMem.cacheAttrib", 292, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_ALLOC", "hmacNonce[7]", 356, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_ALLOC", "tpcConfigID", 360, 4, CT_FK_U);
	ok(ct_layout_find(CT_LAYOUT_ALLOC, 0xc56f, 368, drv) && ct_layout_find(CT_LAYOUT_ALLOC, 0xc56f, 368, drv)->fields == l->fields,
	   "AMPERE_CHANNEL_GPFIFO_A 0xc56f/368 shares the field array");

	l = ct_layout_find(CT_LAYOUT_ALLOC, 0x40, 128, drv);
	ok(l && strcmp(l->name, "NV_MEMORY_ALLOCATION_PARAMS") == 0, "NV01_MEMORY_LOCAL_USER 0x40/128");
	/* An NvU32 in the header that holds a client: refine.tsv makes it a handle. */
	expect(l, "NV_MEMORY_ALLOCATION", "owner", 0, 4, CT_FK_HANDLE);
	expect(l, "NV_MEMORY_ALLOCATION", "pitch", 20, 4, CT_FK_S);
	expect(l, "NV_MEMORY_ALLOCATION", "size", 64, 8, CT_FK_SIZE);
	expect(l, "NV_MEMORY_ALLOCATION", "address", 96, 8, CT_FK_PTR);
	expect(l, "NV_MEMORY_ALLOCATION", "hVASpace", 108, 4, CT_FK_HANDLE);
	expect(l, "NV_MEMORY_ALLOCATION", "numaNode", 120, 4, CT_FK_S);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0xcbc0, 16, drv);
	expect(l, "NV_GR_ALLOCATION", "version", 0, 4, CT_FK_U);
	expect(l, "NV_GR_ALLOCATION", "caps", 12, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0xc8b5, 8, drv);
	expect(l, "NVB0B5_ALLOCATION", "engineType", 4, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0x79, 24, drv);
	expect(l, "NV0005_ALLOC", "hSrcResource", 4, 4, CT_FK_HANDLE);
	expect(l, "NV0005_ALLOC", "hClass", 8, 4, CT_FK_CLASS);
	expect(l, "NV0005_ALLOC", "data", 16, 8, CT_FK_PTR);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0x90f1, 56, drv);
	expect(l, "NV_VASPACE_ALLOCATION", "vaSize", 8, 8, CT_FK_SIZE);
	expect(l, "NV_VASPACE_ALLOCATION", "pasid", 48, 4, CT_FK_U);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0xa06c, 20, drv);
	expect(l, "NV_CHANNEL_GROUP_ALLOCATION", "engineType", 12, 4, CT_FK_U);
	expect(l, "NV_CHANNEL_GROUP_ALLOCATION", "bIsCallingContextVgpuPlugin", 16, 1, CT_FK_BOOL);
	l = ct_layout_find(CT_LAYOUT_ALLOC, 0x41, 4, drv);
	ok(l && strcmp(l->name, "NvHandle") == 0 && l->nfields == 1, "NV01_ROOT_CLIENT 0x41/4 is an NvHandle");
	expect(l, "NV01_ROOT_CLIENT", "hClient", 0, 4, CT_FK_HANDLE);

	ok(ct_layout_find(CT_LAYOUT_ALLOC, 0xc86f, 0, drv) == NULL, "alloc params of size 0 -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ALLOC, 0x90e6, 4, drv) == NULL, "GF100_SUBDEVICE_MASTER (no params) -> NULL");
	ok(ct_layout_find(CT_LAYOUT_ALLOC, 0x80, 56, 0) != ct_layout_find(CT_LAYOUT_CTRL, 0x80, 56, 0), "alloc 0x80 is not control 0x80");

	for (size_t i = 0; i < sizeof(trace_allocs) / sizeof(trace_allocs[0]); i++) {
		l = ct_layout_find(CT_LAYOUT_ALLOC, trace_allocs[i].cls, trace_allocs[i].size, drv);
		if (!l || strcmp(l->name, trace_allocs[i].st) != 0) {
			all = 0;
			printf("# class 0x%04x/%u: want %s, got %s\n", trace_allocs[i].cls, trace_allocs[i].size,
			       trace_allocs[i].st, l ? l->name : "NULL");
		}
	}
	ok(all, "each of the %zu classes with params allocated in the H100 traces has its layout at 580.159.04",
	   sizeof(trace_allocs) / sizeof(trace_allocs[0]));
}

/* --- cross-check with shared/nvabi, where it is at hand ------------------- */

/* Splits a tab-separated line in place; empty fields kept.  Returns the count. */
static int split_tabs(char *line, char **col, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		col[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

#define MAX_NV 4096
struct nv_row { uint32_t key, size; char st[96]; };

/* Reads the (value, struct, sizeof) rows of ctrl_cmds.tsv (key column 1,
 * struct 5, sizeof 6) or alloc_classes.tsv (1, 4, 5) that have a struct. */
static int read_nv(const char *path, int c_st, int c_sz, struct nv_row *rows)
{
	FILE *f = fopen(path, "r");
	char line[4096], *col[16];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (split_tabs(line, col, 16) <= c_sz)
			continue;
		if (strcmp(col[c_st], "-") == 0 || strcmp(col[c_st], "(none)") == 0 || !col[c_sz][0] ||
		    strcmp(col[c_sz], "0") == 0 || strncmp(col[1], "0x", 2) != 0 || n == MAX_NV)
			continue;
		rows[n].key = (uint32_t)strtoul(col[1], NULL, 16);
		rows[n].size = (uint32_t)strtoul(col[c_sz], NULL, 10);
		snprintf(rows[n].st, sizeof(rows[n].st), "%s", col[c_st]);
		n++;
	}
	fclose(f);
	return n;
}

/* Reads the rows of uvm_ioctls.tsv (name, value, dec, kind, struct, sizeof)
 * of kind api or linux that have a struct; UVM_TEST_* (kind test) are not
 * decoded field by field. */
static int read_uvm(const char *path, struct nv_row *rows)
{
	FILE *f = fopen(path, "r");
	char line[4096], *col[16];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || split_tabs(line, col, 16) < 6)
			continue;
		if ((strcmp(col[3], "api") != 0 && strcmp(col[3], "linux") != 0) || strcmp(col[4], "-") == 0 ||
		    strncmp(col[1], "0x", 2) != 0 || n == MAX_NV)
			continue;
		rows[n].key = (uint32_t)strtoul(col[1], NULL, 16);
		rows[n].size = (uint32_t)strtoul(col[5], NULL, 10);
		snprintf(rows[n].st, sizeof(rows[n].st), "%s", col[4]);
		n++;
	}
	fclose(f);
	return n;
}

static const char *nvabi_dir(void)
{
	static const char *cand[] = { NULL, "../shared/nvabi", "shared/nvabi" };
	char p[512];

	cand[0] = getenv("CT_NVABI");
	for (size_t i = 0; i < 3; i++) {
		FILE *f;

		if (!cand[i])
			continue;
		snprintf(p, sizeof(p), "%s/ctrl_cmds.tsv", cand[i]);
		f = fopen(p, "r");
		if (f) {
			fclose(f);
			return cand[i];
		}
	}
	return NULL;
}

static struct nv_row nvc[MAX_NV], nva[MAX_NV], nvu[MAX_NV];

static void test_nvabi(void)
{
	const char *dir = nvabi_dir();
	char path[1024];
	DIR *d;
	struct dirent *e;
	int ntags = 0, bad_size = 0, missing = 0, checked = 0, ends_ok = 1, nc, na, nu;
	int uvm_checked = 0, uvm_bad = 0;
	size_t n = ct_layout_count();

	if (!dir) {
		ok(1, "layouts against shared/nvabi # SKIP no shared/nvabi (set CT_NVABI)");
		return;
	}
	/* 1. At 580.142, every command and class with a params struct has a
	 *    layout of that struct and that size. */
	snprintf(path, sizeof(path), "%s/ctrl_cmds.tsv", dir);
	nc = read_nv(path, 5, 6, nvc);
	snprintf(path, sizeof(path), "%s/alloc_classes.tsv", dir);
	na = read_nv(path, 4, 5, nva);
	for (int i = 0; i < nc; i++) {
		const struct ct_layout *l = ct_layout_find(CT_LAYOUT_CTRL, nvc[i].key, nvc[i].size, 580142000u);

		if (!l || strcmp(l->name, nvc[i].st) != 0) {
			missing++;
			printf("# control 0x%08x %s/%u: %s\n", nvc[i].key, nvc[i].st, nvc[i].size, l ? l->name : "no layout");
		}
	}
	for (int i = 0; i < na; i++) {
		const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ALLOC, nva[i].key, nva[i].size, 580142000u);

		if (!l || strcmp(l->name, nva[i].st) != 0) {
			missing++;
			printf("# class 0x%04x %s/%u: %s\n", nva[i].key, nva[i].st, nva[i].size, l ? l->name : "no layout");
		}
	}
	ok(nc > 1000 && na > 100 && missing == 0,
	   "each of the %d control commands and %d classes with params in shared/nvabi (580.142) has its layout", nc, na);
	snprintf(path, sizeof(path), "%s/uvm_ioctls.tsv", dir);
	nu = read_uvm(path, nvu);
	missing = 0;
	for (int i = 0; i < nu; i++) {
		const struct ct_layout *l = ct_layout_find(CT_LAYOUT_UVM, nvu[i].key, nvu[i].size, 580142000u);

		if (!l || strcmp(l->name, nvu[i].st) != 0) {
			missing++;
			printf("# UVM 0x%x %s/%u: %s\n", nvu[i].key, nvu[i].st, nvu[i].size, l ? l->name : "no layout");
		}
	}
	ok(nu >= 70 && missing == 0,
	   "each of the %d UVM api/linux requests with params in shared/nvabi (580.142) has its layout", nu);

	/* 2. At every tag in versions/, each layout whose driver range holds the
	 *    tag has the sizeof that the tag's tables give its command or class,
	 *    and at the first and last tag of its range the command exists. */
	snprintf(path, sizeof(path), "%s/versions", dir);
	d = opendir(path);
	if (!d) {
		ok(1, "layouts against shared/nvabi/versions # SKIP no versions/");
		return;
	}
	while ((e = readdir(d))) {
		uint32_t tag = ct_driver_version(e->d_name);

		if (!tag || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/versions/%s/ctrl_cmds.tsv", dir, e->d_name);
		nc = read_nv(path, 5, 6, nvc);
		snprintf(path, sizeof(path), "%s/versions/%s/alloc_classes.tsv", dir, e->d_name);
		na = read_nv(path, 4, 5, nva);
		snprintf(path, sizeof(path), "%s/versions/%s/uvm_ioctls.tsv", dir, e->d_name);
		nu = read_uvm(path, nvu);
		if (nc <= 0 || na <= 0 || nu <= 0)
			continue;
		ntags++;
		for (size_t i = 0; i < n; i++) {
			const struct ct_layout *l = ct_layout_at(i);
			const struct nv_row *rows = l->family == CT_LAYOUT_CTRL ? nvc : l->family == CT_LAYOUT_ALLOC ? nva : nvu;
			int nrows = l->family == CT_LAYOUT_CTRL ? nc : l->family == CT_LAYOUT_ALLOC ? na : nu, found = 0;

			if (l->family == CT_LAYOUT_ESCAPE || tag < l->since || tag > l->until)
				continue;
			for (int j = 0; j < nrows; j++) {
				if (rows[j].key != l->req)
					continue;
				found = 1;
				checked++;
				/* UVM: one struct per request, so its name must match too. */
				if (l->family == CT_LAYOUT_UVM)
					uvm_checked++;
				if (rows[j].size != l->size ||
				    (l->family == CT_LAYOUT_UVM && strcmp(rows[j].st, l->name) != 0)) {
					bad_size++;
					uvm_bad += l->family == CT_LAYOUT_UVM;
					printf("# %s 0x%x at %s: layout %s/%u, nvabi %s/%u\n",
					       l->family == CT_LAYOUT_CTRL ? "control" :
					       l->family == CT_LAYOUT_ALLOC ? "class" : "UVM", l->req, e->d_name,
					       l->name, l->size, rows[j].st, rows[j].size);
				}
			}
			if (!found && (tag == l->since || tag == l->until)) {
				ends_ok = 0;
				printf("# %s/%u (0x%x): not in nvabi at %s\n", l->name, l->size, l->req, e->d_name);
			}
		}
	}
	closedir(d);
	ok(ntags >= 2 && bad_size == 0 && ends_ok,
	   "every control/alloc/UVM layout has the nvabi sizeof at each of %d tags in its range (%d checks)",
	   ntags, checked);
	ok(ntags >= 16 && uvm_checked > 1000 && uvm_bad == 0,
	   "every UVM layout has the nvabi struct and sizeof at each tag in its range (%d checks)", uvm_checked);
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

/* The lookup of l's family. */
static const struct ct_layout *lookup(const struct ct_layout *l, uint32_t drv)
{
	switch (l->family) {
	case CT_LAYOUT_ESCAPE:
		return ct_layout_find(CT_LAYOUT_ESCAPE, l->req, l->size, drv);
	case CT_LAYOUT_UVM:
		return ct_layout_find(CT_LAYOUT_UVM, l->req, l->size, drv);
	case CT_LAYOUT_CTRL:
		return ct_layout_find(CT_LAYOUT_CTRL, l->req, l->size, drv);
	case CT_LAYOUT_ALLOC:
		return ct_layout_find(CT_LAYOUT_ALLOC, l->req, l->size, drv);
	}
	return NULL;
}

/* Invariants of every layout: the generator checks them, this checks the generator. */
/* Whether f's size suits its kind (the generator's rule, checked again). */
static bool kind_fits(const struct ct_field *f)
{
	switch (f->kind) {
	case CT_FK_U: case CT_FK_S: case CT_FK_COUNT:
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	case CT_FK_ADDR: case CT_FK_SIZE:
		return f->size == 4 || f->size == 8;
	case CT_FK_HANDLE: case CT_FK_STATUS: case CT_FK_FD: case CT_FK_CLASS:
		return f->size == 4;
	case CT_FK_PTR:
		return f->size == 8;
	case CT_FK_BOOL:
		return f->size == 1;
	case CT_FK_UUID:
		return f->size >= 16;
	case CT_FK_HANDLES:
		return f->size % 4 == 0;
	case CT_FK_BYTES:
		return true;
	}
	return false;
}

/* An array's entry layout (array_elems.tsv): whole entries, members in
 * offset order inside the entry, sizes that suit their kinds, and a count
 * field beside the array (the only arrays that get one). */
static bool entry_ok(const struct ct_layout *l, const struct ct_field *f)
{
	const struct ct_elem *el = ct_layout_elem(f);
	uint32_t end = 0, j;

	if (!el || f->kind != CT_FK_BYTES || f->index >= 0 || f->count < 0 ||
	    (uint32_t)f->count >= l->nfields || l->fields[f->count].kind != CT_FK_COUNT ||
	    el->size == 0 || f->size % el->size || el->nfields == 0)
		return false;
	if (!el->fields[0].name[0])   /* a scalar entry: one member, the whole entry */
		return el->nfields == 1 && el->fields[0].offset == 0 &&
		       el->fields[0].size == el->size && el->fields[0].elem == 0 &&
		       kind_fits(&el->fields[0]);
	for (j = 0; j < el->nfields; j++) {
		const struct ct_field *m = &el->fields[j];

		if (!m->name[0] || m->size == 0 || m->offset < end || m->offset + m->size > el->size ||
		    m->elem || m->count >= 0 || !kind_fits(m))
			return false;
		end = m->offset + m->size;
	}
	return true;
}

/* Arrays of more than 8 entries, whose entries the control layouts do not
 * flatten, get an entry layout: GPU_GET_INFO_V2's {index, data} pairs,
 * GET_CLASSLIST_V2's classes. */
static void test_entries(void)
{
	uint32_t drv = ct_driver_version("580.159.04");
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_CTRL, 0x20800102, 564, drv);
	const struct ct_field *f = field(l, "gpuInfoList");
	const struct ct_elem *el = ct_layout_elem(f);

	expect(l, "GPU_GET_INFO_V2", "gpuInfoListSize", 0, 4, CT_FK_COUNT);
	ok(f && el && el->size == 8 && el->nfields == 2 && f->size / el->size == 70 &&
	   !strcmp(el->fields[0].name, "index") && el->fields[0].offset == 0 &&
	   el->fields[0].size == 4 && el->fields[0].kind == CT_FK_U &&
	   !strcmp(el->fields[1].name, "data") && el->fields[1].offset == 4 &&
	   el->fields[1].size == 4 && el->fields[1].kind == CT_FK_U &&
	   &l->fields[f->count] == field(l, "gpuInfoListSize"),
	   "GPU_GET_INFO_V2: gpuInfoList is 70 entries of {index, data}, counted by gpuInfoListSize");
	l = ct_layout_find(CT_LAYOUT_CTRL, 0x800292, 804, drv);
	f = field(l, "classList");
	el = ct_layout_elem(f);
	ok(f && el && el->size == 4 && el->nfields == 1 && !el->fields[0].name[0] &&
	   el->fields[0].kind == CT_FK_CLASS && &l->fields[f->count] == field(l, "numClasses"),
	   "GET_CLASSLIST_V2: classList is 200 classes, counted by numClasses");
	f = field(l, "numClasses");
	ok(f && ct_layout_elem(f) == NULL && ct_layout_elem(NULL) == NULL,
	   "a field that is no array has no entry layout");
}

static void test_all(void)
{
	size_t n = ct_layout_count(), nfam[4] = { 0 }, nfields = 0, narrays = 0;
	int sorted = 1, fields_ok = 1, kinds_ok = 1, lookup_ok = 1, entries_ok = 1;

	ok(n > 0 && ct_layout_at(n) == NULL, "ct_layout_count() = %zu, ct_layout_at(count) is NULL", n);
	for (size_t i = 0; i < n; i++) {
		const struct ct_layout *l = ct_layout_at(i), *p = i ? ct_layout_at(i - 1) : NULL;
		uint32_t end = 0;

		if (l->family <= CT_LAYOUT_ALLOC)
			nfam[l->family]++;
		else
			sorted = 0;
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
			kinds_ok &= kind_fits(f);
			if (f->elem) {
				narrays++;
				if (!entry_ok(l, f)) {
					entries_ok = 0;
					printf("# %s/%u: array %s: a bad entry layout\n", l->name, l->size, f->name);
				}
			}
		}
		/* Every layout is reachable through the lookup, with its own driver range. */
		if (lookup(l, l->since) != l || lookup(l, l->until) != l)
			lookup_ok = 0;
	}
	ok(sorted, "layouts sorted by (family, req, size), driver ranges disjoint");
	ok(nfam[CT_LAYOUT_CTRL] > 1000 && nfam[CT_LAYOUT_ALLOC] > 100, "control and alloc layouts are there");
	ok(nfam[CT_LAYOUT_UVM] >= 93, "UVM layouts of every tag are there (%zu)", nfam[CT_LAYOUT_UVM]);
	ok(fields_ok, "every layout's fields are in offset order, do not overlap, and lie inside its size");
	ok(kinds_ok, "every field's size suits its kind");
	ok(entries_ok && narrays > 100, "every array with an entry layout (%zu) is counted, holds whole "
	   "entries, and its entries' members lie in order inside them", narrays);
	ok(lookup_ok, "every layout is found by its request, size and driver range");
	printf("# %zu escape, %zu UVM, %zu control, %zu alloc layouts, %zu fields, tag %s\n",
	       nfam[CT_LAYOUT_ESCAPE], nfam[CT_LAYOUT_UVM], nfam[CT_LAYOUT_CTRL], nfam[CT_LAYOUT_ALLOC],
	       nfields, ct_layouts_tag);
}

/* ct_layout_find is the one lookup; the by-name reads go through it. */
static void test_by_name(void)
{
	uint32_t d515 = ct_driver_version("515.43.04"), d525 = ct_driver_version("525.60.11");
	uint32_t d580 = ct_driver_version("580.142"), v = 0;
	const struct ct_layout *ls[8], *l;
	unsigned char buf[48] = { 0 };
	uint64_t w = 0;
	size_t n;

	/* RM_ALLOC at 580: NVOS21 (32), and NVOS64 at 40 (the 525 one: a size
	 * match is evidence) and 48, smallest first. */
	n = ct_layout_sizes(CT_LAYOUT_ESCAPE, 0x2b, d580, ls, 8);
	ok(n == 3 && ls[0]->size == 32 && ls[1]->size == 40 && ls[2]->size == 48,
	   "ct_layout_sizes(RM_ALLOC, 580): 32, 40, 48 (got %zu)", n);
	ok(ct_layout_sizes(CT_LAYOUT_ESCAPE, 0x2b, d580, ls, 1) == 3 && ls[0]->size == 32,
	   "ct_layout_sizes counts past max and fills only max");
	ok(ct_layout_sizes(CT_LAYOUT_ESCAPE, 0xff, 0, ls, 8) == 0, "ct_layout_sizes of no escape: 0");

	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 40, d515);
	ok(l && field(l, "status") && field(l, "status")->offset == 32 && !field(l, "flags"),
	   "NVOS64 at 515: 40 bytes, status at 32");
	l = ct_layout_find(CT_LAYOUT_ESCAPE, 0x2b, 40, d525);
	ok(ct_layout_field(l, "status") && ct_layout_field(l, "status")->offset == 36,
	   "ct_layout_field: NVOS64 at 525 has status at 36");
	ok(!ct_layout_field(l, "nosuch") && !ct_layout_field(NULL, "status"),
	   "ct_layout_field: unknown field or no layout -> NULL");

	ok(ct_write_u64(l, buf, 40, "status", 0x1a) && ct_read_u32(l, buf, 40, "status", &v) &&
	   v == 0x1a && buf[36] == 0x1a, "ct_write_u64 / ct_read_u32 by name, at the driver's offset");
	ok(!ct_read_u32(l, buf, 39, "status", &v), "ct_read_u32: a field cut short by len -> false");
	ok(!ct_read_u32(l, buf, 40, "pAllocParms", &v), "ct_read_u32: an 8-byte field -> false");
	ok(ct_write_u64(l, buf, 40, "pAllocParms", 0x7ffd00002000) &&
	   ct_read_u64(l, buf, 40, "pAllocParms", &w) && w == 0x7ffd00002000,
	   "ct_read_u64 of a pointer");
	ok(!ct_write_u64(l, buf, 40, "status", 1ull << 32), "ct_write_u64: a value too wide -> false");
	ok(!ct_read_u32(NULL, buf, 40, "status", &v), "ct_read_u32 with no layout -> false");

	l = ct_layout_find(CT_LAYOUT_CTRL, 0x3d0c, 652, d580);
	memset(buf, 0, sizeof(buf));
	{
		static unsigned char p[652];

		memset(p, 0, sizeof(p));
		ok(ct_write_u64(l, p, 652, "objects", 0) == false,
		   "ct_write_u64 refuses an array field");
		p[8 + 4 * 127] = 0x77;
		ok(ct_read_u32_elem(l, p, 652, "objects", 127, &v) && v == 0x77,
		   "ct_read_u32_elem: objects[127] of IMPORT_OBJECTS_FROM_FD");
		ok(!ct_read_u32_elem(l, p, 652, "objects", 128, &v),
		   "ct_read_u32_elem: past the array -> false");
	}
}

int main(void)
{
	test_escapes();
	test_uvm();
	test_ctrl();
	test_alloc();
	test_entries();
	test_nvabi();
	test_driver_version();
	test_by_name();
	test_all();
	return tap_done();
}
