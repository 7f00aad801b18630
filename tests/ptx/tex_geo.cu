// tex_geo.cu - textures and surfaces on every geometry for the PTX
// interpreter's tests (tests/test_ptx_texgeo.c builds the arrays and checks):
// tex1D, tex1DLayered, tex2DLayered, tex3D, texCubemap, texCubemapLayered
// (tex .1d .a1d .a2d .3d .cube .acube), integer results, integer coordinates
// and tld4 on .a2d/.cube (inline PTX: CUDA has no call for them), 1D and 3D
// linear filtering, surface stores and loads on .1d .3d .a1d .a2d (cubemap
// faces through .a2d) with vectors and b8..b64, sured on .1d/.3d, txq/suq.
#include <stdint.h>

struct Q {
    float x, y, z, cx, cy, cz; // texel-space coordinates; a cubemap direction
    int layer, ix, iy, iz, pad0, pad1;
};

#define POINT_NOUT 13

extern "C" __global__ void k_point(cudaTextureObject_t t1, cudaTextureObject_t t1l, cudaTextureObject_t t2,
                                   cudaTextureObject_t t2l, cudaTextureObject_t t3, cudaTextureObject_t tc,
                                   cudaTextureObject_t tcl, cudaTextureObject_t t3i, const Q *q, float *out,
                                   int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Q a = q[i];
    float *o = out + (size_t)i * POINT_NOUT;
    o[0] = tex1D<float>(t1, a.x);
    o[1] = tex1DLayered<float>(t1l, a.x, a.layer);
    float2 l2 = tex2DLayered<float2>(t2l, a.x, a.y, a.layer);
    o[2] = l2.x;
    o[3] = l2.y;
    o[4] = tex3D<float>(t3, a.x, a.y, a.z);
    o[5] = texCubemap<float>(tc, a.cx, a.cy, a.cz);
    o[6] = texCubemapLayered<float>(tcl, a.cx, a.cy, a.cz, a.layer);
    o[7] = __int_as_float(tex3D<int>(t3i, a.x, a.y, a.z));
    float r0, r1, r2, r3;
    asm("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
        : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t1), "r"(a.ix));
    o[8] = r0;
    asm("tex.3d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
        : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t3), "r"(a.ix), "r"(a.iy), "r"(a.iz));
    o[9] = r0;
    asm("tex.a2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
        : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t2l), "r"(a.layer), "r"(a.ix), "r"(a.iy));
    o[10] = r1;
    asm("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
        : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3) : "l"(t2), "r"(a.ix), "r"(a.iy));
    o[11] = r0;
    o[12] = r2 + r3; // channels the array lacks
}

// linear filtering: 1D at x, 3D at (cx, cy, cz)
extern "C" __global__ void k_linear(cudaTextureObject_t t1f, cudaTextureObject_t t3f, const Q *q, float *out,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Q a = q[i];
    out[2 * i] = tex1D<float>(t1f, a.x);
    out[2 * i + 1] = tex3D<float>(t3f, a.cx, a.cy, a.cz);
}

// tld4: .g of a 2D layered array, .r of a cubemap face
extern "C" __global__ void k_gather(cudaTextureObject_t t2l, cudaTextureObject_t tc, const Q *q, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Q a = q[i];
    float *o = out + (size_t)i * 8;
    asm("tld4.g.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
        : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3]) : "l"(t2l), "r"(a.layer), "f"(a.x), "f"(a.y));
    asm("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
        : "=f"(o[4]), "=f"(o[5]), "=f"(o[6]), "=f"(o[7]) : "l"(tc), "f"(a.cx), "f"(a.cy), "f"(a.cz));
}

// every thread stores into its own texel of each surface: s1 8 u32, s3 4x3x2
// uint2, s1l 6 x 3 layers of u8, s2l 3x2 x 4 layers of u64, sc a 2x2 cubemap
// of uint4
extern "C" __global__ void k_surf_write(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t s1l,
                                        cudaSurfaceObject_t s2l, cudaSurfaceObject_t sc)
{
    unsigned t = threadIdx.x;
    if (t < 8)
        surf1Dwrite(0x100u + t, s1, (int)t * 4);
    surf3Dwrite(make_uint2(0x300u + t, 0x3000u + t), s3, (int)(t % 4) * 8, (int)(t / 4 % 3), (int)(t / 12));
    if (t < 18)
        surf1DLayeredwrite((unsigned char)(0x40 + t), s1l, (int)(t % 6), (int)(t / 6));
    surf2DLayeredwrite(0x5000000000ull + t, s2l, (int)(t % 3) * 8, (int)(t / 3 % 2), (int)(t / 6));
    surfCubemapwrite(make_uint4(t, t + 100, t + 200, t + 300), sc, (int)(t % 2) * 16, (int)(t / 2 % 2),
                     (int)(t / 4));
}

// every thread loads its texel of each surface back, then out of range:
// the layer clamped, z read as zero
extern "C" __global__ void k_surf_read(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t s1l,
                                       cudaSurfaceObject_t s2l, cudaSurfaceObject_t sc, uint32_t *out)
{
    unsigned t = threadIdx.x;
    uint32_t *o = out + t * 12;
    o[0] = t < 8 ? surf1Dread<uint32_t>(s1, (int)t * 4) : 0;
    uint2 v3 = surf3Dread<uint2>(s3, (int)(t % 4) * 8, (int)(t / 4 % 3), (int)(t / 12));
    o[1] = v3.x;
    o[2] = v3.y;
    o[3] = t < 18 ? surf1DLayeredread<unsigned char>(s1l, (int)(t % 6), (int)(t / 6)) : 0;
    unsigned long long v2 = surf2DLayeredread<unsigned long long>(s2l, (int)(t % 3) * 8, (int)(t / 3 % 2),
                                                                  (int)(t / 6));
    o[4] = (uint32_t)v2;
    o[5] = (uint32_t)(v2 >> 32);
    uint4 vc = surfCubemapread<uint4>(sc, (int)(t % 2) * 16, (int)(t / 2 % 2), (int)(t / 4));
    o[6] = vc.x;
    o[7] = vc.w;
    o[8] = (uint32_t)surf2DLayeredread<unsigned long long>(s2l, 0, 1, 100 + (int)t, cudaBoundaryModeClamp);
    o[9] = surf3Dread<uint2>(s3, 0, 0, 2 + (int)t, cudaBoundaryModeZero).y;
    o[10] = surf1DLayeredread<unsigned char>(s1l, 5, -1 - (int)t, cudaBoundaryModeClamp);
    o[11] = 0;
}

// sured: add into a 1D u32 surface (8 texels, three lanes each), min into
// plane 0 of a 2x2x2 s64 surface, add into plane 1 through a clamped z
extern "C" __global__ void k_sured(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3)
{
    unsigned t = threadIdx.x;
    int x1 = (int)(t % 8) * 4, x3 = (int)(t % 2) * 8, y3 = (int)(t / 2 % 2);
    long long v = (long long)t - 12;
    asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(x1), "r"(t) : "memory");
    asm volatile("sured.b.min.3d.s64.trap [%0, {%1, %2, %3, %3}], %4;" ::"l"(s3), "r"(x3), "r"(y3), "r"(0),
                 "l"(v) : "memory");
    asm volatile("sured.b.add.3d.u64.clamp [%0, {%1, %2, %3, %3}], %4;" ::"l"(s3), "r"(x3), "r"(y3), "r"(9),
                 "l"(1ull) : "memory");
}

#define TXQ(q, h) ({ uint32_t r_; asm("txq." q ".b32 %0, [%1];" : "=r"(r_) : "l"(h)); r_; })
#define SUQ(q, h) ({ uint32_t r_; asm("suq." q ".b32 %0, [%1];" : "=r"(r_) : "l"(h)); r_; })

extern "C" __global__ void k_query(cudaTextureObject_t t1, cudaTextureObject_t t1l, cudaTextureObject_t t2l,
                                   cudaTextureObject_t t3f, cudaTextureObject_t tc, cudaTextureObject_t tcl,
                                   cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t s1l,
                                   cudaSurfaceObject_t s2l, uint32_t *out)
{
    out[0] = TXQ("depth", t3f);
    out[1] = TXQ("array_size", t1l);
    out[2] = TXQ("array_size", t2l);
    out[3] = TXQ("array_size", tcl);
    out[4] = TXQ("array_size", tc);
    out[5] = TXQ("array_size", t3f);
    out[6] = TXQ("num_mipmap_levels", t3f);
    out[7] = TXQ("num_samples", t3f);
    out[8] = TXQ("addr_mode_2", t3f);
    out[9] = TXQ("depth", t2l);
    out[10] = TXQ("height", t1);
    out[11] = SUQ("depth", s3);
    out[12] = SUQ("array_size", s2l);
    out[13] = SUQ("array_size", s3);
    out[14] = SUQ("width", s1);
    out[15] = SUQ("depth", s1l);
}

// an out-of-range z, then an out-of-range layer, in the default (trap) mode
extern "C" __global__ void k_trap3(cudaSurfaceObject_t s3, int z)
{
    surf3Dwrite(make_uint2(1, 2), s3, 0, 0, z);
}

extern "C" __global__ void k_trap_layer(cudaSurfaceObject_t s1l, int layer)
{
    surf1DLayeredwrite((unsigned char)1, s1l, 0, layer);
}
