/* synth.c - `vkrr synth` (see synth.h): scene -> rrref on the CPU backend ->
 * capture, written to a temporary sibling directory and renamed at the end. */
#include "synth.h"
#include "clock.h"
#include "synth_internal.h"

#include "hw_model.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "capture_write.h"
#include "backends.h"
#include "cuformat.h"
#include "datadir.h"
#include "rrref_host.h"
#include "scene.h"


#define MODULE_MAX_BYTES (256u << 20)
#define PROGRESS_MIN_PIXELS (256u * 256u)

vkrr_synth_desc vkrr_synth_defaults(const vkrr_synth_desc *d)
{
    vkrr_synth_desc r = *d;
    if (!r.width || !r.height)
        r.width = 64, r.height = 48;
    if (!r.frames)
        r.frames = 3;
    if (!r.seed)
        r.seed = 1;
    if (!r.scene)
        r.scene = "default";
    if (!r.module_dir) {
        /* rrref's modules from the data folder (datadir.h): "" when this
         * build made none (no nvcc) or they cannot be found */
        static __thread char modules[4096];
        vkrr_data_path("modules", modules, sizeof modules);
        r.module_dir = modules;
    }
    return r;
}

/* ---- files ------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void vkrr_synth_rmtree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

vkrr_synth_dir_state vkrr_synth_probe_dir(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return DIR_MISSING;
    if (!S_ISDIR(sb.st_mode))
        return DIR_NOT_DIR;
    DIR *d = opendir(path);
    if (!d)
        return DIR_FULL;
    vkrr_synth_dir_state st = DIR_EMPTY;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            st = DIR_FULL;
            break;
        }
    closedir(d);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_module_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 4 && !strcmp(n + l - 4, ".ptx")) || (l > 7 && !strcmp(n + l - 7, ".fatbin"));
}

static vkrr_status read_whole(const char *path, void **data, size_t *size, vkrr_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    *data = NULL;
    if (!f)
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot open: %s", strerror(errno));
    if (fstat(fileno(f), &sb) != 0 || sb.st_size < 0 || (uint64_t)sb.st_size > MODULE_MAX_BYTES) {
        fclose(f);
        return vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1, "module file missing or over %u bytes",
                         MODULE_MAX_BYTES);
    }
    *size = (size_t)sb.st_size;
    *data = malloc(*size ? *size : 1);
    if (!*data || fread(*data, 1, *size, f) != *size) {
        fclose(f);
        free(*data);
        *data = NULL;
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot read the module");
    }
    fclose(f);
    return VKRR_OK;
}

/* Copies the build's *.ptx / *.fatbin into modules/, in name order so two
 * runs log them identically. */
static vkrr_status copy_modules(vkrr_writer *w, const char *dir, unsigned *count, vkrr_error *err)
{
    *count = 0;
    if (!dir || !*dir)
        return VKRR_OK;
    DIR *d = opendir(dir);
    if (!d)
        return VKRR_OK; /* not built (no nvcc): the capture simply has no modules/ */
    char **names = NULL;
    size_t n = 0, cap = 0;
    vkrr_status st = VKRR_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_module_name(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                goto nomem;
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name)))
            goto nomem;
        n++;
    }
    qsort(names, n, sizeof *names, cmp_str);
    const char *const *kernels = rrref_kernel_names();
    unsigned nk = 0;
    while (kernels[nk])
        nk++;
    for (size_t i = 0; i < n && st == VKRR_OK; i++) {
        char path[4096];
        void *data = NULL;
        size_t size = 0;
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (len < 0 || (size_t)len >= sizeof path) {
            st = vkrr_fail(err, VKRR_ERR_IO, dir, 0, -1, "path too long for module %s", names[i]);
            break;
        }
        st = read_whole(path, &data, &size, err);
        if (st == VKRR_OK)
            st = vkrr_writer_module(w, names[i], data, size, kernels, nk, err);
        free(data);
        if (st == VKRR_OK)
            (*count)++;
    }
    goto done;
nomem:
    st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory listing modules");
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return st;
}

/* ---- images ------------------------------------------------------------ */

/* x/(1+x), then gamma 2 (a sqrt: exact, so the PNG bytes match everywhere). */
static float tone_map(float v)
{
    if (!(v > 0.0f))
        return 0.0f; /* negatives and NaN */
    if (v > 65504.0f)
        return 1.0f;
    return sqrtf(v / (1.0f + v));
}

/* src: W*H*4 floats (f16 when half != NULL). */
static vkrr_status write_png(const char *path, uint32_t w, uint32_t h, const float *f32,
                             const uint16_t *f16, uint8_t *rgb, vkrr_error *err)
{
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            float v = f16 ? vkrr_f16_to_f32(f16[4 * i + c]) : f32[4 * i + c];
            rgb[3 * i + c] = (uint8_t)(tone_map(v) * 255.0f + 0.5f);
        }
    if (!stbi_write_png(path, (int)w, (int)h, 3, rgb, (int)(w * 3)))
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot write the PNG");
    return VKRR_OK;
}

/* RMSE of an f16 RGBA image against the clean f32 one over RGB, linear and
 * tone-mapped.  Non-finite values count as the clean value's full range. */
static void rmse(const uint16_t *img, const float *clean, size_t n, double *lin, double *tm)
{
    double s = 0, st = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            double v = vkrr_f16_to_f32(img[4 * i + c]), r = clean[4 * i + c];
            double d = isfinite(v) ? v - r : 65504.0;
            double dt = (double)tone_map((float)v) - (double)tone_map((float)r);
            s += d * d;
            st += dt * dt;
        }
    *lin = sqrt(s / (double)(3 * n));
    *tm = sqrt(st / (double)(3 * n));
}

/* ---- the run ----------------------------------------------------------- */

static vkrr_status check_desc(const vkrr_synth_desc *d, vkrr_error *err)
{
    if (!d->dir || !*d->dir)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "synth: no output directory");
    if (d->width > VKRR_SYNTH_MAX_SIDE || d->height > VKRR_SYNTH_MAX_SIDE)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "synth: size %ux%u over %ux%u",
                         d->width, d->height, VKRR_SYNTH_MAX_SIDE, VKRR_SYNTH_MAX_SIDE);
    if (d->frames > VKRR_SYNTH_MAX_FRAMES)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "synth: %u frames, at most %u",
                         d->frames, VKRR_SYNTH_MAX_FRAMES);
    for (const char *const *n = vkrr_scene_names(); *n; n++)
        if (!strcmp(*n, d->scene))
            return VKRR_OK;
    return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "synth: unknown scene '%s'", d->scene);
}

/* Puts tmp where dir is: a missing or empty dir is replaced by rename; a full
 * one (force) is moved aside first and removed once tmp is in place. */
vkrr_status vkrr_synth_install(const char *tmp, const char *dir, vkrr_error *err)
{
    if (rename(tmp, dir) == 0)
        return VKRR_OK;
    if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR)
        return vkrr_fail(err, VKRR_ERR_IO, dir, 0, -1, "cannot rename %s to it: %s", tmp,
                         strerror(errno));
    char old[4096];
    snprintf(old, sizeof old, "%s.old-%ld", dir, (long)getpid());
    vkrr_synth_rmtree(old);
    if (rename(dir, old) != 0)
        return vkrr_fail(err, VKRR_ERR_IO, dir, 0, -1, "cannot move the old one aside: %s",
                         strerror(errno));
    if (rename(tmp, dir) != 0) {
        int e = errno;
        rename(old, dir); /* put the old one back */
        return vkrr_fail(err, VKRR_ERR_IO, dir, 0, -1, "cannot rename %s to it: %s", tmp,
                         strerror(e));
    }
    vkrr_synth_rmtree(old);
    return VKRR_OK;
}

/* run.log's device line: the GPU (name, compute capability), or for the CPU
 * backend the hardware model its approximate instructions followed, so
 * validate picks the same model (README "The capture format"). */
void vkrr_synth_log_device(vkrr_writer *w, const vkrr_backend *be)
{
    char name[128];
    int ma = -1, mi = -1;
    if (be->device && be->device(be->self, name, sizeof name, &ma, &mi)) {
        for (char *p = name; *p; p++)
            if (*p == '"')
                *p = '\'';
        vkrr_writer_log_line(w, "device name=\"%s\" cc=%d.%d", name, ma, mi);
    } else {
        /* "sm_90, measured"; an architecture on another's tables says both
         * ("sm_89, tables of sm_90"): its first word is what validate reads */
        const vkrr_hw_model *m = vkrr_hw_current();
        const char *arch = vkrr_hw_model_arch(m), *tabs = m && vkrr_hw_model_tables(m)
                                                          ? vkrr_hw_tables_arch(vkrr_hw_model_tables(m)) : "";
        if (*arch && *tabs && strcmp(arch, tabs))
            vkrr_writer_log_line(w, "device name=\"vkrr %s backend\" model=\"%s, tables of %s\"",
                                 be->name, arch, tabs);
        else
            vkrr_writer_log_line(w, "device name=\"vkrr %s backend\" model=\"%s\"", be->name,
                                 vkrr_hw_model_name(m));
    }
}

vkrr_status vkrr_synth_run(const vkrr_synth_desc *desc_in, vkrr_synth_stats *stats,
                           vkrr_error *err)
{
    vkrr_synth_desc d = vkrr_synth_defaults(desc_in);
    vkrr_synth_stats s = {0};
    vkrr_writer *w = NULL;
    rrref_net *net = NULL;
    vkrr_backend be = {0};
    vkrr_scene_frame sf = {0};
    uint16_t *output = NULL;
    uint8_t *rgb = NULL;
    char tmp[4096], path[4200];
    bool tmp_made = false;
    vkrr_status st = check_desc(&d, err);
    if (st != VKRR_OK)
        return st;
    if (strlen(d.dir) > 3000)
        return vkrr_fail(err, VKRR_ERR_USAGE, d.dir, 0, -1, "output path too long");

    vkrr_synth_dir_state ds = vkrr_synth_probe_dir(d.dir);
    if ((ds == DIR_FULL || ds == DIR_NOT_DIR) && !d.force)
        return vkrr_fail(err, VKRR_ERR_USAGE, d.dir, 0, -1,
                         "exists and is not an empty directory (use --force to replace it)");

    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", d.dir, (long)getpid());
    vkrr_synth_rmtree(tmp); /* a leftover of an earlier run with our pid */
    st = vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = tmp, .log_prefix = "[d4r nvcuda] ", .logged_dir = d.dir,
                                                  .log_surface_arrays = d.log_surface_arrays},
                          err);
    if (st != VKRR_OK)
        goto fail;
    tmp_made = true;
    snprintf(path, sizeof path, "%s/preview", tmp);
    if (mkdir(path, 0777) != 0) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot create: %s", strerror(errno));
        goto fail;
    }
    st = copy_modules(w, d.module_dir, &s.modules, err);
    if (st != VKRR_OK)
        goto fail;
    if (d.backend && !strcmp(d.backend, "cuda")) {
        /* The real kernels: the modules the build made (the same ones
         * copied into modules/), launched through libcuda. */
        /* libcuda first: without it (exit 3) the modules do not matter */
        st = vkrr_backend_open(&(vkrr_backend_desc){.name = "cuda", .modules = d.module_dir}, &be, err);
        if (st == VKRR_OK && !d.module_dir[0]) {
            const char *data = vkrr_data_dir(NULL);
            st = vkrr_fail(err, VKRR_ERR_MISSING, data ? data : vkrr_exe_dir(), 0, -1,
                           "--backend cuda needs rrref's CUDA modules (modules/*.fatbin in vkrr's data "
                           "folder), and there are none: this vkrr was built without nvcc, or its "
                           "data folder is elsewhere (set VKRR_DATA_DIR; 'vkrr --version' shows where "
                           "it looks)");
        }
    } else {
        st = vkrr_backend_open(&(vkrr_backend_desc){.name = "cpu"}, &be, err);
    }
    if (st != VKRR_OK)
        goto fail;
    vkrr_synth_log_device(w, &be);
    st = rrref_net_create(&net, &(rrref_net_desc){.width = d.width, .height = d.height,
                                                  .seed = d.seed}, err);
    if (st != VKRR_OK)
        goto fail;

    size_t n = (size_t)d.width * d.height;
    output = malloc(n * 4 * sizeof *output);
    rgb = malloc(n * 3);
    if (!output || !rgb) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "synth: out of memory for %ux%u",
                       d.width, d.height);
        goto fail;
    }
    bool progress = d.progress && n >= PROGRESS_MIN_PIXELS;
    double t0 = vkrr_now_s();
    for (uint32_t k = 0; k < d.frames; k++) {
        if (d.cancel && *d.cancel) {
            st = vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "synth: interrupted");
            goto fail;
        }
        double tf = vkrr_now_s();
        st = vkrr_scene_render(&(vkrr_scene_desc){.width = d.width, .height = d.height,
                                                  .seed = d.seed, .name = d.scene},
                               k, &sf, err);
        if (st != VKRR_OK)
            goto fail;
        st = rrref_net_run_frame(net, &be, &sf, w, output, err);
        if (st != VKRR_OK)
            goto fail;
        static const char *const kind[3] = {"noisy", "clean", "denoised"};
        for (int i = 0; i < 3 && st == VKRR_OK; i++) {
            snprintf(path, sizeof path, "%s/preview/frame-%u-%s.png", tmp, k, kind[i]);
            st = write_png(path, d.width, d.height, sf.clean, i == 0 ? sf.noisy : i == 2 ? output : NULL,
                           rgb, err);
        }
        if (st != VKRR_OK)
            goto fail;
        double a, b, at, bt;
        rmse(sf.noisy, sf.clean, n, &a, &at);
        rmse(output, sf.clean, n, &b, &bt);
        s.rmse_noisy += a / d.frames;
        s.rmse_denoised += b / d.frames;
        s.rmse_noisy_tm += at / d.frames;
        s.rmse_denoised_tm += bt / d.frames;
        s.launches = rrref_net_launches(net);
        s.frames++;
        vkrr_scene_frame_free(&sf);
        if (progress)
            fprintf(d.progress, "vkrr synth: frame %u/%u done in %.2f s (%.2f s total)\n", k + 1,
                    d.frames, vkrr_now_s() - tf, vkrr_now_s() - t0);
    }
    st = vkrr_writer_close(w, err);
    w = NULL;
    if (st != VKRR_OK)
        goto fail;
    st = vkrr_synth_install(tmp, d.dir, err);
    if (st != VKRR_OK)
        goto fail;
    tmp_made = false;
    if (stats)
        *stats = s;

fail:
    if (w)
        vkrr_writer_close(w, NULL);
    rrref_net_destroy(net);
    if (be.destroy)
        be.destroy(be.self);
    vkrr_scene_frame_free(&sf);
    free(output);
    free(rgb);
    if (st != VKRR_OK && (tmp_made || vkrr_synth_probe_dir(tmp) != DIR_MISSING))
        vkrr_synth_rmtree(tmp);
    return st;
}
