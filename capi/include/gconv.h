/* gconv C API: select and run the ahead-of-time compiled grouped-convolution kernels of one rule set.
 *
 * Built by CMake (`cmake -S . -B build -DRULE_SET=<set> -DGCONV_ARCH=<90|80>`; docs/cmake.md). Plain C, no
 * exceptions: every call returns a status, and gconv_last_error() gives this thread's message for the last call.
 *
 * Tensors are packed channels_last, C and K per group (the native layout of the Python runtime):
 *   activations NHWGC  (torch: N x (G*C) x H x W in channels_last memory format),
 *   weights     GKYXC  (torch: (G*K) x C x Y x X in channels_last memory format).
 * Operands follow the runner order: fwd (x, w) -> y, bwd_data (dy, w) -> dx, bwd_weight (x, dy) -> dw.
 *
 * Everything except gconv_run works without an NVIDIA driver: libcuda.so.1 is opened on the first gconv_run, and
 * its absence is the status GCONV_STATUS_NO_DEVICE, never a load failure of this library.
 */
#ifndef GCONV_H
#define GCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define GCONV_API __declspec(dllexport)
#else
#define GCONV_API __attribute__((visibility("default")))
#endif

#define GCONV_API_VERSION 1

typedef enum gconv_status {
    GCONV_STATUS_SUCCESS = 0,
    GCONV_STATUS_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad problem field, a misaligned pointer, ... */
    GCONV_STATUS_UNSUPPORTED = 2,      /* no instance of this library's rule set runs the problem */
    GCONV_STATUS_BUFFER_TOO_SMALL = 3, /* a caller buffer cannot hold the answer (the message says how much) */
    GCONV_STATUS_UNKNOWN_KERNEL = 4,   /* a kernel name that is not in this library */
    GCONV_STATUS_NO_DEVICE = 5,        /* no libcuda.so.1, no CUDA device, or cuInit failed */
    GCONV_STATUS_ARCH_MISMATCH = 6,    /* the device cannot run this build's cubins (see GCONV_ARCH) */
    GCONV_STATUS_CUDA_ERROR = 7        /* a CUDA driver call failed (the message names it) */
} gconv_status;

typedef enum gconv_direction {
    GCONV_DIRECTION_FWD = 0,
    GCONV_DIRECTION_BWD_DATA = 1,
    GCONV_DIRECTION_BWD_WEIGHT = 2
} gconv_direction;

typedef enum gconv_dtype { GCONV_DTYPE_FP16 = 0, GCONV_DTYPE_BF16 = 1, GCONV_DTYPE_FP32 = 2 } gconv_dtype;

/* One grouped 2D convolution; field names follow gconv.Problem (CK's benchmark CSV). The output size is derived. */
typedef struct gconv_problem {
    int32_t direction; /* gconv_direction */
    int32_t dtype;     /* gconv_dtype */
    int64_t N, G, C, K; /* C and K per group */
    int64_t Hi, Wi, Y, X;
    int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
} gconv_problem;

/* What the selector chose (gconv_select). padded_C/padded_K differ from C/K when the kernel runs after zero-padding
 * the channels per group (done inside gconv_run). */
#define GCONV_SOURCE_RULE 0  /* the rule heuristic (heuristics/analytic.py ported to C) */
#define GCONV_SOURCE_MODEL 1 /* the trained LightGBM model of the problem's direction and dtype (heuristics/models) */

typedef struct gconv_selection {
    char kernel[128];
    double predicted_tflops; /* FLOPs / predicted time: the model's prediction, else the rule heuristic's estimate */
    int64_t padded_C, padded_K;
    int32_t candidates;      /* instances able to run the problem */
    int32_t source;          /* GCONV_SOURCE_RULE or GCONV_SOURCE_MODEL */
} gconv_selection;

/* Prepare the library (CPU only: no GPU, no driver). Optional: every other call initialises on demand. */
GCONV_API gconv_status gconv_init(void);
/* Unload kernels, free device state, close libcuda; a later call initialises again. */
GCONV_API void gconv_cleanup(void);

/* The rule set and arch this library was built for, e.g. "tests" and "sm_90". */
GCONV_API const char *gconv_rule_set(void);
GCONV_API const char *gconv_arch(void);

/* Instances compiled into this library (those of the rule set valid on its arch), and the name of one of them. */
GCONV_API size_t gconv_kernel_count(void);
GCONV_API gconv_status gconv_kernel_name(size_t index, char *name, size_t name_size);

/* *supported = 1 if some instance runs the problem (possibly after channel padding), else 0. */
GCONV_API gconv_status gconv_is_supported(const gconv_problem *problem, int *supported);
/* The kernel gconv_run would run, written NUL-terminated into name[name_size]. */
GCONV_API gconv_status gconv_select_kernel(const gconv_problem *problem, char *name, size_t name_size);
GCONV_API gconv_status gconv_select(const gconv_problem *problem, gconv_selection *selection);

/* Device memory gconv_run allocates temporarily for the problem (stream-ordered, freed on the same stream):
 * channel padding copies, the fp32 split-K workspace of bwd_weight, Triton's global scratch. kernel NULL: selected. */
GCONV_API gconv_status gconv_workspace_size(const gconv_problem *problem, const char *kernel, size_t *bytes);

/* Run the problem on the stream (a CUstream / cudaStream_t; NULL: the legacy default stream) in the current CUDA
 * context (or device 0's primary context when none is current). a, b, out: device pointers, 16-byte aligned, in the
 * runner order above; out is fully written. gconv_run_kernel forces an instance by name (NULL: select). */
GCONV_API gconv_status gconv_run(const gconv_problem *problem, const void *a, const void *b, void *out,
                                 void *stream);
GCONV_API gconv_status gconv_run_kernel(const gconv_problem *problem, const char *kernel, const void *a,
                                        const void *b, void *out, void *stream);

/* The rule set's registry.json, byte for byte. Needs size >= gconv_registry_json_size() + 1 (NUL). *written (may
 * be NULL) receives the byte count without the NUL; on GCONV_STATUS_BUFFER_TOO_SMALL it receives the size needed. */
GCONV_API size_t gconv_registry_json_size(void);
GCONV_API gconv_status gconv_export_registry_json(char *buffer, size_t size, size_t *written);

/* The selection model compiled in for a direction and dtype ("sm_90/fwd_bf16", as Python's KernelChoice.reason names
 * it), or NULL when that target has none and selection uses the rule heuristic. */
GCONV_API const char *gconv_model_name(int32_t direction, int32_t dtype);

/* Testing: the feature row (heuristics/features.py FEATURE_NAMES order, gconv_feature_count() entries) of one
 * candidate -- the named kernel on the problem, channel-padded as selection would pad it -- and the model's raw
 * score for it (NaN without a model). */
GCONV_API size_t gconv_feature_count(void);
GCONV_API gconv_status gconv_debug_features(const gconv_problem *problem, const char *kernel, double *features,
                                            size_t count, double *raw_score);

/* This thread's message for its last call ("" after a success); valid until this thread's next gconv call. */
GCONV_API const char *gconv_last_error(void);
GCONV_API const char *gconv_status_name(gconv_status status); /* e.g. "GCONV_STATUS_NO_DEVICE" */

#ifdef __cplusplus
}
#endif

#endif /* GCONV_H */
