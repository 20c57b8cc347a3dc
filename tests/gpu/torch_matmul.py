# SPDX-License-Identifier: MIT
"""One 4096x4096 fp32 matmul on CUDA: a PyTorch workload to trace.

Prints: torch_matmul checksum C elapsed_ms X
The inputs are seeded and TF32 is off, so the checksum is stable across runs
on one GPU and driver (it is a float sum, not bit-portable across GPUs).
"""
import time

import torch


def main():
    if not torch.cuda.is_available():
        raise SystemExit("torch_matmul: CUDA is not available")
    torch.backends.cuda.matmul.allow_tf32 = False  # plain fp32 matmul
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(4096, 4096, device="cuda", generator=gen)
    b = torch.randn(4096, 4096, device="cuda", generator=gen)
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    c = a @ b
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3

    checksum = c.double().sum().item()
    print(f"torch_matmul checksum {checksum:.6e} elapsed_ms {ms:.3f}")


if __name__ == "__main__":
    main()
