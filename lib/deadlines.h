/* SPDX-License-Identifier: MIT */
/*
 * Deadlines on sockets another thread serves: a socket still armed when its
 * time is up is shut down (read and write), which the serving thread sees
 * as the peer gone, and closes.  The HTTP server arms a connection when it
 * opens or finishes a request and disarms it once a request head is in:
 * a client cannot hold a connection by sending a byte now and then (the
 * library's idle timeout restarts on every byte).
 */
#ifndef CT_DEADLINES_H
#define CT_DEADLINES_H

#include <stdint.h>

struct ct_deadlines;

/* after_ms: how long an armed socket may stay armed.  on_expired (may be
 * NULL) is called, from the deadlines' own thread, for each one shut down. */
struct ct_deadlines *ct_deadlines_start(unsigned after_ms, void (*on_expired)(void *ctx),
					void *ctx);
void ct_deadlines_arm(struct ct_deadlines *d, int fd);
void ct_deadlines_disarm(struct ct_deadlines *d, int fd);
/* Stops and frees; call it after the sockets' server has stopped. */
void ct_deadlines_stop(struct ct_deadlines *d);

#endif
