// rrref_tok.cu - the window-attention block's way in and out of the plane
// arena (docs/rrref.md): tok0 gathers half-res planes into tokens of
// RRREF_ATTN_C f16 channels, untok0 scatters the block's result back into
// planes.  Plain pixel kernels (one thread a half-res pixel, 8 x 8 blocks),
// no arithmetic beyond exact conversions, so any backend writes the same bytes.
#include "rrref_common.cuh"

// Token (x, y): enc1's planes 0..15, down's 0..7 as f16 (every e4m3 value is
// k * 2^-9, exact in f16; the NaN code becomes 0x7fff as a conv slice's NaN
// does), then 8 zero channels; texel (8x + q, y) holds channels 4q..4q+3.
extern "C" __global__ void cuda_dldn_rrref_tok0_kernel(rrref_tok_params p)
{
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= (int)p.width || y >= (int)p.height)
        return;
    const unsigned short *e1 = (const unsigned short *)p.enc1;
    const unsigned char *dn = (const unsigned char *)p.down;
    size_t plane = (size_t)p.width * p.height, at = (size_t)y * p.width + (size_t)x;
    unsigned short h[RRREF_ATTN_C];
    for (int c = 0; c < RRREF_C_E1; c++)
        h[c] = e1[c * plane + at];
    for (int c = 0; c < RRREF_C_E0; c++) {
        int nan = 0;
        int k = rr_e4m3_fixed(dn[c * plane + at], &nan);
        h[RRREF_C_E1 + c] = nan ? (unsigned short)0x7fff : __half_as_ushort(rr_fixed_to_half((long long)k * 512));
    }
    for (int c = RRREF_C_E1 + RRREF_C_E0; c < RRREF_ATTN_C; c++)
        h[c] = 0;
    for (int q = 0; q < RRREF_ATTN_C / 4; q++)
        surf2Dwrite(make_ushort4(h[4 * q], h[4 * q + 1], h[4 * q + 2], h[4 * q + 3]),
                    (cudaSurfaceObject_t)p.tokens, (x * 8 + q) * (int)sizeof(ushort4), y);
}

// Plane c (0..15) at (x, y) = channel c of token (x, y), read at the texel's
// centre through a point sampler and rounded back to f16 (exact).
extern "C" __global__ void cuda_dldn_rrref_untok0_kernel(rrref_untok_params p)
{
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= (int)p.width || y >= (int)p.height)
        return;
    __half *dst = (__half *)p.dst;
    size_t plane = (size_t)p.width * p.height, at = (size_t)y * p.width + (size_t)x;
    float py = __fadd_rn((float)y, 0.5f);
    for (int q = 0; q < RRREF_C_E1 / 4; q++) {
        float4 v = tex2D<float4>((cudaTextureObject_t)p.tokens, __fadd_rn((float)(x * 8 + q), 0.5f), py);
        dst[(4 * q + 0) * plane + at] = __float2half_rn(v.x);
        dst[(4 * q + 1) * plane + at] = __float2half_rn(v.y);
        dst[(4 * q + 2) * plane + at] = __float2half_rn(v.z);
        dst[(4 * q + 3) * plane + at] = __float2half_rn(v.w);
    }
}
