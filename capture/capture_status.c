// SPDX-License-Identifier: MIT
/*
 * What a live capture says about itself on stderr (capture_status.h): a
 * status line, redrawn once a second while -w writes to a file from a
 * terminal, and the closing counts.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "capture_bpf.h"
#include "capture_status.h"
#include "clock.h"
#include "gpuwork_reader.h"
#include "knames_live.h"
#include "python.h"
#include "stack_tally.h"
#include "trace_file.h"
#include "ktables.h"
#include "unwind.h"
#include "symbolize.h"
#include "msg.h"

void ct_status_line(struct ct_capture *c, bool last)
{
	uint64_t now = ct_now_ns(CLOCK_MONOTONIC), scratch[1024];
	int ncpu = libbpf_num_possible_cpus();
	double secs = (double)(now - c->status_ns) / 1e9;
	uint64_t lost, events = __atomic_load_n(&c->events, __ATOMIC_RELAXED);

	if (!c->writer || !isatty(STDERR_FILENO) || ncpu > 1024)
		return;
	if (last) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (secs < 1.0)
		return;
	lost = ct_bpf_counter(c->skel, CT_CNT_LOST, scratch, ncpu);
	fprintf(stderr, "\r\033[Kcudatrace: %llu events, %.0f/s, %.1f MB written, %llu lost",
		(unsigned long long)events, (double)(events - c->status_events) / secs,
		(double)ct_writer_bytes(c->writer) / 1e6, (unsigned long long)lost);
	c->status_ns = now;
	c->status_events = events;
}

/* -k: why stacks were walked by libdw, not from the rules kept (one
 * reason a stack: the first frame that had none). */
static void report_left_to_libdw(const struct ct_unwind_stats *us)
{
	static const char *const why[CT_CFI_NONE_KINDS] = {
		[CT_CFI_NO_MODULE] = "no module", [CT_CFI_NO_FDE] = "no FDE",
		[CT_CFI_SIGNAL] = "a signal frame",
		[CT_CFI_RA_SHAPE] = "a return address rule", [CT_CFI_CFA_SHAPE] = "a CFA rule",
		[CT_CFI_RSP_SHAPE] = "an rsp rule", [CT_CFI_RBP_SHAPE] = "an rbp rule",
	};
	const char *sep = "";
	uint64_t left = 0;

	for (int i = 0; i < CT_CFI_NONE_KINDS; i++)
		left += us->left_to_libdw[i];
	if (!left)   /* stacks of a process without mappings were walked by neither */
		return;
	ct_err("walked by libdw:");
	for (int i = 0; i < CT_CFI_NONE_KINDS; i++) {
		if (!us->left_to_libdw[i] || !why[i])
			continue;
		fprintf(stderr, "%s %llu for %s", sep, (unsigned long long)us->left_to_libdw[i], why[i]);
		sep = ",";
	}
	fputc('\n', stderr);
}

static double per_stack(uint64_t n, uint64_t stacks)
{
	return stacks ? (double)n / (double)stacks : 0;
}

/* A build with BPF_DEFS=-DCT_TIMED: where the stacks' BPF time went. */
static void report_timed(const struct ct_capture *c, uint64_t walked)
{
	uint64_t walk = ct_bpf_counter_total(c->skel, CT_CNT_TIMED_KWALK_NS);
	uint64_t kstack = ct_bpf_counter_total(c->skel, CT_CNT_TIMED_KSTACK_NS);
	uint64_t py = ct_bpf_counter_total(c->skel, CT_CNT_TIMED_PYSTACK_NS);
	uint64_t pys = ct_bpf_counter_total(c->skel, CT_CNT_TIMED_PYSTACKS);

	if (!kstack && !py)
		return;
	fprintf(stderr, " [timed build: a native walk %.0f ns in its loop, %.0f ns whole; "
		"a Python walk %.0f ns whole (%llu)]", per_stack(walk, walked),
		per_stack(kstack, walked), per_stack(py, pys), (unsigned long long)pys);
}

/* The walks that went past a frame without a table through the thread's
 * last walk (kwalk.bpf.h, kw_gap), and why the other such stops could not. */
static void report_gaps(const struct ct_capture *c, const struct ct_unwind_stats *us)
{
	uint64_t no_memo = ct_bpf_counter_total(c->skel, CT_CNT_KWALK_GAP_NO_MEMO),
		 not_met = ct_bpf_counter_total(c->skel, CT_CNT_KWALK_GAP_NOT_MET),
		 differed = ct_bpf_counter_total(c->skel, CT_CNT_KWALK_GAP_DIFFERED);

	if (!us->gaps && !us->gaps_lost && !no_memo && !not_met && !differed)
		return;
	fprintf(stderr, "; walked past a frame without a table through the thread's last "
		"walk %llu (%.1f KiB of stack each, sent for the capture to walk between; "
		"%llu not joined, cut short), not where %llu had none of the thread's walk "
		"left to meet on their CPU, %llu met none of its frames within %u KiB, "
		"%llu found a word past it changed", (unsigned long long)us->gaps,
		per_stack(ct_bpf_counter_total(c->skel, CT_CNT_KWALK_GAP_BYTES),
			  us->gaps + us->gaps_lost) / 1024,
		(unsigned long long)us->gaps_lost, (unsigned long long)no_memo,
		(unsigned long long)not_met, CT_KSTACK_GAP_MAX / 1024,
		(unsigned long long)differed);
}

/* -k walked in the kernel: how many were, their frames and reads, why the
 * others were copied, and the tables. */
static void report_kernel_walks(const struct ct_capture *c, const struct ct_unwind_stats *us)
{
	static const char *const why[] = {
		"the process had no table yet", "a file's table was not built yet",
		"a file without a table", "a mapping not in the table yet",
		"a rule of another shape", "a lazy file's FDE not built yet",
	};
	struct ct_ktables_stats kt;
	uint64_t copies = 0, walked, n;
	const char *sep = ": ";

	if (!ct_unwinder_ktables_stats(c->unwinder, &kt))
		return;
	for (int i = CT_CNT_KWALK_COPY_NO_PROC; i <= CT_CNT_KWALK_COPY_LAZY; i++)
		copies += ct_bpf_counter_total(c->skel, (uint32_t)i);
	walked = ct_bpf_counter_total(c->skel, CT_CNT_KWALK_DONE);
	ct_err("stacks walked in the kernel %llu (%.1f frames, %.1f reads of the "
		"stack and %.2f rules searched for a stack; %llu through code without "
		"a table, by frame pointer; %.1f frames a stack the thread's last walk had, "
		"checked word by word), copied %llu", (unsigned long long)walked,
		per_stack(ct_bpf_counter_total(c->skel, CT_CNT_KWALK_FRAMES), walked),
		per_stack(ct_bpf_counter_total(c->skel, CT_CNT_KWALK_READS), walked),
		per_stack(ct_bpf_counter_total(c->skel, CT_CNT_KWALK_MISSES), walked),
		(unsigned long long)us->kstack_fp,
		per_stack(ct_bpf_counter_total(c->skel, CT_CNT_KWALK_REUSED), walked),
		(unsigned long long)copies);
	for (int i = CT_CNT_KWALK_COPY_NO_PROC; i <= CT_CNT_KWALK_COPY_LAZY; i++) {
		if (!(n = ct_bpf_counter_total(c->skel, (uint32_t)i)))
			continue;
		fprintf(stderr, "%s%llu for %s", sep, (unsigned long long)n,
			why[i - CT_CNT_KWALK_COPY_NO_PROC]);
		sep = ", ";
	}
	report_gaps(c, us);
	if ((n = ct_bpf_counter_total(c->skel, CT_CNT_KWALK_COPY_WOKE)))
		fprintf(stderr, "; %llu of these woke the capture at once, to ask for the table",
			(unsigned long long)n);
	fprintf(stderr, "; tables of %llu of %llu files (%llu rows of %llu) built in %.1f ms",
		(unsigned long long)kt.loaded, (unsigned long long)kt.files,
		(unsigned long long)kt.rows, (unsigned long long)kt.rows_max,
		(double)kt.build_ns / 1e6);
	if (kt.tables_read || kt.tables_refused || kt.tables_kept)
		fprintf(stderr, " (%llu of them as the last capture kept them, %llu rows; %llu kept "
			"tables refused and built again; %llu kept for the next)",
			(unsigned long long)kt.tables_read, (unsigned long long)kt.tables_read_rows,
			(unsigned long long)kt.tables_refused, (unsigned long long)kt.tables_kept);
	n = 0;
	for (int i = 1; i < CT_UW_ROWS_FAIL_KINDS; i++)
		n += kt.none[i];
	if (n)
		fprintf(stderr, ", %llu files without (%llu no .eh_frame_hdr, %llu too large, "
			"%llu not finished or out of memory)",
			(unsigned long long)n, (unsigned long long)kt.none[CT_UW_ROWS_NO_HDR],
			(unsigned long long)(kt.none[CT_UW_ROWS_FAR] + kt.none[CT_UW_ROWS_TOO_MANY]),
			(unsigned long long)(kt.none[CT_UW_ROWS_STOPPED] + kt.none[CT_UW_ROWS_NO_MEM]));
	if (kt.lazy)
		fprintf(stderr, ", %llu files lazy (%llu FDEs built on demand, in %llu runs; "
			"%llu rows of old runs, %llu not reused yet, %llu grace periods)",
			(unsigned long long)kt.lazy, (unsigned long long)kt.lazy_fdes,
			(unsigned long long)kt.lazy_runs, (unsigned long long)kt.rows_old,
			(unsigned long long)kt.rows_spare, (unsigned long long)kt.graces);
	if (kt.kept_files)
		fprintf(stderr, ", %llu files' tables asked for as the last capture's stacks "
			"asked (%llu lazy FDEs)", (unsigned long long)kt.kept_files,
			(unsigned long long)kt.kept_fdes);
	if (kt.lazy_full)
		fprintf(stderr, ", %llu FDEs left out of a lazy table (the rows full)",
			(unsigned long long)kt.lazy_full);
	if (kt.gave_way)
		fprintf(stderr, ", %llu builds left for a smaller file first",
			(unsigned long long)kt.gave_way);
	if (kt.building[0] || kt.queued)
		fprintf(stderr, "; at the end %s%s%s, %llu files waiting",
			kt.building[0] ? "building " : "", kt.building,
			kt.building[0] ? "'s table" : "nothing building", (unsigned long long)kt.queued);
	report_timed(c, walked);   /* last: the bracket closes the line */
	fputc('\n', stderr);
	if (us->kchecked)
		ct_err(CT_UNWIND_CHECK_ENV ": %llu of %llu kernel walks "
			"differ from the copy's unwinding (%llu compared up to the copy's end, "
			"which the walk went past)\n",
			(unsigned long long)us->kcheck_mismatches, (unsigned long long)us->kchecked,
			(unsigned long long)us->kcheck_past_copy);
}

/* -k: how the frames were named. */
static void report_naming(const struct ct_naming_stats *n)
{
	if (!n->lookups)
		return;
	ct_err("named %llu addresses from the symbols of %llu files (%llu symbols, %llu that "
		"can name code, indexed in %.1f ms%s) in %.1f ms in all; source lines of %llu "
		"from %llu files' debug information in %.1f ms of it",
		(unsigned long long)n->lookups, (unsigned long long)n->files,
		(unsigned long long)n->symbols, (unsigned long long)n->kept, n->build_ms,
		n->via_libdw ? "; some read through libdw" : "", n->name_ms,
		(unsigned long long)n->lines, (unsigned long long)n->line_files, n->lines_ms);
	if (n->lines_kept || n->lines_refused)
		fprintf(stderr, " (%llu addresses' lines as the last capture kept them, of %llu files; "
			"%llu files' kept lines from other debug information or not whole, read again)",
			(unsigned long long)n->lines_kept, (unsigned long long)n->lines_files_kept,
			(unsigned long long)n->lines_refused);
	if (n->lines_save_failed)
		fprintf(stderr, "; %llu files' source lines not kept for the next capture (%s: set "
			"CUDATRACE_SYMBOL_CACHE to a writable folder, or off)",
			(unsigned long long)n->lines_save_failed, strerror(n->lines_save_errno));
	if (n->index_failed)
		fprintf(stderr, "; %llu files named by libdw alone (no memory for an index)",
			(unsigned long long)n->index_failed);
	if (n->cache_read || n->cache_written || n->cache_failed)
		fprintf(stderr, "; symbol cache: %llu read, %llu written",
			(unsigned long long)n->cache_read, (unsigned long long)n->cache_written);
	if (n->cache_removed)
		fprintf(stderr, ", %llu least recently used removed (over %llu MiB: "
			"CUDATRACE_SYMBOL_CACHE_MB)", (unsigned long long)n->cache_removed,
			(unsigned long long)(n->cache_bound >> 20));
	if (n->cache_failed)
		fprintf(stderr, ", %llu not written (%s: set CUDATRACE_SYMBOL_CACHE to a "
			"writable folder, or off)", (unsigned long long)n->cache_failed,
			strerror(n->cache_errno));
	if (n->asked_libdw)
		fprintf(stderr, "; %llu addresses left to libdw (a symbol with an empty name, or no "
			"memory to read its part of the index)",
			(unsigned long long)n->asked_libdw);
	fputc('\n', stderr);
	if (n->checked)
		ct_err(CT_UNWIND_CHECK_ENV ": %llu of %llu names differ from libdw's\n",
			(unsigned long long)n->differ, (unsigned long long)n->checked);
}

/* -k: all that the capture's own threads took, the kernel's verifier
 * included, beside the unwinder's part above (the traced calls' BPF time
 * is the traced process's, not in it). */
static void report_own_cpu(const struct ct_capture *c, uint64_t stacks)
{
	double ms = (double)ct_now_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e6;

	ct_err("the capture's own CPU so far: %.1f ms, %.1f ms of it loading the BPF programs "
		"(the kernel's verifier)", ms, (double)c->load_cpu_ns / 1e6);
	if (stacks)
		fprintf(stderr, "; %.0f us a stack in all", ms * 1e3 / (double)stacks);
	fputc('\n', stderr);
}

/* -k: the unwinder's work and why the stacks end. */
static void report_stacks(const struct ct_capture *c)
{
	const struct ct_unwind_stats *us = ct_unwinder_stats(c->unwinder);

	ct_err("unwound %llu stacks (%llu frames) in %.1f ms (%.1f ms on the CPU); "
		"%llu walked in the kernel, %llu from the CFI rules kept (%llu of them named "
		"before), the rest by libdw\n",
		(unsigned long long)us->stacks, (unsigned long long)us->frames,
		(double)us->busy_ns / 1e6, (double)us->cpu_ns / 1e6, (unsigned long long)us->kstacks,
		(unsigned long long)us->fast, (unsigned long long)us->fast_named);
	report_left_to_libdw(us);
	report_kernel_walks(c, us);
	if (us->ring_records)
		ct_err("%llu stack records through the ring, %.0f bytes a "
			"stack record\n", (unsigned long long)us->ring_records,
			(double)us->ring_bytes / (double)us->ring_records);
	if (us->checked)
		ct_err(CT_UNWIND_CHECK_ENV ": %llu of %llu walks from "
			"kept rules walked otherwise by libdw\n",
			(unsigned long long)us->check_mismatches, (unsigned long long)us->checked);
	report_naming(ct_unwinder_naming(c->unwinder));
	if (us->holes)
		ct_err("%llu stacks held pages never touched, "
			"read page by page (as zeros)\n", (unsigned long long)us->holes);
	ct_stack_tally_print(c->stack_tally, stderr);
	report_own_cpu(c, us->stacks);
}

/* CPython 3.12's count of code objects made, which the kernel's cache of
 * checks needs: where it was found and where not (their checks are read
 * every call). */
static void report_code_counter(const struct ct_python_stats *ps)
{
	if (!ps->counter_by_symbol && !ps->counter_found && !ps->counter_missed &&
	    !ps->counter_searching)
		return;
	ct_err("Python: CPython 3.12's count of code objects made: by its symbol in %llu "
			"process(es), found in its data in %llu",
		(unsigned long long)ps->counter_by_symbol, (unsigned long long)ps->counter_found);
	if (ps->counter_missed)
		fprintf(stderr, ", not found in %llu (%s: their code objects are read every call)",
			(unsigned long long)ps->counter_missed, ps->counter_miss_why);
	if (ps->counter_searching)
		fprintf(stderr, ", still searched for in %llu (no code object made yet)",
			(unsigned long long)ps->counter_searching);
	fputc('\n', stderr);
}

/* How the kernel checked the frames' code objects: read, or known. */
static void report_code_checks(const struct ct_capture *c)
{
	uint64_t cframes = ct_bpf_counter_total(c->skel, CT_CNT_PY_CFRAME_WALKED);
	uint64_t frames = ct_bpf_counter_total(c->skel, CT_CNT_PY_FRAME_WALKED);

	ct_err("Python: %llu code objects read to check them, %llu known "
			"(read before, no code object made since; %llu of them as the "
			"thread's last stack had them); %llu frames read alone "
			"(not in the data stack's copy)",
		(unsigned long long)ct_bpf_counter_total(c->skel, CT_CNT_PY_CODE_READ),
		(unsigned long long)ct_bpf_counter_total(c->skel, CT_CNT_PY_CODE_KNOWN),
		(unsigned long long)ct_bpf_counter_total(c->skel, CT_CNT_PY_CODE_MEMO),
		(unsigned long long)ct_bpf_counter_total(c->skel, CT_CNT_PY_FRAME_ALONE));
	if (cframes || frames)
		fprintf(stderr, "; from -k's read of the native stack, %llu C frames (3.11, "
			"3.12) and %llu frames outside the data stack", (unsigned long long)cframes,
			(unsigned long long)frames);
	fputc('\n', stderr);
}

/* What the kernel's Python records weighed, and the frames they left out
 * as the thread's last record had them. */
static void report_python_records(const struct ct_python_stats *ps)
{
	if (!ps->stacks)
		return;
	ct_err("Python: %.0f bytes a raw stack from the kernel, %llu frames left out as the "
			"thread's last record had them",
		(double)ps->raw_bytes / (double)ps->stacks, (unsigned long long)ps->frames_left_out);
	if (ps->outer_lost)
		fprintf(stderr, "; %llu stacks without their outer frames, marked so (the "
				"record that had them was not kept: %llu threads' last stacks "
				"forgotten, too many threads at once)",
			(unsigned long long)ps->outer_lost,
			(unsigned long long)ps->threads_forgotten);
	fputc('\n', stderr);
}

/* --py-stack: the Python frames named.  No process ran CPython: -k says
 * nothing of Python, --py-stack one line. */
static void report_python(const struct ct_capture *c)
{
	const struct ct_python_stats *ps = ct_python_stats(c->python);

	if (ps->unreadable)
		ct_err("Python: %llu process%s ran a CPython whose frames cudatrace cannot "
				"read (warned above): no Python frames for %s\n",
			(unsigned long long)ps->unreadable, ps->unreadable == 1 ? "" : "es",
			ps->unreadable == 1 ? "it" : "them");
	if (!ps->procs) {
		if (c->o->py_stack_asked && !ps->unreadable)
			ct_err("Python: no traced process ran CPython: no Python frames\n");
		return;
	}
	ct_err("Python: %llu process%s, %llu stacks (%llu frames, %llu "
			"unnamed; %llu calls from threads without Python; %llu new stacks "
			"read at once) named in %.1f ms\n",
		(unsigned long long)ps->procs, ps->procs == 1 ? "" : "es",
		(unsigned long long)ps->stacks, (unsigned long long)ps->frames,
		(unsigned long long)ps->unnamed, (unsigned long long)ps->no_tstate,
		(unsigned long long)ps->prefetched, (double)ps->busy_ns / 1e6);
	if (ps->unnamed && ps->prefetch_priority != CT_PREFETCH_REALTIME)
		ct_err("Python: the thread that reads new stacks' code objects "
				"ran %s: on a busy machine a process may exit before its last frames "
				"are read\n", ps->prefetch_priority == CT_PREFETCH_NICE ?
				"at a raised nice value, real time refused here (a cgroup without "
				"real-time time)" :
				"at ordinary priority (a higher one needs CAP_SYS_NICE)");
	report_python_records(ps);
	report_code_counter(ps);
	report_code_checks(c);
}

void ct_status_report(const struct ct_capture *c, uint64_t lost, uint64_t lost_inflight)
{
	ct_err("%llu events captured, %llu lost",
		(unsigned long long)c->events, (unsigned long long)(lost + lost_inflight));
	if (lost_inflight)
		fprintf(stderr, " (%llu exits lost: in-flight table full)",
			(unsigned long long)lost_inflight);
	fputc('\n', stderr);
	if (c->gpuwork) {
		ct_gpuwork_report(c->gpuwork);
		if (c->knames)
			ct_knames_report(c->knames);
		ct_gpuwork_before_say(&c->gw_before, true);
	}
	if (c->unwinder)
		report_stacks(c);
	if (c->python)
		report_python(c);
}
