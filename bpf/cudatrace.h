/* SPDX-License-Identifier: MIT */
/*
 * Records shared by the BPF programs, the capture loop, the trace file and
 * the decoders.  A record leaves the kernel through the ring buffer and is
 * written to a trace file byte for byte, so this header is the wire format:
 * fixed-width types only, never reorder or resize a released record (add a
 * new type instead).  docs/FORMAT.md describes the same layout.
 */
#ifndef CUDATRACE_H
#define CUDATRACE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CT_COMM_LEN      16
#define CT_ARG_MAX       16384          /* _IOC_SIZE is 14 bits: 16383 */
#define CT_NEST_MAX      (256 * 1024)   /* hard ceiling for -s */
#define CT_NEST_DEFAULT  8192           /* default for -s */
#define CT_PID_LIMIT     (4 * 1024 * 1024) /* Linux's PID_MAX_LIMIT on 64-bit */
#define CT_PROC_ARGV_MAX 4096
#define CT_PROC_ENV_MAX  16384

enum ct_rec_type {
	CT_REC_META        = 1,  /* file only: key=value text lines */
	CT_REC_IOCTL_ENTER = 2,  /* struct ct_ioctl + arg bytes + nested bytes */
	CT_REC_IOCTL_EXIT  = 3,  /* struct ct_ioctl, buffers as they were at exit */
	CT_REC_MMAP        = 4,  /* struct ct_mmap */
	CT_REC_MUNMAP      = 5,  /* struct ct_munmap */
	CT_REC_PROC        = 6,  /* struct ct_proc + argv + env */
	CT_REC_FORK        = 7,  /* struct ct_fork */
	CT_REC_PROC_EXIT   = 8,  /* struct ct_rec only */
	CT_REC_FDPATH      = 9,  /* struct ct_fdpath + path bytes */
	CT_REC_TRAILER     = 10, /* file only: struct ct_trailer + per-cpu lost */
	CT_REC_FILEREF     = 11, /* struct ct_fileref */
	CT_REC_STACK       = 12, /* -k, ring buffer only: struct ct_stack + stack bytes */
	CT_REC_CODE_MAP    = 13, /* -k, ring buffer only: struct ct_code_map */
	CT_REC_MAPPING     = 14, /* -k: struct ct_mapping + path bytes */
	CT_REC_FRAMES      = 15, /* -k: struct ct_frames + frames + strings */
	CT_REC_PYSTACK     = 16, /* --py-stack, ring buffer only: struct ct_pystack + raw frames */
	CT_REC_PYFRAMES    = 17, /* --py-stack: struct ct_pyframes + frames + strings */
	CT_REC_STACK_END   = 18, /* -k: struct ct_stack_end, after its CT_REC_FRAMES */
	CT_REC_GPU_SEG     = 19, /* --gpu-work: struct ct_gpu_seg + dwords */
	CT_REC_GPU_PUT     = 20, /* --gpu-work: struct ct_gpu_put */
	CT_REC_KERNEL_NAME = 21, /* --gpu-work: struct ct_kernel_name + name + module */
	CT_REC_GPU_EXIT    = 22, /* --gpu-work, ring buffer only: struct ct_gpu_exit + dwords */
	/* 23: free */
	CT_REC_KSTACK      = 24, /* -k, ring buffer only: struct ct_kstack + frame addresses */
	CT_REC_KSTACK_GAP  = 25, /* -k, ring buffer only: struct ct_kstack_gap + stack bytes */
	CT_REC_TYPE_MAX
};
/* Types from CT_REC_TYPE_MAX below this are for later versions: a reader
 * skips them (and says so) rather than refusing the file. */
#define CT_REC_TYPE_FUTURE_MAX 256

/* _IOC fields of an ioctl request (asm-generic/ioctl.h); NVIDIA's escapes
 * are type 'F'.  UVM requests are plain numbers, not _IOC-encoded. */
#define IOC_NR(c)   ((c) & 0xff)
#define IOC_TYPE(c) (((c) >> 8) & 0xff)
#define IOC_SIZE(c) (((c) >> 16) & 0x3fff)
#define IOC_DIR(c)  ((c) >> 30)
#define NV_IOCTL_MAGIC 'F'

/* Every record starts with this.  size counts the header and all payload. */
struct ct_rec {
	__u32 type;
	__u32 size;
	__u64 ts_ns;     /* CLOCK_MONOTONIC, bpf_ktime_get_ns() */
	__u32 pid;       /* thread group id */
	__u32 tid;
};

/* ct_ioctl.flags */
#define CT_F_ARG_TRUNC   (1u << 0)  /* arg_size < arg_want */
#define CT_F_NEST_TRUNC  (1u << 1)  /* nest_size < nest_want */
#define CT_F_ARG_FAULT   (1u << 2)  /* reading the argument faulted */
#define CT_F_NEST_FAULT  (1u << 3)  /* reading the nested buffer faulted */
#define CT_F_REGFILE     (1u << 4)  /* dev is the file system's s_dev, not an rdev */
#define CT_F_NEST_NONE   (1u << 5)  /* request has no nested buffer */

/* How the argument size was found (ct_ioctl.size_src). */
enum ct_size_src {
	CT_SIZE_NONE = 0,   /* unknown request: nothing copied */
	CT_SIZE_IOC  = 1,   /* _IOC_SIZE of the request */
	CT_SIZE_UVM  = 2,   /* nvidia-uvm table */
};

/*
 * ioctl, recorded twice: at syscall entry (inputs) and at exit (outputs).
 * Followed by arg_size bytes of *arg, then nest_size bytes of the buffer
 * the argument points to (RM_CONTROL params, RM_ALLOC pAllocParms,
 * IOCTL_XFER_CMD payload).
 */
struct ct_ioctl {
	struct ct_rec h;
	__u64 ts_enter;   /* entry time; on exit records latency = h.ts_ns - ts_enter */
	char  comm[CT_COMM_LEN];
	__s32 fd;
	__u32 dev;        /* kernel dev_t: major << 20 | minor */
	__u64 ino;
	__u32 cmd;        /* ioctl request number */
	__u32 flags;      /* CT_F_* */
	__u64 arg;        /* user pointer */
	__s64 ret;        /* exit only */
	__u64 nest_ptr;   /* user pointer of the nested buffer */
	__u32 arg_size;   /* captured bytes of *arg following this struct */
	__u32 arg_want;   /* bytes the request implies */
	__u32 nest_size;  /* captured nested bytes following the arg bytes */
	__u32 nest_want;  /* bytes the argument says the nested buffer holds */
	__u32 size_src;   /* enum ct_size_src */
	__u32 _pad;
};

struct ct_mmap {
	struct ct_rec h;
	__u64 ts_enter;
	char  comm[CT_COMM_LEN];
	__s32 fd;
	__u32 dev;
	__u64 ino;
	__u64 addr;       /* address asked for */
	__u64 len;
	__u32 prot;
	__u32 mflags;
	__u64 off;
	__s64 ret;        /* address returned, or -errno */
	__u32 flags;      /* CT_F_REGFILE */
	__u32 _pad;
};

struct ct_munmap {
	struct ct_rec h;
	__u64 addr;
	__u64 len;
	__u64 map_len;    /* length of the NVIDIA mapping that starts at addr */
};

/* ct_proc.source */
enum ct_proc_source {
	CT_PROC_EXEC   = 1,   /* seen by the kernel at execve */
	CT_PROC_ATTACH = 2,   /* read from /proc when attaching with -p */
	CT_PROC_SEEN   = 3,   /* read from /proc at its first event (system-wide) */
};

/* Followed by argv_size bytes (NUL-separated) then env_size bytes. */
struct ct_proc {
	struct ct_rec h;
	__u32 ppid;
	__u32 source;     /* enum ct_proc_source */
	char  comm[CT_COMM_LEN];
	__u32 argv_size;
	__u32 env_size;   /* in trace files: only CUDA_*, NVIDIA_*, NCCL_* ... */
	__u32 argv_trunc; /* 1 if argv was cut at CT_PROC_ARGV_MAX */
	__u32 env_trunc;
};

struct ct_fork {
	struct ct_rec h;  /* pid/tid: the parent */
	__u32 child_pid;
	__u32 _pad;
};

/* A device path learned during capture: maps (dev, ino) to a name. */
struct ct_fdpath {
	struct ct_rec h;
	__u32 dev;
	__u32 flags;      /* CT_F_REGFILE */
	__u64 ino;
	__u32 path_size;  /* bytes of path following, no NUL */
	__u32 _pad;
};

/*
 * An fd named inside an ioctl's parameters (the export fd of
 * NV0000_CTRL_CMD_OS_UNIX_EXPORT/IMPORT_OBJECT(S)_TO/FROM_FD) and the open
 * file behind it.  Sent right after the ioctl's entry record.  The same
 * open file passed to another process (SCM_RIGHTS) has the same file_id
 * there, under another fd number: that is how objects are followed across
 * processes.  file_id is opaque: equal for one open file within a capture,
 * not a kernel address.
 */
struct ct_fileref {
	struct ct_rec h;
	__s32 fd;         /* the fd named in the parameters */
	__u32 ctrl_cmd;   /* the RM control command that named it */
	__u64 file_id;    /* 0: fd was not open */
};

/*
 * -k: call stacks.  The kernel sends the user registers and the top of the
 * user stack at the entry of each traced call (CT_REC_STACK, right after
 * the entry record; h.ts_ns is the call's entry time).  The capture
 * unwinds it at once and writes what it found (CT_REC_FRAMES); the stack
 * bytes themselves never reach a trace file.
 */
#define CT_STACK_DEFAULT (32 * 1024)    /* -k: deepest real stack seen was 27,856 */
#define CT_STACK_MAX     (64 * 1024)    /* -k=BYTES ceiling */
/* A main thread's stack, whose depth the kernel knows (mm->start_stack),
 * is copied whole up to this deep, whatever -k's BYTES: JAX's start-up
 * calls on an H200 needed 33 to 80 KiB, through files whose unwind tables
 * were not built yet.  Another thread's used depth is not known: BYTES. */
#define CT_STACK_MAIN    (256 * 1024)
#define CT_STACK_RECORD_MAX CT_STACK_MAIN   /* the most a STACK record holds */
#define CT_STACK_SLACK   4096           /* room the kernel keeps past the stack in its record */

/* ct_stack.regs: x86-64 user registers in DWARF register order. */
enum ct_stack_reg {
	CT_REG_RAX, CT_REG_RDX, CT_REG_RCX, CT_REG_RBX, CT_REG_RSI, CT_REG_RDI,
	CT_REG_RBP, CT_REG_RSP, CT_REG_R8, CT_REG_R9, CT_REG_R10, CT_REG_R11,
	CT_REG_R12, CT_REG_R13, CT_REG_R14, CT_REG_R15, CT_REG_RIP,
	CT_STACK_NREGS
};

/* ct_stack.flags */
#define CT_STACK_TRUNC  (1u << 0)   /* the stack's mapping goes on past size bytes */
#define CT_STACK_FAULT  (1u << 1)   /* reading the stack faulted: size is 0 */
#define CT_STACK_NO_VMA (1u << 2)   /* the stack's mapping could not be looked up */
#define CT_STACK_HOLES  (1u << 3)   /* some pages were never touched: read as zeros */

/* Followed by size bytes of user memory from regs[CT_REG_RSP] up, in a
 * record that may be longer (h.size: the room the kernel reserved). */
struct ct_stack {
	struct ct_rec h;
	__u64 regs[CT_STACK_NREGS];
	__u32 size;
	__u32 flags;      /* CT_STACK_* */
	__u64 want_pc;    /* the pc whose table the kernel's walk lacked (maybe past the
			   * bytes copied): the capture builds it; 0 none */
};

/*
 * -k, walked in the kernel (bpf/kwalk.bpf.h) from the unwind tables the
 * capture loaded (bpf/unwind_tables.h): the call's frame addresses,
 * innermost first (pcs[0] the user pc at the call, the rest return
 * addresses), and why the walk ended.  The capture names them and writes
 * CT_REC_FRAMES and CT_REC_STACK_END, as it does for a CT_REC_STACK.
 * Same h.ts_ns as the call's entry.
 */
#define CT_KSTACK_FRAMES 256
/* The walk reads no word further than this above sp: a thread's usual
 * stack (8 MiB, ulimit -s).  -k's BYTES bounds only what is copied. */
#define CT_KSTACK_BYTES  (8u << 20)
struct ct_kstack {
	struct ct_rec h;
	__u32 nframes;
	__u32 end;         /* enum ct_stack_end_kind */
	__u32 need_bytes;  /* CT_STACK_END_MAX_BYTES: bytes from sp the walk would read */
	__u32 fp_frames;   /* frames walked by frame pointer (code without a table) */
	__u32 span_bytes;  /* from sp to the last frame's CFA: the stack the walk crossed */
	__u32 gap_at;      /* 0, or pcs[gap_at - 1] is a frame the kernel could not step
			    * (its table not built yet) and pcs[gap_at] the thread's last
			    * walk's frame it met again above it: the frames between are
			    * the capture's to walk, from the CT_REC_KSTACK_GAP before */
	/* __u64 pcs[nframes] */
};

/*
 * -k: the stack between a frame the kernel's walk could not step (a table
 * the capture has not built yet) and the frame of the thread's last walk
 * it met again above it (bpf/kwalk.bpf.h, kw_gap): sent just before its
 * CT_REC_KSTACK (same ts_ns and tid), for the capture to walk with the
 * file's CFI and join the two.  A few KiB, where a copy is the whole stack.
 */
#define CT_KSTACK_GAP_MAX 16384   /* the most a gap sends (a per-CPU buffer of it) */
struct ct_kstack_gap {
	struct ct_rec h;
	__u32 at;          /* the CT_REC_KSTACK's gap_at */
	__u32 bp_known;    /* bp holds rbp at the frame */
	__u64 pc;          /* the frame the walk could not step: pcs[at - 1] */
	__u64 sp, bp;      /* its sp and rbp */
	__u64 end_sp;      /* the met frame's sp: the bytes are [sp, end_sp) */
	__u64 end_pc;      /* ... and its pc: pcs[at] */
	/* __u8 bytes[end_sp - sp] */
};

/*
 * A traced process mapped a file executable (ld.so loading a library,
 * dlopen; or, at exec, the program's own text).  Followed by path_size
 * bytes: the file's path as the kernel names it from the root of all
 * mounts, its components leaf first, each ended by a NUL
 * ("libc.so.6\0x86_64-linux-gnu\0lib\0usr\0"), so that the capture can
 * open it even when the process has already gone.
 */
#define CT_CODE_PATH_MAX  1024
#define CT_CODE_PATH_CUT  (1u << 0)  /* the path is incomplete: do not use it */
struct ct_code_map {
	struct ct_rec h;
	__u64 addr;
	__u64 len;
	__u64 pgoff;      /* file offset, bytes */
	__u64 ino;
	__u32 dev;        /* s_dev of the file's file system */
	__u32 prot;
	__u32 path_size;
	__u32 path_flags; /* CT_CODE_PATH_* */
};

/*
 * An executable file mapping of a traced process, as /proc/PID/maps showed
 * it when the process was first seen or mapped new code.  Followed by
 * path_size bytes of path (no NUL).  bias: what is added to the file's ELF
 * addresses (p_vaddr) to give run-time addresses.
 */
#define CT_BUILD_ID_MAX 32
struct ct_mapping {
	struct ct_rec h;
	__u64 start;
	__u64 end;
	__u64 pgoff;
	__u64 bias;
	__u32 path_size;
	__u32 build_id_size;              /* 0: the file has none (or was unreadable) */
	__u8  build_id[CT_BUILD_ID_MAX];
};

/*
 * A call stack, unwound and named on the capture machine.  h.ts_ns is the
 * entry time of the call it belongs to (same pid/tid).  Followed by
 * nframes struct ct_frame (innermost first), then strings_size bytes of
 * NUL-terminated strings that the frames point into by offset.
 */
#define CT_FRAMES_MAX   256
#define CT_STRINGS_MAX  (64 * 1024)
#define CT_NOSTR        0xffffffffu

/* ct_frames.status: why the unwinding stopped. */
enum ct_unwind_status {
	CT_UNWIND_END      = 0,   /* outermost frame reached (no return address) */
	CT_UNWIND_NO_STACK = 1,   /* ran out of captured stack bytes */
	CT_UNWIND_NO_CFI   = 2,   /* a pc with no module or no unwind info */
	CT_UNWIND_MAX_FRAMES = 3, /* stopped at CT_FRAMES_MAX (or the step bound) */
	CT_UNWIND_NO_MAPS  = 4,   /* the process's mappings could not be read */
	CT_UNWIND_ERROR    = 5,   /* anything else libdw reported */
};

struct ct_frames {
	struct ct_rec h;
	__u32 nframes;
	__u32 status;         /* enum ct_unwind_status */
	__u32 stack_size;     /* stack bytes the kernel captured */
	__u32 strings_size;
};

struct ct_frame {
	__u64 pc;
	__u64 offset;         /* pc - bias: the address in the module's ELF file */
	__u64 sym_off;        /* pc - value of sym */
	__u64 exp_off;        /* pc - value of exp */
	__u32 module;         /* string: the file's path; CT_NOSTR when unknown */
	__u32 sym;            /* string: best symbol (.symtab, else .dynsym), demangled */
	__u32 exp;            /* string: exported .dynsym function that holds pc */
	__u32 src;            /* string: "file:line" from DWARF line tables */
};

/*
 * --py-stack (and -k where the process runs CPython): the Python frames of
 * the calling thread at the entry of each traced call, innermost first.
 * The kernel walks the thread's own PyThreadState (found by its thread id
 * in the interpreter's thread list, whether or not it holds the GIL) and
 * sends, per frame, the code object's address, the instruction pointer
 * (3.11+; 3.10: f_lasti) and a check of the code object, so that a code
 * object freed and its address reused is caught (CT_REC_PYSTACK).  The
 * capture names each code object once and writes CT_REC_PYFRAMES; the raw
 * record never reaches a trace file.
 */
#define CT_PY_FRAMES_MAX 256

/* ct_pystack.flags and ct_pyframes.flags */
#define CT_PY_NO_TSTATE  (1u << 0)  /* the thread has no Python thread state */
#define CT_PY_TRUNC      (1u << 1)  /* more frames than CT_PY_FRAMES_MAX */
#define CT_PY_FAULT      (1u << 2)  /* a frame could not be read: the chain ends there */
#define CT_PY_NEW_TSTATE (1u << 3)  /* the thread state was found by a walk of the thread list */
#define CT_PY_OUTER_LOST (1u << 4)  /* ct_pyframes: the outer frames the kernel did not send were in
				     * a record the capture did not keep: only the inner ones */

/* ct_pyframe_raw.marks and ct_pyframe.marks */
#define CT_PYF_ENTRY     (1u << 0)  /* the first frame a C-level call into the interpreter ran */
#define CT_PYF_UNNAMED   (1u << 1)  /* pyframes: the code object could not be read (or changed) */

/*
 * A CT_REC_PYSTACK record: the header, then nframes - outer_kept struct
 * ct_pyframe_raw, the stack's innermost first.  Its outermost outer_kept
 * frames are not sent: they are the outermost outer_kept frames of this
 * thread's record seq - 1, which the capture keeps (a loop's calls repeat
 * most of a deep stack; the kernel sends a thread's stack whole every
 * CT_PY_WHOLE_EVERY records, so one the capture lost costs a bounded run).
 */
struct ct_pystack {
	struct ct_rec h;      /* ts_ns: the call's entry time */
	__u64 tstate;         /* PyThreadState * */
	__u32 nframes;        /* the stack's frames, those not sent included */
	__u32 flags;          /* CT_PY_* */
	__u32 seq;            /* the thread's records sent, this one included; 0: none counted */
	__u32 outer_kept;     /* outermost frames not sent (above); 0 where seq is 0 */
};

#define CT_PY_WHOLE_EVERY 64   /* a power of two */

struct ct_pyframe_raw {
	__u64 code;           /* PyCodeObject * */
	__u64 instr;          /* 3.11+: the instruction pointer; 3.10: f_lasti */
	__u64 check;          /* ct_py_check() of the code object's fields */
	__u32 marks;          /* CT_PYF_* */
	__u32 _pad;
};

/* A CT_REC_PYSTACK record's largest size. */
#define CT_PYSTACK_RECORD_MAX (sizeof(struct ct_pystack) + \
			       CT_PY_FRAMES_MAX * sizeof(struct ct_pyframe_raw))

/*
 * Named Python frames, innermost first.  h.ts_ns: the call's entry time
 * (same pid/tid).  Followed by nframes struct ct_pyframe, then
 * strings_size bytes of NUL-terminated strings (as in ct_frames).
 */
struct ct_pyframes {
	struct ct_rec h;
	__u32 nframes;
	__u32 flags;          /* CT_PY_* */
	__u32 strings_size;
	__u32 py_minor;       /* 3.minor of the interpreter */
};

struct ct_pyframe {
	__u64 code;           /* PyCodeObject *, as the process had it */
	__u32 file;           /* string: co_filename; CT_NOSTR when unnamed */
	__u32 qualname;       /* string: co_qualname (3.10: co_name) */
	__s32 line;           /* -1: none */
	__u32 marks;          /* CT_PYF_* */
};

/*
 * Why the unwinding of a call's stack stopped, as the capture saw it (the
 * copy's flags, the reads the unwinder made): more than ct_frames.status
 * can say.  Written right after the call's CT_REC_FRAMES, same pid, tid
 * and h.ts_ns.  Traces made before it have ct_frames.status only.
 */
enum ct_stack_end_kind {
	CT_STACK_END_COMPLETE   = 0, /* the outermost frame: no return address */
	CT_STACK_END_COPY_SHORT = 1, /* the unwinder needed bytes past the copy, and the
				      * stack's mapping goes on: a larger -k reaches further */
	CT_STACK_END_NO_CFI     = 2, /* a pc in no module, or no unwind info for it */
	CT_STACK_END_BAD_READ   = 3, /* a read below sp, past the stack's mapping, or the
				      * copy itself faulted */
	CT_STACK_END_MAX_FRAMES = 4, /* the frame bound */
	CT_STACK_END_NO_MAPS    = 5, /* the process's mappings could not be read */
	CT_STACK_END_ERROR      = 6, /* anything else the unwinder reported */
	CT_STACK_END_COMPLETE_FP = 7, /* the outermost frame, reached through code that no
				       * unwind table covers, walked by its frame pointer */
	CT_STACK_END_NO_FP      = 8, /* a pc that no unwind table covers, and rbp is not a
				      * frame pointer that can be followed */
	CT_STACK_END_MAX_BYTES  = 9, /* the kernel's walk: the stack goes on past
				      * CT_KSTACK_BYTES above sp, its bound */
	CT_STACK_END_KINDS
};

struct ct_stack_end {
	struct ct_rec h;
	__u32 kind;           /* enum ct_stack_end_kind */
	__u32 need_bytes;     /* COPY_SHORT: bytes from sp the unwinder asked for */
};

/*
 * --gpu-work: one GPFIFO entry of a channel and the pushbuffer segment it
 * points to, read by the capture from the process's memory (never by the
 * kernel side; docs/GPUWORK.md).  Followed by ndwords u32 of the segment.
 * h.pid: the process; h.tid: 0; h.ts_ns: when it was read.
 */
#define CT_GPU_SEG_DEFAULT  4096            /* --gpu-work: dwords kept per segment at exit */
/* ... by the poller: libcuda uploads its own kernels inline at context
 * creation in segments of up to 54,784 bytes (H200, 580.159.04); cut at
 * 4096 dwords, the kernels past the cut went unnamed */
#define CT_GPU_SEG_POLL     16384
#define CT_GPU_SEG_MAX      (64 * 1024)     /* ceiling of any capture */
/* The exit look's records (struct ct_gpu_exit + at most CT_GPU_SEG_DEFAULT
 * dwords) are emitted with their size masked by this, for the verifier: a
 * power of two less one, above the largest (a mask that is not one cuts
 * sizes with bits it lacks: records of a long segment came out malformed). */
#define CT_GX_EMIT_MASK  (CT_GPU_SEG_DEFAULT * 4 * 2 - 1)

/* ct_gpu_seg.flags */
#define CT_GS_TRUNC  (1u << 0)  /* ndwords < want_dwords: cut at the bound */
#define CT_GS_FAULT  (1u << 1)  /* the segment could not be read: ndwords 0 */
#define CT_GS_LOST   (1u << 2)  /* `lost` entries from ring_index could not be read:
				 * the entry was unreadable, or its segment was being
				 * overwritten by newer work while it was read */
#define CT_GS_WRAP   (1u << 3)  /* with CT_GS_LOST: the ring went round between two
				 * polls; at least `lost` entries before ring_index
				 * were overwritten unread (GPPut is an index into the
				 * ring: whole rings more cannot be ruled out; captures
				 * before this was counted hold 0, still true) */
#define CT_GS_LATE   (1u << 4)  /* with CT_GS_LOST, `lost` 0: the reader learned the
				 * channel only as or after its process exited, too
				 * late for the kernel's last look: what it put after
				 * its last poll (or ever) is not counted */

struct ct_gpu_seg {
	struct ct_rec h;
	__u32 client;        /* hClient of the channel */
	__u32 channel;       /* the channel object's handle */
	__u32 chan_class;    /* its class (HOPPER_CHANNEL_GPFIFO_A ...) */
	__s32 gpu;           /* device instance, -1 unknown */
	__u32 ring_index;    /* GPFIFO entry index */
	__u32 ring_entries;  /* gpFifoEntries */
	__u32 gp_get;        /* USERD GPGet and GPPut as read in this poll */
	__u32 gp_put;
	__u64 entry;         /* the raw GPFIFO entry: dword 0 in the low half */
	__u64 va;            /* segment address the entry gives */
	__u32 want_dwords;   /* segment length the entry gives */
	__u32 ndwords;       /* dwords that follow */
	__u32 flags;         /* CT_GS_* */
	__u32 lost;          /* CT_GS_LOST: entries this record stands for */
};

/*
 * --gpu-work: a channel's GPPut moved.  The entries from ring index `from`
 * up to `put` (or, after a wrap, the whole ring) became visible between
 * since_ns, the last read of GPPut that still gave the old value (or the
 * channel's allocation), and h.ts_ns, the read that gave the new one.
 * Sent before the GPU_SEG records of those entries, after every record the
 * kernel had handed over by then: a driver call that ended before h.ts_ns
 * comes before it in the stream.  h.tid is 0.
 */
struct ct_gpu_put {
	struct ct_rec h;
	__u32 client;
	__u32 channel;
	__u32 from;
	__u32 put;
	__u64 since_ns;
};

/*
 * --gpu-work: the last look before exit (docs/GPUWORK.md).  The reader
 * publishes each channel it follows in the map gw_exit (key struct
 * ct_gx_key, value struct ct_gx_chan), with the ring index it reads next;
 * when the process exits, bpf/gpuwork_exit.bpf.h reads GPPut of each and
 * copies the entries from that index up to it, and their segments, while
 * the process's memory is still there (sched_process_exit runs before
 * exit_mm: measured on 6.18).  It never reaches a file: the reader turns
 * it into the GPU_PUT and GPU_SEG records a poll would have made.
 */
#define CT_GX_SLOTS        256    /* channels per process the kernel looks at */
#define CT_GX_ENTRIES_MAX  1024   /* entries per channel it copies at exit */

struct ct_gx_key {
	__u32 pid;
	__u32 slot;
};

struct ct_gx_chan {
	__u64 ring_va;       /* gpFifoOffset */
	__u64 gpput_addr;    /* the USERD's GPPut, a CPU address in the process */
	__u64 pb_base;       /* address bits above an entry's (extended base) */
	__u32 entries;       /* gpFifoEntries */
	__u32 next;          /* the ring index the reader reads next */
	__u32 max_dwords;    /* dwords copied per segment (<= CT_GPU_SEG_DEFAULT) */
	/* the entry's fields, bit positions from the tables (clc86f.h):
	 * GP_ENTRY0_GET, GP_ENTRY1_GET_HI, GP_ENTRY1_LENGTH */
	__u8 get_lo, get_bits, get_hi_lo, get_hi_bits, len_lo, len_bits;
	__u8 pad[2];
};

#define CT_GX_HEAD      (1u << 0)  /* a channel's first record: from, put; no entry */
#define CT_GX_NO_PUT    (1u << 1)  /* with HEAD: GPPut could not be read */
#define CT_GX_NO_ENTRY  (1u << 2)  /* the ring entry could not be read */
#define CT_GX_NO_SEG    (1u << 3)  /* the segment could not be read: ndwords 0 */
#define CT_GX_TRUNC     (1u << 4)  /* ndwords < want_dwords */
#define CT_GX_CONTROL   (1u << 5)  /* a control entry (length 0): nothing to copy */
#define CT_GX_LOOK      (1u << 6)  /* the look begins (ts_ns): no channel; every exit
				    * of a traced process sends one first, so the reader
				    * can tell the rings it published too late */

struct ct_gpu_exit {
	struct ct_rec h;     /* pid; tid: the exiting thread; ts_ns: its exit */
	__u32 slot;          /* the channel's slot in gw_exit */
	__u32 from;          /* the reader's next index the kernel started at */
	__u32 put;           /* GPPut at exit */
	__u32 index;         /* this entry's ring index */
	__u32 flags;         /* CT_GX_* */
	__u32 want_dwords;   /* the segment's length the entry gives */
	__u32 ndwords;       /* dwords that follow */
	__u32 pad;
	__u64 entry;         /* the raw entry */
	__u64 va;            /* the segment's address, from the published base */
};

/*
 * --gpu-work: what the function at a GPU address of a process is, found by
 * the capture from the code uploaded there (docs/KERNELS.md).  Sent before
 * the segment whose launch asked for it; a later one for the same pid and
 * program replaces it (code reloaded at the same address).  Followed by
 * name_size bytes of the mangled name (NUL-terminated; "jit:<hash>" for
 * code no file holds) and module_size bytes of the file it came from
 * (NUL-terminated, may be empty).  h.tid: 0.
 */
#define CT_KNAME_MAX   16384   /* C++ template names run long */
#define CT_KMODULE_MAX 4096

enum ct_kname_how {
	CT_KN_INLINE    = 1,  /* its code, uploaded inline at the address, is the function's */
	CT_KN_MODULE    = 2,  /* ... the address is inside a larger inline upload (a module) */
	CT_KN_COPY_READ = 3,  /* a copy engine upload: its source, read from the process, is */
	CT_KN_COPY_SIZE = 4,  /* a copy engine upload whose source was gone: by its size */
	CT_KN_JIT       = 5,  /* uploaded inline, in no file indexed: named by its hash */
	CT_KN_HOWS
};

#define CT_KN_AMBIGUOUS (1u << 0)   /* functions of other names matched too: candidates */
#define CT_KN_NAMES     (1u << 1)   /* with it: the name field holds each name that matched
				     * (at most 8), each NUL-terminated; a reader that knows
				     * not this flag sees the first */

struct ct_kernel_name {
	struct ct_rec h;
	__u64 program;       /* the GPU address launches give (QMD program address) */
	__u64 code_hash;     /* hash of its code (docs/KERNELS.md) */
	__u32 code_size;     /* bytes of code the name stands for, 0 unknown */
	__u32 how;           /* enum ct_kname_how */
	__u32 flags;         /* CT_KN_* flags */
	__u32 candidates;    /* CT_KN_AMBIGUOUS: names that matched */
	__u32 arch;          /* sm number of its cubin, 0 unknown */
	__u32 name_size;
	__u32 module_size;
	__u32 _pad;
};

/* Last record of a complete trace file.  Followed by ncpu __u64 counts. */
struct ct_trailer {
	struct ct_rec h;
	__u64 events;     /* records written */
	__u64 lost;       /* records the kernel could not reserve */
	__u64 lost_inflight; /* exits lost because the in-flight table was full */
	__u32 ncpu;
	__u32 _pad;
};

/* Per-CPU counters kept by the BPF side (index into the counters map). */
enum ct_counter {
	CT_CNT_LOST = 0,      /* ring buffer full: record dropped */
	CT_CNT_INFLIGHT_FULL, /* no room to remember an entry */
	CT_CNT_PY_CODE_READ,  /* Python frames whose code object was read for its check */
	CT_CNT_PY_CODE_KNOWN, /* ... whose check was known: read before, no code object made since */
	CT_CNT_PY_FRAME_ALONE, /* Python frames read on their own, outside the data stack's copy */
	CT_CNT_PY_CFRAME_WALKED, /* 3.11/3.12 C frames taken from -k's read of the native stack */
	CT_CNT_PY_FRAME_WALKED, /* Python frames outside the data stack's copy taken from -k's read */
	/* -k walked in the kernel (bpf/kwalk.bpf.h): stacks sent as frame
	 * addresses, and those copied instead, by why */
	CT_CNT_KWALK_DONE,
	CT_CNT_KWALK_COPY_NO_PROC,    /* the process has no table yet */
	CT_CNT_KWALK_COPY_PENDING,    /* a frame in a file whose table is not loaded yet */
	CT_CNT_KWALK_COPY_NO_TABLE,   /* ... in a file without one (none can be made) */
	CT_CNT_KWALK_COPY_NEW_MAP,    /* ... in a file mapping the table does not have yet */
	CT_CNT_KWALK_COPY_OTHER,      /* a rule of another shape (CFA expression, signal frame) */
	CT_CNT_KWALK_COPY_LAZY,       /* ... in a lazy file's FDE not built yet */
	CT_CNT_KWALK_CHECKED,         /* CT_UNWIND_CHECK: walked and copied both */
	CT_CNT_KWALK_FRAMES,          /* frames of the stacks walked (CT_CNT_KWALK_DONE) */
	CT_CNT_KWALK_READS,           /* their reads of user memory (the walk's main cost) */
	CT_CNT_KWALK_MISSES,          /* their rules not in the per-CPU cache (two searches each) */
	CT_CNT_KWALK_REUSED,          /* their frames checked against the thread's last walk, not stepped */
	CT_CNT_PY_CODE_MEMO,          /* ... of the known, from the thread's last walk on its CPU */
	CT_CNT_TIMED_KWALK_NS,        /* a build with -DCT_TIMED: ns in the native walks' loop */
	CT_CNT_TIMED_KSTACK_NS,       /* ... in walk_kstack and send_kstack, whole */
	CT_CNT_TIMED_PYSTACK_NS,      /* ... in send_pystack, whole */
	CT_CNT_TIMED_PYSTACKS,        /* ... its calls */
	CT_CNT_KWALK_COPY_WOKE,       /* copies that woke the capture at once: a table to ask for */
	CT_CNT_KWALK_GAPS,            /* walks past a frame without a table, through the last walk's */
	CT_CNT_KWALK_GAP_BYTES,       /* ... the stack bytes they sent for the capture to walk */
	CT_CNT_KWALK_GAP_NO_MEMO,     /* walks stopped for a table with no last walk of the thread kept */
	CT_CNT_KWALK_GAP_NOT_MET,     /* ... with one, none of whose frames above was met within 16 KiB */
	CT_CNT_KWALK_GAP_DIFFERED,    /* ... met, but a word past the gap differed: copied */
	CT_CNT_MAX
};

#endif /* CUDATRACE_H */
