/* SPDX-License-Identifier: MIT */
/*
 * The live capture's signals (capture_signals.c): SIGINT, SIGTERM and
 * SIGHUP ask it to stop, SIGCHLD wakes it when the command exits, SIGPIPE
 * is ignored (a closed output is seen as EPIPE).  A command it forks gets
 * back the dispositions cudatrace was started with, before it can run a
 * single instruction of its own with cudatrace's handlers.
 */
#ifndef CT_CAPTURE_SIGNALS_H
#define CT_CAPTURE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handlers, keeping the dispositions they replace. */
void ct_signals_catch(bool command);
/* The first stop signal received (SIGINT, SIGTERM, SIGHUP), 0 if none. */
int ct_stop_signal(void);
/* Holds (blocks) the signals handled here, the old mask in *old, so that
 * none is handled between a check of ct_stop_signal and what it decides. */
void ct_signals_hold(sigset_t *old);
void ct_signals_release(const sigset_t *old);
/* In a child forked while they were held: the dispositions cudatrace was
 * started with, then the mask *old (a signal sent to the child now acts
 * as it would on the command). */
void ct_signals_child_reset(const sigset_t *old);

#endif
