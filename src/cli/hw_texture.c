/* hw_texture.c - `vkrr hw measure`'s survey of the bilinear filter: textures
 * of every format, channel count and address mode CUDA filters, sampled on
 * the hardware (src/hw/ptx/measure_tex.ptx) and compared with the measured
 * model's steps (src/hw/texfilter.h) and with vkrr's f32 filter, value by
 * value.  It reports, it does not decide: texfilter.h names the cases vkrr
 * models. */
#include "hw_texture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_texture.h"
#include "cuformat.h"
#include "hw_tables.h"

enum { TW = 13, TH = 9 };

/* One texel channel's bytes, random but across magnitudes: f16/f32 values
 * from 2^-8 to 2^9 of both signs (a large texel beside small ones is what
 * the model's truncation is about), integers over their range. */
static void random_texels(unsigned format, unsigned channels, uint8_t *data, uint64_t *s)
{
    unsigned cb = vkrr_cuformat_texel_bytes(format, channels) / channels;
    for (unsigned i = 0; i < TW * TH * channels; i++) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(*s >> 32);
        float f = ldexpf((float)(r & 0xfffff) / 1048576.0f + 1.0f, (int)(r >> 20) % 18 - 8);
        if (r & 0x80000000u)
            f = -f;
        uint8_t *p = data + (size_t)i * cb;
        if (format == 16) {
            uint16_t h = vkrr_f32_to_f16_rne(f);
            memcpy(p, &h, 2);
        } else if (format == 32) {
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &r, cb);
        }
    }
}

/* Coordinates over the texture and a texel beyond it, some on exact 8-bit steps. */
static void random_coords(float *xy, uint32_t n, bool normalized, uint64_t *s)
{
    for (uint32_t i = 0; i < n; i++) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        float a = (float)((*s >> 40) & 0xffffff) / 16777216.0f, b = (float)((*s >> 16) & 0xffffff) / 16777216.0f;
        float x = a * (TW + 2) - 1.0f, y = b * (TH + 2) - 1.0f;
        if (i % 4 == 0) {
            x = floorf(x) + 0.5f + (float)((*s >> 8) & 255) / 256.0f;
            y = floorf(y) + 0.5f;
        }
        xy[2 * i] = normalized ? x / TW : x;
        xy[2 * i + 1] = normalized ? y / TH : y;
    }
}

/* One case on the hardware, compared with the model's steps under weight
 * fraction bits qlo..qhi (res: the q that reproduces most values) and with
 * the f32 filter. */
static vkrr_status survey_case(const vkrr_backend *be, const vkrr_hw_texcase_run *c, uint32_t n,
                               unsigned qlo, unsigned qhi, vkrr_hw_texcase_result *res,
                               uint64_t *seed, vkrr_error *err)
{
    unsigned tb = vkrr_cuformat_texel_bytes(c->format, c->channels);
    uint8_t *texels = malloc((size_t)TW * TH * tb);
    float *xy = malloc((size_t)n * 8), *out = malloc((size_t)n * 16);
    if (!texels || !xy || !out) {
        free(texels);
        free(xy);
        free(out);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "texture survey");
    }
    random_texels(c->format, c->channels, texels, seed);
    random_coords(xy, n, c->normalized, seed);
    const uint64_t coord_base = 0x300000000ull, out_base = 0x400000000ull, handle = 0x7e57;
    uint8_t args[28];
    memcpy(args, &handle, 8);
    memcpy(args + 8, &coord_base, 8);
    memcpy(args + 16, &out_base, 8);
    memcpy(args + 24, &n, 4);
    vkrr_replay_alloc allocs[2] = {{coord_base, (uint64_t)n * 8, xy, NULL, NULL},
                                   {out_base, (uint64_t)n * 16, NULL, out, NULL}};
    vkrr_pointer ptrs[2] = {{8, 0, 0}, {16, 1, 0}};
    vkrr_replay_image im = {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = handle, .width = TW,
                            .height = TH, .channels = c->channels, .format = c->format,
                            .sampler = {.filter = 1, .address = {c->address, c->address},
                                        .normalized = c->normalized, .from_log = true},
                            .pre = texels};
    vkrr_replay r = {.kernel = "vkrr_hw_texture", .grid = {(n + 127) / 128, 1, 1},
                     .block = {128, 1, 1}, .args = args, .args_bytes = sizeof args, .allocs = allocs,
                     .nallocs = 2, .pointers = ptrs, .npointers = 2, .images = &im, .nimages = 1};
    memset(res, 0, sizeof *res);
    vkrr_status st = be->run(be->self, &r, err);
    vkrr_cutex t = {.data = texels, .width = TW, .height = TH, .channels = c->channels,
                    .format = c->format, .texel_bytes = tb, .filter = 1,
                    .address = {c->address, c->address}, .normalized = c->normalized};
    for (unsigned q = qlo; st == VKRR_OK && q <= qhi; q++) {
        uint64_t model = 0, f32 = 0, values = 0;
        t.weight_bits = q;
        for (uint32_t i = 0; i < n; i++) {
            float m[4], f[4];
            vkrr_cutex_filter(&t, xy[2 * i], xy[2 * i + 1], VKRR_CUTEX_MODEL, m);
            if (q == qlo)
                vkrr_cutex_filter(&t, xy[2 * i], xy[2 * i + 1], VKRR_CUTEX_F32, f);
            for (unsigned k = 0; k < c->channels; k++) {
                uint32_t hb, mb, fb;
                memcpy(&hb, &out[4 * i + k], 4);
                memcpy(&mb, &m[k], 4);
                values++;
                model += hb == mb;
                if (q == qlo) {
                    memcpy(&fb, &f[k], 4);
                    f32 += hb == fb;
                }
            }
        }
        if (q == qlo) {
            res->values = values;
            res->f32 = f32;
        }
        if (q == qlo || model > res->model) {
            res->model = model;
            res->bits = q;
        }
    }
    free(texels);
    free(xy);
    free(out);
    return st;
}

vkrr_status vkrr_hw_texture_survey(const vkrr_backend *be, uint32_t samples, FILE *out,
                                   unsigned *model_exact, unsigned *bits, vkrr_error *err)
{
    static const unsigned formats[] = {1, 8, 2, 9, 16, 32}, chans[] = {1, 2, 4};
    static const struct { int address; bool normalized; } modes[] = {
        {1, false}, {3, false}, {1, true}, {0, true}, {2, true}, {3, true}};
    static const char *const mode_names[] = {"wrap", "clamp", "mirror", "border"};
    uint64_t seed = 0x5eed;
    *model_exact = 0;
    *bits = 0;
    /* the weights' fraction bits: those under which the modelled case (4-channel
     * HALF, clamp, unnormalized) is reproduced entirely, tried 2..12 */
    vkrr_hw_texcase_run mc = {16, 4, 1, false};
    vkrr_hw_texcase_result r = {0};
    vkrr_status st = survey_case(be, &mc, samples, VKRR_HW_TEX_BITS_MIN, VKRR_HW_TEX_BITS_MAX, &r,
                                 &seed, err);
    if (st != VKRR_OK)
        return st;
    if (r.values && r.model == r.values)
        *bits = r.bits;
    unsigned q = *bits ? *bits : 8;
    fprintf(out, "texture filter: the weights have %u fraction bits%s\n", q,
            *bits ? " (the modelled case reproduced entirely with them; tried 2..12)"
                  : ": no count of bits reproduces the modelled case entirely, so the modelled "
                    "steps do not hold on this GPU; compared with 8 below");
    fprintf(out, "texture filter (bilinear, %u samples a case): values the measured model's steps "
                 "reproduce | vkrr's f32 filter reproduces\n", samples);
    for (unsigned f = 0; f < 6; f++)
        for (unsigned c = 0; c < 3; c++)
            for (unsigned m = 0; m < 6; m++) {
                vkrr_hw_texcase_run tc = {formats[f], chans[c], modes[m].address, modes[m].normalized};
                st = survey_case(be, &tc, samples, q, q, &r, &seed, err);
                if (st != VKRR_OK)
                    return st;
                const vkrr_cuformat_info *fi = vkrr_cuformat_find(formats[f]);
                bool exact = r.values && r.model == r.values;
                *model_exact += exact;
                fprintf(out, "  %-20s x%u %-6s %-10s model %6.2f %%  f32 %6.2f %%%s\n",
                        fi ? fi->name : "?", chans[c], mode_names[modes[m].address],
                        modes[m].normalized ? "normalized" : "", 100.0 * r.model / (r.values ? r.values : 1),
                        100.0 * r.f32 / (r.values ? r.values : 1), exact ? "  model holds" : "");
            }
    return VKRR_OK;
}
