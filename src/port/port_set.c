/* port_set.c - the descriptors of one run: DIR/KERNEL.port over the built-in
 * shaders/KERNEL.port, each loaded once (portdesc.h). */
#include "portdesc.h"
#include "portiface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct ps_entry {
    char *kernel;
    vkrr_portdesc *desc; /* NULL: the kernel has none */
} ps_entry;

struct vkrr_portdesc_set {
    char *dir;
    const char *launchwise; /* the command comparing launch by launch, or NULL */
    ps_entry *e;
    uint32_t n, cap;
};

vkrr_status vkrr_portdesc_set_create(vkrr_portdesc_set **out, const char *dir, vkrr_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out || (dir && !((*out)->dir = strdup(dir)))) {
        free(*out);
        *out = NULL;
        return vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
    }
    return VKRR_OK;
}

void vkrr_portdesc_set_launchwise(vkrr_portdesc_set *s, const char *cmd)
{
    s->launchwise = cmd;
}

void vkrr_portdesc_set_destroy(vkrr_portdesc_set *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        free(s->e[i].kernel);
        vkrr_portdesc_destroy(s->e[i].desc);
    }
    free(s->e);
    free(s->dir);
    free(s);
}

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* DIR/KERNEL.port, else the built-in one, else none. */
static vkrr_status load(const vkrr_portdesc_set *s, const char *kernel, vkrr_portdesc **out,
                        vkrr_error *err)
{
    *out = NULL;
    char path[4096];
    /* a kernel name becomes a file name: nothing that could leave DIR */
    bool safe = kernel[0] && !strchr(kernel, '/') && strcmp(kernel, "..");
    if (s->dir && safe && snprintf(path, sizeof path, "%s/%s.port", s->dir, kernel) < (int)sizeof path &&
        is_file(path)) {
        vkrr_status st = vkrr_portdesc_load(out, path, err);
        const vkrr_port_iface *f = st == VKRR_OK ? vkrr_portdesc_iface(*out) : NULL;
        if (!s->launchwise || !f || !f->ncovers)
            return st;
        /* a fused port describes a run of launches; a command that compares
         * launch by launch describes each by the kernel's own descriptor */
        vkrr_warn("%s: %s is a fused port (covers %s ...): %s compares launch by launch, so %s's "
                  "launches are compared by its built-in descriptor", s->launchwise, path,
                  f->covers[0], s->launchwise, kernel);
        vkrr_portdesc_destroy(*out);
        *out = NULL;
    }
    char name[600];
    snprintf(name, sizeof name, "%s.port", kernel);
    for (const vkrr_embedded_file *f = vkrr_port_descs_builtin; f->name; f++)
        if (!strcmp(f->name, name)) {
            char shown[700];
            snprintf(shown, sizeof shown, "%s (built in)", name);
            return vkrr_portdesc_parse(out, f->text, f->len, shown, err);
        }
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_set_get(vkrr_portdesc_set *s, const char *kernel, const vkrr_portdesc **out,
                              vkrr_error *err)
{
    *out = NULL;
    for (uint32_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].kernel, kernel)) {
            *out = s->e[i].desc;
            return VKRR_OK;
        }
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 16;
        ps_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        s->e = e;
        s->cap = cap;
    }
    vkrr_portdesc *d = NULL;
    vkrr_status st = load(s, kernel, &d, err);
    if (st != VKRR_OK)
        return st; /* not cached: the next call reports it again */
    char *k = strdup(kernel);
    if (!k) {
        vkrr_portdesc_destroy(d);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    }
    s->e[s->n++] = (ps_entry){k, d};
    *out = d;
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_set_outputs(vkrr_portdesc_set *s, const vkrr_launch *l, vkrr_port_output *out,
                                  uint32_t cap, uint32_t *n, vkrr_error *err)
{
    *n = 0;
    const vkrr_portdesc *d = NULL;
    vkrr_status st = s ? vkrr_portdesc_set_get(s, l->kernel, &d, err) : VKRR_OK;
    if (st != VKRR_OK || !d)
        return st;
    return vkrr_portdesc_eval(d, l, out, cap, n, err);
}

vkrr_status vkrr_portdesc_set_check_launch(vkrr_portdesc_set *s, const vkrr_launch *l, vkrr_error *err)
{
    vkrr_port_output out[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n;
    /* a launch whose own files could not be read is reported ERROR by
     * validate; its parameter block is no test of a descriptor, nor is
     * that of one a fused port does not match (fused_runs.h: NO PORT) */
    if (l->damage >= VKRR_DAMAGE_INPUT || l->no_port)
        return VKRR_OK;
    vkrr_status st = vkrr_portdesc_set_outputs(s, l, out, VKRR_PORT_MAX_OUTPUTS, &n, err);
    if (st != VKRR_OK)
        return st;
    const vkrr_portdesc *d = NULL;
    if (s && (st = vkrr_portdesc_set_get(s, l->kernel, &d, err)) != VKRR_OK)
        return st;
    vkrr_port_iface_run run;
    if (vkrr_portdesc_iface(d) &&
        (st = vkrr_port_iface_eval_launch(vkrr_portdesc_iface(d), vkrr_portdesc_name(d), l, &run, err)) !=
            VKRR_OK)
        return st;
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_set_check(vkrr_portdesc_set *s, const vkrr_capture *cap, vkrr_error *err)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        vkrr_status st = vkrr_portdesc_set_check_launch(s, &cap->launches[i], err);
        if (st != VKRR_OK)
            return st;
    }
    return VKRR_OK;
}
