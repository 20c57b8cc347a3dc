// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devnames.h"
#include "grow.h"

void ct_devnames_add(struct ct_devnames *t, uint32_t kdev, bool regfile, uint64_t ino,
		     const char *path, size_t len)
{
	struct ct_devname *n, *nv;

	if (!(nv = ct_grow(t->v, &t->cap, t->n + 1, sizeof(*nv), 16)))
		return;
	t->v = nv;
	n = &t->v[t->n];
	n->path = strndup(path, len);
	if (!n->path)
		return;
	n->kdev = kdev;
	n->regfile = regfile;
	n->ino = ino;
	/* Read once here rather than for every call on the file. */
	n->has_minor = sscanf(n->path, "/dev/nvidia%d", &n->minor) == 1;
	t->n++;
}

const struct ct_devname *ct_devnames_entry(const struct ct_devnames *t, uint32_t kdev,
					   bool regfile, uint64_t ino)
{
	size_t i;

	for (i = t->n; i-- > 0;) {
		const struct ct_devname *n = &t->v[i];

		if (n->kdev == kdev && n->regfile == regfile && (!regfile || n->ino == ino))
			return n;
	}
	return NULL;
}

const char *ct_devnames_find(const struct ct_devnames *t, uint32_t kdev, bool regfile,
			     uint64_t ino)
{
	const struct ct_devname *n = ct_devnames_entry(t, kdev, regfile, ino);

	return n ? n->path : NULL;
}

void ct_devnames_free(struct ct_devnames *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
