// SPDX-License-Identifier: MIT
/*
 * Lookups over the generated value -> name tables (build/nvtables_data.c,
 * made from the TSV files in decoders/tables/ by gen-tables.awk): a binary
 * search by key, and a walk in key order, the same for every table.
 */
#include <stdlib.h>

#include "nvtables.h"

/* Generated: each sorted by key, which is its struct's first member. */
extern const struct nv_esc_info nv_esc_tab[];
extern const struct nv_ctrl_info nv_ctrl_tab[];
extern const struct nv_class_info nv_class_tab[];
extern const struct nv_status_info nv_status_tab[];
extern const struct uvm_ioctl_info uvm_ioctl_tab[];
extern const size_t nv_esc_tab_len, nv_ctrl_tab_len, nv_class_tab_len, nv_status_tab_len,
	uvm_ioctl_tab_len;

/* Every table's struct starts with its uint32_t key, so one comparator serves all. */
static int key_cmp(const void *key, const void *elem)
{
	uint32_t a = *(const uint32_t *)key, b = *(const uint32_t *)elem;

	return (a > b) - (a < b);
}

/* lookup, count and at for one table: five tables, one shape. */
#define TABLE_ACCESS(prefix, type)                                                   \
	const type *prefix##_lookup(uint32_t key)                                    \
	{                                                                            \
		return bsearch(&key, prefix##_tab, prefix##_tab_len,                 \
			       sizeof(prefix##_tab[0]), key_cmp);                    \
	}                                                                            \
	size_t prefix##_count(void)                                                  \
	{                                                                            \
		return prefix##_tab_len;                                             \
	}                                                                            \
	const type *prefix##_at(size_t i)                                            \
	{                                                                            \
		return i < prefix##_tab_len ? &prefix##_tab[i] : NULL;               \
	}

TABLE_ACCESS(nv_esc, struct nv_esc_info)
TABLE_ACCESS(nv_ctrl, struct nv_ctrl_info)
TABLE_ACCESS(nv_class, struct nv_class_info)
TABLE_ACCESS(nv_status, struct nv_status_info)
TABLE_ACCESS(uvm_ioctl, struct uvm_ioctl_info)
