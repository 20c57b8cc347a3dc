/* SPDX-License-Identifier: MIT */
/*
 * Where CPython lives in a file: a python executable (static or not) or a
 * libpython3.X.so that defines _PyRuntime.  Read from the file (symbol
 * tables and initialised data), so it works while the process is young,
 * before its interpreter ran.
 */
#ifndef CT_PYELF_H
#define CT_PYELF_H

#include <stdbool.h>
#include <stdint.h>

#define CT_PYELF_HEAD_MAX 4096

struct ct_pyelf {
	uint64_t runtime;       /* ELF address of _PyRuntime */
	/* ELF addresses of PyCode_Type, PyUnicode_Type, PyBytes_Type (0: not found). */
	uint64_t code_type, str_type, bytes_type;
	/* 3.12: ELF address of _Py_next_func_version, the counter of code objects
	 * made (a hidden symbol: 0 where the file has no symbol table). */
	uint64_t code_counter;
	/* Its .data section (ELF address, file offset, size; size 0: none), where
	 * a 3.12 without that symbol keeps the counter (pycounter.h). */
	uint64_t data_addr, data_off, data_size;
	unsigned minor;         /* 3.minor */
	/* The first bytes of _PyRuntime as the file initialises them (3.13+:
	 * _Py_DebugOffsets), so that a process not yet past ld.so is read too. */
	uint8_t head[CT_PYELF_HEAD_MAX];
	uint32_t head_len;
};

/* Whether a mapped file's name says it may hold CPython ("python" in its
 * base name): only those are opened and searched. */
bool ct_pyelf_candidate(const char *path);

/*
 * Searches the ELF file open at fd for _PyRuntime and the version: the
 * Py_Version constant (3.11+), else the file name (python3.10,
 * libpython3.10.so).  Returns 0, or -1 when the file is not CPython or its
 * version cannot be told.
 */
int ct_pyelf_find(int fd, const char *path, struct ct_pyelf *out);

#endif
