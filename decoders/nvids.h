/* SPDX-License-Identifier: MIT */
/* TODO(lead): replaced by the header generated from decoders/tables/ (issue 11). */
#ifndef CT_NVIDS_H
#define CT_NVIDS_H
#define NV_ESC_RM_CONTROL 0x2a
#define NV_ESC_RM_ALLOC   0x2b
#define NV_ESC_IOCTL_XFER_CMD 0xd3
#define NV_ESC_CARD_INFO  0xc8
#define NV_ESC_ATTACH_GPUS_TO_FD 0xd4
#endif
