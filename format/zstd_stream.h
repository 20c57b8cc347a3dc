/* SPDX-License-Identifier: MIT */
/* zstd for trace files: a compressing writer stage and a decompressing
 * FILE*, so the trace reader reads compressed and plain files alike. */
#ifndef CT_ZSTD_STREAM_H
#define CT_ZSTD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CT_ZSTD_MAGIC "\x28\xb5\x2f\xfd"

/* write(2) until done or an error (-errno); EINTR is retried. */
int ct_write_all(int fd, const void *buf, size_t len);

struct ct_zenc;

struct ct_zenc *ct_zenc_new(int level);
/*
 * Compresses len bytes and writes what is ready to fd.  end=false flushes
 * (so a killed capture leaves a readable prefix); end=true closes the frame.
 * 0, or -errno.
 */
int ct_zenc_write(struct ct_zenc *z, int fd, const void *buf, size_t len, bool end);
/* Compressed bytes written to fd so far. */
uint64_t ct_zenc_written(const struct ct_zenc *z);
/* The most that len bytes can compress to (zstd's bound). */
size_t ct_zenc_bound(size_t len);
void ct_zenc_free(struct ct_zenc *z);

/* What went wrong in a decompressing stream: err says what ("" while
 * nothing did); cut: its data ended inside a frame (the capture stopped
 * mid-write), not damaged data or a read error. */
struct ct_zstd_status {
	char err[128];
	bool cut;
};

/*
 * A read-only FILE* that decompresses src (which it then owns and closes);
 * prefix holds bytes already read from src.  Damaged or cut data sets the
 * stream's error flag, and *st (valid until fclose) says what happened.
 */
FILE *ct_zstd_open_read(FILE *src, const void *prefix, size_t n,
			const struct ct_zstd_status **st);

#endif
