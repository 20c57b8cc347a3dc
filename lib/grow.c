// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

void *ct_grow(void *arr, size_t *cap, size_t need, size_t elem_size, size_t first)
{
	size_t max = SIZE_MAX / (elem_size ? elem_size : 1);
	size_t n = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return arr;
	if (need > max) {
		errno = ENOMEM;
		return NULL;
	}
	if (!n)
		n = 1;
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	if (n > max)
		n = max;
	p = realloc(arr, n * elem_size);
	if (p)
		*cap = n;
	return p;
}
