// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_folder.h"
#include "clock.h"
#include "codemaps.h"
#include "demangle.h"
#include "idmap.h"
#include "src_kept.h"
#include "symbolize.h"
#include "symindex.h"

#define FIRST_BASE 0x100000000ull  /* where the offline Dwfl places the first file */
#define RESOLVED_MAX 200000        /* addresses remembered per file, at most */
#define LINES_KEPT_BOUND (64ull << 20)   /* the cache's kept source lines, at most */

struct export_sym {
	uint64_t value, size;   /* ELF addresses */
	const char *name;       /* in the ELF's string table */
};

/* A name with its length and hash, taken once: a frame's names are
 * added to a record at every stack the address is in. */
struct name {
	char *s;
	uint32_t len, hash;
};

/* What one address of a file is called (strings owned here). */
struct resolved {
	struct name sym, exp, src;
	uint64_t sym_off, exp_off;
};

struct ct_symfile {
	uint64_t dev, ino;
	struct name path;
	Dwfl_Module *mod;       /* in the symbolizer's Dwfl; NULL: not an ELF libdw takes */
	uint64_t base;          /* run-time address there = base + ELF address */
	char id[CT_CODEMAP_ID_MAX];   /* the cache's name for it (ct_codemap_file_id) */
	struct ct_symindex *index;    /* its symbols by address; built on first use */
	bool index_tried;
	bool lines_tried;       /* its source lines asked for (libdw reads its DWARF then) */
	char build_id[2 * CT_BUILD_ID_MAX + 1];   /* hex; "" unknown */
	struct idmap lines;     /* ELF address -> its source line kept (src_kept.h) */
	bool lines_loaded;      /* ... the last capture's read in */
	bool lines_new;         /* ... some looked up here, for the next capture */
	char lines_from[CT_SRC_KEPT_FROM_MAX];   /* ... where the DWARF comes from */
	bool exports_read;
	struct export_sym *exports;   /* sorted by value */
	size_t nexports;
	struct idmap resolved;  /* (ELF address << 1 | activation) -> struct resolved */
};

struct ct_symbolizer {
	Dwfl *dwfl;
	uint64_t next_base;
	struct idmap files;     /* dev/ino key -> struct ct_symfile */
	bool check;             /* ask libdw too, and count where it differs */
	char cache_dir[4096];   /* symbol indexes kept across runs; "" none */
	struct ct_naming_stats st;
};

/* s (taken, NULL: none) with its length, at most 4096 bytes: a longer
 * one is cut there, as a record holds it. */
static struct name name_of(char *s)
{
	struct name n = { .s = s };
	uint32_t h = 2166136261u;

	if (!s)
		return n;
	n.len = (uint32_t)strnlen(s, 4096);
	s[n.len] = 0;
	for (uint32_t i = 0; i < n.len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	n.hash = h;
	return n;
}

/* The symbol cache's bound: CUDATRACE_SYMBOL_CACHE_MB, else 1 GiB. */
static uint64_t cache_bound_bytes(void)
{
	const char *env = getenv("CUDATRACE_SYMBOL_CACHE_MB");
	char *end;
	unsigned long long mb;

	if (!env || !*env)
		return 1ull << 30;
	mb = strtoull(env, &end, 10);
	return *end || mb > (1ull << 40) ? 1ull << 30 : mb << 20;
}

/* Separate debug files found by build-id on this machine only
 * (/usr/lib/debug/.build-id/): libdw's standard search also asks the
 * debuginfod servers DEBUGINFOD_URLS names, a download in the capture's
 * thread while the records wait. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct ct_symbolizer *ct_symbolizer_new(bool check)
{
	struct ct_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dwfl = dwfl_begin(&offline_callbacks);
	if (!s->dwfl) {
		free(s);
		return NULL;
	}
	s->next_base = FIRST_BASE;
	s->check = check;
	ct_codemap_cache_dir(s->cache_dir, sizeof(s->cache_dir));
	return s;
}

const struct ct_naming_stats *ct_symbolizer_stats(const struct ct_symbolizer *s)
{
	return &s->st;
}

static void free_resolved(uint64_t key, void *val, void *ctx)
{
	struct resolved *r = val;

	(void)key;
	(void)ctx;
	free(r->sym.s);
	free(r->exp.s);
	free(r->src.s);
	free(r);
}

static void free_file(uint64_t key, void *val, void *ctx)
{
	struct ct_symfile *f = val;

	(void)key;
	(void)ctx;
	idmap_drain(&f->resolved, free_resolved, NULL);
	idmap_free(&f->resolved);
	idmap_free_all(&f->lines);
	ct_symindex_free(f->index);
	free(f->exports);
	free(f->path.s);
	free(f);
}

/* The source lines f's DWARF gave this capture, with those it was given,
 * kept for the next. */
static void save_lines(uint64_t key, void *val, void *ctx)
{
	struct ct_symfile *f = val;
	struct ct_symbolizer *s = ctx;
	int err;

	(void)key;
	if (!f->lines_new)
		return;
	err = ct_src_kept_save(s->cache_dir, f->id, f->lines_from, &f->lines);
	s->st.lines_files_saved += err == 0;
	if (err && !s->st.lines_save_failed++)
		s->st.lines_save_errno = -err;
	f->lines_new = false;
}

/* At the end of a run: the source lines looked up kept; then, where it
 * added to the cache, its least recently used indexes and lines removed
 * while it holds more than its bounds. */
void ct_symbolizer_keep_cache(struct ct_symbolizer *s)
{
	int r;

	if (!s->cache_dir[0])
		return;
	idmap_each(&s->files, save_lines, s);
	if (s->st.lines_files_saved)
		ct_cache_bound(s->cache_dir, CT_SRC_KEPT_SUFFIX, LINES_KEPT_BOUND);
	if (!s->st.cache_written)
		return;
	s->st.cache_bound = cache_bound_bytes();
	r = ct_cache_bound(s->cache_dir, ".symx", s->st.cache_bound);
	if (r > 0)
		s->st.cache_removed += (uint64_t)r;
}

void ct_symbolizer_free(struct ct_symbolizer *s)
{
	if (!s)
		return;
	idmap_drain(&s->files, free_file, NULL);
	idmap_free(&s->files);
	dwfl_end(s->dwfl);
	free(s);
}

static uint64_t file_key(uint64_t dev, uint64_t ino)
{
	return ino ^ (dev << 40) ^ (dev >> 24);
}

/* Files sit in the shared naming Dwfl one after another, this far apart
 * and 1 MiB aligned, so that no two overlap. */
#define MODULE_GAP (2ull << 20)
#define MODULE_ALIGN_MASK ((1ull << 20) - 1)

/* Reports the file into the shared Dwfl, at a base of its own. */
static void report_file(struct ct_symbolizer *s, struct ct_symfile *f, int fd)
{
	Dwarf_Addr start, end;
	int dfd = dup(fd);

	if (dfd < 0)
		return;
	dwfl_report_begin_add(s->dwfl);
	f->mod = dwfl_report_elf(s->dwfl, f->path.s, f->path.s, dfd, s->next_base, true);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!f->mod) {
		close(dfd);
		return;
	}
	/* A non-PIE executable (ET_EXEC: Debian's python3) stays at its link
	 * address whatever base it was offered: its bias is libdw's, not ours. */
	if (!dwfl_module_getelf(f->mod, &f->base))
		f->base = s->next_base;
	dwfl_module_info(f->mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	if (((end + MODULE_GAP) & ~MODULE_ALIGN_MASK) > s->next_base)
		s->next_base = (end + MODULE_GAP) & ~MODULE_ALIGN_MASK;
}

struct ct_symfile *ct_symbolizer_file(struct ct_symbolizer *s, const struct ct_codemap *m)
{
	uint64_t key = file_key(m->dev, m->ino);
	struct ct_symfile *f = idmap_get(&s->files, key);

	if (f)
		return f->dev == m->dev && f->ino == m->ino ? f : NULL;
	if (m->fd < 0 || !m->is_elf)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = name_of(strdup(m->path))).s) {
		free(f);
		return NULL;
	}
	f->dev = m->dev;
	f->ino = m->ino;
	ct_codemap_file_id(m, f->id);
	ct_codemap_build_id_hex(m, f->build_id, sizeof(f->build_id));
	report_file(s, f, m->fd);
	idmap_put(&s->files, key, f);
	return f;
}

/* --- exported functions (.dynsym) --------------------------------------- */

static int by_value(const void *a, const void *b)
{
	const struct export_sym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static bool is_export(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	int vis = GELF_ST_VISIBILITY(s->st_other);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_size > 0 && (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

/* The defined, visible functions of .dynsym, with their sizes. */
static void read_exports(struct ct_symfile *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	f->exports_read = true;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		f->exports = calloc(n ? n : 1, sizeof(*f->exports));
		for (i = 0; d && f->exports && i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || !is_export(&sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				f->exports[f->nexports++] =
					(struct export_sym){ sym.st_value, sym.st_size, name };
		}
		if (f->exports)
			qsort(f->exports, f->nexports, sizeof(*f->exports), by_value);
		return;
	}
}

/* The exported function that holds ELF address addr, or NULL. */
static const struct export_sym *find_export(struct ct_symfile *f, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!f->exports_read)
		read_exports(f);
	hi = f->nexports;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->exports[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Functions may overlap (aliases): look back a little. */
	for (size_t k = lo; k > 0 && lo - k < 8; k--) {
		const struct export_sym *e = &f->exports[k - 1];

		if (addr >= e->value && addr - e->value < e->size)
			return e;
	}
	return NULL;
}

/* --- naming one address --------------------------------------------------- */

/* Demangled, without the symbol version (__libc_start_main@@GLIBC_2.34). */
static char *clean_name(const char *name)
{
	char plain[1024], *dem;
	const char *at;

	if (!name)
		return NULL;
	at = strchr(name, '@');
	if (at && at != name && (size_t)(at - name) < sizeof(plain)) {
		memcpy(plain, name, (size_t)(at - name));
		plain[at - name] = 0;
		name = plain;
	}
	if (name[0] == '_' && name[1] == 'Z' && (dem = ct_demangle(name)))
		return dem;
	return strdup(name);
}

static char *source_line(struct ct_symfile *f, uint64_t addr)
{
	Dwfl_Line *line = dwfl_module_getsrc(f->mod, addr);
	const char *file;
	int lineno = 0;
	char *s;

	if (!line)
		return NULL;
	file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0 || asprintf(&s, "%s:%d", file, lineno) < 0)
		return NULL;
	return s;
}

/* The source line at addr, timed: a file's first lookup reads (and may
 * decompress) its whole DWARF, which the closing line says. */
static char *source_of(struct ct_symbolizer *s, struct ct_symfile *f, uint64_t addr)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	char *src = source_line(f, addr);

	s->st.lines_ms += (double)(ct_now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	s->st.line_files += !f->lines_tried;
	s->st.lines += src != NULL;
	f->lines_tried = true;
	return src;
}

/* Whether f's source lines are kept across captures: a cache folder, and a
 * name for f in it. */
static bool keeps_lines(const struct ct_symbolizer *s, const struct ct_symfile *f)
{
	return s->cache_dir[0] && f->id[0];
}

/* The last capture's source lines of f, where its DWARF is where it was. */
static void load_lines(struct ct_symbolizer *s, struct ct_symfile *f)
{
	GElf_Addr bias;
	int err;

	f->lines_loaded = true;
	if (!keeps_lines(s, f))
		return;
	ct_src_kept_from(dwfl_module_getelf(f->mod, &bias), f->build_id, f->lines_from);
	err = ct_src_kept_load(s->cache_dir, f->id, f->lines_from, &f->lines);
	s->st.lines_files_kept += err == 0;
	s->st.lines_refused += err == -EINVAL;
}

/* The source line at ELF address look: the last capture's where it kept
 * it, else read from the DWARF and kept for the next. */
static char *line_of(struct ct_symbolizer *s, struct ct_symfile *f, uint64_t look)
{
	const char *kept;
	char *src;

	if (!f->lines_loaded)
		load_lines(s, f);
	if ((kept = ct_src_kept_get(&f->lines, look))) {
		s->st.lines_kept++;
		s->st.lines += *kept != 0;
		return *kept ? strdup(kept) : NULL;
	}
	src = source_of(s, f, f->base + look);
	if (keeps_lines(s, f) && ct_src_kept_put(&f->lines, look, src))
		f->lines_new = true;
	return src;
}

/* The file's index, built the first time one of its addresses is named. */
static struct ct_symindex *index_of(struct ct_symbolizer *s, struct ct_symfile *f)
{
	struct ct_symindex_info info;

	if (f->index_tried)
		return f->index;
	f->index_tried = true;
	f->index = ct_symindex_build(f->mod, s->cache_dir[0] && f->id[0] ? s->cache_dir : NULL,
				     f->id);
	if (!f->index) {
		s->st.index_failed++;
		return NULL;
	}
	ct_symindex_info(f->index, &info);
	s->st.cache_read += info.cache_read;
	s->st.cache_written += info.cache_written;
	if (info.cache_errno && !s->st.cache_failed++)
		s->st.cache_errno = info.cache_errno;
	s->st.files++;
	s->st.symbols += info.symbols;
	s->st.kept += info.kept;
	s->st.build_ms += info.build_ms;
	s->st.via_libdw += info.via_libdw;
	return f->index;
}

/* The symbol holding ELF address look and look's offset in it: the
 * index's answer (libdw's where the index could not be built), held to
 * libdw's own under the check. */
static const char *symbol_of(struct ct_symbolizer *s, struct ct_symfile *f, uint64_t look,
			     uint64_t *off)
{
	struct ct_symindex *x = index_of(s, f);
	GElf_Off doff = 0;
	GElf_Sym sym;
	const char *name = NULL, *dname;

	s->st.lookups++;
	if (x && (name = ct_symindex_lookup(x, look, off)) == CT_SYMINDEX_ASK_LIBDW) {
		s->st.asked_libdw++;
		x = NULL;
	}
	if (x && !s->check)
		return name;
	dname = dwfl_module_addrinfo(f->mod, f->base + look, &doff, &sym, NULL, NULL, NULL);
	if (!x) {
		*off = doff;
		return dname;
	}
	s->st.checked++;
	if ((name == NULL) != (dname == NULL) || (name && (strcmp(name, dname) || *off != doff)))
		s->st.differ++;
	return name;
}

/* The export's name (exp_raw): the symbol's own, copied, where the two
 * are one (an address inside an exported function, as most exports found
 * are), rather than demangled again. */
static struct name export_name(const struct name *sym, const char *sym_raw, const char *exp_raw)
{
	struct name n = *sym;

	if (!sym->s || !sym_raw || strcmp(sym_raw, exp_raw))
		return name_of(clean_name(exp_raw));
	n.s = malloc(n.len + 1);
	if (!n.s)
		return (struct name){ 0 };
	memcpy(n.s, sym->s, n.len + 1);
	return n;
}

/* elf_addr: of the pc itself; lookups use pc-1 for return addresses. */
static struct resolved *resolve(struct ct_symbolizer *s, struct ct_symfile *f,
				uint64_t elf_addr, bool activation)
{
	uint64_t key = elf_addr << 1 | activation, look = elf_addr - !activation;
	struct resolved *r = idmap_get(&f->resolved, key);
	const struct export_sym *e;
	uint64_t off = 0, t0;
	const char *name;

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	name = symbol_of(s, f, look, &off);
	if (name) {
		r->sym = name_of(clean_name(name));
		r->sym_off = off + !activation;
	}
	e = find_export(f, look);
	if (e) {
		r->exp = export_name(&r->sym, name, e->name);
		r->exp_off = elf_addr - e->value;
	}
	r->src = name_of(line_of(s, f, look));
	s->st.name_ms += (double)(ct_now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	if (f->resolved.used >= RESOLVED_MAX)   /* bounded: start again */
		idmap_drain(&f->resolved, free_resolved, NULL);
	idmap_put(&f->resolved, key, r);
	return r;
}

/* --- the frames record ------------------------------------------------------ */

/* Offset of n in the record's strings, added once; CT_NOSTR if it is full. */
static uint32_t add_string(struct ct_frames_builder *b, const struct name *n)
{
	const uint32_t mask = sizeof(b->slots) / sizeof(b->slots[0]) - 1;
	struct ct_frames_slot *sl = NULL;
	uint32_t h, i;

	if (!n->s)
		return CT_NOSTR;
	for (h = n->hash & mask, i = 0; i <= mask; h = (h + 1) & mask, i++) {
		sl = &b->slots[h];
		if (sl->gen != b->gen)
			break;
		if (sl->hash == n->hash && sl->len == n->len &&
		    memcmp(b->strings + sl->off, n->s, n->len) == 0)
			return sl->off;
	}
	if (b->strings_size + n->len + 1 > CT_STRINGS_MAX)
		return CT_NOSTR;
	memcpy(b->strings + b->strings_size, n->s, n->len + 1);
	if (i <= mask)
		*sl = (struct ct_frames_slot){ b->gen, n->hash, b->strings_size, n->len };
	b->strings_size += n->len + 1;
	return b->strings_size - n->len - 1;
}

void ct_frames_begin(struct ct_frames_builder *b)
{
	b->nframes = 0;
	b->strings_size = 0;
	if (++b->gen == 0) {   /* wrapped: no slot may look taken */
		memset(b->slots, 0, sizeof(b->slots));
		b->gen = 1;
	}
}

void ct_frames_add(struct ct_frames_builder *b, struct ct_symbolizer *s, struct ct_symfile *f,
		   uint64_t pc, uint64_t elf_addr, bool activation)
{
	struct ct_frame *fr;
	struct resolved *r;

	if (b->nframes >= CT_FRAMES_MAX)
		return;
	fr = &b->frames[b->nframes++];
	memset(fr, 0, sizeof(*fr));
	fr->pc = pc;
	fr->module = fr->sym = fr->exp = fr->src = CT_NOSTR;
	if (!f)
		return;
	fr->offset = elf_addr;
	fr->module = add_string(b, &f->path);
	if (!f->mod || !(r = resolve(s, f, elf_addr, activation)))
		return;
	fr->sym = add_string(b, &r->sym);
	fr->sym_off = r->sym_off;
	fr->exp = add_string(b, &r->exp);
	fr->exp_off = r->exp_off;
	fr->src = add_string(b, &r->src);
}

struct ct_frames *ct_frames_end(struct ct_frames_builder *b, const struct ct_rec *h,
				uint32_t status, uint32_t stack_size)
{
	struct ct_frames *r = (struct ct_frames *)b->buf;
	size_t fsize = sizeof(struct ct_frame) * b->nframes;

	memset(r, 0, sizeof(*r));
	r->h.type = CT_REC_FRAMES;
	r->h.ts_ns = h->ts_ns;
	r->h.pid = h->pid;
	r->h.tid = h->tid;
	r->nframes = b->nframes;
	r->status = status;
	r->stack_size = stack_size;
	r->strings_size = b->strings_size;
	memcpy(r + 1, b->frames, fsize);
	memcpy((unsigned char *)(r + 1) + fsize, b->strings, b->strings_size);
	r->h.size = (uint32_t)(sizeof(*r) + fsize + b->strings_size);
	return r;
}
