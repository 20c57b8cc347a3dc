// Small kernels for tests/unit/test_kernel_names.c: built into fatbins
// (plain, LZ4, zstd) and a relocatable cubin by tests/kernels/make.sh.
__device__ int counter;

extern "C" __global__ void k_add(float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += b[i];
}

template <typename T>
__global__ void k_scale(T *a, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] *= s;
	if (i == 0)
		atomicAdd(&counter, 1);
}

template __global__ void k_scale<float>(float *, float, int);
template __global__ void k_scale<double>(double *, double, int);
