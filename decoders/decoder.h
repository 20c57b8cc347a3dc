/* SPDX-License-Identifier: MIT */
/*
 * Inside the decoder: the state that its files share.  Views and user/ use
 * decode.h; only decoders/decode*.c, describe.c, special.c and print_*.c
 * include this.
 *
 *   decode.c         records in: dispatch by type, entry/exit pairing, views
 *   header.c         the trace header (META): driver, GPUs, device paths
 *   describe.c       a record pair -> struct ct_call (names, status, GPU)
 *   special.c        the table of escapes that need more than their layout
 *   fields.c         the layout-driven field printer
 *   print_ioctl.c    an ioctl call, as text or JSON
 *   print_events.c   mmap, munmap, process, fork, exit, file, trailer lines
 *   print_common.c   what every printed line starts with
 *   proc_lines.c     process lines, held under filters until a call is shown
 */
#ifndef CT_DECODER_H
#define CT_DECODER_H

#include "comms.h"
#include "decode.h"
#include "devnames.h"
#include "emit.h"
#include "errtext.h"
#include "fields.h"
#include "gpus.h"
#include "gpuwork_tie.h"
#include "idmap.h"
#include "kname.h"
#include "objects.h"
#include "outbuf.h"
#include "pystack.h"
#include "prognames.h"
#include "record.h"
#include "stack.h"

/* A piece of a line as last printed, and what it was made from
 * (print_common.c): printed again by a copy when the next line has it too. */
#define CT_MEMO_KEY_MAX  32
#define CT_MEMO_TEXT_MAX 256

struct ct_text_memo {
	unsigned char key[CT_MEMO_KEY_MAX];
	size_t key_len, len;          /* len 0: nothing kept */
	char text[CT_MEMO_TEXT_MAX];
};

struct ct_decoder {
	struct ct_decode_opts o;
	struct ct_out out;           /* every printed byte, on its way to o.out */
	struct emit em;
	struct ct_field_printer fp;  /* em, objs and o.verbose, for fields.c */
	struct idmap pending;        /* tid -> malloc'd entry record */
	struct ct_objects *objs;     /* handles -> objects, across the trace */
	struct ct_stacks *stacks;    /* -k: frames records by thread (stack.h) */
	struct ct_pystacks *pystacks; /* Python frames records by thread (pystack.h) */
	struct ct_view *views;       /* in the order added (ct_decoder_add_view) */
	int nviews;
	size_t views_cap;
	struct ct_devnames devs;     /* (rdev, inode) -> path */
	struct ct_prognames progs;   /* pid -> the program behind the dynamic loader */
	struct ct_comms comms;       /* tid, pid -> comm, for munmap records (none of their own) */
	struct idmap held_procs;     /* pid -> process record not printed yet (proc_lines.c) */
	uint64_t start_mono;
	uint64_t start_real;         /* CLOCK_REALTIME at start_mono, for -t */
	uint32_t driver;             /* ct_driver_version() of the trace, 0 unknown */
	struct ct_gpus gpus;         /* UUID -> /dev/nvidiaN */
	struct ct_errtext errs;      /* strerror() of the calls' errno values */
	struct ct_text_memo who;     /* "pid/tid comm " (JSON: pid, tid, comm) */
	struct ct_text_memo file;    /* "fd<path>" (JSON: fd, path) */
	struct ct_decode_stats st;
	struct ct_gwstate *gw;       /* --gpu-work channels (print_gpuwork.c), NULL: none yet */
	struct ct_knames_table knames;   /* --gpu-work kernel names (kname.h) */
	struct gw_calls calls;       /* each process's latest driver calls, for --gpu-work's
				      * "after" (gpuwork_tie.h) */
};

/* header.c */
void ct_on_meta(struct ct_decoder *d, const struct ct_rec *r);

/* describe.c: fill c from an ioctl's entry and/or exit record ... */
void ct_describe_ioctl(struct ct_decoder *d, const struct ct_ioctl *en,
		       const struct ct_ioctl *ex, struct ct_call *c);
/* ... or the fields every call has, from any record with a file. */
void ct_describe_common(const struct ct_decoder *d, struct ct_call *c, const struct ct_rec *h,
			const char *comm, int fd, uint32_t kdev, uint32_t flags, uint64_t ino);

/* print_ioctl.c */
void ct_print_ioctl(struct ct_decoder *d, const struct ct_call *c);

/* print_events.c */
void ct_print_mmap(struct ct_decoder *d, const struct ct_mmap *m, const struct ct_call *c);
void ct_print_munmap(struct ct_decoder *d, const struct ct_munmap *m, const struct ct_call *c);
void ct_print_proc(struct ct_decoder *d, const struct ct_proc *p);
void ct_print_fork(struct ct_decoder *d, const struct ct_fork *f);
void ct_print_exit(struct ct_decoder *d, const struct ct_rec *r);
void ct_print_fileref(struct ct_decoder *d, const struct ct_fileref *f);
void ct_print_trailer(struct ct_decoder *d, const struct ct_trailer *t);
void ct_print_mapping(struct ct_decoder *d, const struct ct_mapping *m);

/* proc_lines.c: a process record, to print now or before its first call */
void ct_proc_lines_add(struct ct_decoder *d, const struct ct_proc *p);
/* A call of pid is about to be printed: its process line first. */
void ct_proc_lines_before_call(struct ct_decoder *d, uint32_t pid);
/* Whether pid's lines are in the output (its fork and exit lines go with them). */
bool ct_proc_lines_shown(const struct ct_decoder *d, uint32_t pid);
void ct_proc_lines_exit(struct ct_decoder *d, uint32_t pid);
void ct_proc_lines_free(struct ct_decoder *d);
/* print_gpuwork.c */
void ct_gpuwork_on_seg(struct ct_decoder *d, const struct ct_gpu_seg *s);
void ct_gpuwork_on_put(struct ct_decoder *d, const struct ct_gpu_put *w);
/* A finished call, remembered for the GPU work after it (gpuwork_tie.h). */
void ct_gpuwork_note_call(struct ct_decoder *d, const struct ct_call *c);
void ct_gpuwork_decoder_free(struct ct_decoder *d);
/* At the end: the GPU-work counts into the decoder's stats. */
void ct_gpuwork_finish(struct ct_decoder *d);

/* print_common.c */
void ct_print_head(struct ct_decoder *d, const char *type, uint64_t ts,
		   const struct ct_rec *h, const char *comm);
void ct_print_ts(struct ct_decoder *d, uint64_t ts);
void ct_print_fd_path(struct ct_decoder *d, int fd, uint32_t kdev, uint32_t flags,
		      uint64_t ino);
void ct_print_duration(struct ct_decoder *d, uint64_t ns);
void ct_end_line(struct ct_decoder *d);
/* The end of a call's line: its stack (-k, stack.h), then the newline. */
void ct_end_call_line(struct ct_decoder *d, const struct ct_call *c);
void ct_hexdump(struct ct_out *out, const char *title, const unsigned char *p, uint32_t n);
/* ANSI colour c if --color, else "". */
const char *ct_color(const struct ct_decoder *d, const char *c);
#define CT_COLOR_NAME  "\033[1m"
#define CT_COLOR_ERROR "\033[31m"
#define CT_COLOR_OFF   "\033[0m"

#endif
