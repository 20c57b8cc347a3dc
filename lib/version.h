/* SPDX-License-Identifier: MIT */
#ifndef CT_VERSION_H
#define CT_VERSION_H
#define CUDATRACE_VERSION "0.1.0"
#endif
