// Functions of the same code under other names, for the kernel-name tests
// (tests/unit/test_kernel_names.c, tests/live/kernel_names.py): k_twin_a
// and k_twin_b have the same body and parameters; k_twin_c the same body
// and one parameter more, which it does not read (its code is the same,
// its constant bank 0 longer).  Built by make.sh.
extern "C" __global__ void k_twin_a(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * 2.0f + 1.0f;
}

extern "C" __global__ void k_twin_b(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * 2.0f + 1.0f;
}

extern "C" __global__ void k_twin_c(float *a, int n, int unused)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * 2.0f + 1.0f;
}
