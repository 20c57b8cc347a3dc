// SPDX-License-Identifier: MIT
/*
 * A stand-in driver library for the -k tests: exported entry points reach
 * ioctl through static functions with big stack frames (over 20 KB in
 * all), as libcuda's do.  Built -O2 -fomit-frame-pointer, so only CFI can
 * unwind it.  The request is NV_ESC_RM_CONTROL's, on whatever fd it is given.
 * fakeStartWorker makes its call from a thread of its own, as libcuda's
 * helper threads do.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#define RM_CONTROL _IOWR('F', 0x2a, char[32])

#define NOINLINE __attribute__((noinline))
/* Keeps a call from becoming a jump (which would drop its frame). */
#define NO_TAIL(x) ({ int r_ = (x); __asm__ volatile("" : "+r"(r_)); r_; })

static NOINLINE int drv_submit(int fd, uint32_t cmd)
{
	volatile char frame[6000];
	uint32_t params[8] = { 0xc1d00001, 0x5c000001, cmd, 0, 0, 0, 0, 0 };

	frame[0] = (char)cmd;
	frame[sizeof(frame) - 1] = frame[0];
	return NO_TAIL(ioctl(fd, RM_CONTROL, params));
}

static NOINLINE int drv_lock_and_submit(int fd, uint32_t cmd)
{
	volatile char frame[8000];

	frame[0] = (char)fd;
	frame[sizeof(frame) - 1] = frame[0];
	return NO_TAIL(drv_submit(fd, cmd)) + frame[10] * 0;
}

static NOINLINE int drv_validate(int fd, uint32_t cmd)
{
	volatile char frame[8000];

	frame[0] = (char)cmd;
	frame[sizeof(frame) - 1] = frame[0];
	return NO_TAIL(drv_lock_and_submit(fd, cmd)) + frame[20] * 0;
}

int fakeMemAlloc(int fd, uint32_t n)
{
	int rc = 0;

	for (uint32_t i = 0; i < n; i++)
		rc |= NO_TAIL(drv_validate(fd, 0x801));
	return rc;
}

int fakeCtxSync(int fd)
{
	return NO_TAIL(drv_submit(fd, 0x802));
}

static void *drv_worker(void *arg)
{
	NO_TAIL(drv_submit((int)(intptr_t)arg, 0x803));
	return NULL;
}

int fakeStartWorker(int fd)
{
	pthread_t t;

	if (pthread_create(&t, NULL, drv_worker, (void *)(intptr_t)fd))
		return -1;
	return pthread_join(t, NULL);
}
