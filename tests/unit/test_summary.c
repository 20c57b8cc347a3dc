// SPDX-License-Identifier: MIT
/*
 * The summary and Perfetto views on calls made here, with latencies whose
 * percentiles are known: ct_call structs fed straight to the views.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "call.h"
#include "perfetto.h"
#include "summary.h"


static void ok_u64(uint64_t got, uint64_t want, const char *what)
{
	ok(got == want, "%s", what);
	if (got != want)
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", got, want);
}

#define REQ(nr, size) (0xc0000000u | (size) << 16 | 'F' << 8 | (nr))

static struct ct_call ioctl_call(uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur,
				 uint32_t nr, const char *name)
{
	struct ct_call c;

	memset(&c, 0, sizeof(c));
	c.kind = CT_CALL_IOCTL;
	c.pid = pid;
	c.tid = tid;
	strcpy(c.comm, "app");
	c.ts_ns = ts;
	c.duration_ns = dur;
	c.finished = true;
	c.request = REQ(nr, 32);
	c.name = name;
	return c;
}

static struct ct_call ctrl_call(uint64_t ts, uint64_t dur, uint32_t cmd, const char *cname)
{
	struct ct_call c = ioctl_call(100, 100, ts, dur, 0x2a, "NV_ESC_RM_CONTROL");

	c.has_ctrl = true;
	c.ctrl = cmd;
	c.ctrl_name = cname;
	return c;
}

static void test_percentile(void)
{
	uint64_t v[1000];
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	ok_u64(ct_percentile_sorted(v, 1, 50), 1, "p50 of one value is that value");
	ok_u64(ct_percentile_sorted(v, 1, 99), 1, "p99 of one value is that value");
	ok_u64(ct_percentile_sorted(v, 4, 50), 2, "p50 of 4 values: rank 2 (nearest rank)");
	ok_u64(ct_percentile_sorted(v, 7, 50), 4, "p50 of 7 values: rank 4");
	ok_u64(ct_percentile_sorted(v, 100, 99), 99, "p99 of 1..100 is 99");
	ok_u64(ct_percentile_sorted(v, 101, 99), 100, "p99 of 1..101 is 100 (rank ceil(99.99))");
	ok_u64(ct_percentile_sorted(v, 1000, 99), 990, "p99 of 1..1000 is 990");
	ok_u64(ct_percentile_sorted(v, 1000, 100), 1000, "p100 is the max");
}

/* 200 calls of one escape, latencies 200..1 (ns * 1000) in reverse; 3 failed;
 * controls named and unnamed; mmap, munmap, an unfinished call. */
static void test_summary(void)
{
	struct ct_summary_opts so = { .out = NULL, .json = true };
	struct ct_summary_row_stats st;
	struct ct_summary *s;
	struct ct_call c;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int i;

	so.out = mem;
	s = ct_summary_new(&so);
	ok(s != NULL, "summary created");
	for (i = 200; i >= 1; i--) {
		c = ioctl_call(100, 100, 1000u * (unsigned)i, 1000u * (unsigned)i, 0x2b,
			       "NV_ESC_RM_ALLOC");
		c.failed = i <= 3;
		ct_summary_add(s, &c);
	}
	c = ioctl_call(100, 101, 5, 0, 0x2b, "NV_ESC_RM_ALLOC");
	c.finished = false;   /* counted, not timed */
	ct_summary_add(s, &c);
	for (i = 0; i < 10; i++) {
		c = ctrl_call(10, 100 + (uint64_t)i, 0x20809064, NULL);
		ct_summary_add(s, &c);
	}
	c = ctrl_call(10, 7, 0x20810108, NULL);
	ct_summary_add(s, &c);
	c = ctrl_call(10, 9, 0x2080012f, "NV2080_CTRL_CMD_NAMED");
	ct_summary_add(s, &c);
	memset(&c, 0, sizeof(c));
	c.kind = CT_CALL_MUNMAP;
	c.name = "munmap";
	c.pid = c.tid = 100;
	c.finished = true;
	ct_summary_add(s, &c);

	ok(ct_summary_lookup(s, 0, "escape", "NV_ESC_RM_ALLOC", &st), "RM_ALLOC row");
	ok_u64(st.calls, 201, "RM_ALLOC: 201 calls (one unfinished)");
	ok_u64(st.timed, 200, "RM_ALLOC: 200 timed");
	ok_u64(st.errors, 3, "RM_ALLOC: 3 errors");
	ok_u64(st.total_ns, 1000ull * 200 * 201 / 2, "RM_ALLOC: total");
	ok_u64(st.mean_ns, 100500, "RM_ALLOC: mean");
	ok_u64(st.p50_ns, 100000, "RM_ALLOC: p50 = rank 100 of 200");
	ok_u64(st.p99_ns, 198000, "RM_ALLOC: p99 = rank 198 of 200");
	ok_u64(st.max_ns, 200000, "RM_ALLOC: max");
	ok(ct_summary_lookup(s, 0, "ctrl", "0x20809064 (no public name, GSS legacy)", &st) &&
	   st.calls == 10 && st.p50_ns == 104 && st.p99_ns == 109,
	   "unnamed GSS legacy control: its own row, p50 104, p99 109");
	ok(ct_summary_lookup(s, 0, "ctrl", "0x20810108 (no public name)", &st) && st.calls == 1,
	   "unnamed control without bit 15: no GSS legacy");
	ok(ct_summary_lookup(s, 0, "ctrl", "NV2080_CTRL_CMD_NAMED", &st) && st.max_ns == 9,
	   "named control by its name");
	ok(ct_summary_lookup(s, 0, "escape", "NV_ESC_RM_CONTROL", &st) && st.calls == 12,
	   "RM_CONTROL escape row counts every control");
	ok(ct_summary_lookup(s, 0, "other", "munmap", &st) && st.calls == 1 && st.timed == 0,
	   "munmap counted, untimed");

	ct_summary_print(s);
	fflush(mem);
	ok(buf && strstr(buf, "{\"type\":\"summary\",\"group\":\"all\",\"kind\":\"escape\","
			      "\"name\":\"NV_ESC_RM_ALLOC\",\"value\":\"0x2b\",\"calls\":201,"
			      "\"errors\":3,\"unfinished\":1,\"timed\":200,\"total_ns\":20100000,"
			      "\"mean_ns\":100500,\"p50_ns\":100000,\"p99_ns\":198000,"
			      "\"max_ns\":200000}\n") != NULL,
	   "JSON row of RM_ALLOC");
	ok(buf && strstr(buf, "\"name\":\"munmap\",\"value\":null,\"calls\":1,\"errors\":0,"
			      "\"unfinished\":0,\"timed\":0,\"total_ns\":0,\"mean_ns\":null,"
			      "\"p50_ns\":null,\"p99_ns\":null,\"max_ns\":null}") != NULL,
	   "JSON row of munmap: no latency, null figures");
	/* The first row is the one with the most time. */
#define FIRST_ROW "{\"type\":\"summary\",\"group\":\"all\",\"kind\":\"escape\"," \
		  "\"name\":\"NV_ESC_RM_ALLOC\""
	ok(buf && strncmp(buf, FIRST_ROW, strlen(FIRST_ROW)) == 0,
	   "rows sorted by total time");
	ct_summary_free(s);
	fclose(mem);
	free(buf);

	/* Text, by pid. */
	buf = NULL;
	mem = open_memstream(&buf, &len);
	so = (struct ct_summary_opts){ .out = mem, .by_pid = true };
	s = ct_summary_new(&so);
	c = ioctl_call(7, 8, 0, 5000, 0x2b, "NV_ESC_RM_ALLOC");
	strcpy(c.comm, "worker");
	ct_summary_add(s, &c);
	c = ioctl_call(7, 7, 0, 1000, 0x2b, "NV_ESC_RM_ALLOC");
	strcpy(c.comm, "main\"prog");
	ct_summary_add(s, &c);
	c = ioctl_call(9, 9, 0, 9000, 0x29, "NV_ESC_RM_FREE");
	strcpy(c.comm, "other");
	ct_summary_add(s, &c);
	ok(ct_summary_lookup(s, 7, "escape", "NV_ESC_RM_ALLOC", &st) && st.calls == 2 &&
	   st.total_ns == 6000, "by pid: the threads of a process in one row");
	ct_summary_print(s);
	fflush(mem);
	ok(buf && strstr(buf, "=== pid 7 (main\"prog)") && strstr(buf, "=== pid 9 (other)") &&
	   strstr(buf, "=== pid 9") < strstr(buf, "=== pid 7"),
	   "by pid: a table per process, named after its main thread, most time first");
	ok(buf && strstr(buf, "  0.000006         2       0          3.000          1.000"
			      "          5.000          5.000  NV_ESC_RM_ALLOC"),
	   "text row: seconds, calls, errors, mean, p50, p99, max in us");
	ct_summary_free(s);
	fclose(mem);
	free(buf);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *b;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	b = calloc(1, (size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static void test_perfetto(void)
{
	char path[] = "/tmp/ct-test-perfetto-XXXXXX";
	int fd = mkstemp(path);
	struct ct_perfetto *p;
	struct ct_call c;
	char *s;

	if (fd < 0) {
		ok(0, "temporary file");
		return;
	}
	close(fd);
	p = ct_perfetto_open(path);
	ok(p != NULL, "perfetto file created");
	if (!p)
		return;
	/* tid 5: a call that never returned, then the next call at 5 us. */
	c = ioctl_call(4, 5, 1000000, 0, 0x2b, "NV_ESC_RM_ALLOC");
	c.finished = false;
	ct_perfetto_add(p, &c);
	c = ioctl_call(4, 5, 1005000, 100, 0x29, "NV_ESC_RM_FREE");
	strcpy(c.comm, "a\"b\\c\n");
	ct_perfetto_add(p, &c);
	/* tid 6: unfinished at the end; tid 4 ends the trace at 9 us. */
	c = ioctl_call(4, 6, 1006000, 0, 0x2b, "NV_ESC_RM_ALLOC");
	c.finished = false;
	ct_perfetto_add(p, &c);
	c = ctrl_call(1008000, 1000, 0x20809064, NULL);
	c.pid = c.tid = 4;
	ct_perfetto_add(p, &c);
	ok(ct_perfetto_close(p) == 0, "perfetto file closed");
	s = slurp(path);
	ok(s && strncmp(s, "{\"traceEvents\":[\n", 17) == 0, "file starts the traceEvents array");
	ok(s && strstr(s, "\"name\":\"NV_ESC_RM_ALLOC\",\"cat\":\"ioctl,unfinished\",\"ph\":\"X\","
			  "\"ts\":0.000,\"dur\":5.000,\"pid\":4,\"tid\":5"),
	   "unfinished call ends where its thread's next call begins");
	ok(s && strstr(s, "\"ph\":\"X\",\"ts\":6.000,\"dur\":3.000,\"pid\":4,\"tid\":6"),
	   "unfinished call at the end ends at the trace end");
	ok(s && strstr(s, "\"ended_by\":\"trace end\"") &&
	   strstr(s, "\"ended_by\":\"next call on the thread\""), "unfinished slices say so");
	ok(s && strstr(s, "\"name\":\"NV_ESC_RM_FREE\",\"cat\":\"ioctl\",\"ph\":\"X\","
			  "\"ts\":5.000,\"dur\":0.100,"),
	   "finished slice: ts and dur in us with ns decimals");
	ok(s && strstr(s, "\"args\":{\"name\":\"a\\\"b\\\\c\\u000a\"}"), "comm JSON-escaped");
	ok(s && strstr(s, "\"name\":\"0x20809064 (no public name, GSS legacy)\""),
	   "unnamed control slice named by its command");
	/* 4 calls from 0 to 9 us: a rate of 4 / 9 us, then 0 where they end. */
	ok(s && strstr(s, "\"ph\":\"C\",\"ts\":0.000,\"pid\":4,\"tid\":4,\"args\":{\"rate\":444444}}") &&
	   strstr(s, "\"ph\":\"C\",\"ts\":9.000,\"pid\":4,\"tid\":4,\"args\":{\"rate\":0}}"),
	   "calls/s counter: the rate over the time the window's calls took, 0 after them");
	ok(s && strstr(s, "\n],\"displayTimeUnit\":\"ns\""), "file closes the array");
	free(s);
	unlink(path);
	ok(ct_perfetto_open("/nonexistent-dir-ct/x.json") == NULL, "no file in a missing directory");
}

int main(void)
{
	test_percentile();
	test_summary();
	test_perfetto();
	return tap_done();
}
