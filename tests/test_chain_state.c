/* test_chain_state: the state chained validation carries from launch to
 * launch (src/validate/validate_chain.c), each case a capture made so that
 * only what the chain holds decides a later launch's chained verdict.  On
 * lavapipe, a 32x24 rrref capture of 2 frames (synth, surfaces' arrays
 * logged; rrref_host.c says which launch reads and writes what):
 *   - held bytes: expo1#0's output (the exposure window of the stats
 *     allocation) moved 64 f32 ULPs.  expo0#1 writes only the partials
 *     window and leaves the exposure as it found it, so chained it must
 *     FAIL: partials exact, the moved exposure bytes outside its window.
 *     The chain's copy of stats survives the launches between (input#0 ..
 *     output#0), which hand other held buffers to the port;
 *   - dump state (--mode both): expo0#1's pre-launch file with its exposure
 *     zeroed and input#1's history texture dump garbled.  Isolated, expo0#1
 *     FAILs and input#1 is ERROR (changed since capture); chained, both
 *     PASS: expo0#1 reads the stats the chain has, and input#1 the surface
 *     output#0 wrote, as output#0's dump (reused from isolated), although
 *     expo0#1 was dispatched in between;
 *   - sampler state the log does not give, found in chained mode alone: the
 *     history texture's cuTexObjectCreate lines gone, every launch PASSes
 *     chained (inferred: linear, rrref's); input#0 perturbed, the fitted
 *     launch FAILs (an inferred state makes the FAIL the port's).  The
 *     colour texture's lines gone instead (ambiguous: its reads never tell
 *     point from linear), input#0 failing chained is ERROR saying so: chained
 *     mode has no isolated run to show the port failing under every state.
 *   - a broken frame: output#0 unreadable, input#1 alone shown (--only):
 *     the summary's line for frame 1 counts it, the first and only result;
 * And a capture the capture writer makes of six launches of kernels this
 * test ports itself (GLSL in a --ports folder, written below): fill writes
 * v[i] = (5i mod 11) + 1 into a window of buffer B, and v + 100 to surface
 * S0; surf3 writes v to surfaces A and C and floor(v) to B' (all three equal
 * in the capture: v is whole); read copies three textures: B' and S0 by
 * their arrays, and one whose array the log does not give (its dump is v:
 * linked by equal bytes to A, with C and B' alike); surf3 and read again,
 * the second surf3 told to swap (floor(v) to C, v to B'); lin copies a
 * texture over B's window (tex1Dfetch).  Chained:
 *   - as captured, all PASS (lin reads the chain's B, packed);
 *   - fill perturbed 1024 ULPs: each surf3 writes v moved to two surfaces and
 *     its floor (not moved) to the third, so each read is ERROR, its note
 *     naming the 3 surfaces; lin FAILs exactly 1024 ULPs off (it reads the
 *     chain's B, not the capture's);
 *     perturbed 4 ULPs, the reads would PASS: ERROR all the same, lin PASSes;
 *   - surf3#0 perturbed: A, C and B' moved alike: read#0 FAILs 1024 ULPs off;
 *   - --mode both, read#0 perturbed: surf3#0's result is isolated's, so A, C
 *     and B' are its dumps, equal: read#0 FAILs (not ERROR);
 *   - surf3#0's alloc file missing: it is ERROR; read#0 SKIPPED (it needs its
 *     surfaces alone), every later launch SKIPPED (B); its manifest missing
 *     instead, the same (nothing it wrote is known).
 * (Every alike surface must be looked at, wherever it stands: among the
 * first read's alike the one the chain has equal to A comes first, among the
 * second's last; the first's B' is first in the chain's table of surfaces,
 * as texture B' is read first; the second surf3's surfaces come after A2.) */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "capture_write.h"
#include "synth.h"
#include "testutil.h"

static char *root;

#define sh test_sh

/* A copy of capture `from` named `name` under root; its path in dir. */
static void copy_capture(const char *from, const char *name, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(sh("rm -rf '%s' && cp -r '%s' '%s'", dir, from, dir), 0);
}

/* vkrr validate DIR ARGS --json DIR.json exits `want`; else what it printed. */
static void validate(const char *dir, const char *args, int want, int line)
{
    char a[12000], *out = NULL, *err = NULL;
    snprintf(a, sizeof a, "validate '%s' --heatmaps none -q --json '%s.json' %s", dir, dir, args);
    int rc = test_run_vkrr(a, &out, &err);
    if (!test_check(rc == want, __FILE__, line, "exit code"))
        fprintf(stderr, "--- vkrr %s: exit %d, want %d\n%s%s", a, rc, want, out ? out : "",
                err ? err : "");
    free(out);
    free(err);
}
#define VALIDATE(dir, args, want) validate(dir, args, want, __LINE__)

/* Runs the Python statements `py` on the launches L (by sequence: L[seq])
 * of DIR.json; an assert that fails prints what it found. */
static int json_check(const char *dir, const char *py)
{
    return sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
              "L = {l['sequence']: l for l in d['launches']}; %s\" '%s.json'", py, dir);
}

static void check_held(const char *cap)
{
    char dir[4096];
    copy_capture(cap, "held", dir, sizeof dir);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_expo1_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir,
        "x = L[13]; r = x['resources']; c = r[0]['chained']; "
        "assert x['kernel'] == 'cuda_dldn_rrref_expo0_kernel' and x['frame'] == 1, x['kernel']; "
        "assert x['chained_status'] == 'FAIL' and len(r) == 1, x; "
        /* the partials come from the noisy texture alone: exact */
        "assert c['exact_pct'] == 100 and c['max_ulp'] == 0, c; "
        /* 4 f32 of exposure moved 64 ULPs: 1..4 bytes each */
        "assert 4 <= c['outside_window_bytes'] <= 16, c; "
        /* expo1#1 computes the exposure again: frame 1 is clean from there */
        "assert all(L[s]['chained_status'] == 'PASS' for s in range(14, 25)), "
        "[(s, L[s]['chained_status']) for s in range(14, 25)]"), 0);
}

static void check_dump_state(const char *cap)
{
    char dir[4096];
    copy_capture(cap, "dumpstate", dir, sizeof dir);
    CHECK_EQ_U64(sh("cd '%s' && python3 -c \"import glob; "
                    "p = glob.glob('replay/replay-000013-cuda_dldn_rrref_expo0_kernel/alloc-0.bin')[0]; "
                    "b = bytearray(open(p, 'rb').read()); b[64:80] = bytes(16); open(p, 'wb').write(b); "
                    "p = glob.glob('dump/launch-015-*-arg048-texture-*')[0]; "
                    "b = bytearray(open(p, 'rb').read()); b[0::2] = bytes(x ^ 0x55 for x in b[0::2]); "
                    "open(p, 'wb').write(b)\"", dir), 0);
    VALIDATE(dir, "--mode both", 1);
    CHECK_EQ_U64(json_check(dir,
        "assert L[13]['status'] == 'FAIL' and L[13]['chained_status'] == 'PASS' and "
        "L[13]['chained'] == 'dispatched', L[13]; "
        "assert L[15]['status'] == 'ERROR' and 'changed since capture' in L[15]['note'], L[15]; "
        "assert L[15]['chained_status'] == 'PASS', L[15]; "
        "assert L[12]['chained'] == 'same as isolated', L[12]['chained']; "
        "assert all(l['chained_status'] == 'PASS' for l in L.values()), "
        "[(s, l['chained_status']) for s, l in L.items()]"), 0);
}

/* output#0 (frame 0) could not be read and only input#1 is shown: frame 0
 * runs unshown, so the one launch shown is the first result and the frame's
 * only one skipped for an earlier frame; the summary names the frame whole. */
static void check_broken_frame(const char *cap)
{
    char dir[4096], a[4300], *out = NULL, *err = NULL;
    copy_capture(cap, "brokenframe", dir, sizeof dir);
    CHECK_EQ_U64(sh("rm '%s'/replay/replay-000012-cuda_dldn_rrref_output_kernel/manifest.txt", dir), 0);
    snprintf(a, sizeof a, "validate '%s' --heatmaps none --mode chained "
             "--only 'cuda_dldn_rrref_input_kernel#1'", dir);
    CHECK_EQ_U64(test_run_vkrr(a, &out, &err), 2);
    const char *want = "\nchained: frame 1: 1 launches not validated: they need what frame 0 could "
                       "not produce (#12 cuda_dldn_rrref_output_kernel could not be read)\n";
    if (!CHECK(out && strstr(out, want)))
        fprintf(stderr, "--- vkrr %s printed:\n%s%s", a, out ? out : "", err ? err : "");
    free(out);
    free(err);
}

/* The capture with the cuTexObjectCreate lines matching `pattern` (a sed
 * address) gone, and the rrref PTX in modules/ to find their state. */
static void unlogged_copy(const char *cap, const char *name, const char *pattern, char *dir,
                          size_t len)
{
    copy_capture(cap, name, dir, len);
    CHECK_EQ_U64(sh("n=$(grep -c '%s' '%s/run/run.log') && [ \"$n\" -ge 1 ] && "
                    "sed -i '/%s/d' '%s/run/run.log' && mkdir -p '%s/modules' && "
                    "cp '%s'/*.ptx '%s/modules/'", pattern, dir, pattern, dir, dir,
                    VKRR_PTX_RRREF_DIR, dir), 0);
}

static void check_fit(const char *cap)
{
    char dir[4096];
    /* the history texture: the only one rrref filters (linear, unnormalized:
     * the attention block's linear samplers have normalized coordinates,
     * flags=0x2, and read only at integer coordinates) */
    unlogged_copy(cap, "fit", "cuTexObjectCreate .* filter=1 flags=0x0 ", dir, sizeof dir);
    VALIDATE(dir, "--mode chained", 0);
    CHECK_EQ_U64(json_check(dir, "assert len(L) == 24 and all(l['chained_status'] == 'PASS' "
                                 "for l in L.values()), [(s, l['chained_status'], l['note']) "
                                 "for s, l in L.items()]"), 0);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_input_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir, "assert L[3]['chained_status'] == 'FAIL', L[3]; "
                                 "assert L[12]['chained_status'] == 'FAIL', L[12]; "
                                 "assert not [s for s, l in L.items() if l['chained_status'] == 'ERROR']"),
                 0);
    /* the colour texture: created first, read at texel centres */
    unlogged_copy(cap, "fit_ambiguous", "cuTexObjectCreate .* object=0x1$", dir, sizeof dir);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_expo0_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir, "x = L[3]; assert x['chained_status'] == 'ERROR' and "
                                 "'sampler state ambiguous' in x['note'], x"), 0);
}

/* ---- six launches of kernels the test ports itself ------------------------ */

#define W 8u
#define H 4u
#define N (W * H)
#define DELTA 256u                    /* fill's window in B */
#define B_BYTES (DELTA + N * 4 + 64)
#define B_BASE 0x7e5000000000ull
#define O1_BASE 0x7e5100000000ull
#define O2_BASE 0x7e5200000000ull

static const struct {
    const char *name, *comp, *port;
} ports[] = {
    {"vkrr_cs_fill_kernel",
     "struct Params { VkrrF32Ptr dst; uint n; uint w; uint64_t s0; };\n"
     "VKRR_PARAMS(Params);\n"
     "void main()\n{\n    uint i = vkrr_global_id().x;\n"
     "    VkrrF32Ptr dst = vkrr_p.dst;\n"
     "    if (i >= vkrr_p.n)\n        return;\n"
     "    float v = float((i * 5u) % 11u + 1u);\n"
     "    vkrr_st_f(dst, i, v);\n"
     "    vkrr_surf2d_write_f1(vkrr_surf_handle(vkrr_p.s0), v + 100.0, int(i % vkrr_p.w) * 4,\n"
     "                         int(i / vkrr_p.w));\n}\n",
     "output arg0 f32 width=u32@8\noutput arg16 f32\n"},
    {"vkrr_cs_surf3_kernel",
     "struct Params { VkrrF32Ptr src; uint64_t a; uint64_t c; uint64_t b; uint w; uint h;\n"
     "                uint swap; uint pad; };\n"
     "VKRR_PARAMS(Params);\n"
     "void main()\n{\n    uvec3 g = vkrr_global_id();\n"
     "    if (g.x >= vkrr_p.w || g.y >= vkrr_p.h)\n        return;\n"
     "    VkrrF32Ptr src = vkrr_p.src;\n"
     "    float v = vkrr_ld_f(src, g.y * vkrr_p.w + g.x);\n"
     "    vkrr_surf2d_write_f1(vkrr_surf_handle(vkrr_p.a), v, int(g.x) * 4, int(g.y));\n"
     "    float f = floor(v);\n"
     "    vkrr_surf2d_write_f1(vkrr_surf_handle(vkrr_p.c), vkrr_p.swap != 0u ? f : v, int(g.x) * 4, int(g.y));\n"
     "    vkrr_surf2d_write_f1(vkrr_surf_handle(vkrr_p.b), vkrr_p.swap != 0u ? v : f, int(g.x) * 4, int(g.y));\n}\n",
     "output arg8 f32\noutput arg16 f32\noutput arg24 f32\n"},
    {"vkrr_cs_read_kernel",
     "struct Params { uint64_t texb; uint64_t tex; uint64_t tex0; VkrrF32Ptr dst; uint w; uint h; };\n"
     "VKRR_PARAMS(Params);\n"
     "void main()\n{\n    uvec3 g = vkrr_global_id();\n"
     "    if (g.x >= vkrr_p.w || g.y >= vkrr_p.h)\n        return;\n"
     "    VkrrF32Ptr dst = vkrr_p.dst;\n"
     "    float x = float(g.x) + 0.5, y = float(g.y) + 0.5;\n"
     "    uint i = g.y * vkrr_p.w + g.x, n = vkrr_p.w * vkrr_p.h;\n"
     "    vkrr_st_f(dst, i, vkrr_tex2d(vkrr_handle(vkrr_p.tex), x, y).x);\n"
     "    vkrr_st_f(dst, n + i, vkrr_tex2d(vkrr_handle(vkrr_p.tex0), x, y).x);\n"
     "    vkrr_st_f(dst, 2u * n + i, vkrr_tex2d(vkrr_handle(vkrr_p.texb), x, y).x);\n}\n",
     "output arg24 f32 width=u32@32 height=u32@36 planes=3\n"},
    {"vkrr_cs_lin_kernel",
     "struct Params { uint64_t lin; VkrrF32Ptr dst; uint n; uint pad; };\n"
     "VKRR_PARAMS(Params);\n"
     "void main()\n{\n    uint i = vkrr_global_id().x;\n"
     "    VkrrF32Ptr dst = vkrr_p.dst;\n"
     "    if (i < vkrr_p.n)\n"
     "        vkrr_st_f(dst, i, vkrr_tex1dfetch(vkrr_handle(vkrr_p.lin), int(i)).x);\n}\n",
     "output arg8 f32 width=u32@16\n"},
};

static void write_ports(const char *dir)
{
    CHECK_EQ_U64(sh("mkdir -p '%s'", dir), 0);
    for (size_t k = 0; k < sizeof ports / sizeof ports[0]; k++) {
        char path[4300], text[4096];
        snprintf(path, sizeof path, "%s/%s.comp", dir, ports[k].name);
        snprintf(text, sizeof text, "#version 460\n// test_chain_state's port of %s\n"
                 "#extension GL_GOOGLE_include_directive : require\n#include \"cuda.glsl\"\n"
                 "#include \"surface.glsl\"\n#include \"tex.glsl\"\n%s", ports[k].name, ports[k].comp);
        CHECK(test_write_file(path, text, strlen(text)));
        snprintf(path, sizeof path, "%s/%s.port", dir, ports[k].name);
        snprintf(text, sizeof text, "# test_chain_state\n%s", ports[k].port);
        CHECK(test_write_file(path, text, strlen(text)));
    }
}

static vkrr_status launch(vkrr_writer *w, const char *kernel, uint32_t gx, uint32_t bx, uint32_t by,
                          const void *args, uint32_t nargs, const vkrr_alloc_record *a,
                          const vkrr_pointer_record *p, const vkrr_image_record *im, uint32_t nim,
                          vkrr_error *err)
{
    return vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = kernel, .grid = {gx, 1, 1},
                                                       .block = {bx, by, 1}, .args = args,
                                                       .args_bytes = nargs, .allocs = a,
                                                       .nallocs = 1, .pointers = p,
                                                       .npointers = 1, .images = im,
                                                       .nimages = nim},
                              NULL, err);
}

static vkrr_image_record surface(uint32_t offset, uint64_t handle, const float *post)
{
    return (vkrr_image_record){.offset = offset, .kind = VKRR_IMAGE_SURFACE, .handle = handle,
                               .width = W, .height = H, .channels = 1, .format = 32, .post = post};
}

static vkrr_image_record texture(uint32_t offset, uint64_t handle, const float *post)
{
    return (vkrr_image_record){.offset = offset, .kind = VKRR_IMAGE_TEXTURE, .handle = handle,
                               .width = W, .height = H, .channels = 1, .format = 32, .post = post};
}

static void write_own(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] ",
                                                        .log_surface_arrays = true},
                                &err) == VKRR_OK))
        return;
    uint8_t b0[B_BYTES], b1[B_BYTES], zero[3 * N * 4] = {0};
    float v[N], v100[N], o1[3 * N];
    for (uint32_t i = 0; i < B_BYTES; i++)
        b0[i] = (uint8_t)(i * 7 + 3);
    memcpy(b1, b0, sizeof b1);
    for (uint32_t i = 0; i < N; i++) {
        v[i] = (float)((i * 5) % 11 + 1);
        v100[i] = v[i] + 100.0f;
        o1[i] = o1[2 * N + i] = v[i];
        o1[N + i] = v100[i];
    }
    memcpy(b1 + DELTA, v, sizeof v);
    vkrr_sampler point = {.address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}};
    uint64_t arr_s0 = vkrr_writer_array_create(w, W, H, 32, 1);
    uint64_t arr_a = vkrr_writer_array_create(w, W, H, 32, 1);
    uint64_t arr_c = vkrr_writer_array_create(w, W, H, 32, 1);
    uint64_t arr_b = vkrr_writer_array_create(w, W, H, 32, 1);
    uint64_t arr_t = vkrr_writer_array_create(w, W, H, 32, 1); /* the log loses it (below) */
    uint64_t s0 = vkrr_writer_surface_create(w, arr_s0, 0), sa = vkrr_writer_surface_create(w, arr_a, 0);
    uint64_t sc = vkrr_writer_surface_create(w, arr_c, 0), sb = vkrr_writer_surface_create(w, arr_b, 0);
    uint64_t sa2 = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, W, H, 32, 1), 0);
    uint64_t sc2 = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, W, H, 32, 1), 0);
    uint64_t sb2 = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, W, H, 32, 1), 0);
    uint64_t texb = vkrr_writer_texture_create(w, arr_b, &point, 0);
    uint64_t tex = vkrr_writer_texture_create(w, arr_t, &point, 0);
    uint64_t tex0 = vkrr_writer_texture_create(w, arr_s0, &point, 0);
    uint64_t lin = vkrr_writer_texture_create_linear(
        w, &(vkrr_linear_desc){.resource = VKRR_TEXRES_LINEAR, .devptr = B_BASE + DELTA,
                               .format = 32, .channels = 1, .bytes = N * 4},
        &point, 0);
    vkrr_status s;
    {   /* fill: B's window and S0 */
        struct { uint64_t dst; uint32_t n, w; uint64_t s0; } p = {B_BASE + DELTA, N, W, s0};
        vkrr_image_record im = surface(16, s0, v100);
        s = launch(w, "vkrr_cs_fill_kernel", 1, 64, 1, &p, sizeof p,
                   &(vkrr_alloc_record){B_BASE, B_BYTES, b0, b1}, &(vkrr_pointer_record){0, 0, DELTA},
                   &im, 1, &err);
    }
    /* surf3 then read, twice: the second surf3 writes the floor at arg16
     * and v at arg24 (swap), so its B' comes before its C among the alike,
     * and no texture reads that B' by its array (its entry comes after A2's) */
    for (int k = 0; k < 2 && s == VKRR_OK; k++) {
        uint64_t a = k ? sa2 : sa, c = k ? sc2 : sc, b = k ? sb2 : sb;
        struct { uint64_t src, a, c, b; uint32_t w, h, swap, pad; } p = {B_BASE + DELTA, a, c, b, W, H,
                                                                    (uint32_t)k, 0};
        vkrr_image_record im[3] = {surface(8, a, v), surface(16, c, v), surface(24, b, v)};
        s = launch(w, "vkrr_cs_surf3_kernel", 1, W, H, &p, sizeof p,
                   &(vkrr_alloc_record){B_BASE, B_BYTES, b1, b1}, &(vkrr_pointer_record){0, 0, DELTA},
                   im, 3, &err);
        /* read: B' (its array), A or C or B' (the bytes), S0 (its array) */
        struct { uint64_t texb, tex, tex0, dst; uint32_t w, h; } q = {texb, tex, tex0, O1_BASE, W, H};
        vkrr_image_record it[3] = {texture(0, texb, v), texture(8, tex, v), texture(16, tex0, v100)};
        if (s == VKRR_OK)
            s = launch(w, "vkrr_cs_read_kernel", 1, W, H, &q, sizeof q,
                       &(vkrr_alloc_record){O1_BASE, 3 * N * 4, zero, o1},
                       &(vkrr_pointer_record){24, 0, 0}, it, 3, &err);
    }
    if (s == VKRR_OK) { /* lin: B's window through a texture over linear memory */
        struct { uint64_t lin, dst; uint32_t n, pad; } p = {lin, O2_BASE, N, 0};
        vkrr_image_record im = {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = lin, .post = b1,
                                .resource = VKRR_TEXRES_LINEAR, .base = B_BASE, .delta = DELTA,
                                .buffer_bytes = B_BYTES};
        s = launch(w, "vkrr_cs_lin_kernel", 1, 64, 1, &p, sizeof p,
                   &(vkrr_alloc_record){O2_BASE, N * 4, zero, v}, &(vkrr_pointer_record){8, 0, 0},
                   &im, 1, &err);
    }
    if (!CHECK(s == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    /* the texture's array unknown: read finds its surface by the bytes */
    CHECK_EQ_U64(sh("grep -q 'cuTexObjectCreate .* array=0x%llx ' '%s/run/run.log' && "
                    "sed -i 's/\\(cuTexObjectCreate .*\\) array=0x%llx /\\1 /' '%s/run/run.log'",
                    (unsigned long long)arr_t, dir, (unsigned long long)arr_t, dir), 0);
}

/* The read of sequence `seq` is a tie: ERROR, its note naming surf3 `from`. */
static const char *tie(char *py, size_t len, unsigned seq, unsigned from)
{
    snprintf(py, len, "x = L[%u]; assert x['chained_status'] == 'ERROR', x; "
             "assert x['note'] == 'chained: a texture reads one of 3 surfaces of #%u "
             "vkrr_cs_surf3_kernel whose dumps are equal, and the port wrote them differently: which "
             "one it reads, the capture does not say, so neither PASS nor FAIL', x['note']; ",
             seq, from);
    return py;
}

static void check_own(void)
{
    char cap[4096], dir[4096], pd[4096], args[8192], py[4096], t3[1024], t5[1024];
    snprintf(cap, sizeof cap, "%s/own", root);
    snprintf(pd, sizeof pd, "%s/ports", root);
    write_own(cap);
    write_ports(pd);
    tie(t3, sizeof t3, 3, 2);
    tie(t5, sizeof t5, 5, 4);
#define P(a) (snprintf(args, sizeof args, "--ports '%s' %s", pd, a), args)
    copy_capture(cap, "own_plain", dir, sizeof dir);
    VALIDATE(dir, P("--mode chained"), 0);
    CHECK_EQ_U64(json_check(dir, "assert [l['chained_status'] for l in L.values()] == ['PASS'] * 6, L; "
                                 "k = [[(x['arg'], x['from']['launch'], x['from']['arg'], x['alike_args']) "
                                 "for x in L[s]['links']] for s in (3, 5)]; "
                                 "assert k == [[(0, 2, 24, []), (8, 2, 8, [16, 24]), (16, 1, 16, [])], "
                                 "[(0, 2, 24, []), (8, 4, 8, [16, 24]), (16, 1, 16, [])]], k"),
                 0);
    copy_capture(cap, "own_fill", dir, sizeof dir);
    VALIDATE(dir, P("--mode chained --perturb vkrr_cs_fill_kernel=1024"), 1);
    snprintf(py, sizeof py, "%s%sx = L[6]; c = x['resources'][0]['chained']; "
             "assert x['chained_status'] == 'FAIL' and c['max_ulp'] == 1024 and c['exact_pct'] == 0, x",
             t3, t5);
    CHECK_EQ_U64(json_check(dir, py), 0);
    copy_capture(cap, "own_fill4", dir, sizeof dir);
    /* (exit 1: surf3 leaves B as it found it, 4 ULPs off the capture byte for byte) */
    VALIDATE(dir, P("--mode chained --perturb vkrr_cs_fill_kernel=4"), 1);
    snprintf(py, sizeof py, "%s%sx = L[6]; c = x['resources'][0]['chained']; "
             "assert x['chained_status'] == 'PASS' and c['max_ulp'] == 4 and c['exact_pct'] == 0, x",
             t3, t5);
    CHECK_EQ_U64(json_check(dir, py), 0);
    copy_capture(cap, "own_surf", dir, sizeof dir);
    VALIDATE(dir, P("--mode chained --perturb vkrr_cs_surf3_kernel=1024"), 1);
    CHECK_EQ_U64(json_check(dir,
        "x = L[3]; c = x['resources'][0]['chained']; "
        "assert x['chained_status'] == 'FAIL' and c['max_ulp'] == 1024, x; "
        "assert L[6]['chained_status'] == 'PASS', L[6]"), 0);
    copy_capture(cap, "own_both", dir, sizeof dir);
    VALIDATE(dir, P("--mode both --perturb vkrr_cs_read_kernel=1024"), 1);
    CHECK_EQ_U64(json_check(dir,
        "assert L[2]['chained'] == 'same as isolated', L[2]; "
        "x = L[3]; c = x['resources'][0]['chained']; assert x['chained'] == 'dispatched', x; "
        "assert x['chained_status'] == 'FAIL' and c['max_ulp'] == 1024, x"), 0);
    /* the first surf3 could not be read: its alloc file, then its manifest
     * gone (what it wrote is not known at all: every later launch needs it) */
    static const char *const gone[] = {"alloc-0.bin", "manifest.txt"};
    for (int g = 0; g < 2; g++) {
        char name[64];
        snprintf(name, sizeof name, "own_broken%d", g);
        copy_capture(cap, name, dir, sizeof dir);
        CHECK_EQ_U64(sh("rm '%s'/replay/replay-000002-*/%s", dir, gone[g]), 0);
        VALIDATE(dir, P("--mode chained"), 2);
        CHECK_EQ_U64(json_check(dir,
            "s = [L[q]['chained_status'] for q in range(1, 7)]; "
            "assert s == ['PASS', 'ERROR'] + ['SKIPPED'] * 4, s; "
            "assert all('#2 vkrr_cs_surf3_kernel' in L[q]['note'] for q in range(3, 7)), L[3]['note']"),
                     0);
    }
#undef P
}

int main(void)
{
    root = test_tmpdir("test_chain_state");
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 32, .height = 24, .frames = 2, .module_dir = "",
                         .log_surface_arrays = true};
    if (CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        check_held(cap);
        check_dump_state(cap);
        check_fit(cap);
        check_broken_frame(cap);
    } else {
        vkrr_error_print(&err, stderr);
    }
    check_own();
    int rc = test_finish("chain_state");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
