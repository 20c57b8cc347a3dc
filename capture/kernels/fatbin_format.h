/* SPDX-License-Identifier: MIT */
/*
 * The fatbin container's layout, as facts (docs/KERNELS.md): the container
 * header that NVIDIA's fatbinary_section.h and fatbinary.h describe, and the
 * entry header that no NVIDIA header publishes, read alike by five public
 * readers (ZLUDA's dark_api/src/fatbin.rs, n-eiling's
 * cuda-fatbin-decompression, jiegec's fatbinary, redplait's denvdis fb.cc,
 * pyxis-roc's gpu-api-interposer) and checked against nvcc 13.0's output
 * (/tmp/research/fatbin.md of issue 30).  All little-endian.
 */
#ifndef CT_FATBIN_FORMAT_H
#define CT_FATBIN_FORMAT_H

#include <stdint.h>

#define FATBIN_CONTAINER_MAGIC  0xBA55ED50u   /* fatbinary.h FATBIN_MAGIC */
#define FATBIN_SECTION          ".nv_fatbin"  /* fatbinary_section.h FATBIN_DATA_SECTION_NAME */

struct fatbin_container {          /* fatBinaryHeader, 16 bytes, 8-aligned */
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;          /* the first entry is this far from the header */
	uint64_t fat_size;             /* bytes of entries after the header */
};

#define FATBIN_KIND_PTX  1
#define FATBIN_KIND_ELF  2         /* a cubin */

#define FATBIN_FLAG_LZ4   0x2000u  /* FATBIN_FLAG_COMPRESS2: a raw LZ4 block */
#define FATBIN_FLAG_ZSTD  0x8000u  /* FATBIN_FLAG_ZCOMPRESS: one zstd frame */

struct fatbin_entry {              /* 64 bytes; header_size may be more */
	uint16_t kind;
	uint16_t version;
	uint32_t header_size;          /* the payload starts this far from the entry */
	uint64_t padded_size;          /* payload bytes, padded to 8: the next entry follows */
	uint32_t compressed_size;      /* 0: not compressed */
	uint32_t options_offset;
	uint16_t minor, major;         /* code version */
	uint32_t arch;                 /* sm number: 90 for sm_90 */
	uint32_t name_offset, name_size;
	uint64_t flags;
	uint64_t reserved;
	uint64_t uncompressed_size;    /* exact, when compressed */
};

/* The cubin (an ELF of its own).  LLVM's BinaryFormat/ELF.h. */
#define CUBIN_EM_CUDA           190
#define CUBIN_ABI_V1            7      /* e_ident[EI_ABIVERSION]: sm in e_flags bits 0-7 */
#define CUBIN_ABI_V2            8      /* ... sm in e_flags bits 8-15 */
#define CUBIN_TEXT_PREFIX       ".text."
/* a function's constant bank 0: the driver's words, then its parameters;
 * sh_info is the function's .text section (tests/kernels/k.cubin) */
#define CUBIN_CBANK0_PREFIX     ".nv.constant0."
#define CUBIN_INSN_BYTES        16     /* sm_70 and later: one instruction */

/* .nv.info: attribute entries (format u8, attribute u8, u16 value or
 * size).  Public readers of cubins name them (QuarkContainer's CUDA proxy,
 * CuAssembler: EIFMT_*, EIATTR_*); tests/kernels/k.cubin (nvcc 13.0) has
 * one EIATTR_REGCOUNT a function in its .nv.info, {symbol index, count}. */
#define CUBIN_NV_INFO           ".nv.info"
#define CUBIN_EIFMT_NVAL        0x01
#define CUBIN_EIFMT_BVAL        0x02
#define CUBIN_EIFMT_HVAL        0x03
#define CUBIN_EIFMT_SVAL        0x04   /* u16 size, then that many bytes */
#define CUBIN_EIATTR_REGCOUNT   0x2f   /* SVAL: u32 function symbol, u32 registers a thread */

#endif
