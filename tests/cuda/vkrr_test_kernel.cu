// The tiny kernel test_cuda_backend looks up in PTX, cubin and fatbin form.
// nvcc compiles it at build time; nothing on a machine without a GPU runs it.
extern "C" __global__ void vkrr_test_scale(float *p, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= s;
}

// A C++ (mangled) name, as real captures often have.
__global__ void vkrr_test_mangled(int *p) { p[threadIdx.x] = threadIdx.x; }

// Texture in, surface out (FLOAT x1, point, unnormalized; surface x in bytes).
extern "C" __global__ void vkrr_test_tex2surf(cudaTextureObject_t t, cudaSurfaceObject_t s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) surf2Dwrite(tex2D<float>(t, x + 0.5f, y + 0.5f) * 2.0f, s, x * 4, y);
}

// Textures over linear memory (tex1Dfetch, and tex2D over pitched memory).
#include "vkrr_test_linear.cu"
