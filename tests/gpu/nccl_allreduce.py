# SPDX-License-Identifier: MIT
"""Two-process NCCL all-reduce, one process per GPU (run with torchrun
--nproc_per_node=2).  NVLink multicast stays off (see device-nccl.sh).
Prints: rank R value V (V must be 3.0 * 2**ITERS / 2 for ranks 1 and 2)."""
import os

import torch
import torch.distributed as dist

ITERS = int(os.environ.get("ALLREDUCE_ITERS", "5"))   # all-reduces per rank


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    x = torch.full((1 << 20,), float(rank + 1), device="cuda")
    for _ in range(ITERS):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    print("rank", rank, "value", x[0].item(), "expect", 3.0 * 2 ** (ITERS - 1), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
