// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cudatrace.h"
#include "meta_build.h"
#include "nvtables.h"
#include "version.h"
#include "grow.h"

struct buf {
	char *p;
	size_t len, cap;
};

/* Appends one line; newlines inside a value would break the format. */
static void put(struct buf *b, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;
	size_t need;
	char *nl, *np;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	while ((nl = strchr(val, '\n')))
		*nl = ' ';
	need = strlen(key) + strlen(val) + 2;
	if (!(np = ct_grow(b->p, &b->cap, b->len + need + 1, 1, 256)))
		return;
	b->p = np;
	b->len += (size_t)sprintf(b->p + b->len, "%s=%s\n", key, val);
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
}

static void put_driver(struct buf *b, const char *proc)
{
	char path[512], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/driver/nvidia/version", proc);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		trim(line);
		put(b, "driver", "%s", line);
	}
	fclose(f);
}

/* One gpu= line per /proc/driver/nvidia/gpus/<bus>/information. */
static void put_gpus(struct buf *b, const char *proc)
{
	char dir[512], path[1024], line[512], model[256] = "", uuid[128] = "";
	struct dirent *e;
	DIR *dp;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/driver/nvidia/gpus", proc);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/information", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		model[0] = uuid[0] = 0;
		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (!v)
				continue;
			v++;
			v += strspn(v, " \t");
			trim(v);
			if (strncmp(line, "Model:", 6) == 0)
				snprintf(model, sizeof(model), "%s", v);
			else if (strncmp(line, "GPU UUID:", 9) == 0)
				snprintf(uuid, sizeof(uuid), "%s", v);
		}
		fclose(f);
		put(b, "gpu", "%s %s %s", e->d_name, uuid[0] ? uuid : "-", model);
	}
	closedir(dp);
}

struct ct_rec *ct_meta_build(const struct ct_meta_in *in)
{
	struct buf b = { 0 };
	struct utsname u;
	struct ct_rec *r;
	char host[256] = "";
	int i;

	put(&b, "producer", "cudatrace %s", CUDATRACE_VERSION);
	put(&b, "tables", "%s", nv_tables_tag);
	if (uname(&u) == 0) {
		put(&b, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	}
	gethostname(host, sizeof(host) - 1);
	put(&b, "host", "%s", host);
	put_driver(&b, in->proc_root);
	put_gpus(&b, in->proc_root);
	put(&b, "start_realtime_ns", "%llu", (unsigned long long)in->start_realtime_ns);
	put(&b, "start_monotonic_ns", "%llu", (unsigned long long)in->start_monotonic_ns);
	put(&b, "ncpu", "%ld", sysconf(_SC_NPROCESSORS_CONF));
	put(&b, "nest_max", "%u", in->nest_max);
	put(&b, "options", "%s", in->options ? in->options : "");
	if (in->api_lib)   /* -r reads the stacks with it, unless given its own */
		put(&b, "api_lib", "%s", in->api_lib);
	for (i = 0; in->devs && i < in->devs->nmajors; i++)
		put(&b, "major", "%u %s", in->devs->majors[i].major, in->devs->majors[i].name);
	for (i = 0; in->devs && i < in->devs->ndevs; i++) {
		const struct ct_device *d = &in->devs->devs[i];

		put(&b, "device", "0x%x %llu %d %s", d->kdev, (unsigned long long)d->ino,
		    d->regfile, d->path);
	}
	if (!b.p)
		return NULL;
	r = malloc(sizeof(*r) + b.len);
	if (!r) {
		free(b.p);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->type = CT_REC_META;
	r->size = (uint32_t)(sizeof(*r) + b.len);
	memcpy(r + 1, b.p, b.len);
	free(b.p);
	return r;
}
