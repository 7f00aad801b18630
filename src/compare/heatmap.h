/* heatmap.h - one PNG that shows where a port's result departs from the reference.
 *
 * Usage:
 *     float *r = ..., *c = ..., *e = ...;      // view element count each
 *     vkrr_compare_decode(&view, ref, bytes, r, &err);
 *     vkrr_compare_decode(&view, cand, bytes, c, &err);
 *     vkrr_compare_error_map(&view, ref, cand, bytes, e, &err);
 *     char path[1024];
 *     vkrr_heatmap_path(path, sizeof path, dir, seq, kernel, arg_offset, -1);
 *     vkrr_heatmap_write(&(vkrr_heatmap_desc){.path = path, .view = view, .ref = r,
 *                                             .cand = c, .err = e, .grid = true,
 *                                             .title = "launch 12 foo arg 16"}, &err);
 *
 * Picture: three panels side by side - reference | port | |error| - then a
 * colour bar.  With .grid every plane is a tile (cols = ceil(sqrt(planes)))
 * in each panel; otherwise only .plane is drawn.  Reference and port are grey
 * (1 channel), red-green (2) or RGB (first 3 channels), normalised to the
 * reference's finite range; NaN texels are magenta.  The error panel shows,
 * per texel, the largest error over its channels on a log10 scale in viridis
 * (from its 9 published anchor colours, interpolated): black is exact, white
 * is a NaN/Inf mismatch or an unwritten texel.  The scale spans the smallest
 * to the largest finite non-zero error (at most 12 decades), and the colour
 * bar is labelled with both.  The worst texel (a non-finite error first, else
 * the largest) is ringed in red in all three panels.  Small images are
 * magnified (integer factor, up to 16); panels wider than 1024 texels (or
 * .max_panel) are
 * reduced by an integer step (reference/port: the block's first texel;
 * error: the block's maximum, so hot spots survive).
 *
 * The file is written atomically: PATH.tmp.PID, then rename().
 * Does NOT: compare (callers pass decoded values) or choose file names
 * beyond vkrr_heatmap_path().  Allocates only inside vkrr_heatmap_write.
 */
#ifndef VKRR_HEATMAP_H
#define VKRR_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "view.h"

typedef struct vkrr_heatmap_desc {
    const char *path;   /* PNG to write */
    vkrr_view view;     /* width, height, planes, channels (dtype and offset unused) */
    const float *ref;   /* width*height*planes*channels values each */
    const float *cand;
    const float *err;   /* |ref - cand|, +inf for mismatches (vkrr_compare_error_map) */
    bool grid;          /* all planes as tiles; false: only .plane */
    uint32_t plane;
    const char *title;  /* optional first line of text */
    bool all_values;    /* the table: every value, however many (--dump-values) */
    uint32_t max_panel; /* a panel's side in pixels, at most (reduced by a step); 0: 1024 */
} vkrr_heatmap_desc;

/* Where things are in the PNG, for callers and tests. */
typedef struct vkrr_heatmap_layout {
    uint32_t width, height;     /* PNG size in pixels */
    uint32_t panel_x[3];        /* left edge of the reference, port and error panels */
    uint32_t panel_y;           /* top edge of all three */
    uint32_t panel_w, panel_h;
    uint32_t cols, rows;        /* tiles per panel */
    uint32_t tile_w, tile_h;    /* tile size in pixels */
    uint32_t gap;               /* pixels between tiles */
    uint32_t label_h;           /* a strip above each tile for its plane number (grid of 2+) */
    uint32_t panel_dx;          /* from one panel's left edge to the next: its width, or
                                 * its caption's when wider (a thin buffer) */
    uint32_t scale;             /* pixels per texel (magnification) */
    uint32_t step;              /* texels per pixel (reduction) */
    uint32_t bar_x, bar_y, bar_w, bar_h;
    uint32_t ring_r;            /* radius of the worst-texel ring */
} vkrr_heatmap_layout;

vkrr_status vkrr_heatmap_layout_of(const vkrr_heatmap_desc *d, vkrr_heatmap_layout *out,
                                   vkrr_error *err);

/* Centre pixel of texel (x, y) of plane `tile` (0 unless grid) in panel 0..2. */
void vkrr_heatmap_texel_pixel(const vkrr_heatmap_layout *l, unsigned panel, uint32_t tile,
                              uint32_t x, uint32_t y, uint32_t *px, uint32_t *py);

/* Writes the PNG; for a view of under 64 texels, the table of its values
 * instead (vkrr_heatmap_is_table: d->path should then end in ".tsv"); for a
 * view with no useful 2-D shape (a side under 8: a buffer, a row), the PNG
 * of its elements wrapped into rows (vkrr_heatmap_wraps; the caption says
 * so) and its table beside it (the path's ".tsv").  No file grows with the
 * view beyond the picture's bounded size unless d->all_values. */
vkrr_status vkrr_heatmap_write(const vkrr_heatmap_desc *d, vkrr_error *err);

/* The table alone, at path: '#' lines (the title; the shape and the counts
 * of elements, of those that differ and of NaN/Inf mismatches; what
 * follows), a header line, then one line per element (index, x, y, plane,
 * channel, reference, port, |error|, tab-separated): every element when
 * there are at most VKRR_HEATMAP_TABLE_MAX or d->all_values, else the worst
 * VKRR_HEATMAP_TABLE_MAX that differ, worst first. */
#define VKRR_HEATMAP_TABLE_MAX 256u
vkrr_status vkrr_heatmap_write_table(const vkrr_heatmap_desc *d, const char *path,
                                     vkrr_error *err);

/* Under 64 texels: a table, not a picture. */
bool vkrr_heatmap_is_table(const vkrr_view *v);
/* Not a table, but a side under 8: wrapped into rows of
 * vkrr_heatmap_wrap_width texels (ceil(sqrt(texels))). */
bool vkrr_heatmap_wraps(const vkrr_view *v);
uint32_t vkrr_heatmap_wrap_width(const vkrr_view *v);
/* path's ".png" turned into ".tsv" (in place). */
void vkrr_heatmap_table_path(char *path);

/* The colour map at t in [0, 1] (clamped). */
void vkrr_heatmap_color(double t, uint8_t rgb[3]);

/* "DIR/heat-SSSSSS-KERNEL-argOOO.png" (plane >= 0 adds "-pP"); characters of
 * KERNEL outside [A-Za-z0-9_.] become '_', and it is cut to 120 characters.
 * False when it does not fit in cap. */
bool vkrr_heatmap_path(char *buf, size_t cap, const char *dir, uint32_t seq, const char *kernel,
                       uint32_t arg_offset, int plane);

#endif
