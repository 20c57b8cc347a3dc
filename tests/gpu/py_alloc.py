# SPDX-License-Identifier: MIT
"""Each function allocates device memory of its own size (PyTorch's caching
allocator off: PYTORCH_NO_CUDA_MEMORY_CACHING=1, so each torch.empty is a
cudaMalloc).  Sizes are drawn at random per run, distinct multiples of
2 MiB from 4 MiB: the driver's allocation for the first tensor (1 byte)
is 2 MiB, and a function drawn 2 MiB was charged that line too.  The
context makes buffers of its own (6 MiB among them, a size a function
may draw): "<module>" gives the line that makes it, [0, line].  Prints
one line of JSON: {function: [bytes, line of its allocation]} for
tests/gpu/py_check.py."""
import inspect
import json
import random

import torch

SIZES = random.sample(range(4, 64, 2), 5)


def where():
    f = inspect.currentframe().f_back
    return f.f_lineno + 1


def alloc_a(n):
    line = where()
    return torch.empty(n, dtype=torch.uint8, device="cuda"), line


def alloc_b(n):
    line = where()
    return torch.empty(n, dtype=torch.uint8, device="cuda"), line


class Model:
    def alloc_c(self, n):
        line = where()
        return torch.empty(n, dtype=torch.uint8, device="cuda"), line

    def alloc_d(self, n):
        line = where()
        return torch.empty(n, dtype=torch.uint8, device="cuda"), line


def alloc_e(n, depth=20):
    if depth:
        return alloc_e(n, depth - 1)
    line = where()
    return torch.empty(n, dtype=torch.uint8, device="cuda"), line


CONTEXT_LINE = inspect.currentframe().f_lineno + 1
torch.empty(1, device="cuda")     # the context first (its own buffers: 2, 6, 70 MiB and more)
funcs = [("alloc_a", alloc_a), ("alloc_b", alloc_b), ("Model.alloc_c", Model().alloc_c),
         ("Model.alloc_d", Model().alloc_d), ("alloc_e", alloc_e)]
keep, expect = [], {}
for (name, f), mib in zip(funcs, SIZES):
    t, line = f(mib << 20)
    keep.append(t)
    expect[name] = [mib << 20, line]
torch.cuda.synchronize()
expect["<module>"] = [0, CONTEXT_LINE]
print(json.dumps(expect))
