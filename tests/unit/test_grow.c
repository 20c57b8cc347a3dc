// SPDX-License-Identifier: MIT
/* lib/grow.c: doubling from the first size, contents kept, and a size that
 * would overflow refused with the array left as it was. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "grow.h"

int main(void)
{
	size_t cap = 0, i, steps = 0, last = 0;
	int *a = NULL, *b;
	bool kept = true;

	a = ct_grow(a, &cap, 1, sizeof(*a), 16);
	ok(a && cap == 16, "an empty array starts at the first size (cap %zu)", cap);
	b = ct_grow(a, &cap, 16, sizeof(*a), 16);
	ok(b == a && cap == 16, "room enough: the same array back");
	for (i = 0; i < 1000; i++) {
		if (!(b = ct_grow(a, &cap, i + 1, sizeof(*a), 16)))
			break;
		a = b;
		a[i] = (int)i;
		if (cap != last)
			steps++, last = cap;
	}
	for (i = 0; i < 1000; i++)
		kept &= a[i] == (int)i;
	ok(kept && cap == 1024 && steps == 7, "1000 appends: 16 doubled to 1024 in 7 sizes, "
	   "contents kept (cap %zu, %zu sizes)", cap, steps);
	b = ct_grow(a, &cap, 5000, sizeof(*a), 16);
	ok(b && cap == 8192, "a jump doubles past it (cap %zu)", cap);
	a = b;
	errno = 0;
	b = ct_grow(a, &cap, SIZE_MAX / sizeof(*a) + 1, sizeof(*a), 16);
	ok(!b && cap == 8192 && errno == ENOMEM && a[999] == 999,
	   "a size that overflows: NULL, ENOMEM, array and cap unchanged");
	free(a);
	cap = 0;
	a = ct_grow(NULL, &cap, 3, sizeof(*a), 0);
	ok(a && cap >= 3, "a first size of 0 still grows (cap %zu)", cap);
	free(a);
	return tap_done();
}
