// SPDX-License-Identifier: MIT
/*
 * Questions to nvproxy's driver ABI tree (gvisor_abi.h): which node serves a
 * driver, and what a node has.  The tree is small (tens of nodes, hundreds
 * of entries): lookups walk it rather than build per-node sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvisor_abi.h"
#include "grow.h"

const struct ct_gv_snapshot *ct_gv_snapshot_find(const char *id)
{
	size_t len = id ? strlen(id) : 0;
	unsigned i;

	if (!id || !*id)
		return ct_gv_nsnapshots ? &ct_gv_snapshots[0] : NULL;
	for (i = 0; i < ct_gv_nsnapshots; i++) {
		const struct ct_gv_snapshot *s = &ct_gv_snapshots[i];

		if (strcmp(s->id, id) == 0 || (len >= 7 && strncmp(s->commit, id, len) == 0))
			return s;
	}
	return NULL;
}

static const struct ct_gv_op *node_op(const struct ct_gv_node *n, int kind, uint32_t number)
{
	uint32_t i;

	for (i = n->nops; i-- > 0;) {   /* the node's last word on it wins */
		const struct ct_gv_op *op = &ct_gv_ops[n->first_op + i];

		if (op->kind == kind && op->number == number)
			return op;
	}
	return NULL;
}

const struct ct_gv_op *ct_gv_lookup(const struct ct_gv_node *n, int kind, uint32_t number)
{
	while (n) {
		const struct ct_gv_op *op = node_op(n, kind, number);

		if (op)
			return op->del ? NULL : op;
		n = n->parent < 0 ? NULL : &ct_gv_nodes[n->parent];
	}
	return NULL;
}

static uint32_t branch(uint32_t v)
{
	return v / 1000000;
}

static uint32_t distance(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

/* Only registered nodes: they are what runsc can be told to use. */
const struct ct_gv_node *ct_gv_node_for(const struct ct_gv_snapshot *s, uint32_t driver,
					enum ct_gv_match *how)
{
	const struct ct_gv_node *anc = NULL, *near = NULL;
	uint32_t i;

	for (i = 0; i < s->nnodes; i++) {
		const struct ct_gv_node *n = &ct_gv_nodes[s->first_node + i];

		if (n->version == 0) {
			*how = CT_GV_ANY;
			return n;
		}
		if (!n->registered)
			continue;
		if (n->version == driver) {
			*how = CT_GV_EXACT;
			return n;
		}
		if (driver && branch(n->version) == branch(driver) && n->version < driver &&
		    (!anc || n->version > anc->version))
			anc = n;
		if (!near || (driver ? distance(n->version, driver) < distance(near->version, driver)
				     : n->supported && n->version > near->version))
			near = n;
	}
	*how = anc ? CT_GV_ANCESTOR : CT_GV_NO_BRANCH;
	return anc ? anc : near;
}

const struct ct_gv_node *ct_gv_first_with(const struct ct_gv_snapshot *s, int kind,
					  uint32_t number)
{
	const struct ct_gv_node *best = NULL;
	uint32_t i;

	for (i = 0; i < s->nnodes; i++) {
		const struct ct_gv_node *n = &ct_gv_nodes[s->first_node + i];

		if (n->registered && (!best || n->version < best->version) &&
		    ct_gv_lookup(n, kind, number))
			best = n;
	}
	return best;
}

const struct ct_gv_node *ct_gv_last_with(const struct ct_gv_snapshot *s, int kind,
					 uint32_t number, const struct ct_gv_node **dropped)
{
	const struct ct_gv_node *last = NULL, *n;
	uint32_t i;

	*dropped = NULL;
	for (i = 0; i < s->nnodes; i++) {
		n = &ct_gv_nodes[s->first_node + i];
		if (n->registered && (!last || n->version > last->version) &&
		    ct_gv_lookup(n, kind, number))
			last = n;
	}
	for (i = 0; last && i < s->nnodes; i++) {
		n = &ct_gv_nodes[s->first_node + i];
		if (n->registered && n->version > last->version &&
		    (!*dropped || n->version < (*dropped)->version) && !ct_gv_lookup(n, kind, number))
			*dropped = n;
	}
	return last;
}

static bool in_list(const uint32_t *list, uint32_t n, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* Every number of kind named anywhere on the way to the root, counted once
 * if the node has it. */
uint32_t ct_gv_count(const struct ct_gv_node *node, int kind)
{
	const struct ct_gv_node *n;
	uint32_t *seen = NULL, *more, nseen = 0, count = 0, i;
	size_t cap = 0;

	for (n = node; n; n = n->parent < 0 ? NULL : &ct_gv_nodes[n->parent])
		for (i = 0; i < n->nops; i++) {
			const struct ct_gv_op *op = &ct_gv_ops[n->first_op + i];

			if (op->kind != kind || in_list(seen, nseen, op->number))
				continue;
			if (!(more = ct_grow(seen, &cap, nseen + 1, sizeof(*more), 256))) {
				free(seen);
				return 0;
			}
			seen = more;
			seen[nseen++] = op->number;
			count += ct_gv_lookup(node, kind, op->number) != NULL;
		}
	free(seen);
	return count;
}

static const struct ct_gv_cap *cap_at(const struct ct_gv_snapshot *s, uint32_t i)
{
	return &ct_gv_caps[s->first_cap + i];
}

/* "all" is what nvproxy's "all" enables; other words are single names. */
static bool cap_word(const struct ct_gv_snapshot *s, const char *w, size_t len, uint16_t *out)
{
	bool found = false;
	uint32_t i;

	for (i = 0; i < s->ncaps; i++) {
		const struct ct_gv_cap *c = cap_at(s, i);
		bool all = len == 3 && strncmp(w, "all", 3) == 0;

		if ((all && c->all) || (strlen(c->name) == len && strncmp(w, c->name, len) == 0)) {
			*out |= (uint16_t)(1u << c->bit);
			found = true;
		}
	}
	return found;
}

bool ct_gv_caps_parse(const struct ct_gv_snapshot *s, const char *list, uint16_t *out,
		      const char **bad)
{
	static char word[64];
	const char *p = list;

	*out = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && !cap_word(s, p, len, out)) {
			snprintf(word, sizeof(word), "%.*s", (int)len, p);
			*bad = word;
			return false;
		}
		p += len + (p[len] == ',');
	}
	return true;
}

const char *ct_gv_caps_str(const struct ct_gv_snapshot *s, uint16_t caps, char *buf, size_t n)
{
	size_t used = 0;
	uint32_t i;

	if (n)
		buf[0] = '\0';
	for (i = 0; i < s->ncaps && used < n; i++)
		if (caps & (1u << cap_at(s, i)->bit)) {
			int w = snprintf(buf + used, n - used, "%s%s", used ? "," : "",
					 cap_at(s, i)->name);

			used += w > 0 ? (size_t)w : 0;
		}
	return buf;
}

uint16_t ct_gv_caps_default(const struct ct_gv_snapshot *s)
{
	uint16_t caps = 0;
	uint32_t i;

	for (i = 0; i < s->ncaps; i++)
		if (cap_at(s, i)->dflt)
			caps |= (uint16_t)(1u << cap_at(s, i)->bit);
	return caps;
}
