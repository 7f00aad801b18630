/* heatmap.c - reference | port | error panels, colour bar and labels, as PNG. */
#include "heatmap.h"
#include "mapfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image_write.h>

/* stb_easy_font is a header of static functions; we use two of them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#define MARGIN 8u
#define TEXT_SCALE 2u
#define LINE_H (12u * TEXT_SCALE)
#define BAR_W 16u
#define LABEL_W (8u * 6u * TEXT_SCALE) /* "5.0e-01" and a little room */
#define MAX_PANEL 1024u
#define MIN_PANEL 256u
/* a wrapped view's panels, at most: three of them, raw RGB, stay under 1 MB
 * (noise does not compress), whatever the capture's size */
#define WRAP_PANEL 320u
#define MAX_PIXELS (64u << 20)
#define TILE_LABEL_H 10u                         /* plane numbers: the font at scale 1 */

/* Pixels the text s takes at the picture's text scale. */
static uint32_t text_width(const char *s)
{
    return (uint32_t)stb_easy_font_width((char *)s) * TEXT_SCALE;
}

static const uint8_t BG[3] = {24, 24, 24}, FG[3] = {230, 230, 230};
static const uint8_t RING[3] = {255, 0, 0}, NANC[3] = {255, 0, 255};
static const uint8_t EXACT[3] = {0, 0, 0}, NONFINITE[3] = {255, 255, 255};

/* viridis at t = 0, 1/8, ..., 1 (the published 9-colour palette) */
static const uint8_t viridis9[9][3] = {
    {68, 1, 84},    {71, 45, 123},  {59, 82, 139},  {44, 114, 142}, {33, 145, 140},
    {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37},
};

void vkrr_heatmap_color(double t, uint8_t rgb[3])
{
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    /* quantise to the 256-entry map the picture uses, then interpolate anchors */
    double q = floor(t * 255.0 + 0.5) / 255.0 * 8.0;
    unsigned i = q >= 8 ? 7 : (unsigned)q;
    double f = q - i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)floor(viridis9[i][k] + f * (viridis9[i + 1][k] - viridis9[i][k]) + 0.5);
}

vkrr_status vkrr_heatmap_layout_of(const vkrr_heatmap_desc *d, vkrr_heatmap_layout *out,
                                   vkrr_error *err)
{
    const vkrr_view *v = &d->view;
    if (!v->width || !v->height || !v->planes || !v->channels)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->path, 0, -1, "heatmap of an empty view");
    if (!d->grid && d->plane >= v->planes)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->path, 0, -1, "plane %u of %u", d->plane,
                         v->planes);
    vkrr_heatmap_layout l = {0};
    uint32_t tiles = d->grid ? v->planes : 1;
    l.cols = (uint32_t)ceil(sqrt((double)tiles));
    l.rows = (tiles + l.cols - 1) / l.cols;
    uint64_t gw = (uint64_t)l.cols * v->width, gh = (uint64_t)l.rows * v->height;
    uint64_t big = gw > gh ? gw : gh;
    l.scale = 1;
    l.step = 1;
    if (big < MIN_PANEL)
        l.scale = (uint32_t)(MIN_PANEL / big > 16 ? 16 : MIN_PANEL / big);
    else if (big > (d->max_panel ? d->max_panel : MAX_PANEL))
        l.step = (uint32_t)((big + (d->max_panel ? d->max_panel : MAX_PANEL) - 1) /
                            (d->max_panel ? d->max_panel : MAX_PANEL));
    l.tile_w = (v->width + l.step - 1) / l.step * l.scale;
    l.tile_h = (v->height + l.step - 1) / l.step * l.scale;
    l.gap = tiles > 1 ? (l.tile_w >= 16 && l.tile_h >= 16 ? 4 : 2) : 0;
    l.label_h = tiles > 1 ? TILE_LABEL_H : 0; /* every plane tile carries its number */
    uint64_t pw = (uint64_t)l.cols * l.tile_w + (uint64_t)(l.cols - 1) * l.gap;
    uint64_t ph = (uint64_t)l.rows * (l.tile_h + l.label_h) + (uint64_t)(l.rows - 1) * l.gap;
    if (tiles > 1 && l.tile_w < 4 * 6) { /* a label ("p12") wider than its tile: widen the pitch */
        l.gap = 4 * 6 - l.tile_w;
        pw = (uint64_t)l.cols * l.tile_w + (uint64_t)(l.cols - 1) * l.gap;
    }
    if (pw > 8 * MAX_PANEL || ph > 8 * MAX_PANEL)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->path, 0, -1,
                         "heatmap of %u planes of %ux%u is too large to draw", v->planes,
                         v->width, v->height);
    l.panel_w = (uint32_t)pw;
    l.panel_h = (uint32_t)ph;
    l.panel_y = MARGIN + 2 * LINE_H + MARGIN;
    /* captions never overlap: a panel narrower than its caption is spaced by the caption */
    uint32_t caption = text_width("|error| log10") + MARGIN;
    l.panel_dx = (l.panel_w > caption ? l.panel_w : caption) + MARGIN;
    for (unsigned p = 0; p < 3; p++)
        l.panel_x[p] = MARGIN + p * l.panel_dx;
    l.bar_x = l.panel_x[2] + (l.panel_w > caption ? l.panel_w : caption) + 2 * MARGIN;
    l.bar_y = l.panel_y;
    l.bar_w = BAR_W;
    l.bar_h = l.panel_h > 128 ? l.panel_h : 128;
    l.width = l.bar_x + l.bar_w + 4 + LABEL_W + MARGIN;
    /* room for the title and the lines under the panels, never cut */
    uint32_t min_w = 2 * MARGIN + text_width("black exact, white NaN/Inf/unwritten");
    if (d->title && 2 * MARGIN + text_width(d->title) > min_w)
        min_w = 2 * MARGIN + text_width(d->title);
    uint32_t worst_line = 2 * MARGIN + text_width("worst x=4294967295 y=4294967295 plane=4294967295 err=-1.23e+45");
    min_w = worst_line > min_w ? worst_line : min_w;
    if (l.width < min_w)
        l.width = min_w;
    l.height = l.panel_y + (l.panel_h > l.bar_h ? l.panel_h : l.bar_h) + MARGIN + 2 * LINE_H;
    l.ring_r = l.scale * 3 / 2 + 4;
    if ((uint64_t)l.width * l.height > MAX_PIXELS)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->path, 0, -1, "heatmap too large");
    *out = l;
    return VKRR_OK;
}

void vkrr_heatmap_texel_pixel(const vkrr_heatmap_layout *l, unsigned panel, uint32_t tile,
                              uint32_t x, uint32_t y, uint32_t *px, uint32_t *py)
{
    uint32_t tc = tile % l->cols, tr = tile / l->cols;
    *px = l->panel_x[panel] + tc * (l->tile_w + l->gap) + x / l->step * l->scale + l->scale / 2;
    *py = l->panel_y + tr * (l->tile_h + l->label_h + l->gap) + l->label_h + y / l->step * l->scale +
          l->scale / 2;
}

/* ---- drawing ------------------------------------------------------------ */

typedef struct canvas {
    uint8_t *px;
    uint32_t w, h;
} canvas;

static void put(canvas *c, int64_t x, int64_t y, const uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    memcpy(c->px + ((size_t)y * c->w + (size_t)x) * 3, rgb, 3);
}

static void text_at(canvas *c, uint32_t x, uint32_t y, const char *s, unsigned scale);

static void text(canvas *c, uint32_t x, uint32_t y, const char *s)
{
    text_at(c, x, y, s, TEXT_SCALE);
}

static void text_at(canvas *c, uint32_t x, uint32_t y, const char *s, unsigned scale)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    /* stb_easy_font needs about 270 bytes of vertices a character */
    const int qbytes = 270 * (int)sizeof buf;
    float *q = malloc((size_t)qbytes);
    if (!q)
        return;
    int n = stb_easy_font_print(0, 0, buf, NULL, q, qbytes);
    for (int i = 0; i < n; i++) {
        /* a quad is 4 vertices of 16 bytes (x, y, z, rgba); 0 and 2 are opposite corners */
        const float *v0 = q + i * 16, *v2 = q + i * 16 + 8;
        for (int64_t yy = (int64_t)(v0[1] * scale); yy < (int64_t)(v2[1] * scale); yy++)
            for (int64_t xx = (int64_t)(v0[0] * scale); xx < (int64_t)(v2[0] * scale); xx++)
                put(c, x + xx, y + yy, FG);
    }
    free(q);
}

static void ring(canvas *c, uint32_t cx, uint32_t cy, uint32_t r, uint32_t clip_x0,
                 uint32_t clip_y0, uint32_t clip_x1, uint32_t clip_y1)
{
    for (int64_t dy = -(int64_t)r - 2; dy <= (int64_t)r + 2; dy++) {
        for (int64_t dx = -(int64_t)r - 2; dx <= (int64_t)r + 2; dx++) {
            double dist = sqrt((double)(dx * dx + dy * dy));
            int64_t x = (int64_t)cx + dx, y = (int64_t)cy + dy;
            if (fabs(dist - r) <= 1.0 && x >= clip_x0 && y >= clip_y0 && x < clip_x1 && y < clip_y1)
                put(c, x, y, RING);
        }
    }
}

static uint8_t norm8(float v, float lo, float hi)
{
    double t = ((double)v - lo) / ((double)hi - lo);
    if (!(t > 0))
        return 0;
    return t >= 1 ? 255 : (uint8_t)(t * 255.0 + 0.5);
}

static void value_color(const float *e, uint32_t ch, float lo, float hi, uint8_t rgb[3])
{
    for (uint32_t k = 0; k < ch && k < 3; k++)
        if (isnan(e[k])) {
            memcpy(rgb, NANC, 3);
            return;
        }
    if (ch == 1) {
        rgb[0] = rgb[1] = rgb[2] = norm8(e[0], lo, hi);
        return;
    }
    rgb[0] = norm8(e[0], lo, hi);
    rgb[1] = norm8(e[1], lo, hi);
    rgb[2] = ch >= 3 ? norm8(e[2], lo, hi) : 0;
}

/* Largest error over a texel's channels; NaN counts as +inf. */
static float texel_err(const float *e, uint32_t ch)
{
    float m = 0;
    for (uint32_t k = 0; k < ch; k++) {
        float v = isnan(e[k]) ? INFINITY : e[k];
        if (v > m)
            m = v;
    }
    return m;
}

static void error_color(float e, double lo_l, double hi_l, uint8_t rgb[3])
{
    if (e == 0) {
        memcpy(rgb, EXACT, 3);
        return;
    }
    if (!isfinite(e)) {
        memcpy(rgb, NONFINITE, 3);
        return;
    }
    vkrr_heatmap_color((log10(e) - lo_l) / (hi_l - lo_l), rgb);
}

typedef struct pngsink {
    FILE *f;
    bool failed;
} pngsink;

static void sink_write(void *ctx, void *data, int size)
{
    pngsink *s = ctx;
    if (fwrite(data, 1, (size_t)size, s->f) != (size_t)size)
        s->failed = true;
}

static uint64_t texels(const vkrr_view *v)
{
    return (uint64_t)v->width * v->height * v->planes;
}

bool vkrr_heatmap_is_table(const vkrr_view *v)
{
    return texels(v) < 64;
}

bool vkrr_heatmap_wraps(const vkrr_view *v)
{
    return !vkrr_heatmap_is_table(v) && (v->width < 8 || v->height < 8);
}

uint32_t vkrr_heatmap_wrap_width(const vkrr_view *v)
{
    return (uint32_t)ceil(sqrt((double)texels(v)));
}

void vkrr_heatmap_table_path(char *path)
{
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".png"))
        memcpy(path + n - 4, ".tsv", 4);
}

/* The parent folder of path, made (the first file in it makes it). */
static vkrr_status make_parent(const char *path, vkrr_error *err)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return VKRR_OK;
    *slash = 0;
    return vkrr_mkdirs(dir, err);
}

static vkrr_status write_png(const vkrr_heatmap_desc *d, vkrr_error *err)
{
    vkrr_heatmap_layout l;
    vkrr_status st = vkrr_heatmap_layout_of(d, &l, err);
    if (st != VKRR_OK)
        return st;
    const vkrr_view *v = &d->view;
    uint32_t W = v->width, H = v->height, C = v->channels;
    uint32_t first = d->grid ? 0 : d->plane, ntiles = d->grid ? v->planes : 1;
    char tmp[1100];
    FILE *f = NULL;
    canvas c = {malloc((size_t)l.width * l.height * 3), l.width, l.height};
    if (!c.px)
        return vkrr_fail(err, VKRR_ERR_NOMEM, d->path, 0, -1, "out of memory for the heatmap");
    for (size_t i = 0; i < (size_t)l.width * l.height; i++)
        memcpy(c.px + 3 * i, BG, 3);

    /* ranges: the reference's finite values; errors' finite non-zero decades;
     * the worst texel (non-finite first) */
    float lo = INFINITY, hi = -INFINITY, emin = INFINITY, emax = 0;
    uint64_t worst = UINT64_MAX;
    float worst_e = -1;
    for (uint32_t t = 0; t < ntiles; t++) {
        uint64_t base = (uint64_t)(first + t) * W * H;
        for (uint64_t i = 0; i < (uint64_t)W * H; i++) {
            const float *r = d->ref + (base + i) * C;
            for (uint32_t k = 0; k < C; k++)
                if (isfinite(r[k])) {
                    lo = r[k] < lo ? r[k] : lo;
                    hi = r[k] > hi ? r[k] : hi;
                }
            float e = texel_err(d->err + (base + i) * C, C);
            if (e > worst_e) {
                worst_e = e;
                worst = base + i;
            }
            if (isfinite(e) && e > 0) {
                emin = e < emin ? e : emin;
                emax = e > emax ? e : emax;
            }
        }
    }
    if (!(hi > lo)) {
        lo = isfinite(lo) ? lo : 0;
        hi = lo + 1;
    }
    /* the scale spans exactly [emin, emax] so the worst texel is the map's top */
    double hi_l = emax > 0 ? log10(emax) : 0;
    double lo_l = emax > 0 ? log10(emin) : -1;
    if (lo_l < hi_l - 12)
        lo_l = hi_l - 12;
    if (!(lo_l < hi_l))
        lo_l = hi_l - 1;

    /* panels */
    for (uint32_t t = 0; t < ntiles; t++) {
        uint64_t base = (uint64_t)(first + t) * W * H;
        uint32_t ox = (t % l.cols) * (l.tile_w + l.gap),
                 oy = (t / l.cols) * (l.tile_h + l.label_h + l.gap) + l.label_h;
        if (l.label_h) { /* the plane's number above its tile, in each panel */
            char lab[16];
            snprintf(lab, sizeof lab, "p%u", first + t);
            for (unsigned p = 0; p < 3; p++)
                text_at(&c, l.panel_x[p] + ox, l.panel_y + oy - l.label_h + 1, lab, 1);
        }
        for (uint32_t py = 0; py < l.tile_h; py++) {
            uint32_t ty = py / l.scale * l.step;
            for (uint32_t px = 0; px < l.tile_w; px++) {
                uint32_t tx = px / l.scale * l.step;
                uint64_t e0 = base + (uint64_t)ty * W + tx;
                uint8_t rgb[3];
                value_color(d->ref + e0 * C, C, lo, hi, rgb);
                put(&c, l.panel_x[0] + ox + px, l.panel_y + oy + py, rgb);
                value_color(d->cand + e0 * C, C, lo, hi, rgb);
                put(&c, l.panel_x[1] + ox + px, l.panel_y + oy + py, rgb);
                float e = 0;
                for (uint32_t by = ty; by < ty + l.step && by < H; by++)
                    for (uint32_t bx = tx; bx < tx + l.step && bx < W; bx++) {
                        float te = texel_err(d->err + (base + (uint64_t)by * W + bx) * C, C);
                        e = te > e ? te : e;
                    }
                error_color(e, lo_l, hi_l, rgb);
                put(&c, l.panel_x[2] + ox + px, l.panel_y + oy + py, rgb);
            }
        }
    }

    /* colour bar, top = the largest error */
    for (uint32_t y = 0; y < l.bar_h; y++) {
        uint8_t rgb[3];
        vkrr_heatmap_color(1.0 - (double)y / (l.bar_h - 1), rgb);
        for (uint32_t x = 0; x < l.bar_w; x++)
            put(&c, l.bar_x + x, l.bar_y + y, rgb);
    }
    char s[256];
    snprintf(s, sizeof s, "%.1e", pow(10, hi_l));
    text(&c, l.bar_x + l.bar_w + 4, l.bar_y, s);
    snprintf(s, sizeof s, "%.1e", pow(10, lo_l));
    text(&c, l.bar_x + l.bar_w + 4, l.bar_y + l.bar_h - LINE_H / 2, s);

    /* worst texel ring, in all three panels */
    if (worst != UINT64_MAX && worst_e > 0) {
        uint32_t wt = (uint32_t)(worst / ((uint64_t)W * H)) - first;
        uint32_t wy = (uint32_t)(worst / W % H), wx = (uint32_t)(worst % W);
        for (unsigned p = 0; p < 3; p++) {
            uint32_t cx, cy;
            vkrr_heatmap_texel_pixel(&l, p, wt, wx, wy, &cx, &cy);
            ring(&c, cx, cy, l.ring_r, l.panel_x[p], l.panel_y, l.panel_x[p] + l.panel_w,
                 l.panel_y + l.panel_h);
        }
        snprintf(s, sizeof s, "worst x=%u y=%u plane=%u err=%.3g", wx, wy, first + wt,
                 (double)worst_e);
    } else {
        snprintf(s, sizeof s, "exact");
    }
    uint32_t by = l.panel_y + (l.panel_h > l.bar_h ? l.panel_h : l.bar_h) + MARGIN;
    text(&c, MARGIN, by, s);
    text(&c, MARGIN, by + LINE_H, "black exact, white NaN/Inf/unwritten");
    if (d->title)
        text(&c, MARGIN, MARGIN, d->title);
    text(&c, l.panel_x[0], MARGIN + LINE_H, "reference");
    text(&c, l.panel_x[1], MARGIN + LINE_H, "port");
    text(&c, l.panel_x[2], MARGIN + LINE_H, "|error| log10");

    /* the folder is made by the first heatmap that goes in it (a run with
     * nothing to show leaves no folder behind); then written atomically */
    st = make_parent(d->path, err);
    if (st != VKRR_OK)
        goto fail;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", d->path, (long)getpid());
    f = fopen(tmp, "wb");
    if (!f) {
        st = vkrr_fail(err, VKRR_ERR_IO, d->path, 0, -1, "cannot create %s: %s", tmp,
                       strerror(errno));
        goto fail;
    }
    pngsink sink = {f, false};
    int ok = stbi_write_png_to_func(sink_write, &sink, (int)l.width, (int)l.height, 3, c.px,
                                    (int)l.width * 3);
    int closed = fclose(f);
    f = NULL;
    if (!ok || sink.failed || closed != 0) {
        st = vkrr_fail(err, VKRR_ERR_IO, d->path, 0, -1, "cannot write the heatmap");
        goto fail_unlink;
    }
    if (rename(tmp, d->path) != 0) {
        st = vkrr_fail(err, VKRR_ERR_IO, d->path, 0, -1, "cannot rename %s: %s", tmp,
                       strerror(errno));
        goto fail_unlink;
    }
    free(c.px);
    return VKRR_OK;
fail_unlink:
    unlink(tmp);
fail:
    free(c.px);
    return st;
}

/* A view with no useful 2-D shape (a buffer, a row): its texels in index
 * order wrapped into rows of vkrr_heatmap_wrap_width, the last row's rest
 * blank (exact, at the reference's least value), as one plane; the caption
 * says so, and the worst values go beside it as text. */
static vkrr_status write_wrapped(const vkrr_heatmap_desc *d, vkrr_error *err)
{
    const vkrr_view *v = &d->view;
    uint64_t t = texels(v), C = v->channels, n = t * C;
    uint32_t w = vkrr_heatmap_wrap_width(v), h = (uint32_t)((t + w - 1) / w);
    uint64_t m = (uint64_t)w * h * C;
    float *buf = m < (SIZE_MAX / 3) / sizeof(float) ? malloc(3 * m * sizeof(float)) : NULL;
    if (!buf)
        return vkrr_fail(err, VKRR_ERR_NOMEM, d->path, 0, -1, "out of memory for the heatmap");
    float lo = INFINITY;
    for (uint64_t i = 0; i < n; i++)
        lo = isfinite(d->ref[i]) && d->ref[i] < lo ? d->ref[i] : lo;
    lo = isfinite(lo) ? lo : 0;
    memcpy(buf, d->ref, n * sizeof(float));
    memcpy(buf + m, d->cand, n * sizeof(float));
    memcpy(buf + 2 * m, d->err, n * sizeof(float));
    for (uint64_t i = n; i < m; i++)
        buf[i] = buf[m + i] = lo, buf[2 * m + i] = 0;
    char title[700];
    uint64_t pad = (uint64_t)w * h - t;
    char padding[96] = "";
    if (pad)
        snprintf(padding, sizeof padding, "; the last %llu cells of row %u are padding, drawn exact",
                 (unsigned long long)pad, h - 1);
    snprintf(title, sizeof title, "%s%s%ux%u x %u planes: elements wrapped into rows of %u "
             "(x + %u*y is the index%s)", d->title ? d->title : "", d->title ? " - " : "",
             v->width, v->height, v->planes, w, w, padding);
    vkrr_heatmap_desc p = *d;
    p.view = (vkrr_view){.dtype = v->dtype, .width = w, .height = h, .planes = 1,
                         .channels = v->channels};
    p.ref = buf;
    p.cand = buf + m;
    p.err = buf + 2 * m;
    p.grid = true;
    p.title = title;
    p.max_panel = WRAP_PANEL;
    vkrr_status st = write_png(&p, err);
    free(buf);
    char tsv[1100];
    snprintf(tsv, sizeof tsv, "%s", d->path);
    vkrr_heatmap_table_path(tsv);
    if (st == VKRR_OK && strcmp(tsv, d->path))
        st = vkrr_heatmap_write_table(d, tsv, err);
    return st;
}

vkrr_status vkrr_heatmap_write(const vkrr_heatmap_desc *d, vkrr_error *err)
{
    if (vkrr_heatmap_is_table(&d->view))
        return vkrr_heatmap_write_table(d, d->path, err);
    if (vkrr_heatmap_wraps(&d->view))
        return write_wrapped(d, err);
    return write_png(d, err);
}

bool vkrr_heatmap_path(char *buf, size_t cap, const char *dir, uint32_t seq, const char *kernel,
                       uint32_t arg_offset, int plane)
{
    char k[121];
    size_t n = 0;
    for (const char *p = kernel ? kernel : ""; *p && n < 120; p++) {
        char ch = *p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
        k[n++] = keep ? ch : '_';
    }
    k[n] = '\0';
    int w;
    if (plane >= 0)
        w = snprintf(buf, cap, "%s/heat-%06u-%s-arg%03u-p%d.png", dir, seq, k, arg_offset, plane);
    else
        w = snprintf(buf, cap, "%s/heat-%06u-%s-arg%03u.png", dir, seq, k, arg_offset);
    return w >= 0 && (size_t)w < cap;
}
