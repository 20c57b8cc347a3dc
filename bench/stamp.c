// SPDX-License-Identifier: MIT
/* Prints CLOCK_MONOTONIC in ns: make bench runs it under cudatrace to time
 * start-up (until the command runs) and exit (after it has ended). */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("stamp %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
