#version 460
// Port of cuda_dldn_rrref_attn0_kernel (rrref_attn.cu, docs/rrref-attention.md):
// window attention on fp8 tensor cores, bit for bit.
//
// A workgroup is CUDA's block, 32 x 1 x 4: z is the warp, one 8 x 4 window
// of 32 tokens each; x is the lane.  Vulkan on lavapipe has no cooperative
// matrices and no 32-wide subgroups, so the warp's work is recast with
// invocation r owning token r (a row of every matrix) and the warp's
// collectives done by hand:
//  - every mma output is vkrr_tc_mma_e4m3_f16 (tensorcore.glsl: the
//    capture's hardware model's tensor core) over the row of A and the
//    column of B it reads.  The CUDA code feeds S, O and Y their k in a
//    "slot" order (channels / keys 2t, 2t+1, 8+2t, 9+2t of lane t), the
//    same in A and B; the model sums exactly within each half of k and the
//    slot order keeps channels 0-15 in the first half, so the plain order
//    here gives the same bits;
//  - K and V (the B operands of S and O: other rows) go through shared
//    memory, after the weight image;
//  - the shfl.bfly sums over a quad are the four partial sums of the lanes
//    t = 0..3, each in its own order, combined (s0 + s1) + (s2 + s3);
//  - movmatrix needs nothing: O's B column is V's column, read from shared;
//  - the residual is the token the block read (same texel, same clamp).
// Nothing is contracted: every f32 op CUDA wrote unfused is `precise`, the
// fmaf's are vkrr_fma.  Exact except through the hardware model's tables
// (ex2, rsqrt, rcp on f16 inputs: math.glsl) and div.approx's stand-in.
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"
#include "cuda.glsl"
#include "e4m3.glsl"
#include "math.glsl"
#include "surface.glsl"
#include "tensorcore.glsl"
#include "tex.glsl"

struct RrrefAttnParams {
    uint64_t src;     //  0 texture HALF x4 tokens (LINEAR, normalized: read at integer coordinates)
    uint64_t out_;    //  8 surface HALF x4: tokens + attention (.cu: out, a GLSL keyword)
    uint64_t branch;  // 16 surface HALF x4: the attention branch
    uint width;       // 24 pixels
    uint height;      // 28
    uint windows_x;   // 32
    uint windows_y;   // 36
    uint64_t weights; // 40 the weight image (e4m3)
    uint tau_ch;      // 48 log2_tau (f16, low half), 50 channels (f16, high half)
    uint eps_pad;     // 52 eps (f16, low half)
};
VKRR_PARAMS(RrrefAttnParams);

#define C 32
#define W_BYTES 4224
#define W_K 1024
#define W_V 2048
#define W_O 3072
#define W_BIAS 4096

shared uint s_w[W_BYTES / 4];   // the weight image, 4 codes a word (byte 0 lowest)
shared uint s_k[4][32][C / 4];  // each warp's K, requantised: key rows
shared uint s_v[4][32][C / 4];  // each warp's V, requantised: key rows

uint w_code(uint off) { return (s_w[off >> 2] >> (8u * (off & 3u))) & 0xffu; }

// One output of the mma with B's column = weight row o of matrix at base and
// c = the bias of o (e4m3 -> f16).
uint mma_w(uint a[8], uint base, uint bias_base, uint o)
{
    uint b[8];
    for (uint i = 0u; i < 8u; i++)
        b[i] = s_w[(base + C * o) / 4u + i];
    return vkrr_tc_mma_e4m3_f16(a, b, vkrr_e4m3_to_h(w_code(bias_base + o)));
}

// cvt.rn.satfinite{.relu}.e4m3x2.f16x2 on one f16: relu makes negatives
// (and -0) +0; a NaN stays the NaN code.
uint e4m3_of_h(uint h, bool relu)
{
    bool nan = (h & 0x7fffu) > 0x7c00u;
    return relu && !nan && (h & 0x8000u) != 0u ? 0u : vkrr_e4m3_from_h(h);
}

// rr_exp2_cubic: 2^v for v clamped to [-14, 10] from bit tricks and a cubic.
float exp2_cubic(float v)
{
    const float magic = uintBitsToFloat(0x4b400000u); // 1.5 * 2^23
    v = vkrr_fminf(vkrr_fmaxf(v, -14.0), 10.0);
    precise float r = v + magic;
    int n = int(floatBitsToUint(r) - floatBitsToUint(magic));
    precise float rm = r + (-magic);
    precise float f = v + (-rm);
    float q = vkrr_fma(vkrr_fma(vkrr_fma(uintBitsToFloat(0x3d635844u), f, uintBitsToFloat(0x3e75fdf0u)), f,
                                uintBitsToFloat(0x3f317218u)),
                       f, 1.0);
    return uintBitsToFloat(floatBitsToUint(q) + (uint(n) << 23));
}

// The butterflies' sum over a quad: (s0 + s1) + (s2 + s3).
float quad_sum(float s0, float s1, float s2, float s3)
{
    precise float a = s0 + s1;
    precise float b = s2 + s3;
    precise float r = a + b;
    return r;
}

uint pack4(uint c[4]) { return c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24; }

void main()
{
    const uint r = gl_LocalInvocationID.x, warp = gl_LocalInvocationID.z;
    const uint tid = warp * 32u + r;
    VkrrU8Ptr wimg = VkrrU8Ptr(vkrr_p.weights);
    for (uint i = tid; i < W_BYTES / 4; i += 128u)
        s_w[i] = uint(wimg.v[4u * i]) | uint(wimg.v[4u * i + 1u]) << 8 | uint(wimg.v[4u * i + 2u]) << 16 |
                 uint(wimg.v[4u * i + 3u]) << 24;
    barrier();

    // This warp's window; token r is pixel (ox + r % 8, oy + r / 8), clamped.
    const int ox = int(2u * gl_WorkGroupID.x + (warp & 1u)) * 8;
    const int oy = int(2u * gl_WorkGroupID.y + (warp >> 1)) * 4;
    const int px = clamp(ox + int(r % 8u), 0, int(vkrr_p.width) - 1);
    const int py = clamp(oy + int(r / 8u), 0, int(vkrr_p.height) - 1);
    const int src = vkrr_handle(vkrr_p.src);

    // 1. RMS norm of token r: lane t's partial sums over channels 4t.., 16 + 4t..
    uint x[C];
    for (int c4 = 0; c4 < 8; c4++) {
        vec4 v = vkrr_tex2d_int(src, px * 8 + c4, py);
        x[4 * c4] = vkrr_f2h(v.x);
        x[4 * c4 + 1] = vkrr_f2h(v.y);
        x[4 * c4 + 2] = vkrr_f2h(v.z);
        x[4 * c4 + 3] = vkrr_f2h(v.w);
    }
    float part[4];
    for (int t = 0; t < 4; t++) {
        float ss = 0.0;
        for (int c = 0; c < 8; c++) {
            float xv = vkrr_h2f(x[(c < 4 ? 4 * t : 16 + 4 * t) + c % 4]);
            precise float sq = xv * xv;
            precise float ns = ss + sq;
            ss = ns;
        }
        part[t] = ss;
    }
    float ss = quad_sum(part[0], part[1], part[2], part[3]);
    uint tau_ch = vkrr_p.tau_ch;
    float ms = vkrr_round_h(vkrr_div_approx_ftz(vkrr_round_h(ss), vkrr_h2f(tau_ch >> 16)));
    precise float mse = ms + vkrr_h2f(vkrr_p.eps_pad & 0xffffu);
    float inv = vkrr_round_h(vkrr_rsqrt_approx(vkrr_round_h(mse)));
    uint a[8];
    for (int w = 0; w < 8; w++) {
        uint q[4];
        for (int i = 0; i < 4; i++) {
            precise float xn = vkrr_h2f(x[4 * w + i]) * inv;
            q[i] = e4m3_of_h(vkrr_f2h(xn), false);
        }
        a[w] = pack4(q);
    }

    // 2. Q, K, V of token r (requantised); K and V to shared memory
    uint qrow[8];
    for (int w = 0; w < 8; w++) {
        uint q[4], k[4], v[4];
        for (int i = 0; i < 4; i++) {
            uint o = uint(4 * w + i);
            q[i] = e4m3_of_h(mma_w(a, 0u, W_BIAS, o), false);
            k[i] = e4m3_of_h(mma_w(a, W_K, W_BIAS + 32u, o), false);
            v[i] = e4m3_of_h(mma_w(a, W_V, W_BIAS + 64u, o), false);
        }
        qrow[w] = pack4(q);
        s_k[warp][r][w] = pack4(k);
        s_v[warp][r][w] = pack4(v);
    }
    barrier();

    // 3-4. scores of query r and the cubic softmax; P's row, requantised (.relu)
    float tau = vkrr_round_h(vkrr_ex2_approx(vkrr_h2f(tau_ch & 0xffffu)));
    float e[32];
    for (uint j = 0u; j < 32u; j++) {
        uint b[8];
        for (int w = 0; w < 8; w++)
            b[w] = s_k[warp][j][w];
        precise float v = vkrr_h2f(vkrr_tc_mma_e4m3_f16(qrow, b, 0u)) * tau;
        e[j] = exp2_cubic(v);
    }
    for (int t = 0; t < 4; t++) { // lane t's keys 8kt + 2t, + 1, kt = 0..3, in that order
        float s = 0.0;
        for (int c = 0; c < 8; c++) {
            precise float ns = s + e[8 * (c / 2) + 2 * t + c % 2];
            s = ns;
        }
        part[t] = s;
    }
    float sum = quad_sum(part[0], part[1], part[2], part[3]);
    float rinv = vkrr_round_h(vkrr_rcp_approx(vkrr_round_h(sum)));
    uint prow[8];
    for (int w = 0; w < 8; w++) {
        uint p[4];
        for (int i = 0; i < 4; i++) {
            precise float pv = e[4 * w + i] * rinv;
            p[i] = e4m3_of_h(vkrr_f2h(pv), true);
        }
        prow[w] = pack4(p);
    }

    // 5. O = P V: V's column ch over the keys
    uint orow[8];
    for (int w = 0; w < 8; w++) {
        uint o[4];
        for (int i = 0; i < 4; i++) {
            uint ch = uint(4 * w + i), b[8];
            for (int kw = 0; kw < 8; kw++) {
                uint k4[4];
                for (int kb = 0; kb < 4; kb++)
                    k4[kb] = (s_v[warp][4 * kw + kb][ch >> 2] >> (8u * (ch & 3u))) & 0xffu;
                b[kw] = pack4(k4);
            }
            o[i] = e4m3_of_h(vkrr_tc_mma_e4m3_f16(prow, b, 0u), false);
        }
        orow[w] = pack4(o);
    }

    // 6. Y = O Wo + bo; out = x + Y (f16 add), branch = Y; a texel (four
    // channels) a store; past the image's edge the store is dropped (.zero:
    // the surface's bounds, which the storage image's are)
    const int out_s = vkrr_surf_handle(vkrr_p.out_), br_s = vkrr_surf_handle(vkrr_p.branch);
    const int qx = ox + int(r % 8u), qy = oy + int(r / 8u);
    for (int c4 = 0; c4 < 8; c4++) {
        uvec4 yv, ov; // (not y: the store macros' parameter names)
        for (int i = 0; i < 4; i++) {
            uint ch = uint(4 * c4 + i);
            yv[i] = mma_w(orow, W_O, W_BIAS + 96u, ch);
            ov[i] = vkrr_hadd(x[ch], yv[i]);
        }
        int xb = (qx * 8 + c4) * 8;
        vkrr_surf2d_write_h4(out_s, ov, xb, qy);
        vkrr_surf2d_write_h4(br_s, yv, xb, qy);
    }
}
