/* rrref_host.c - rrref's host side (see rrref_host.h and kernels/rrref.h).
 *
 * Allocations (fake device base addresses, fixed so captures are stable):
 *   weights  RRREF_W_BYTES e4m3 bytes (layout in rrref.h)
 *   arena    every feature plane, one window per layer output (below)
 *   stats    exposure (4 f32) and the expo0 partials (f32 per 16x16 tile)
 * Arena windows, each 256-byte aligned, all at non-zero deltas:
 *   in  [C_IN] f16 W x H | e0 [C_E0] f16 W x H | dn [C_E0] e4m3 W2 x H2 |
 *   e1 [C_E1] f16 W2 x H2 | dec [C_DEC] f16 W x H | at [C_E1] f16 W2 x H2
 *   (at: untok0's planes, which dec0 reads in place of e1)
 * Arrays: noisy (HALF x4), depth (FLOAT x1), motion (HALF x2), albedo
 * (UNORM_INT8X4), normal (SNORM_INT8X4), mask (UNSIGNED_INT8 x1), output
 * (HALF x4) and two history arrays (HALF x4) used in turn: frame k reads
 * history[k%2] through the history texture (re-created every frame with the
 * same handle value) and writes history[(k+1)%2] through its surface.
 * The attention block's tokens, HALF x4 arrays of (W2 * 8) x H2 texels: tok
 * (tok0's surface; the first attn0's texture), out1 and br1 (the first
 * attn0's surfaces; out1 is the second's texture), out2 and br2 (the
 * second's surfaces; out2 is untok0's texture).  Their textures are made
 * once: LINEAR, normalized coordinates, clamp for attn0 (the production
 * sampler, read at integer coordinates), point for untok0.
 *
 * Weights: for layer l (enc0 1, enc1 2, dec0 3, output 4) and byte index i
 * of its block, u = splitmix64(seed + l * 2^32 + i) >> 40, scaled to
 * [-1, 1) as u / 2^23 - 1; weight = e4m3_satfinite(u * 1.5 / sqrt(K)),
 * bias = e4m3_satfinite(u * 0.125); the output layer's bias for the centre
 * tap (12) and the history logit (25) is 1.0, so untrained weights favour
 * them.  The two attention images (layers 5 and 6, at RRREF_W_ATTN0 and
 * RRREF_W_ATTN1) are the same draw read as 128 rows of K = 32 (Wq, Wk, Wv,
 * Wo) and then 128 biases: weights within +-0.265, biases within +-0.125.
 */
#include "rrref_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuformat.h"
#include "rrref.h"

#define RR_BASE_WEIGHTS 0x7f3a00000000ull
#define RR_BASE_ARENA 0x7f3b00000000ull
#define RR_BASE_STATS 0x7f3c00000000ull
#define RR_MAX_ALLOCS 3
#define RR_MAX_PTRS 4
#define RR_MAX_IMAGES 8
#define RR_ARGS_MAX 160 /* the attention block's 144 bytes fit */

enum { RR_BUF_WEIGHTS, RR_BUF_ARENA, RR_BUF_STATS, RR_NBUF };
enum { RR_ARR_NOISY, RR_ARR_DEPTH, RR_ARR_MOTION, RR_ARR_ALBEDO, RR_ARR_NORMAL, RR_ARR_MASK,
       RR_ARR_OUT, RR_ARR_HIST0, RR_ARR_HIST1, RR_ARR_TOK, RR_ARR_OUT1, RR_ARR_BR1, RR_ARR_OUT2,
       RR_ARR_BR2, RR_NARR };
#define RR_NTOK (RR_NARR - RR_ARR_TOK) /* the token arrays, from RR_ARR_TOK on */
enum { RR_TEX_TOK = 7, RR_TEX_OUT1, RR_TEX_OUT2, RR_NTEX }; /* after the 7 of the frame's input */

typedef struct rr_buf {
    uint64_t base, size;
    uint8_t *cur, *next; /* contents now; scratch for the next launch's post */
} rr_buf;

struct rrref_net {
    uint32_t w, h, w2, h2, tiles;
    uint64_t off_in, off_e0, off_dn, off_e1, off_dec, off_at;
    rr_buf buf[RR_NBUF];
    uint8_t *out_arr, *hist_arr[2]; /* contents of the output and history arrays */
    uint8_t *tok_arr[RR_NTOK];      /* contents of the token arrays (RR_ARR_TOK on) */
    uint32_t frame;
    uint64_t launches;              /* run so far (rrref_net_launches) */
    vkrr_writer *w_seen;            /* the writer the handles below were logged in */
    uint64_t array[RR_NARR], tex[RR_NTEX], surf_out, surf_hist[2], surf_tok[RR_NTOK];
};

static const vkrr_sampler rr_point = {VKRR_FILTER_POINT, {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}, false, false, false, true};
static const vkrr_sampler rr_linear = {VKRR_FILTER_LINEAR, {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}, false, false, false, true};
static const vkrr_sampler rr_linear_norm = {VKRR_FILTER_LINEAR, {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}, true, false, false, true};

static const char *const rr_names[] = {
    "cuda_dldn_rrref_expo0_kernel", "cuda_dldn_rrref_expo1_kernel", "cuda_dldn_rrref_input_kernel",
    "cuda_dldn_rrref_enc0_kernel",  "cuda_dldn_rrref_down_kernel",  "cuda_dldn_rrref_enc1_kernel",
    "cuda_dldn_rrref_tok0_kernel",  "cuda_dldn_rrref_attn0_kernel", "cuda_dldn_rrref_untok0_kernel",
    "cuda_dldn_rrref_dec0_kernel",  "cuda_dldn_rrref_output_kernel", NULL};
enum { RR_K_EXPO0, RR_K_EXPO1, RR_K_INPUT, RR_K_ENC0, RR_K_DOWN, RR_K_ENC1, RR_K_TOK0, RR_K_ATTN0,
       RR_K_UNTOK0, RR_K_DEC0, RR_K_OUTPUT };

const char *const *rrref_kernel_names(void)
{
    return rr_names;
}

uint64_t rrref_net_launches(const rrref_net *net)
{
    return net->launches;
}

static uint64_t rr_splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static float rr_uniform(uint64_t seed, unsigned layer, uint32_t i)
{
    return (float)(rr_splitmix(seed + ((uint64_t)layer << 32) + i) >> 40) / 8388608.0f - 1.0f;
}

static void rr_layer_weights(uint8_t *dst, uint64_t seed, unsigned layer, int cout, int k)
{
    float s = 1.5f / sqrtf((float)k);
    for (int i = 0; i < cout * k; i++)
        dst[i] = vkrr_f32_to_e4m3_satfinite(rr_uniform(seed, layer, (uint32_t)i) * s);
    for (int o = 0; o < cout; o++)
        dst[cout * k + o] = vkrr_f32_to_e4m3_satfinite(rr_uniform(seed, layer, (uint32_t)(cout * k + o)) * 0.125f);
}

static uint64_t rr_align(uint64_t v)
{
    return (v + 255u) & ~(uint64_t)255u;
}

void rrref_net_destroy(rrref_net *net)
{
    if (!net)
        return;
    for (int i = 0; i < RR_NBUF; i++) {
        free(net->buf[i].cur);
        free(net->buf[i].next);
    }
    free(net->out_arr);
    free(net->hist_arr[0]);
    free(net->hist_arr[1]);
    for (int i = 0; i < RR_NTOK; i++)
        free(net->tok_arr[i]);
    free(net);
}

vkrr_status rrref_net_create(rrref_net **out, const rrref_net_desc *desc, vkrr_error *err)
{
    rrref_net *net = NULL;
    *out = NULL;
    if (desc->width < 1 || desc->height < 1 || desc->width > 8192 || desc->height > 8192)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "rrref: %ux%u is not 1..8192 on each side",
                         desc->width, desc->height);
    net = calloc(1, sizeof *net);
    if (!net)
        goto nomem;
    net->w = desc->width;
    net->h = desc->height;
    net->w2 = (net->w + 1) / 2;
    net->h2 = (net->h + 1) / 2;
    net->tiles = ((net->w + RRREF_TILE - 1) / RRREF_TILE) * ((net->h + RRREF_TILE - 1) / RRREF_TILE);
    uint64_t full = (uint64_t)net->w * net->h, half = (uint64_t)net->w2 * net->h2;
    net->off_in = 256;
    net->off_e0 = rr_align(net->off_in + full * RRREF_C_IN * 2);
    net->off_dn = rr_align(net->off_e0 + full * RRREF_C_E0 * 2);
    net->off_e1 = rr_align(net->off_dn + half * RRREF_C_E0);
    net->off_dec = rr_align(net->off_e1 + half * RRREF_C_E1 * 2);
    net->off_at = rr_align(net->off_dec + full * RRREF_C_DEC * 2);
    uint64_t sizes[RR_NBUF] = {RRREF_W_BYTES, rr_align(net->off_at + half * RRREF_C_E1 * 2),
                               RRREF_STATS_PARTIALS + (uint64_t)net->tiles * 4};
    uint64_t bases[RR_NBUF] = {RR_BASE_WEIGHTS, RR_BASE_ARENA, RR_BASE_STATS};
    for (int i = 0; i < RR_NBUF; i++) {
        net->buf[i].base = bases[i];
        net->buf[i].size = sizes[i];
        net->buf[i].cur = calloc(1, sizes[i]);
        net->buf[i].next = calloc(1, sizes[i]);
        if (!net->buf[i].cur || !net->buf[i].next)
            goto nomem;
    }
    net->out_arr = calloc(full, 8);
    net->hist_arr[0] = calloc(full, 8);
    net->hist_arr[1] = calloc(full, 8);
    if (!net->out_arr || !net->hist_arr[0] || !net->hist_arr[1])
        goto nomem;
    for (int i = 0; i < RR_NTOK; i++)
        if (!(net->tok_arr[i] = calloc(half * 8, 8)))
            goto nomem;
    uint8_t *wt = net->buf[RR_BUF_WEIGHTS].cur;
    rr_layer_weights(wt + RRREF_W_ENC0, desc->seed, 1, RRREF_C_E0, RRREF_K_ENC0);
    rr_layer_weights(wt + RRREF_W_ENC1, desc->seed, 2, RRREF_C_E1, RRREF_K_ENC1);
    rr_layer_weights(wt + RRREF_W_DEC0, desc->seed, 3, RRREF_C_DEC, RRREF_K_DEC0);
    rr_layer_weights(wt + RRREF_W_OUT, desc->seed, 4, RRREF_N_LOGITS, RRREF_K_OUT);
    wt[RRREF_W_OUT + RRREF_N_LOGITS * RRREF_K_OUT + 12] = vkrr_f32_to_e4m3_satfinite(1.0f);
    wt[RRREF_W_OUT + RRREF_N_LOGITS * RRREF_K_OUT + 25] = vkrr_f32_to_e4m3_satfinite(1.0f);
    rr_layer_weights(wt + RRREF_W_ATTN0, desc->seed, 5, 4 * RRREF_ATTN_C, RRREF_ATTN_C);
    rr_layer_weights(wt + RRREF_W_ATTN1, desc->seed, 6, 4 * RRREF_ATTN_C, RRREF_ATTN_C);
    *out = net;
    return VKRR_OK;
nomem:
    rrref_net_destroy(net);
    return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "rrref: no memory for a %ux%u network",
                     desc->width, desc->height);
}

/* ---- one launch ------------------------------------------------------- */

typedef struct rr_launch {
    const char *kernel;
    uint32_t grid[3], block[3], shared;
    uint8_t args[RR_ARGS_MAX];
    uint32_t args_bytes;
    int buf[RR_MAX_ALLOCS];          /* net buffer of each alloc */
    vkrr_replay_alloc allocs[RR_MAX_ALLOCS];
    uint32_t nallocs;
    vkrr_pointer ptrs[RR_MAX_PTRS];
    uint32_t nptrs;
    vkrr_replay_image images[RR_MAX_IMAGES];
    uint8_t *image_store[RR_MAX_IMAGES]; /* surfaces: the array their post goes back to */
    uint32_t nimages;
} rr_launch;

static void rr_launch_init(rr_launch *l, const char *kernel, const void *args, uint32_t bytes,
                           uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by)
{
    memset(l, 0, sizeof *l);
    l->kernel = kernel;
    l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = 1;
    l->block[0] = bx, l->block[1] = by, l->block[2] = 1;
    memcpy(l->args, args, bytes);
    l->args_bytes = bytes;
}

/* Pointer word at off -> buffer b + delta (calls in argument order). */
static void rr_launch_ptr(rr_launch *l, const rrref_net *net, uint32_t off, int b, uint64_t delta)
{
    uint32_t a = 0;
    while (a < l->nallocs && l->buf[a] != b)
        a++;
    if (a == l->nallocs) {
        l->buf[a] = b;
        l->allocs[a] = (vkrr_replay_alloc){net->buf[b].base, net->buf[b].size, net->buf[b].cur,
                                           net->buf[b].next, NULL};
        l->nallocs++;
    }
    uint64_t v = net->buf[b].base + delta;
    memcpy(l->args + off, &v, 8);
    l->ptrs[l->nptrs++] = (vkrr_pointer){off, a, delta};
}

static void rr_launch_image(rr_launch *l, uint32_t off, vkrr_image_kind kind, uint64_t handle,
                            uint32_t w, uint32_t h, uint32_t fmt, uint32_t ch,
                            const vkrr_sampler *s, const void *pre, uint8_t *store)
{
    vkrr_replay_image *im = &l->images[l->nimages];
    memset(im, 0, sizeof *im);
    im->offset = off;
    im->kind = kind;
    im->handle = handle;
    im->width = w, im->height = h, im->format = fmt, im->channels = ch;
    if (s)
        im->sampler = *s;
    im->pre = pre;
    memcpy(l->args + off, &handle, 8);
    l->image_store[l->nimages++] = store;
}

static vkrr_status rr_launch_run(rrref_net *net, rr_launch *l, const vkrr_backend *be,
                                 vkrr_writer *w, vkrr_error *err)
{
    uint8_t *surf_post[RR_MAX_IMAGES] = {0};
    vkrr_status st = VKRR_OK;
    for (uint32_t i = 0; i < l->nimages; i++) {
        if (l->images[i].kind != VKRR_IMAGE_SURFACE)
            continue;
        surf_post[i] = malloc(vkrr_replay_image_bytes(&l->images[i]));
        if (!surf_post[i]) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, l->kernel, 0, -1, "rrref: no memory for a surface");
            goto fail;
        }
        l->images[i].post = surf_post[i];
    }
    vkrr_replay r = {l->kernel, {l->grid[0], l->grid[1], l->grid[2]},
                     {l->block[0], l->block[1], l->block[2]}, l->shared, l->args, l->args_bytes,
                     l->allocs, l->nallocs, l->ptrs, l->nptrs, l->images, l->nimages,
                     NULL, NULL, 0, NULL, NULL, NULL, NULL};
    st = be->run(be->self, &r, err);
    if (st != VKRR_OK)
        goto fail;
    net->launches++;
    if (w) {
        vkrr_alloc_record ar[RR_MAX_ALLOCS];
        vkrr_pointer_record pr[RR_MAX_PTRS];
        vkrr_image_record ir[RR_MAX_IMAGES];
        for (uint32_t i = 0; i < l->nallocs; i++)
            ar[i] = (vkrr_alloc_record){l->allocs[i].base, l->allocs[i].size, l->allocs[i].pre,
                                        l->allocs[i].post};
        for (uint32_t i = 0; i < l->nptrs; i++)
            pr[i] = (vkrr_pointer_record){l->ptrs[i].offset, l->ptrs[i].alloc, l->ptrs[i].delta};
        for (uint32_t i = 0; i < l->nimages; i++) {
            const vkrr_replay_image *im = &l->images[i];
            ir[i] = (vkrr_image_record){.offset = im->offset, .kind = im->kind,
                                        .handle = im->handle, .width = im->width,
                                        .height = im->height, .channels = im->channels,
                                        .format = im->format,
                                        .post = im->kind == VKRR_IMAGE_SURFACE ? im->post : im->pre};
        }
        vkrr_launch_record rec = {l->kernel, {l->grid[0], l->grid[1], l->grid[2]},
                                  {l->block[0], l->block[1], l->block[2]}, l->shared, l->args,
                                  l->args_bytes, ar, l->nallocs, pr, l->nptrs, ir, l->nimages, NULL};
        uint64_t seq = 0;
        st = vkrr_writer_launch(w, &rec, &seq, err);
        if (st != VKRR_OK)
            goto fail;
        /* a backend that times its launches (CUDA events around each kernel
         * on the GPU) leaves that time in the log, for `vkrr bench` */
        if (be->last_gpu_ms)
            vkrr_writer_profile(w, seq, l->kernel, be->last_gpu_ms(be->self));
    }
    /* the launch's results become the buffers' and arrays' contents */
    for (uint32_t i = 0; i < l->nallocs; i++) {
        rr_buf *b = &net->buf[l->buf[i]];
        uint8_t *t = b->cur;
        b->cur = b->next;
        b->next = t;
    }
    for (uint32_t i = 0; i < l->nimages; i++)
        if (surf_post[i])
            memcpy(l->image_store[i], surf_post[i], vkrr_replay_image_bytes(&l->images[i]));
fail:
    for (uint32_t i = 0; i < RR_MAX_IMAGES; i++)
        free(surf_post[i]);
    return st;
}

/* ---- the attention block at the bottleneck ------------------------------ */

/* A token array's handle: the logged one, or a stand-in when nothing is
 * recorded (the backends only match handles to their images). */
static uint64_t rr_tok_surf(const rrref_net *net, const vkrr_writer *w, int i)
{
    return w ? net->surf_tok[i] : 0x5101u + (uint64_t)i;
}
static uint64_t rr_tok_tex(const rrref_net *net, const vkrr_writer *w, int t)
{
    return w ? net->tex[t] : 0x4101u + (uint64_t)t;
}

/* tok0, attn0 twice (the second reads the first's out array), untok0 into
 * the arena's at window. */
static vkrr_status rr_attention(rrref_net *net, const vkrr_backend *be, vkrr_writer *w,
                                vkrr_error *err)
{
    const uint32_t W2 = net->w2, H2 = net->h2, TW = W2 * 8;
    const uint32_t g2x = (W2 + RRREF_BLOCK - 1) / RRREF_BLOCK, g2y = (H2 + RRREF_BLOCK - 1) / RRREF_BLOCK;
    uint8_t **arr = net->tok_arr; /* [0] tok, [1] out1, [2] br1, [3] out2, [4] br2 */
    rr_launch l;
    vkrr_status st;

    rrref_tok_params tk = {0, 0, 0, W2, H2};
    rr_launch_init(&l, rr_names[RR_K_TOK0], &tk, sizeof tk, g2x, g2y, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_e1);
    rr_launch_ptr(&l, net, 8, RR_BUF_ARENA, net->off_dn);
    rr_launch_image(&l, 16, VKRR_IMAGE_SURFACE, rr_tok_surf(net, w, 0), TW, H2, 16, 4, NULL, arr[0], arr[0]);
    if ((st = rr_launch_run(net, &l, be, w, err)) != VKRR_OK)
        return st;

    static const int tex_of[2] = {RR_TEX_TOK, RR_TEX_OUT1};
    static const uint64_t w_off[2] = {RRREF_W_ATTN0, RRREF_W_ATTN1};
    for (int a = 0; a < 2; a++) {
        rrref_attn_params ap = {0};
        ap.width = W2, ap.height = H2;
        ap.windows_x = (W2 + RRREF_ATTN_WIN_W - 1) / RRREF_ATTN_WIN_W;
        ap.windows_y = (H2 + RRREF_ATTN_WIN_H - 1) / RRREF_ATTN_WIN_H;
        ap.log2_tau = 0xb900;  /* -0.625: scores scaled by 2^-0.625 = 0.648 */
        ap.channels = 0x5000;  /* 32 */
        ap.eps = 0x0800;       /* 2^-13, as enc1's RMS norm */
        rr_launch_init(&l, rr_names[RR_K_ATTN0], &ap, sizeof ap, (ap.windows_x + 1) / 2,
                       (ap.windows_y + 1) / 2, 32, 1);
        l.block[2] = 4;
        l.shared = RRREF_ATTN_SHARED;
        uint8_t *src = arr[a], *out = arr[2 * a + 1], *br = arr[2 * a + 2]; /* tok, then out1 */
        rr_launch_image(&l, 0, VKRR_IMAGE_TEXTURE, rr_tok_tex(net, w, tex_of[a]), TW, H2, 16, 4,
                        &rr_linear_norm, src, NULL);
        rr_launch_image(&l, 8, VKRR_IMAGE_SURFACE, rr_tok_surf(net, w, 2 * a + 1), TW, H2, 16, 4, NULL, out, out);
        rr_launch_image(&l, 16, VKRR_IMAGE_SURFACE, rr_tok_surf(net, w, 2 * a + 2), TW, H2, 16, 4, NULL, br, br);
        rr_launch_ptr(&l, net, 40, RR_BUF_WEIGHTS, w_off[a]);
        if ((st = rr_launch_run(net, &l, be, w, err)) != VKRR_OK)
            return st;
    }

    rrref_untok_params ut = {0, 0, W2, H2};
    rr_launch_init(&l, rr_names[RR_K_UNTOK0], &ut, sizeof ut, g2x, g2y, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_image(&l, 0, VKRR_IMAGE_TEXTURE, rr_tok_tex(net, w, RR_TEX_OUT2), TW, H2, 16, 4, &rr_point,
                    arr[3], NULL);
    rr_launch_ptr(&l, net, 8, RR_BUF_ARENA, net->off_at);
    return rr_launch_run(net, &l, be, w, err);
}

/* ---- one frame -------------------------------------------------------- */

/* Logs the arrays, textures and surfaces in a writer that has not seen them. */
static void rr_log_objects(rrref_net *net, vkrr_writer *w)
{
    static const uint32_t fmt[RR_ARR_TOK] = {16, 32, 16, 194, 200, 1, 16, 16, 16};
    static const uint32_t ch[RR_ARR_TOK] = {4, 1, 2, 4, 4, 1, 4, 4, 4};
    if (!w || w == net->w_seen)
        return;
    net->w_seen = w;
    for (int i = 0; i < RR_ARR_TOK; i++)
        net->array[i] = vkrr_writer_array_create(w, net->w, net->h, fmt[i], ch[i]);
    for (int i = 0; i < 6; i++)
        net->tex[i] = vkrr_writer_texture_create(w, net->array[i], &rr_point, 0);
    net->tex[6] = 0; /* history: created per frame */
    net->surf_out = vkrr_writer_surface_create(w, net->array[RR_ARR_OUT], 0);
    net->surf_hist[0] = vkrr_writer_surface_create(w, net->array[RR_ARR_HIST0], 0);
    net->surf_hist[1] = vkrr_writer_surface_create(w, net->array[RR_ARR_HIST1], 0);
    /* The bridge's log does not say a surface's array: a reader ties it to the
     * earliest array of its shape no texture or surface was made over yet
     * (capture_link.c), so each token array gets its surface at once. */
    for (int i = 0; i < RR_NTOK; i++) {
        net->array[RR_ARR_TOK + i] = vkrr_writer_array_create(w, net->w2 * 8, net->h2, 16, 4);
        net->surf_tok[i] = vkrr_writer_surface_create(w, net->array[RR_ARR_TOK + i], 0);
    }
    net->tex[RR_TEX_TOK] = vkrr_writer_texture_create(w, net->array[RR_ARR_TOK], &rr_linear_norm, 0);
    net->tex[RR_TEX_OUT1] = vkrr_writer_texture_create(w, net->array[RR_ARR_OUT1], &rr_linear_norm, 0);
    net->tex[RR_TEX_OUT2] = vkrr_writer_texture_create(w, net->array[RR_ARR_OUT2], &rr_point, 0);
}

vkrr_status rrref_net_run_frame(rrref_net *net, const vkrr_backend *be,
                                const vkrr_scene_frame *scene, vkrr_writer *w,
                                uint16_t *output, vkrr_error *err)
{
    const uint32_t W = net->w, H = net->h, gx = (W + RRREF_BLOCK - 1) / RRREF_BLOCK,
                   gy = (H + RRREF_BLOCK - 1) / RRREF_BLOCK;
    const uint32_t g2x = (net->w2 + RRREF_BLOCK - 1) / RRREF_BLOCK,
                   g2y = (net->h2 + RRREF_BLOCK - 1) / RRREF_BLOCK;
    const int cur = (int)(net->frame & 1u), nxt = 1 - cur;
    rr_launch l;
    vkrr_status st;

    if (scene->width != W || scene->height != H)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, NULL, 0, -1,
                         "rrref: a %ux%u scene frame for a %ux%u network", scene->width,
                         scene->height, W, H);
    if (net->frame == 0)
        memcpy(net->hist_arr[0], scene->noisy, (size_t)W * H * 8);
    rr_log_objects(net, w);
    if (w)
        net->tex[6] = vkrr_writer_texture_create(w, net->array[RR_ARR_HIST0 + cur], &rr_linear,
                                                 net->tex[6]);
    uint64_t th[7], sh_out = w ? net->surf_out : 0x5001, sh_hist = w ? net->surf_hist[nxt] : 0x5002u + (uint64_t)nxt;
    for (int i = 0; i < 7; i++)
        th[i] = w ? net->tex[i] : 0x4001u + (uint64_t)i;
    const void *tex_data[7] = {scene->noisy, scene->depth, scene->motion, scene->albedo,
                               scene->normal, scene->mask, net->hist_arr[cur]};
    static const uint32_t tfmt[7] = {16, 32, 16, 194, 200, 1, 16}, tch[7] = {4, 1, 2, 4, 4, 1, 4};
#define RR_TEX(l, off, i) \
    rr_launch_image(l, off, VKRR_IMAGE_TEXTURE, th[i], W, H, tfmt[i], tch[i], i == 6 ? &rr_linear : &rr_point, tex_data[i], NULL)
#define RR_RUN(l)                                  \
    do {                                           \
        if ((st = rr_launch_run(net, l, be, w, err)) != VKRR_OK) \
            return st;                             \
    } while (0)

    rrref_expo0_params e0 = {0, 0, W, H, (W + RRREF_TILE - 1) / RRREF_TILE, (H + RRREF_TILE - 1) / RRREF_TILE};
    rr_launch_init(&l, rr_names[RR_K_EXPO0], &e0, sizeof e0, (net->tiles + RRREF_EXPO0_BLOCK - 1) / RRREF_EXPO0_BLOCK, 1,
                   RRREF_EXPO0_BLOCK, 1);
    RR_TEX(&l, 0, 0);
    rr_launch_ptr(&l, net, 8, RR_BUF_STATS, RRREF_STATS_PARTIALS);
    RR_RUN(&l);

    rrref_expo1_params e1 = {0, 0, net->tiles, W * H, 0.18f, 0};
    rr_launch_init(&l, rr_names[RR_K_EXPO1], &e1, sizeof e1, 1, 1, 1, 1);
    rr_launch_ptr(&l, net, 0, RR_BUF_STATS, RRREF_STATS_PARTIALS);
    rr_launch_ptr(&l, net, 8, RR_BUF_STATS, RRREF_STATS_EXPOSURE);
    RR_RUN(&l);

    rrref_input_params in = {0};
    in.width = W, in.height = H;
    rr_launch_init(&l, rr_names[RR_K_INPUT], &in, sizeof in, gx, gy, RRREF_BLOCK, RRREF_BLOCK);
    for (int i = 0; i < 7; i++)
        RR_TEX(&l, (uint32_t)(8 * i), i);
    rr_launch_ptr(&l, net, 56, RR_BUF_STATS, RRREF_STATS_EXPOSURE);
    rr_launch_ptr(&l, net, 64, RR_BUF_ARENA, net->off_in);
    RR_RUN(&l);

    rrref_conv_params cv = {0, 0, 0, W, H, W, H, 0};
    rr_launch_init(&l, rr_names[RR_K_ENC0], &cv, sizeof cv, gx, gy, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_in);
    rr_launch_ptr(&l, net, 16, RR_BUF_ARENA, net->off_e0);
    rr_launch_ptr(&l, net, 40, RR_BUF_WEIGHTS, RRREF_W_ENC0);
    RR_RUN(&l);

    rrref_down_params dn = {0, 0, net->w2, net->h2, W, H};
    rr_launch_init(&l, rr_names[RR_K_DOWN], &dn, sizeof dn, g2x, g2y, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_e0);
    rr_launch_ptr(&l, net, 8, RR_BUF_ARENA, net->off_dn);
    RR_RUN(&l);

    cv = (rrref_conv_params){0, 0, 0, net->w2, net->h2, net->w2, net->h2, 0};
    rr_launch_init(&l, rr_names[RR_K_ENC1], &cv, sizeof cv, g2x, g2y, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_dn);
    rr_launch_ptr(&l, net, 16, RR_BUF_ARENA, net->off_e1);
    rr_launch_ptr(&l, net, 40, RR_BUF_WEIGHTS, RRREF_W_ENC1);
    RR_RUN(&l);

    if ((st = rr_attention(net, be, w, err)) != VKRR_OK)
        return st;

    cv = (rrref_conv_params){0, 0, 0, W, H, net->w2, net->h2, 0};
    rr_launch_init(&l, rr_names[RR_K_DEC0], &cv, sizeof cv, gx, gy, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_at); /* untok0's planes, not enc1's */
    rr_launch_ptr(&l, net, 8, RR_BUF_ARENA, net->off_e0);
    rr_launch_ptr(&l, net, 16, RR_BUF_ARENA, net->off_dec);
    rr_launch_ptr(&l, net, 40, RR_BUF_WEIGHTS, RRREF_W_DEC0);
    RR_RUN(&l);

    rrref_output_params op = {0};
    op.width = W, op.height = H;
    rr_launch_init(&l, rr_names[RR_K_OUTPUT], &op, sizeof op, gx, gy, RRREF_BLOCK, RRREF_BLOCK);
    rr_launch_ptr(&l, net, 0, RR_BUF_ARENA, net->off_dec);
    RR_TEX(&l, 8, 0);
    RR_TEX(&l, 16, 2);
    RR_TEX(&l, 24, 6);
    rr_launch_image(&l, 32, VKRR_IMAGE_SURFACE, sh_out, W, H, 16, 4, NULL, net->out_arr, net->out_arr);
    rr_launch_ptr(&l, net, 40, RR_BUF_WEIGHTS, RRREF_W_OUT);
    rr_launch_image(&l, 48, VKRR_IMAGE_SURFACE, sh_hist, W, H, 16, 4, NULL, net->hist_arr[nxt],
                    net->hist_arr[nxt]);
    RR_RUN(&l);
#undef RR_TEX
#undef RR_RUN

    if (output)
        memcpy(output, net->out_arr, (size_t)W * H * 8);
    net->frame++;
    return VKRR_OK;
}
