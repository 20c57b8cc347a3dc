// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pycode.h"
#include "pycounter.h"

/* A larger .data is not CPython's (3.12's is about 1 MiB). */
#define DATA_MAX (64u << 20)
/* Tries at most this often: each reads the whole .data. */
#define RETRY_NS 20000000ull
/* Tries whose reads failed before the search ends. */
#define UNREADABLE_MAX 50

static uint64_t word64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t word32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/*
 * M, where the live image holds the frozen code objects numbered 1..M, each
 * once (objects are 8-byte aligned; one is known by its type); 0 where it
 * holds none, or numbers that are not that.
 */
static uint32_t frozen_count(const struct ct_pycounter_image *im,
			     const struct ct_pycounter_layout *lay)
{
	size_t reach = (lay->ob_type > lay->version ? lay->ob_type + 8 : lay->version + 4);
	uint32_t n = 0, top = 0, bad = 0;
	uint8_t *seen;

	if (im->size < reach || !lay->code_type)
		return 0;
	/* At most one object per 8 bytes: numbers above that are not 1..M. */
	seen = calloc(im->size / 8 + 2, 1);
	if (!seen)
		return 0;
	for (size_t off = 0; off + reach <= im->size; off += 8) {
		uint32_t v;

		if (word64(im->live, off + lay->ob_type) != lay->code_type)
			continue;
		v = word32(im->live, off + lay->version);
		if (v == 0 || v > im->size / 8 || seen[v]) {
			bad++;
			continue;
		}
		seen[v] = 1;
		n++;
		top = v > top ? v : top;
	}
	free(seen);
	return !bad && n == top ? n : 0;
}

enum ct_pycounter_result ct_pycounter_find(const struct ct_pycounter_image *im,
					   const struct ct_pycounter_layout *lay, uint32_t newest,
					   struct ct_pycounter_found *out)
{
	uint32_t m = frozen_count(im, lay);

	memset(out, 0, sizeof(*out));
	out->frozen = m;
	if (!m)
		return CT_PYCOUNTER_NONE;
	for (size_t off = 0; off + 4 <= im->size; off += 4) {
		uint32_t now;

		if (word32(im->file, off) != m + 1)
			continue;
		out->candidates++;
		now = word32(im->live, off);
		if (now > m + 1 && now > newest) {
			out->moved++;
			out->addr = im->addr + off;
		}
	}
	if (out->moved == 1)
		return CT_PYCOUNTER_FOUND;
	out->addr = 0;
	/* None moved and no code object newer than the frozen ones seen: the
	 * process may have made none yet. */
	return !out->moved && out->candidates && newest <= m ? CT_PYCOUNTER_NOT_YET
							     : CT_PYCOUNTER_NONE;
}

const char *ct_pycounter_why(enum ct_pycounter_result r, const struct ct_pycounter_found *f)
{
	switch (r) {
	case CT_PYCOUNTER_FOUND:
		return "found";
	case CT_PYCOUNTER_NOT_YET:
		return "no code object made yet";
	case CT_PYCOUNTER_UNREADABLE:
		return "its memory could not be read";
	case CT_PYCOUNTER_NONE:
		break;
	}
	if (!f->frozen)
		return "no frozen code objects numbered 1..M in its data";
	if (!f->candidates)
		return "no word of its data initialised to the frozen count + 1";
	return f->moved ? "several words could be it" : "no candidate moved on";
}

int ct_pycounter_hunt_start(struct ct_pycounter_hunt *h, int fd, uint64_t off, uint64_t addr,
			    size_t size, uint64_t bias, const struct ct_pycounter_layout *lay)
{
	memset(h, 0, sizeof(*h));
	h->last = CT_PYCOUNTER_NOT_YET;
	if (!size || size > DATA_MAX || !lay->code_type)
		return -1;
	h->file = malloc(size);
	if (!h->file || pread(fd, h->file, size, (off_t)off) != (ssize_t)size) {
		ct_pycounter_hunt_end(h);
		return -1;
	}
	h->addr = addr;
	h->bias = bias;
	h->size = size;
	h->lay = *lay;
	return 0;
}

int ct_pycounter_hunt_copy(struct ct_pycounter_hunt *child, const struct ct_pycounter_hunt *parent)
{
	*child = *parent;
	child->next_ns = 0;
	child->unreadable = 0;
	child->file = parent->file ? malloc(parent->size) : NULL;
	if (!child->file)
		return -1;
	memcpy(child->file, parent->file, parent->size);
	return 0;
}

void ct_pycounter_hunt_end(struct ct_pycounter_hunt *h)
{
	free(h->file);
	h->file = NULL;
}

/* The largest number of the code objects at codes (those still code objects). */
static uint32_t newest_of(const struct ct_pycounter_hunt *h, pid_t pid, const uint64_t *codes,
			  size_t n)
{
	uint32_t newest = 0, v;
	uint64_t type;

	for (size_t i = 0; i < n && i < CT_PYCOUNTER_CODES_MAX; i++)
		if (codes[i] &&
		    !ct_pymem_read(pid, codes[i] + h->lay.ob_type, &type, sizeof(type)) &&
		    type == h->lay.code_type &&
		    !ct_pymem_read(pid, codes[i] + h->lay.version, &v, sizeof(v)))
			newest = v > newest ? v : newest;
	return newest;
}

uint64_t ct_pycounter_hunt_try(struct ct_pycounter_hunt *h, pid_t pid, const uint64_t *codes,
			       size_t n, uint64_t now_ns)
{
	struct ct_pycounter_image im = { .addr = h->addr, .file = h->file, .size = h->size };
	uint32_t newest;
	uint8_t *live;

	if (!h->file || now_ns < h->next_ns)
		return 0;
	h->next_ns = now_ns + RETRY_NS;
	newest = newest_of(h, pid, codes, n);
	live = malloc(h->size);
	if (!live || ct_pymem_read(pid, h->addr + h->bias, live, h->size)) {
		free(live);
		if (++h->unreadable >= UNREADABLE_MAX) {
			h->last = CT_PYCOUNTER_UNREADABLE;
			ct_pycounter_hunt_end(h);
		}
		return 0;
	}
	im.live = live;
	h->last = ct_pycounter_find(&im, &h->lay, newest, &h->found);
	free(live);
	if (h->last != CT_PYCOUNTER_NOT_YET)
		ct_pycounter_hunt_end(h);
	return h->last == CT_PYCOUNTER_FOUND ? h->found.addr + h->bias : 0;
}
