/* SPDX-License-Identifier: MIT */
/*
 * Handle -> object tracking, as the RM sees it: RM_ALLOC (and the older
 * ALLOC_MEMORY/ALLOC_OBJECT) create (client, handle) objects of a class
 * under a parent, DUP_OBJECT copies one, EXPORT/IMPORT_OBJECT(S) carry one
 * through an export fd (across processes too), RM_FREE destroys one and
 * all it owns.  Client handles are unique machine-wide, so one table
 * serves every process of a system-wide capture.  Lets every handle printed say what it is, and an mmap say which
 * memory object RM_MAP_MEMORY prepared it for.
 */
#ifndef CT_OBJECTS_H
#define CT_OBJECTS_H

#include <stddef.h>
#include <stdint.h>
#include "cudatrace.h"

struct ct_objects;

struct ct_objects *ct_objects_new(void);
void ct_objects_free(struct ct_objects *o);

/* The driver that made the trace (ct_driver_version() of META driver=; 0
 * unknown, the newest layouts): the structs are read through its layouts. */
void ct_objects_set_driver(struct ct_objects *o, uint32_t drv);

/* From a completed call: creations (call before printing it) ... */
void ct_objects_learn_created(struct ct_objects *o, const struct ct_ioctl *ex);
/* ... and destructions (call after printing it). */
void ct_objects_learn_freed(struct ct_objects *o, const struct ct_ioctl *ex);

/* A CT_REC_FILEREF: which open file an fd named in params is. */
void ct_objects_learn_fileref(struct ct_objects *o, const struct ct_fileref *f);
/* A process exited or exec'd: its fd numbers mean nothing any more. */
void ct_objects_forget_pid(struct ct_objects *o, uint32_t pid);

/* "NV20_SUBDEVICE_0 #0 of NV01_DEVICE_0 #0", or NULL if h is not known;
 * objects made by IMPORT_OBJECT(S)_FROM_FD or duplicated from another
 * process add ", imported from pid P 0xH" / ", dup of pid P 0xH". */
const char *ct_objects_describe(struct ct_objects *o, uint32_t client, uint32_t h,
				char *buf, size_t len);

/* The GPU (device instance) an object belongs to: walks up to its
 * NV01_DEVICE_0.  -1 if unknown. */
int ct_objects_gpu(struct ct_objects *o, uint32_t client, uint32_t h);

/* The memory object RM_MAP_MEMORY prepared fd of pid for, or 0. */
int ct_objects_mmap_target(struct ct_objects *o, uint32_t pid, int fd,
			   uint32_t *client, uint32_t *hmemory);

#endif
