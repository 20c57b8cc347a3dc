// SPDX-License-Identifier: MIT
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
	default:
		return "unknown record type";
	}
}
