// heap_ops.cu - device malloc and free for the PTX interpreter's tests
// (tests/test_ptx_heap.c computes every result on its own).
//   k_heap:   each thread mallocs n + 1 ints (n = tid % 7 + 1), fills them with
//             i * gid, sums them and frees them; thread 0 of each block mallocs a
//             buffer the block shares through shared memory, every thread writes
//             3 t + block there and reads its neighbour's, thread 0 frees it;
//             out[gid] = sum + neighbour.  flags[0]: malloc of 1 GiB returned
//             NULL; flags[1]: a 16-byte malloc is 16-byte aligned.
//   k_churn:  each thread mallocs 4 KiB 200 times, freeing each block after the
//             next one is taken (52 MB in all through an 8 MiB heap whose top
//             block is always live: freed blocks below it must be reused);
//             out[gid] = the sum of what it read back.
//   k_double_free: frees one block twice (undefined in CUDA: a fault here).
#include <stdint.h>

extern "C" __global__ void k_heap(int *out, int *flags)
{
    __shared__ int *buf;
    unsigned t = threadIdx.x, n = t % 7 + 1, gid = blockIdx.x * blockDim.x + t;
    int *mine = (int *)malloc((n + 1) * sizeof(int));
    if (!mine) {
        out[gid] = -1;
        return;
    }
    for (unsigned i = 0; i <= n; i++)
        mine[i] = (int)(i * gid);
    int s = 0;
    for (unsigned i = 0; i <= n; i++)
        s += mine[i];
    free(mine);
    if (t == 0)
        buf = (int *)malloc(blockDim.x * sizeof(int));
    __syncthreads();
    buf[t] = (int)(t * 3 + blockIdx.x);
    __syncthreads();
    int nb = buf[(t + 1) % blockDim.x];
    __syncthreads();
    if (t == 0)
        free(buf);
    out[gid] = s + nb;
    if (gid == 0) {
        flags[0] = malloc((size_t)1 << 30) == NULL;
        void *a = malloc(16);
        flags[1] = a && ((uintptr_t)a & 15) == 0;
        free(a);
    }
}

extern "C" __global__ void k_churn(int *out)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int s = 0;
    volatile int *prev = 0;
    for (int i = 0; i < 200; i++) {
        volatile int *p = (volatile int *)malloc(4096);
        if (!p) {
            s = -1000000;
            break;
        }
        p[1023] = i + (int)gid;
        s += p[1023];
        free((void *)prev); /* the newest block stays live above the freed ones */
        prev = p;
    }
    free((void *)prev);
    out[gid] = s;
}

extern "C" __global__ void k_double_free(int *out)
{
    int *p = (int *)malloc(8);
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}
