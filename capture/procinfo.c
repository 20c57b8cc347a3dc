// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procinfo.h"

static const char *const env_keep[] = {
	"CUDA_", "NVIDIA_", "NCCL_", "__NV_", "CUBLAS_", "CUDNN_", "PYTORCH_CUDA_",
	"TORCH_CUDA_", "XLA_", "TF_GPU_", "NVSHMEM_", "LD_PRELOAD=",
};

static int keep_var(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(env_keep) / sizeof(env_keep[0]); i++) {
		size_t k = strlen(env_keep[i]);

		if (n >= k && memcmp(v, env_keep[i], k) == 0)
			return 1;
	}
	return 0;
}

void ct_proc_filter_env(struct ct_proc *p)
{
	char *env = (char *)(p + 1) + p->argv_size;
	size_t in = 0, out = 0, end = p->env_size;

	while (in < end) {
		const char *nul = memchr(env + in, 0, end - in);
		size_t n = nul ? (size_t)(nul - (env + in)) : end - in;

		if (keep_var(env + in, n)) {
			memmove(env + out, env + in, n);
			out += n;
			if (nul)   /* a variable cut at the end has no NUL: add none */
				env[out++] = 0;
		}
		in += n + 1;
	}
	p->env_size = (uint32_t)out;
	p->h.size = (uint32_t)(sizeof(*p) + p->argv_size + p->env_size);
}

/* Reads at most max bytes of a /proc file; sets *trunc if there was more. */
static size_t read_proc_file(const char *path, char *dst, size_t max, uint32_t *trunc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	char extra;

	*trunc = 0;
	if (fd < 0)
		return 0;
	while (got < max) {
		ssize_t n = read(fd, dst + got, max - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == max && read(fd, &extra, 1) == 1)
		*trunc = 1;
	close(fd);
	return got;
}

int ct_proc_from_procfs(const char *proc_root, uint32_t pid, uint32_t source,
			uint64_t ts_ns, void *buf)
{
	struct ct_proc *p = buf;
	char path[256], stat[512], *rp;
	uint32_t trunc;
	size_t n;
	int ppid = 0;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/%u/stat", proc_root, pid);
	n = read_proc_file(path, stat, sizeof(stat) - 1, &trunc);
	if (n == 0)
		return -ESRCH;
	stat[n] = 0;
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	rp = strrchr(stat, ')');
	if (rp && sscanf(rp + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	if (rp && strchr(stat, '(')) {
		char *lp = strchr(stat, '(') + 1;
		size_t cl = (size_t)(rp - lp);

		memcpy(p->comm, lp, cl < CT_COMM_LEN - 1 ? cl : CT_COMM_LEN - 1);
	}
	p->h.type = CT_REC_PROC;
	p->h.ts_ns = ts_ns;
	p->h.pid = pid;
	p->h.tid = pid;
	p->ppid = (uint32_t)ppid;
	p->source = source;

	snprintf(path, sizeof(path), "%s/%u/cmdline", proc_root, pid);
	p->argv_size = (uint32_t)read_proc_file(path, (char *)(p + 1), CT_PROC_ARGV_MAX,
						&p->argv_trunc);
	snprintf(path, sizeof(path), "%s/%u/environ", proc_root, pid);
	p->env_size = (uint32_t)read_proc_file(path, (char *)(p + 1) + p->argv_size,
					       CT_PROC_ENV_MAX, &p->env_trunc);
	p->h.size = (uint32_t)(sizeof(*p) + p->argv_size + p->env_size);
	ct_proc_filter_env(p);
	return 0;
}
