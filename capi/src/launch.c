/* gconv_run's GPU half: load cubins lazily, pad channels, launch the instance, split-K workspace and cast, the twin
 * filter of a via_fwd instance. Mirrors runtime/launch.py (arguments, grids, persistent programs, workspace, forward
 * twins) and runtime/api.py (padding). */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cuda_driver.h"
#include "gconv_internal.h"

extern const gconv_binary gconv_aux_copy16, gconv_aux_copy32, gconv_aux_cast_fp16, gconv_aux_cast_bf16,
    gconv_aux_sum_fp16, gconv_aux_sum_bf16, gconv_aux_sum_fp32, gconv_aux_twin16, gconv_aux_twin32;

#define AUX_BLOCK 1024 /* capi/aux_kernels.py BLOCK */
#define MAX_GRID_YZ 65535

typedef struct loaded {
    const gconv_binary *binary;
    CUcontext context;
    CUmodule module;
    CUfunction function;
    struct loaded *next;
} loaded;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static loaded *modules;

static gconv_status cuda_fail(const gconv_cuda *cuda, const char *call, CUresult result) {
    char message[256];
    gconv_cuda_describe(cuda, call, result, message, sizeof message);
    return gconv_fail(GCONV_STATUS_CUDA_ERROR, "%s", message);
}

#define CHECK(call, expression)                                            \
    do {                                                                   \
        CUresult result_ = (expression);                                   \
        if (result_ != CUDA_SUCCESS) return cuda_fail(cuda, call, result_); \
    } while (0)

/* The driver with a current context on a device that runs this build's cubins. */
static gconv_status open_device(const gconv_cuda **out, int *sm_count) {
    char message[512];
    const gconv_cuda *cuda = gconv_cuda_open(message, sizeof message);
    if (cuda == NULL) return gconv_fail(GCONV_STATUS_NO_DEVICE, "%s", message);
    CUdevice device;
    int major = 0, minor = 0;
    CHECK("cuCtxGetDevice", cuda->cuCtxGetDevice(&device));
    CHECK("cuDeviceGetAttribute", cuda->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK("cuDeviceGetAttribute", cuda->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    CHECK("cuDeviceGetAttribute", cuda->cuDeviceGetAttribute(sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    int capability = 10 * major + minor, built = gconv_arch_data.compute_capability;
    /* sm_90 cubins are sm_90a (Hopper only); sm_80 cubins run on any 8.x. */
    int runs = built >= 90 ? capability == built : capability / 10 == built / 10 && capability >= built;
    if (!runs)
        return gconv_fail(GCONV_STATUS_ARCH_MISMATCH,
                          "this libgconv holds %s cubins (GCONV_ARCH=%d) but the current device has compute capability "
                          "%d.%d; rebuild with -DGCONV_ARCH=%d", gconv_arch_name, built, major, minor,
                          capability >= 90 ? 90 : 80);
    *out = cuda;
    return GCONV_STATUS_SUCCESS;
}

static gconv_status function_of(const gconv_cuda *cuda, const gconv_binary *binary, CUfunction *function) {
    CUcontext context;
    CHECK("cuCtxGetCurrent", cuda->cuCtxGetCurrent(&context));
    pthread_mutex_lock(&lock);
    for (loaded *m = modules; m; m = m->next)
        if (m->binary == binary && m->context == context) {
            *function = m->function;
            pthread_mutex_unlock(&lock);
            return GCONV_STATUS_SUCCESS;
        }
    loaded *m = calloc(1, sizeof *m);
    CUresult result = m ? cuda->cuModuleLoadData(&m->module, binary->cubin) : 2 /* CUDA_ERROR_OUT_OF_MEMORY */;
    const char *call = "cuModuleLoadData";
    if (result == CUDA_SUCCESS) {
        call = "cuModuleGetFunction";
        result = cuda->cuModuleGetFunction(&m->function, m->module, binary->function);
    }
    if (result == CUDA_SUCCESS && binary->shared > 49152) {
        call = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)";
        result = cuda->cuFuncSetAttribute(m->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)binary->shared);
    }
    if (result != CUDA_SUCCESS) {
        if (m && m->module) cuda->cuModuleUnload(m->module);
        free(m);
        pthread_mutex_unlock(&lock);
        return cuda_fail(cuda, call, result);
    }
    m->binary = binary;
    m->context = context;
    m->next = modules;
    modules = m;
    *function = m->function;
    pthread_mutex_unlock(&lock);
    return GCONV_STATUS_SUCCESS;
}

void gconv_launch_cleanup(void) {
    char message[256];
    pthread_mutex_lock(&lock);
    const gconv_cuda *cuda = modules ? gconv_cuda_open(message, sizeof message) : NULL;
    while (modules) {
        loaded *next = modules->next;
        if (cuda) cuda->cuModuleUnload(modules->module);
        free(modules);
        modules = next;
    }
    pthread_mutex_unlock(&lock);
    gconv_cuda_close();
}

/* The binary's aligned twin when every integer argument it assumes divisible by 16 is (capi/aot.py), else binary. */
static const gconv_binary *variant_for(const gconv_binary *binary, void **params, unsigned count) {
    const gconv_binary *aligned = binary->aligned;
    if (aligned == NULL) return binary;
    for (unsigned i = 0; i < count; i++) /* count <= 62: launch checks it first */
        if ((aligned->divisible16 >> i & 1) && *(const int32_t *)params[i] % 16 != 0) return binary;
    return aligned;
}

/* Launch a binary: params are the kernel's arguments; those compiled in as constants are dropped (they must be 1),
 * and Triton's global and profile scratch pointers appended. */
static gconv_status launch(const gconv_cuda *cuda, const gconv_binary *binary, const int64_t grid[3], void **params,
                           unsigned count, CUstream stream) {
    if (count != binary->num_params || count > 62)
        return gconv_fail(GCONV_STATUS_CUDA_ERROR, "internal: %u arguments for a kernel of %u", count,
                          binary->num_params);
    if (grid[0] > 2147483647LL || grid[1] > MAX_GRID_YZ || grid[2] > MAX_GRID_YZ)
        return gconv_fail(GCONV_STATUS_UNSUPPORTED, "launch grid %lldx%lldx%lld exceeds CUDA's limits",
                          (long long)grid[0], (long long)grid[1], (long long)grid[2]);
    if (grid[0] * grid[1] * grid[2] == 0) return GCONV_STATUS_SUCCESS;
    binary = variant_for(binary, params, count);
    void *passed[64];
    unsigned kept = 0;
    for (unsigned i = 0; i < count; i++) {
        if (!(binary->constant >> i & 1)) {
            passed[kept++] = params[i];
        } else if (*(const int32_t *)params[i] != 1) {
            return gconv_fail(GCONV_STATUS_CUDA_ERROR, "internal: argument %u is compiled in as 1 but is %d", i,
                              *(const int32_t *)params[i]);
        }
    }
    CUfunction function;
    gconv_status status = function_of(cuda, binary, &function);
    if (status != GCONV_STATUS_SUCCESS) return status;
    CUdeviceptr scratch = 0, profile = 0;
    if (binary->scratch_size) {
        size_t bytes = (size_t)binary->scratch_size * (size_t)(grid[0] * grid[1] * grid[2]);
        CHECK("cuMemAllocAsync(global scratch)", cuda->cuMemAllocAsync(&scratch, bytes, stream));
    }
    passed[kept] = &scratch;
    passed[kept + 1] = &profile;
    CUresult result = cuda->cuLaunchKernel(function, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                           32 * binary->num_warps, 1, 1, binary->shared, stream, passed, NULL);
    if (scratch) cuda->cuMemFreeAsync(scratch, stream);
    if (result != CUDA_SUCCESS) return cuda_fail(cuda, "cuLaunchKernel", result);
    return GCONV_STATUS_SUCCESS;
}

/* Packed channels_last strides of a torch-shaped activation (N, G*c, H, W) and weight (G*K, C, Y, X). */
static void activation_strides(int64_t G, int64_t c, int64_t H, int64_t W, int32_t s[4]) {
    s[0] = (int32_t)(H * W * G * c);
    s[1] = 1;
    s[2] = (int32_t)(W * G * c);
    s[3] = (int32_t)(G * c);
}

static void weight_strides(int64_t C, int64_t Y, int64_t X, int32_t s[4]) {
    s[0] = (int32_t)(C * Y * X);
    s[1] = 1;
    s[2] = (int32_t)(X * C);
    s[3] = (int32_t)C;
}

/* runtime/launch.py launch: the binary of kernel config c on x_like, w_like, y_like, torch-shaped operands of the
   (padded) problem t (a via_fwd instance: its forward kernel on the forward twin). A last-arrival kernel
   (schemas/kernel_config.py last_arrival) also takes its zeroed fp32 workspace (the result's layout) and its arrival
   counters; 0 and 0 for the others. */
static gconv_status launch_instance(const gconv_cuda *cuda, const gconv_config *c, const gconv_binary *binary,
                                    const gconv_prob *t, CUdeviceptr x_like, CUdeviceptr w_like, CUdeviceptr y_like,
                                    int sm_count, CUstream stream, CUdeviceptr workspace, CUdeviceptr arrivals) {
    int32_t sizes[16] = {(int32_t)t->N, (int32_t)t->G, (int32_t)t->C, (int32_t)t->K, (int32_t)t->Hi,
                         (int32_t)t->Wi, (int32_t)t->Ho, (int32_t)t->Wo, (int32_t)t->Y, (int32_t)t->X,
                         (int32_t)t->stride_h, (int32_t)t->stride_w, (int32_t)t->pad_h, (int32_t)t->pad_w,
                         (int32_t)t->dil_h, (int32_t)t->dil_w};
    int32_t strides[12];
    activation_strides(t->G, t->C, t->Hi, t->Wi, strides);
    weight_strides(t->C, t->Y, t->X, strides + 4);
    activation_strides(t->G, t->K, t->Ho, t->Wo, strides + 8);
    int64_t grid[3];
    gconv_tile_grid(c, t, grid);
    int32_t programs = 0;
    void *params[3 + 16 + 12 + 1 + 2 + 2];
    unsigned count = 0;
    params[count++] = &x_like;
    params[count++] = &w_like;
    params[count++] = &y_like;
    for (int i = 0; i < 16; i++) params[count++] = &sizes[i];
    for (int i = 0; i < 12; i++) params[count++] = &strides[i];
    if (c->pipeline == GCONV_PIPELINE_PERSISTENT || c->pipeline == GCONV_PIPELINE_STREAMK) {
        int64_t total = grid[0] * grid[1] * grid[2];
        if (c->pipeline == GCONV_PIPELINE_STREAMK) /* runtime/grid.py streamk_steps: units per tile */
            total *= (t->N * t->Ho * t->Wo + c->block_k - 1) / c->block_k;
        programs = (int32_t)(total < sm_count ? total : sm_count);
        if (programs < 1) programs = 1;
        params[count++] = &programs;
        grid[0] = programs;
        grid[1] = grid[2] = 1;
    }
    if (c->last_arrival) {
        params[count++] = &workspace;
        params[count++] = &arrivals;
    }
    return launch(cuda, binary, grid, params, count, stream);
}

/* dst[a, b, c, j] = src[a, b, c, j] for j < J (capi/aux_kernels.py copy_rows). */
static gconv_status copy_rows(const gconv_cuda *cuda, int bytes, CUdeviceptr src, CUdeviceptr dst, int64_t A,
                              int64_t B, int64_t Cn, int64_t J, const int64_t s[3], const int64_t d[3], CUstream stream) {
    int32_t args[10] = {(int32_t)(A * B * Cn * J), (int32_t)J, (int32_t)Cn, (int32_t)B, (int32_t)s[0], (int32_t)s[1],
                        (int32_t)s[2], (int32_t)d[0], (int32_t)d[1], (int32_t)d[2]};
    void *params[2 + 10 + 2] = {&src, &dst};
    for (int i = 0; i < 10; i++) params[2 + i] = &args[i];
    int64_t grid[3] = {(A * B * Cn * J + AUX_BLOCK - 1) / AUX_BLOCK, 1, 1};
    return launch(cuda, bytes == 4 ? &gconv_aux_copy32 : &gconv_aux_copy16, grid, params, 12, stream);
}

/* An activation N x H x W x G x c_src <-> N x H x W x G x c_dst, copying `copied` channels per group. */
static gconv_status copy_activation(const gconv_cuda *cuda, int bytes, CUdeviceptr src, CUdeviceptr dst,
                                    int64_t pixels, int64_t G, int64_t c_src, int64_t c_dst, int64_t copied,
                                    CUstream stream) {
    int64_t s[3] = {G * c_src, c_src, 0}, d[3] = {G * c_dst, c_dst, 0};
    return copy_rows(cuda, bytes, src, dst, pixels, G, 1, copied, s, d, stream);
}

/* A weight G x K x (Y*X) x C between channel counts (K_src, C_src) and (K_dst, C_dst), copying K x C per group. */
static gconv_status copy_weight(const gconv_cuda *cuda, int bytes, CUdeviceptr src, CUdeviceptr dst, int64_t G,
                                int64_t taps, int64_t K_src, int64_t C_src, int64_t K_dst, int64_t C_dst, int64_t K,
                                int64_t C, CUstream stream) {
    int64_t s[3] = {K_src * taps * C_src, taps * C_src, C_src}, d[3] = {K_dst * taps * C_dst, taps * C_dst, C_dst};
    return copy_rows(cuda, bytes, src, dst, G, K, taps, C, s, d, stream);
}

/* runtime/forward_twin.py twin_filter: a G x K x taps x C filter into the G x C x taps x K one of the forward twin
   (capi/aux_kernels.py twin_filter). */
static gconv_status twin_filter(const gconv_cuda *cuda, int bytes, CUdeviceptr src, CUdeviceptr dst, int64_t G,
                                int64_t K, int64_t C, int64_t taps, CUstream stream) {
    int32_t args[4] = {(int32_t)(G * K * C * taps), (int32_t)K, (int32_t)C, (int32_t)taps};
    void *params[2 + 4 + 2] = {&src, &dst, &args[0], &args[1], &args[2], &args[3]};
    int64_t grid[3] = {(G * K * C * taps + AUX_BLOCK - 1) / AUX_BLOCK, 1, 1};
    return launch(cuda, bytes == 4 ? &gconv_aux_twin32 : &gconv_aux_twin16, grid, params, 6, stream);
}

/* What a choice launches on the (padded) problem t: its entry's kernel on t, or a via_fwd entry's forward kernel
   (KernelConfig.kernel) on t's forward twin (runtime/launch.py run). */
static void launched(const gconv_entry *entry, const gconv_prob *t, gconv_config *kernel, gconv_prob *problem) {
    *kernel = entry->config;
    *problem = *t;
    if (entry->config.via_fwd) {
        *kernel = gconv_forward_kernel(&entry->config);
        gconv_forward_twin(t, problem); /* gconv_candidate_for checked that t has one */
    }
}

typedef struct buffers { /* run()'s temporaries: at most 3 padded operands, a last-arrival workspace, a twin filter */
    CUdeviceptr pointer[5];
    int count;
} buffers;

static gconv_status allocate(const gconv_cuda *cuda, buffers *owned, size_t bytes, int zero, CUdeviceptr *out,
                             CUstream stream) {
    CHECK("cuMemAllocAsync", cuda->cuMemAllocAsync(out, bytes, stream));
    owned->pointer[owned->count++] = *out;
    if (zero) CHECK("cuMemsetD8Async", cuda->cuMemsetD8Async(*out, 0, bytes, stream));
    return GCONV_STATUS_SUCCESS;
}

/* schemas/kernel_config.py accumulates_fp32: split-K (one stage) and StreamK add partial sums with fp32 atomics. */
static int accumulates_fp32(const gconv_config *c) {
    return (c->split_k > 1 && !c->two_stage && !c->last_arrival) || c->pipeline == GCONV_PIPELINE_STREAMK;
}

/* A last-arrival kernel's arrival counters, one per output block (runtime/grid.py arrival_blocks): the programs of
   one split, grid axis 0 of the depthwise kernels, axis 2 of the direct and igemm ones. */
static int64_t arrival_counters(const gconv_config *c, const gconv_prob *t) {
    int64_t grid[3];
    gconv_tile_grid(c, t, grid);
    return c->algorithm == GCONV_ALGORITHM_DEPTHWISE ? grid[1] * grid[2] : grid[0] * grid[1];
}

static int64_t activation_elements(const gconv_prob *p, int input, int64_t channels) {
    return p->N * (input ? p->Hi * p->Wi : p->Ho * p->Wo) * p->G * channels;
}

/* The temporaries of gconv_launch, in bytes (gconv_workspace_size). */
size_t gconv_temporary_bytes(const gconv_prob *p, const gconv_choice *choice) {
    int bytes = gconv_dtype_bytes(p->dtype);
    int padded = choice->padded_C != p->C || choice->padded_K != p->K;
    gconv_prob t = *p;
    t.C = choice->padded_C;
    t.K = choice->padded_K;
    int64_t x = activation_elements(&t, 1, t.C), y = activation_elements(&t, 0, t.K), w = t.G * t.K * t.C * t.Y * t.X;
    size_t total = padded ? (size_t)(x + y + w) * bytes : 0;
    gconv_config kernel;
    gconv_prob runs;
    launched(choice->entry, &t, &kernel, &runs);
    if (choice->entry->config.via_fwd) total += (size_t)w * bytes; /* the twin filter */
    if (p->direction == GCONV_DIRECTION_BWD_WEIGHT && choice->entry->config.two_stage)
        total += (size_t)w * 4 * (size_t)choice->entry->config.split_k;
    else if (kernel.last_arrival) /* the result's fp32 sums: dW, or a split fwd kernel's (or forward twin's) y */
        total += (size_t)(gconv_split_result_elements(&runs) + arrival_counters(&kernel, &runs)) * 4;
    else if (p->direction == GCONV_DIRECTION_BWD_WEIGHT && accumulates_fp32(&choice->entry->config) &&
             p->dtype != GCONV_DTYPE_FP32)
        total += (size_t)w * 4;
    const gconv_binary *binary = choice->entry->binary;
    unsigned scratch = binary->scratch_size;
    if (binary->aligned && binary->aligned->scratch_size > scratch) scratch = binary->aligned->scratch_size;
    if (scratch) {
        int64_t grid[3];
        gconv_tile_grid(&kernel, &runs, grid);
        total += (size_t)scratch * (size_t)(grid[0] * grid[1] * grid[2]);
    }
    return total;
}

static gconv_status run(const gconv_cuda *cuda, const gconv_prob *p, const gconv_choice *choice, CUdeviceptr a,
                        CUdeviceptr b, CUdeviceptr out, int sm_count, CUstream stream, buffers *owned) {
    const gconv_entry *entry = choice->entry;
    int bytes = gconv_dtype_bytes(p->dtype);
    int padded = choice->padded_C != p->C || choice->padded_K != p->K;
    gconv_prob t = *p;
    t.C = choice->padded_C;
    t.K = choice->padded_K;
    int64_t taps = p->Y * p->X, pixels_in = p->N * p->Hi * p->Wi, pixels_out = p->N * p->Ho * p->Wo;
    int64_t weight = t.G * t.K * t.C * taps;
    CUdeviceptr ta = a, tb = b, tout = out;
    gconv_status status = GCONV_STATUS_SUCCESS;
    if (padded) {  /* runtime/padding.py pad_operands: zero-filled copies with the padded channel counts */
        int64_t a_elements = p->direction == GCONV_DIRECTION_BWD_DATA ? activation_elements(&t, 0, t.K)
                                                                       : activation_elements(&t, 1, t.C);
        int64_t b_elements = p->direction == GCONV_DIRECTION_BWD_WEIGHT ? activation_elements(&t, 0, t.K) : weight;
        int64_t out_elements = p->direction == GCONV_DIRECTION_FWD ? activation_elements(&t, 0, t.K)
                               : p->direction == GCONV_DIRECTION_BWD_DATA ? activation_elements(&t, 1, t.C) : weight;
        if ((status = allocate(cuda, owned, (size_t)a_elements * bytes, 1, &ta, stream))) return status;
        if ((status = allocate(cuda, owned, (size_t)b_elements * bytes, 1, &tb, stream))) return status;
        if ((status = allocate(cuda, owned, (size_t)out_elements * bytes, 0, &tout, stream))) return status;
        if (p->direction == GCONV_DIRECTION_BWD_DATA)
            status = copy_activation(cuda, bytes, a, ta, pixels_out, p->G, p->K, t.K, p->K, stream);
        else
            status = copy_activation(cuda, bytes, a, ta, pixels_in, p->G, p->C, t.C, p->C, stream);
        if (status) return status;
        if (p->direction == GCONV_DIRECTION_BWD_WEIGHT)
            status = copy_activation(cuda, bytes, b, tb, pixels_out, p->G, p->K, t.K, p->K, stream);
        else
            status = copy_weight(cuda, bytes, b, tb, p->G, taps, p->K, p->C, t.K, t.C, p->K, p->C, stream);
        if (status) return status;
    }
    gconv_config kernel;
    gconv_prob runs;
    launched(entry, &t, &kernel, &runs);
    CUdeviceptr workspace = 0, arrivals = 0;
    if (kernel.last_arrival) {
        /* The Python runtime keeps this workspace zeroed between launches (runtime/arrival_workspace.py); here it is
           a zeroed temporary of each call: the result's fp32 sums (dW, or a split fwd kernel's y) and one counter per
           output block. One memset, and the kernel casts its sums into the result itself. */
        size_t sums = (size_t)gconv_split_result_elements(&runs) * 4;
        status = allocate(cuda, owned, sums + (size_t)arrival_counters(&kernel, &runs) * 4, 1, &workspace, stream);
        if (status) return status;
        arrivals = workspace + sums;
    }
    const gconv_binary *binary = entry->binary;
    if (p->direction == GCONV_DIRECTION_FWD) {
        status = launch_instance(cuda, &kernel, binary, &t, ta, tb, tout, sm_count, stream, workspace, arrivals);
    } else if (entry->config.via_fwd) {  /* dX is the forward twin's output: dY convolved with the twin filter */
        CUdeviceptr twin_w;
        if ((status = allocate(cuda, owned, (size_t)weight * bytes, 0, &twin_w, stream))) return status;
        if ((status = twin_filter(cuda, bytes, tb, twin_w, t.G, t.K, t.C, taps, stream))) return status;
        status = launch_instance(cuda, &kernel, binary, &runs, ta, twin_w, tout, sm_count, stream, workspace, arrivals);
    } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
        status = launch_instance(cuda, &kernel, binary, &t, tout, tb, ta, sm_count, stream, 0, 0);
    } else if (entry->config.last_arrival) {
        status = launch_instance(cuda, &kernel, binary, &t, ta, tout, tb, sm_count, stream, workspace, arrivals);
    } else if (entry->config.two_stage) {  /* fp32 slices, one per split (runtime/launch.py), then their sum */
        CUdeviceptr slices;
        int32_t n = (int32_t)weight, count = entry->config.split_k;
        if ((status = allocate(cuda, owned, (size_t)weight * 4 * (size_t)count, 0, &slices, stream))) return status;
        status = launch_instance(cuda, &kernel, binary, &t, ta, slices, tb, sm_count, stream, 0, 0);
        if (status == GCONV_STATUS_SUCCESS) {
            void *params[4 + 2] = {&slices, &tout, &n, &count};
            int64_t grid[3] = {(weight + AUX_BLOCK - 1) / AUX_BLOCK, 1, 1};
            const gconv_binary *sum = p->dtype == GCONV_DTYPE_FP16   ? &gconv_aux_sum_fp16
                                      : p->dtype == GCONV_DTYPE_BF16 ? &gconv_aux_sum_bf16
                                                                     : &gconv_aux_sum_fp32;
            status = launch(cuda, sum, grid, params, 4, stream);
        }
    } else if (accumulates_fp32(&entry->config)) {  /* fp32 atomics into a zeroed workspace, then the cast */
        CUdeviceptr workspace = tout;
        if (p->dtype == GCONV_DTYPE_FP32) {
            CHECK("cuMemsetD8Async", cuda->cuMemsetD8Async(tout, 0, (size_t)weight * 4, stream));
        } else if ((status = allocate(cuda, owned, (size_t)weight * 4, 1, &workspace, stream))) {
            return status;
        }
        status = launch_instance(cuda, &kernel, binary, &t, ta, workspace, tb, sm_count, stream, 0, 0);
        if (status == GCONV_STATUS_SUCCESS && workspace != tout) {
            int32_t n = (int32_t)weight;
            void *params[3 + 2] = {&workspace, &tout, &n};
            int64_t grid[3] = {(weight + AUX_BLOCK - 1) / AUX_BLOCK, 1, 1};
            status = launch(cuda, p->dtype == GCONV_DTYPE_FP16 ? &gconv_aux_cast_fp16 : &gconv_aux_cast_bf16, grid,
                            params, 3, stream);
        }
    } else {
        status = launch_instance(cuda, &kernel, binary, &t, ta, tout, tb, sm_count, stream, 0, 0);
    }
    if (status || !padded) return status;
    /* runtime/padding.py unpad_result */
    if (p->direction == GCONV_DIRECTION_FWD)
        return copy_activation(cuda, bytes, tout, out, pixels_out, p->G, t.K, p->K, p->K, stream);
    if (p->direction == GCONV_DIRECTION_BWD_DATA)
        return copy_activation(cuda, bytes, tout, out, pixels_in, p->G, t.C, p->C, p->C, stream);
    return copy_weight(cuda, bytes, tout, out, p->G, taps, t.K, t.C, p->K, p->C, p->K, p->C, stream);
}

gconv_status gconv_launch(const gconv_prob *p, const gconv_choice *choice, const void *a, const void *b, void *out,
                          void *stream) {
    const gconv_cuda *cuda;
    int sm_count = 0;
    gconv_status status = open_device(&cuda, &sm_count);
    if (status != GCONV_STATUS_SUCCESS) return status;
    gconv_prob t = *p;
    t.C = choice->padded_C;
    t.K = choice->padded_K;
    int64_t sizes[3] = {activation_elements(&t, 1, t.C), t.G * t.K * t.C * t.Y * t.X, activation_elements(&t, 0, t.K)};
    for (int i = 0; i < 3; i++)
        if (sizes[i] > 2147483647LL)
            return gconv_fail(GCONV_STATUS_UNSUPPORTED,
                              "%s pads the channels per group to C=%lld, K=%lld: a tensor would have %lld elements, "
                              "more than 32-bit indexing allows", choice->entry->name, (long long)t.C, (long long)t.K,
                              (long long)sizes[i]);
    buffers owned = {{0}, 0};
    status = run(cuda, p, choice, (CUdeviceptr)(uintptr_t)a, (CUdeviceptr)(uintptr_t)b, (CUdeviceptr)(uintptr_t)out,
                 sm_count, (CUstream)stream, &owned);
    for (int i = 0; i < owned.count; i++) cuda->cuMemFreeAsync(owned.pointer[i], (CUstream)stream);
    return status;
}
