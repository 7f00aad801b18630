// wmma_ops.cu - the WMMA API (nvcc's wmma.load/store/mma) for the PTX
// interpreter's tests (one warp; tests/test_ptx_mma.c computes each product
// on its own, with inputs whose products and sums are exact).
//   k_wmma_f16:  m16n16k16, A f16 row-major (lda 24), B f16 col-major, C f32
//                row-major; the accumulator doubled element by element, then
//                D = A*B + 2C stored row-major; and an f16 accumulator from C16
//                stored col-major.
//   k_wmma_bf16: m32n8k16, A bf16 col-major, B bf16 row-major, f32 C and D.
//   k_wmma_tf32: m16n16k8, A and B f32 (rounded to tf32), f32 C and D col-major.
//   k_wmma_s8:   m8n32k16, A s8 row-major, B s8 col-major, s32 C, D with and
//                without saturation.
//   k_wmma_u4:   m8n8k32, A u4 row-major, B u4 col-major (packed), s32 C and D.
//   k_wmma_b1:   m8n8k128, A b1 row-major, B b1 col-major, XOR and AND popc.
//   k_wmma_f64:  m8n8k4, A f64 row-major, B f64 col-major, C row-major, D = A*B + C
//                stored col-major.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void k_wmma_f16(const __half *A, const __half *B, const float *C, const __half *C16,
                                      float *D, __half *D16)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> h;
    wmma::load_matrix_sync(a, A, 24);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    for (int i = 0; i < c.num_elements; i++)
        c.x[i] *= 2.0f;
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
    wmma::load_matrix_sync(h, C16, 16, wmma::mem_row_major);
    wmma::mma_sync(h, a, b, h);
    wmma::store_matrix_sync(D16, h, 16, wmma::mem_col_major);
}

extern "C" __global__ void k_wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *C,
                                       float *D)
{
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::col_major> a;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> c;
    wmma::load_matrix_sync(a, A, 32);
    wmma::load_matrix_sync(b, B, 8);
    wmma::load_matrix_sync(c, C, 8, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 8, wmma::mem_row_major);
}

extern "C" __global__ void k_wmma_tf32(const float *A, const float *B, const float *C, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::load_matrix_sync(a, A, 8);
    wmma::load_matrix_sync(b, B, 16);
    for (int i = 0; i < a.num_elements; i++)
        a.x[i] = wmma::__float_to_tf32(a.x[i]);
    for (int i = 0; i < b.num_elements; i++)
        b.x[i] = wmma::__float_to_tf32(b.x[i]);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_col_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_col_major);
}

extern "C" __global__ void k_wmma_s8(const signed char *A, const signed char *B, const int *C, int *D,
                                     int *Dsat)
{
    wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 8, 32, 16, int> c, d;
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 32, wmma::mem_row_major);
    wmma::mma_sync(d, a, b, c);
    wmma::store_matrix_sync(D, d, 32, wmma::mem_row_major);
    wmma::mma_sync(d, a, b, c, true);
    wmma::store_matrix_sync(Dsat, d, 32, wmma::mem_row_major);
}

extern "C" __global__ void k_wmma_u4(const unsigned *A, const unsigned *B, const int *C, int *D)
{
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> c;
    wmma::load_matrix_sync(a, A, 32);
    wmma::load_matrix_sync(b, B, 32);
    wmma::load_matrix_sync(c, C, 8, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 8, wmma::mem_row_major);
}

extern "C" __global__ void k_wmma_b1(const unsigned *A, const unsigned *B, const int *C, int *Dxor, int *Dand)
{
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> c, d;
    wmma::load_matrix_sync(a, A, 128);
    wmma::load_matrix_sync(b, B, 128);
    wmma::load_matrix_sync(c, C, 8, wmma::mem_row_major);
    wmma::bmma_sync(d, a, b, c, bmmaBitOpXOR, bmmaAccumulateOpPOPC);
    wmma::store_matrix_sync(Dxor, d, 8, wmma::mem_row_major);
    wmma::bmma_sync(d, a, b, c, bmmaBitOpAND, bmmaAccumulateOpPOPC);
    wmma::store_matrix_sync(Dand, d, 8, wmma::mem_row_major);
}

extern "C" __global__ void k_wmma_f64(const double *A, const double *B, const double *C, double *D)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> c;
    wmma::load_matrix_sync(a, A, 4);
    wmma::load_matrix_sync(b, B, 4);
    wmma::load_matrix_sync(c, C, 8, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 8, wmma::mem_col_major);
}
