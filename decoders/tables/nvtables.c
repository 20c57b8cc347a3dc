// SPDX-License-Identifier: MIT
/*
 * Lookups over the generated value -> name tables (build/nvtables_data.c,
 * made from the TSV files in decoders/tables/ by gen-tables.awk): a binary
 * search by key, and a walk in key order, the same for every table.
 */
#include <string.h>

#include "nvtables.h"

/* Generated: each sorted by key, which is its struct's first member. */
extern const struct nv_esc_info nv_esc_tab[];
extern const struct nv_ctrl_info nv_ctrl_tab[];
extern const struct nv_class_info nv_class_tab[];
extern const struct nv_status_info nv_status_tab[];
extern const struct uvm_ioctl_info uvm_ioctl_tab[];
extern const size_t nv_esc_tab_len, nv_ctrl_tab_len, nv_class_tab_len, nv_status_tab_len,
	uvm_ioctl_tab_len;

/* Every table's struct starts with its uint32_t key. */
static inline uint32_t key_of(const void *entry)
{
	uint32_t k;

	memcpy(&k, entry, sizeof(k));
	return k;
}

/* lookup, count and at for one table: five tables, one shape.  lookup is
 * a binary search written out for each table's own type, not bsearch():
 * its comparator call at each step was most of a lookup. */
#define TABLE_ACCESS(prefix, type)                                                   \
	const type *prefix##_lookup(uint32_t key)                                    \
	{                                                                            \
		size_t lo = 0, hi = prefix##_tab_len;                                \
                                                                                     \
		while (lo < hi) {                                                    \
			size_t mid = lo + (hi - lo) / 2;                             \
                                                                                     \
			if (key_of(&prefix##_tab[mid]) < key)                        \
				lo = mid + 1;                                        \
			else                                                         \
				hi = mid;                                            \
		}                                                                    \
		return lo < prefix##_tab_len && key_of(&prefix##_tab[lo]) == key     \
		       ? &prefix##_tab[lo] : NULL;                                   \
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
