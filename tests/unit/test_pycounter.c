// SPDX-License-Identifier: MIT
/*
 * CPython 3.12's count of code objects found without its symbol
 * (capture/python/pycounter.c), on data sections built here: the frozen
 * code objects numbered 1..M, the counter initialised to M + 1 in the file
 * and moved on in the process, and words that look like it but are not
 * (a constant equal to M + 1, one that moved but not past a code object's
 * number).  Then the search in a process: this one, its "file" a temporary
 * file, its memory read through process_vm_readv as the capture reads a
 * traced process.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pycounter.h"
#include "tap.h"

#define SIZE 8192
#define OBJ 128                 /* a frozen code object's room in the image */
#define OB_TYPE 8
#define VERSION 92
#define CODE_TYPE 0x7f0000549e80ull
#define FIRST_OBJ 1024          /* the objects' offset in the image */

struct images {
	_Alignas(16) uint8_t file[SIZE];
	_Alignas(16) uint8_t live[SIZE];
};

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* m frozen code objects, numbered as order says (NULL: 1..m), in both
 * images (the file's type word relocated only in the live one, as in a
 * PIE or a shared library). */
static void frozen(struct images *im, uint32_t m, const uint32_t *order)
{
	for (uint32_t i = 0; i < m; i++) {
		size_t at = FIRST_OBJ + i * OBJ;

		put64(im->live, at + OB_TYPE, CODE_TYPE);
		put32(im->file, at + VERSION, order ? order[i] : i + 1);
		put32(im->live, at + VERSION, order ? order[i] : i + 1);
	}
}

static void word(struct images *im, size_t off, uint32_t in_file, uint32_t live)
{
	put32(im->file, off, in_file);
	put32(im->live, off, live);
}

static enum ct_pycounter_result find(struct images *im, uint32_t newest,
				     struct ct_pycounter_found *f)
{
	struct ct_pycounter_image ci = { .addr = 0x546ca0, .file = im->file, .live = im->live,
					 .size = SIZE };
	struct ct_pycounter_layout lay = { .code_type = CODE_TYPE, .ob_type = OB_TYPE,
					   .version = VERSION };

	return ct_pycounter_find(&ci, &lay, newest, f);
}

static void finds(void)
{
	static struct images im;
	struct ct_pycounter_found f;
	uint32_t shuffled[] = { 3, 1, 4, 2, 5 }, gap[] = { 1, 2, 4, 5, 6 };
	uint32_t twice[] = { 1, 2, 2, 3, 4 };
	enum ct_pycounter_result r;

	memset(&im, 0, sizeof(im));
	frozen(&im, 5, NULL);
	word(&im, 64, 6, 6);                    /* a constant equal to M + 1 */
	word(&im, 200, 6, 4000);                /* the counter */
	r = find(&im, 3990, &f);
	ok(r == CT_PYCOUNTER_FOUND && f.addr == 0x546ca0 + 200 && f.frozen == 5 &&
	   f.candidates == 2 && f.moved == 1,
	   "the counter found past a constant of the same initial value (%d, %#llx, %u, %u, %u)",
	   r, (unsigned long long)f.addr, f.frozen, f.candidates, f.moved);
	r = find(&im, 4000, &f);
	ok(r == CT_PYCOUNTER_NONE && !f.addr,
	   "not taken where a code object's number is not below it (%d: %s)", r,
	   ct_pycounter_why(r, &f));

	word(&im, 200, 6, 6);
	r = find(&im, 5, &f);
	ok(r == CT_PYCOUNTER_NOT_YET, "not moved, no newer code object seen: not yet (%d: %s)", r,
	   ct_pycounter_why(r, &f));
	r = find(&im, 9, &f);
	ok(r == CT_PYCOUNTER_NONE,
	   "not moved though a newer code object was seen: none (%d: %s)", r,
	   ct_pycounter_why(r, &f));

	word(&im, 200, 6, 4000);
	word(&im, 64, 6, 5000);
	r = find(&im, 100, &f);
	ok(r == CT_PYCOUNTER_NONE && f.moved == 2 && !f.addr,
	   "two moved: none taken (%d: %s)", r, ct_pycounter_why(r, &f));
	word(&im, 64, 0, 0);

	memset(&im, 0, sizeof(im));
	frozen(&im, 5, shuffled);
	word(&im, 200, 6, 4000);
	r = find(&im, 0, &f);
	ok(r == CT_PYCOUNTER_FOUND && f.frozen == 5, "numbers in any order (%d, %u)", r, f.frozen);

	memset(&im, 0, sizeof(im));
	frozen(&im, 5, gap);
	word(&im, 200, 7, 4000);
	r = find(&im, 0, &f);
	ok(r == CT_PYCOUNTER_NONE && !f.frozen, "numbers with a gap are not 1..M (%d: %s)", r,
	   ct_pycounter_why(r, &f));

	memset(&im, 0, sizeof(im));
	frozen(&im, 5, twice);
	word(&im, 200, 5, 4000);
	r = find(&im, 0, &f);
	ok(r == CT_PYCOUNTER_NONE && !f.frozen, "a number twice is not 1..M (%d)", r);

	memset(&im, 0, sizeof(im));
	word(&im, 200, 1, 4000);
	r = find(&im, 0, &f);
	ok(r == CT_PYCOUNTER_NONE && !strcmp(ct_pycounter_why(r, &f),
					     "no frozen code objects numbered 1..M in its data"),
	   "no frozen code objects: none (%s)", ct_pycounter_why(r, &f));
}

/* The search in this process: "file" written to a temporary file, the
 * live image in this process's memory at a bias from the ELF address. */
static void hunts(void)
{
	static struct images im;
	char path[] = "/tmp/ct-pycounter-XXXXXX";
	int fd = mkstemp(path);
	struct ct_pycounter_layout lay = { .code_type = CODE_TYPE, .ob_type = OB_TYPE,
					   .version = VERSION };
	struct ct_pycounter_hunt h, child;
	uint64_t elf_addr = 0x546ca0, bias = (uint64_t)(uintptr_t)im.live - elf_addr, at;
	uint64_t code = (uint64_t)(uintptr_t)(im.live + FIRST_OBJ + 2 * OBJ);

	memset(&im, 0, sizeof(im));
	frozen(&im, 5, NULL);
	word(&im, 200, 6, 6);
	ok(fd >= 0 && write(fd, im.file, SIZE) == SIZE, "the file written");
	ok(ct_pycounter_hunt_start(&h, fd, 0, elf_addr, SIZE, bias, &lay) == 0, "search started");
	at = ct_pycounter_hunt_try(&h, getpid(), &code, 1, 1000);
	ok(!at && h.file && h.last == CT_PYCOUNTER_NOT_YET, "not moved yet: searched again later");
	ok(ct_pycounter_hunt_copy(&child, &h) == 0 && child.file && child.file != h.file &&
	   !memcmp(child.file, h.file, SIZE), "a fork's search: a copy of its parent's file image");
	put32(im.live, 200, 77);
	at = ct_pycounter_hunt_try(&child, getpid(), &code, 1, 1001);
	ok(at == (uint64_t)(uintptr_t)(im.live + 200) && !child.file,
	   "... tried at once, found where its parent's would be");
	ct_pycounter_hunt_end(&child);
	at = ct_pycounter_hunt_try(&h, getpid(), &code, 1, 1001);
	ok(!at && h.file, "tried again only after a while");
	at = ct_pycounter_hunt_try(&h, getpid(), &code, 1, 1000 + 30000000);
	ok(at == (uint64_t)(uintptr_t)(im.live + 200) && !h.file,
	   "found once moved: its address in the process, and the search ended (%#llx)",
	   (unsigned long long)at);
	ct_pycounter_hunt_end(&h);

	ok(ct_pycounter_hunt_start(&h, fd, 0, elf_addr, SIZE, 0x1000 - elf_addr, &lay) == 0,
	   "a search where the process has nothing mapped");
	for (int i = 0; i < 100 && h.file; i++)
		ct_pycounter_hunt_try(&h, getpid(), NULL, 0, 1000 + (uint64_t)i * 30000000);
	ok(!h.file && h.last == CT_PYCOUNTER_UNREADABLE,
	   "ends as unreadable after failed reads (%s)", ct_pycounter_why(h.last, &h.found));
	ok(ct_pycounter_hunt_start(&h, fd, 0, elf_addr, 0, bias, &lay) == -1 && !h.file,
	   "no .data: no search");
	ok(ct_pycounter_hunt_copy(&child, &h) == -1 && !child.file,
	   "no search copied where the parent had none");
	close(fd);
	unlink(path);
}

int main(void)
{
	finds();
	hunts();
	return tap_done();
}
