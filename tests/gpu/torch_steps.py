# SPDX-License-Identifier: MIT
"""A PyTorch training loop for --gpu-work (docs/GPUWORK.md): STEPS steps
(argv[1], default 20) of a small MLP, each followed by a synchronize and a
50 ms pause, so that a step's launches are read before the next begins and
can be told apart by time.  Prints "torch_steps N loss L"."""
import sys
import time

import torch
from torch import nn

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.manual_seed(0)
dev = torch.device("cuda")
model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
x = torch.randn(256, 512, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
torch.cuda.synchronize()
time.sleep(0.2)
for _ in range(steps):
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    time.sleep(0.05)
print("torch_steps", steps, "loss", float(loss))
time.sleep(0.3)
