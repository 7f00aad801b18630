// cpu_probe.cpp - C entry points into cuda_cpu.h for tests (see cpu_probe.h).
#include "cpu_probe.h"

#include "cuda_cpu.h"
extern "C" {
#include "cuformat.h"
}

extern "C" void vkrr_cpu_probe_tex2d(const vkrr_cpu_probe_tex *p, float x, float y, float out[4])
{
    cpu_texture t;
    t.data = (const unsigned char *)p->data;
    t.width = p->width;
    t.height = p->height;
    t.channels = p->channels;
    t.format = p->format;
    t.texel_bytes = vkrr_cuformat_texel_bytes(p->format, p->channels);
    t.filter = p->filter;
    t.address[0] = p->address[0];
    t.address[1] = p->address[1];
    t.normalized = p->normalized;
    t.read_as_integer = p->read_as_integer;
    float4 r = tex2D<float4>((cudaTextureObject_t)(uintptr_t)&t, x, y);
    out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
}

struct probe8 {
    unsigned char b[8];
};
struct probe4 {
    unsigned char b[4];
};
struct probe2 {
    unsigned char b[2];
};

extern "C" bool vkrr_cpu_probe_surf_write(void *data, uint32_t width, uint32_t height,
                                          uint32_t texel_bytes, const void *v, uint32_t bytes,
                                          int x_bytes, int y)
{
    int fault = 0;
    cpu_surface s;
    s.data = (unsigned char *)data;
    s.width = width;
    s.height = height;
    s.texel_bytes = texel_bytes;
    s.fault = &fault;
    cudaSurfaceObject_t o = (cudaSurfaceObject_t)(uintptr_t)&s;
    if (bytes == 8) {
        probe8 p;
        memcpy(&p, v, 8);
        surf2Dwrite(p, o, x_bytes, y);
    } else if (bytes == 4) {
        probe4 p;
        memcpy(&p, v, 4);
        surf2Dwrite(p, o, x_bytes, y);
    } else {
        probe2 p;
        memcpy(&p, v, 2);
        surf2Dwrite(p, o, x_bytes, y);
    }
    return fault == 0;
}

extern "C" uint16_t vkrr_cpu_probe_f2h(float f) { return __float2half_rn(f).x; }
extern "C" float vkrr_cpu_probe_h2f(uint16_t h) { return __half2float(__ushort_as_half(h)); }
extern "C" uint16_t vkrr_cpu_probe_hadd(uint16_t a, uint16_t b)
{
    return __hadd(__ushort_as_half(a), __ushort_as_half(b)).x;
}
extern "C" uint8_t vkrr_cpu_probe_h2e4m3(uint16_t h, bool satfinite)
{
    return __nv_cvt_halfraw_to_fp8(__half_raw{h}, satfinite ? __NV_SATFINITE : __NV_NOSAT, __NV_E4M3);
}
extern "C" uint16_t vkrr_cpu_probe_e4m32h(uint8_t v) { return __nv_cvt_fp8_to_halfraw(v, __NV_E4M3).x; }
