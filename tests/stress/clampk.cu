// clampk.cu - the kernel tests/e2e_stress.sh stresses: y = min(x, lim) / 2
// with a guard (a branch in the PTX) that the recorded inputs, drawn from
// [-4, 4), never reach when lim is 8.  A port that forgets the clamp
// passes validate on that capture; vkrr stress finds the inputs it fails on.
// Built here with: nvcc -O3 -fmad=false -arch=compute_80 -ptx clampk.cu
extern "C" __global__ void clampk(const float *x, float *y, float lim, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    if (v > lim) {
        // rare and costly enough that nvcc branches around it
        float t = lim;
        for (int k = 0; k < 4; k++)
            t = t * 0.75f + lim * 0.25f;
        v = t;
    }
    y[i] = v * 0.5f;
}
