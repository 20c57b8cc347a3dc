# SPDX-License-Identifier: MIT
"""Train a small MLP on random data on CUDA for N steps (argv[1], default 200).

A steady training loop (kernel launches, allocator reuse, no sync until the end)
for measuring tracer overhead.  Prints:
torch_train steps N steps_per_s X loss L
(one fixed batch, so the loss falls towards 0 as it is memorised)
"""
import sys
import time

import torch
from torch import nn


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if steps <= 0:
        raise SystemExit("usage: torch_train.py [STEPS]")
    if not torch.cuda.is_available():
        raise SystemExit("torch_train: CUDA is not available")
    torch.manual_seed(0)
    dev = torch.device("cuda")

    model = nn.Sequential(
        nn.Linear(1024, 1024), nn.ReLU(),
        nn.Linear(1024, 1024), nn.ReLU(),
        nn.Linear(1024, 10),
    ).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(256, 1024, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    step()  # warm-up: cuBLAS handles and allocator pools are made here
    torch.cuda.synchronize()

    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    final = loss.item()  # .item() synchronises
    rate = steps / (time.perf_counter() - t0)
    print(f"torch_train steps {steps} steps_per_s {rate:.1f} loss {final:.4e}")


if __name__ == "__main__":
    main()
