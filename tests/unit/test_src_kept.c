// SPDX-License-Identifier: MIT
/* Source lines kept across captures (capture/stacks/src_kept.c): kept and
 * read back, refused where their DWARF came from elsewhere or the file is
 * not whole, lines that cannot be kept refused, and where the DWARF comes
 * from. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_text.h"
#include "src_kept.h"
#include "tap.h"

static char dir[] = "/tmp/ct-srckept-XXXXXX";

/* Writes text as the file kept for id, then reads it as from FROM. */
static int load_text(const char *id, const char *text, const char *from, struct idmap *m)
{
	int err = put_cache_text(dir, id, CT_SRC_KEPT_SUFFIX, text);

	return err ? err : ct_src_kept_load(dir, id, from, m);
}

static void round_trip(void)
{
	struct idmap m = { 0 }, b = { 0 };
	const char *t;

	ok(ct_src_kept_put(&m, 0x1327, "../csu/libc-start.c:360") &&
	   ct_src_kept_put(&m, 0, NULL) && ct_src_kept_put(&m, 0xfffffffffffffffeull, "a b.c:1"),
	   "lines put: one, an address without a line, the highest address");
	ok(ct_src_kept_save(dir, "lib-1", "build-id 10 2.000000003", &m) == 0, "kept");
	ok(ct_src_kept_load(dir, "lib-1", "build-id 10 2.000000003", &b) == 0 && b.used == 3 &&
	   (t = ct_src_kept_get(&b, 0x1327)) && !strcmp(t, "../csu/libc-start.c:360") &&
	   (t = ct_src_kept_get(&b, 0)) && !*t && (t = ct_src_kept_get(&b, 0xfffffffffffffffeull)) &&
	   !strcmp(t, "a b.c:1") && !ct_src_kept_get(&b, 0x1328),
	   "read back: every line, the one without, none for another address");
	idmap_free_all(&b);
	ok(ct_src_kept_load(dir, "lib-1", "build-id 10 2.000000004", &b) == -EINVAL && !b.used,
	   "from other DWARF (another debug file): -EINVAL, nothing read");
	ok(ct_src_kept_load(dir, "none", "self", &b) == -ENOENT, "none kept: -ENOENT");
	ok(ct_src_kept_put(&m, 0x1327, "x.c:2") && !strcmp(ct_src_kept_get(&m, 0x1327), "x.c:2") &&
	   m.used == 3, "a line put again replaces the old");
	idmap_free_all(&m);
}

static void not_kept(void)
{
	struct idmap m = { 0 };
	char *long_text = malloc(CT_SRC_KEPT_TEXT_MAX + 2);
	bool all = true;

	memset(long_text, 'a', CT_SRC_KEPT_TEXT_MAX + 1);
	long_text[CT_SRC_KEPT_TEXT_MAX + 1] = 0;
	ok(!ct_src_kept_put(&m, 1, "a\tb.c:1") && !ct_src_kept_put(&m, 1, "a\nb.c:1") &&
	   !ct_src_kept_put(&m, 1, long_text) && !ct_src_kept_put(&m, UINT64_MAX, "a.c:1") &&
	   !m.used, "a tab, a newline, a line too long, the address 2^64-1: not kept");
	long_text[CT_SRC_KEPT_TEXT_MAX] = 0;
	ok(ct_src_kept_put(&m, 1, long_text), "a line of CT_SRC_KEPT_TEXT_MAX bytes kept");
	for (uint64_t a = 2; a <= CT_SRC_KEPT_MAX; a++)
		all &= ct_src_kept_put(&m, a, "f.c:1");
	ok(all && m.used == CT_SRC_KEPT_MAX && !ct_src_kept_put(&m, CT_SRC_KEPT_MAX + 1, "f.c:1") &&
	   ct_src_kept_put(&m, 5, "g.c:2"),
	   "a file's lines full at CT_SRC_KEPT_MAX: a new address refused, a kept one replaced");
	ok(ct_src_kept_save(dir, "full", "self", &m) == 0, "a full file kept");
	idmap_free_all(&m);
	ok(ct_src_kept_load(dir, "full", "self", &m) == 0 && m.used == CT_SRC_KEPT_MAX &&
	   !strcmp(ct_src_kept_get(&m, 5), "g.c:2") &&
	   strlen(ct_src_kept_get(&m, 1)) == CT_SRC_KEPT_TEXT_MAX, "and read back whole");
	idmap_free_all(&m);
	free(long_text);
}

static void refused(void)
{
	static const char *const bad[] = {
		"",                                                    /* empty */
		"cudatrace-src-lines 2\nfrom self\n0\n",               /* another version */
		"cudatrace-src-lines 1\n",                             /* cut after the magic */
		"cudatrace-src-lines 1\nfrom none\n0\n",               /* other DWARF */
		"cudatrace-src-lines 1\nfrom self\n",                  /* no count */
		"cudatrace-src-lines 1\nfrom self\n2\n10\ta.c:1\n",    /* fewer than said */
		"cudatrace-src-lines 1\nfrom self\n1\n10\ta.c:1\n20\tb.c:2\n", /* more */
		"cudatrace-src-lines 1\nfrom self\n1\n10\ta.c:1",      /* no line end */
		"cudatrace-src-lines 1\nfrom self\n1\nzz\ta.c:1\n",    /* not hex */
		"cudatrace-src-lines 1\nfrom self\n1\n10 a.c:1\n",     /* no tab */
		"cudatrace-src-lines 1\nfrom self\n1\n10\ta\tb.c:1\n", /* a tab in the text */
		"cudatrace-src-lines 1\nfrom self\n2\n10\ta.c:1\n10\tb.c:1\n", /* one address twice */
		"cudatrace-src-lines 1\nfrom self\n1x\n",              /* a count with junk */
		"cudatrace-src-lines 1\nfrom self\n65537\n",           /* over CT_SRC_KEPT_MAX */
		"cudatrace-src-lines 1\nfrom self\n1\n10000000000000000\ta.c:1\n", /* over 64 bits */
		"cudatrace-src-lines 1\nfrom self\n1\nffffffffffffffff\ta.c:1\n", /* 2^64-1 */
	};
	struct idmap m = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int err = load_text("bad", bad[i], "self", &m);

		ok(err == -EINVAL && !m.used, "refused (-EINVAL, nothing kept): case %zu", i);
	}
	ok(load_text("zero", "cudatrace-src-lines 1\nfrom self\n0\n", "self", &m) == 0 && !m.used,
	   "0 lines read as none");
}

/* Where this test's own DWARF comes from: it is built with -g. */
static void from(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *elf;
	char out[CT_SRC_KEPT_FROM_MAX];

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	ct_src_kept_from(elf, NULL, out);
	ok(!strcmp(out, "self"), "a file with its own .debug_line: from \"%s\"", out);
	ct_src_kept_from(NULL, "abcdef0123456789", out);
	ok(!strcmp(out, "none"), "no ELF, a build-id with no debug file: from \"%s\"", out);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		return 1;
	round_trip();
	not_kept();
	refused();
	from();
	ok(ct_src_kept_save("/proc/no/such", "x", "self", &(struct idmap){ 0 }) < 0,
	   "a folder that cannot be made: an error, nothing else");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
