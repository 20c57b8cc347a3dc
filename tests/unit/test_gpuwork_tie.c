// SPDX-License-Identifier: MIT
/* The rule of "after" (decoders/gpuwork/gpuwork_tie.c): work put between two
 * reads of GPPut is tied to the process's last driver call that ended
 * before the first read, and only when none of its calls ended between
 * them; otherwise the order is said to be unknown, with how many. */
#include <string.h>

#include "gpuwork_tie.h"
#include "tap.h"

static struct gw_calls calls;

static struct gw_tie tie(uint32_t pid, uint64_t since, uint64_t until)
{
	struct gw_tie t;

	gw_tie_find(&calls, pid, since, until, &t);
	return t;
}

int main(void)
{
	struct gw_tie t;

	gw_calls_note(&calls, 7, 70, 100, "NV_ESC_RM_ALLOC HOPPER_CHANNEL_GPFIFO_A");
	gw_calls_note(&calls, 7, 71, 200, "NV_ESC_RM_CONTROL NV2080_CTRL_CMD_GR_GET_INFO");
	gw_calls_note(&calls, 7, 70, 400, "UVM_MAP_EXTERNAL_ALLOCATION");
	gw_calls_note(&calls, 8, 80, 250, "mmap");

	t = tie(7, 250, 300);
	ok(t.kind == GW_TIE_CERTAIN && t.call.tid == 71 && t.call.end_ns == 200 &&
	   !strcmp(t.call.name, "NV_ESC_RM_CONTROL NV2080_CTRL_CMD_GR_GET_INFO"),
	   "no call ended while it was put: after the process's last one, of its thread (%d)",
	   t.kind);
	ok(t.kind == GW_TIE_CERTAIN, "a call that ended after the window does not count, nor "
	   "another process's");
	t = tie(7, 150, 300);
	ok(t.kind == GW_TIE_UNKNOWN && t.in_window == 1 && !t.at_least,
	   "a call ended while it was put: the order is unknown, 1 call (%u)", t.in_window);
	t = tie(7, 200, 300);
	ok(t.kind == GW_TIE_CERTAIN && t.call.end_ns == 200,
	   "a call that ended when the window opened came before it");
	t = tie(7, 50, 80);
	ok(t.kind == GW_TIE_NONE, "no call before it: nothing said");
	t = tie(7, 300, 250);
	ok(t.kind == GW_TIE_NONE, "a window that ends before it starts (a hostile trace): nothing");
	t = tie(9, 250, 300);
	ok(t.kind == GW_TIE_NONE, "a process with no calls: nothing");
	t = tie(0, 250, 300);
	ok(t.kind == GW_TIE_NONE, "pid 0: nothing");

	/* more calls inside the window than are kept */
	for (int i = 0; i < 20; i++)
		gw_calls_note(&calls, 9, 90, 1000 + (uint64_t)i, "NV_ESC_RM_CONTROL");
	t = tie(9, 500, 2000);
	ok(t.kind == GW_TIE_UNKNOWN && t.at_least && t.in_window > 0,
	   "20 calls inside the window, fewer kept: at least %u, unknown order", t.in_window);
	t = tie(9, 1019, 2000);
	ok(t.kind == GW_TIE_CERTAIN && t.call.end_ns == 1019, "and after them, the last");

	/* a name longer than kept: cut, still a string */
	gw_calls_note(&calls, 10, 100, 5, "NV_ESC_RM_CONTROL NV2080_CTRL_CMD_A_NAME_FAR_LONGER_THAN_ANY"
		      "_NVIDIA_HAS_EVER_GIVEN_TO_A_CONTROL_COMMAND");
	t = tie(10, 10, 20);
	ok(t.kind == GW_TIE_CERTAIN && strlen(t.call.name) == GW_CALL_NAME - 1, "a long name is cut");

	gw_calls_forget(&calls, 7);
	t = tie(7, 250, 300);
	ok(t.kind == GW_TIE_NONE, "a process that exited is forgotten");
	gw_calls_free(&calls);
	return tap_done();
}
