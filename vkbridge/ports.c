#include "ports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VKRR_SPV_MAGIC 0x07230203u
#define VKRR_SPV_MAX_BYTES (64u << 20)

const vkrr_port_shader *vkrr_port_shader_find(const char *kernel)
{
    for (const vkrr_port_shader *p = vkrr_port_shaders_builtin; p->kernel; p++)
        if (strcmp(p->kernel, kernel) == 0)
            return p;
    return NULL;
}

size_t vkrr_port_shader_count(void)
{
    size_t n = 0;
    while (vkrr_port_shaders_builtin[n].kernel)
        n++;
    return n;
}

/* A kernel name becomes a file name: refuse anything that could leave DIR. */
static bool path_for(const char *dir, const char *kernel, const char *ext, char *buf, size_t cap)
{
    if (!dir || !kernel[0] || strchr(kernel, '/') || strcmp(kernel, "..") == 0)
        return false;
    int n = snprintf(buf, cap, "%s/%s.%s", dir, kernel, ext);
    return n > 0 && (size_t)n < cap;
}

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

bool vkrr_port_shader_dir_file(const char *dir, const char *kernel, char *path, size_t cap)
{
    if ((path_for(dir, kernel, "spv", path, cap) && is_file(path)) ||
        (path_for(dir, kernel, "comp", path, cap) && is_file(path)))
        return true;
    if (cap)
        path[0] = 0;
    return false;
}

bool vkrr_port_shader_dir_has(const char *dir, const char *kernel)
{
    char path[4096];
    return vkrr_port_shader_dir_file(dir, kernel, path, sizeof path);
}

vkrr_status vkrr_port_shader_load(const char *dir, const char *kernel, uint32_t **code, size_t *bytes,
                            vkrr_error *err)
{
    vkrr_status st;
    char path[4096];
    *code = NULL;
    *bytes = 0;
    FILE *f = NULL;
    uint32_t *buf = NULL;
    if (!path_for(dir, kernel, "spv", path, sizeof path))
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "no port file for kernel %s", kernel);
    if (!is_file(path)) {
        char comp[4096];
        if (path_for(dir, kernel, "comp", comp, sizeof comp) && is_file(comp))
            return vkrr_port_shader_compile_glsl(comp, dir, code, bytes, err);
    }
    f = fopen(path, "rb");
    if (!f)
        return vkrr_fail(err, VKRR_ERR_MISSING, path, 0, -1, "cannot open the port's SPIR-V");
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size <= 0 || sb.st_size % 4 != 0 ||
        (unsigned long long)sb.st_size > VKRR_SPV_MAX_BYTES) {
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1,
                       "a SPIR-V file must be a non-empty multiple of 4 bytes up to 64 MiB");
        goto fail;
    }
    size_t n = (size_t)sb.st_size;
    buf = malloc(n);
    if (!buf) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory reading SPIR-V");
        goto fail;
    }
    if (fread(buf, 1, n, f) != n) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "short read");
        goto fail;
    }
    if (buf[0] != VKRR_SPV_MAGIC) {
        st = vkrr_fail(err, VKRR_ERR_FORMAT, path, 0, 0, "not SPIR-V (bad magic 0x%08x)", buf[0]);
        goto fail;
    }
    fclose(f);
    *code = buf;
    *bytes = n;
    return VKRR_OK;
fail:
    free(buf);
    if (f)
        fclose(f);
    return st;
}
