// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "stack.h"
#include "stack_tally.h"

struct ct_stack_tally {
	struct ct_stacks *stacks;       /* the latest frames of each thread */
	uint64_t n[CT_WHY_COUNT];
	uint32_t suggest;               /* the largest -k a copy too short asked for */
	uint64_t deeper;                /* copies too short that no -k can cure */
};

struct ct_stack_tally *ct_stack_tally_new(const char *api_lib)
{
	struct ct_stack_tally *t = calloc(1, sizeof(*t));

	if (t && !(t->stacks = ct_stacks_new(api_lib))) {
		free(t);
		return NULL;
	}
	return t;
}

void ct_stack_tally_free(struct ct_stack_tally *t)
{
	if (!t)
		return;
	ct_stacks_free(t->stacks);
	free(t);
}

static void count(struct ct_stack_tally *t, const struct ct_frames *f,
		  const struct ct_stack_end *e)
{
	enum ct_stack_why why = ct_stacks_why(t->stacks, f);
	uint32_t k;

	t->n[why]++;
	if (why != CT_WHY_COPY_SHORT)
		return;
	k = ct_stack_suggest(e->need_bytes, f->stack_size);
	if (!k)
		t->deeper++;
	else if (k > t->suggest)
		t->suggest = k;
}

void ct_stack_tally_take(struct ct_stack_tally *t, const struct ct_rec *r)
{
	const struct ct_stack_end *e = (const struct ct_stack_end *)r;
	const struct ct_frames *f;
	struct ct_call c = { .tid = r->tid, .pid = r->pid, .ts_ns = r->ts_ns };

	if (r->type == CT_REC_FRAMES) {
		ct_stacks_learn(t->stacks, (const struct ct_frames *)r);
		return;
	}
	if (r->type != CT_REC_STACK_END)
		return;
	ct_stacks_learn_end(t->stacks, e);
	ct_stacks_describe(t->stacks, &c);
	f = c.stack;
	if (f && c.stack_end)
		count(t, f, e);
}

void ct_stack_tally_print(const struct ct_stack_tally *t, FILE *out)
{
	static const char *const words[CT_WHY_COUNT] = {
		[CT_WHY_COMPLETE] = "complete", [CT_WHY_DRIVER_THREAD] = "in threads the driver started",
		[CT_WHY_COPY_SHORT] = "stack copy too short", [CT_WHY_NO_CFI] = "no CFI",
		[CT_WHY_BAD_READ] = "bad stack read", [CT_WHY_MAX_FRAMES] = "frame limit",
		[CT_WHY_NO_MAPS] = "no mappings", [CT_WHY_ERROR] = "unwinding failed",
		[CT_WHY_UNKNOWN] = "ended in the driver library",
		[CT_WHY_COMPLETE_FP] = "complete through code without unwind information, "
				       "walked by frame pointer",
		[CT_WHY_NO_FP] = "no CFI and no frame pointer",
		[CT_WHY_MAX_BYTES] = "deeper than the walk's bound",
	};
	const char *sep = "cudatrace: stack ends: ";
	int i;

	for (i = 0; i < CT_WHY_COUNT; i++) {
		if (!t->n[i])
			continue;
		fprintf(out, "%s%llu %s", sep, (unsigned long long)t->n[i], words[i]);
		if (i == CT_WHY_COPY_SHORT && t->suggest)
			fprintf(out, " (-k%u copies further)", t->suggest);
		if (i == CT_WHY_COPY_SHORT && t->deeper)
			fprintf(out, " (%llu deeper than -k%u)", (unsigned long long)t->deeper,
				CT_STACK_MAX);
		if (i == CT_WHY_MAX_BYTES)
			fprintf(out, " (%u MiB above sp)", CT_KSTACK_BYTES >> 20);
		sep = ", ";
	}
	if (*sep == ',')
		fputc('\n', out);
}
