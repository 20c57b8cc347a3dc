/* SPDX-License-Identifier: MIT */
/*
 * Names for the Python frames of one process: each code object read once
 * from the process's memory (process_vm_readv) and cached by address;
 * file, qualified name, and the line of a frame's instruction from the
 * code object's line table.  A code object whose fields no longer give the
 * check the kernel sent (freed, its address reused) is read again; if it
 * still does not match, the frame stays unnamed: never a wrong name.
 */
#ifndef CT_PYCODE_H
#define CT_PYCODE_H

#include <stdint.h>
#include <sys/types.h>
#include "cudatrace.h"
#include "idmap.h"
#include "pyabi.h"

/* Run-time addresses of the type objects a read object must have (0: unknown). */
struct ct_pytypes {
	uint64_t code, str, bytes;   /* PyCode_Type, PyUnicode_Type, PyBytes_Type */
};

struct ct_pycode {
	pid_t pid;
	struct ct_pyabi abi;
	struct ct_pytypes types;
	struct idmap codes;     /* code address -> struct py_code */
	uint64_t reads, read_fails, mismatches;
};

struct ct_pyname {
	const char *file;       /* owned by the cache; NULL: unnamed */
	const char *qualname;
	int line;               /* -1: none */
};

void ct_pycode_init(struct ct_pycode *c, pid_t pid, const struct ct_pyabi *abi,
		    const struct ct_pytypes *types);
void ct_pycode_free(struct ct_pycode *c);
/*
 * A fork's child: the code objects its parent read before before_ns (the
 * fork) are the child's too, at the same addresses, and a frame is named
 * from one only where the kernel's check matches, as for any cached one
 * (code objects made after the fork get co_version numbers of their own
 * in each process, so one read by the parent after it is not copied): so
 * a child that exits right after its call is named without its memory.
 */
void ct_pycode_inherit(struct ct_pycode *c, const struct ct_pycode *from, uint64_t before_ns);
/* Names one frame the kernel sent; returns 0, or -1 (unnamed). */
int ct_pycode_name(struct ct_pycode *c, const struct ct_pyframe_raw *f, struct ct_pyname *out);

/* Reads the code object a frame names into the cache, if it is not there. */
void ct_pycode_prefetch(struct ct_pycode *c, const struct ct_pyframe_raw *f);

/* Reads len bytes of pid's memory at addr; 0 or -1 (a short read counts as failed). */
int ct_pymem_read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
