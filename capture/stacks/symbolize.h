/* SPDX-License-Identifier: MIT */
/*
 * Names for the frames of an unwound stack, and the CT_REC_FRAMES record
 * that carries them into the trace: best symbol (.symtab, else .dynsym;
 * C++ demangled; found in symindex.h's sorted index, as libdw would), the exported .dynsym function that holds the pc (what
 * `api` is made of), and file:line where DWARF line tables exist.
 */
#ifndef CT_SYMBOLIZE_H
#define CT_SYMBOLIZE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"

/* A string of the record being built, found again by its hash: each
 * is stored once a record. */
struct ct_frames_slot {
	uint32_t gen;            /* the record it is of; another's: empty */
	uint32_t hash;
	uint32_t off, len;       /* in strings */
};

/* Builds one CT_REC_FRAMES record. */
struct ct_frames_builder {
	unsigned char *buf;      /* CT_FRAMES_BUF bytes */
	struct ct_frame frames[CT_FRAMES_MAX];
	uint32_t nframes;
	char strings[CT_STRINGS_MAX];
	uint32_t strings_size;
	uint32_t gen;            /* the record's, for its slots */
	struct ct_frames_slot slots[1024];
};

#define CT_FRAMES_BUF (sizeof(struct ct_frames) + sizeof(struct ct_frame) * CT_FRAMES_MAX + \
		       CT_STRINGS_MAX)

/*
 * Symbol files, shared by every process of the capture: each file (by
 * device and inode) is read once into one offline Dwfl, and each address
 * named once, however many processes map it.
 */
struct ct_symbolizer;
struct ct_symfile;
struct ct_codemap;

/* check: name each address through libdw too, counting differences. */
struct ct_symbolizer *ct_symbolizer_new(bool check);
void ct_symbolizer_free(struct ct_symbolizer *s);
/* The symbol file for a mapping's file (opened through its fd), or NULL. */
struct ct_symfile *ct_symbolizer_file(struct ct_symbolizer *s, const struct ct_codemap *m);

/* How frames were named, for the closing lines. */
struct ct_naming_stats {
	uint64_t files;         /* symbol indexes built */
	uint64_t symbols;       /* ... from tables of this many symbols */
	uint64_t kept;          /* ... of which these can name code */
	double build_ms;        /* ... in this long */
	uint64_t via_libdw;     /* ... files read symbol by symbol through libdw */
	uint64_t index_failed;  /* files named by libdw alone (no memory for an index) */
	uint64_t cache_read;    /* indexes mapped from the cache (CUDATRACE_SYMBOL_CACHE) */
	uint64_t cache_written; /* ... built and written to it */
	uint64_t cache_failed;  /* ... that could not be written */
	int cache_errno;        /* ... the first's errno */
	uint64_t cache_removed; /* ... least recently used, removed to keep it under: */
	uint64_t cache_bound;   /* ... this many bytes (CUDATRACE_SYMBOL_CACHE_MB) */
	uint64_t lookups;       /* addresses named (each once a file) */
	double name_ms;         /* ... in this long, indexes and source lines included */
	uint64_t line_files;    /* files whose source lines were looked up */
	uint64_t lines;         /* ... addresses given a source line */
	double lines_ms;        /* ... in this long (reading their debug information) */
	uint64_t lines_kept;    /* ... of them, and of none, as the last capture kept them */
	uint64_t lines_files_kept;   /* files whose lines the last capture kept */
	uint64_t lines_refused; /* ... kept from other DWARF, or not read whole: read again */
	uint64_t lines_files_saved;  /* files whose lines are kept for the next capture */
	uint64_t lines_save_failed;  /* ... that could not be written */
	int lines_save_errno;   /* ... the first's errno */
	uint64_t asked_libdw;   /* ... by libdw: the index's symbol had an empty name */
	uint64_t checked;       /* CT_UNWIND_CHECK: ... asked of libdw too */
	uint64_t differ;        /* ... where libdw named it otherwise */
};
const struct ct_naming_stats *ct_symbolizer_stats(const struct ct_symbolizer *s);
/* At the end of a run (before the closing lines, which say what it did):
 * keeps the source lines looked up for the next capture, and the symbol
 * cache under its bound. */
void ct_symbolizer_keep_cache(struct ct_symbolizer *s);

void ct_frames_begin(struct ct_frames_builder *b);
/* Adds a frame at pc, in file f of s (NULL: no module) at ELF address
 * elf_addr.  activation: pc is exact (innermost frame), else a return
 * address. */
void ct_frames_add(struct ct_frames_builder *b, struct ct_symbolizer *s, struct ct_symfile *f,
		   uint64_t pc, uint64_t elf_addr, bool activation);
/* Finishes the record into b->buf; returns it. */
struct ct_frames *ct_frames_end(struct ct_frames_builder *b, const struct ct_rec *h,
				uint32_t status, uint32_t stack_size);

#endif
