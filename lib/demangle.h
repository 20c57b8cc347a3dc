/* SPDX-License-Identifier: MIT */
/*
 * C++ names demangled within bounds.  libiberty's demangler takes time and
 * memory exponential in a name's length where the name reuses its
 * substitutions: a 700-byte name prints 2^60 bytes, another walks 2^60
 * nodes and prints nothing (tests/hostile/knames.py).  Names come from
 * traces and from the files of traced processes, so each is given at most
 * CT_DEMANGLE_OUT_MAX bytes of output and CT_DEMANGLE_CPU_NS of the
 * thread's CPU time; past either it is not demangled.
 */
#ifndef CT_DEMANGLE_H
#define CT_DEMANGLE_H

#define CT_DEMANGLE_OUT_MAX (64 * 1024)
#define CT_DEMANGLE_CPU_NS  (50 * 1000 * 1000)

/* The demangled name (malloc'd), or NULL: not a C++ name, past the
 * bounds, or out of memory (show it mangled). */
char *ct_demangle(const char *mangled);

#endif
