// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "zstd_stream.h"

struct ct_zenc {
	ZSTD_CCtx *cctx;
	uint64_t written;   /* compressed bytes out to the fd */
	size_t outcap;
	unsigned char *out;
};

struct ct_zenc *ct_zenc_new(int level)
{
	struct ct_zenc *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->cctx = ZSTD_createCCtx();
	z->outcap = ZSTD_CStreamOutSize();
	z->out = malloc(z->outcap);
	if (!z->cctx || !z->out ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level))) {
		ct_zenc_free(z);
		return NULL;
	}
	return z;
}

int ct_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ct_zenc_write(struct ct_zenc *z, int fd, const void *buf, size_t len, bool end)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_flush;
	size_t left;
	int err;

	do {
		ZSTD_outBuffer out = { z->out, z->outcap, 0 };

		left = ZSTD_compressStream2(z->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return -EIO;
		err = ct_write_all(fd, z->out, out.pos);
		if (err)
			return err;
		z->written += out.pos;
	} while (left || in.pos < in.size);
	return 0;
}

uint64_t ct_zenc_written(const struct ct_zenc *z)
{
	return z->written;
}

size_t ct_zenc_bound(size_t len)
{
	return ZSTD_compressBound(len);
}

void ct_zenc_free(struct ct_zenc *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
}

struct zdec {
	FILE *src;
	ZSTD_DStream *ds;
	ZSTD_inBuffer in;
	unsigned char *inbuf;
	size_t incap;
	size_t last;          /* ZSTD_decompressStream's last hint: 0 = frame done */
	struct ct_zstd_status st;
};

static ssize_t zdec_read(void *cookie, char *buf, size_t size)
{
	struct zdec *z = cookie;
	ZSTD_outBuffer out = { buf, size, 0 };

	while (out.pos == 0) {
		if (z->in.pos == z->in.size) {
			size_t n = fread(z->inbuf, 1, z->incap, z->src);

			if (n == 0) {
				if (ferror(z->src)) {
					snprintf(z->st.err, sizeof(z->st.err), "read error: %s",
						 strerror(errno));
					errno = EIO;
					return -1;
				}
				if (z->last != 0) {
					snprintf(z->st.err, sizeof(z->st.err),
						 "compressed data ends inside a zstd frame");
					z->st.cut = true;
					errno = EIO;
					return -1;
				}
				return 0;
			}
			z->in.src = z->inbuf;
			z->in.size = n;
			z->in.pos = 0;
		}
		z->last = ZSTD_decompressStream(z->ds, &out, &z->in);
		if (ZSTD_isError(z->last)) {
			snprintf(z->st.err, sizeof(z->st.err), "corrupt compressed data (%s)",
				 ZSTD_getErrorName(z->last));
			errno = EIO;
			return -1;
		}
	}
	return (ssize_t)out.pos;
}

static int zdec_close(void *cookie)
{
	struct zdec *z = cookie;

	fclose(z->src);
	ZSTD_freeDStream(z->ds);
	free(z->inbuf);
	free(z);
	return 0;
}

FILE *ct_zstd_open_read(FILE *src, const void *prefix, size_t n,
			const struct ct_zstd_status **st)
{
	cookie_io_functions_t io = { .read = zdec_read, .close = zdec_close };
	struct zdec *z = calloc(1, sizeof(*z));
	FILE *f;

	if (!z)
		return NULL;
	z->src = src;
	z->ds = ZSTD_createDStream();
	z->incap = ZSTD_DStreamInSize();
	z->inbuf = malloc(z->incap > n ? z->incap : n);
	if (!z->ds || !z->inbuf)
		goto fail;
	ZSTD_initDStream(z->ds);
	memcpy(z->inbuf, prefix, n);
	z->in.src = z->inbuf;
	z->in.size = n;
	z->last = 1;
	f = fopencookie(z, "r", io);
	if (!f)
		goto fail;
	*st = &z->st;
	return f;
fail:
	ZSTD_freeDStream(z->ds);
	free(z->inbuf);
	free(z);
	return NULL;
}
