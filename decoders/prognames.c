// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prognames.h"

struct progname {
	char loader[CT_COMM_LEN];    /* the comm the kernel gave */
	char program[CT_COMM_LEN];   /* the comm a plain exec would have given */
};

/* The loader's options that take a value (ld.so --help, glibc 2.36). */
static const char *const opts_with_value[] = {
	"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
	"--glibc-hwcaps-prefix", "--glibc-hwcaps-mask",
};

bool ct_is_loader_comm(const char *comm)
{
	static const char *const loaders[] = CT_LOADER_COMMS;
	size_t i;

	for (i = 0; i < CT_NLOADER_COMMS; i++)
		if (strncmp(comm, loaders[i], CT_COMM_LEN) == 0)
			return true;
	return false;
}

static bool takes_value(const char *opt)
{
	size_t i;

	for (i = 0; i < sizeof(opts_with_value) / sizeof(opts_with_value[0]); i++)
		if (strcmp(opt, opts_with_value[i]) == 0)
			return true;
	return false;
}

/* The program in the loader's argv: the first word after argv[0] that is
 * not an option of the loader nor an option's value.  NULL if none. */
static const char *program_arg(const char *argv, uint32_t n)
{
	const char *end = argv + n, *p = argv;
	bool skip_value = false;

	p += strnlen(p, (size_t)(end - p)) + 1;   /* argv[0], the loader */
	while (p < end) {
		size_t len = strnlen(p, (size_t)(end - p));

		if (len == (size_t)(end - p))
			return NULL;   /* cut short: not a whole word */
		if (!skip_value && strncmp(p, "--", 2) != 0)
			return len ? p : NULL;
		skip_value = !skip_value && takes_value(p);
		p += len + 1;
	}
	return NULL;
}

void ct_prognames_learn(struct ct_prognames *pn, const struct ct_proc *p)
{
	const char *prog = NULL, *base;
	struct progname *e;

	if (ct_is_loader_comm(p->comm))
		prog = program_arg((const char *)(p + 1), p->argv_size);
	if (!prog) {
		ct_prognames_forget(pn, p->h.pid);   /* a new image of its own */
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	memcpy(e->loader, p->comm, CT_COMM_LEN);
	strncpy(e->program, base, CT_COMM_LEN - 1);   /* cut as the kernel cuts a comm */
	free(idmap_put(&pn->by_pid, p->h.pid, e));
}

const char *ct_prognames_comm(const struct ct_prognames *pn, uint32_t pid, const char *comm)
{
	const struct progname *e = comm ? idmap_get(&pn->by_pid, pid) : NULL;

	return e && strncmp(comm, e->loader, CT_COMM_LEN) == 0 ? e->program : comm;
}

void ct_prognames_fork(struct ct_prognames *pn, uint32_t parent, uint32_t child)
{
	const struct progname *e = idmap_get(&pn->by_pid, parent);
	struct progname *copy;

	if (!e || !(copy = malloc(sizeof(*copy))))
		return;
	*copy = *e;
	free(idmap_put(&pn->by_pid, child, copy));
}

void ct_prognames_forget(struct ct_prognames *pn, uint32_t pid)
{
	free(idmap_del(&pn->by_pid, pid));
}

void ct_prognames_free(struct ct_prognames *pn)
{
	idmap_free_all(&pn->by_pid);
}
