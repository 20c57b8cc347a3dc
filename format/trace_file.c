// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owner.h"
#include "record.h"
#include "trace_file.h"
#include "zstd_stream.h"

#define WBUF_SIZE (1u << 20)
#define PAD8(n) (((n) + 7) & ~(size_t)7)

struct preamble {
	char magic[8];
	uint32_t version;
	uint32_t size;
};

struct ct_writer {
	int fd;
	struct ct_zenc *z;   /* -z: zstd stage, else NULL */
	int err;          /* first error, sticky */
	size_t used;      /* in buf, not written yet */
	uint64_t bytes;   /* plain: the file's size, buf included; -z: before compression */
	unsigned char buf[WBUF_SIZE];
};

struct ct_writer *ct_writer_open(const char *path, bool compress)
{
	struct preamble pre = { .version = CT_FILE_VERSION, .size = sizeof(pre) };
	struct ct_writer *w;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	err = ct_own_file(fd, path);   /* 0600, the sudo user's */
	if (err) {
		close(fd);
		errno = err;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	if (compress && !(w->z = ct_zenc_new(3))) {
		close(fd);
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(pre.magic, CT_FILE_MAGIC, sizeof(pre.magic));
	memcpy(w->buf, &pre, sizeof(pre));
	w->used = sizeof(pre);
	w->bytes = sizeof(pre);
	return w;
}

static int write_out(struct ct_writer *w, bool end)
{
	if (!w->err && (w->used || end))
		w->err = w->z ? ct_zenc_write(w->z, w->fd, w->buf, w->used, end)
			      : ct_write_all(w->fd, w->buf, w->used);
	w->used = 0;
	return w->err;
}

int ct_writer_flush(struct ct_writer *w)
{
	return write_out(w, false);
}

int ct_writer_add(struct ct_writer *w, const void *rec)
{
	const struct ct_rec *h = rec;
	size_t len = h->size, padded = PAD8(len);
	static const unsigned char zeros[8];

	if (w->err)
		return w->err;
	if (w->used + padded > WBUF_SIZE && ct_writer_flush(w))
		return w->err;
	if (padded > WBUF_SIZE) {   /* cannot happen with checked records */
		w->err = -EMSGSIZE;
		return w->err;
	}
	memcpy(w->buf + w->used, rec, len);
	memcpy(w->buf + w->used + len, zeros, padded - len);
	w->used += padded;
	w->bytes += padded;
	return 0;
}

uint64_t ct_writer_bytes(const struct ct_writer *w)
{
	return w->z ? ct_zenc_written(w->z) : w->bytes;
}

/* -z: what is still in buf compresses to at most its bound, so the size
 * is reached only when the bound would reach it; then buf is compressed
 * (a flush: the file holds it whole) and what is on disk is counted.  Near
 * the size that flushes at shorter and shorter intervals, a few dozen per
 * file in all. */
bool ct_writer_reached(struct ct_writer *w, uint64_t size)
{
	if (!w->z)
		return w->bytes >= size;
	if (ct_zenc_written(w->z) + ct_zenc_bound(w->used) < size)
		return false;
	ct_writer_flush(w);
	return ct_zenc_written(w->z) >= size;
}

int ct_writer_close(struct ct_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = write_out(w, w->z != NULL);
	if (close(w->fd) && !err)
		err = -errno;
	ct_zenc_free(w->z);
	free(w);
	return err;
}

/*
 * Reader: streams, so that pipes and FIFOs work.  Plain input is read
 * with read(2) into a large buffer of its own (taking what a pipe has, not
 * waiting for more), and records are copied out of it: two freads per
 * record were a tenth of the instructions of decoding.  Compressed input
 * is read through the zstd stage's stream, as much as each read needs.
 */
#define RBUF_SIZE (64u << 10)   /* stays in the CPU cache until copied out */

struct ct_reader {
	int fd;            /* plain input, read into in[]; -1 when f is read */
	FILE *f;           /* zstd input: the decompressed stream */
	bool owns;         /* fd or f is ours to close */
	bool read_failed;  /* read(2) failed (the stream's ferror for f) */
	unsigned char *in;
	size_t in_pos, in_len;
	uint64_t offset;   /* of the record being read */
	unsigned char *buf;
	size_t cap;
	const struct ct_zstd_status *zst;   /* the zstd stage's, if compressed */
	bool cut;          /* the error is the data's end: a capture cut short */
	uint64_t skipped;  /* records of types added after this version */
	char err[256];
};

/* More plain input into in[]; false at its end or on an error. */
static bool refill(struct ct_reader *r)
{
	ssize_t n;

	do
		n = read(r->fd, r->in, RBUF_SIZE);
	while (n < 0 && errno == EINTR);
	r->in_pos = 0;
	r->in_len = n > 0 ? (size_t)n : 0;
	r->read_failed = n < 0;
	return n > 0;
}

static bool read_exact(struct ct_reader *r, void *dst, size_t len, size_t *got)
{
	unsigned char *d = dst;

	if (r->fd < 0) {
		*got = fread(dst, 1, len, r->f);
		return *got == len;
	}
	*got = 0;
	while (*got < len && (r->in_pos < r->in_len || refill(r))) {
		size_t n = r->in_len - r->in_pos;

		if (n > len - *got)
			n = len - *got;
		memcpy(d + *got, r->in + r->in_pos, n);
		r->in_pos += n;
		*got += n;
	}
	return *got == len;
}

static bool read_error(const struct ct_reader *r)
{
	return r->fd < 0 ? ferror(r->f) : r->read_failed;
}

/* The input opened as plain: fd, and in[] for it. */
static bool open_plain(struct ct_reader *r, const char *path, char *err, size_t errlen)
{
	struct stat st;

	r->in = malloc(RBUF_SIZE);
	if (!r->in) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	if (strcmp(path, "-") == 0) {
		r->fd = STDIN_FILENO;
		return true;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	r->owns = r->fd >= 0;
	if (r->fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return false;
	}
	if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory, not a trace file", path);
		return false;
	}
	return true;
}

/* zstd (-z): the rest is read through the zstd stage, which starts with
 * the 4-byte magic and what in[] holds after it. */
static bool open_zstd(struct ct_reader *r, const void *magic)
{
	size_t rest = r->in_len - r->in_pos;
	unsigned char *prefix = malloc(4 + rest);
	FILE *src = prefix ? fdopen(r->fd, "rb") : NULL;
	FILE *z = NULL;

	if (src) {
		memcpy(prefix, magic, 4);
		memcpy(prefix + 4, r->in + r->in_pos, rest);
		z = ct_zstd_open_read(src, prefix, 4 + rest, &r->zst);
	}
	free(prefix);
	if (!z && src) {
		fclose(src);   /* and with it the fd */
		r->fd = -1;
		r->owns = false;
	}
	if (!z)
		return false;
	r->f = z;
	r->fd = -1;
	r->owns = true;
	return true;
}

struct ct_reader *ct_reader_open(const char *path, char *err, size_t errlen)
{
	struct ct_reader *r;
	struct preamble pre;
	size_t got;

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->fd = -1;
	if (!open_plain(r, path, err, errlen))
		goto fail;
	/* zstd (-z) or plain: the first four bytes tell. */
	if (read_exact(r, &pre, 4, &got) && memcmp(&pre, CT_ZSTD_MAGIC, 4) == 0) {
		if (!open_zstd(r, &pre)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		read_exact(r, &pre, sizeof(pre), &got);
	} else if (got == 4) {
		read_exact(r, (char *)&pre + 4, sizeof(pre) - 4, &got);
		got += 4;
	}
	if (got < sizeof(pre) || memcmp(pre.magic, CT_FILE_MAGIC, sizeof(pre.magic)) != 0) {
		if (r->zst && r->zst->err[0])   /* compressed, cut or damaged that early */
			snprintf(err, errlen, "%s: %s, in its file header", path, r->zst->err);
		else if (got && got < sizeof(pre) &&
		    !memcmp(&pre, CT_FILE_MAGIC, got < sizeof(pre.magic) ? got : sizeof(pre.magic)))
			snprintf(err, errlen, "%s ends inside its file header (capture cut short?)",
				 path);
		else
			snprintf(err, errlen, "%s is not a cudatrace trace file%s", path,
				 got == 0 ? " (it is empty)" : "");
		goto fail;
	}
	if (pre.version > CT_FILE_VERSION) {
		snprintf(err, errlen,
			 "%s is trace format version %u; this cudatrace reads version %u "
			 "(use a newer cudatrace)", path, pre.version, CT_FILE_VERSION);
		goto fail;
	}
	if (pre.version != CT_FILE_VERSION || pre.size != sizeof(pre)) {
		snprintf(err, errlen, "%s has a damaged file header (format version %u, "
			 "header size %u)", path, pre.version, pre.size);
		goto fail;
	}
	r->offset = sizeof(pre);
	return r;
fail:
	ct_reader_close(r);
	return NULL;
}

/* cut: the data ended there (for compressed data, the zstd stage says). */
static enum ct_read_status fail(struct ct_reader *r, const char *what, bool cut)
{
	if (r->zst && r->zst->err[0]) {
		what = r->zst->err;   /* the real cause: cut or damaged compressed data */
		cut = r->zst->cut;
	}
	r->cut = cut;
	snprintf(r->err, sizeof(r->err), "%s at byte offset %llu%s", what,
		 (unsigned long long)r->offset, r->zst ? " of the uncompressed trace" : "");
	return CT_READ_ERROR;
}

enum ct_read_status ct_reader_next(struct ct_reader *r, const void **rec, size_t *len)
{
	struct ct_rec h;
	size_t got, padded, max;
	const char *bad;

	if (r->err[0])
		return CT_READ_ERROR;
	for (;;) {
		if (!read_exact(r, &h, sizeof(h), &got)) {
			if (got == 0 && !read_error(r))
				return CT_READ_END;
			return fail(r, "file ends inside a record header (capture cut short?)",
				    !read_error(r));
		}
		max = h.type == CT_REC_META ? CT_META_MAX : CT_RECORD_MAX;
		if (h.size < sizeof(h) || h.size > max)
			return fail(r, "record claims an impossible size", false);
		padded = PAD8(h.size);
		if (padded > r->cap) {
			unsigned char *nb = realloc(r->buf, padded);

			if (!nb)
				return fail(r, "out of memory", false);
			r->buf = nb;
			r->cap = padded;
		}
		memcpy(r->buf, &h, sizeof(h));
		if (!read_exact(r, r->buf + sizeof(h), padded - sizeof(h), &got))
			return fail(r, "file ends inside a record (capture cut short?)",
				    !read_error(r));
		/* A type added after this version (docs/FORMAT.md): skipped, counted. */
		if (h.type >= CT_REC_TYPE_MAX && h.type < CT_REC_TYPE_FUTURE_MAX) {
			r->skipped++;
			r->offset += padded;
			continue;
		}
		bad = ct_record_check(r->buf, h.size);
		if (bad)
			return fail(r, bad, false);
		*rec = r->buf;
		*len = h.size;
		r->offset += padded;
		return CT_READ_OK;
	}
}

bool ct_reader_cut(const struct ct_reader *r)
{
	return r->err[0] && r->cut;
}

uint64_t ct_reader_skipped(const struct ct_reader *r)
{
	return r->skipped;
}

const char *ct_reader_error(const struct ct_reader *r)
{
	return r->err;
}

uint64_t ct_reader_offset(const struct ct_reader *r)
{
	return r->offset;
}

void ct_reader_close(struct ct_reader *r)
{
	if (!r)
		return;
	if (r->owns && r->f)
		fclose(r->f);
	else if (r->owns && r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r->buf);
	free(r);
}

bool ct_is_trace_file(const char *path)
{
	char err[256];
	struct ct_reader *r = ct_reader_open(path, err, sizeof(err));

	ct_reader_close(r);
	return r != NULL;
}
