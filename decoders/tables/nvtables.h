/* SPDX-License-Identifier: MIT */
/*
 * Value -> name tables for the NVIDIA driver ABI.  The data lives in the
 * TSV files in decoders/tables/ (generated from NVIDIA's open headers, provenance
 * in each file's '#From' lines); gen-tables.awk turns them into sorted C
 * arrays at build time.  Every lookup is a binary search.
 */
#ifndef NVTABLES_H
#define NVTABLES_H

#include <stdint.h>
#include <stddef.h>

struct nv_esc_info {
	uint32_t nr;            /* _IOC_NR of the 'F' request */
	const char *name;       /* "NV_ESC_RM_CONTROL" */
	const char *param_struct;
	uint32_t size;          /* sizeof param struct at the table's driver tag, 0 if variable */
};

struct nv_ctrl_info {
	uint32_t cmd;           /* NVOS54.cmd, e.g. 0x2080012f */
	const char *name;       /* "NV2080_CTRL_CMD_..." */
	const char *param_struct;
	uint32_t params_size;   /* 0 if none/unknown */
};

struct nv_class_info {
	uint32_t id;
	const char *name;       /* preferred (non-alias) name */
	const char *param_struct;  /* RM_ALLOC params struct, NULL if none */
	uint32_t params_size;   /* RM_ALLOC params size, 0 if none/unknown */
};

struct nv_status_info {
	uint32_t code;
	const char *name;       /* "NV_ERR_INVALID_ARGUMENT" */
	const char *message;    /* "Invalid argument to call" */
};

struct uvm_ioctl_info {
	uint32_t cmd;           /* plain number, e.g. 0x30000001 */
	const char *name;       /* "UVM_INITIALIZE" */
	const char *param_struct;
	uint32_t size;          /* sizeof params, 0 if none */
};

const struct nv_esc_info    *nv_esc_lookup(uint32_t nr);
const struct nv_ctrl_info   *nv_ctrl_lookup(uint32_t cmd);
const struct nv_class_info  *nv_class_lookup(uint32_t id);
const struct nv_status_info *nv_status_lookup(uint32_t code);
const struct uvm_ioctl_info *uvm_ioctl_lookup(uint32_t cmd);

/* Iteration in key order, the same for every table: for loading the BPF
 * size maps, for matching names (filters) and for tests. */
size_t nv_esc_count(void);
const struct nv_esc_info *nv_esc_at(size_t i);
size_t nv_status_count(void);
const struct nv_status_info *nv_status_at(size_t i);
size_t nv_class_count(void);
const struct nv_class_info *nv_class_at(size_t i);
size_t uvm_ioctl_count(void);
const struct uvm_ioctl_info *uvm_ioctl_at(size_t i);
size_t nv_ctrl_count(void);
const struct nv_ctrl_info *nv_ctrl_at(size_t i);

/* Driver tag the tables were generated from, e.g. "580.142". */
extern const char nv_tables_tag[];

#endif /* NVTABLES_H */
