/* gconv-helper: select (and on a GPU run, time and validate) one convolution through libgconv; prints JSON.
 *
 *   gconv-helper fwd|bwd_data|bwd_weight --n N --g G --c C --k K --hw H W --yx Y X [--stride SH SW] [--pad PH PW]
 *                [--dil DH DW] [--dtype fp16|bf16|fp32] [--kernel NAME] [--repeats R] [--seed S]
 *                [--validate] [--select-only]
 *
 * Exit codes: 0 ok (or selected, with --select-only), 1 validation failed, 2 invalid arguments or no instance runs
 * the problem, 3 no usable GPU (no driver, no device, or a device this build's cubins do not run on), 4 CUDA error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "gconv.h"
#include "gconv_rules.h"

enum { EXIT_OK = 0, EXIT_INVALID_RESULT = 1, EXIT_BAD_INPUT = 2, EXIT_NO_DEVICE = 3, EXIT_CUDA = 4 };

static const char *const DIRECTIONS[] = {"fwd", "bwd_data", "bwd_weight"};
static const char *const DTYPES[] = {"fp16", "bf16", "fp32"};

typedef struct report {
    gconv_problem problem;
    int64_t Ho, Wo;
    const char *status, *message;
    char kernel[128];
    gconv_selection selection;
    int selected;
    double time_ms, tflops, max_error, bound;
    int timed, validated;
    uint64_t seed;
} report;

static void json_string(const char *text) {
    putchar('"');
    for (; *text; text++) {
        if (*text == '"' || *text == '\\') printf("\\%c", *text);
        else if ((unsigned char)*text < 0x20) printf("\\u%04x", *text);
        else putchar(*text);
    }
    putchar('"');
}

static void json_number(double value, int present) {
    if (!present) printf("null");
    else if (!isfinite(value)) printf("\"inf\"");
    else printf("%.6g", value);
}

static int finish(const report *r, int code) {
    const gconv_problem *p = &r->problem;
    printf("{\n  \"problem\": {\"direction\": \"%s\", \"dtype\": \"%s\", \"N\": %lld, \"G\": %lld, \"C\": %lld, "
           "\"K\": %lld, \"Hi\": %lld, \"Wi\": %lld, \"Y\": %lld, \"X\": %lld, \"stride_h\": %lld, \"stride_w\": %lld, "
           "\"pad_h\": %lld, \"pad_w\": %lld, \"dil_h\": %lld, \"dil_w\": %lld, \"Ho\": ",
           DIRECTIONS[p->direction], DTYPES[p->dtype], (long long)p->N, (long long)p->G, (long long)p->C,
           (long long)p->K, (long long)p->Hi, (long long)p->Wi, (long long)p->Y, (long long)p->X,
           (long long)p->stride_h, (long long)p->stride_w, (long long)p->pad_h, (long long)p->pad_w,
           (long long)p->dil_h, (long long)p->dil_w);
    json_number((double)r->Ho, r->selected);
    printf(", \"Wo\": ");
    json_number((double)r->Wo, r->selected);
    printf("},\n");
    printf("  \"rule_set\": \"%s\",\n  \"arch\": \"%s\",\n  \"kernel\": ", gconv_rule_set(), gconv_arch());
    if (r->selected) json_string(r->kernel);
    else printf("null");
    printf(",\n  \"padded_C\": ");
    json_number((double)r->selection.padded_C, r->selected);
    printf(",\n  \"padded_K\": ");
    json_number((double)r->selection.padded_K, r->selected);
    printf(",\n  \"predicted_tflops\": ");
    json_number(r->selection.predicted_tflops, r->selected && r->selection.predicted_tflops > 0);
    printf(",\n  \"selection_source\": ");
    if (r->selected) json_string(r->selection.source == GCONV_SOURCE_MODEL ? "model" : "rule");
    else printf("null");
    printf(",\n  \"model\": ");
    const char *model = gconv_model_name(p->direction, p->dtype);
    if (r->selected && r->selection.source == GCONV_SOURCE_MODEL && model) json_string(model);
    else printf("null");
    printf(",\n  \"time_ms\": ");
    json_number(r->time_ms, r->timed);
    printf(",\n  \"tflops\": ");
    json_number(r->tflops, r->timed);
    printf(",\n  \"max_error\": ");
    json_number(r->max_error, r->validated);
    printf(",\n  \"error_bound\": ");
    json_number(r->bound, r->validated);
    printf(",\n  \"status\": \"%s\",\n  \"message\": ", r->status);
    json_string(r->message ? r->message : "");
    printf(",\n  \"exit_code\": %d\n}\n", code);
    return code;
}

static int usage(const char *why) {
    fprintf(stderr,
            "gconv-helper: %s\nusage: gconv-helper fwd|bwd_data|bwd_weight --n N --g G --c C --k K --hw H W --yx Y X "
            "[--stride SH SW] [--pad PH PW] [--dil DH DW] [--dtype fp16|bf16|fp32] [--kernel NAME] [--repeats R] "
            "[--seed S] [--validate] [--select-only]\n", why);
    return EXIT_BAD_INPUT;
}

static int parse_int(const char *text, int64_t *out) {
    char *end;
    long long value = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0') return 0;
    *out = value;
    return 1;
}

/* ---- host numerics: rounding to the dtype, deterministic normal samples, float64 reference ---- */
static uint16_t to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exponent = (x >> 23) & 0xff, mantissa = x & 0x7fffff;
    if (exponent == 0xff) return (uint16_t)(sign | 0x7c00 | (mantissa ? 0x200 : 0));
    int e = (int)exponent - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        mantissa |= 0x800000;
        int shift = 14 - e;
        uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = (uint32_t)(e << 10) | (mantissa >> 13), rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;
    return (uint16_t)(sign | half);
}

static float from_half(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, x;
    if (exponent == 0) {
        float value = ldexpf((float)mantissa, -24);
        return sign ? -value : value;
    }
    if (exponent == 31) x = sign | 0x7f800000 | (mantissa << 13);
    else x = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static uint16_t to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static float from_bf16(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static uint64_t rng_state;
static double uniform(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* n normal samples rounded to dtype: device bytes into raw, the rounded values into values */
static void fill(int dtype, size_t n, void *raw, double *values) {
    for (size_t i = 0; i < n; i++) {
        double u = uniform(), v = uniform();
        float f = (float)(sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v));
        if (dtype == GCONV_DTYPE_FP16) {
            ((uint16_t *)raw)[i] = to_half(f);
            values[i] = from_half(((uint16_t *)raw)[i]);
        } else if (dtype == GCONV_DTYPE_BF16) {
            ((uint16_t *)raw)[i] = to_bf16(f);
            values[i] = from_bf16(((uint16_t *)raw)[i]);
        } else {
            ((float *)raw)[i] = f;
            values[i] = f;
        }
    }
}

static double read_value(int dtype, const void *raw, size_t i) {
    if (dtype == GCONV_DTYPE_FP16) return from_half(((const uint16_t *)raw)[i]);
    if (dtype == GCONV_DTYPE_BF16) return from_bf16(((const uint16_t *)raw)[i]);
    return ((const float *)raw)[i];
}

/* The runner-order result in float64 (x NHWGC, w GKYXC, y NHWGC). */
static void reference(const gconv_problem *p, int64_t Ho, int64_t Wo, const double *a, const double *b, double *out) {
    int64_t G = p->G, C = p->C, K = p->K;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t ho = 0; ho < Ho; ho++)
            for (int64_t wo = 0; wo < Wo; wo++)
                for (int64_t fy = 0; fy < p->Y; fy++) {
                    int64_t hi = ho * p->stride_h - p->pad_h + fy * p->dil_h;
                    if (hi < 0 || hi >= p->Hi) continue;
                    for (int64_t fx = 0; fx < p->X; fx++) {
                        int64_t wi = wo * p->stride_w - p->pad_w + fx * p->dil_w;
                        if (wi < 0 || wi >= p->Wi) continue;
                        int64_t x0 = ((n * p->Hi + hi) * p->Wi + wi) * G * C, y0 = ((n * Ho + ho) * Wo + wo) * G * K;
                        for (int64_t g = 0; g < G; g++)
                            for (int64_t k = 0; k < K; k++) {
                                int64_t w0 = (((g * K + k) * p->Y + fy) * p->X + fx) * C, yi = y0 + g * K + k;
                                const int64_t xg = x0 + g * C;
                                if (p->direction == GCONV_DIRECTION_FWD) {
                                    double sum = 0;
                                    for (int64_t c = 0; c < C; c++) sum += a[xg + c] * b[w0 + c];
                                    out[yi] += sum;
                                } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
                                    for (int64_t c = 0; c < C; c++) out[xg + c] += a[yi] * b[w0 + c];
                                } else {
                                    for (int64_t c = 0; c < C; c++) out[w0 + c] += a[xg + c] * b[yi];
                                }
                            }
                    }
                }
}

static int run_on_device(report *r, const char *kernel, int repeats, int validate) {
    const gconv_problem *p = &r->problem;
    static char message[600];
    const gconv_cuda *cuda = gconv_cuda_open(message, sizeof message);
    if (cuda == NULL) {
        r->status = "no_device";
        r->message = message;
        return EXIT_NO_DEVICE;
    }
    size_t bytes = p->dtype == GCONV_DTYPE_FP32 ? 4 : 2;
    size_t x = (size_t)(p->N * p->Hi * p->Wi * p->G * p->C), w = (size_t)(p->G * p->K * p->C * p->Y * p->X),
           y = (size_t)(p->N * r->Ho * r->Wo * p->G * p->K);
    size_t sizes[3];  /* a, b, out in the runner order */
    if (p->direction == GCONV_DIRECTION_FWD) sizes[0] = x, sizes[1] = w, sizes[2] = y;
    else if (p->direction == GCONV_DIRECTION_BWD_DATA) sizes[0] = y, sizes[1] = w, sizes[2] = x;
    else sizes[0] = x, sizes[1] = y, sizes[2] = w;
    void *raw[3] = {NULL, NULL, NULL};
    double *values[3] = {NULL, NULL, NULL};
    CUdeviceptr device[3] = {0, 0, 0};
    CUevent start = NULL, stop = NULL;
    int code = EXIT_OK;
    CUresult result = CUDA_SUCCESS;
    const char *call = "";
#define TRY(name, expression) \
    if (result == CUDA_SUCCESS) { call = name; result = (expression); }
    for (int i = 0; i < 3; i++) {
        raw[i] = malloc(sizes[i] * bytes);
        values[i] = calloc(sizes[i], sizeof(double));
        TRY("cuMemAlloc", cuda->cuMemAlloc(&device[i], sizes[i] * bytes));
    }
    rng_state = 0x9E3779B97F4A7C15ULL ^ (r->seed * 0xD1B54A32D192ED03ULL);
    for (int i = 0; i < 2; i++) {
        fill(p->dtype, sizes[i], raw[i], values[i]);
        TRY("cuMemcpyHtoD", cuda->cuMemcpyHtoD(device[i], raw[i], sizes[i] * bytes));
    }
    TRY("cuMemsetD8Async", cuda->cuMemsetD8Async(device[2], 0xff, sizes[2] * bytes, NULL));  /* NaN poison */
    if (result != CUDA_SUCCESS) goto cuda_error;
    gconv_status status = gconv_run_kernel(p, kernel, (void *)(uintptr_t)device[0], (void *)(uintptr_t)device[1],
                                           (void *)(uintptr_t)device[2], NULL);
    if (status != GCONV_STATUS_SUCCESS) {
        r->status = status == GCONV_STATUS_NO_DEVICE ? "no_device"
                    : status == GCONV_STATUS_ARCH_MISMATCH ? "arch_mismatch" : "cuda_error";
        snprintf(message, sizeof message, "%s: %s", gconv_status_name(status), gconv_last_error());
        r->message = message;
        code = status == GCONV_STATUS_NO_DEVICE || status == GCONV_STATUS_ARCH_MISMATCH ? EXIT_NO_DEVICE : EXIT_CUDA;
        goto done;
    }
    TRY("cuCtxSynchronize", cuda->cuCtxSynchronize());
    if (validate) {
        TRY("cuMemcpyDtoH", cuda->cuMemcpyDtoH(raw[2], device[2], sizes[2] * bytes));
        if (result != CUDA_SUCCESS) goto cuda_error;
        reference(p, r->Ho, r->Wo, values[0], values[1], values[2]);
        double scale = 0, error = 0;
        for (size_t i = 0; i < sizes[2]; i++) scale = fmax(scale, fabs(values[2][i]));
        for (size_t i = 0; i < sizes[2]; i++) {
            double got = read_value(p->dtype, raw[2], i);
            double diff = isfinite(got) ? fabs(got - values[2][i]) : INFINITY;
            if (!(diff <= error)) error = diff;
        }
        r->max_error = error / (scale > 0 ? scale : 1.0);
        r->bound = p->dtype == GCONV_DTYPE_FP16 ? GCONV_ERROR_BOUND_FP16
                   : p->dtype == GCONV_DTYPE_BF16 ? GCONV_ERROR_BOUND_BF16 : GCONV_ERROR_BOUND_FP32;
        r->validated = 1;
        if (!(r->max_error <= r->bound)) code = EXIT_INVALID_RESULT;
    }
    TRY("cuEventCreate", cuda->cuEventCreate(&start, 0));
    TRY("cuEventCreate", cuda->cuEventCreate(&stop, 0));
    TRY("cuEventRecord", cuda->cuEventRecord(start, NULL));
    for (int i = 0; i < repeats && status == GCONV_STATUS_SUCCESS && result == CUDA_SUCCESS; i++)
        status = gconv_run_kernel(p, kernel, (void *)(uintptr_t)device[0], (void *)(uintptr_t)device[1],
                                  (void *)(uintptr_t)device[2], NULL);
    TRY("cuEventRecord", cuda->cuEventRecord(stop, NULL));
    TRY("cuEventSynchronize", cuda->cuEventSynchronize(stop));
    float elapsed = 0;
    TRY("cuEventElapsedTime", cuda->cuEventElapsedTime(&elapsed, start, stop));
    if (result != CUDA_SUCCESS) goto cuda_error;
    if (status != GCONV_STATUS_SUCCESS) {
        r->status = "cuda_error";
        snprintf(message, sizeof message, "%s: %s", gconv_status_name(status), gconv_last_error());
        r->message = message;
        code = EXIT_CUDA;
        goto done;
    }
    r->time_ms = repeats > 0 ? elapsed / repeats : 0;
    r->tflops = r->time_ms > 0 ? 2.0 * p->N * p->G * p->K * p->C * r->Ho * r->Wo * p->Y * p->X / (r->time_ms * 1e9) : 0;
    r->timed = repeats > 0;
    r->status = code == EXIT_OK ? "ok" : "validation_failed";
    if (code != EXIT_OK) {
        snprintf(message, sizeof message, "max relative error %.3g exceeds the %s bound %.3g", r->max_error,
                 DTYPES[p->dtype], r->bound);
        r->message = message;
    }
    goto done;
cuda_error:
    gconv_cuda_describe(cuda, call, result, message, sizeof message);
    r->status = "cuda_error";
    r->message = message;
    code = EXIT_CUDA;
done:
    if (start) cuda->cuEventDestroy(start);
    if (stop) cuda->cuEventDestroy(stop);
    for (int i = 0; i < 3; i++) {
        if (device[i]) cuda->cuMemFree(device[i]);
        free(raw[i]);
        free(values[i]);
    }
#undef TRY
    return code;
}

int main(int argc, char **argv) {
    report r = {0};
    gconv_problem *p = &r.problem;
    *p = (gconv_problem){.dtype = GCONV_DTYPE_BF16, .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1};
    if (argc < 2) return usage("missing the direction");
    int direction = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(argv[1], DIRECTIONS[i]) == 0) direction = i;
    if (direction < 0) return usage("the direction must be fwd, bwd_data or bwd_weight");
    p->direction = direction;
    const char *kernel = NULL;
    int64_t repeats = 10, seed = 0;
    int validate = 0, select_only = 0, have[6] = {0};
    static const struct { const char *flag; int count; size_t offset; int required; } FLAGS[] = {
        {"--n", 1, offsetof(gconv_problem, N), 0}, {"--g", 1, offsetof(gconv_problem, G), 1},
        {"--c", 1, offsetof(gconv_problem, C), 2}, {"--k", 1, offsetof(gconv_problem, K), 3},
        {"--hw", 2, offsetof(gconv_problem, Hi), 4}, {"--yx", 2, offsetof(gconv_problem, Y), 5},
        {"--stride", 2, offsetof(gconv_problem, stride_h), -1}, {"--pad", 2, offsetof(gconv_problem, pad_h), -1},
        {"--dil", 2, offsetof(gconv_problem, dil_h), -1},
    };
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        int matched = 0;
        for (size_t f = 0; f < sizeof FLAGS / sizeof FLAGS[0]; f++) {
            if (strcmp(arg, FLAGS[f].flag) != 0) continue;
            matched = 1;
            if (i + FLAGS[f].count >= argc) return usage("a flag lacks its value(s)");
            int64_t *field = (int64_t *)((char *)p + FLAGS[f].offset);
            /* --hw H W sets Hi, Wi; --yx Y X sets Y, X; the pairs are adjacent fields (Hi, Wi), (Y, X), ... */
            for (int j = 0; j < FLAGS[f].count; j++)
                if (!parse_int(argv[++i], &field[j])) return usage("expected an integer");
            if (FLAGS[f].required >= 0) have[FLAGS[f].required] = 1;
        }
        if (matched) continue;
        if (strcmp(arg, "--dtype") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            p->dtype = -1;
            for (int d = 0; d < 3; d++)
                if (strcmp(name, DTYPES[d]) == 0) p->dtype = d;
            if (p->dtype < 0) return usage("--dtype must be fp16, bf16 or fp32");
        } else if (strcmp(arg, "--kernel") == 0 && i + 1 < argc) {
            kernel = argv[++i];
        } else if (strcmp(arg, "--repeats") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], &repeats) || repeats < 0) return usage("--repeats must be >= 0");
        } else if (strcmp(arg, "--seed") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], &seed)) return usage("--seed must be an integer");
        } else if (strcmp(arg, "--validate") == 0) {
            validate = 1;
        } else if (strcmp(arg, "--select-only") == 0) {
            select_only = 1;
        } else {
            fprintf(stderr, "gconv-helper: unknown argument %s\n", arg);
            return usage("see the usage");
        }
    }
    for (int j = 0; j < 6; j++)
        if (!have[j]) return usage("--n, --g, --c, --k, --hw and --yx are required");
    if (p->stride_h > 0 && p->stride_w > 0) {  /* valid problems only (the library checks them first) */
        r.Ho = (p->Hi + 2 * p->pad_h - p->dil_h * (p->Y - 1) - 1) / p->stride_h + 1;
        r.Wo = (p->Wi + 2 * p->pad_w - p->dil_w * (p->X - 1) - 1) / p->stride_w + 1;
    }
    gconv_status status;
    if (kernel != NULL) {
        /* a forced kernel: the selection fields describe the selector's choice; "kernel" is the forced one */
        size_t bytes;
        status = gconv_workspace_size(p, kernel, &bytes);
        if (status == GCONV_STATUS_SUCCESS) status = gconv_select(p, &r.selection);
        snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    } else {
        status = gconv_select(p, &r.selection);
        snprintf(r.kernel, sizeof r.kernel, "%s", r.selection.kernel);
    }
    if (status != GCONV_STATUS_SUCCESS) {
        static char message[1100];
        snprintf(message, sizeof message, "%s: %s", gconv_status_name(status), gconv_last_error());
        r.status = status == GCONV_STATUS_UNSUPPORTED ? "unsupported"
                   : status == GCONV_STATUS_UNKNOWN_KERNEL ? "unknown_kernel" : "invalid_argument";
        r.message = message;
        return finish(&r, EXIT_BAD_INPUT);
    }
    r.selected = 1;
    if (select_only) {
        r.status = "selected";
        return finish(&r, EXIT_OK);
    }
    r.seed = (uint64_t)seed;
    int code = run_on_device(&r, kernel, (int)repeats, validate);
    return finish(&r, code);
}
