// SPDX-License-Identifier: MIT
/*
 * A call as the views and printers see it (call.h): the entry and exit
 * records of an ioctl, parsed once: names, layouts, NV_STATUS, GPU.
 */
#include <string.h>

#include "decoder.h"
#include "labels.h"
#include "nvtables.h"
#include "special.h"

void ct_describe_common(const struct ct_decoder *d, struct ct_call *c, const struct ct_rec *h,
			const char *comm, int fd, uint32_t kdev, uint32_t flags, uint64_t ino)
{
	const struct ct_devname *dn;

	c->pid = h->pid;
	c->tid = h->tid;
	comm = ct_prognames_comm(&d->progs, h->pid, comm);
	if (comm)
		memcpy(c->comm, comm, CT_COMM_LEN);
	c->comm[CT_COMM_LEN] = 0;
	c->fd = fd;
	dn = kdev ? ct_devnames_entry(&d->devs, kdev, flags & CT_F_REGFILE, ino) : NULL;
	c->path = dn ? dn->path : NULL;
	c->gpu = dn && dn->has_minor ? dn->minor : -1;
}

/* Matched on request AND size, at the trace's driver (0: the newest). */
static const struct ct_layout *arg_layout(const struct ct_decoder *d, uint32_t cmd,
					  uint32_t size)
{
	if (IOC_TYPE(cmd) == NV_IOCTL_MAGIC)
		return ct_layout_find(CT_LAYOUT_ESCAPE, IOC_NR(cmd), size, d->driver);
	return ct_layout_find(CT_LAYOUT_UVM, cmd, size, d->driver);
}

/* The NV_STATUS the driver wrote back: the first status field of the struct. */
static void describe_status(struct ct_call *c)
{
	const struct ct_ioctl *r = c->ex;
	const struct nv_status_info *st;
	uint32_t i;

	for (i = 0; r && c->written_back && c->layout && i < c->layout->nfields; i++) {
		const struct ct_field *f = &c->layout->fields[i];

		if (f->kind == CT_FK_STATUS && f->size == 4 && f->offset + 4 <= r->arg_size) {
			c->has_status = true;
			c->status = (uint32_t)ct_field_u(ct_ioctl_arg(r) + f->offset, 4);
			st = nv_status_lookup(c->status);
			c->status_name = st ? st->name : NULL;
			return;
		}
	}
}

/* The GPU the argument's fields name: the first handle of an object under
 * a device, else (UVM) the first GPU UUID that names one; -1.  One walk. */
static int gpu_of_fields(const struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_layout *l = c->layout;
	const unsigned char *arg = ct_ioctl_arg(c->rec);
	uint32_t len = c->rec->arg_size, i;
	int gpu, by_uuid = -1;

	for (i = 0; l && i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];

		if ((uint64_t)f->offset + f->size > len)
			continue;
		if (f->kind == CT_FK_HANDLE && f->size == 4) {
			gpu = ct_objects_gpu(d->objs, c->client,
					     (uint32_t)ct_field_u(arg + f->offset, 4));
			if (gpu >= 0)
				return gpu;
		} else if (f->kind == CT_FK_UUID && f->size == 16 && by_uuid < 0) {
			by_uuid = ct_gpus_by_uuid(&d->gpus, arg + f->offset);
		}
	}
	return by_uuid;
}

/* Which GPU a call concerns: the N of /dev/nvidiaN, else what the special
 * decoder says, else the device that owns the first object the argument
 * names (hObject, hDevice, hParent ...), else the GPU a UUID names. */
static int call_gpu(const struct ct_decoder *d, const struct ct_call *c)
{
	if (c->gpu >= 0)   /* ct_describe_common's reading of the path */
		return c->gpu;
	if (c->special && c->special->gpu)
		return c->special->gpu(d, c);
	return gpu_of_fields(d, c);
}

/*
 * A negative return is an errno from the kernel or the driver's front end
 * (-ENOTTY, -EFAULT, -EINVAL ...): the RM wrote nothing back, so the call
 * is shown as the program passed it (its entry buffers), and its NV_STATUS
 * fields, still what the program put there, are no status at all.
 */
static bool driver_wrote_back(const struct ct_ioctl *ex)
{
	return ex && ex->ret >= 0;
}

void ct_describe_ioctl(struct ct_decoder *d, const struct ct_ioctl *en,
		       const struct ct_ioctl *ex, struct ct_call *c)
{
	const struct ct_ioctl *r = ex ? ex : en;

	memset(c, 0, sizeof(*c));
	c->kind = CT_CALL_IOCTL;
	c->en = en;
	c->ex = ex;
	c->written_back = driver_wrote_back(ex);
	if (ex && !c->written_back && en)
		r = en;
	c->rec = r;
	ct_describe_common(d, c, &r->h, r->comm, r->fd, r->dev, r->flags, r->ino);
	c->ts_ns = r->ts_enter;
	c->finished = ex != NULL;
	c->duration_ns = ex ? ex->h.ts_ns - ex->ts_enter : 0;
	c->ret = ex ? ex->ret : 0;
	c->request = r->cmd;
	c->name = ct_request_name(r->cmd);
	c->esc_nr = IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC ? IOC_NR(r->cmd) : 0;
	c->layout = arg_layout(d, r->cmd, r->arg_size);
	c->client = ct_first_handle(c->layout, ct_ioctl_arg(r), r->arg_size);
	c->nested_name = "*ptr";
	c->special = c->esc_nr ? ct_special_find(c->esc_nr) : NULL;
	if (c->special && c->special->describe)
		c->special->describe(d, c);
	describe_status(c);
	c->failed = (ex && ex->ret != 0) || (c->has_status && c->status != 0);
	c->gpu = call_gpu(d, c);
}
