// SPDX-License-Identifier: MIT
/* A process's code mappings as mmap records add to them
 * (capture/stacks/codemaps.c): a new mapping replaces what was mapped in
 * its range before, the rest kept by address. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codemaps.h"
#include "tap.h"

/* A mapping of /dev/null (an fd to hold), ino telling files apart. */
static struct ct_codemap map(uint64_t start, uint64_t end, uint64_t pgoff, uint64_t ino)
{
	struct ct_codemap m = { .start = start, .end = end, .pgoff = pgoff, .ino = ino, .dev = 1,
				.fresh = true };

	m.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	m.path = strdup(ino == 1 ? "/lib/a.so" : "/lib/b.so");
	return m;
}

static enum ct_codemap_added add(struct ct_codemaps *ms, uint64_t start, uint64_t end,
				 uint64_t pgoff, uint64_t ino)
{
	struct ct_codemap m = map(start, end, pgoff, ino);

	return ct_codemaps_add(ms, &m);
}

/* "start-end+pgoff:ino ..." of ms, and whether each holds its own fd. */
static const char *shown(const struct ct_codemaps *ms)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ms->n; i++) {
		const struct ct_codemap *m = &ms->v[i];
		bool own_fd = m->fd >= 0 && fcntl(m->fd, F_GETFD) >= 0 && m->path;

		for (size_t j = 0; j < i; j++)
			own_fd &= ms->v[j].fd != m->fd;
		off += snprintf(buf + off, sizeof(buf) - off, "%s%llx-%llx+%llx:%llu%s",
				i ? " " : "", (unsigned long long)m->start,
				(unsigned long long)m->end, (unsigned long long)m->pgoff,
				(unsigned long long)m->ino, own_fd ? "" : "!");
	}
	return buf;
}

int main(void)
{
	struct ct_codemaps ms = { 0 };

	ok(add(&ms, 0x5000, 0x6000, 0x1000, 1) == CT_CODEMAP_ADDED, "first mapping added");
	ok(add(&ms, 0x1000, 0x2000, 0, 1) == CT_CODEMAP_ADDED, "one below it added");
	ok(!strcmp(shown(&ms), "1000-2000+0:1 5000-6000+1000:1"), "kept by address: %s",
	   shown(&ms));
	ok(add(&ms, 0x5000, 0x6000, 0x1000, 1) == CT_CODEMAP_UNCHANGED,
	   "the same mapping again: unchanged");
	ok(ms.n == 2, "still two mappings");
	ok(add(&ms, 0x5000, 0x6000, 0, 2) == CT_CODEMAP_REPLACED,
	   "another file where the first was: replaced");
	ok(!strcmp(shown(&ms), "1000-2000+0:1 5000-6000+0:2"), "the old one gone: %s",
	   shown(&ms));
	ok(add(&ms, 0x1400, 0x1800, 0, 2) == CT_CODEMAP_REPLACED, "mapped inside an older one");
	ok(!strcmp(shown(&ms), "1000-1400+0:1 1400-1800+0:2 1800-2000+800:1 5000-6000+0:2"),
	   "the older one split around it, each part its file held: %s", shown(&ms));
	ok(add(&ms, 0x1c00, 0x5800, 0x100, 1) == CT_CODEMAP_REPLACED, "mapped across two");
	ok(!strcmp(shown(&ms), "1000-1400+0:1 1400-1800+0:2 1800-1c00+800:1 1c00-5800+100:1 "
			       "5800-6000+800:2"),
	   "the one below cut at its end, the one above at its start: %s", shown(&ms));
	ok(add(&ms, 0x800, 0x7000, 0, 2) == CT_CODEMAP_REPLACED, "mapped over all");
	ok(!strcmp(shown(&ms), "800-7000+0:2"), "one left: %s", shown(&ms));
	ok(add(&ms, 0x7000, 0x8000, 0, 1) == CT_CODEMAP_ADDED, "right above: no overlap");
	ok(!strcmp(shown(&ms), "800-7000+0:2 7000-8000+0:1"), "both kept: %s", shown(&ms));
	ct_codemaps_free(&ms);
	return tap_done();
}
