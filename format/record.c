// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdint.h>
#include "record.h"

static const char *check_ioctl(const struct ct_ioctl *r, size_t len)
{
	if (len < sizeof(*r))
		return "ioctl record shorter than its header";
	if (r->arg_size >= CT_ARG_MAX || r->nest_size > CT_NEST_MAX)
		return "ioctl record buffer larger than any capture can make";
	if (sizeof(*r) + (size_t)r->arg_size + r->nest_size != len)
		return "ioctl record buffer sizes do not add up to its size";
	return NULL;
}

static const char *check_proc(const struct ct_proc *p, size_t len)
{
	if (len < sizeof(*p))
		return "process record shorter than its header";
	if (p->argv_size > CT_PROC_ARGV_MAX || p->env_size > CT_PROC_ENV_MAX)
		return "process record argv/env larger than any capture can make";
	if (sizeof(*p) + (size_t)p->argv_size + p->env_size != len)
		return "process record sizes do not add up to its size";
	return NULL;
}

static const char *check_fdpath(const struct ct_fdpath *f, size_t len)
{
	if (len < sizeof(*f) || sizeof(*f) + (size_t)f->path_size != len)
		return "fd path record sizes do not add up";
	return NULL;
}

static const char *check_trailer(const struct ct_trailer *t, size_t len)
{
	if (len < sizeof(*t) || t->ncpu > 65536 ||
	    sizeof(*t) + (size_t)t->ncpu * sizeof(__u64) != len)
		return "trailer sizes do not add up";
	return NULL;
}

static const char *check_stack(const struct ct_stack *s, size_t len)
{
	/* The kernel reserves room for -k's size; size says how much holds stack. */
	if (len < sizeof(*s) || len > sizeof(*s) + CT_STACK_RECORD_MAX + CT_STACK_SLACK ||
	    s->size > CT_STACK_RECORD_MAX ||
	    sizeof(*s) + (size_t)s->size > len)
		return "stack record sizes do not add up";
	return NULL;
}

static const char *check_code_map(const struct ct_code_map *m, size_t len)
{
	if (len < sizeof(*m) || m->path_size > CT_CODE_PATH_MAX ||
	    sizeof(*m) + (size_t)m->path_size != len)
		return "code map record sizes do not add up";
	return NULL;
}

static const char *check_mapping(const struct ct_mapping *m, size_t len)
{
	if (len < sizeof(*m) || m->path_size > 4096 || m->build_id_size > CT_BUILD_ID_MAX ||
	    sizeof(*m) + (size_t)m->path_size != len)
		return "mapping record sizes do not add up";
	return NULL;
}

static const char *check_gpu_seg(const struct ct_gpu_seg *g, size_t len)
{
	if (len < sizeof(*g) || g->ndwords > CT_GPU_SEG_MAX ||
	    sizeof(*g) + (size_t)g->ndwords * 4 != len)
		return "gpu segment record sizes do not add up";
	return NULL;
}

static const char *check_gpu_exit(const struct ct_gpu_exit *g, size_t len)
{
	if (len < sizeof(*g) || g->ndwords > CT_GPU_SEG_MAX ||
	    sizeof(*g) + (size_t)g->ndwords * 4 != len)
		return "gpu exit record sizes do not add up";
	return NULL;
}

/* Both strings there, each NUL-terminated where it ends. */
static const char *check_kernel_name(const struct ct_kernel_name *k, size_t len)
{
	const char *name = (const char *)(k + 1);

	if (len < sizeof(*k) || k->name_size > CT_KNAME_MAX || k->module_size > CT_KMODULE_MAX ||
	    sizeof(*k) + (size_t)k->name_size + k->module_size != len)
		return "kernel name record sizes do not add up";
	if (!k->name_size || name[k->name_size - 1] ||
	    (k->module_size && name[k->name_size + k->module_size - 1]))
		return "kernel name record strings do not end with NUL";
	if (k->how == 0 || k->how >= CT_KN_HOWS)
		return "kernel name record says no way it was found";
	return NULL;
}

static bool str_ok(uint32_t off, uint32_t size)
{
	return off == CT_NOSTR || off < size;
}

/* Every string offset inside the table, and the table NUL-terminated: the
 * decoder may then read any frame's strings as C strings. */
static const char *check_frames(const struct ct_frames *f, size_t len)
{
	const struct ct_frame *fr = (const struct ct_frame *)(f + 1);
	const char *strings;
	uint32_t i;

	if (len < sizeof(*f) || f->nframes > CT_FRAMES_MAX || f->strings_size > CT_STRINGS_MAX ||
	    sizeof(*f) + (size_t)f->nframes * sizeof(*fr) + f->strings_size != len)
		return "frames record sizes do not add up";
	strings = (const char *)(fr + f->nframes);
	if (f->strings_size && strings[f->strings_size - 1] != 0)
		return "frames record string table does not end with NUL";
	for (i = 0; i < f->nframes; i++)
		if (!str_ok(fr[i].module, f->strings_size) || !str_ok(fr[i].sym, f->strings_size) ||
		    !str_ok(fr[i].exp, f->strings_size) || !str_ok(fr[i].src, f->strings_size))
			return "frames record names a string outside its table";
	return NULL;
}

static const char *check_kstack(const struct ct_kstack *s, size_t len)
{
	if (len < sizeof(*s) || s->nframes > CT_KSTACK_FRAMES ||
	    sizeof(*s) + (size_t)s->nframes * sizeof(__u64) != len)
		return "kernel stack walk record sizes do not add up";
	if (s->end >= CT_STACK_END_KINDS)
		return "kernel stack walk record has an unknown end";
	if (s->gap_at && s->gap_at >= s->nframes)
		return "kernel stack walk record has a gap past its frames";
	return NULL;
}

static const char *check_kstack_gap(const struct ct_kstack_gap *g, size_t len)
{
	if (len < sizeof(*g) || g->end_sp <= g->sp || g->end_sp - g->sp > CT_KSTACK_GAP_MAX ||
	    sizeof(*g) + (g->end_sp - g->sp) != len)
		return "kernel stack walk gap record sizes do not add up";
	if (!g->at || g->at >= CT_KSTACK_FRAMES)
		return "kernel stack walk gap record is at no frame";
	return NULL;
}

static const char *check_pystack(const struct ct_pystack *s, size_t len)
{
	if (len < sizeof(*s) || s->nframes > CT_PY_FRAMES_MAX || s->outer_kept > s->nframes ||
	    (s->outer_kept && !s->seq) ||
	    sizeof(*s) + (size_t)(s->nframes - s->outer_kept) * sizeof(struct ct_pyframe_raw) != len)
		return "python stack record sizes do not add up";
	return NULL;
}

/* As check_frames: every string offset inside a NUL-terminated table. */
static const char *check_pyframes(const struct ct_pyframes *f, size_t len)
{
	const struct ct_pyframe *fr = (const struct ct_pyframe *)(f + 1);
	const char *strings;
	uint32_t i;

	if (len < sizeof(*f) || f->nframes > CT_PY_FRAMES_MAX || f->strings_size > CT_STRINGS_MAX ||
	    sizeof(*f) + (size_t)f->nframes * sizeof(*fr) + f->strings_size != len)
		return "python frames record sizes do not add up";
	strings = (const char *)(fr + f->nframes);
	if (f->strings_size && strings[f->strings_size - 1] != 0)
		return "python frames record string table does not end with NUL";
	for (i = 0; i < f->nframes; i++)
		if (!str_ok(fr[i].file, f->strings_size) || !str_ok(fr[i].qualname, f->strings_size))
			return "python frames record names a string outside its table";
	return NULL;
}

const char *ct_record_check(const void *buf, size_t len)
{
	const struct ct_rec *h = buf;

	if (len < sizeof(*h))
		return "record shorter than a record header";
	if (h->size != len)
		return "record size field disagrees with its length";
	switch (h->type) {
	case CT_REC_META:
		return len <= CT_META_MAX ? NULL : "metadata record too large";
	case CT_REC_IOCTL_ENTER:
	case CT_REC_IOCTL_EXIT:
		return check_ioctl(buf, len);
	case CT_REC_MMAP:
		return len == sizeof(struct ct_mmap) ? NULL : "mmap record has the wrong size";
	case CT_REC_MUNMAP:
		return len == sizeof(struct ct_munmap) ? NULL : "munmap record has the wrong size";
	case CT_REC_PROC:
		return check_proc(buf, len);
	case CT_REC_FORK:
		return len == sizeof(struct ct_fork) ? NULL : "fork record has the wrong size";
	case CT_REC_PROC_EXIT:
		return len == sizeof(struct ct_rec) ? NULL : "exit record has the wrong size";
	case CT_REC_FDPATH:
		return check_fdpath(buf, len);
	case CT_REC_TRAILER:
		return check_trailer(buf, len);
	case CT_REC_FILEREF:
		return len == sizeof(struct ct_fileref) ? NULL : "file reference record has the wrong size";
	case CT_REC_STACK:
		return check_stack(buf, len);
	case CT_REC_CODE_MAP:
		return check_code_map(buf, len);
	case CT_REC_KSTACK:
		return check_kstack(buf, len);
	case CT_REC_KSTACK_GAP:
		return check_kstack_gap(buf, len);
	case CT_REC_MAPPING:
		return check_mapping(buf, len);
	case CT_REC_FRAMES:
		return check_frames(buf, len);
	case CT_REC_PYSTACK:
		return check_pystack(buf, len);
	case CT_REC_PYFRAMES:
		return check_pyframes(buf, len);
	case CT_REC_STACK_END:
		return len == sizeof(struct ct_stack_end) ? NULL : "stack end record has the wrong size";
	case CT_REC_GPU_SEG:
		return check_gpu_seg(buf, len);
	case CT_REC_GPU_PUT:
		return len == sizeof(struct ct_gpu_put) ? NULL : "gpu put record has the wrong size";
	case CT_REC_GPU_EXIT:
		return check_gpu_exit(buf, len);
	case CT_REC_KERNEL_NAME:
		return check_kernel_name(buf, len);
	default:
		return "unknown record type";
	}
}

size_t ct_record_split(const void *buf, size_t len)
{
	const struct ct_rec *h = buf;

	if (len < sizeof(*h) || h->size < sizeof(*h) || h->size > len || (h->size & 7))
		return len;
	return h->size;
}
