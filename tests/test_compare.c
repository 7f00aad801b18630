/* test_compare.c - metrics checked against hand-computed values, NaN/Inf and
 * sentinel classification, the tolerance file and flag precedence. */
#include "compare.h"
#include "compare_scan.h"
#include "perturb.h"
#include "replay.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)); }

static void test_identical(void)
{
    vkrr_view v = {.dtype = VKRR_DT_F16, .offset = 4, .width = 4, .height = 3, .planes = 2, .channels = 2};
    uint64_t bytes = 4 + vkrr_view_bytes(&v) + 6;
    uint8_t *a = calloc(1, bytes), *b = calloc(1, bytes);
    for (unsigned i = 0; i < 48; i++)
        test_put16(a + 4 + 2 * i, vkrr_f32_to_f16_rne((float)i * 0.25f - 3.0f));
    memcpy(b, a, bytes);
    vkrr_metrics m;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_compare(&v, a, b, bytes, NULL, &m, &err), VKRR_OK);
    CHECK_EQ_U64(m.count, 48);
    CHECK_EQ_U64(m.exact, 48);
    CHECK(m.exact_pct == 100.0);
    CHECK(isinf(m.psnr) && m.psnr > 0);
    CHECK(m.max_abs == 0 && m.rmse == 0 && m.nmse == 0 && m.mean_abs == 0);
    CHECK_EQ_U64(m.max_abs_index, UINT64_MAX);
    CHECK_EQ_U64(m.first_bad, UINT64_MAX);
    CHECK_EQ_U64(m.max_ulp, 0);
    CHECK(m.within1_ulp_pct == 100.0 && m.within4_ulp_pct == 100.0);
    CHECK(m.pass && vkrr_compare_pass(&m));
    /* bit-identical: the memcmp fast path leaves the reference's range
     * uncomputed (compare.h); one differing element computes it */
    CHECK(m.peak == 0 && m.ref_min == 0 && m.ref_max == 0);
    uint16_t keep = b[5];
    b[5] ^= 1;
    CHECK_EQ_U64(vkrr_compare(&v, a, b, bytes, NULL, &m, &err), VKRR_OK);
    CHECK(m.peak == 8.75);           /* |47*0.25-3| */
    CHECK(m.ref_min == -3.0 && m.ref_max == 8.75);
    CHECK_EQ_U64(m.exact, 47);
    b[5] = keep;

    /* the window must fit */
    v.height = 4;
    CHECK_EQ_U64(vkrr_compare(&v, a, b, bytes, NULL, &m, &err), VKRR_ERR_RANGE);
    CHECK(strstr(err.msg, "does not fit") != NULL);
    v.height = 3;
    v.offset = bytes;
    CHECK_EQ_U64(vkrr_compare(&v, a, b, bytes, NULL, &m, &err), VKRR_ERR_RANGE);
    vkrr_view huge = {.dtype = VKRR_DT_F32, .width = UINT32_MAX, .height = UINT32_MAX,
                      .planes = UINT32_MAX, .channels = UINT32_MAX};
    CHECK_EQ_U64(vkrr_compare(&huge, a, b, bytes, NULL, &m, &err), VKRR_ERR_RANGE);
    free(a);
    free(b);
}

static void test_single_change(void)
{
    vkrr_view v = {.dtype = VKRR_DT_F16, .width = 4, .height = 3, .planes = 2, .channels = 2};
    uint8_t a[96], b[96];
    for (unsigned i = 0; i < 48; i++)
        test_put16(a + 2 * i, 0x3c00); /* 1.0 */
    memcpy(b, a, sizeof a);
    /* plane 1, y 0, x 2, channel 1: ((1*3 + 0)*4 + 2)*2 + 1 = 29 */
    test_put16(b + 2 * 29, 0x3c03); /* 1 + 3*2^-10: 3 ULP up */
    vkrr_metrics m;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_compare(&v, a, b, sizeof a, NULL, &m, &err), VKRR_OK);
    double d = 3.0 / 1024;
    CHECK_EQ_U64(m.exact, 47);
    CHECK(near(m.exact_pct, 100.0 * 47 / 48));
    CHECK(m.max_abs == d);
    CHECK_EQ_U64(m.max_abs_index, 29);
    CHECK_EQ_U64(m.max_abs_pos.x, 2);
    CHECK_EQ_U64(m.max_abs_pos.y, 0);
    CHECK_EQ_U64(m.max_abs_pos.plane, 1);
    CHECK_EQ_U64(m.max_abs_pos.channel, 1);
    CHECK(m.max_abs_ref == 1.0 && m.max_abs_cand == 1.0 + d);
    CHECK(near(m.mean_abs, d / 48));
    CHECK(near(m.rmse, d / sqrt(48)));
    CHECK(near(m.nmse, d * d / 48));
    CHECK(near(m.psnr, 20 * log10(1.0 / (d / sqrt(48)))));
    CHECK_EQ_U64(m.max_ulp, 3);
    CHECK(near(m.within1_ulp_pct, 100.0 * 47 / 48));
    CHECK(m.within4_ulp_pct == 100.0);
    /* the f16 default (2 ULP) rejects it */
    CHECK_EQ_U64(m.out_of_tol, 1);
    CHECK_EQ_U64(m.first_bad, 29);
    CHECK(!m.pass);
    /* 3 ULP allowed: passes; an atol just below the error does not help */
    vkrr_tolerance t = {.atol = -1, .rtol = -1, .max_ulp = 3};
    CHECK_EQ_U64(vkrr_compare(&v, a, b, sizeof a, &t, &m, &err), VKRR_OK);
    CHECK(m.pass);
    t = (vkrr_tolerance){.atol = d * 0.99, .rtol = -1, .max_ulp = -1};
    vkrr_compare(&v, a, b, sizeof a, &t, &m, &err);
    CHECK(!m.pass);
    t.atol = d;
    vkrr_compare(&v, a, b, sizeof a, &t, &m, &err);
    CHECK(m.pass);
    t = (vkrr_tolerance){.atol = -1, .rtol = d, .max_ulp = -1}; /* |ref| = 1 */
    vkrr_compare(&v, a, b, sizeof a, &t, &m, &err);
    CHECK(m.pass);

    /* the same data as a flat buffer of bytes: exact only */
    vkrr_view fb = vkrr_compare_flat_view(VKRR_DT_BYTES, sizeof a);
    CHECK_EQ_U64(fb.width, 96);
    vkrr_compare(&fb, a, b, sizeof a, NULL, &m, &err);
    CHECK_EQ_U64(m.count, 96);
    CHECK_EQ_U64(m.exact, 95);
    CHECK_EQ_U64(m.first_bad, 58); /* low byte of element 29 */
    CHECK(!m.pass);
    vkrr_view ff = vkrr_compare_flat_view(VKRR_DT_F32, 10);
    CHECK_EQ_U64(ff.width, 2);

    /* error map and decode */
    float e[48], r[48];
    CHECK_EQ_U64(vkrr_compare_error_map(&v, a, b, sizeof a, e, &err), VKRR_OK);
    CHECK_EQ_U64(vkrr_compare_decode(&v, b, sizeof b, r, &err), VKRR_OK);
    unsigned nonzero = 0;
    for (unsigned i = 0; i < 48; i++)
        nonzero += e[i] != 0;
    CHECK_EQ_U64(nonzero, 1);
    CHECK(e[29] == (float)d);
    CHECK(r[29] == (float)(1 + d) && r[0] == 1.0f);
}

static void test_nan_inf(void)
{
    enum { N = 8 };
    uint8_t a[4 * N], b[4 * N];
    float ra[N] = {NAN, 1.0f, 0, INFINITY, INFINITY, -0.0f, 2.0f, 3.0f};
    float rb[N] = {1.0f, NAN, 0, 1.0f, -INFINITY, 0.0f, 2.0f, 3.5f};
    for (unsigned i = 0; i < N; i++) {
        test_putf32(a + 4 * i, ra[i]);
        test_putf32(b + 4 * i, rb[i]);
    }
    /* element 2: two different NaNs count as a match */
    uint32_t n1 = 0x7fc00000u, n2 = 0xffc00001u;
    memcpy(a + 8, &n1, 4);
    memcpy(b + 8, &n2, 4);
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F32, sizeof a);
    vkrr_metrics m;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_compare(&v, a, b, sizeof a, NULL, &m, &err), VKRR_OK);
    CHECK_EQ_U64(m.nan_mismatch, 2);
    CHECK_EQ_U64(m.inf_mismatch, 2);
    CHECK_EQ_U64(m.exact, 2); /* the NaN pair and 2.0 */
    CHECK_EQ_U64(m.first_bad, 0);
    CHECK_EQ_U64(m.out_of_tol, 1); /* 3 vs 3.5 */
    CHECK(m.max_abs == 0.5);
    CHECK_EQ_U64(m.max_abs_index, 7);
    CHECK(!m.pass);
    /* -0 vs +0 is numeric and 0 ULP apart; 3.0f = 0x40400000 and 3.5f =
     * 0x40600000 are 0x200000 ULP apart */
    CHECK_EQ_U64(m.max_ulp, 0x200000);
    float e[N];
    vkrr_compare_error_map(&v, a, b, sizeof a, e, &err);
    CHECK(isinf(e[0]) && isinf(e[1]) && e[2] == 0 && isinf(e[3]) && isinf(e[4]));
    CHECK(e[5] == 0 && e[6] == 0 && e[7] == 0.5f);
}

static void test_unwritten(void)
{
    uint8_t a[8], b[8];
    test_put16(a + 0, 0x3c00); test_put16(b + 0, 0xffff); /* unwritten */
    test_put16(a + 2, 0xffff); test_put16(b + 2, 0xffff); /* reference is the sentinel too: exact */
    test_put16(a + 4, 0x4000); test_put16(b + 4, 0xffff); /* unwritten */
    test_put16(a + 6, 0x7e00); test_put16(b + 6, 0x7c01); /* NaN both sides: match */
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F16, 8);
    v.sentinel = true; /* the candidate started as the sentinel (a surface) */
    vkrr_metrics m;
    vkrr_error err = {0};
    vkrr_compare(&v, a, b, 8, NULL, &m, &err);
    CHECK_EQ_U64(m.unwritten, 2);
    CHECK_EQ_U64(m.nan_mismatch, 0);
    CHECK_EQ_U64(m.exact, 2);
    CHECK_EQ_U64(m.first_bad, 0);
    CHECK(!m.pass);
    /* integers: the sentinel byte pattern is counted the same way */
    uint8_t c[4] = {0xfe, 0xff, 7, 9}, d[4] = {0xff, 0xff, 7, 8};
    vkrr_view vb = vkrr_compare_flat_view(VKRR_DT_U8, 4);
    vb.sentinel = true;
    vkrr_compare(&vb, c, d, 4, NULL, &m, &err);
    CHECK_EQ_U64(m.unwritten, 1);
    CHECK_EQ_U64(m.out_of_tol, 1);
    CHECK_EQ_U64(m.exact, 2);
    CHECK(m.max_abs == 1.0 && m.max_abs_index == 3);
    CHECK_EQ_U64(VKRR_SENTINEL_BYTE, 0xff);
    /* a buffer starts from its pre-launch bytes: 0xff is a value written
     * wrongly, not an unwritten element; within atol 1 of 0xfe it passes */
    vb.sentinel = false;
    vkrr_tolerance one = {.atol = 1, .rtol = -1, .max_ulp = -1};
    vkrr_compare(&vb, c, d, 4, &one, &m, &err);
    CHECK_EQ_U64(m.unwritten, 0);
    CHECK(m.pass && m.max_abs == 1.0 && m.exact == 2);
    v.sentinel = false; /* f16 0xffff is a NaN: a NaN mismatch, not unwritten */
    vkrr_compare(&v, a, b, 8, NULL, &m, &err);
    CHECK(m.unwritten == 0 && m.nan_mismatch == 2 && m.exact == 2 && !m.pass);
    float e[4];
    CHECK(vkrr_compare_error_map(&v, a, b, 8, e, &err) == VKRR_OK && isinf(e[0]) && e[1] == 0);
}

static void test_e4m3(void)
{
    uint8_t a[3] = {0x38, 0x38, 0x80}, b[3] = {0x39, 0x38, 0x00};
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_E4M3, 3);
    vkrr_metrics m;
    vkrr_error err = {0};
    vkrr_compare(&v, a, b, 3, NULL, &m, &err);
    CHECK(m.pass); /* 1 ULP, and -0 vs +0 */
    CHECK_EQ_U64(m.max_ulp, 1);
    CHECK(m.max_abs == 0.125);
    b[0] = 0x3a;
    vkrr_compare(&v, a, b, 3, NULL, &m, &err);
    CHECK(!m.pass);
    CHECK_EQ_U64(m.max_ulp, 2);
}

static void test_tolerance_rules(void)
{
    const char *text =
        "# tolerances\n"
        "\n"
        "*                        max_ulp=4   # everything\n"
        "swin_enc*                atol=1e-3\n"
        "swin_enc0_kernel#2 arg24 max_ulp=off atol=0.01\n"
        "swin_dec0_kernel#0 arg0 atol=0.25  # the first occurrence, the first argument only\n"
        "  other_kernel arg* rtol=0.5\n";
    vkrr_tol_rules *rs = NULL;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_compare_tol_parse(&rs, text, strlen(text), "tol.txt", &err), VKRR_OK);
    vkrr_tolerance t = vkrr_compare_tol_resolve(rs, "unrelated", 0, 0, VKRR_DT_F16);
    CHECK(t.max_ulp == 4 && t.atol < 0 && t.rtol < 0);
    t = vkrr_compare_tol_resolve(rs, "unrelated", 0, 0, VKRR_DT_U8);
    CHECK(t.max_ulp == 4 && t.atol < 0);
    t = vkrr_compare_tol_resolve(rs, "swin_enc1_kernel", 5, 8, VKRR_DT_F16);
    CHECK(t.max_ulp == 4 && t.atol == 1e-3);
    t = vkrr_compare_tol_resolve(rs, "swin_enc0_kernel", 2, 24, VKRR_DT_F16);
    CHECK(t.max_ulp < 0 && t.atol == 0.01);
    t = vkrr_compare_tol_resolve(rs, "swin_enc0_kernel", 1, 24, VKRR_DT_F16); /* other occurrence */
    CHECK(t.max_ulp == 4 && t.atol == 1e-3);
    t = vkrr_compare_tol_resolve(rs, "swin_enc0_kernel", 2, 16, VKRR_DT_F16); /* other argument */
    CHECK(t.max_ulp == 4 && t.atol == 1e-3);
    /* #0 and arg0 are numbers like any other, not "any" */
    t = vkrr_compare_tol_resolve(rs, "swin_dec0_kernel", 0, 0, VKRR_DT_F16);
    CHECK(t.atol == 0.25 && t.max_ulp == 4);
    t = vkrr_compare_tol_resolve(rs, "swin_dec0_kernel", 1, 0, VKRR_DT_F16);
    CHECK(t.atol < 0 && t.max_ulp == 4);
    t = vkrr_compare_tol_resolve(rs, "swin_dec0_kernel", 0, 8, VKRR_DT_F16);
    CHECK(t.atol < 0 && t.max_ulp == 4);
    t = vkrr_compare_tol_resolve(rs, "other_kernel", 0, 99, VKRR_DT_F32);
    CHECK(t.rtol == 0.5 && t.max_ulp == 4 && t.atol == 1e-6);
    /* flags override every rule */
    vkrr_compare_tol_set_flags(rs, &(vkrr_tol_override){.has_atol = true, .atol = 0.5,
                                                          .has_max_ulp = true, .max_ulp = 0});
    t = vkrr_compare_tol_resolve(rs, "swin_enc0_kernel", 2, 24, VKRR_DT_F16);
    CHECK(t.atol == 0.5 && t.max_ulp == 0 && t.rtol < 0);
    vkrr_compare_tol_destroy(rs);
    vkrr_compare_tol_destroy(NULL);

    /* defaults without rules */
    t = vkrr_compare_tol_resolve(NULL, "k", 0, 0, VKRR_DT_E4M3);
    CHECK(t.max_ulp == 1 && t.atol < 0);
    t = vkrr_compare_tol_resolve(NULL, "k", 0, 0, VKRR_DT_S32);
    CHECK(t.max_ulp < 0 && t.atol < 0 && t.rtol < 0);

    /* malformed lines name file:line */
    struct {
        const char *text;
        long line;
        const char *what;
    } bad[] = {
        {"k atol=1\nk atol\n", 2, "key=value"},
        {"# c\n\nk bogus=1\n", 3, "unknown key"},
        {"k xtol=1\n", 1, "unknown key"}, /* as long as rtol, and not it */
        {"k#x atol=1\n", 1, "occurrence"},
        {"k#-1 atol=1\n", 1, "occurrence"},
        {"k arg1x atol=1\n", 1, "argument"},
        {"k\n", 1, "sets nothing"},
        {"k arg8\n", 1, "sets nothing"},
        {"k atol=-1\n", 1, "number >= 0"},
        {"k atol=nan\n", 1, "number >= 0"},
        {"k max_ulp=1.5\n", 1, "integer"},
        {"atol=1\n", 1, "kernel name"},
        {"#3 atol=1\n", 0, NULL}, /* a comment line: fine */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rs = NULL;
        err = (vkrr_error){0};
        vkrr_status st = vkrr_compare_tol_parse(&rs, bad[i].text, strlen(bad[i].text), "bad.tol", &err);
        if (!bad[i].what) {
            CHECK_EQ_U64(st, VKRR_OK);
            vkrr_compare_tol_destroy(rs);
            continue;
        }
        CHECK_EQ_U64(st, VKRR_ERR_PARSE);
        CHECK(rs == NULL);
        CHECK_EQ_U64(err.line, bad[i].line);
        char buf[1024], want[64];
        vkrr_error_format(&err, buf, sizeof buf);
        snprintf(want, sizeof want, "bad.tol:%ld: ", bad[i].line);
        CHECK(!strncmp(buf, want, strlen(want)));
        if (!strstr(buf, bad[i].what))
            fprintf(stderr, "    message: %s (wanted '%s')\n", buf, bad[i].what);
        CHECK(strstr(buf, bad[i].what) != NULL);
    }

    /* a NUL byte is refused, named by its line */
    rs = NULL;
    CHECK_EQ_U64(vkrr_compare_tol_parse(&rs, "k atol=1\nk a\0tol=1\n", 19, "bad.tol", &err), VKRR_ERR_PARSE);
    CHECK(rs == NULL && err.line == 2 && strstr(err.msg, "NUL"));

    /* from a file, and a missing file */
    char *dir = test_tmpdir("compare");
    char path[1024];
    snprintf(path, sizeof path, "%s/t.tol", dir);
    const char *ft = "k#0 arg8 atol=2\nk atol=zzz\n";
    CHECK(test_write_file(path, ft, strlen(ft)));
    CHECK_EQ_U64(vkrr_compare_tol_load(&rs, path, &err), VKRR_ERR_PARSE);
    CHECK(!strcmp(err.file, path) && err.line == 2);
    CHECK(test_write_file(path, ft, 16));
    CHECK_EQ_U64(vkrr_compare_tol_load(&rs, path, &err), VKRR_OK);
    t = vkrr_compare_tol_resolve(rs, "k", 0, 8, VKRR_DT_F16);
    CHECK(t.atol == 2);
    vkrr_compare_tol_destroy(rs);
    /* a file over the 4 MiB a tolerance file may hold (comments to the end):
     * refused as too large, not read in part */
    size_t big = (4u << 20) + 100;
    char *huge = malloc(big);
    if (CHECK(huge)) {
        memset(huge, ' ', big);
        memcpy(huge, "k atol=1\n#", 10);
        huge[big - 1] = '\n';
        CHECK(test_write_file(path, huge, big));
        CHECK_EQ_U64(vkrr_compare_tol_load(&rs, path, &err), VKRR_ERR_SIZE);
        CHECK(strstr(err.msg, "larger than 4194304 bytes"));
        free(huge);
    }
    /* more rules than the first allocation holds: the last one still counts */
    char many[2048] = "";
    for (int i = 0; i < 40; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "kern%d atol=%d\n", i, i + 1);
    rs = NULL;
    CHECK_EQ_U64(vkrr_compare_tol_parse(&rs, many, strlen(many), "many.tol", &err), VKRR_OK);
    t = vkrr_compare_tol_resolve(rs, "kern39", 0, 0, VKRR_DT_F16);
    CHECK(t.atol == 40);
    t = vkrr_compare_tol_resolve(rs, "kern7", 0, 0, VKRR_DT_F16);
    CHECK(t.atol == 8);
    vkrr_compare_tol_destroy(rs);
    snprintf(path, sizeof path, "%s/missing.tol", dir);
    CHECK_EQ_U64(vkrr_compare_tol_load(&rs, path, &err), VKRR_ERR_MISSING);
    CHECK_EQ_U64(vkrr_compare_tol_load(&rs, NULL, &err), VKRR_OK);
    CHECK(rs != NULL);
    vkrr_compare_tol_destroy(rs);
    test_rmtree(dir);
    free(dir);

    CHECK(vkrr_compare_glob("*", ""));
    CHECK(vkrr_compare_glob("a*c", "abbbc"));
    CHECK(vkrr_compare_glob("*enc*_kernel", "swin_enc0_kernel"));
    CHECK(!vkrr_compare_glob("a*c", "abcd"));
    CHECK(!vkrr_compare_glob("abc", "ab"));
    CHECK(vkrr_compare_glob("a**b*", "ab"));
}

/* Hashing while comparing: windows walked in file order (gaps hashed by the
 * caller) give the whole buffer's FNV-1a 64, identical or not, across slice
 * boundaries, and the metrics are those of vkrr_compare. */
static void test_hashed(void)
{
    size_t bytes = 300000; /* several 64 KiB slices, not a multiple of one */
    uint8_t *a = malloc(bytes), *b = malloc(bytes);
    if (!CHECK(a && b)) {
        free(a);
        free(b);
        return;
    }
    for (size_t i = 0; i < bytes; i++)
        a[i] = b[i] = (uint8_t)(i * 7 + (i >> 9));
    uint64_t want = vkrr_fnv1a64(a, bytes);
    for (int differ = 0; differ < 2; differ++) {
        if (differ)
            b[200001] ^= 0x40; /* inside the second window, past its first slice */
        vkrr_view w1 = {.dtype = VKRR_DT_F16, .offset = 1000, .width = 40000, .height = 1,
                        .planes = 1, .channels = 1};
        vkrr_view w2 = {.dtype = VKRR_DT_F16, .offset = 100000, .width = 60000, .height = 1,
                        .planes = 1, .channels = 1};
        vkrr_hash_cursor hc = {VKRR_FNV1A64_INIT, 0};
        vkrr_metrics m1, m2, r2;
        vkrr_error err = {0};
        hc.h = vkrr_fnv1a64_update(hc.h, a, w1.offset), hc.pos = w1.offset;
        CHECK(vkrr_compare_hashed(&w1, a, b, bytes, NULL, &hc, &m1, &err) == VKRR_OK);
        CHECK_EQ_U64(hc.pos, w1.offset + 80000);
        hc.h = vkrr_fnv1a64_update(hc.h, a + hc.pos, w2.offset - hc.pos), hc.pos = w2.offset;
        CHECK(vkrr_compare_hashed(&w2, a, b, bytes, NULL, &hc, &m2, &err) == VKRR_OK);
        hc.h = vkrr_fnv1a64_update(hc.h, a + hc.pos, bytes - hc.pos);
        CHECK_EQ_U64(hc.h, want);
        CHECK(vkrr_compare(&w2, a, b, bytes, NULL, &r2, &err) == VKRR_OK);
        CHECK_EQ_U64(m2.exact, r2.exact);
        CHECK_EQ_U64(m2.max_ulp, r2.max_ulp);
        CHECK_EQ_U64(m2.first_bad, r2.first_bad);
        CHECK_EQ_U64(m2.exact, differ ? 59999 : 60000);
        CHECK(m1.pass && m1.exact == 40000);
        /* the gap before a window is the caller's: skipped, it is never hashed;
         * a window that starts before the cursor hashes only what is new */
        vkrr_hash_cursor hc2 = {VKRR_FNV1A64_INIT, 0};
        vkrr_view all = vkrr_compare_flat_view(VKRR_DT_F16, bytes);
        CHECK(vkrr_compare_hashed(&w1, a, b, bytes, NULL, &hc2, &m1, &err) == VKRR_OK);
        CHECK(vkrr_compare_hashed(&all, a, b, bytes, NULL, &hc2, &m1, &err) == VKRR_OK);
        CHECK(hc2.h != want); /* [0, 1000) was left out */
        vkrr_hash_cursor hc3 = {VKRR_FNV1A64_INIT, 0};
        CHECK(vkrr_compare_hashed(&all, a, b, bytes, NULL, &hc3, &m1, &err) == VKRR_OK);
        CHECK(vkrr_compare_hashed(&w2, a, b, bytes, NULL, &hc3, &m2, &err) == VKRR_OK);
        CHECK_EQ_U64(hc3.h, want);
        CHECK_EQ_U64(hc3.pos, bytes);
    }
    free(a);
    free(b);
}

/* Figures only, never a failure: f16 compare throughput on 64 MiB with 1% of
 * elements off by one ULP. */
static void throughput(void)
{
    size_t bytes = 64u << 20, n = bytes / 2;
    uint8_t *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        uint16_t h = (uint16_t)((x >> 16) & 0x7bff);
        test_put16(a + 2 * i, h);
        test_put16(b + 2 * i, (i % 100) == 7 ? (uint16_t)(h ^ 1) : h);
    }
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F16, bytes);
    vkrr_metrics m;
    vkrr_error err = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    vkrr_compare(&v, a, b, bytes, NULL, &m, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK(m.count == n && m.max_ulp == 1 && m.pass);
    printf("compare throughput: f16 %.0f MB/s (reference bytes per second)\n", bytes / s / 1e6);
    free(a);
    free(b);
}

int main(void)
{
    vkrr_warn_set_stream(NULL);
    test_identical();
    test_single_change();
    test_nan_inf();
    test_unwritten();
    test_e4m3();
    test_tolerance_rules();
    test_hashed();
    throughput();
    return test_finish("compare");
}
