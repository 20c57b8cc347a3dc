// SPDX-License-Identifier: MIT
/* Remembered QMDs (gpuwork_qmds.h): open addressing on the address, the
 * table doubled up to twice GW_QMDS_MAX slots (half full at most). */
#include <stdlib.h>
#include <string.h>

#include "gpuwork_qmds.h"

#define FIRST_SLOTS 64u

struct gw_qmds {
	struct gw_qmd_slot *slots;
	uint32_t nslots, used, walk;
	uint64_t not_kept;
	uint64_t *stack, *found;   /* gw_qmds_scratch */
};

struct gw_qmds *gw_qmds_new(void)
{
	return calloc(1, sizeof(struct gw_qmds));
}

void gw_qmds_free(struct gw_qmds *m)
{
	if (m) {
		free(m->slots);
		free(m->stack);
		free(m->found);
	}
	free(m);
}

static uint32_t hash(uint64_t addr, uint32_t nslots)
{
	addr ^= addr >> 29;
	addr *= 0xbf58476d1ce4e5b9ull;   /* splitmix64's mixer */
	addr ^= addr >> 32;
	return (uint32_t)addr & (nslots - 1);
}

/* The slot of addr, or the free slot where it would go. */
static struct gw_qmd_slot *find(const struct gw_qmds *m, uint64_t addr)
{
	uint32_t i = hash(addr, m->nslots);

	while (m->slots[i].addr && m->slots[i].addr != addr)
		i = (i + 1) & (m->nslots - 1);
	return &m->slots[i];
}

static bool grow(struct gw_qmds *m)
{
	struct gw_qmd_slot *old = m->slots;
	uint32_t n = m->nslots ? m->nslots * 2 : FIRST_SLOTS, i, oldn = m->nslots;

	m->slots = calloc(n, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return false;
	}
	m->nslots = n;
	for (i = 0; i < oldn; i++)
		if (old[i].addr)
			*find(m, old[i].addr) = old[i];
	free(old);
	return true;
}

bool gw_qmds_put(struct gw_qmds *m, uint64_t addr, const uint32_t *dw, uint32_t n)
{
	struct gw_qmd_slot *s;

	if (!addr)
		return false;
	if (n > GW_QMD_KEEP)
		n = GW_QMD_KEEP;
	s = m->nslots ? find(m, addr) : NULL;
	if (!s || !s->addr) {
		if (m->used >= GW_QMDS_MAX ||
		    ((m->used + 1) * 2 > m->nslots && !grow(m))) {
			m->not_kept++;
			return false;
		}
		s = find(m, addr);
		memset(s, 0, sizeof(*s));
		s->addr = addr;
		m->used++;
	} else if (s->n != n || memcmp(s->dw, dw, n * sizeof(*dw))) {
		s->launches = 0;   /* other bytes: another graph at the same place */
	}
	s->n = n;
	memcpy(s->dw, dw, n * sizeof(*dw));
	return true;
}

void gw_qmds_set_params(struct gw_qmds *m, uint64_t addr, const uint32_t *dw, uint32_t n,
			uint32_t at, bool cut)
{
	struct gw_qmd_slot *s = gw_qmds_get(m, addr);

	if (!s)
		return;
	s->p_cut = cut || n > GW_QMD_PARAMS_KEEP;
	s->pn = n < GW_QMD_PARAMS_KEEP ? n : GW_QMD_PARAMS_KEEP;
	s->p_at = at;
	if (s->pn)
		memcpy(s->pdw, dw, s->pn * sizeof(*dw));
}

struct gw_qmd_slot *gw_qmds_get(struct gw_qmds *m, uint64_t addr)
{
	struct gw_qmd_slot *s;

	if (!m || !m->nslots || !addr)
		return NULL;
	s = find(m, addr);
	return s->addr ? s : NULL;
}

uint32_t gw_qmds_new_walk(struct gw_qmds *m)
{
	if (++m->walk == 0) {   /* wrapped: forget every old mark */
		for (uint32_t i = 0; i < m->nslots; i++)
			m->slots[i].walk = 0;
		m->walk = 1;
	}
	return m->walk;
}

uint64_t gw_qmds_not_kept(const struct gw_qmds *m)
{
	return m ? m->not_kept : 0;
}

uint32_t gw_qmds_count(const struct gw_qmds *m)
{
	return m ? m->used : 0;
}

bool gw_qmds_scratch(struct gw_qmds *m, uint64_t **stack, uint64_t **found)
{
	if (!m->stack)
		m->stack = malloc(GW_QMDS_MAX * sizeof(*m->stack));
	if (!m->found)
		m->found = malloc(GW_QMDS_MAX * sizeof(*m->found));
	*stack = m->stack;
	*found = m->found;
	return m->stack && m->found;
}
