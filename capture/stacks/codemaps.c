// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cache_folder.h"
#include "codemaps.h"
#include "grow.h"

#define PATH_MAX_REC 4096

/* The file behind a mapping: map_files names the very file mapped (needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE); else the path seen from the
 * process's root. */
static int open_mapped(const char *proc_root, uint32_t pid, const struct ct_codemap *m)
{
	char name[PATH_MAX_REC + 128];
	int fd;

	snprintf(name, sizeof(name), "%s/%u/map_files/%llx-%llx", proc_root, pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(name, sizeof(name), "%s/%u/root%s", proc_root, pid, m->path);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	return open(m->path, O_RDONLY | O_CLOEXEC);
}

static void read_build_id(Elf *elf, struct ct_codemap *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz <= CT_BUILD_ID_MAX) {
				memcpy(m->build_id, (char *)d->d_buf + doff, nh.n_descsz);
				m->build_id_size = nh.n_descsz;
				return;
			}
		}
	}
}

/*
 * How well segment ph fits a code mapping of file offset pgoff: a loader
 * maps each segment from its offset rounded down to a page, so the
 * executable segment that starts in pgoff's page fits best (3), then one
 * that holds pgoff (2); a segment not executable only where none is (1,
 * 0).  lld packs segments: in JAX's xla_cuda_plugin.so the read-only one
 * runs from offset 0 to 0x62ba26c and the code from 0x62ba280 (address
 * 0x62bb280), so the page at 0x62ba000 holds both, and taking the first
 * segment that holds pgoff put every pc of such a file 4 KiB off.
 */
static int load_fit(const GElf_Phdr *ph, uint64_t pgoff)
{
	uint64_t page_off = ph->p_offset & ~(uint64_t)0xfff;
	bool exact = page_off == pgoff;

	if (ph->p_type != PT_LOAD || pgoff < page_off || pgoff >= ph->p_offset + ph->p_filesz)
		return -1;
	return (ph->p_flags & PF_X ? 2 : 0) + exact;
}

static bool load_of(Elf *elf, uint64_t pgoff, GElf_Phdr *out)
{
	size_t i, n;
	GElf_Phdr ph;
	int best = -1;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		int fit;

		if (gelf_getphdr(elf, (int)i, &ph) && (fit = load_fit(&ph, pgoff)) > best) {
			best = fit;
			*out = ph;
		}
	}
	return best >= 0;
}

/* bias from the PT_LOAD that maps file offset pgoff. */
static bool find_bias(Elf *elf, struct ct_codemap *m)
{
	GElf_Phdr ph;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || !load_of(elf, m->pgoff, &ph))
		return false;
	/* file offset pgoff is ELF address p_vaddr - p_offset + pgoff */
	m->bias = eh.e_type == ET_EXEC ? 0 : m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
	return true;
}

static void inspect_file(struct ct_codemap *m)
{
	Elf *elf;

	if (m->fd < 0)
		return;
	elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		m->is_elf = find_bias(elf, m);
		read_build_id(elf, m);
	}
	elf_end(elf);
}

static bool same_mapping(const struct ct_codemap *a, const struct ct_codemap *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->ino == b->ino && a->dev == b->dev;
}

static struct ct_codemap *take_old(struct ct_codemaps *old, const struct ct_codemap *m)
{
	size_t i;

	for (i = 0; old && i < old->n; i++) {
		struct ct_codemap *o = &old->v[i];

		if (o->path && same_mapping(o, m) && strcmp(o->path, m->path) == 0)
			return o;
	}
	return NULL;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode path". */
static bool parse_line(char *line, struct ct_codemap *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;
	char *path, *nl;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj,
		   &min, &ino, &pos) < 7 || !pos)
		return false;
	path = line + pos;
	nl = strchr(path, '\n');
	if (nl)
		*nl = 0;
	if (perms[2] != 'x' || path[0] != '/' || ino == 0)
		return false;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->ino = ino;
	m->dev = maj << 20 | min;
	m->fd = -1;
	m->path = strndup(path, PATH_MAX_REC);
	return m->path != NULL;
}

int ct_codemaps_read(const char *proc_root, uint32_t pid, struct ct_codemaps *old,
		     struct ct_codemaps *out)
{
	char p[256], *line = NULL;
	size_t cap = 0, vcap = 0;
	struct ct_codemap m, *o;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%u/maps", proc_root, pid);
	f = fopen(p, "re");
	out->v = NULL;
	out->n = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (!parse_line(line, &m))
			continue;
		if (out->n == vcap) {
			struct ct_codemap *nv = ct_grow(out->v, &vcap, out->n + 1, sizeof(m), 16);

			if (!nv) {
				free(m.path);
				break;
			}
			out->v = nv;
		}
		o = take_old(old, &m);
		if (o) {
			free(m.path);
			m = *o;
			o->fd = -1;
			o->path = NULL;
			m.fresh = false;
		} else {
			m.fresh = true;
			m.fd = open_mapped(proc_root, pid, &m);
			inspect_file(&m);
		}
		out->v[out->n++] = m;
	}
	free(line);
	fclose(f);
	if (old)
		ct_codemaps_free(old);
	return 0;
}

bool ct_codemaps_same(const struct ct_codemaps *a, const struct ct_codemaps *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].start != b->v[i].start || a->v[i].end != b->v[i].end ||
		    a->v[i].pgoff != b->v[i].pgoff || a->v[i].ino != b->v[i].ino)
			return false;
	return true;
}

void ct_codemaps_free(struct ct_codemaps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->v[i].fd >= 0)
			close(m->v[i].fd);
		free(m->v[i].path);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

size_t ct_codemap_record(const struct ct_codemap *m, uint32_t pid, uint64_t ts, void *buf)
{
	struct ct_mapping *r = buf;
	size_t n = m->path ? strnlen(m->path, PATH_MAX_REC) : 0;

	memset(r, 0, sizeof(*r));
	r->h.type = CT_REC_MAPPING;
	r->h.size = (uint32_t)(sizeof(*r) + n);
	r->h.ts_ns = ts;
	r->h.pid = pid;
	r->h.tid = pid;
	r->start = m->start;
	r->end = m->end;
	r->pgoff = m->pgoff;
	r->bias = m->bias;
	r->path_size = (uint32_t)n;
	r->build_id_size = m->build_id_size;
	memcpy(r->build_id, m->build_id, sizeof(r->build_id));
	memcpy(r + 1, m->path, n);
	return r->h.size;
}

/* "libc.so.6\0lib\0usr\0" -> "/usr/lib/libc.so.6"; false if it does not fit. */
static bool path_from_components(const char *c, uint32_t n, char *out, size_t cap)
{
	const char *ends[64];
	uint32_t k = 0, i = 0;
	size_t len = 0;

	while (i < n && k < 64) {
		size_t l = strnlen(c + i, n - i);

		if (i + l >= n)
			return false;   /* a component without its NUL */
		ends[k++] = c + i;
		i += (uint32_t)l + 1;
	}
	if (!k || i < n)
		return false;
	out[0] = 0;
	while (k--) {
		size_t l = strlen(ends[k]);

		if (len + l + 2 > cap || strchr(ends[k], '/') || !strcmp(ends[k], "..") || !l)
			return false;
		out[len++] = '/';
		memcpy(out + len, ends[k], l + 1);
		len += l;
	}
	return true;
}

static bool same_inode(int fd, uint32_t kdev, uint64_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (uint64_t)st.st_ino == ino &&
	       major(st.st_dev) == kdev >> 20 && minor(st.st_dev) == (kdev & 0xfffff);
}

/* Opens the file at path as the traced process sees it, else as we do, if it
 * is the very file (device and inode) the kernel named. */
static int open_if_same(const char *proc_root, uint32_t pid, const char *path,
			uint32_t kdev, uint64_t ino)
{
	char rooted[PATH_MAX_REC + 64];
	int fd;

	snprintf(rooted, sizeof(rooted), "%s/%u/root%s", proc_root, pid, path);
	fd = open(rooted, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !same_inode(fd, kdev, ino)) {
		if (fd >= 0)
			close(fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0 && !same_inode(fd, kdev, ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The BPF side walks the path up to the root of the whole machine; a capture
 * that runs in a chroot or a container sees the same file under a shorter
 * path.  Tries the path, then each shorter tail of it ("/a/b/lib.so",
 * "/b/lib.so", "/lib.so"): only the same device and inode is taken.
 * Returns the fd, and in *tail where the path that opened it starts.
 */
static int open_by_kernel_path(const char *proc_root, uint32_t pid, const char *path,
			       uint32_t kdev, uint64_t ino, const char **tail)
{
	const char *p = path;
	int fd;

	while (p && *p) {
		fd = open_if_same(proc_root, pid, p, kdev, ino);
		if (fd >= 0) {
			*tail = p;
			return fd;
		}
		p = strchr(p + 1, '/');
	}
	return -1;
}

int ct_codemap_from_record(const char *proc_root, const struct ct_code_map *r,
			   struct ct_codemap *out)
{
	char path[PATH_MAX_REC];
	const char *tail = NULL;
	int fd;

	if ((r->path_flags & CT_CODE_PATH_CUT) ||
	    !path_from_components((const char *)(r + 1), r->path_size, path, sizeof(path)))
		return -1;
	fd = open_by_kernel_path(proc_root, r->h.pid, path, r->dev, r->ino, &tail);
	if (fd < 0)
		return -1;
	if (!(out->path = strdup(tail))) {
		close(fd);
		return -1;
	}
	out->start = r->addr;
	out->end = r->addr + ((r->len + 0xfff) & ~0xfffull);
	out->pgoff = r->pgoff;
	out->ino = r->ino;
	out->dev = r->dev;
	out->fd = fd;
	out->fresh = true;
	out->is_elf = false;
	out->build_id_size = 0;
	out->bias = 0;
	inspect_file(out);
	return 0;
}

static void drop_map(struct ct_codemap *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
}

/* o's part above end, as a mapping of its own holding the file open too;
 * false where the file cannot be held twice (that part is then dropped). */
static bool part_above(const struct ct_codemap *o, uint64_t end, struct ct_codemap *out)
{
	*out = *o;
	out->pgoff += end - o->start;
	out->start = end;
	out->fresh = false;
	out->path = o->path ? strdup(o->path) : NULL;
	out->fd = o->fd >= 0 ? fcntl(o->fd, F_DUPFD_CLOEXEC, 0) : -1;
	if ((o->path && !out->path) || (o->fd >= 0 && out->fd < 0)) {
		drop_map(out);
		return false;
	}
	return true;
}

/*
 * Older mapping o where m is mapped now: what is left of it below m and
 * above m goes to v (at *n).  Returns whether o was changed.
 */
static bool keep_outside(struct ct_codemap *o, const struct ct_codemap *m,
			 struct ct_codemap *v, size_t *n)
{
	bool below = o->start < m->start, above = o->end > m->end;
	struct ct_codemap upper;

	if (o->end <= m->start || o->start >= m->end) {
		v[(*n)++] = *o;
		return false;
	}
	if (below && above && part_above(o, m->end, &upper)) {
		o->end = m->start;
		v[(*n)++] = *o;
		v[(*n)++] = upper;
	} else if (below) {
		o->end = m->start;
		v[(*n)++] = *o;
	} else if (above) {
		o->pgoff += m->end - o->start;
		o->start = m->end;
		v[(*n)++] = *o;
	} else {
		drop_map(o);
	}
	return true;
}

enum ct_codemap_added ct_codemaps_add(struct ct_codemaps *ms, struct ct_codemap *m)
{
	struct ct_codemap *v;
	size_t i, n = 0, at;
	bool replaced = false;

	for (i = 0; i < ms->n; i++)
		if (same_mapping(&ms->v[i], m))
			break;
	v = i < ms->n ? NULL : malloc((ms->n + 2) * sizeof(*v));
	if (!v) {
		drop_map(m);
		return CT_CODEMAP_UNCHANGED;
	}
	for (i = 0; i < ms->n; i++)
		replaced |= keep_outside(&ms->v[i], m, v, &n);
	for (at = 0; at < n && v[at].start < m->start; at++)
		;
	memmove(&v[at + 1], &v[at], (n - at) * sizeof(*v));
	v[at] = *m;
	n++;
	free(ms->v);
	ms->v = v;
	ms->n = n;
	return replaced ? CT_CODEMAP_REPLACED : CT_CODEMAP_ADDED;
}

void ct_codemap_cache_dir(char *out, size_t size)
{
	ct_cache_dir(out, size, "CUDATRACE_SYMBOL_CACHE", "symbols");
}

int ct_codemap_build_id_hex(const struct ct_codemap *m, char *out, size_t max)
{
	int at = 0;

	out[0] = 0;
	for (uint32_t i = 0; i < m->build_id_size && i < CT_BUILD_ID_MAX && (size_t)at + 2 < max; i++)
		at += snprintf(out + at, max - (size_t)at, "%02x", m->build_id[i]);
	return at;
}

void ct_codemap_file_id(const struct ct_codemap *m, char out[CT_CODEMAP_ID_MAX])
{
	struct stat st;
	int at = 0;

	out[0] = 0;
	if (m->fd < 0 || fstat(m->fd, &st))
		return;
	if (m->build_id_size)
		at = ct_codemap_build_id_hex(m, out, 2 * CT_BUILD_ID_MAX + 1);
	else
		at = snprintf(out, CT_CODEMAP_ID_MAX, "file-%llx-%llx", (unsigned long long)m->dev,
			      (unsigned long long)m->ino);
	snprintf(out + at, CT_CODEMAP_ID_MAX - (size_t)at, "-%llx-%llx",
		 (unsigned long long)st.st_size,
		 (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
			 (unsigned long long)st.st_mtim.tv_nsec);
}
