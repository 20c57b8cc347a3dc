# SPDX-License-Identifier: MIT
"""A JAX workload for -k: a jitted function on the GPU, its result copied back."""
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: (x * 2).sum())
print("jax_sum", float(f(jnp.arange(1 << 20, dtype=jnp.float32))), jax.devices())
