/* cuda_loader.h - the CUDA driver API, loaded at run time from libcuda.so.1.
 *
 * vkrr never links libcuda: a machine without the NVIDIA driver must still
 * build and run everything else.  This header declares the few driver types
 * the libcuda backend passes (layouts as in the toolkit's cuda.h, checked
 * against it by tests/test_cuda_backend.c when the toolkit is installed) and
 * one table of exactly the functions used, filled by dlsym of their versioned
 * symbol names (the names cuda.h's macros expand to).
 *
 *     vkrr_cu_api api;
 *     if (vkrr_cu_api_load(&api, NULL, &err) != VKRR_OK) ... // VKRR_ERR_NO_LIBRARY
 *     api.cuInit(0);
 *     vkrr_cu_api_unload(&api);
 *
 * Library path: the argument, else $VKRR_LIBCUDA, else "libcuda.so.1".
 * Errors: VKRR_ERR_NO_LIBRARY naming libcuda.so.1, the path tried and dlerror().
 * Does NOT: call cuInit or touch a device.
 */
#ifndef VKRR_CUDA_LOADER_H
#define VKRR_CUDA_LOADER_H

#include <stddef.h>

#include "status.h"

#define VKRR_LIBCUDA_DEFAULT "libcuda.so.1"

typedef int vkrr_cu_result;                 /* CUresult; 0 is CUDA_SUCCESS */
typedef int vkrr_cu_device;                 /* CUdevice */
typedef struct vkrr_cu_ctx_st *vkrr_cu_context;
typedef struct vkrr_cu_mod_st *vkrr_cu_module;
typedef struct vkrr_cu_func_st *vkrr_cu_function;
typedef struct vkrr_cu_array_st *vkrr_cu_array;
typedef struct vkrr_cu_stream_st *vkrr_cu_stream;
typedef struct vkrr_cu_event_st *vkrr_cu_event;
typedef unsigned long long vkrr_cu_deviceptr;   /* CUdeviceptr (v2: 64-bit) */
typedef unsigned long long vkrr_cu_texobject;   /* CUtexObject */
typedef unsigned long long vkrr_cu_surfobject;  /* CUsurfObject */

enum {
    VKRR_CU_SUCCESS = 0,
    VKRR_CU_ERROR_NO_DEVICE = 100,
    VKRR_CU_ERROR_NOT_FOUND = 500,
    VKRR_CU_MEMORYTYPE_HOST = 1,
    VKRR_CU_MEMORYTYPE_DEVICE = 2,
    VKRR_CU_MEMORYTYPE_ARRAY = 3,
    VKRR_CU_RESOURCE_TYPE_ARRAY = 0,
    VKRR_CU_RESOURCE_TYPE_LINEAR = 2,
    VKRR_CU_RESOURCE_TYPE_PITCH2D = 3,
    VKRR_CU_ARRAY3D_SURFACE_LDST = 0x02,
    VKRR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* CU_LAUNCH_PARAM_* markers in cuLaunchKernel's `extra` array. */
#define VKRR_CU_LAUNCH_PARAM_END ((void *)0x00)
#define VKRR_CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define VKRR_CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

typedef struct vkrr_cu_array3d_desc {       /* CUDA_ARRAY3D_DESCRIPTOR (v2) */
    size_t Width, Height, Depth;
    int Format;                             /* CUarray_format */
    unsigned int NumChannels;
    unsigned int Flags;
} vkrr_cu_array3d_desc;

typedef struct vkrr_cu_memcpy2d {           /* CUDA_MEMCPY2D (v2) */
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    vkrr_cu_deviceptr srcDevice;
    vkrr_cu_array srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    vkrr_cu_deviceptr dstDevice;
    vkrr_cu_array dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} vkrr_cu_memcpy2d;

typedef struct vkrr_cu_resource_desc {      /* CUDA_RESOURCE_DESC: array, linear, pitch 2D */
    int resType;
    union {
        struct { vkrr_cu_array hArray; } array;
        struct {
            vkrr_cu_deviceptr devPtr;
            int format;                     /* CUarray_format */
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            vkrr_cu_deviceptr devPtr;
            int format;
            unsigned int numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned int flags;
} vkrr_cu_resource_desc;

typedef struct vkrr_cu_texture_desc {       /* CUDA_TEXTURE_DESC */
    int addressMode[3];                     /* CUaddress_mode: 0 wrap 1 clamp 2 mirror 3 border */
    int filterMode;                         /* CUfilter_mode: 0 point 1 linear */
    unsigned int flags;                     /* CU_TRSF_*: same bits as the bridge log's flags */
    unsigned int maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} vkrr_cu_texture_desc;

/* X(return type, name, versioned symbol, parameter list); "a|b": the symbol a,
 * else b (the same signature; a driver older than a's version has only b). */
#define VKRR_CU_FUNCTIONS(X)                                                                   \
    X(vkrr_cu_result, cuInit, "cuInit", (unsigned int flags))                                  \
    X(vkrr_cu_result, cuDeviceGetCount, "cuDeviceGetCount", (int *count))                      \
    X(vkrr_cu_result, cuDeviceGet, "cuDeviceGet", (vkrr_cu_device *dev, int ordinal))          \
    X(vkrr_cu_result, cuDeviceGetName, "cuDeviceGetName", (char *name, int len, vkrr_cu_device dev)) \
    X(vkrr_cu_result, cuDeviceGetAttribute, "cuDeviceGetAttribute",                            \
      (int *value, int attrib, vkrr_cu_device dev))                                            \
    X(vkrr_cu_result, cuCtxCreate, "cuCtxCreate_v2",                                           \
      (vkrr_cu_context *ctx, unsigned int flags, vkrr_cu_device dev))                          \
    X(vkrr_cu_result, cuCtxDestroy, "cuCtxDestroy_v2", (vkrr_cu_context ctx))                  \
    X(vkrr_cu_result, cuCtxSetCurrent, "cuCtxSetCurrent", (vkrr_cu_context ctx))              \
    X(vkrr_cu_result, cuCtxSynchronize, "cuCtxSynchronize", (void))                            \
    X(vkrr_cu_result, cuModuleLoadData, "cuModuleLoadData", (vkrr_cu_module *mod, const void *image)) \
    X(vkrr_cu_result, cuModuleUnload, "cuModuleUnload", (vkrr_cu_module mod))                  \
    X(vkrr_cu_result, cuModuleGetFunction, "cuModuleGetFunction",                              \
      (vkrr_cu_function *fn, vkrr_cu_module mod, const char *name))                            \
    X(vkrr_cu_result, cuFuncSetAttribute, "cuFuncSetAttribute",                                \
      (vkrr_cu_function fn, int attrib, int value))                                            \
    X(vkrr_cu_result, cuMemAlloc, "cuMemAlloc_v2", (vkrr_cu_deviceptr *dptr, size_t bytes))   \
    X(vkrr_cu_result, cuMemFree, "cuMemFree_v2", (vkrr_cu_deviceptr dptr))                     \
    X(vkrr_cu_result, cuMemcpyHtoD, "cuMemcpyHtoD_v2",                                         \
      (vkrr_cu_deviceptr dst, const void *src, size_t bytes))                                  \
    X(vkrr_cu_result, cuMemcpyDtoH, "cuMemcpyDtoH_v2",                                         \
      (void *dst, vkrr_cu_deviceptr src, size_t bytes))                                        \
    X(vkrr_cu_result, cuArray3DCreate, "cuArray3DCreate_v2",                                   \
      (vkrr_cu_array *arr, const vkrr_cu_array3d_desc *desc))                                  \
    X(vkrr_cu_result, cuArrayDestroy, "cuArrayDestroy", (vkrr_cu_array arr))                   \
    X(vkrr_cu_result, cuMemcpy2D, "cuMemcpy2D_v2", (const vkrr_cu_memcpy2d *copy))             \
    X(vkrr_cu_result, cuTexObjectCreate, "cuTexObjectCreate",                                  \
      (vkrr_cu_texobject *obj, const vkrr_cu_resource_desc *res,                               \
       const vkrr_cu_texture_desc *tex, const void *view))                                     \
    X(vkrr_cu_result, cuTexObjectDestroy, "cuTexObjectDestroy", (vkrr_cu_texobject obj))       \
    X(vkrr_cu_result, cuSurfObjectCreate, "cuSurfObjectCreate",                                \
      (vkrr_cu_surfobject *obj, const vkrr_cu_resource_desc *res))                             \
    X(vkrr_cu_result, cuSurfObjectDestroy, "cuSurfObjectDestroy", (vkrr_cu_surfobject obj))    \
    X(vkrr_cu_result, cuLaunchKernel, "cuLaunchKernel",                                        \
      (vkrr_cu_function fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,   \
       unsigned bz, unsigned shared_bytes, vkrr_cu_stream stream, void **params, void **extra)) \
    X(vkrr_cu_result, cuEventCreate, "cuEventCreate", (vkrr_cu_event *ev, unsigned int flags)) \
    X(vkrr_cu_result, cuEventDestroy, "cuEventDestroy_v2", (vkrr_cu_event ev))                 \
    X(vkrr_cu_result, cuEventRecord, "cuEventRecord", (vkrr_cu_event ev, vkrr_cu_stream stream)) \
    X(vkrr_cu_result, cuEventSynchronize, "cuEventSynchronize", (vkrr_cu_event ev))            \
    X(vkrr_cu_result, cuEventElapsedTime, "cuEventElapsedTime_v2|cuEventElapsedTime",          \
      (float *ms, vkrr_cu_event start, vkrr_cu_event end))                                     \
    X(vkrr_cu_result, cuDriverGetVersion, "cuDriverGetVersion", (int *version))                \
    X(vkrr_cu_result, cuDeviceGetUuid, "cuDeviceGetUuid_v2|cuDeviceGetUuid",                  \
      (unsigned char uuid[16], vkrr_cu_device dev))                                             \
    X(vkrr_cu_result, cuGetErrorName, "cuGetErrorName", (vkrr_cu_result r, const char **s))    \
    X(vkrr_cu_result, cuGetErrorString, "cuGetErrorString", (vkrr_cu_result r, const char **s))

typedef struct vkrr_cu_api {
    void *lib;               /* dlopen handle; NULL when not loaded */
    char path[256];          /* the library path that was opened */
#define VKRR_CU_X_MEMBER(ret, name, sym, params) ret(*name) params;
    VKRR_CU_FUNCTIONS(VKRR_CU_X_MEMBER)
#undef VKRR_CU_X_MEMBER
} vkrr_cu_api;

/* path NULL: $VKRR_LIBCUDA, else libcuda.so.1.  Every function must resolve. */
vkrr_status vkrr_cu_api_load(vkrr_cu_api *api, const char *path, vkrr_error *err);
void vkrr_cu_api_unload(vkrr_cu_api *api); /* accepts a zeroed or unloaded table */

/* "CUDA_ERROR_X (description)" for r, into buf; works with a partial table. */
const char *vkrr_cu_result_text(const vkrr_cu_api *api, vkrr_cu_result r, char *buf, size_t cap);

#endif
