// scale.cu - the kernel of README "Port your first kernel": y = a * x + b,
// element by element.
// Compiled to the checked-in scale.ptx with
//   nvcc -arch=compute_80 -ptx -fmad=false scale.cu -o scale.ptx
// (-fmad=false: the port computes a * x and + b as two roundings, as written).
extern "C" __global__ void scale(const float *x, float *y, float a, float b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + b;
}
