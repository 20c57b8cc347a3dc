// SPDX-License-Identifier: MIT
/* The lines of records that are not ioctls: mmap, munmap, process, fork,
 * exit, file references, the trailer. */
#include <inttypes.h>
#include <string.h>

#include "decoder.h"

#define TEXT_STRING_MAX   96   /* text cuts argv/env strings here without -v */

/* Which memory object the preceding RM_MAP_MEMORY on this fd set up. */
static void print_mmap_target(struct ct_decoder *d, const struct ct_mmap *m)
{
	uint32_t client, hmem;
	char desc[160];
	const char *what;

	if (!ct_objects_mmap_target(d->objs, m->h.pid, m->fd, &client, &hmem))
		return;
	what = ct_objects_describe(d->objs, client, hmem, desc, sizeof(desc));
	if (d->o.json) {
		em_hex(&d->em, "hClient", client);
		em_hex_named(&d->em, "hMemory", hmem, what);
	} else {
		out_printf(&d->out, " maps hMemory=0x%x", hmem);
		if (what)
			out_printf(&d->out, "<%s>", what);
	}
}

/* The views have seen the call (c) and kept it. */
void ct_print_mmap(struct ct_decoder *d, const struct ct_mmap *m, const struct ct_call *c)
{
	struct emit *e = &d->em;

	ct_print_head(d, "mmap", m->h.ts_ns, &m->h, m->comm);
	if (d->o.json) {
		em_str(e, "syscall", "mmap");
		ct_print_fd_path(d, m->fd, m->dev, m->flags, m->ino);
		if (c->gpu >= 0)
			em_i64(e, "gpu", c->gpu);
		em_hex(e, "addr", m->addr);
		em_u64(e, "len", m->len);
		em_hex(e, "prot", m->prot);
		em_hex(e, "flags", m->mflags);
		em_hex(e, "offset", m->off);
		em_hex(e, "ret", (uint64_t)m->ret);
		em_u64(e, "duration_ns", m->h.ts_ns - m->ts_enter);
		print_mmap_target(d, m);
	} else {
		out_printf(&d->out, "mmap(0x%" PRIx64 ", %" PRIu64 ", 0x%x, 0x%x, ",
			   (uint64_t)m->addr, (uint64_t)m->len, m->prot, m->mflags);
		ct_print_fd_path(d, m->fd, m->dev, m->flags, m->ino);
		if (m->ret < 0 && m->ret > -4096)
			out_printf(&d->out, ", 0x%" PRIx64 ") = %" PRId64, (uint64_t)m->off,
				   (int64_t)m->ret);
		else
			out_printf(&d->out, ", 0x%" PRIx64 ") = 0x%" PRIx64, (uint64_t)m->off,
				   (uint64_t)m->ret);
		ct_print_duration(d, m->h.ts_ns - m->ts_enter);
		print_mmap_target(d, m);
	}
	ct_end_call_line(d, c);
}

void ct_print_munmap(struct ct_decoder *d, const struct ct_munmap *m, const struct ct_call *c)
{
	ct_print_head(d, "munmap", m->h.ts_ns, &m->h,
		      ct_comms_find(&d->comms, m->h.pid, m->h.tid));
	if (d->o.json) {
		em_str(&d->em, "syscall", "munmap");
		em_hex(&d->em, "addr", m->addr);
		em_u64(&d->em, "len", m->len);
		em_u64(&d->em, "mapping_len", m->map_len);
	} else {
		out_printf(&d->out, "munmap(0x%" PRIx64 ", %" PRIu64 ")", (uint64_t)m->addr,
			   (uint64_t)m->len);
	}
	ct_end_call_line(d, c);
}

/* argv or env block (NUL-separated) as a list. */
static void print_strings(struct ct_decoder *d, const char *key, const char *p, uint32_t n)
{
	uint32_t i = 0;
	bool first = true;

	if (d->o.json) {
		em_str_list_begin(&d->em, key);
		while (i < n) {
			size_t len = strnlen(p + i, n - i);

			em_str_list_item(&d->em, p + i, len);
			i += (uint32_t)len + 1;
		}
		em_str_list_end(&d->em);
		return;
	}
	out_printf(&d->out, " %s=[", key);
	while (i < n) {
		size_t len = strnlen(p + i, n - i);

		if (!first)
			out_write(&d->out, ", ", 2);
		/* JSON escaping keeps a text line one line, whatever argv holds;
		 * without -v long values are cut (NVIDIA_REQUIRE_CUDA is 2 KB). */
		if (d->o.verbose < 1 && len > TEXT_STRING_MAX) {
			em_json_string(&d->out, p + i, TEXT_STRING_MAX);
			out_write(&d->out, "...", 3);
		} else {
			em_json_string(&d->out, p + i, len);
		}
		first = false;
		i += (uint32_t)len + 1;
	}
	out_putc(&d->out, ']');
}

void ct_print_proc(struct ct_decoder *d, const struct ct_proc *p)
{
	static const char *const src[] = { "?", "exec", "attach", "seen" };
	const char *s = p->source < 4 ? src[p->source] : "?";
	const char *argv = (const char *)(p + 1);

	ct_print_head(d, "proc", p->h.ts_ns, &p->h, p->comm);
	if (d->o.json) {
		em_u64(&d->em, "ppid", p->ppid);
		em_str(&d->em, "source", s);
	} else {
		out_printf(&d->out, "+++ process %u (parent %u) %s:", p->h.pid, p->ppid, s);
	}
	print_strings(d, "argv", argv, p->argv_size);
	print_strings(d, "env", argv + p->argv_size, p->env_size);
	ct_end_line(d);
}

void ct_print_fork(struct ct_decoder *d, const struct ct_fork *f)
{
	if (!d->o.json && d->o.verbose < 1)
		return;
	ct_print_head(d, "fork", f->h.ts_ns, &f->h, NULL);
	if (d->o.json)
		em_u64(&d->em, "child", f->child_pid);
	else
		out_printf(&d->out, "+++ forked child %u", f->child_pid);
	ct_end_line(d);
}

void ct_print_exit(struct ct_decoder *d, const struct ct_rec *r)
{
	if (!d->o.json && d->o.verbose < 1)
		return;
	ct_print_head(d, "exit", r->ts_ns, r, NULL);
	if (!d->o.json)
		out_puts(&d->out, "+++ exited");
	ct_end_line(d);
}

void ct_print_trailer(struct ct_decoder *d, const struct ct_trailer *t)
{
	if (d->o.json) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", "trailer");
		em_u64(&d->em, "events", t->events);
		em_u64(&d->em, "lost", t->lost);
		em_u64(&d->em, "lost_inflight", t->lost_inflight);
		em_close(&d->em);
		out_putc(&d->out, '\n');
	}
}


/* -k: an executable mapping of a traced process (JSON, or text with -vv). */
void ct_print_mapping(struct ct_decoder *d, const struct ct_mapping *m)
{
	if (!d->o.json && d->o.verbose < 2)
		return;
	ct_print_head(d, "mapping", m->h.ts_ns, &m->h, NULL);
	ct_stack_print_mapping(&d->em, m);
	ct_end_line(d);
}

/* An fd named in params, and the open file behind it (shown with -vv). */
void ct_print_fileref(struct ct_decoder *d, const struct ct_fileref *f)
{
	if (!d->o.json && d->o.verbose < 2)
		return;
	ct_print_head(d, "fileref", f->h.ts_ns, &f->h, NULL);
	if (d->o.json) {
		em_i64(&d->em, "fd", f->fd);
		em_hex(&d->em, "file", f->file_id);
	} else if (f->file_id) {
		out_printf(&d->out, "+++ fd %d is open file %#" PRIx64, f->fd,
			   (uint64_t)f->file_id);
	} else {
		out_printf(&d->out, "+++ fd %d is not open", f->fd);
	}
	ct_end_line(d);
}
