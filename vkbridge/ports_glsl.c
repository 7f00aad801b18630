/* Run-time compilation of a port's .comp (ports.h): includes expanded here
 * (this glslang's C API has no include callbacks), then glslang's C API. */
#include "ports.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include "mapfile.h"

#define MAX_SOURCE_BYTES (4u << 20)
#define MAX_INCLUDE_DEPTH 32

typedef struct strbuf {
    char *p;
    size_t n, cap;
    bool oom;
} strbuf;

static void put(strbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void putf(strbuf *b, const char *fmt, const char *name, long line)
{
    char tmp[1200];
    int n = snprintf(tmp, sizeof tmp, fmt, line, name);
    if (n > 0)
        put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* `#include "NAME"` on this line?  NAME into name. */
static bool include_of(const char *s, const char *end, char *name, size_t cap)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s == end || *s++ != '#')
        return false;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if ((size_t)(end - s) < 7 || strncmp(s, "include", 7) != 0)
        return false;
    s += 7;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s == end || *s++ != '"')
        return false;
    const char *q = memchr(s, '"', (size_t)(end - s));
    if (!q || (size_t)(q - s) >= cap || q == s)
        return false;
    memcpy(name, s, (size_t)(q - s));
    name[q - s] = 0;
    return true;
}

static bool starts_with_word(const char *s, const char *end, const char *w)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(w);
    return (size_t)(end - s) >= n && strncmp(s, w, n) == 0;
}

static vkrr_status expand(strbuf *out, const char *text, size_t len, const char *file,
                          const char *dir, int depth, vkrr_error *err);

/* An include: DIR/NAME first (an engineer's edited copy), then the build's. */
static vkrr_status include(strbuf *out, const char *name, const char *dir, const char *from,
                           long line, int depth, vkrr_error *err)
{
    if (depth >= MAX_INCLUDE_DEPTH)
        return vkrr_fail(err, VKRR_ERR_PARSE, from, line, -1,
                         "#include \"%s\" nests deeper than %d files", name, MAX_INCLUDE_DEPTH);
    if (strchr(name, '/') == NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        char *text = NULL;
        size_t n = 0;
        vkrr_error ignore = {0};
        if (vkrr_read_text(path, MAX_SOURCE_BYTES, &text, &n, &ignore) == VKRR_OK) {
            vkrr_status st = expand(out, text, n, path, dir, depth + 1, err);
            free(text);
            return st;
        }
        for (const vkrr_glsl_include *g = vkrr_glsl_includes; g->name; g++)
            if (strcmp(g->name, name) == 0)
                return expand(out, g->text, g->len, g->name, dir, depth + 1, err);
    }
    return vkrr_fail(err, VKRR_ERR_MISSING, from, line, -1,
                     "#include \"%s\": not in the ports folder nor in the built-in shaders/common",
                     name);
}

static vkrr_status expand(strbuf *out, const char *text, size_t len, const char *file,
                          const char *dir, int depth, vkrr_error *err)
{
    const char *s = text, *end = text + len;
    long line = 1;
    bool top = depth == 0;
    if (!top)
        putf(out, "#line %ld \"%s\"\n", file, 1);
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        char name[256];
        if (include_of(s, e, name, sizeof name)) {
            vkrr_status st = include(out, name, dir, file, line, depth, err);
            if (st != VKRR_OK)
                return st;
            putf(out, "#line %ld \"%s\"\n", file, line + 1);
        } else if (starts_with_word(s, e, "#extension GL_GOOGLE_include_directive")) {
            put(out, "\n", 1); /* includes are already expanded; keep line numbers */
        } else {
            put(out, s, (size_t)(e - s));
            put(out, "\n", 1);
            /* The file names in #line need this, right after #version. */
            if (top && starts_with_word(s, e, "#version"))
                putf(out, "#extension GL_GOOGLE_cpp_style_line_directive : require\n#line %ld \"%s\"\n",
                     file, line + 1);
        }
        s = nl ? nl + 1 : end;
        line++;
    }
    return out->oom ? vkrr_fail(err, VKRR_ERR_NOMEM, file, 0, -1, "out of memory expanding includes")
                    : VKRR_OK;
}

static pthread_once_t glslang_once = PTHREAD_ONCE_INIT;
static void glslang_init(void)
{
    glslang_initialize_process(); /* kept for the process's life */
}

/* glslang's log: its ERROR lines ("FILE:LINE: message"), on one line,
 * without the closing "compilation terminated" / "N compilation errors". */
static void first_errors(const char *log, char *buf, size_t cap)
{
    buf[0] = 0;
    size_t n = 0;
    for (const char *s = log ? log : ""; *s && n + 1 < cap;) {
        const char *nl = strchr(s, '\n');
        size_t l = nl ? (size_t)(nl - s) : strlen(s);
        char line[600];
        snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line ? l : sizeof line - 1), s);
        if (!strncmp(line, "ERROR: ", 7) && !strstr(line, "compilation terminated") &&
            !strstr(line, "compilation errors")) {
            int w = snprintf(buf + n, cap - n, "%s%s", n ? "; " : "", line + 7);
            if (w < 0)
                break;
            n += (size_t)w < cap - n ? (size_t)w : cap - n - 1;
        }
        s = nl ? nl + 1 : s + l;
    }
    if (!buf[0])
        snprintf(buf, cap, "%s", log && *log ? log : "glslang gave no message");
}

vkrr_status vkrr_port_shader_compile_glsl(const char *path, const char *dir, uint32_t **code,
                                    size_t *bytes, vkrr_error *err)
{
    *code = NULL;
    *bytes = 0;
    char *text = NULL;
    size_t len = 0;
    vkrr_status st = vkrr_read_text(path, MAX_SOURCE_BYTES, &text, &len, err);
    if (st != VKRR_OK)
        return st;
    strbuf src = {0};
    st = expand(&src, text, len, path, dir, 0, err);
    free(text);
    if (st != VKRR_OK) {
        free(src.p);
        return st;
    }
    pthread_once(&glslang_once, glslang_init);
    glslang_input_t in = {
        .language = GLSLANG_SOURCE_GLSL,
        .stage = GLSLANG_STAGE_COMPUTE,
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = GLSLANG_TARGET_VULKAN_1_2,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = GLSLANG_TARGET_SPV_1_5,
        .code = src.p,
        .default_version = 460,
        .default_profile = GLSLANG_NO_PROFILE,
        .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
        .resource = glslang_default_resource(),
    };
    glslang_shader_t *sh = glslang_shader_create(&in);
    glslang_program_t *prog = glslang_program_create();
    char msg[700];
    if (!sh || !prog) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "glslang: out of memory");
    } else if (!glslang_shader_preprocess(sh, &in) || !glslang_shader_parse(sh, &in)) {
        first_errors(glslang_shader_get_info_log(sh), msg, sizeof msg);
        st = vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "does not compile: %s", msg);
    } else {
        glslang_program_add_shader(prog, sh);
        if (!glslang_program_link(prog, GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT)) {
            first_errors(glslang_program_get_info_log(prog), msg, sizeof msg);
            st = vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "does not link: %s", msg);
        } else {
            glslang_program_SPIRV_generate(prog, GLSLANG_STAGE_COMPUTE);
            size_t words = glslang_program_SPIRV_get_size(prog);
            uint32_t *buf = words ? malloc(words * 4) : NULL;
            if (!buf) {
                st = vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "glslang produced no SPIR-V");
            } else {
                glslang_program_SPIRV_get(prog, buf);
                *code = buf;
                *bytes = words * 4;
            }
        }
    }
    if (prog)
        glslang_program_delete(prog);
    if (sh)
        glslang_shader_delete(sh);
    free(src.p);
    return st;
}
