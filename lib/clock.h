/* SPDX-License-Identifier: MIT */
/* Now, in ns, on a given clock. */
#ifndef CT_CLOCK_H
#define CT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ct_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
