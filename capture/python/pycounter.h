/* SPDX-License-Identifier: MIT */
/*
 * CPython 3.12's count of code objects made, found where the file has no
 * symbol for it.
 *
 * 3.12 numbers each code object it makes (co_version) from a hidden global,
 * _Py_next_func_version, and bumps it; the kernel trusts the checks of code
 * objects it read before while that count has not moved (bpf/pyframes.bpf.h).
 * A file with a symbol table names it; a stripped one (Ubuntu's
 * /usr/bin/python3.12 keeps .dynsym only) does not.  The build's deepfreeze
 * step numbers the frozen code objects it writes into .data 1..M and
 * initialises the counter to M + 1 (CPython's Tools/build/deepfreeze.py),
 * so the counter is the word of .data that the file initialises to M + 1
 * and that has moved on in the running process, past every code object's
 * number seen.
 */
#ifndef CT_PYCOUNTER_H
#define CT_PYCOUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A process's writable data section, as the file initialises it and as the
 * process holds it now. */
struct ct_pycounter_image {
	uint64_t addr;                  /* its ELF address */
	const uint8_t *file, *live;     /* size bytes each */
	size_t size;
};

/* Where the reads in the image are: the running process's values. */
struct ct_pycounter_layout {
	uint64_t code_type;             /* PyCode_Type's address in the process */
	uint32_t ob_type;               /* PyObject.ob_type */
	uint32_t version;               /* PyCodeObject.co_version */
};

enum ct_pycounter_result {
	CT_PYCOUNTER_FOUND,
	CT_PYCOUNTER_NOT_YET,           /* no candidate has moved: no code object made yet */
	CT_PYCOUNTER_NONE,              /* no frozen code objects, or no candidate, or several */
	CT_PYCOUNTER_UNREADABLE,        /* the process's memory could not be read */
};

struct ct_pycounter_found {
	uint64_t addr;                  /* the counter's ELF address (FOUND) */
	uint32_t frozen;                /* M: the frozen code objects numbered 1..M */
	uint32_t candidates;            /* words initialised to M + 1 */
	uint32_t moved;                 /* ... of which have moved on past every number seen */
};

/*
 * Finds the counter in im.  newest: the largest co_version of a code object
 * read from the process (0: none), which the counter must be past.
 */
enum ct_pycounter_result ct_pycounter_find(const struct ct_pycounter_image *im,
					   const struct ct_pycounter_layout *lay, uint32_t newest,
					   struct ct_pycounter_found *out);

/* What the result says, for the closing lines ("found", "not yet", ...). */
const char *ct_pycounter_why(enum ct_pycounter_result r, const struct ct_pycounter_found *f);

/*
 * The search in one running process: started from the file (its .data
 * copied), tried again as its stacks come (a process that sends stacks has
 * run its interpreter: its data is relocated) until found or shown absent.
 */
struct ct_pycounter_hunt {
	uint8_t *file;                  /* .data as the file initialises it; NULL: not searching */
	uint64_t addr, bias;            /* .data's ELF address; the process's load bias */
	size_t size;
	struct ct_pycounter_layout lay;
	uint64_t next_ns;               /* no try before this (CLOCK_MONOTONIC) */
	unsigned unreadable;            /* tries whose reads failed */
	enum ct_pycounter_result last;
	struct ct_pycounter_found found;
};

/* Copies size bytes at off of the file open at fd; 0, or -1 (not searching). */
int ct_pycounter_hunt_start(struct ct_pycounter_hunt *h, int fd, uint64_t off, uint64_t addr,
			    size_t size, uint64_t bias, const struct ct_pycounter_layout *lay);
/* The stack's code objects a try reads the numbers of, at most. */
#define CT_PYCOUNTER_CODES_MAX 16

/*
 * One try, unless one was made lately: reads pid's .data and the numbers of
 * the code objects at codes[0..n) (the stack's, n at most
 * CT_PYCOUNTER_CODES_MAX).  Returns the counter's
 * address in the process once found (the search then ends), else 0; a
 * search that ends without it leaves h->last and h->found saying why.
 */
uint64_t ct_pycounter_hunt_try(struct ct_pycounter_hunt *h, pid_t pid, const uint64_t *codes,
			       size_t n, uint64_t now_ns);
/* A fork's search, begun from its parent's (the same file, the same
 * addresses); 0, or -1 (the parent was not searching, or no memory). */
int ct_pycounter_hunt_copy(struct ct_pycounter_hunt *child, const struct ct_pycounter_hunt *parent);
void ct_pycounter_hunt_end(struct ct_pycounter_hunt *h);

#endif
