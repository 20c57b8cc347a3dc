/* SPDX-License-Identifier: MIT */
/* A folder and those above it, made where missing (mkdir -p), owner only. */
#ifndef CT_MKDIR_P_H
#define CT_MKDIR_P_H

#include <stdbool.h>

/* false: one could not be made (errno says why). */
bool ct_mkdir_p(const char *path);

#endif
