/* hw_model.c - choosing the hardware model and the process's current one
 * (hw_model.h). */
#include "hw_model.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_internal.h"

static vkrr_hw_model *model_new(void)
{
    vkrr_hw_model *m = calloc(1, sizeof *m);
    if (m)
        pthread_mutex_init(&m->lock, NULL);
    return m;
}

void vkrr_hw_model_close(vkrr_hw_model *m)
{
    if (!m)
        return;
    vkrr_hw_tables_close(m->tables);
    free(m->port);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

const char *vkrr_hw_model_name(const vkrr_hw_model *m) { return m->name; }
const char *vkrr_hw_model_note(const vkrr_hw_model *m) { return m->note; }
vkrr_hw_tables *vkrr_hw_model_tables(const vkrr_hw_model *m) { return m->tables; }
bool vkrr_hw_model_rounded(const vkrr_hw_model *m) { return m->rounded; }
const char *vkrr_hw_model_arch(const vkrr_hw_model *m) { return m->arch; }

void vkrr_hw_arch_name(int major, int minor, char *buf, size_t cap)
{
    snprintf(buf, cap, "sm_%d%d", major, minor);
}

static bool valid_arch(const char *a)
{
    if (strncmp(a, "sm_", 3) || !a[3] || strlen(a) > 8)
        return false;
    for (const char *p = a + 3; *p; p++)
        if (!isdigit((unsigned char)*p) && !(p[1] == 0 && p > a + 4 && isalpha((unsigned char)*p)))
            return false;
    return true;
}

/* A set for arch in dir itself or in dir/arch; *t NULL when there is none.
 * A set that is there but damaged is an error. */
static vkrr_status find_in(const char *dir, const char *arch, vkrr_hw_tables **t, vkrr_error *err)
{
    *t = NULL;
    char sub[1100];
    const char *cands[2] = {dir, sub};
    snprintf(sub, sizeof sub, "%s/%s", dir, arch);
    for (int i = 0; i < 2; i++) {
        char man[1200];
        snprintf(man, sizeof man, "%s/tables.tsv", cands[i]);
        if (access(man, F_OK) != 0)
            continue;
        vkrr_status st = vkrr_hw_tables_open_dir(cands[i], t, err);
        if (st != VKRR_OK)
            return st;
        if (!strcmp(vkrr_hw_tables_arch(*t), arch))
            return VKRR_OK;
        vkrr_hw_tables_close(*t);
        *t = NULL;
    }
    return VKRR_OK;
}

/* $XDG_DATA_HOME/vkrr/hw (or ~/.local/share/vkrr/hw); false when neither is set. */
static bool user_dir(char *buf, size_t cap)
{
    const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (x && x[0] == '/')
        snprintf(buf, cap, "%s/vkrr/hw", x);
    else if (home && home[0] == '/')
        snprintf(buf, cap, "%s/.local/share/vkrr/hw", home);
    else
        return false;
    return true;
}

/* The tables of arch from the places hw_model.h lists; *t NULL: none. */
static vkrr_status find_tables(const char *arch, const char *tables_dir, vkrr_hw_tables **t,
                               vkrr_error *err)
{
    char ud[1024];
    vkrr_status st = VKRR_OK;
    *t = NULL;
    if (tables_dir && (st = find_in(tables_dir, arch, t, err)) != VKRR_OK)
        return st;
    if (!*t && user_dir(ud, sizeof ud) && (st = find_in(ud, arch, t, err)) != VKRR_OK)
        return st;
    if (!*t && !strcmp(arch, "sm_90"))
        st = vkrr_hw_tables_open_shipped(t, err);
    return st;
}

static void name_measured(vkrr_hw_model *m)
{
    vkrr_hw_tables *t = m->tables;
    snprintf(m->name, sizeof m->name, "%s, measured", vkrr_hw_tables_arch(t));
    if (strcmp(vkrr_hw_tables_origin(t), "built in")) {
        size_t n = strlen(m->note);
        snprintf(m->note + n, sizeof m->note - n, "%stables from %s", n ? "; " : "",
                 vkrr_hw_tables_origin(t));
    }
}

vkrr_status vkrr_hw_model_open(const vkrr_hw_choice *c, vkrr_hw_model **out, vkrr_error *err)
{
    *out = NULL;
    const char *approx = c->approx && strcmp(c->approx, "auto") ? c->approx : NULL;
    if (approx && strcmp(approx, "rounded") && !valid_arch(approx))
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1,
                         "--approx: expected auto, rounded or sm_NN (sm_90), not '%s'", approx);
    vkrr_hw_model *m = model_new();
    if (!m)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "hardware model");
    vkrr_status st = VKRR_OK;
    bool made_rounded = !approx && c->capture_arch && !strcmp(c->capture_arch, "rounded");
    if ((approx && !strcmp(approx, "rounded")) || made_rounded) {
        m->rounded = true;
        snprintf(m->name, sizeof m->name, "rounded");
        snprintf(m->note, sizeof m->note, "%s",
                 made_rounded ? "the capture was computed with the rounded model, not on a GPU"
                              : "the approximate instructions are correctly rounded stand-ins, "
                                "not the GPU's");
        *out = m;
        return VKRR_OK;
    }
    const char *want = approx ? approx : c->capture_arch && valid_arch(c->capture_arch)
                                             ? c->capture_arch : NULL;
    if (want && (st = find_tables(want, c->tables_dir, &m->tables, err)) != VKRR_OK)
        goto fail;
    if (!m->tables && approx) {
        st = vkrr_fail(err, VKRR_ERR_MISSING, c->tables_dir, 0, -1,
                       "no measured tables for %s (looked in %s%s$XDG_DATA_HOME/vkrr/hw and the "
                       "built-in sm_90); `vkrr hw measure` makes them on such a GPU",
                       approx, c->tables_dir ? c->tables_dir : "", c->tables_dir ? ", " : "");
        goto fail;
    }
    if (!m->tables) {
        if (want)
            snprintf(m->note, sizeof m->note,
                     "the capture's GPU (%s) has no measured tables: sm_90's used", want);
        else
            snprintf(m->note, sizeof m->note,
                     "the capture does not record its GPU: sm_90's tables used");
        if ((st = vkrr_hw_tables_open_shipped(&m->tables, err)) != VKRR_OK)
            goto fail;
    }
    name_measured(m);
    snprintf(m->arch, sizeof m->arch, "%s", want ? want : vkrr_hw_tables_arch(m->tables));
    *out = m;
    return VKRR_OK;
fail:
    vkrr_hw_model_close(m);
    return st;
}

/* ---- the current model ------------------------------------------------------ */

static _Atomic(vkrr_hw_model *) current;
static vkrr_hw_model *default_model;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

/* sm_90's built-in tables; rounded only if even those cannot be opened
 * (out of memory), with a warning. */
static void make_default(void)
{
    vkrr_error err = {0};
    vkrr_hw_choice c = {.approx = "sm_90"};
    if (vkrr_hw_model_open(&c, &default_model, &err) != VKRR_OK) {
        vkrr_warn("the built-in sm_90 tables cannot be opened (%s): approximate instructions "
                  "are correctly rounded stand-ins", err.msg);
        c.approx = "rounded";
        vkrr_hw_model_open(&c, &default_model, &err);
    }
}

void vkrr_hw_use(vkrr_hw_model *m)
{
    atomic_store(&current, m);
}

vkrr_hw_model *vkrr_hw_current(void)
{
    vkrr_hw_model *m = atomic_load_explicit(&current, memory_order_acquire);
    if (m)
        return m;
    pthread_once(&default_once, make_default);
    return default_model;
}

vkrr_hw_tables *vkrr_hw_current_tables(void)
{
    vkrr_hw_model *m = vkrr_hw_current();
    return m ? m->tables : NULL;
}
