#version 460
// Port of cuda_dldn_rrref_tok0_kernel (rrref_tok.cu): token (x, y) = enc1's 16
// f16 planes, down's 8 e4m3 planes as f16 (k * 2^-9 rounded once: exact; the
// NaN code -> 0x7fff), 8 zeros; texel (8x + q, y) of the HALF x4 surface holds
// channels 4q..4q+3.  Exact: no arithmetic beyond exact conversions.
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"
#include "surface.glsl"

VKRR_PARAMS(RrrefTokParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    int x = int(gid.x), y = int(gid.y);
    if (x >= int(vkrr_p.width) || y >= int(vkrr_p.height))
        return;
    VkrrF16Ptr e1 = VkrrF16Ptr(vkrr_p.enc1);
    VkrrE4m3Ptr dn = VkrrE4m3Ptr(vkrr_p.down);
    uint plane = vkrr_p.width * vkrr_p.height, at = uint(y) * vkrr_p.width + uint(x);
    int surf = vkrr_surf_handle(vkrr_p.tokens);
    for (int q = 0; q < 8; q++) {
        uint h[4];
        for (int i = 0; i < 4; i++) {
            int c = 4 * q + i;
            if (c < RRREF_C_E1) {
                h[i] = vkrr_ld_h(e1, uint(c) * plane + at);
            } else if (c < RRREF_C_E1 + RRREF_C_E0) {
                bool nan = false;
                int k = rr_e4m3_fixed(vkrr_ld_e4m3(dn, uint(c - RRREF_C_E1) * plane + at), nan);
                h[i] = nan ? 0x7fffu : rr_fixed_to_half(int64_t(k) << 9);
            } else {
                h[i] = 0u;
            }
        }
        vkrr_surf2d_write_h4(surf, uvec4(h[0], h[1], h[2], h[3]), (x * 8 + q) * 8, y);
    }
}
