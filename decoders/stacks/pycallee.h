/* SPDX-License-Identifier: MIT */
/*
 * A call made from Python in a -k trace without Python frames (taken by a
 * cudatrace that did not read them, or on a CPython it does not read): its
 * native stack still shows where the interpreter handed over to C, and the
 * function it called (torch's THPVariable_randn, ctypes' call) says which
 * Python operation made the call.  --summary-by=py charges such calls to it.
 */
#ifndef CT_PYCALLEE_H
#define CT_PYCALLEE_H

#include <stddef.h>
#include "cudatrace.h"

/* "module(symbol)", or the module alone where the frame has no symbol, of
 * the innermost frame that the interpreter (a python3.X executable or
 * libpython3.X.so) called, into buf; NULL when the stack passes through no
 * interpreter (f NULL: no stack). */
const char *ct_python_callee(const struct ct_frames *f, char *buf, size_t n);

#endif
