// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "latest.h"

void ct_latest_put(struct ct_latest *l, const struct ct_rec *r)
{
	void *copy = malloc(r->size);

	if (!copy)
		return;
	memcpy(copy, r, r->size);
	free(idmap_put(&l->by_tid, r->tid, copy));
}

const void *ct_latest_for(const struct ct_latest *l, uint32_t tid, uint32_t pid, uint64_t ts)
{
	const struct ct_rec *r = idmap_get(&l->by_tid, tid);

	return r && r->pid == pid && r->ts_ns == ts ? r : NULL;
}

void ct_latest_forget(struct ct_latest *l, uint32_t tid)
{
	free(idmap_del(&l->by_tid, tid));
}

void ct_latest_free(struct ct_latest *l)
{
	idmap_free_all(&l->by_tid);
}
