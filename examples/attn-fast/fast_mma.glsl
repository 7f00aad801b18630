// fast_mma.glsl - the attention block's mma summed the way a fast port sums
// it: in f32, one product at a time in k order, from c (what a cooperative-
// matrix or WMMA port with an f32 accumulator does, in its own order), and
// rounded to f16 at the end.  The products of two e4m3 codes are exact in
// f32; the sum is not the tensor core's (aligned to the largest exponent,
// truncated to F bits, summed exactly, rounded once; tensorcore.glsl).
// make-port.sh puts this after the port's includes, so the port's every
// vkrr_tc_mma_e4m3_f16 call becomes attn_fast_mma.
uint attn_fast_mma(uint a[8], uint b[8], uint c_h)
{
    float acc = vkrr_h2f(c_h);
    for (int k = 0; k < 32; k++) {
        uint x = (a[k >> 2] >> (8 * (k & 3))) & 0xffu, y = (b[k >> 2] >> (8 * (k & 3))) & 0xffu;
        precise float p = vkrr_e4m3_to_f(x) * vkrr_e4m3_to_f(y);
        precise float s = acc + p;
        acc = s;
    }
    return vkrr_f2h(acc);
}
#define vkrr_tc_mma_e4m3_f16 attn_fast_mma
