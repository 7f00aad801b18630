/* sampler_fit.c - fitting unknown sampler state by running the original
 * (see sampler_fit.h). */
#include "sampler_fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSES 3
#define NCAND 12

static const vkrr_sampler candidates[NCAND] = {
    /* CUDA's defaults first: ties keep them */
    {.filter = VKRR_FILTER_POINT, .address = {1, 1, 1}},
    {.filter = VKRR_FILTER_LINEAR, .address = {1, 1, 1}},
    {.filter = VKRR_FILTER_POINT, .address = {3, 3, 3}},
    {.filter = VKRR_FILTER_LINEAR, .address = {3, 3, 3}},
    {.filter = VKRR_FILTER_POINT, .address = {1, 1, 1}, .normalized = true},
    {.filter = VKRR_FILTER_LINEAR, .address = {1, 1, 1}, .normalized = true},
    {.filter = VKRR_FILTER_POINT, .address = {0, 0, 0}, .normalized = true},
    {.filter = VKRR_FILTER_LINEAR, .address = {0, 0, 0}, .normalized = true},
    {.filter = VKRR_FILTER_POINT, .address = {2, 2, 2}, .normalized = true},
    {.filter = VKRR_FILTER_LINEAR, .address = {2, 2, 2}, .normalized = true},
    {.filter = VKRR_FILTER_POINT, .address = {3, 3, 3}, .normalized = true},
    {.filter = VKRR_FILTER_LINEAR, .address = {3, 3, 3}, .normalized = true},
};

static bool fits(const vkrr_image *im)
{
    return im->kind == VKRR_IMAGE_TEXTURE && !im->sampler.from_log && im->resource == VKRR_TEXRES_ARRAY;
}

bool vkrr_sampler_fit_needed(const vkrr_launch *l)
{
    for (uint32_t i = 0; i < l->nimages; i++)
        if (fits(&l->images[i]))
            return true;
    return false;
}

/* Candidate c for image im, keeping what the log's absence cannot change
 * (integer reads); false when c cannot apply (filtering an integer read). */
static bool candidate(const vkrr_image *im, unsigned c, vkrr_sampler *out)
{
    if (c >= NCAND)
        return false;
    if (im->sampler.read_as_integer && candidates[c].filter != VKRR_FILTER_POINT)
        return false;
    *out = candidates[c];
    out->read_as_integer = im->sampler.read_as_integer;
    out->srgb = im->sampler.srgb;
    out->from_log = false;
    return true;
}

bool vkrr_sampler_fit_candidate(const vkrr_launch *l, uint32_t i, unsigned c, vkrr_sampler *out)
{
    return i < l->nimages && candidate(&l->images[i], c, out);
}

void vkrr_sampler_fit_apply(const vkrr_sampler_fit *fit, vkrr_replay *r)
{
    for (uint32_t i = 0; fit->state && i < fit->n && i < r->nimages; i++)
        if (fit->fitted[i])
            r->images[i].sampler = fit->state[i];
}

/* "arg 8: linear, clamp, normalized" of each fitted texture, and with
 * `alike`, after each whether others reproduce the capture too. */
static void describe(const vkrr_launch *l, const vkrr_sampler_fit *fit, bool alike, char *buf,
                     size_t cap)
{
    static const char *const mode[] = {"wrap", "clamp", "mirror", "border"};
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < fit->n && n < cap; i++) {
        if (!fit->fitted[i])
            continue;
        unsigned others = (unsigned)__builtin_popcount(fit->also[i]);
        n += (size_t)snprintf(buf + n, cap - n, "%sarg %u: %s, %s, %s", n ? "; " : "",
                              l->images[i].offset, fit->state[i].filter ? "linear" : "point",
                              mode[fit->state[i].address[0] & 3],
                              fit->state[i].normalized ? "normalized" : "unnormalized");
        if (alike && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, others ? " (or %u other%s)" : " (only it)", others,
                                  others == 1 ? "" : "s");
    }
}

/* One run of the original with fit's states: the elements that differ. */
static vkrr_status measure(const vkrr_sampler_measure *m, vkrr_sampler_fit *fit, uint64_t *d,
                           vkrr_error *err)
{
    fit->runs++;
    return m->distance(m->ctx, fit, d, err);
}

/* From the defaults, one texture at a time: the candidate nearest the capture. */
static vkrr_status descend(const vkrr_sampler_measure *m, const vkrr_launch *l, vkrr_sampler_fit *fit,
                           uint64_t *best, vkrr_error *err)
{
    vkrr_status s = measure(m, fit, best, err);
    for (int pass = 0; s == VKRR_OK && *best && pass < PASSES; pass++) {
        bool moved = false;
        for (uint32_t i = 0; s == VKRR_OK && *best && i < fit->n; i++) {
            if (!fit->fitted[i])
                continue;
            vkrr_sampler keep = fit->state[i];
            for (unsigned c = 0; s == VKRR_OK && *best && c < NCAND; c++) {
                vkrr_sampler cand, held = fit->state[i];
                if (!candidate(&l->images[i], c, &cand) || !memcmp(&cand, &held, sizeof cand))
                    continue;
                fit->state[i] = cand;
                uint64_t d;
                if ((s = measure(m, fit, &d, err)) == VKRR_OK && d < *best) {
                    *best = d;
                    keep = cand;
                    moved = true;
                }
                fit->state[i] = keep;
            }
        }
        if (!moved)
            break;
    }
    return s;
}

/* With the capture reproduced: which other candidates of each texture
 * reproduce it too, the rest held (fit->also); *any: some do. */
static vkrr_status other_fits(const vkrr_sampler_measure *m, const vkrr_launch *l, vkrr_sampler_fit *fit,
                              bool *any, vkrr_error *err)
{
    vkrr_status s = VKRR_OK;
    *any = false;
    for (uint32_t i = 0; s == VKRR_OK && i < fit->n; i++) {
        if (!fit->fitted[i])
            continue;
        vkrr_sampler found = fit->state[i];
        for (unsigned c = 0; s == VKRR_OK && c < NCAND; c++) {
            vkrr_sampler cand;
            if (!candidate(&l->images[i], c, &cand) || !memcmp(&cand, &found, sizeof cand))
                continue;
            fit->state[i] = cand;
            uint64_t d;
            if ((s = measure(m, fit, &d, err)) == VKRR_OK && d == 0) {
                fit->also[i] |= (uint16_t)(1u << c);
                *any = true;
            }
        }
        fit->state[i] = found;
    }
    return s;
}

vkrr_status vkrr_sampler_fit_launch(const vkrr_sampler_measure *m, const vkrr_launch *l,
                                    vkrr_sampler_fit *fit, vkrr_error *err)
{
    memset(fit, 0, sizeof *fit);
    if (!vkrr_sampler_fit_needed(l))
        return VKRR_OK;
    fit->n = l->nimages;
    fit->state = calloc(l->nimages, sizeof *fit->state);
    fit->fitted = calloc(l->nimages, sizeof *fit->fitted);
    fit->also = calloc(l->nimages, sizeof *fit->also);
    if (!fit->state || !fit->fitted || !fit->also)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    for (uint32_t i = 0; i < l->nimages; i++) {
        fit->state[i] = l->images[i].sampler;
        fit->fitted[i] = fits(&l->images[i]);
        if (fit->fitted[i])
            candidate(&l->images[i], 0, &fit->state[i]);
    }
    fit->verdict = VKRR_FIT_UNKNOWN;
    if (!m) {
        snprintf(fit->note, sizeof fit->note, "sampler state unknown: the log does not give it and "
                 "no original kernel could run to find it (--ref ptx, or the kernel's PTX); the "
                 "port ran with CUDA's defaults (point, clamp, unnormalized)");
        return VKRR_OK;
    }
    uint64_t best = 0;
    bool any = false;
    char found[384];
    vkrr_status s = descend(m, l, fit, &best, err);
    if (s == VKRR_OK && best == 0)
        s = other_fits(m, l, fit, &any, err);
    if (s != VKRR_OK)
        return s;
    describe(l, fit, best == 0, found, sizeof found);
    if (best == UINT64_MAX)
        snprintf(fit->note, sizeof fit->note, "sampler state unknown: the original kernel did not "
                 "run on %s", m->name);
    else if (best)
        snprintf(fit->note, sizeof fit->note, "sampler state unknown: no state tried makes the "
                 "original (%s) reproduce the capture (nearest: %s, %llu elements differ; %u runs)",
                 m->name, found, (unsigned long long)best, fit->runs);
    else
        fit->verdict = any ? VKRR_FIT_AMBIGUOUS : VKRR_FIT_INFERRED,
        snprintf(fit->note, sizeof fit->note, "sampler state %s by running the original on %s (%u "
                 "runs; the log does not give it): %s%s", any ? "ambiguous" : "inferred", m->name,
                 fit->runs, found, any ? "; where others reproduce the capture too, the launch never "
                                         "reads where they differ" : "");
    return VKRR_OK;
}

void vkrr_sampler_fit_settle(const vkrr_sampler_fit *fit, vkrr_launch_result *r)
{
    if (fit->verdict == VKRR_FIT_NONE)
        return;
    vkrr_launch_note(r, "%s", fit->note);
    if (r->status != VKRR_LAUNCH_FAIL || fit->verdict == VKRR_FIT_INFERRED)
        return;
    if (fit->verdict == VKRR_FIT_AMBIGUOUS && fit->port_fails_all) {
        vkrr_launch_note(r, "FAIL under each of those states");
        return;
    }
    r->status = VKRR_LAUNCH_ERROR;
    vkrr_launch_note(r, fit->verdict == VKRR_FIT_AMBIGUOUS
                            ? "not a FAIL: under another state that reproduces the capture, the "
                              "port agrees with it"
                            : "not a FAIL: the state it ran with is a guess");
}
