// rrref_conv.cu - the U-Net body: enc0, down, enc1, dec0.
//
// Convs are 3x3 with replicated edges (source coordinates clamped), e4m3
// weights times e4m3 activations, exact 32-term slices rounded once into an
// f16 accumulator (rr_conv_channel).  k = tap * Cin + c, tap row-major from
// (dy, dx) = (-1, -1).  Activations are requantised f16 -> e4m3 (satfinite)
// as they are loaded; `down` stores e4m3 planes.  Fused ops: only the fmaf in
// rr_cubic; everything else is __fmul_rn / __fadd_rn.
#include "rrref_common.cuh"

// Loads the quantised f16 activations of one tap: channels [c0, c0+n) of
// `planes` (w x h each) at (sx, sy) into ka[k0 ...].
RR_DEV void rr_load_f16(int *ka, int k0, const __half *planes, unsigned w, unsigned h,
                        int n, int sx, int sy, int *nan)
{
    size_t plane = (size_t)w * h, i = (size_t)sy * w + (size_t)sx;
    for (int c = 0; c < n; c++)
        ka[k0 + c] = rr_e4m3_fixed(rr_half_to_e4m3(planes[c * plane + i]), nan);
}

extern "C" __global__ void cuda_dldn_rrref_enc0_kernel(rrref_conv_params p)
{
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= (int)p.width || y >= (int)p.height)
        return;
    const __half *src = (const __half *)p.src;
    const unsigned char *w = (const unsigned char *)p.weights;
    __half *dst = (__half *)p.dst;
    int ka[RRREF_K_ENC0], nan = 0;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, (int)p.src_width - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, (int)p.src_height - 1);
        rr_load_f16(ka, tap * RRREF_C_IN, src, p.src_width, p.src_height, RRREF_C_IN, sx, sy, &nan);
    }
    size_t plane = (size_t)p.width * p.height, i = (size_t)y * p.width + (size_t)x;
    for (int o = 0; o < RRREF_C_E0; o++) {
        __half a = rr_conv_channel(ka, nan, w + o * RRREF_K_ENC0, RRREF_K_ENC0,
                                   w[RRREF_C_E0 * RRREF_K_ENC0 + o]);
        dst[o * plane + i] = __float2half_rn(rr_cubic(__half2float(a)));
    }
}

// 2x2 mean: the four f16 values summed in f32 in the order (0,0) (1,0) (0,1)
// (1,1) (edges replicated), times 0.25, rounded to f16, then to e4m3 satfinite.
extern "C" __global__ void cuda_dldn_rrref_down_kernel(rrref_down_params p)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    const __half *src = (const __half *)p.src;
    unsigned char *dst = (unsigned char *)p.dst;
    unsigned x0 = 2 * x, y0 = 2 * y;
    unsigned x1 = x0 + 1 < p.src_width ? x0 + 1 : p.src_width - 1;
    unsigned y1 = y0 + 1 < p.src_height ? y0 + 1 : p.src_height - 1;
    size_t splane = (size_t)p.src_width * p.src_height, plane = (size_t)p.width * p.height;
    for (int c = 0; c < RRREF_C_E0; c++) {
        const __half *s = src + c * splane;
        float v = __half2float(s[(size_t)y0 * p.src_width + x0]);
        v = __fadd_rn(v, __half2float(s[(size_t)y0 * p.src_width + x1]));
        v = __fadd_rn(v, __half2float(s[(size_t)y1 * p.src_width + x0]));
        v = __fadd_rn(v, __half2float(s[(size_t)y1 * p.src_width + x1]));
        __half m = __float2half_rn(__fmul_rn(v, 0.25f));
        dst[c * plane + (size_t)y * p.width + x] = (unsigned char)rr_half_to_e4m3(m);
    }
}

// enc1: conv on e4m3 planes, then RMS norm over the RRREF_C_E1 outputs:
// ms = (sum_o v_o*v_o, unfused, in o order) * 1/16; r = f16(ms + 2^-13);
// inv = rsqrt.approx.ftz(r); y_o = f16(cubic(v_o * inv)).
extern "C" __global__ void cuda_dldn_rrref_enc1_kernel(rrref_conv_params p)
{
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= (int)p.width || y >= (int)p.height)
        return;
    const unsigned char *src = (const unsigned char *)p.src;
    const unsigned char *w = (const unsigned char *)p.weights;
    __half *dst = (__half *)p.dst;
    size_t splane = (size_t)p.src_width * p.src_height;
    int ka[RRREF_K_ENC1], nan = 0;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, (int)p.src_width - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, (int)p.src_height - 1);
        for (int c = 0; c < RRREF_C_E0; c++)
            ka[tap * RRREF_C_E0 + c] =
                rr_e4m3_fixed(src[c * splane + (size_t)sy * p.src_width + (size_t)sx], &nan);
    }
    float v[RRREF_C_E1];
    float ms = 0.0f;
    for (int o = 0; o < RRREF_C_E1; o++) {
        v[o] = __half2float(rr_conv_channel(ka, nan, w + o * RRREF_K_ENC1, RRREF_K_ENC1,
                                            w[RRREF_C_E1 * RRREF_K_ENC1 + o]));
        ms = __fadd_rn(ms, __fmul_rn(v[o], v[o]));
    }
    ms = __fmul_rn(ms, 0.0625f);
    float r = __half2float(__float2half_rn(__fadd_rn(ms, 1.220703125e-04f)));
    float inv = rr_rsqrt_approx(r);
    size_t plane = (size_t)p.width * p.height, i = (size_t)y * p.width + (size_t)x;
    for (int o = 0; o < RRREF_C_E1; o++)
        dst[o * plane + i] = __float2half_rn(rr_cubic(__fmul_rn(v[o], inv)));
}

// dec0: per tap the RRREF_C_E1 enc1 channels at (sx>>1, sy>>1) (nearest
// upsampling), then the RRREF_C_E0 enc0 skip channels at (sx, sy).
extern "C" __global__ void cuda_dldn_rrref_dec0_kernel(rrref_conv_params p)
{
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= (int)p.width || y >= (int)p.height)
        return;
    const __half *src = (const __half *)p.src;
    const __half *skip = (const __half *)p.skip;
    const unsigned char *w = (const unsigned char *)p.weights;
    __half *dst = (__half *)p.dst;
    const int cin = RRREF_C_E1 + RRREF_C_E0;
    int ka[RRREF_K_DEC0], nan = 0;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, (int)p.width - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, (int)p.height - 1);
        int ux = rr_clampi(sx >> 1, 0, (int)p.src_width - 1);
        int uy = rr_clampi(sy >> 1, 0, (int)p.src_height - 1);
        rr_load_f16(ka, tap * cin, src, p.src_width, p.src_height, RRREF_C_E1, ux, uy, &nan);
        rr_load_f16(ka, tap * cin + RRREF_C_E1, skip, p.width, p.height, RRREF_C_E0, sx, sy, &nan);
    }
    size_t plane = (size_t)p.width * p.height, i = (size_t)y * p.width + (size_t)x;
    for (int o = 0; o < RRREF_C_DEC; o++) {
        __half a = rr_conv_channel(ka, nan, w + o * RRREF_K_DEC0, RRREF_K_DEC0,
                                   w[RRREF_C_DEC * RRREF_K_DEC0 + o]);
        dst[o * plane + i] = __float2half_rn(rr_cubic(__half2float(a)));
    }
}
