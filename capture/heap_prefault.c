// SPDX-License-Identifier: MIT
/*
 * libbpf reads and indexes the kernel's BTF (5.5 MB, 127k types on 6.18)
 * into fresh heap memory: about 3,000 page faults, one by one.  On a VM
 * that is most of the parse (43 ms of it on the CI machine, 16 ms with
 * the heap faulted in first by one madvise).  So the capture grows the
 * heap and faults it in, in bulk, before loading, and trims it after.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "heap_prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

#define MMAP_THRESHOLD_MAX (32 << 20)   /* glibc's ceiling on 64-bit */
#define GLIBC_DEFAULT      (128 << 10)  /* M_MMAP_THRESHOLD and M_TRIM_THRESHOLD */

void ct_heap_prefault(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end;
	char *p;

	if (bytes > MMAP_THRESHOLD_MAX / 2)
		bytes = MMAP_THRESHOLD_MAX / 2;
	/* Big blocks from the heap, kept there when freed: the freed block
	 * is what the parse then gets. */
	if (!mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX) ||
	    !mallopt(M_TRIM_THRESHOLD, MMAP_THRESHOLD_MAX * 2))
		return;
	p = malloc(bytes);
	if (!p)
		return;
	start = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)p + bytes) & ~(uintptr_t)(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);  /* best effort */
	free(p);
}

void ct_heap_release(void)
{
	mallopt(M_MMAP_THRESHOLD, GLIBC_DEFAULT);
	mallopt(M_TRIM_THRESHOLD, GLIBC_DEFAULT);
	malloc_trim(0);
}
