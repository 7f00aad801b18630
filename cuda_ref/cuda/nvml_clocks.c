/* nvml_clocks.c - clocks from NVML (nvml_clocks.h). */
#include "nvml_clocks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVML's types and constants, as nvml.h gives them. */
typedef int nvml_return;              /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_dev_st *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

typedef struct nvml_api {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*by_uuid)(const char *uuid, nvml_dev *dev);
    nvml_return (*clock)(nvml_dev dev, int type, unsigned *mhz);
    nvml_return (*max_clock)(nvml_dev dev, int type, unsigned *mhz);
    nvml_return (*pstate)(nvml_dev dev, int *state);
} nvml_api;

static bool load(void *lib, nvml_api *a)
{
    static const char *const names[] = {"nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetHandleByUUID",
                                        "nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo",
                                        "nvmlDeviceGetPerformanceState"};
    void *p[6];
    for (int i = 0; i < 6; i++)
        if (!(p[i] = dlsym(lib, names[i])))
            return false;
    memcpy(&a->init, &p[0], sizeof p[0]);
    memcpy(&a->shutdown, &p[1], sizeof p[1]);
    memcpy(&a->by_uuid, &p[2], sizeof p[2]);
    memcpy(&a->clock, &p[3], sizeof p[3]);
    memcpy(&a->max_clock, &p[4], sizeof p[4]);
    memcpy(&a->pstate, &p[5], sizeof p[5]);
    return true;
}

bool vkrr_nvml_clocks(const uint8_t *uuid, vkrr_gpu_clocks *out)
{
    memset(out, 0, sizeof *out);
    out->pstate = -1;
    if (!uuid) {
        snprintf(out->why, sizeof out->why, "the device gives no UUID to find it by");
        return false;
    }
    const char *path = getenv("VKRR_LIBNVML");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(out->why, sizeof out->why, "not reported (no NVML: %s cannot be loaded)", path);
        return false;
    }
    nvml_api a;
    bool ok = false;
    if (!load(lib, &a)) {
        snprintf(out->why, sizeof out->why, "not reported (%s lacks an NVML function)", path);
        goto done;
    }
    if (a.init() != 0) {
        snprintf(out->why, sizeof out->why, "not reported (nvmlInit failed)");
        goto done;
    }
    /* NVML names a GPU "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char text[48];
    snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8], uuid[9],
             uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
    nvml_dev dev = NULL;
    if (a.by_uuid(text, &dev) != 0) {
        snprintf(out->why, sizeof out->why, "not reported (NVML knows no GPU %s)", text);
    } else if (a.clock(dev, NVML_CLOCK_SM, &out->sm_mhz) != 0) {
        snprintf(out->why, sizeof out->why, "not reported (NVML gives no SM clock for %s)", text);
    } else {
        if (a.max_clock(dev, NVML_CLOCK_SM, &out->sm_max_mhz) != 0)
            out->sm_max_mhz = 0;
        if (a.clock(dev, NVML_CLOCK_MEM, &out->mem_mhz) != 0)
            out->mem_mhz = 0;
        if (a.max_clock(dev, NVML_CLOCK_MEM, &out->mem_max_mhz) != 0)
            out->mem_max_mhz = 0;
        if (a.pstate(dev, &out->pstate) != 0 || out->pstate < 0 || out->pstate > 15)
            out->pstate = -1;
        ok = true;
    }
    a.shutdown();
done:
    dlclose(lib);
    return ok;
}
