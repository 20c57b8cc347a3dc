// SPDX-License-Identifier: MIT
/*
 * api and caller from frames records (decoders/stacks/stack.c): the first run of
 * driver-library frames, its exported function, the frame outside it and
 * the fallbacks (module+0xOFF, the nearest named frame of a stripped
 * module, "driver thread", "?"), --api-lib lists, and the join with the
 * call by thread and entry time.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "stack.h"
#include "tap.h"

struct fdesc {
	const char *module, *sym, *exp;
	uint64_t offset;
};

/* A frames record for pid 7, tid 8, entry time ts, from the innermost out. */
static struct ct_frames *make(const struct fdesc *fd, uint32_t n, uint32_t status, uint64_t ts)
{
	static unsigned char buf[65536];
	struct ct_frames *f = (struct ct_frames *)buf;
	struct ct_frame *fr = (struct ct_frame *)(f + 1);
	char *strings = (char *)(fr + n);
	uint32_t used = 0, i;

	memset(buf, 0, sizeof(buf));
#define ADD(s) ((s) ? (strcpy(strings + used, (s)), used += (uint32_t)strlen(s) + 1, \
			used - (uint32_t)strlen(s) - 1) : CT_NOSTR)
	for (i = 0; i < n; i++) {
		fr[i].pc = 0x7f0000000000ull + fd[i].offset;
		fr[i].offset = fd[i].offset;
		fr[i].module = ADD(fd[i].module);
		fr[i].sym = ADD(fd[i].sym);
		fr[i].exp = ADD(fd[i].exp);
		fr[i].src = CT_NOSTR;
	}
#undef ADD
	f->h.type = CT_REC_FRAMES;
	f->h.ts_ns = ts;
	f->h.pid = 7;
	f->h.tid = 8;
	f->nframes = n;
	f->status = status;
	f->strings_size = used;
	f->h.size = (uint32_t)(sizeof(*f) + n * sizeof(*fr) + used);
	return f;
}

static void attribute(const char *lib, const struct fdesc *fd, uint32_t n, uint32_t status,
		      const char *want_api, const char *want_caller, const char *what)
{
	struct ct_stacks *s = ct_stacks_new(lib);
	struct ct_call c = { .pid = 7, .tid = 8, .ts_ns = 1000 };

	ct_stacks_learn(s, make(fd, n, status, 1000));
	ct_stacks_describe(s, &c);
	ok(c.stack != NULL, "%s: the call has its stack", what);
	ok_str(c.api ? c.api : "(none)", want_api, what);
	ok_str(c.caller ? c.caller : "(none)", want_caller, what);
	ct_stacks_free(s);
}

/* The same with the capture's end record (kind, need) after the frames,
 * on thread tid of pid 7. */
static void attribute_end(const struct fdesc *fd, uint32_t n, uint32_t tid, uint32_t kind,
			  uint32_t need, const char *want_caller, enum ct_stack_why want_why,
			  const char *what)
{
	struct ct_stacks *s = ct_stacks_new(NULL);
	struct ct_call c = { .pid = 7, .tid = tid, .ts_ns = 1000 };
	struct ct_frames *f = make(fd, n, CT_UNWIND_END, 1000);
	struct ct_stack_end e = { .h = { CT_REC_STACK_END, sizeof(e), 1000, 7, tid },
				  .kind = kind, .need_bytes = need };

	f->h.tid = tid;
	f->stack_size = 32768;
	ct_stacks_learn(s, f);
	ct_stacks_learn_end(s, &e);
	ct_stacks_describe(s, &c);
	ok(c.stack && c.stack_end, "%s: the call has its stack and its end", what);
	ok_str(c.caller ? c.caller : "(none)", want_caller, what);
	ok(c.stack && ct_stacks_why(s, c.stack) == want_why, "%s: counted as why %d", what,
	   want_why);
	ct_stacks_free(s);
}

/* The kernel's walk (CT_REC_KSTACK): sizes and the end checked. */
static void test_kstack_check(void)
{
	struct {
		struct ct_kstack k;
		uint64_t pcs[3];
	} r = { .k = { .h = { CT_REC_KSTACK, sizeof(r), 1, 7, 8 }, .nframes = 3,
		       .end = CT_STACK_END_COMPLETE_FP } };

	ok(ct_record_check(&r, sizeof(r)) == NULL, "a KSTACK record of 3 frames passes");
	r.k.nframes = 4;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "more frames than its size holds: refused");
	r.k.nframes = 3;
	r.k.end = CT_STACK_END_KINDS;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "an end no version knows: refused");
	r.k.end = CT_STACK_END_COMPLETE;
	r.k.gap_at = 2;
	ok(ct_record_check(&r, sizeof(r)) == NULL, "a gap after 2 of its 3 frames passes");
	r.k.gap_at = 3;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "a gap with no frame above it: refused");
}

/* The stack between a frame the kernel could not step and the last walk's
 * frame above it (CT_REC_KSTACK_GAP): its bytes as its two sps say. */
static void test_kstack_gap_check(void)
{
	struct {
		struct ct_kstack_gap g;
		uint8_t bytes[48];
	} r = { .g = { .h = { CT_REC_KSTACK_GAP, sizeof(r), 1, 7, 8 }, .at = 1, .sp = 0x7000,
		       .end_sp = 0x7030 } };

	ok(ct_record_check(&r, sizeof(r)) == NULL, "a gap of 48 bytes passes");
	r.g.end_sp = 0x7038;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "sps that say more bytes than it holds: refused");
	r.g.end_sp = 0x7000;
	r.g.h.size = sizeof(r.g);
	ok(ct_record_check(&r, sizeof(r.g)) != NULL, "an empty gap: refused");
	r.g.end_sp = 0x7000 + CT_KSTACK_GAP_MAX + 8;
	ok(ct_record_check(&r, sizeof(r.g)) != NULL, "a gap past the most the kernel sends: refused");
	r.g.end_sp = 0x7030;
	r.g.h.size = sizeof(r);
	r.g.at = 0;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "a gap at no frame: refused");
	r.g.at = CT_KSTACK_FRAMES;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "a gap past the frame bound: refused");
	r.g.at = 1;
	r.g.sp = 0x7030;
	r.g.end_sp = 0x7000;
	ok(ct_record_check(&r, sizeof(r)) != NULL, "an end below its start: refused");
}

/* A ring sample of two records (bpf/emit.bpf.h emit_two), and sizes that
 * do not give a whole aligned record: the rest goes to the check. */
static void test_record_split(void)
{
	struct {
		struct ct_pystack py;
		struct ct_pyframe_raw f;
		struct ct_kstack k;
		uint64_t pcs[2];
	} two = { .py = { .h = { CT_REC_PYSTACK, sizeof(two.py) + sizeof(two.f), 1, 7, 8 },
			  .nframes = 1 },
		  .k = { .h = { CT_REC_KSTACK, sizeof(two.k) + sizeof(two.pcs), 1, 7, 8 },
			 .nframes = 2 } };
	size_t first = ct_record_split(&two, sizeof(two));
	const unsigned char *rest = (const unsigned char *)&two + first;

	ok(first == two.py.h.size && ct_record_check(&two, first) == NULL,
	   "a sample of two: the Python record first, whole");
	ok(ct_record_split(rest, sizeof(two) - first) == sizeof(two) - first &&
	   ct_record_check(rest, sizeof(two) - first) == NULL, "... then the kernel's walk, whole");
	two.py.h.size = sizeof(two) + 8;
	ok(ct_record_split(&two, sizeof(two)) == sizeof(two), "a size past the sample: the rest");
	two.py.h.size = 4;
	ok(ct_record_split(&two, sizeof(two)) == sizeof(two), "a size under a header: the rest");
	two.py.h.size = 44;
	ok(ct_record_split(&two, sizeof(two)) == sizeof(two), "an unaligned size: the rest");
	ok(ct_record_split(&two, 8) == 8, "a sample shorter than a header: all of it");
}

int main(void)
{
	const struct fdesc cudart[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/nix/libcuda.so.580", NULL, NULL, 0x48bc08 },
		{ "/nix/libcuda.so.580", "cuMemAlloc_v2", "cuMemAlloc_v2", 0x34074c },
		{ "/lib/libcudart.so.13", NULL, NULL, 0x41b5e },
		{ "/lib/libcudart.so.13", "cudaMalloc", "cudaMalloc", 0x50cc3 },
		{ "/lib/libtorch.so", "at::empty", NULL, 0x10 },
	};
	const struct fdesc no_export[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/lib/libcuda.so.1", NULL, NULL, 0x2d22c0 },
		{ "/bin/app", "main", NULL, 0x10 },
	};
	const struct fdesc thread[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/lib/libcuda.so.1", NULL, NULL, 0x1000 },
		{ "/lib/libc.so.6", "start_thread", NULL, 0x200 },
		{ "/lib/libc.so.6", "clone3", NULL, 0x300 },
	};
	const struct fdesc cut[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/lib/libcuda.so.1", "cuInit", "cuInit", 0x1000 },
	};
	const struct fdesc direct[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/bin/app", "poke", NULL, 0x10 },
	};
	const struct fdesc nvml[] = {
		{ "/lib/libc.so.6", "ioctl", "ioctl", 0x100 },
		{ "/lib/libnvidia-ml.so.580", "nvmlInit_v2", "nvmlInit_v2", 0x10 },
		{ "/lib/libffi.so.8", NULL, NULL, 0x7b16 },
	};
	struct ct_stacks *s;
	struct ct_call c = { .pid = 7, .tid = 8, .ts_ns = 999 };

	attribute(NULL, cudart, 6, CT_UNWIND_END, "cuMemAlloc_v2", "cudaMalloc",
		  "cudart's stripped frame is named by cudaMalloc further out");
	attribute(NULL, no_export, 3, CT_UNWIND_END, "libcuda.so.1+0x2d22c0", "main",
		  "no exported function: module+0xOFF");
	attribute(NULL, thread, 4, CT_UNWIND_END, "libcuda.so.1+0x1000", "driver thread",
		  "a thread of the driver's own");
	attribute(NULL, cut, 2, CT_UNWIND_NO_STACK, "cuInit", "stack copy too short: -k65536",
		  "an old trace's stack cut inside the library: a copy too short");
	attribute(NULL, cut, 2, CT_UNWIND_END, "cuInit", "?",
		  "an old trace's stack that 'ends' inside the library: not called a thread kind");

	/* With the capture's reason (CT_REC_STACK_END). */
	attribute_end(cut, 2, 7, CT_STACK_END_COPY_SHORT, 40000, "stack copy too short: -k65536",
		      CT_WHY_COPY_SHORT, "main thread, copy too short by 8 KB: -k65536");
	attribute_end(cut, 2, 8, CT_STACK_END_COPY_SHORT, 20000, "stack copy too short: -k32768",
		      CT_WHY_COPY_SHORT, "the next size that copies what was asked: -k32768");
	attribute_end(cut, 2, 7, CT_STACK_END_COPY_SHORT, 70000,
		      "stack copy too short: deeper than -k65536", CT_WHY_COPY_SHORT,
		      "deeper than any -k");
	attribute_end(cut, 2, 7, CT_STACK_END_NO_CFI, 0, "no CFI", CT_WHY_NO_CFI, "no CFI");
	attribute_end(cut, 2, 7, CT_STACK_END_BAD_READ, 0, "bad stack read", CT_WHY_BAD_READ,
		      "a bad read");
	attribute_end(cut, 2, 7, CT_STACK_END_NO_FP, 0, "no CFI, no frame pointer", CT_WHY_NO_FP,
		      "the kernel's walk: code without CFI, rbp no frame pointer");
	attribute_end(cut, 2, 7, CT_STACK_END_MAX_BYTES, 8u << 20, "stack deeper than 8 MiB",
		      CT_WHY_MAX_BYTES, "the kernel's walk: past its bound, 8 MiB above sp");
	attribute_end(cut, 2, 8, CT_STACK_END_COMPLETE_FP, 0, "driver thread", CT_WHY_DRIVER_THREAD,
		      "complete through code walked by frame pointer, inside the library on "
		      "another thread: the driver's own");
	attribute_end(cut, 2, 8, CT_STACK_END_COMPLETE, 0, "driver thread", CT_WHY_DRIVER_THREAD,
		      "complete inside the library on another thread: the driver's own");
	attribute_end(cut, 2, 7, CT_STACK_END_COMPLETE, 0, "?", CT_WHY_UNKNOWN,
		      "complete inside the library on the main thread: no thread kind");
	attribute_end(thread, 4, 8, CT_STACK_END_COMPLETE, 0, "driver thread",
		      CT_WHY_DRIVER_THREAD, "started by start_thread into the library");
	attribute_end(cudart, 6, 7, CT_STACK_END_COPY_SHORT, 40000, "cudaMalloc",
		      CT_WHY_COPY_SHORT, "cut outside the library: the caller is a frame");
	attribute(NULL, direct, 2, CT_UNWIND_END, "(none)", "(none)",
		  "a program's own ioctl: neither");
	attribute(NULL, nvml, 3, CT_UNWIND_END, "nvmlInit_v2", "libffi.so.8+0x7b16",
		  "NVML is a driver library by default; an unnamed caller by offset");
	attribute("libcuda.so*", nvml, 3, CT_UNWIND_END, "(none)", "(none)",
		  "--api-lib libcuda.so*: NVML is not");
	attribute("libfoo*,libnvidia-ml*", nvml, 3, CT_UNWIND_END, "nvmlInit_v2",
		  "libffi.so.8+0x7b16", "--api-lib list: the second pattern");

	/* Joined by thread and entry time only. */
	s = ct_stacks_new(NULL);
	ct_stacks_learn(s, make(cudart, 6, CT_UNWIND_END, 1000));
	ct_stacks_describe(s, &c);
	ok(!c.stack && !c.api, "a call of another entry time does not get the stack");
	c.ts_ns = 1000;
	c.tid = 9;
	ct_stacks_describe(s, &c);
	ok(!c.stack, "a call of another thread does not get it");
	ct_stacks_forget(s, 8);
	c.tid = 8;
	ct_stacks_describe(s, &c);
	ok(!c.stack, "forgotten with its thread");
	ct_stacks_free(s);
	test_kstack_check();
	test_kstack_gap_check();
	test_record_split();
	return tap_done();
}
