// rrref_attn.cu - rrref's window-attention block, on tensor cores.
//
// What it computes (docs/rrref-attention.md says it at length).  Tokens are
// pixels of RRREF_ATTN_C = 32 f16 channels; a window is 8 x 4 pixels, 32
// tokens, one warp.  For a window X (32 x 32):
//   1. RMS norm per token: ss = sum of x*x (f32, unfused, the lane's eight
//      channels in order, then shfl.bfly 1 and 2); ms = div(f16(ss), 32);
//      inv = rsqrt(f16(ms + eps)); xn = f16(x * inv) -> e4m3.
//   2. Q, K, V = xn W + b: fp8 mma, f16 accumulators starting at the bias.
//   3. S = Q K^T (Q, K requantised to e4m3), f16.
//   4. The cubic softmax over each row of S, without a row maximum:
//      e = 2^clamp(s * tau, -14, 10) from bit tricks (round to an integer by
//      adding 1.5 * 2^23, a cubic in the remainder, the integer added to the
//      exponent field); sum in f32 (the lane's eight in order, then shfl.bfly
//      1 and 2); p = f16(e * rcp(f16(sum))) -> e4m3 (.relu).  tau = ex2(log2_tau).
//   5. O = P V: V requantised and moved into B's layout by movmatrix.
//   6. Y = O Wo + bo; out = x + Y (f16 adds), branch = Y, stored four
//      channels a lane after a shfl.bfly 1 exchange, with sust .zero (a
//      window past the image's edge reads clamped tokens and stores nothing).
// Each approximate instruction is fed an f16 and rounded back to f16.
//
// Fragment layouts (g = lane / 4, t = lane % 4): a D fragment holds rows g
// and g + 8, columns 2t and 2t + 1 of an n-tile of 8.  The dot products over
// channels and keys take their k in the order slot 4t + {0, 1, 2, 3} <->
// column {2t, 2t + 1, 8 + 2t, 9 + 2t} of the first two n-tiles (slots 16..31:
// the next two), the same order in A and in B, so D fragments become A and B
// fragments with no data movement; only V, whose k is its row, is transposed
// (movmatrix).  The sums are the same products either way; the tensor core's
// two halves of k are channels (keys) 0-15 and 16-31 either way.
#include "rrref_warp.cuh"

// The weight image in shared memory, then nothing: the launch's 9,600 bytes
// are the notes' enc2 size; this block uses the first RRREF_ATTN_W_BYTES.
RR_DEV unsigned rr_w32(const unsigned char *w, unsigned off)
{
    return (unsigned)w[off] | (unsigned)w[off + 1] << 8 | (unsigned)w[off + 2] << 16 |
           (unsigned)w[off + 3] << 24;
}
RR_DEV unsigned rr_w16(const unsigned char *w, unsigned off)
{
    return (unsigned)w[off] | (unsigned)w[off + 1] << 8;
}

// B fragment of W (row n = output channel, k = input channel in plain order).
RR_DEV void rr_b_plain(unsigned b[2], const unsigned char *w, unsigned j, unsigned g, unsigned t)
{
    const unsigned char *row = w + (8 * j + g) * RRREF_ATTN_C;
    b[0] = rr_w32(row, 4 * t);
    b[1] = rr_w32(row, 16 + 4 * t);
}

// B fragment of W with k in the slot order above (the output projection).
RR_DEV void rr_b_slots(unsigned b[2], const unsigned char *w, unsigned j, unsigned g, unsigned t)
{
    const unsigned char *row = w + (8 * j + g) * RRREF_ATTN_C;
    b[0] = rr_w16(row, 2 * t) | rr_w16(row, 8 + 2 * t) << 16;
    b[1] = rr_w16(row, 16 + 2 * t) | rr_w16(row, 24 + 2 * t) << 16;
}

// C fragment: the bias of columns 8j + 2t, + 1 (f16), both rows.
RR_DEV void rr_bias(unsigned c[2], const unsigned char *bias, unsigned j, unsigned t)
{
    unsigned o = 8 * j + 2 * t;
    __half lo = __ushort_as_half(__nv_cvt_fp8_to_halfraw(bias[o], __NV_E4M3).x);
    __half hi = __ushort_as_half(__nv_cvt_fp8_to_halfraw(bias[o + 1], __NV_E4M3).x);
    c[0] = c[1] = rr_pack_half2(lo, hi);
}

// Four D fragments (n-tiles 0..3, rows g and g + 8) as the A fragment in
// slot order, requantised.
RR_DEV void rr_a_slots(unsigned a[4], const unsigned d[4][2])
{
    a[0] = rr_e4m3x2(d[0][0]) | rr_e4m3x2(d[1][0]) << 16;
    a[1] = rr_e4m3x2(d[0][1]) | rr_e4m3x2(d[1][1]) << 16;
    a[2] = rr_e4m3x2(d[2][0]) | rr_e4m3x2(d[3][0]) << 16;
    a[3] = rr_e4m3x2(d[2][1]) | rr_e4m3x2(d[3][1]) << 16;
}

// 2^v for v clamped to [-14, 10], from bit tricks and a cubic.
RR_DEV float rr_exp2_cubic(float v)
{
    const float magic = 12582912.0f; // 1.5 * 2^23: v + magic holds round(v) in its low bits
    v = fminf(fmaxf(v, -14.0f), 10.0f);
    float r = __fadd_rn(v, magic);
    int n = (int)(__float_as_uint(r) - __float_as_uint(magic));
    float f = __fadd_rn(v, -__fadd_rn(r, -magic)); // v - round(v), in [-0.5, 0.5]
    float q = fmaf(fmaf(fmaf(0.0555041f, f, 0.2402265f), f, 0.6931472f), f, 1.0f);
    return __uint_as_float(__float_as_uint(q) + ((unsigned)n << 23)); // q * 2^n
}

// A token's channel quad in (the residual), as four f16.
RR_DEV void rr_token_quad(__half h[4], cudaTextureObject_t src, int px, int c4, int py)
{
    float4 v = rr_texel(src, px * 8 + c4, py);
    h[0] = __float2half_rn(v.x);
    h[1] = __float2half_rn(v.y);
    h[2] = __float2half_rn(v.z);
    h[3] = __float2half_rn(v.w);
}

extern "C" __global__ void cuda_dldn_rrref_attn0_kernel(rrref_attn_params p)
{
    RR_SHARED_DYN(smem);
    const unsigned lane = threadIdx.x, warp = threadIdx.z, g = lane >> 2, t = lane & 3u;
    const unsigned char *wimg = (const unsigned char *)p.weights;
    for (unsigned i = warp * 32 + lane; i < RRREF_ATTN_W_BYTES; i += 128)
        smem[i] = wimg[i];
    __syncthreads();
    const unsigned char *bias = smem + RRREF_ATTN_W_BIAS;

    // This warp's window; lane (g, t) loads tokens g + 8i = pixel (ox + g, oy + i).
    const int ox = (int)(2 * blockIdx.x + (warp & 1u)) * RRREF_ATTN_WIN_W;
    const int oy = (int)(2 * blockIdx.y + (warp >> 1)) * RRREF_ATTN_WIN_H;
    const int px = rr_clampi(ox + (int)g, 0, (int)p.width - 1);

    // 1. RMS norm; xq[i]: token g + 8i's channels 4t.. (low) and 16 + 4t.. (high) in e4m3
    unsigned xq[4][2];
    const __half eps = __ushort_as_half(p.eps), nch = __ushort_as_half(p.channels);
    for (int i = 0; i < 4; i++) {
        int py = rr_clampi(oy + i, 0, (int)p.height - 1);
        __half x[8];
        rr_token_quad(x, p.src, px, (int)t, py);
        rr_token_quad(x + 4, p.src, px, 4 + (int)t, py);
        float ss = 0.0f;
        for (int c = 0; c < 8; c++)
            ss = __fadd_rn(ss, __fmul_rn(__half2float(x[c]), __half2float(x[c])));
        ss = __fadd_rn(ss, __shfl_xor_sync(0xffffffffu, ss, 1));
        ss = __fadd_rn(ss, __shfl_xor_sync(0xffffffffu, ss, 2));
        __half ms = rr_h_div(__float2half_rn(ss), nch);
        __half inv = rr_h_rsqrt(__float2half_rn(__fadd_rn(__half2float(ms), __half2float(eps))));
        unsigned q[4];
        for (int c = 0; c < 4; c++)
            q[c] = rr_pack_half2(__float2half_rn(__fmul_rn(__half2float(x[2 * c]), __half2float(inv))),
                                 __float2half_rn(__fmul_rn(__half2float(x[2 * c + 1]), __half2float(inv))));
        xq[i][0] = rr_e4m3x2(q[0]) | rr_e4m3x2(q[1]) << 16;
        xq[i][1] = rr_e4m3x2(q[2]) | rr_e4m3x2(q[3]) << 16;
    }

    // 2. Q, K, V [projection][M-tile m: tokens 16m..][n-tile j][row g, g + 8]
    unsigned qkv[3][2][4][2];
    for (int m = 0; m < 2; m++) {
        const unsigned a[4] = {xq[2 * m][0], xq[2 * m + 1][0], xq[2 * m][1], xq[2 * m + 1][1]};
        for (unsigned pr = 0; pr < 3; pr++)
            for (unsigned j = 0; j < 4; j++) {
                unsigned b[2], c[2];
                rr_b_plain(b, smem + pr * 1024u, j, g, t);
                rr_bias(c, bias + 32 * pr, j, t);
                rr_mma_e4m3(qkv[pr][m][j], a, b, c);
            }
    }

    // 3-4. scores and the cubic softmax, a query M-tile at a time; P as A fragments
    const float tau = __half2float(rr_h_ex2(__ushort_as_half(p.log2_tau)));
    unsigned pa[2][4];
    for (int m = 0; m < 2; m++) {
        unsigned a[4], s[4][2]; // s[key tile][row g, g + 8]
        rr_a_slots(a, qkv[0][m]);
        for (unsigned kt = 0; kt < 4; kt++) {
            const unsigned(*k)[2] = qkv[1][kt >> 1];
            unsigned h = kt & 1u, zero[2] = {0u, 0u};
            unsigned b[2] = {rr_e4m3x2(k[0][h]) | rr_e4m3x2(k[1][h]) << 16,
                             rr_e4m3x2(k[2][h]) | rr_e4m3x2(k[3][h]) << 16};
            rr_mma_e4m3(s[kt], a, b, zero);
        }
        unsigned pf[4][2];
        for (unsigned h = 0; h < 2; h++) {
            float e[8], sum = 0.0f;
            for (unsigned kt = 0; kt < 4; kt++) {
                e[2 * kt] = rr_exp2_cubic(__fmul_rn(__half2float(rr_lo(s[kt][h])), tau));
                e[2 * kt + 1] = rr_exp2_cubic(__fmul_rn(__half2float(rr_hi(s[kt][h])), tau));
            }
            for (int c = 0; c < 8; c++)
                sum = __fadd_rn(sum, e[c]);
            sum = __fadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, 1));
            sum = __fadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, 2));
            float inv = __half2float(rr_h_rcp(__float2half_rn(sum)));
            for (unsigned kt = 0; kt < 4; kt++)
                pf[kt][h] = rr_pack_half2(__float2half_rn(__fmul_rn(e[2 * kt], inv)),
                                          __float2half_rn(__fmul_rn(e[2 * kt + 1], inv)));
        }
        pa[m][0] = rr_e4m3x2_relu(pf[0][0]) | rr_e4m3x2_relu(pf[1][0]) << 16;
        pa[m][1] = rr_e4m3x2_relu(pf[0][1]) | rr_e4m3x2_relu(pf[1][1]) << 16;
        pa[m][2] = rr_e4m3x2_relu(pf[2][0]) | rr_e4m3x2_relu(pf[3][0]) << 16;
        pa[m][3] = rr_e4m3x2_relu(pf[2][1]) | rr_e4m3x2_relu(pf[3][1]) << 16;
    }

    // 5. V^T: vt[key tile][n-tile j] holds keys 8kt + 2t, + 1 of channel 8j + g
    unsigned vt[4][4];
    for (unsigned kt = 0; kt < 4; kt++)
        for (unsigned j = 0; j < 4; j++)
            vt[kt][j] = rr_e4m3x2(rr_movmatrix(qkv[2][kt >> 1][j][kt & 1u]));
    unsigned o[2][4][2];
    for (int m = 0; m < 2; m++)
        for (unsigned j = 0; j < 4; j++) {
            unsigned b[2] = {vt[0][j] | vt[1][j] << 16, vt[2][j] | vt[3][j] << 16}, zero[2] = {0u, 0u};
            rr_mma_e4m3(o[m][j], pa[m], b, zero);
        }

    // 6. Y = O Wo + bo; out = x + Y
    for (int m = 0; m < 2; m++) {
        unsigned a[4];
        rr_a_slots(a, o[m]);
        for (unsigned j = 0; j < 4; j++) {
            unsigned b[2], c[2], y[2];
            rr_b_slots(b, smem + RRREF_ATTN_W_O, j, g, t);
            rr_bias(c, bias + 96, j, t);
            rr_mma_e4m3(y, a, b, c);
            // even t: row g, columns 8j + 2t .. + 3; odd t: row g + 8, columns 8j + 2t - 2 .. + 1
            unsigned odd = t & 1u;
            unsigned got = __shfl_xor_sync(0xffffffffu, odd ? y[0] : y[1], 1);
            unsigned lo = odd ? got : y[0], hi = odd ? y[1] : got;
            int c4 = (int)(2 * j + (t >> 1));
            int qy = oy + 2 * m + (int)odd;
            __half xr[4], yv[4] = {rr_lo(lo), rr_hi(lo), rr_lo(hi), rr_hi(hi)};
            rr_token_quad(xr, p.src, px, c4, rr_clampi(qy, 0, (int)p.height - 1));
            ushort4 ov, bv;
            ov.x = __half_as_ushort(__hadd(xr[0], yv[0]));
            ov.y = __half_as_ushort(__hadd(xr[1], yv[1]));
            ov.z = __half_as_ushort(__hadd(xr[2], yv[2]));
            ov.w = __half_as_ushort(__hadd(xr[3], yv[3]));
            bv = make_ushort4(__half_as_ushort(yv[0]), __half_as_ushort(yv[1]), __half_as_ushort(yv[2]),
                              __half_as_ushort(yv[3]));
            int xb = ((ox + (int)g) * 8 + c4) * 8;
            rr_sust_zero(p.out, xb, qy, ov);
            rr_sust_zero(p.branch, xb, qy, bv);
        }
    }
}
