// SPDX-License-Identifier: MIT
// cudaMemGetInfo for SECONDS (argv[1], default 30) in blocks of BLOCK calls
// (argv[2], default 2000), one line per block (bench/blocks.h).
// device-attach.sh attaches and detaches cudatrace while this runs, so
// traced and untraced blocks of one process compare (the driver's own
// per-process spread is then the same).
#include "cuda_check.h"
#include "../../bench/blocks.h"

static void memgetinfo_call(void)
{
	size_t free_b, total_b;

	CHECK(cudaMemGetInfo(&free_b, &total_b));
}

int main(int argc, char **argv)
{
	CHECK(cudaFree(0));   // the context, outside the timed blocks
	return run_blocks(argc, argv, "memgetinfo_blocks", 2000, memgetinfo_call);
}
