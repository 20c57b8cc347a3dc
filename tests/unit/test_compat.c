// SPDX-License-Identifier: MIT
/*
 * --compat=gvisor (views/compat/): synthetic traces built from records, judged
 * against the imported gVisor snapshots.  The six cases of gVisor's issues
 * (#9846, #9372, #10272, #10413, #10647 and the PERF_GET_CURRENT_PSTATE
 * commit) are unsupported before their fix and supported after it; gVisor's
 * own ioctl(fd, 0, NULL) fixture; capabilities; devices nvproxy does not
 * expose; the tree itself (root counts, node matching).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvisor_abi.h"
#include "nvfacts.h"
#include "report.h"
#include "tap.h"
#include "records.h"

#define DEV_MODESET (195u << 20 | 254)
#define DEV_UVM (510u << 20 | 0)
#define MODESET_LINE "device=0xc3000fe 0 0 /dev/nvidia-modeset\n" \
		     "device=0x1fe00000 0 0 /dev/nvidia-uvm\n"

/* --- building calls ---------------------------------------------------------- */

static const struct ct_layout *esc(uint32_t nr, uint32_t size)
{
	return ct_layout_find(CT_LAYOUT_ESCAPE, nr, size, 0);
}

static void feed(struct ct_decoder *d, const struct ct_rec *r)
{
	if (ct_record_check(r, r->size))
		abort();
	ct_decoder_feed(d, r);
}

/* An ioctl on device dev (entry and exit), returning ret. */
static void call_on(struct ct_decoder *d, uint32_t dev, uint32_t cmd, const void *arg,
		    uint32_t alen, int64_t ret)
{
	struct ct_ioctl *r;

	r = (struct ct_ioctl *)ioctl_rec(CT_REC_IOCTL_ENTER, 1000001000, cmd, arg, alen, NULL, 0, 0);
	r->dev = dev;
	feed(d, &r->h);
	r = (struct ct_ioctl *)ioctl_rec(CT_REC_IOCTL_EXIT, 1000001000, cmd, arg, alen, NULL, 0, ret);
	r->dev = dev;
	feed(d, &r->h);
}

static void control(struct ct_decoder *d, uint32_t cmd, uint32_t status)
{
	unsigned char a[32] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_CONTROL, sizeof(a));

	put_field(l, a, "hClient", 0xc1d00001);
	put_field(l, a, "hObject", 0xc1d00001);
	put_field(l, a, "cmd", cmd);
	put_field(l, a, "status", status);
	call_on(d, DEV_CTL, REQ(NV_ESC_RM_CONTROL, 32), a, sizeof(a), 0);
}

static void alloc(struct ct_decoder *d, uint32_t cls, uint32_t status)
{
	unsigned char a[48] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_ALLOC, sizeof(a));

	put_field(l, a, "hRoot", 0xc1d00001);
	put_field(l, a, "hObjectParent", 0xc1d00001);
	put_field(l, a, "hObjectNew", 0x5c000010);
	put_field(l, a, "hClass", cls);
	put_field(l, a, "status", status);
	call_on(d, DEV_CTL, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a), 0);
}

/* An NV01_EVENT allocation whose NV0005 params name the class inner. */
static void alloc_event(struct ct_decoder *d, uint32_t inner)
{
	unsigned char a[48] = { 0 }, p[24] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_ALLOC, sizeof(a));
	const struct ct_rec *r;

	put_field(l, a, "hRoot", 0xc1d00001);
	put_field(l, a, "hObjectParent", 0xc1d00001);
	put_field(l, a, "hObjectNew", 0x5c000011);
	put_field(l, a, "hClass", NV01_EVENT);
	put_field(l, a, "pAllocParms", 0x7ffd00002000);
	put_field(ct_layout_find(CT_LAYOUT_ALLOC, NV01_EVENT, sizeof(p), 0), p, "hClass", inner);
	r = ioctl_rec(CT_REC_IOCTL_ENTER, 1000001000, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a), p,
		      sizeof(p), 0);
	feed(d, r);
	r = ioctl_rec(CT_REC_IOCTL_EXIT, 1000001000, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a), p,
		      sizeof(p), 0);
	feed(d, r);
}

/* A -k stack, innermost frame first: "module:function" each. */
static const struct ct_rec *frames_rec(const char *const *frames, uint32_t n)
{
	static unsigned char buf[16384];
	struct ct_frames *f = (struct ct_frames *)buf;
	struct ct_frame *fr = (struct ct_frame *)(f + 1);
	char *strings = (char *)(fr + n);
	uint32_t used = 0, i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < n; i++) {
		const char *colon = strchr(frames[i], ':');

		fr[i].pc = 0x7f0000001000ull + i;
		fr[i].module = used;
		used += (uint32_t)sprintf(strings + used, "/usr/lib/%.*s", (int)(colon - frames[i]),
					  frames[i]) + 1;
		fr[i].sym = fr[i].exp = used;
		used += (uint32_t)sprintf(strings + used, "%s", colon + 1) + 1;
		fr[i].src = CT_NOSTR;
	}
	f->h.type = CT_REC_FRAMES;
	f->h.ts_ns = 1000001000;
	f->h.pid = f->h.tid = 4242;
	f->nframes = n;
	f->strings_size = used;
	f->h.size = (uint32_t)(sizeof(*f) + n * sizeof(*fr) + used);
	return &f->h;
}

/* alloc(), with a -k stack between its entry and its exit. */
static void alloc_stacked(struct ct_decoder *d, uint32_t cls, const char *const *frames,
			  uint32_t n)
{
	unsigned char a[48] = { 0 };
	const struct ct_layout *l = esc(NV_ESC_RM_ALLOC, sizeof(a));

	put_field(l, a, "hRoot", 0xc1d00001);
	put_field(l, a, "hObjectParent", 0xc1d00001);
	put_field(l, a, "hObjectNew", 0x5c000012);
	put_field(l, a, "hClass", cls);
	feed(d, ioctl_rec(CT_REC_IOCTL_ENTER, 1000001000, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a),
			  NULL, 0, 0));
	feed(d, frames_rec(frames, n));
	feed(d, ioctl_rec(CT_REC_IOCTL_EXIT, 1000001000, REQ(NV_ESC_RM_ALLOC, 48), a, sizeof(a),
			  NULL, 0, 0));
}

/* --- running the report ------------------------------------------------------ */

struct report {
	char *text;
	int status;
};

/* The report (JSON unless text) on the calls fill makes under driver. */
static struct report run(const char *spec, const char *caps, const char *driver, bool text,
			 void (*fill)(struct ct_decoder *, const void *), const void *arg)
{
	struct report rep = { NULL, -1 };
	size_t len = 0;
	FILE *out = open_memstream(&rep.text, &len);
	struct ct_compat_opts co = { .out = out, .json = !text, .spec = spec, .caps = caps,
				     .status = &rep.status };
	struct ct_compat *c = ct_compat_new(&co);
	struct ct_decode_opts o = { .quiet = true };
	struct mem_decoder m;
	struct ct_decoder *d;
	struct ct_view v;

	if (!out || !c)
		abort();
	d = mem_start(&m, o);
	v = ct_compat_view(c);
	ct_decoder_add_view(d, &v);
	ct_decoder_feed(d, meta_lines(driver, MODESET_LINE));
	fill(d, arg);
	free(mem_end(&m));
	fclose(out);
	return rep;
}

/* The JSON row of (kind, number): its "field" value, in a static buffer. */
static const char *row_field(const char *json, const char *kind, uint32_t number,
			     const char *field)
{
	static char out[256];
	char key[96], fkey[64];
	const char *row, *p;

	snprintf(key, sizeof(key), "\"kind\":\"%s\",\"number\":%u,", kind, number);
	snprintf(fkey, sizeof(fkey), "\"%s\":\"", field);
	row = strstr(json, key);
	if (!row)
		return "(no row)";
	p = strstr(row, fkey);
	if (!p || p > strchr(row, '\n'))
		return "(no field)";
	p += strlen(fkey);
	snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, "\""), p);
	return out;
}

/* --- the six gVisor issues ------------------------------------------------------ */

struct issue {
	const char *what, *kind;
	uint32_t number;
	const char *before, *after;   /* snapshot ids (views/compat/tables/gvisor_snapshots.tsv) */
	const char *driver;           /* a node in both that the fix reaches */
};

static void fill_issue(struct ct_decoder *d, const void *arg)
{
	const struct issue *is = arg;

	if (strcmp(is->kind, "control") == 0)
		control(d, is->number, 0);
	else if (strcmp(is->kind, "class") == 0)
		alloc(d, is->number, 0);
	else
		call_on(d, DEV_CTL, REQ(is->number, 8), "\0\0\0\0\0\0\0\0", 8, 0);
}

static void test_issues(void)
{
	static const struct issue issues[] = {
		{ "gVisor #9846, control 0x20801230", "control",
		  NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER, "20240207.272d23e1e",
		  "20240208.3a86eaf0d", "535.129.03" },
		{ "gVisor #9372, class 0xf8", "class", NV_MEMORY_FABRIC, "20230922.b5dea0ea0",
		  "20230923.e81e0c72a", "535.129.03" },
		{ "gVisor #10272, escape 0xd4", "frontend", NV_ESC_ATTACH_GPUS_TO_FD,
		  "20240411.5e9207a96", "20240412.0699532f6", "535.129.03" },
		{ "gVisor #10413, control 0x3d05 on nvidiactl", "control",
		  NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, "20240508.e5156012a",
		  "20240509.e9b321868", "535.129.03" },
		{ "gVisor #10647, control 0x20803801", "control",
		  NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO, "20240710.87c3b6f74", "20240711.32ed2f798", "535.129.03" },
		{ "control 0x20802068 (4763cf231)", "control",
		  NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE, "20240721.4cd597212",
		  "20240722.4763cf231", "550.90.07" },   /* added at the 550.40.07 node */
	};
	size_t i;

	for (i = 0; i < sizeof(issues) / sizeof(issues[0]); i++) {
		const struct issue *is = &issues[i];
		char spec[64];
		struct report r;

		snprintf(spec, sizeof(spec), "gvisor:%s", is->before);
		r = run(spec, NULL, is->driver, false, fill_issue, is);
		ok_str(row_field(r.text, is->kind, is->number, "verdict"), "unsupported", is->what);
		ok(r.status == 1, "%s: exit status 1 before the fix (got %d)", is->what, r.status);
		free(r.text);
		snprintf(spec, sizeof(spec), "gvisor:%s", is->after);
		r = run(spec, NULL, is->driver, false, fill_issue, is);
		ok_str(row_field(r.text, is->kind, is->number, "verdict"), "supported", is->what);
		ok(r.status == 0, "%s: exit status 0 after the fix (got %d)", is->what, r.status);
		free(r.text);
	}
}

/* --- gVisor's fixture: ioctl(fd, 0, NULL) on /dev/nvidiactl ------------------ */

static void fill_zero(struct ct_decoder *d, const void *arg)
{
	(void)arg;
	call_on(d, DEV_CTL, 0, "", 0, -22);   /* no argument bytes */
}

static void test_ioctl_zero(void)
{
	struct report r = run("gvisor", NULL, "580.159.04", false, fill_zero, NULL);

	ok_str(row_field(r.text, "frontend", 0, "verdict"), "unsupported",
	       "ioctl(fd, 0, NULL) on /dev/nvidiactl: frontend 0 unsupported");
	ok_str(row_field(r.text, "frontend", 0, "detail"), "unsupported (nvproxy: EINVAL)",
	       "... and nvproxy answers EINVAL");
	ok(r.status == 1, "... exit status 1 (got %d)", r.status);
	free(r.text);
}

/* --- capabilities -------------------------------------------------------------- */

static void fill_class(struct ct_decoder *d, const void *arg)
{
	alloc(d, *(const uint32_t *)arg, 0);
}

static void test_caps(void)
{
	uint32_t video = NVC9B0_VIDEO_DECODER, graphics = HOPPER_A, virt = NV01_MEMORY_VIRTUAL;
	struct report r;

	r = run("gvisor", NULL, "580.159.04", false, fill_class, &video);
	ok_str(row_field(r.text, "class", video, "detail"), "needs capability video",
	       "a video decoder class needs video under compute,utility");
	ok(strstr(r.text, "\"caps_needed\":\"compute,video\"") != NULL,
	   "the header says the trace needs compute (RM_ALLOC itself) and video");
	ok(r.status == 1, "... exit status 1 (got %d)", r.status);
	free(r.text);
	r = run("gvisor", "compute,utility,video", "580.159.04", false, fill_class, &video);
	ok_str(row_field(r.text, "class", video, "verdict"), "supported",
	       "... supported with --compat-caps compute,utility,video");
	ok(r.status == 0, "... exit status 0 (got %d)", r.status);
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_class, &graphics);
	ok_str(row_field(r.text, "class", graphics, "detail"), "needs capability graphics",
	       "a 3D class (HOPPER_A) needs graphics");
	ok_str(row_field(r.text, "class", graphics, "ioctl_sniffer"),
	       "ioctl_sniffer ignores capabilities: it says supported",
	       "... where ioctl_sniffer would disagree");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_class, &virt);
	ok_str(row_field(r.text, "class", virt, "detail"), "needs capability graphics or video",
	       "NV01_MEMORY_VIRTUAL: either graphics or video enables it");
	free(r.text);
	r = run("gvisor", "compute,utility,video", "580.159.04", false, fill_class, &virt);
	ok_str(row_field(r.text, "class", virt, "verdict"), "supported", "... video is enough");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", true, fill_class, &graphics);
	ok(strstr(r.text, "clean under compute,utility: no\n") != NULL, "text: not clean");
	ok(strstr(r.text, "the trace needs: compute,graphics\n") != NULL,
	   "text: the trace needs compute,graphics");
	/* runsc/config/flags.go (gVisor release-20260817.0): the flag is
	 * --nvproxy-allowed-driver-capabilities, default utility,compute; the
	 * container asks with NVIDIA_DRIVER_CAPABILITIES (runsc/specutils/nvidia.go). */
	ok(strstr(r.text, "the container must ask for them (NVIDIA_DRIVER_CAPABILITIES="
			  "compute,graphics,utility) and runsc must allow them "
			  "(--nvproxy-allowed-driver-capabilities=compute,graphics,utility; its "
			  "default is utility,compute)\n") != NULL,
	   "text: both the container's variable and runsc's flag, with runsc's default");
	ok(strstr(r.text, "--nvproxy-driver-caps") == NULL, "... never runsc's nonexistent "
	   "--nvproxy-driver-caps");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_class, &graphics);
	ok(strstr(r.text, "\"caps_to_enable\":\"compute,graphics,utility\"") != NULL &&
	   strstr(r.text, "\"caps_flag\":\"--nvproxy-allowed-driver-capabilities\"") != NULL &&
	   strstr(r.text, "\"caps_env\":\"NVIDIA_DRIVER_CAPABILITIES\"") != NULL,
	   "JSON: caps_to_enable, caps_flag and caps_env");
	free(r.text);
}

/* --- other rules ----------------------------------------------------------------- */

static void fill_rules(struct ct_decoder *d, const void *arg)
{
	(void)arg;
	control(d, 0x20808159, 0);                           /* RM_GSS_LEGACY_MASK set */
	control(d, 0x208012ff, NV_ERR_NOT_SUPPORTED);        /* unknown, host refused */
	call_on(d, DEV_MODESET, 0xc0106d00, "\0\0\0\0\0\0\0\0", 8, 0);
	alloc(d, AMPERE_SMC_CONFIG_SESSION, NV_ERR_INVALID_CLASS);
}

static void test_rules(void)
{
	struct report r = run("gvisor", NULL, "580.159.04", false, fill_rules, NULL);

	ok_str(row_field(r.text, "control", 0x20808159, "verdict"), "passed through",
	       "a GSS-legacy control is passed through");
	ok_str(row_field(r.text, "control", 0x208012ff, "verdict"), "unsupported, harmless",
	       "an unknown control the host refused with NV_ERR_NOT_SUPPORTED is harmless");
	ok_str(row_field(r.text, "ioctl", 0xc0106d00, "verdict"), "device not exposed",
	       "an ioctl on /dev/nvidia-modeset: device not exposed");
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "verdict"),
	       "unsupported, harmless",
	       "a class nvproxy lacks that the host refused with NV_ERR_INVALID_CLASS is harmless");
	free(r.text);
	/* gVisor 2024-03 answered an unknown control with EINVAL: not the host's answer. */
	r = run("gvisor:20240313.5c64bbab3", NULL, "535.129.03", false, fill_rules, NULL);
	ok_str(row_field(r.text, "control", 0x208012ff, "detail"), "unsupported (nvproxy: EINVAL)",
	       "... not harmless where nvproxy answered EINVAL (gVisor 2024-03)");
	free(r.text);
}

static void fill_event(struct ct_decoder *d, const void *arg)
{
	alloc_event(d, *(const uint32_t *)arg);
}

static void test_event_rewrite(void)
{
	uint32_t os_event = NV01_EVENT_OS_EVENT, smc = AMPERE_SMC_CONFIG_SESSION;
	struct report r = run("gvisor", NULL, "580.159.04", false, fill_event, &os_event);

	ok_str(row_field(r.text, "class", os_event, "verdict"), "supported",
	       "NV01_EVENT naming NV01_EVENT_OS_EVENT: judged as NV01_EVENT_OS_EVENT, supported");
	ok_str(row_field(r.text, "class", os_event, "ioctl_sniffer"),
	       "ioctl_sniffer judges the outer class NV01_EVENT, not the class inside",
	       "... where ioctl_sniffer would judge NV01_EVENT");
	ok(strstr(r.text, "\"kind\":\"class\",\"number\":5,") == NULL, "... no row for NV01_EVENT");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_event, &smc);
	ok_str(row_field(r.text, "class", smc, "verdict"), "unsupported",
	       "NV01_EVENT naming a class nvproxy lacks: unsupported");
	free(r.text);
}

/* --- item 15 of issue 33: what the rows leave out ------------------------------- */

static void fill_range_group(struct ct_decoder *d, const void *arg)
{
	unsigned char a[16] = { 0 };

	(void)arg;
	call_on(d, DEV_UVM, UVM_CREATE_RANGE_GROUP, a, sizeof(a), 0);
}

/* gVisor's version.go deletes the UVM range-group ioctls at its 610.43.02
 * node: the row says so, not just "since 535.104.05". */
static void test_dropped(void)
{
	struct report r = run("gvisor", NULL, "580.159.04", false, fill_range_group, NULL);

	ok_str(row_field(r.text, "uvm", UVM_CREATE_RANGE_GROUP, "verdict"), "supported",
	       "UVM_CREATE_RANGE_GROUP under 580.159.04: supported");
	ok_str(row_field(r.text, "uvm", UVM_CREATE_RANGE_GROUP, "since"), "535.104.05",
	       "... since 535.104.05");
	ok_str(row_field(r.text, "uvm", UVM_CREATE_RANGE_GROUP, "until"), "595.71.05",
	       "... until 595.71.05, the newest node that has it");
	ok_str(row_field(r.text, "uvm", UVM_CREATE_RANGE_GROUP, "dropped_at"), "610.43.02",
	       "... dropped at 610.43.02");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", true, fill_range_group, NULL);
	ok(strstr(r.text, " 535.104.05 to 595.71.05 supported\n") != NULL &&
	   strstr(r.text, "^ nvproxy drops it at its 610.43.02 node") != NULL,
	   "text: the range, and the node that drops it");
	free(r.text);
	r = run("gvisor", NULL, "610.57.04", false, fill_range_group, NULL);
	ok_str(row_field(r.text, "uvm", UVM_CREATE_RANGE_GROUP, "verdict"), "unsupported",
	       "... and under 610.57.04 it is refused");
	free(r.text);
}

/* A passed-through control still rides NV_ESC_RM_CONTROL, which nvproxy
 * lets in only with compute or utility. */
static void test_passthrough_caps(void)
{
	struct report r = run("gvisor", "video", "580.159.04", false, fill_rules, NULL);

	ok_str(row_field(r.text, "control", 0x20808159, "detail"),
	       "needs capability compute or utility",
	       "--compat-caps video: a GSS-legacy control needs what its escape needs");
	ok(r.status == 1, "... refused: exit status 1 (got %d)", r.status);
	free(r.text);
	r = run("gvisor", "video", "580.159.04", true, fill_rules, NULL);
	ok(strstr(r.text, "^ forwarded unread, once its escape NV_ESC_RM_CONTROL is let in: that "
			  "needs compute or utility\n") != NULL, "text: the note says why");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_rules, NULL);
	ok_str(row_field(r.text, "control", 0x20808159, "verdict"), "passed through",
	       "... and with nvproxy's default capabilities it is passed through");
	free(r.text);
}

/* gVisor before capabilities: no empty word in "clean under ...". */
static void test_clean_without_caps(void)
{
	struct report r = run("gvisor:20240313.5c64bbab3", NULL, "535.129.03", true, fill_rules,
			      NULL);

	ok(strstr(r.text, "\nclean (no capabilities in this gVisor): no\n") != NULL &&
	   strstr(r.text, "clean under :") == NULL,
	   "a snapshot without capabilities: \"clean (no capabilities in this gVisor): no\"");
	free(r.text);
}

/* --- item 14 of issue 33: who made a refused call ---------------------------------- */

static const char *const nvml_stack[] = {
	"libc.so.6:ioctl", "libnvidia-ml.so.580.159.04:nvmlInitWithFlags",
	"libnvidia-ml.so.580.159.04:nvmlInit", "_ctypes.so:ffi_call",
};
static const char *const cuda_stack[] = {
	"libc.so.6:ioctl", "libcuda.so.580.159.04:cuInit", "libcudart.so.13:cudaFree",
};

struct stacked { uint32_t cls; const char *const *frames; uint32_t n; };

static void fill_stacked(struct ct_decoder *d, const void *arg)
{
	const struct stacked *st = arg;

	if (st->frames)
		alloc_stacked(d, st->cls, st->frames, st->n);
	else
		alloc(d, st->cls, 0);
}

static void test_known_callers(void)
{
	struct stacked bare = { AMPERE_SMC_CONFIG_SESSION, NULL, 0 };
	struct stacked nvml = { AMPERE_SMC_MONITOR_SESSION, nvml_stack, 4 };
	struct stacked cuda = { AMPERE_SMC_CONFIG_SESSION, cuda_stack, 3 };
	struct report r;

	/* No stack: the known pattern alone, said as such. */
	r = run("gvisor", NULL, "580.159.04", false, fill_stacked, &bare);
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "verdict"), "unsupported",
	       "AMPERE_SMC_CONFIG_SESSION (host: ok): unsupported, clean stays strict");
	ok(r.status == 1 && strstr(r.text, "\"clean\":false") != NULL, "... exit 1, not clean");
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "refusal_effect"), "not fatal",
	       "... but not fatal: NVML is known to carry on without it");
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "function"),
	       "nvmlInitWithFlags", "... its known caller, nvmlInitWithFlags");
	ok(strstr(r.text, "\"refused_not_fatal\":1,\"refused_fatal\":0,\"refused_unknown\":0")
	   != NULL, "summary: 1 refused row, not fatal");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", true, fill_stacked, &bare);
	ok(strstr(r.text, "^ known caller, no -k stack to confirm it: libnvidia-ml.so* "
			  "nvmlInitWithFlags: NVML asks for a MIG config session") != NULL &&
	   strstr(r.text, "it carries on without it: not fatal\n") != NULL,
	   "text: the known caller, said unconfirmed, and that it carries on");
	ok(strstr(r.text, "refused rows: 1: 1 not fatal (a known caller carries on without them), "
			  "0 fatal, 0 of unknown effect\n") != NULL, "text: the summary says so");
	free(r.text);

	/* A -k stack through NVML: who made it, confirmed. */
	r = run("gvisor", NULL, "580.159.04", true, fill_stacked, &nvml);
	ok(strstr(r.text, "^ made through nvmlInit in libnvidia-ml.so.580.159.04 (-k stack)\n")
	   != NULL, "-k: the row says the call came through nvmlInit in libnvidia-ml");
	ok(strstr(r.text, "^ known caller, nvmlInitWithFlags in 1 of 1 stacks: ") != NULL,
	   "... and that its stack shows the known caller");
	free(r.text);

	/* Names from a trace are escaped in text: no forged line, no terminal escape. */
	{
		static const char *const evil[] = { "libc.so.6:ioctl",
						    "libnvidia-ml.so.1:ev\nil\x1b[2J" };
		struct stacked st = { AMPERE_SMC_CONFIG_SESSION, evil, 2 };

		r = run("gvisor", NULL, "580.159.04", true, fill_stacked, &st);
		ok(strstr(r.text, "made through ev\\x0ail\\x1b[2J in libnvidia-ml.so.1") != NULL &&
		   !strchr(r.text, '\x1b') && !strstr(r.text, "\nil"),
		   "a hostile function name is escaped in the caller note");
		free(r.text);
	}

	/* A -k stack elsewhere: the pattern does not apply, effect unknown. */
	r = run("gvisor", NULL, "580.159.04", false, fill_stacked, &cuda);
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "refusal_effect"), "unknown",
	       "a stack through cuInit, not NVML: effect unknown");
	ok_str(row_field(r.text, "class", AMPERE_SMC_CONFIG_SESSION, "api"), "cuInit",
	       "... made through cuInit");
	free(r.text);
}

/* --- item 15: a program that uses NVML needs utility --------------------------- */

static void test_nvml_needs_utility(void)
{
	struct stacked bare = { AMPERE_SMC_CONFIG_SESSION, NULL, 0 };
	struct stacked cuda = { NV01_ROOT_CLIENT, cuda_stack, 3 };
	uint32_t root = NV01_ROOT_CLIENT;
	struct report r;

	r = run("gvisor", NULL, "580.159.04", false, fill_class, &root);
	ok(strstr(r.text, "\"caps_needed\":\"compute\"") != NULL,
	   "driver calls alone: the trace needs compute");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_stacked, &bare);
	ok(strstr(r.text, "\"caps_needed\":\"compute,utility\"") != NULL &&
	   strstr(r.text, "\"caps_for_libraries\":\"utility: libnvidia-ml.so*, by a known "
			  "caller\"") != NULL,
	   "NVML's known call: the trace needs utility too (libnvidia-ml.so is mounted with it)");
	free(r.text);
	r = run("gvisor", "compute", "580.159.04", true, fill_stacked, &bare);
	ok(strstr(r.text, "the trace needs: compute,utility (utility: libnvidia-ml.so*, by a "
			  "known caller)\n") != NULL &&
	   strstr(r.text, "more capabilities would help: compute,utility:") != NULL,
	   "--compat-caps compute: the report asks for utility");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_stacked, &cuda);
	ok(strstr(r.text, "\"caps_needed\":\"compute\"") != NULL,
	   "libcuda.so in the stack: compute, nothing more");
	free(r.text);
}

/* --- item 13: what the traced container asks for ---------------------------------- */

/* A process record of pid 4242 whose environment is env (env_size bytes:
 * NUL-separated, the last entry possibly cut). */
static void proc_env(struct ct_decoder *d, const char *env, uint32_t env_size)
{
	static unsigned char buf[4096];
	struct ct_proc *p = (struct ct_proc *)buf;

	memset(buf, 0, sizeof(buf));
	p->h.type = CT_REC_PROC;
	p->h.ts_ns = 1000000500;
	p->h.pid = p->h.tid = 4242;
	p->source = CT_PROC_EXEC;
	memcpy(p->comm, "app", 4);
	p->argv_size = 4;
	memcpy(p + 1, "app", 4);
	p->env_size = env_size;
	memcpy((char *)(p + 1) + 4, env, env_size);
	p->h.size = (uint32_t)(sizeof(*p) + 4 + env_size);
	feed(d, &p->h);
}

struct asks { const char *env; uint32_t size; };

static void fill_asks(struct ct_decoder *d, const void *arg)
{
	const struct asks *a = arg;

	proc_env(d, a->env, a->size);
	alloc(d, NV01_ROOT_CLIENT, 0);
}

#define ASKS(lit) { lit, sizeof(lit) - 1 }

static void test_container_asks(void)
{
	static const struct asks graphics =
		ASKS("CUDA_VERSION=13.0.2\0NVIDIA_DRIVER_CAPABILITIES=compute,graphics,utility\0");
	static const struct asks plain = ASKS("NVIDIA_DRIVER_CAPABILITIES=compute,utility\0");
	static const struct asks all = ASKS("NVIDIA_DRIVER_CAPABILITIES=all\0");
	static const struct asks bogus = ASKS("NVIDIA_DRIVER_CAPABILITIES=compute,gpu");  /* cut */
	static const struct asks none = ASKS("CUDA_VERSION=13.0.2\0");
	struct report r;

	r = run("gvisor", NULL, "580.159.04", true, fill_asks, &graphics);
	ok(strstr(r.text, "  container:     asks for compute,graphics,utility "
			  "(NVIDIA_DRIVER_CAPABILITIES of pid 4242); runsc refuses to start such a "
			  "container unless --nvproxy-allowed-driver-capabilities allows graphics "
			  "(its default: utility,compute)\n") != NULL,
	   "a container asking for graphics: runsc's default refuses to start it");
	ok(strstr(r.text, "\nbut before any call: the container asks for NVIDIA_DRIVER_CAPABILITIES="
			  "compute,graphics,utility, and runsc's default does not allow graphics: "
			  "allow it, or ask for less\n") != NULL,
	   "... and the summary says so beside the verdict on the calls");
	ok(r.status == 0, "... the calls themselves are clean (%d)", r.status);
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_asks, &plain);
	ok(strstr(r.text, "\"caps_asked\":\"compute,utility\",\"caps_asked_pid\":4242,"
			  "\"caps_asked_verdict\":\"runsc's default "
			  "--nvproxy-allowed-driver-capabilities allows it\"") != NULL,
	   "asking for compute,utility: runsc's default allows it (JSON)");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_asks, &all);
	ok(strstr(r.text, "allows it\"") != NULL, "asking for all: runsc takes what it allows");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_asks, &bogus);
	ok(strstr(r.text, "this gVisor knows no capability 'gpu'") != NULL,
	   "a name gVisor does not know (in an environment cut without its NUL): refused");
	free(r.text);
	r = run("gvisor", NULL, "580.159.04", false, fill_asks, &none);
	ok(strstr(r.text, "\"caps_asked\":null") != NULL, "no variable: nothing said");
	free(r.text);
	r = run("gvisor:20240313.5c64bbab3", NULL, "535.129.03", true, fill_asks, &graphics);
	ok(strstr(r.text, "container:") == NULL, "a gVisor without capabilities: nothing said");
	free(r.text);
}

/* --- the tree -------------------------------------------------------------------- */

static void test_root_counts(void)
{
	unsigned i, k, checked = 0, trees = 0;

	for (i = 0; i < ct_gv_nsnapshots; i++) {
		const struct ct_gv_snapshot *s = &ct_gv_snapshots[i];
		const struct ct_gv_node *root = NULL;
		uint32_t j;

		trees += strcmp(s->layout, "tree") == 0;
		for (j = 0; j < s->nnodes; j++)
			if (ct_gv_nodes[s->first_node + j].parent < 0)
				root = &ct_gv_nodes[s->first_node + j];
		if (!root || !root->has_literal)
			continue;
		for (k = 0; k < CT_GV_KINDS; k++)
			ok(ct_gv_count(root, (int)k) == root->literal[k],
			   "%s root %u: %u entries of kind %u, version.go writes out %u", s->id,
			   root->version, ct_gv_count(root, (int)k), k, root->literal[k]);
		checked++;
	}
	ok(checked == trees && trees > 0, "root counts checked in every snapshot with a tree "
	   "(%u of %u)", checked, trees);
}

static void test_nodes(void)
{
	const struct ct_gv_snapshot *s = ct_gv_snapshot_find(NULL);
	enum ct_gv_match how;
	const struct ct_gv_node *n;

	n = ct_gv_node_for(s, ct_driver_version("580.159.04"), &how);
	ok(how == CT_GV_EXACT && n->version == ct_driver_version("580.159.04") && n->supported,
	   "580.159.04: its own node, supported");
	n = ct_gv_node_for(s, ct_driver_version("580.142"), &how);
	ok(how == CT_GV_ANCESTOR && n->version == ct_driver_version("580.126.20"),
	   "580.142: approximate, 580.126.20 (%u)", n->version);
	n = ct_gv_node_for(s, ct_driver_version("530.30.02"), &how);
	ok(how == CT_GV_NO_BRANCH, "530.30.02: no node on its branch");
	n = ct_gv_node_for(s, ct_driver_version("595.71.05"), &how);
	ok(how == CT_GV_EXACT && !n->supported, "595.71.05: an intermediate node");
	ok(ct_gv_snapshot_find("5c64bbab3") == ct_gv_snapshot_find("20240313.5c64bbab3"),
	   "a snapshot by commit prefix");
	ok(ct_gv_snapshot_find("5c64") == NULL, "not by a prefix of fewer than 7 digits");
}

static void fill_nothing(struct ct_decoder *d, const void *arg)
{
	(void)d, (void)arg;
}

static void test_header(void)
{
	struct report r = run("gvisor", NULL, "530.30.02", true, fill_nothing, NULL);

	ok(strstr(r.text, "(none: nvproxy has no node for the 530 branch") != NULL,
	   "530.30.02: the header says plainly there is no node for its branch");
	ok(strstr(r.text, "unless --nvproxy-driver-version=") != NULL, "... and what runsc needs");
	free(r.text);
	r = run("gvisor", NULL, "580.142", true, fill_nothing, NULL);
	ok(strstr(r.text, "nvproxy node:  580.126.20 (approximate: the nearest older node on the "
			  "580 branch)") != NULL, "580.142: approximate, 580.126.20");
	free(r.text);
	r = run("gvisor", NULL, "595.71.05", true, fill_nothing, NULL);
	ok(strstr(r.text, "unless --nvproxy-allow-unsupported-driver") != NULL,
	   "595.71.05, an intermediate node: --nvproxy-allow-unsupported-driver");
	ok(r.status == 0, "an empty trace is clean (%d)", r.status);
	free(r.text);
}

int main(void)
{
	test_issues();
	test_ioctl_zero();
	test_caps();
	test_rules();
	test_event_rewrite();
	test_header();
	test_dropped();
	test_passthrough_caps();
	test_clean_without_caps();
	test_known_callers();
	test_nvml_needs_utility();
	test_container_asks();
	test_root_counts();
	test_nodes();
	return tap_done();
}
