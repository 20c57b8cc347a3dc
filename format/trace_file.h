/* SPDX-License-Identifier: MIT */
/*
 * Trace files: a 16-byte preamble, then records padded to 8 bytes, the
 * first a CT_REC_META and the last a CT_REC_TRAILER.  See docs/FORMAT.md.
 */
#ifndef CT_TRACE_FILE_H
#define CT_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CT_FILE_MAGIC   "CUDATRCE"
#define CT_FILE_VERSION 1

struct ct_writer;

/*
 * Creates path as every output is (owner.h: 0600, under sudo the user's),
 * refusing to follow a symlink; compress: zstd stream (flushed at every
 * ct_writer_flush so a killed capture stays readable).  NULL + errno on
 * error.
 */
struct ct_writer *ct_writer_open(const char *path, bool compress);
/* Appends one record (its size field gives the length).  -errno on error. */
int ct_writer_add(struct ct_writer *w, const void *rec);
int ct_writer_flush(struct ct_writer *w);
/* The file's size: with -z, the compressed bytes written so far (what is
 * buffered comes at the next flush). */
uint64_t ct_writer_bytes(const struct ct_writer *w);
/* Whether the file has reached size bytes on disk (-z: compressed; it may
 * flush to know).  --max-size asks it after each record. */
bool ct_writer_reached(struct ct_writer *w, uint64_t size);
/* Flushes and closes; -errno if anything failed on the way. */
int ct_writer_close(struct ct_writer *w);

struct ct_reader;

enum ct_read_status {
	CT_READ_OK = 0,     /* *rec, *len point at a checked record */
	CT_READ_END,        /* clean end of file */
	CT_READ_ERROR,      /* ct_reader_error() says what and where */
};

/* Opens a trace file, plain or zstd ("-" for stdin).  NULL with a message in err. */
struct ct_reader *ct_reader_open(const char *path, char *err, size_t errlen);
enum ct_read_status ct_reader_next(struct ct_reader *r, const void **rec, size_t *len);
const char *ct_reader_error(const struct ct_reader *r);
/* After CT_READ_ERROR: whether the data simply ended (inside a record or
 * a zstd frame: the capture was cut short), rather than being damaged. */
bool ct_reader_cut(const struct ct_reader *r);
uint64_t ct_reader_offset(const struct ct_reader *r);
/* Records of a type newer than this cudatrace, skipped so far. */
uint64_t ct_reader_skipped(const struct ct_reader *r);
void ct_reader_close(struct ct_reader *r);
/* Whether path opens as a trace file (plain or zstd, a header this version reads). */
bool ct_is_trace_file(const char *path);

#endif
