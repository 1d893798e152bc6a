/* dlopen'd CUDA driver: see cuda_driver.h. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gconv_cuda cuda;
static int opened;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void gconv_cuda_describe(const gconv_cuda *c, const char *call, CUresult result, char *message, size_t size) {
    const char *name = NULL;
    if (c == NULL || c->cuGetErrorName == NULL || c->cuGetErrorName(result, &name) != CUDA_SUCCESS) name = NULL;
    snprintf(message, size, "%s failed: %s (%d)", call, name ? name : "CUDA error", result);
}

static void *symbol(void *library, const char *const *names) {
    for (; *names; names++) {
        void *found = dlsym(library, *names);
        if (found) return found;
    }
    return NULL;
}

const gconv_cuda *gconv_cuda_open(char *message, size_t size) {
    pthread_mutex_lock(&lock);
    if (!opened) {
        const char *path = getenv("GCONV_LIBCUDA");
        if (path == NULL || !*path) path = "libcuda.so.1";
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *why = dlerror();
            snprintf(message, size, "no NVIDIA driver: cannot load %s (%s)", path, why ? why : "not found");
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        gconv_cuda c = {.library = library};
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RESOLVE(field, ...)                                                                                  \
    do {                                                                                                     \
        *(void **)&c.field = symbol(library, NAMES(__VA_ARGS__));                                            \
        if (c.field == NULL) {                                                                               \
            snprintf(message, size, "the NVIDIA driver %s lacks %s (too old a driver?)", path, #field);       \
            dlclose(library);                                                                                \
            pthread_mutex_unlock(&lock);                                                                     \
            return NULL;                                                                                     \
        }                                                                                                    \
    } while (0)
        RESOLVE(cuInit, "cuInit");
        RESOLVE(cuDeviceGet, "cuDeviceGet");
        RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
        RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
        RESOLVE(cuCtxGetCurrent, "cuCtxGetCurrent");
        RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
        RESOLVE(cuCtxGetDevice, "cuCtxGetDevice");
        RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
        RESOLVE(cuModuleLoadData, "cuModuleLoadData");
        RESOLVE(cuModuleUnload, "cuModuleUnload");
        RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
        RESOLVE(cuFuncSetAttribute, "cuFuncSetAttribute");
        RESOLVE(cuLaunchKernel, "cuLaunchKernel");
        RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
        RESOLVE(cuMemFree, "cuMemFree_v2");
        RESOLVE(cuMemAllocAsync, "cuMemAllocAsync");
        RESOLVE(cuMemFreeAsync, "cuMemFreeAsync");
        RESOLVE(cuMemsetD8Async, "cuMemsetD8Async");
        RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
        RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
        RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
        RESOLVE(cuCtxSynchronize, "cuCtxSynchronize");
        RESOLVE(cuEventCreate, "cuEventCreate");
        RESOLVE(cuEventRecord, "cuEventRecord");
        RESOLVE(cuEventSynchronize, "cuEventSynchronize");
        RESOLVE(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
        RESOLVE(cuEventDestroy, "cuEventDestroy_v2");
        RESOLVE(cuGetErrorName, "cuGetErrorName");
#undef RESOLVE
#undef NAMES
        CUresult result = c.cuInit(0);
        if (result != CUDA_SUCCESS) {
            char why[160];
            gconv_cuda_describe(&c, "cuInit", result, why, sizeof why);
            snprintf(message, size, "no usable CUDA device: %s", why);
            dlclose(library);
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        cuda = c;
        opened = 1;
    }
    pthread_mutex_unlock(&lock);
    /* Contexts are per thread: every caller makes sure one is current. */
    CUcontext context = NULL;
    CUresult result = cuda.cuCtxGetCurrent(&context);
    if (result == CUDA_SUCCESS && context == NULL) {
        int count = 0;
        CUdevice device;
        result = cuda.cuDeviceGetCount(&count);
        if (result == CUDA_SUCCESS && count == 0) {
            snprintf(message, size, "no CUDA device: the driver reports 0 devices");
            return NULL;
        }
        if (result == CUDA_SUCCESS) result = cuda.cuDeviceGet(&device, 0);
        if (result == CUDA_SUCCESS) result = cuda.cuDevicePrimaryCtxRetain(&context, device);
        if (result == CUDA_SUCCESS) result = cuda.cuCtxSetCurrent(context);
    }
    if (result != CUDA_SUCCESS) {
        char why[160];
        gconv_cuda_describe(&cuda, "making a CUDA context current", result, why, sizeof why);
        snprintf(message, size, "no usable CUDA device: %s", why);
        return NULL;
    }
    return &cuda;
}

void gconv_cuda_close(void) {
    pthread_mutex_lock(&lock);
    if (opened) {
        dlclose(cuda.library);
        memset(&cuda, 0, sizeof cuda);
        opened = 0;
    }
    pthread_mutex_unlock(&lock);
}
