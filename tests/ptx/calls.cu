// calls.cu - device functions the PTX interpreter must call rather than
// inline: __noinline__ functions taking and returning scalars and a struct,
// recursion (with a pointer into the caller's frame, and deep enough to
// overflow), the math library's f64 sin/cos (whose large-argument path is a
// call, __internal_trig_reduction_slowpathd), printf and assert, calls
// through function pointers (a table of them in a __device__ initializer,
// divergent per lane), a pointer initialized to a variable's element, and
// alloca (in the kernel, and in a function called often enough that its
// allocations must be freed at each return).
// test_ptx_calls runs them against host C.  The #line below keeps the
// assertion's file name (__FILE__, in the PTX) the same wherever the
// repository is, so the checked-in PTX matches the build's.
#line 10 "calls.cu"
#include <cassert>
#include <cstdio>

struct pair {
    int a;
    float b;
    double c;
};

extern "C" __device__ __noinline__ pair mk(int x, float y)
{
    pair p;
    p.a = x * 3;
    p.b = y * 0.5f;
    p.c = x + (double)y;
    return p;
}

// adds the caller's array into its own, then recurses with a pointer to it
extern "C" __device__ __noinline__ int sumdown(const int *acc, int n)
{
    int mine[4] = {n, n * 2, n * 3, n * 4};
    if (n == 0) {
        int s = 0;
        for (int i = 0; i < 4; i++)
            s += acc[i] * (i + 1);
        return s;
    }
    for (int i = 0; i < 4; i++)
        mine[i] += acc[i];
    return sumdown(mine, n - 1) + mine[n & 3];
}

extern "C" __device__ __noinline__ unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

extern "C" __device__ __noinline__ unsigned deep(volatile unsigned *p, unsigned n)
{
    return n == 0 ? *p : deep(p, n - 1) + n;
}

extern "C" __global__ void calls(int *out, float *fout, double *dout, const double *din, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    pair p = mk((int)i, (float)i + 0.25f);
    out[4 * i] = p.a;
    fout[i] = p.b;
    int z[4] = {1, 2, 3, 4};
    out[4 * i + 1] = sumdown(z, (int)(i % 6));
    out[4 * i + 2] = (int)fib(i % 12);
    out[4 * i + 3] = 0;
    dout[3 * i] = sin(din[i]);
    dout[3 * i + 1] = cos(din[i]);
    dout[3 * i + 2] = p.c;
}

extern "C" __global__ void recurse(unsigned *out, unsigned depth)
{
    out[threadIdx.x] = deep(out + threadIdx.x, depth + threadIdx.x);
}

extern "C" __global__ void say(int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i % 3) != 1)
        out[i] = printf("t%u: %d %5.2f|%-4x|%s %lld %c %e %p%%\n", i, -(int)i, 1.5 * i, i, "ok",
                        (long long)i << 40, 'a' + (int)(i % 26), (double)i / 7.0, (void *)0);
}

extern "C" __global__ void check(int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i != n);
    out[i] = (int)i;
}

typedef int (*op_t)(int, int);
extern "C" __device__ __noinline__ int add_op(int a, int b) { return a + b; }
extern "C" __device__ __noinline__ int mul_op(int a, int b) { return a * b; }
extern "C" __device__ int sub_op(int a, int b) { return a - b; }
__device__ op_t table[3] = {add_op, mul_op, sub_op};
__device__ int gvals[4] = {1, 2, 3, 4};
__device__ int *gptr = &gvals[2];

extern "C" __global__ void fptr(int *out, const int *a, const int *b, int n, int bad)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    op_t f = table[i % 3];
    if (i == bad)
        f = (op_t)(unsigned long long)a; // not a function: the launch faults
    out[i] = f(a[i], b[i]) + *gptr;
    op_t g = (i & 1) ? add_op : mul_op;
    out[i + n] = g(a[i], 3);
}

__device__ __noinline__ int scratch_sum(const int *in, int n, int salt)
{
    int *buf = (int *)alloca(n * sizeof(int)); // freed when it returns
    for (int i = 0; i < n; i++)
        buf[i] = in[i] ^ salt;
    int s = 0;
    for (int i = 0; i < n; i++)
        s += buf[(i * 7) % n];
    return s;
}

extern "C" __global__ void stack(const int *in, int *out, int n, int calls)
{
    int *mine = (int *)alloca(n * sizeof(int));
    for (int i = 0; i < n; i++)
        mine[i] = in[i] * (int)threadIdx.x;
    int s = 0;
    for (int c = 0; c < calls; c++)
        s += scratch_sum(in, n, c + (int)threadIdx.x);
    for (int i = 0; i < n; i++)
        s += mine[(i * 5) % n];
    out[threadIdx.x] = s;
}
