/* SPDX-License-Identifier: MIT */
/*
 * gVisor nvproxy's driver ABI tables, as data (views/compat/tables/gvisor_*.tsv,
 * imported from gVisor snapshots by views/compat/tables/import-gvisor.py): per
 * snapshot a tree of driver version nodes, each adding to or deleting from
 * its parent's four maps (frontend escapes, UVM ioctls, RM controls, RM
 * allocation classes), with the capabilities each entry needs.
 */
#ifndef CT_GVISOR_ABI_H
#define CT_GVISOR_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ct_gv_kind { CT_GV_FRONTEND, CT_GV_UVM, CT_GV_CONTROL, CT_GV_CLASS, CT_GV_KINDS };

struct ct_gv_op {
	uint32_t number;
	uint16_t caps;        /* capability bits, any of which enables it; 0: none checked */
	uint8_t kind;         /* enum ct_gv_kind */
	bool del;
	const char *name;     /* nvproxy's name (pkg/abi/nvgpu) */
};

struct ct_gv_node {
	uint32_t version;     /* ct_driver_version() form; 0: any driver (no tree) */
	int32_t parent;       /* index in ct_gv_nodes, -1 for the root */
	bool registered;      /* in nvproxy's table of versions (else an alias) */
	bool supported;       /* runsc takes it without --nvproxy-allow-unsupported-driver */
	uint32_t first_op, nops;
	bool has_literal;     /* root: the entries written out in version.go */
	uint32_t literal[CT_GV_KINDS];
};

struct ct_gv_cap {
	const char *name;     /* "compute", "video" ... */
	uint8_t bit;
	bool dflt;            /* in nvproxy's default set */
	bool all;             /* in what "all" enables */
};

struct ct_gv_snapshot {
	const char *id, *commit, *date, *layout, *role;
	uint32_t first_node, nnodes;
	uint32_t first_cap, ncaps;   /* ncaps 0: no capabilities in that gVisor */
	const char *refusal[CT_GV_KINDS];   /* "EINVAL" or the NV_STATUS name it writes back */
	uint32_t passthrough_mask;   /* controls with these bits are forwarded (0: none) */
	uint32_t passthrough_class;  /* controls of this class are forwarded (0: none) */
	uint32_t rewrite_class;      /* allocations of this class take the class in their params */
	/* How a capability gets enabled: the container asks for it (caps_env)
	 * and runsc allows it (caps_flag, caps_flag_default when not given);
	 * NULL where this gVisor has no capabilities. */
	const char *caps_flag, *caps_flag_default, *caps_env;
};

extern const struct ct_gv_op ct_gv_ops[];
extern const struct ct_gv_node ct_gv_nodes[];
extern const struct ct_gv_cap ct_gv_caps[];
extern const struct ct_gv_snapshot ct_gv_snapshots[];
extern const unsigned ct_gv_nsnapshots;

/* The snapshot called id (its id, or a prefix of its commit of at least 7
 * digits); NULL: the latest release (the first). Returns NULL if none. */
const struct ct_gv_snapshot *ct_gv_snapshot_find(const char *id);

/* The effective entry of (kind, number) at a node, following the tree: the
 * op that last set it, or NULL if the node does not have it. */
const struct ct_gv_op *ct_gv_lookup(const struct ct_gv_node *n, int kind, uint32_t number);

/* How a trace's driver maps onto a snapshot's tree. */
enum ct_gv_match {
	CT_GV_EXACT,        /* a node of that version */
	CT_GV_ANCESTOR,     /* the nearest older node on the same branch (approximate) */
	CT_GV_NO_BRANCH,    /* nothing on that branch: the nearest node elsewhere */
	CT_GV_ANY,          /* a snapshot with no tree: one table for every driver */
};
const struct ct_gv_node *ct_gv_node_for(const struct ct_gv_snapshot *s, uint32_t driver,
					enum ct_gv_match *how);

/* The first node (lowest driver version) of s that has (kind, number). */
const struct ct_gv_node *ct_gv_first_with(const struct ct_gv_snapshot *s, int kind,
					  uint32_t number);

/* The newest registered node of s that has (kind, number) (NULL if none);
 * *dropped: the oldest registered node newer than that one without it,
 * where nvproxy dropped it (NULL if every newer node has it). */
const struct ct_gv_node *ct_gv_last_with(const struct ct_gv_snapshot *s, int kind,
					 uint32_t number, const struct ct_gv_node **dropped);

/* Number of distinct entries of kind at a node. */
uint32_t ct_gv_count(const struct ct_gv_node *n, int kind);

/* Capabilities: "compute,utility" -> bits (false and *bad set on an unknown
 * name); bits -> "compute,utility" into buf. */
bool ct_gv_caps_parse(const struct ct_gv_snapshot *s, const char *list, uint16_t *out,
		      const char **bad);
const char *ct_gv_caps_str(const struct ct_gv_snapshot *s, uint16_t caps, char *buf, size_t n);
uint16_t ct_gv_caps_default(const struct ct_gv_snapshot *s);

#endif
