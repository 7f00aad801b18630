// The tiny kernel test_cuda_backend looks up in PTX, cubin and fatbin form.
// nvcc compiles it at build time; nothing on a machine without a GPU runs it.
extern "C" __global__ void vkrr_test_scale(float *p, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= s;
}

// A C++ (mangled) name, as real captures often have.
__global__ void vkrr_test_mangled(int *p) { p[threadIdx.x] = threadIdx.x; }
