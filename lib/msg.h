/* SPDX-License-Identifier: MIT */
/*
 * Messages to the user on standard error, each one line (or more) that
 * starts "cudatrace: ", as strace's error_msg: the prefix is typed once,
 * here.  The caller ends the message with its own "\n".
 */
#ifndef CT_MSG_H
#define CT_MSG_H

/* "cudatrace: " and the message: an error, or a word on what the output
 * lacks and why. */
void ct_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "cudatrace: warning: " and the message: something went wrong that the
 * run goes on without. */
void ct_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
