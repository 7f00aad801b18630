#version 460
#extension GL_EXT_control_flow_attributes : require
// Port of cuda_dldn_rrref_output_kernel (rrref_output.cu): 3x3 conv -> 26 f16
// logits, softmax via ex2.approx without max subtraction, weighted sum of 25
// point taps + the bilinear history (one fmaf per channel and term), f16 RNE
// texel written to two HALF x4 surfaces at byte x = 8x.  Exact except through
// ex2.approx (vkrr_ex2_approx: see math.glsl).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"
#include "tex.glsl"
#include "surface.glsl"

VKRR_PARAMS(RrrefOutputParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    int x = int(gid.x), y = int(gid.y);
    if (x >= int(vkrr_p.width) || y >= int(vkrr_p.height))
        return;
    VkrrF16Ptr src = VkrrF16Ptr(vkrr_p.src);
    VkrrE4m3Ptr w = VkrrE4m3Ptr(vkrr_p.weights);
    int colour = vkrr_handle(vkrr_p.colour);
    uint plane = vkrr_p.width * vkrr_p.height;
    bool nan = false;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, int(vkrr_p.width) - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, int(vkrr_p.height) - 1);
        for (int c = 0; c < RRREF_C_DEC; c++)
            rr_ka[tap * RRREF_C_DEC + c] = rr_e4m3_fixed(
                vkrr_e4m3_from_h(vkrr_ld_h(src, uint(c) * plane + uint(sy) * vkrr_p.width + uint(sx))), nan);
    }
    float e[RRREF_N_LOGITS];
    float s = 0.0;
    for (int o = 0; o < RRREF_N_LOGITS; o++) {
        uint l = rr_conv_channel(nan, w, uint(o * RRREF_K_OUT), RRREF_K_OUT,
                                 uint(w.v[RRREF_N_LOGITS * RRREF_K_OUT + o]));
        e[o] = vkrr_ex2_approx(vkrr_h2f(l));
        precise float ns = s + e[o];
        s = ns;
    }
    float inv = vkrr_div(1.0, s);
    precise float px = float(x) + 0.5, py = float(y) + 0.5;
    float r = 0.0, g = 0.0, b = 0.0;
    // One call of vkrr_tex2d (it holds every filter: the sampler state is
    // vkrr's, known at run time only) for the filter's taps of the colour,
    // then the motion, then the history at the pixel the motion points to;
    // the sums in CUDA's order.
    int motion = vkrr_handle(vkrr_p.motion), history = vkrr_handle(vkrr_p.history);
    vec2 mv = vec2(0.0);
    [[dont_unroll]] for (int t = 0; t < RRREF_N_TAPS + 2; t++) {
        precise float cx = px + float(t % 5 - RRREF_FILTER_R);
        precise float cy = py + float(t / 5 - RRREF_FILTER_R);
        precise float hx = px + mv.x, hy = py + mv.y;
        bool tap = t < RRREF_N_TAPS, hist = t == RRREF_N_TAPS + 1;
        vec4 c = vkrr_tex2d(tap ? colour : hist ? history : motion, tap ? cx : hist ? hx : px,
                            tap ? cy : hist ? hy : py);
        if (t == RRREF_N_TAPS) {
            mv = c.xy;
            continue;
        }
        precise float wt = e[hist ? RRREF_N_TAPS : t] * inv; /* e[RRREF_N_TAPS]: the history's */
        r = vkrr_fma(wt, c.x, r);
        g = vkrr_fma(wt, c.y, g);
        b = vkrr_fma(wt, c.z, b);
    }
    uvec4 o = uvec4(vkrr_f2h(r), vkrr_f2h(g), vkrr_f2h(b), 0x3c00u);
    vkrr_surf2d_write_h4(vkrr_surf_handle(vkrr_p.out_), o, x * 8, y);
    vkrr_surf2d_write_h4(vkrr_surf_handle(vkrr_p.history_out), o, x * 8, y);
}
