// SPDX-License-Identifier: MIT
/*
 * The decoder on known bytes: records built here, decoded to memory, and
 * compared with the exact text (and JSON) expected, strace-test style.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "tap.h"
#include "decode.h"
#include "record.h"
#include "records.h"

/* ok(), and on failure what was printed and what was wanted. */
static void check(bool cond, const char *what, const char *got, const char *want)
{
	if (!ok(cond, "%s", what))
		printf("#   got:  %s\n#   want: %s\n", got, want);
}

/* NVOS64: hRoot, hObjectParent, hObjectNew, hClass, pAllocParms, pRights, paramsSize, flags, status */
static void rm_alloc(struct ct_decoder *d, uint64_t ts, uint32_t client, uint32_t parent,
		     uint32_t h, uint32_t cls, uint32_t instance)
{
	uint32_t a[12] = { client, parent, h, cls, 0x2000, 0x7ffd, 0, 0, 0, 0, 0, 0 };

	call(d, ts, REQ(0x2b, 48), a, sizeof(a), &instance, sizeof(instance));
}

static void rm_control(struct ct_decoder *d, uint64_t ts, uint32_t client, uint32_t h,
		       uint32_t cmd)
{
	uint32_t a[8] = { client, h, cmd, 0, 0x2000, 0x7ffd, 4, 0 };
	uint32_t params = 7;

	call(d, ts, REQ(0x2a, 32), a, sizeof(a), &params, sizeof(params));
}

static void rm_free(struct ct_decoder *d, uint64_t ts, uint32_t client, uint32_t parent,
		    uint32_t h)
{
	uint32_t a[4] = { client, parent, h, 0 };

	call(d, ts, REQ(0x29, 16), a, sizeof(a), NULL, 0);
}

/* What the BPF side sends after a control that names an fd. */
static void fileref(struct ct_decoder *d, uint64_t ts, int32_t fd, uint32_t cmd, uint64_t file)
{
	struct ct_fileref f = { .h = { CT_REC_FILEREF, sizeof(f), ts, cur_pid, cur_pid },
				.fd = fd, .ctrl_cmd = cmd, .file_id = file };

	if (ct_record_check(&f, sizeof(f)))
		abort();
	ct_decoder_feed(d, &f.h);
}

/* An RM control with params (NVOS54 + params bytes). */
static void rm_control_p(struct ct_decoder *d, uint64_t ts, uint32_t client, uint32_t cmd,
			 const void *params, uint32_t size)
{
	uint32_t a[8] = { client, client, cmd, 0, 0x2000, 0x7ffd, size, 0 };

	call(d, ts, REQ(0x2a, 32), a, sizeof(a), params, size);
}

static void put32(unsigned char *p, uint32_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

/*
 * Process 100 exports a memory object through an export fd (its fd 50);
 * process 200 imports it from the same open file (its fd 9), uses it, and
 * dups another of 100's objects.  ctrl0000unix.h layouts.
 */
static char *decode_export(int verbose)
{
	struct ct_decode_opts o = { .verbose = verbose };
	static unsigned char ex[2128], im[652], im2[652];
	uint32_t dup[7] = { 0xc1d00002, 0x5c000002, 0x5c000088, 0xc1d00001, 0x5c000011, 0, 0 };
	struct ct_decoder *d;
	char *buf = NULL;
	size_t len = 0;

	o.out = open_memstream(&buf, &len);
	d = ct_decoder_new(&o);
	ct_decoder_feed(d, meta());
	cur_pid = 100;
	rm_alloc(d, 1000001000, 0, 0, 0xc1d00001, 0x41, 0);
	rm_alloc(d, 1000002000, 0xc1d00001, 0xc1d00001, 0x5c000002, 0x80, 1);
	rm_alloc(d, 1000003000, 0xc1d00001, 0x5c000002, 0x5c000010, 0x40, 0);
	rm_alloc(d, 1000003500, 0xc1d00001, 0x5c000002, 0x5c000011, 0x3e, 0);
	put32(ex, 0, 50);                  /* fd */
	put32(ex, 4, 0x5c000002);          /* hDevice */
	put32(ex, 8, 1);                   /* maxObjects */
	put32(ex, 76, 0x5c000010);         /* objects[0] */
	put32(ex, 2124, 1);                /* numObjects 1, index 0 */
	fileref(d, 1000004000, 50, 0x3d0b, 0xabc1);
	rm_control_p(d, 1000004000, 0xc1d00001, 0x3d0b, ex, sizeof(ex));
	cur_pid = 200;
	rm_alloc(d, 1000005000, 0, 0, 0xc1d00002, 0x41, 0);
	rm_alloc(d, 1000006000, 0xc1d00002, 0xc1d00002, 0x5c000002, 0x80, 0);
	put32(im, 0, 9);                   /* fd */
	put32(im, 4, 0x5c000002);          /* hParent */
	put32(im, 8, 0x5c000077);          /* objects[0] */
	put32(im, 648, 1);                 /* numObjects 1, index 0 */
	fileref(d, 1000007000, 9, 0x3d0c, 0xabc1);
	rm_control_p(d, 1000007000, 0xc1d00002, 0x3d0c, im, sizeof(im));
	rm_control(d, 1000008000, 0xc1d00002, 0x5c000077, 0x410110);
	/* An import from a file nobody exported into, in this trace. */
	memcpy(im2, im, sizeof(im2));
	put32(im2, 0, 10);
	put32(im2, 8, 0x5c000099);
	fileref(d, 1000009000, 10, 0x3d0c, 0xdef1);
	rm_control_p(d, 1000009000, 0xc1d00002, 0x3d0c, im2, sizeof(im2));
	rm_control(d, 1000010000, 0xc1d00002, 0x5c000099, 0x410110);
	/* NVOS55: hClient, hParent, hObject, hClientSrc, hObjectSrc, flags, status */
	call(d, 1000011000, REQ(0x34, 28), dup, sizeof(dup), NULL, 0);
	rm_control(d, 1000012000, 0xc1d00002, 0x5c000088, 0x410110);
	cur_pid = 4242;
	ct_decoder_finish(d);
	ct_decoder_free(d);
	fclose(o.out);
	return buf;
}

/*
 * A process killed inside an ioctl: its entry never gets an exit.  The call
 * is printed as unfinished when the process's exit record comes, in order,
 * not at the end of the trace.
 */
static char *decode_killed(void)
{
	struct ct_decode_opts o = { 0 };
	uint32_t a[8] = { 0xc1d00001, 0xc1d00001, 0x202, 0, 0, 0, 0, 0 };
	struct ct_rec ex = { CT_REC_PROC_EXIT, sizeof(ex), 1000002000, 300, 300 };
	struct ct_decoder *d;
	char *buf = NULL;
	size_t len = 0;

	o.out = open_memstream(&buf, &len);
	d = ct_decoder_new(&o);
	ct_decoder_feed(d, meta());
	cur_pid = 300;
	ct_decoder_feed(d, ioctl_rec(CT_REC_IOCTL_ENTER, 1000001000, REQ(0x2a, 32), a, sizeof(a),
				     NULL, 0, 0));
	ct_decoder_feed(d, &ex);
	cur_pid = 4242;
	rm_control(d, 1000003000, 0xc1d00001, 0xc1d00001, 0x202);
	ct_decoder_finish(d);
	ct_decoder_free(d);
	fclose(o.out);
	return buf;
}

/* An RM control that the front end refused (-ENOTTY), status still 0 in
 * the buffers, then one the RM answered with an error status. */
static char *decode_refused(int json)
{
	struct ct_decode_opts o = { .json = json };
	uint32_t a[8] = { 0xc1d00001, 0xc1d00001, 0x20800110, 0, 0x2000, 0x7ffd, 4, 0 };
	uint32_t params = 7;
	struct ct_decoder *d;
	const struct ct_rec *r;
	char *buf = NULL;
	size_t len = 0;

	o.out = open_memstream(&buf, &len);
	d = ct_decoder_new(&o);
	ct_decoder_feed(d, meta());
	r = ioctl_rec(CT_REC_IOCTL_ENTER, 1000001000, REQ(0x2a, 32), a, sizeof(a), &params, 4, 0);
	ct_decoder_feed(d, r);
	r = ioctl_rec(CT_REC_IOCTL_EXIT, 1000001000, REQ(0x2a, 32), a, sizeof(a), &params, 4, -25);
	ct_decoder_feed(d, r);
	a[7] = 0x1f;   /* NV_ERR_INVALID_ARGUMENT, written back by the RM */
	r = ioctl_rec(CT_REC_IOCTL_ENTER, 1000002000, REQ(0x2a, 32), a, sizeof(a), &params, 4, 0);
	ct_decoder_feed(d, r);
	r = ioctl_rec(CT_REC_IOCTL_EXIT, 1000002000, REQ(0x2a, 32), a, sizeof(a), &params, 4, 0);
	ct_decoder_feed(d, r);
	ct_decoder_finish(d);
	ct_decoder_free(d);
	fclose(o.out);
	return buf;
}

static char *decode_script(int json)
{
	struct ct_decode_opts o = { .json = json, .durations = true };
	struct ct_decoder *d;
	char *buf = NULL;
	size_t len = 0;

	o.out = open_memstream(&buf, &len);
	d = ct_decoder_new(&o);
	ct_decoder_feed(d, meta());
	rm_alloc(d, 1000001000, 0, 0, 0xc1d00001, 0x41, 0);
	rm_alloc(d, 1000002000, 0xc1d00001, 0xc1d00001, 0x5c000002, 0x80, 0);
	rm_alloc(d, 1000003000, 0xc1d00001, 0x5c000002, 0x5c000003, 0x2080, 0);
	rm_control(d, 1000004000, 0xc1d00001, 0x5c000003, 0x20800110);
	rm_free(d, 1000005000, 0xc1d00001, 0xc1d00001, 0x5c000002);
	rm_control(d, 1000006000, 0xc1d00001, 0x5c000003, 0x20800110);
	ct_decoder_finish(d);
	ct_decoder_free(d);
	fclose(o.out);
	return buf;
}

int main(void)
{
	char *text = decode_script(0), *json = decode_script(1);
	const char *want;
	char *l;

	want = "0.000001 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_RM_ALLOC, "
	       "hRoot=0x0, hObjectParent=0x0, hObjectNew=0xc1d00001<NV01_ROOT_CLIENT>, "
	       "hClass=0x41<NV01_ROOT_CLIENT>, pAllocParms=0x7ffd00002000, pRightsRequested=0x0, "
	       "paramsSize=0, flags=0x0, status=NV_OK) = 0 <0.000005>";
	l = line(text, 0);
	check(strcmp(l, want) == 0, "RM_ALLOC of a client: fields, class name, status, latency", l, want);

	want = "0.000003 4242/4242 app ioctl(3</dev/nvidiactl>, NV_ESC_RM_ALLOC, "
	       "hRoot=0xc1d00001<NV01_ROOT_CLIENT>, hObjectParent=0x5c000002<NV01_DEVICE_0 #0>, "
	       "hObjectNew=0x5c000003<NV20_SUBDEVICE_0 #0 of NV01_DEVICE_0 #0>, "
	       "hClass=0x2080<NV20_SUBDEVICE_0>, pAllocParms=0x7ffd00002000, pRightsRequested=0x0, "
	       "paramsSize=0, flags=0x0, status=NV_OK) = 0 <0.000005>";
	l = line(text, 2);
	check(strcmp(l, want) == 0, "subdevice: handles annotated with class, instance and parent", l,
	   want);

	l = line(text, 3);
	check(strstr(l, "hObject=0x5c000003<NV20_SUBDEVICE_0 #0 of NV01_DEVICE_0 #0>, "
		     "cmd=0x20800110<NV2080_CTRL_CMD_GPU_GET_NAME_STRING>") != NULL,
	   "RM_CONTROL: object and control command named", l, "...");

	l = line(text, 5);
	check(strstr(l, "hObject=0x5c000003, cmd=") != NULL,
	   "after RM_FREE of the device, its subdevice is gone too", l, "hObject=0x5c000003, ");

	l = line(json, 4);
	check(strstr(l, "\"hObject\":\"0x5c000003\",\"hObject_name\":\"NV20_SUBDEVICE_0 #0 of "
		     "NV01_DEVICE_0 #0\"") != NULL &&
	   strstr(l, "\"cmd\":\"0x20800110\",\"cmd_name\":\"NV2080_CTRL_CMD_GPU_GET_NAME_STRING\"") &&
	   strstr(l, "\"duration_ns\":5000") && strstr(l, "\"nested_in\":\"07000000\""),
	   "JSON: the same fields as structured values, and the raw buffers", l, "...");
	check(strncmp(line(json, 0), "{\"type\":\"meta\"", 14) == 0, "JSON starts with the header",
	   line(json, 0), "{\"type\":\"meta\"...");
	free(text);
	free(json);

	text = decode_refused(0);
	json = decode_refused(1);
	l = line(text, 0);
	check(strstr(l, "paramsSize=4) = -25 ENOTTY") && !strstr(l, "status"),
	   "a call refused before the driver (-ENOTTY): no status=NV_OK", l,
	   "..., paramsSize=4) = -25 ENOTTY ...");
	l = line(json, 1);
	check(strstr(l, "\"ret\":-25") && !strstr(l, "\"status\""),
	   "JSON: no status for it either", l, "no \"status\"");
	l = line(text, 1);
	check(strstr(l, "status=NV_ERR_INVALID_ARGUMENT) = 0 (NV_ERR_INVALID_ARGUMENT)") != NULL,
	   "a call the RM answered (ret 0): its status is shown", l,
	   "status=NV_ERR_INVALID_ARGUMENT) = 0 (NV_ERR_INVALID_ARGUMENT)");
	free(text);
	free(json);

	text = decode_killed();
	l = line(text, 0);
	check(strstr(l, "300/300") && strstr(l, "= ? <unfinished>"),
	   "a call its process never returned from: unfinished, at the process's exit", l,
	   "300/300 ... = ? <unfinished>");
	l = line(text, 1);
	check(strstr(l, "4242/4242") && strstr(l, ") = 0"), "then the calls that came after it", l,
	   "4242/4242 ... = 0");
	free(text);

	text = decode_export(1);
	check(strstr(text, "objects=[0x5c000010<NV01_MEMORY_LOCAL_USER of NV01_DEVICE_0 #1>, "
		     "... 511 more, all zero], numObjects=1, index=0") != NULL,
	   "EXPORT_OBJECTS_TO_FD: the handle array, up to numObjects, annotated, "
	   "and the 511 entries past the count said", "(not in the output)", "...");
	want = "objects=[0x5c000077<NV01_MEMORY_LOCAL_USER of NV01_DEVICE_0 #0, "
	       "imported from pid 100 0x5c000010>, ... 127 more, all zero]";
	check(strstr(text, want) != NULL,
	   "IMPORT_OBJECTS_FROM_FD: the new handle is the exported object",
	   "(not in the output)", want);
	want = "hObject=0x5c000077<NV01_MEMORY_LOCAL_USER of NV01_DEVICE_0 #0, "
	       "imported from pid 100 0x5c000010>, cmd=0x410110";
	check(strstr(text, want) != NULL, "a later call on the imported handle names it",
	   "(not in the output)", want);
	want = "hObject=0x5c000099<imported object of NV01_DEVICE_0 #0>";
	check(strstr(text, want) != NULL, "an import whose export is not in the trace: no guessed class",
	   "(not in the output)", want);
	want = "hObject=0x5c000088<NV01_MEMORY_SYSTEM of NV01_DEVICE_0 #0, dup of pid 100 0x5c000011>";
	check(strstr(text, want) != NULL, "RM_DUP_OBJECT from another process's client says whose",
	   "(not in the output)", want);
	free(text);
	return tap_done();
}
