# SPDX-License-Identifier: MIT
"""A CuPy workload for -k: an allocation, a kernel, a reduction, a copy back."""
import cupy as cp

a = cp.arange(1 << 20, dtype=cp.float32)
print("cupy_sum", float((a * 2).sum()))
