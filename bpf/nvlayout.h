/* SPDX-License-Identifier: MIT */
/*
 * Where the BPF program finds things in the NVIDIA driver's structs: the
 * buffer an escape's argument points to (RM_CONTROL params, RM_ALLOC
 * alloc params, IOCTL_XFER_CMD's wrapped argument) and the fd that an RM
 * control's params name.  Offsets and sizes differ between driver
 * releases (NVOS64 is 40 bytes at 515/525, 48 from 535), so none is
 * compiled in: the capture fills this from the layout tables for the
 * running driver (capture/bpf_layout.c) into the program's read-only data
 * before loading it.  Not a record: it never reaches a trace file.
 */
#ifndef CT_NVLAYOUT_H
#define CT_NVLAYOUT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CT_NO_FIELD    0xffffffffu /* the struct has no such field */
#define CT_NESTED_MAX  8           /* escape structs that point to a buffer */
#define CT_FD_CTRL_MAX 8           /* RM controls whose params name an fd */
#define CT_FD_OFF_MAX  4096        /* bound on an fd's offset in params, for the verifier */

/* One escape struct, selected by escape number and exact size, that points to a buffer. */
struct ct_nested_at {
	__u32 nr, size;     /* size 0: an unused slot */
	__u32 ptr_off;      /* the user pointer (8 bytes) */
	__u32 len_off;      /* its length (4 bytes), CT_NO_FIELD: none */
	__u32 class_off;    /* hClass: a length of 0 or none is the class's
			     * alloc params size (map class_sizes); CT_NO_FIELD: none */
};

/* An RM control whose params have an fd (4 bytes) at off. */
struct ct_fd_at {
	__u32 cmd, off;     /* off CT_NO_FIELD: an unused slot */
};

struct ct_bpf_layout {
	struct ct_nested_at nested[CT_NESTED_MAX];
	/* NV_ESC_RM_CONTROL's struct (NVOS54): its number, size and where the
	 * command is; the params follow the struct in the record. */
	__u32 ctrl_nr, ctrl_size, ctrl_cmd_off;
	struct ct_fd_at fd_ctrl[CT_FD_CTRL_MAX];
};

#endif /* CT_NVLAYOUT_H */
