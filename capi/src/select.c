/* The rule heuristic in C: support checks (runtime/support.py), channel padding (runtime/padding.py), launch grids
 * (runtime/grid.py), the analytic estimate (heuristics/analytic.py) and the rule's time (heuristics/rule.py), ported
 * operation for operation so that the choice -- and the estimated seconds, bit for bit -- equal Python's rule_choice
 * (tests/test_capi.py checks it).
 * Integer products use 128 bits (Python's integers do not overflow) and turn into doubles where Python's do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gconv_internal.h"
#include "gconv_rules.h"

typedef __int128 wide;

/* A support check's answer "no": the reason formatted into buffer, or, when buffer is NULL (supports() asks only
 * whether), the bare marker -- formatting every rejection would dominate selection time. */
static const char UNSUPPORTED[] = "unsupported";
#define REJECT(...)                                     \
    do {                                                \
        if (buffer == NULL) return UNSUPPORTED;         \
        snprintf(buffer, size, __VA_ARGS__);            \
        return buffer;                                  \
    } while (0)

static const char *const DIRECTIONS[] = {"fwd", "bwd_data", "bwd_weight"};
static const char *const DTYPES[] = {"fp16", "bf16", "fp32"};

int gconv_dtype_bytes(int dtype) { return dtype == GCONV_DTYPE_FP32 ? 4 : 2; }

static wide cdiv(wide a, wide b) { return (a + b - 1) / b; } /* -(-a // b) for the a >= 0, b > 0 used here */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static wide round_up(wide value, wide multiple) { return cdiv(value, multiple) * multiple; }
static double dmin(double a, double b) { return b < a ? b : a; }  /* Python's min(a, b) */
static double dmax(double a, double b) { return b > a ? b : a; }  /* Python's max(a, b) */
static wide wmin(wide a, wide b) { return b < a ? b : a; }
static wide wmax(wide a, wide b) { return b > a ? b : a; }

static const struct { const char *name; size_t offset; int64_t minimum; } FIELDS[] = {
    {"N", offsetof(gconv_problem, N), 1}, {"G", offsetof(gconv_problem, G), 1},
    {"C", offsetof(gconv_problem, C), 1}, {"K", offsetof(gconv_problem, K), 1},
    {"Hi", offsetof(gconv_problem, Hi), 1}, {"Wi", offsetof(gconv_problem, Wi), 1},
    {"Y", offsetof(gconv_problem, Y), 1}, {"X", offsetof(gconv_problem, X), 1},
    {"stride_h", offsetof(gconv_problem, stride_h), 1}, {"stride_w", offsetof(gconv_problem, stride_w), 1},
    {"pad_h", offsetof(gconv_problem, pad_h), 0}, {"pad_w", offsetof(gconv_problem, pad_w), 0},
    {"dil_h", offsetof(gconv_problem, dil_h), 1}, {"dil_w", offsetof(gconv_problem, dil_w), 1},
};

#define MAX_INDEX 2147483647LL /* the kernels index with 32-bit integers (schemas/problem.py MAX_INDEX) */

gconv_status gconv_check_problem(const gconv_problem *problem, gconv_prob *p) {
    if (problem == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "problem is NULL");
    if (problem->direction < 0 || problem->direction > 2)
        return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT,
                          "problem.direction must be 0 (fwd), 1 (bwd_data) or 2 (bwd_weight); got %d",
                          (int)problem->direction);
    if (problem->dtype < 0 || problem->dtype > 2)
        return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "problem.dtype must be 0 (fp16), 1 (bf16) or 2 (fp32); got %d",
                          (int)problem->dtype);
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++) {
        int64_t value = *(const int64_t *)((const char *)problem + FIELDS[i].offset);
        if (value < FIELDS[i].minimum)
            return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "problem.%s must be %s; got %lld", FIELDS[i].name,
                              FIELDS[i].minimum ? "positive" : ">= 0", (long long)value);
        if (value > MAX_INDEX)
            return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "problem.%s must be at most %lld; got %lld",
                              FIELDS[i].name, MAX_INDEX, (long long)value);
    }
    const gconv_problem *q = problem;
    *p = (gconv_prob){q->direction, q->dtype, q->N, q->G, q->C, q->K, q->Hi, q->Wi, 0, 0, q->Y, q->X,
                      q->stride_h, q->stride_w, q->pad_h, q->pad_w, q->dil_h, q->dil_w};
    p->Ho = floor_div(q->Hi + 2 * q->pad_h - q->dil_h * (q->Y - 1) - 1, q->stride_h) + 1;
    p->Wo = floor_div(q->Wi + 2 * q->pad_w - q->dil_w * (q->X - 1) - 1, q->stride_w) + 1;
    if (p->Ho <= 0 || p->Wo <= 0)  /* schemas/problem.py's message */
        return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT,
                          "output size would be %lldx%lld: the dilated filter (%lldx%lld) is larger than the padded "
                          "input (%lldx%lld)", (long long)p->Ho, (long long)p->Wo,
                          (long long)((q->Y - 1) * q->dil_h + 1), (long long)((q->X - 1) * q->dil_w + 1),
                          (long long)(q->Hi + 2 * q->pad_h), (long long)(q->Wi + 2 * q->pad_w));
    const struct { const char *name; wide elements; } tensors[] = {
        {"x", (wide)p->N * p->G * p->C * p->Hi * p->Wi},
        {"w", (wide)p->G * p->K * p->C * p->Y * p->X},
        {"y", (wide)p->N * p->G * p->K * p->Ho * p->Wo},
    };
    for (int i = 0; i < 3; i++)
        if (tensors[i].elements > MAX_INDEX)
            return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT,
                              "tensor %s would have %.0f elements; gconv's kernels index with 32-bit integers (at "
                              "most %lld elements per tensor)", tensors[i].name, (double)tensors[i].elements,
                              MAX_INDEX);
    return GCONV_STATUS_SUCCESS;
}

/* runtime/support.py _depthwise_reason */
static const char *depthwise_reason(const gconv_config *c, const gconv_prob *p, char *buffer, size_t size) {
    int64_t f = c->filter_size, m = c->multiplier, channels = c->group_channels, v = c->vector_width;
    if (p->C != channels) {
        REJECT("this depthwise kernel is built for C=%lld input channel%s per group, got C=%lld", (long long)channels,
               channels > 1 ? "s" : "", (long long)p->C);
    }
    if (p->K != m) {
        REJECT("this depthwise kernel is built for channel multiplier K=%lld, got K=%lld", (long long)m,
               (long long)p->K);
    }
    if (p->Y != f || p->X != f) {
        REJECT("this depthwise kernel is built for a %lldx%lld filter, got %lldx%lld", (long long)f,
               (long long)f, (long long)p->Y, (long long)p->X);
    }
    if (v > 1 && p->G % v) {
        REJECT("vector width %lld needs G %% %lld == 0 (G=%lld)", (long long)v, (long long)v,
               (long long)p->G);
    }
    if (c->sliding_rows) {
        if (c->direction == GCONV_DIRECTION_BWD_DATA
            && (p->stride_h != c->sliding_rows || p->stride_w != c->sliding_rows)) {
            REJECT("this sliding-rows bwd_data kernel needs stride %dx%d, got %lldx%lld", c->sliding_rows,
                   c->sliding_rows, (long long)p->stride_h, (long long)p->stride_w);
        }
        if (c->direction == GCONV_DIRECTION_BWD_DATA && c->sliding_rows > 1 && (p->dil_h != 1 || p->dil_w != 1)) {
            REJECT("this sliding-rows bwd_data kernel needs dilation 1x1, got %lldx%lld", (long long)p->dil_h,
                   (long long)p->dil_w);
        }
        if (p->stride_h != c->sliding_rows) {
            REJECT("this sliding-rows kernel is built for row stride %d, got stride_h=%lld", c->sliding_rows,
                   (long long)p->stride_h);
        }
        if (p->dil_h != 1) REJECT("sliding rows need row dilation 1, got dil_h=%lld", (long long)p->dil_h);
    }
    wide blocks = cdiv(p->G, c->block_n);
    if (blocks > GCONV_MAX_GRID_Y) {
        REJECT("depthwise launches G/%d = %lld programs on grid axis 1, at most %d", c->block_n,
               (long long)blocks, GCONV_MAX_GRID_Y);
    }
    return NULL;
}

int gconv_forward_twin(const gconv_prob *p, gconv_prob *twin) {
    if (p->direction != GCONV_DIRECTION_BWD_DATA || p->stride_h != 1 || p->stride_w != 1) return 0;
    int64_t pad_h = p->dil_h * (p->Y - 1) - p->pad_h, pad_w = p->dil_w * (p->X - 1) - p->pad_w;
    if (pad_h < 0 || pad_w < 0) return 0;
    *twin = *p;
    twin->direction = GCONV_DIRECTION_FWD;
    twin->C = p->K;
    twin->K = p->C;
    twin->Hi = p->Ho;
    twin->Wi = p->Wo;
    twin->Ho = p->Hi;
    twin->Wo = p->Wi;
    twin->pad_h = pad_h;
    twin->pad_w = pad_w;
    return 1;
}

gconv_config gconv_forward_kernel(const gconv_config *c) {
    gconv_config kernel = *c;
    kernel.direction = GCONV_DIRECTION_FWD;
    kernel.via_fwd = 0;
    return kernel;
}

/* runtime/support.py unsupported_reason: NULL if the config runs p, else the first reason (into buffer; buffer NULL:
 * a marker, unformatted). */
const char *gconv_unsupported_reason(const gconv_config *c, const gconv_prob *p, char *buffer, size_t size) {
    if (c->direction != p->direction) {
        REJECT("kernel direction %s != problem direction %s", DIRECTIONS[c->direction],
               DIRECTIONS[p->direction]);
    }
    if (c->dtype != p->dtype) {
        REJECT("kernel dtype %s != problem dtype %s", DTYPES[c->dtype], DTYPES[p->dtype]);
    }
    if (c->via_fwd) {
        gconv_prob twin;
        if (!gconv_forward_twin(p, &twin)) {
            REJECT("via_fwd runs stride-1 bwd_data as its forward twin: needs stride 1 and padding at most dilation x "
                   "(filter - 1), got stride %lldx%lld, padding %lldx%lld, dilation %lldx%lld, filter %lldx%lld",
                   (long long)p->stride_h, (long long)p->stride_w, (long long)p->pad_h, (long long)p->pad_w,
                   (long long)p->dil_h, (long long)p->dil_w, (long long)p->Y, (long long)p->X);
        }
        gconv_config kernel = gconv_forward_kernel(c);
        if (buffer == NULL) return gconv_unsupported_reason(&kernel, &twin, NULL, 0);
        char reason[256];
        if (gconv_unsupported_reason(&kernel, &twin, reason, sizeof reason) == NULL) return NULL;
        REJECT("its forward twin: %s", reason);
    }
    int64_t v = c->vector_width;
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE) return depthwise_reason(c, p, buffer, size);
    if (c->algorithm == GCONV_ALGORITHM_DIRECT) {
        if (v > 1 && !(p->C == 1 && p->K == 1 && p->G % v == 0)) {
            REJECT("direct vector width %lld needs depthwise C=K=1 with G %% %lld == 0", (long long)v,
                   (long long)v);
        }
        if (p->direction == GCONV_DIRECTION_BWD_WEIGHT && (wide)p->C * p->Y * p->X > GCONV_MAX_GRID_Y) {
            REJECT("direct bwd_weight launches C*Y*X programs on grid axis 1, at most %d",
                   GCONV_MAX_GRID_Y);
        }
        return NULL;
    }
    const char *fields[2] = {"C", "K"};
    int64_t values[2] = {p->C, p->K};
    int aligned = p->direction == GCONV_DIRECTION_FWD && !c->aligned_k ? 1 : 2;
    for (int i = 0; i < aligned; i++)
        if (v > 1 && values[i] % v) {
            REJECT("vector width %lld needs %s %% %lld == 0 (%s=%lld)", (long long)v, fields[i],
                   (long long)v, fields[i], (long long)values[i]);
        }
    if (c->aligned_k && p->K % 16 == 0) {
        REJECT("aligned_k twins run only K %% 16 != 0 (K=%lld): their bases store whole vectors there",
               (long long)p->K);
    }
    if (c->groups_to_merge > p->G) {
        REJECT("merges %d groups but the problem has G=%lld", c->groups_to_merge, (long long)p->G);
    }
    if (c->explicit_gemm) {
        if (p->Y != 1 || p->X != 1 || p->stride_h != 1 || p->stride_w != 1 || p->pad_h != 0 || p->pad_w != 0) {
            REJECT("explicit GEMM needs a 1x1 filter, stride 1 and no padding, got %lldx%lld, stride %lldx%lld, "
                   "padding %lldx%lld", (long long)p->Y, (long long)p->X, (long long)p->stride_h,
                   (long long)p->stride_w, (long long)p->pad_h, (long long)p->pad_w);
        }
        wide row = (wide)p->G * p->C * gconv_dtype_bytes(p->dtype);
        if (c->pipeline == GCONV_PIPELINE_TMA && row % GCONV_TMA_ALIGN_BYTES) {
            REJECT("TMA explicit GEMM needs G*C*%d bytes %% %d == 0 (input rows), got %.0f",
                   gconv_dtype_bytes(p->dtype), GCONV_TMA_ALIGN_BYTES, (double)row);
        }
    }
    if (c->tile_w && p->direction != GCONV_DIRECTION_BWD_WEIGHT) { /* runtime/support.py _owned_box_reason */
        int b = gconv_dtype_bytes(p->dtype), gm = c->groups_to_merge, fwd = p->direction == GCONV_DIRECTION_FWD;
        const char *name = fwd ? "fwd" : "bwd_data", *red = fwd ? "C" : "K", *col = fwd ? "K" : "C";
        const char *read = fwd ? "X" : "dY", *pixels = fwd ? "input" : "output";
        int64_t reduced = fwd ? p->C : p->K, columns = fwd ? p->K : p->C;
        if (p->stride_h != 1 || p->stride_w != 1) {
            REJECT("%s pixel boxes need stride 1 (one descriptor of %s for every tap), got %lldx%lld", name, read,
                   (long long)p->stride_h, (long long)p->stride_w);
        }
        if (gm == 1) {
            wide row = (wide)reduced * b;
            if (row % GCONV_TMA_ALIGN_BYTES) {
                REJECT("pixel boxes need %s*%d bytes %% %d == 0 (%s pixels), got %.0f", red, b, GCONV_TMA_ALIGN_BYTES,
                       pixels, (double)row);
            }
            return NULL;
        }
        if ((wide)gm * columns > c->block_n || (wide)gm * reduced > c->block_k) {
            REJECT("merged %s pixel boxes hold their %d groups in one tile and step: need %d*%s <= %d and %d*%s <= "
                   "%d, got %s=%lld, %s=%lld", name, gm, gm, col, c->block_n, gm, red, c->block_k, col,
                   (long long)columns, red, (long long)reduced);
        }
        wide block = (wide)gm * reduced * b, row = (wide)p->G * reduced * b;
        if (block % GCONV_TMA_ALIGN_BYTES || row % GCONV_TMA_ALIGN_BYTES) {
            REJECT("merged %s pixel boxes need %d*%s*%d and G*%s*%d bytes %% %d == 0 (a group block's %s, %s "
                   "pixels), got %.0f and %.0f", name, gm, red, b, red, b, GCONV_TMA_ALIGN_BYTES,
                   fwd ? "channels" : "filters", pixels, (double)block, (double)row);
        }
        return NULL;
    }
    if (c->tile_w) { /* igemm bwd_weight pixel boxes (runtime/support.py _pixel_box_reason) */
        int b = gconv_dtype_bytes(p->dtype), gm = c->groups_to_merge;
        if (gm == 1) {
            wide row = (wide)p->C * b;
            if (row % GCONV_TMA_ALIGN_BYTES) {
                REJECT("pixel boxes need C*%d bytes %% %d == 0 (input pixels), got %.0f", b, GCONV_TMA_ALIGN_BYTES,
                       (double)row);
            }
        } else {
            if ((wide)gm * p->K > c->block_m || (wide)gm * p->C > c->block_n) {
                REJECT("merged pixel boxes hold their %d groups in one tile: need %d*K <= %d and %d*C <= %d, got "
                       "K=%lld, C=%lld", gm, gm, c->block_m, gm, c->block_n, (long long)p->K, (long long)p->C);
            }
            wide in_block = (wide)gm * p->C * b, out_block = (wide)gm * p->K * b;
            if (in_block % GCONV_TMA_ALIGN_BYTES || out_block % GCONV_TMA_ALIGN_BYTES) {
                REJECT("merged pixel boxes need %d*C*%d and %d*K*%d bytes %% %d == 0 (a group block's channels and "
                       "filters), got %.0f and %.0f", gm, b, gm, b, GCONV_TMA_ALIGN_BYTES, (double)in_block,
                       (double)out_block);
            }
            wide in_row = (wide)p->G * p->C * b, out_row = (wide)p->G * p->K * b;
            if (in_row % GCONV_TMA_ALIGN_BYTES || out_row % GCONV_TMA_ALIGN_BYTES) {
                REJECT("merged pixel boxes need G*C*%d and G*K*%d bytes %% %d == 0 (input and output pixels), got "
                       "%.0f and %.0f", b, b, GCONV_TMA_ALIGN_BYTES, (double)in_row, (double)out_row);
            }
        }
        if (p->Hi < p->stride_h || p->Wi < p->stride_w) {
            REJECT("pixel boxes need an input at least stride pixels high and wide (a tap's strided view of it), "
                   "got %lldx%lld at stride %lldx%lld", (long long)p->Hi, (long long)p->Wi, (long long)p->stride_h,
                   (long long)p->stride_w);
        }
        if (gm > 1) return NULL; /* the flat TMA kernels' dY descriptor below is not theirs */
    }
    if (c->pipeline != GCONV_PIPELINE_TMA) return NULL;
    int64_t elt = gconv_dtype_bytes(p->dtype);
    if (p->direction == GCONV_DIRECTION_FWD) {
        wide row = (wide)p->Y * p->X * p->C * elt;
        if (row % GCONV_TMA_ALIGN_BYTES) {
            REJECT("TMA needs Y*X*C*%lld bytes %% %d == 0 (weight rows), got %.0f", (long long)elt,
                   GCONV_TMA_ALIGN_BYTES, (double)row);
        }
    } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
        if (!c->tap_major && p->K % c->block_k) {
            REJECT("TMA bwd_data needs K %% block_k == 0 (K=%lld, block_k=%d)", (long long)p->K,
                   c->block_k);
        }
        if (p->C * elt % GCONV_TMA_ALIGN_BYTES) {
            REJECT("TMA needs C*%lld bytes %% %d == 0, got %lld", (long long)elt,
                   GCONV_TMA_ALIGN_BYTES, (long long)(p->C * elt));
        }
    } else if (p->K * elt % GCONV_TMA_ALIGN_BYTES) {
        REJECT("TMA needs K*%lld bytes %% %d == 0, got %lld", (long long)elt, GCONV_TMA_ALIGN_BYTES,
               (long long)(p->K * elt));
    }
    return NULL;
}

static int supports(const gconv_config *c, const gconv_prob *p) {
    return gconv_unsupported_reason(c, p, NULL, 0) == NULL;
}

gconv_prob gconv_with_channels(const gconv_prob *p, int64_t C, int64_t K) {
    gconv_prob q = *p;
    q.C = C;
    q.K = K;
    return q;
}

static int64_t next_power_of_two(int64_t value) {
    int64_t power = 1;
    while (power < value) power *= 2;
    return power;
}

/* The cheapest padding so far of padding_for: (area, C, K) compared as Python's min over tuples. */
typedef struct {
    int found;
    wide area;
    int64_t C, K;
} padding_choice;

/* Keeps (C, K) in best when it pads p, grows the work at most GCONV_MAX_GROWTH-fold, c runs it and it is cheaper. */
static void consider_padding(const gconv_config *c, const gconv_prob *p, int64_t C, int64_t K, padding_choice *best) {
    if (C == p->C && K == p->K) return;
    wide area = (wide)C * K;
    if ((double)area > GCONV_MAX_GROWTH * (double)p->C * (double)p->K) return;
    gconv_prob q = gconv_with_channels(p, C, K);
    if (!supports(c, &q)) return;
    if (!best->found || area < best->area || (area == best->area && (C < best->C || (C == best->C && K < best->K))))
        *best = (padding_choice){1, area, C, K};
}

/* The padding best holds into *padded_C x *padded_K; whether there is one. */
static int padding_found(const padding_choice *best, int64_t *padded_C, int64_t *padded_K) {
    if (best->found) {
        *padded_C = best->C;
        *padded_K = best->K;
    }
    return best->found;
}

/* runtime/padding.py padding_for: the cheapest (C*K, C, K) padding that makes c run p; 0 when none does. */
static int padding_for(const gconv_config *c, const gconv_prob *p, int64_t *padded_C, int64_t *padded_K) {
    /* Padding only grows C and K: what it cannot change rejects p padded too (the same answer, found without trying
     * every padding; most of a pool's kernels are of another family than the problem's). */
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE &&
        (p->C > c->group_channels || p->K > c->multiplier || p->Y != c->filter_size || p->X != c->filter_size))
        return 0;
    if (c->algorithm == GCONV_ALGORITHM_DIRECT && c->vector_width > 1 && (p->C > 1 || p->K > 1)) return 0;
    if (c->groups_to_merge > p->G) return 0;
    padding_choice best = {0};
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE) {
        /* built for exactly C = group_channels, K = multiplier (its vectors run along the groups): the next power of
         * two only, no alignment */
        consider_padding(c, p, next_power_of_two(p->C), next_power_of_two(p->K), &best);
        return padding_found(&best, padded_C, padded_K);
    }
    int64_t aligns[4] = {1, c->vector_width, 16 / gconv_dtype_bytes(p->dtype), c->block_k};
    int count = 0;
    int64_t distinct[4];  /* {...}: each alignment once (the order is free: consider_padding's is a total order) */
    for (int i = 0; i < 4; i++) {
        int seen = 0;
        for (int j = 0; j < count; j++) seen |= distinct[j] == aligns[i];
        if (!seen) distinct[count++] = aligns[i];
    }
    for (int i = 0; i < count; i++)
        for (int j = 0; j < count; j++)
            consider_padding(c, p, (int64_t)round_up(p->C, distinct[i]), (int64_t)round_up(p->K, distinct[j]), &best);
    return padding_found(&best, padded_C, padded_K);
}

/* runtime/selection.py narrower_than_needed: a depthwise-algorithm config loading narrower vectors than the arch's
 * widest where its widest twin runs p too (G % widest == 0); left out of the candidates, though a forced kernel
 * runs. */
static int narrower_than_needed(const gconv_config *c, const gconv_prob *p) {
    if (c->algorithm != GCONV_ALGORITHM_DEPTHWISE) return 0;  /* most of the pool: no division on the hot loop */
    int64_t widest = gconv_arch_data.max_vector_bytes / gconv_dtype_bytes(p->dtype);
    if (widest < 1) widest = 1;
    return c->vector_width < widest && p->G % widest == 0;
}

/* 1: runs p as it is; 2: runs p after padding to *padded_C x *padded_K; 0: cannot run p. */
int gconv_candidate_for(const gconv_config *config, const gconv_prob *p, int64_t *padded_C, int64_t *padded_K) {
    *padded_C = p->C;
    *padded_K = p->K;
    if (supports(config, p)) return 1;
    return padding_for(config, p, padded_C, padded_K) ? 2 : 0;
}

void gconv_tile_grid(const gconv_config *c, const gconv_prob *p, int64_t grid[3]) {
    wide g0, g1;
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE) { /* runtime/grid.py depthwise_grid */
        wide th = c->block_m / c->tile_w, tw = c->tile_w, groups = cdiv(p->G, c->block_n);
        grid[1] = (int64_t)groups;
        grid[2] = 1;
        if (p->direction == GCONV_DIRECTION_FWD) {
            grid[0] = (int64_t)((wide)p->N * cdiv(p->Ho, th) * cdiv(p->Wo, tw));
        } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
            wide classes = (wide)p->stride_h * p->stride_w;
            grid[0] = (int64_t)((wide)p->N * classes * cdiv(cdiv(p->Hi, p->stride_h), th) *
                                cdiv(cdiv(p->Wi, p->stride_w), tw));
        } else {
            grid[0] = c->split_k;
            grid[2] = c->filter_size;
        }
        return;
    }
    if (c->algorithm == GCONV_ALGORITHM_DIRECT) {
        if (p->direction == GCONV_DIRECTION_FWD) {
            g0 = cdiv((wide)p->N * p->Ho * p->Wo, c->block_m);
            g1 = cdiv((wide)p->G * p->K, c->block_n);
        } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
            g0 = cdiv((wide)p->N * p->Hi * p->Wi, c->block_m);
            g1 = cdiv((wide)p->G * p->C, c->block_n);
        } else {
            g0 = cdiv((wide)p->G * p->K, c->block_n);
            g1 = (wide)p->C * p->Y * p->X;
        }
        grid[0] = (int64_t)g0;
        grid[1] = (int64_t)g1;
        grid[2] = p->direction == GCONV_DIRECTION_BWD_WEIGHT ? c->split_k : 1;
        return;
    }
    wide gm = c->groups_to_merge, col_tiles;
    if (p->direction == GCONV_DIRECTION_FWD)
        col_tiles = cdiv(gm * p->K, c->block_n);
    else if (p->direction == GCONV_DIRECTION_BWD_DATA)
        col_tiles = cdiv(gm * p->C, c->block_n);
    else if (c->tile_w) /* grid.py col_tiles: pixel boxes round each tap's (merged) channels up to whole tiles */
        col_tiles = (wide)p->Y * p->X * cdiv(gm * p->C, c->block_n);
    else
        col_tiles = cdiv((wide)p->Y * p->X * gm * p->C, c->block_n);
    grid[0] = (int64_t)(gconv_row_tiles(c, p) * col_tiles);
    grid[1] = (int64_t)cdiv(p->G, gm);
    grid[2] = c->split_k;
}

/* runtime/grid.py row_tiles: igemm tiles along the GEMM rows; fwd (bwd_data) pixel boxes tile each image's output
 * (input) into tile_h x tile_w boxes; otherwise bwd_data tiles each stride-residue class apart. */
wide gconv_row_tiles(const gconv_config *c, const gconv_prob *p) {
    if (p->direction != GCONV_DIRECTION_BWD_WEIGHT && c->algorithm == GCONV_ALGORITHM_IGEMM && c->tile_w) {
        int fwd = p->direction == GCONV_DIRECTION_FWD;
        return (wide)p->N * cdiv(fwd ? p->Ho : p->Hi, c->block_m / c->tile_w) * cdiv(fwd ? p->Wo : p->Wi, c->tile_w);
    }
    if (p->direction == GCONV_DIRECTION_FWD) return cdiv((wide)p->N * p->Ho * p->Wo, c->block_m);
    if (p->direction == GCONV_DIRECTION_BWD_WEIGHT) return cdiv((wide)c->groups_to_merge * p->K, c->block_m);
    wide rows = (wide)p->N * cdiv(p->Hi, p->stride_h) * cdiv(p->Wi, p->stride_w);
    return (wide)p->stride_h * p->stride_w * cdiv(rows, c->block_m);
}

/* Python's (f * dil - pad) % stride: the residue tap f reaches (runtime/grid.py reached_residues). */
static int64_t reached_residue(int64_t f, int64_t dil, int64_t pad, int64_t stride) {
    int64_t r = (f * dil - pad) % stride;
    return r < 0 ? r + stride : r;
}

/* How many taps reach the residue tap f reaches, or 0 when an earlier tap reaches it too (counted there). */
static wide first_reach(int64_t f, int64_t dil, int64_t pad, int64_t stride, int64_t size) {
    int64_t r = reached_residue(f, dil, pad, stride);
    wide count = 0;
    for (int64_t g = 0; g < size; g++) {
        if (reached_residue(g, dil, pad, stride) != r) continue;
        if (g < f) return 0;
        count++;
    }
    return count;
}

/* Sum over the stride-residue classes some tap reaches of cdiv(K * taps, bk): the block_k steps igemm bwd_data walks
 * for one row tile of every class (runtime/grid.py residue_taps, heuristics/analytic.py padded_reduction). */
wide gconv_residue_steps(const gconv_prob *p, wide K, wide bk) {
    wide steps = 0;
    for (int64_t fy = 0; fy < p->Y; fy++) {
        wide ty = first_reach(fy, p->dil_h, p->pad_h, p->stride_h, p->Y);
        for (int64_t fx = 0; ty && fx < p->X; fx++) {
            wide tx = first_reach(fx, p->dil_w, p->pad_w, p->stride_w, p->X);
            if (tx) steps += cdiv(K * ty * tx, bk);
        }
    }
    return steps;
}

static wide resident_blocks_per_sm(const gconv_config *c) {
    const gconv_arch_spec *a = &gconv_arch_data;
    wide threads = (wide)c->num_warps * a->warp_size;
    wide by_threads = GCONV_MAX_THREADS_PER_SM / threads;
    wide accumulators = 16; /* heuristics/analytic.py accumulators_per_thread */
    if (c->algorithm == GCONV_ALGORITHM_IGEMM) accumulators = (wide)c->block_m * c->block_n / threads;
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE)  /* schemas/kernel_config.py accumulator_elements */
        accumulators = (c->sliding_rows && c->direction == GCONV_DIRECTION_BWD_WEIGHT)
                           ? (wide)c->tile_w * c->block_n * c->filter_size / threads
                       : (c->sliding_rows && c->direction == GCONV_DIRECTION_BWD_DATA && c->group_channels > 1)
                           ? (wide)c->block_m * c->block_n * c->group_channels / threads
                           : (wide)c->block_m * c->block_n * c->multiplier *
                                 (c->direction == GCONV_DIRECTION_BWD_WEIGHT ? c->filter_size : 1) *
                                 (c->direction == GCONV_DIRECTION_FWD ? 1 : c->group_channels) / threads;
    wide by_registers = a->registers_per_sm / ((accumulators + GCONV_REGISTERS_OVERHEAD_PER_THREAD) * threads);
    wide smem = c->algorithm == GCONV_ALGORITHM_IGEMM
                    ? (wide)c->num_stages * (c->block_m + c->block_n) * c->block_k * gconv_dtype_bytes(c->dtype) : 0;
    wide by_smem = smem ? a->max_smem_per_block_bytes / smem : by_threads;
    return wmax(1, wmin(wmin(by_threads, by_registers), by_smem));
}

static wide problem_bytes(const gconv_prob *p) {
    wide elements = (wide)p->N * p->G * p->C * p->Hi * p->Wi + (wide)p->G * p->K * p->C * p->Y * p->X +
                    (wide)p->N * p->G * p->K * p->Ho * p->Wo;
    return elements * gconv_dtype_bytes(p->dtype);
}

static wide flops(const gconv_prob *p) {
    return (wide)2 * p->N * p->G * p->K * p->C * p->Ho * p->Wo * p->Y * p->X;
}

double gconv_flops(const gconv_prob *p) { return (double)flops(p); }
wide gconv_flops_exact(const gconv_prob *p) { return flops(p); }
wide gconv_problem_bytes(const gconv_prob *p) { return problem_bytes(p); }

/* heuristics/analytic.py split_result_elements: what a split reduction adds its fp32 partial sums into. */
wide gconv_split_result_elements(const gconv_prob *p) {
    if (p->direction == GCONV_DIRECTION_FWD) return (wide)p->N * p->Ho * p->Wo * p->G * p->K;
    return (wide)p->G * p->K * p->C * p->Y * p->X;
}
wide gconv_resident_blocks_per_sm(const gconv_config *c) { return resident_blocks_per_sm(c); }

static wide gemm_k(const gconv_prob *p) {
    if (p->direction == GCONV_DIRECTION_FWD) return (wide)p->C * p->Y * p->X;
    if (p->direction == GCONV_DIRECTION_BWD_DATA) return (wide)p->K * p->Y * p->X;
    return (wide)p->N * p->Ho * p->Wo;
}

/* heuristics/analytic.py padded_reduction: GEMM-K multiply-adds of one output element, summed over the row tiles. */
static wide padded_reduction(const gconv_config *c, const gconv_prob *p) {
    wide bk = c->block_k;
    if (c->direction == GCONV_DIRECTION_BWD_DATA && c->tile_w) /* pixel boxes: each tap's merged filters padded */
        return gconv_row_tiles(c, p) * p->Y * p->X * cdiv((wide)c->groups_to_merge * p->K, bk) * bk;
    if (c->direction == GCONV_DIRECTION_BWD_DATA) {
        wide per_class = gconv_row_tiles(c, p) / ((wide)p->stride_h * p->stride_w);
        if (c->tap_major) /* each tap's filters padded to block_k; the classes walk all Y*X taps between them */
            return per_class * p->Y * p->X * cdiv(p->K, bk) * bk;
        return per_class * gconv_residue_steps(p, p->K, bk) * bk;
    }
    if (c->direction == GCONV_DIRECTION_BWD_WEIGHT || c->split_k > 1) /* each split's run padded to block_k */
        return gconv_row_tiles(c, p) * cdiv(cdiv(gemm_k(p), c->split_k), bk) * bk * c->split_k;
    if (c->tap_major) /* each tap's channels padded to block_k */
        return gconv_row_tiles(c, p) * p->Y * p->X * cdiv(p->C, bk) * bk;
    if (c->tile_w) /* fwd pixel boxes: each tap's channels of the (merged) groups padded to block_k */
        return gconv_row_tiles(c, p) * p->Y * p->X * cdiv((wide)c->groups_to_merge * p->C, bk) * bk;
    return gconv_row_tiles(c, p) * cdiv(gemm_k(p), bk) * bk;
}

/* heuristics/analytic.py twin_filter_seconds */
double gconv_twin_filter_seconds(const gconv_prob *p) {
    wide bytes = (wide)2 * p->G * p->K * p->C * p->Y * p->X * gconv_dtype_bytes(p->dtype);
    return (double)bytes / (gconv_arch_data.dram_bandwidth_gbs * 1e9) + GCONV_LAUNCH_LATENCY_S;
}

/* heuristics/analytic.py Estimate: the parts heuristics/rule.py rule_terms reads */
typedef struct {
    double compute_s, memory_s, utilisation, work;
    wide programs, slots;
} estimate_parts;

/* heuristics/analytic.py estimate (a config that is not via_fwd) */
static estimate_parts estimate(const gconv_config *c, const gconv_prob *p) {
    const gconv_arch_spec *a = &gconv_arch_data;
    int64_t grid[3];
    gconv_tile_grid(c, p, grid);
    wide programs = (wide)grid[0] * grid[1] * grid[2];
    wide slots = (wide)a->sm_count * resident_blocks_per_sm(c);
    wide waves = cdiv(programs, slots);
    double utilisation = (double)programs / (double)(waves * slots);
    wide work;
    double peak, memory_efficiency;
    int bytes = gconv_dtype_bytes(c->dtype);
    if (c->algorithm != GCONV_ALGORITHM_IGEMM) {
        work = flops(p);
        peak = a->cuda_core_tflops * 1e12 *
               (c->algorithm == GCONV_ALGORITHM_DIRECT ? GCONV_DIRECT_PEAK_FRACTION : GCONV_DEPTHWISE_PEAK_FRACTION);
        memory_efficiency = dmin(1.0, 0.25 + 0.75 * c->vector_width * bytes / a->max_vector_bytes);
    } else {
        wide col_tiles = grid[0] / gconv_row_tiles(c, p);
        work = (wide)2 * col_tiles * grid[1] * c->block_m * c->block_n * padded_reduction(c, p);
        double size_factor = pow(dmin(1.0, (double)(c->block_m * c->block_n) / GCONV_FULL_EFFICIENCY_TILE), 0.35);
        peak = a->peak_tflops[c->dtype] * 1e12 * GCONV_PEAK_FRACTION * size_factor;
        memory_efficiency = dmin(1.0, 0.4 + 0.6 * c->vector_width * bytes / a->max_vector_bytes);
    }
    wide traffic = problem_bytes(p);
    if (c->split_k > 1) traffic += (wide)2 * c->split_k * gconv_split_result_elements(p) * 4;
    estimate_parts e = {(double)work / (peak * utilisation),
                        (double)traffic / (a->dram_bandwidth_gbs * 1e9 * memory_efficiency), utilisation,
                        (double)work, programs, slots};
    return e;
}

/* heuristics/rule.py rule_terms and combine: the fallback rule's seconds, extra_s the fixed seconds besides the
 * kernel (channel padding's copies) */
static double rule_seconds(const gconv_config *c, const gconv_prob *p, double extra_s) {
    if (c->via_fwd) { /* the forward kernel on the forward twin, and the filter's transposition */
        gconv_prob twin;
        gconv_forward_twin(p, &twin);
        gconv_config kernel = gconv_forward_kernel(c);
        return rule_seconds(&kernel, &twin, extra_s + gconv_twin_filter_seconds(p));
    }
    static const double compute_scale[3] = {GCONV_RULE_COMPUTE_SCALE_IGEMM, GCONV_RULE_COMPUTE_SCALE_DIRECT,
                                            GCONV_RULE_COMPUTE_SCALE_DEPTHWISE};
    static const double load_s[3] = {GCONV_RULE_LOAD_S_IGEMM, GCONV_RULE_LOAD_S_DIRECT, GCONV_RULE_LOAD_S_DEPTHWISE};
    estimate_parts e = estimate(c, p);
    double loads, sector = 1.0, waste = 1.0;
    if (c->algorithm == GCONV_ALGORITHM_IGEMM) {
        loads = e.work * (c->block_m + c->block_n) / (double)(2 * c->block_m * c->block_n);
        double run = (double)c->groups_to_merge * (p->C < p->K ? p->C : p->K) * gconv_dtype_bytes(p->dtype);
        sector = dmin(1.0, run / GCONV_RULE_SECTOR_BYTES);
    } else {
        loads = e.work / 2;
        wide channels = (wide)p->G * (p->direction == GCONV_DIRECTION_BWD_DATA ? p->C : p->K);
        waste = (double)(cdiv(channels, c->block_n) * c->block_n) / (double)channels;
    }
    double vector_loads = loads / (c->vector_width * (double)e.slots * e.utilisation);
    double compute = (e.compute_s * compute_scale[c->algorithm] + vector_loads * load_s[c->algorithm] / sector) * waste;
    double memory = e.memory_s / sector;
    return dmax(compute, memory) + GCONV_RULE_OVERLAP * dmin(compute, memory)
           + GCONV_RULE_WAVE_LATENCY_S * (double)cdiv(e.programs, e.slots)
           + GCONV_RULE_PROGRAM_LATENCY_S * ((double)e.programs / (double)e.slots) + GCONV_LAUNCH_LATENCY_S + extra_s;
}

/* heuristics/analytic.py padding_copy_bytes (0 unpadded) */
wide gconv_padding_copy_bytes(const gconv_prob *p, int64_t PC, int64_t PK) {
    if (PC == p->C && PK == p->K) return 0;
    wide x = (wide)p->N * p->G * p->Hi * p->Wi, y = (wide)p->N * p->G * p->Ho * p->Wo, w = (wide)p->G * p->Y * p->X;
    wide C = p->C, K = p->K, total;
    if (p->direction == GCONV_DIRECTION_FWD)
        total = x * (C + PC) + w * (K * C + (wide)PK * PC) + y * (PK + K);
    else if (p->direction == GCONV_DIRECTION_BWD_DATA)
        total = y * (K + PK) + w * (K * C + (wide)PK * PC) + x * (PC + C);
    else
        total = x * (C + PC) + y * (K + PK) + w * ((wide)PK * PC + K * C);
    return total * gconv_dtype_bytes(p->dtype);
}

/* heuristics/analytic.py padding_copy_seconds */
double gconv_padding_copy_seconds(const gconv_prob *p, int64_t PC, int64_t PK) {
    return (double)gconv_padding_copy_bytes(p, PC, PK) / (gconv_arch_data.dram_bandwidth_gbs * 1e9);
}

/* runtime/selection.py predicted_seconds */
double gconv_predicted_seconds(const gconv_config *c, const gconv_prob *p, int64_t padded_C, int64_t padded_K) {
    if (padded_C == p->C && padded_K == p->K) return rule_seconds(c, p, 0.0);
    gconv_prob q = gconv_with_channels(p, padded_C, padded_K);
    return rule_seconds(c, &q, gconv_padding_copy_seconds(p, padded_C, padded_K));
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The kernel's row in the model's pool, -1 when the model was not trained on it (runtime/selection.py
 * SelectionModel.knows). */
static int32_t model_row(const gconv_model *m, const char *name) {
    const char *const *found = bsearch(&name, m->pool, (size_t)m->pool_size, sizeof *m->pool, by_name);
    return found ? (int32_t)(found - m->pool) : -1;
}

/* runtime/registry.py VENDOR_KERNEL: the vendor path (cuDNN through PyTorch), a candidate when the caller can run it
 * (vendor != 0: the Python runtime; libgconv cannot) and the model was trained on it. Its pick index is the pool's
 * count, one past the last entry. */
static const char VENDOR_KERNEL[] = "cudnn";

/* The vendor path's row in the model's pool when it is a candidate, else -1. */
static int32_t vendor_row(const gconv_model *m, int vendor) { return vendor && m ? model_row(m, VENDOR_KERNEL) : -1; }

typedef struct candidate {
    size_t index;
    int64_t C, K;
    const char *name;
    int32_t model_row; /* its row in the model's pool (model_row), -1 without a model */
} candidate;

static const gconv_config *pool_config(const gconv_pool *pool, size_t i) {
    return (const gconv_config *)((const char *)pool->configs + i * pool->config_stride);
}

static const char *pool_name(const gconv_pool *pool, size_t i) {
    return *(const char *const *)((const char *)pool->names + i * pool->name_stride);
}

/* From pool index *i on, the next candidate of p (*i left at it, 0 at the pool's end): a config of p's direction and
 * dtype that runs p, padded or not, and, with a model, one it was trained on (the others counted in *skipped). */
static int next_candidate(const gconv_prob *p, const gconv_pool *pool, const gconv_model *model, size_t *i,
                          candidate *out, int64_t *skipped) {
    for (; *i < pool->count; ++*i) {
        const gconv_config *c = pool_config(pool, *i);
        if (c->direction != p->direction || c->dtype != p->dtype) continue;
        if (narrower_than_needed(c, p) || !gconv_candidate_for(c, p, &out->C, &out->K)) continue;
        out->name = pool_name(pool, *i);
        out->model_row = model ? model_row(model, out->name) : -1;
        if (model && out->model_row < 0) {
            ++*skipped;
            continue;
        }
        out->index = *i;
        return 1;
    }
    return 0;
}

/* least with a model, every candidate's features first, then gconv_model_least's pruned search; 0 (pick untouched)
 * when its scratch memory cannot be had. */
static int least_by_model(const gconv_prob *p, const gconv_pool *pool, const gconv_model *model, int vendor,
                          gconv_pick *pick) {
    candidate *found = malloc(sizeof *found * (pool->count + 1));
    if (found == NULL) return 0;
    size_t n = 0;
    int64_t skipped = 0;
    for (size_t i = 0; next_candidate(p, pool, model, &i, &found[n], &skipped); i++) n++;
    int32_t vendor_at = vendor_row(model, vendor);
    if (vendor_at >= 0) found[n++] = (candidate){pool->count, p->C, p->K, VENDOR_KERNEL, vendor_at};
    double *rows = malloc(sizeof *rows * GCONV_FEATURE_COUNT * (n ? n : 1));
    const char **names = malloc(sizeof *names * (n ? n : 1));
    int32_t *model_rows = malloc(sizeof *model_rows * (n ? n : 1));
    int chosen = rows != NULL && names != NULL && model_rows != NULL;
    if (chosen) {
        for (size_t k = 0; k < n; k++) {
            double *row = rows + k * GCONV_FEATURE_COUNT;
            if (found[k].index == pool->count) {
                gconv_vendor_features(p, row);
            } else {
                gconv_prob runs = gconv_with_channels(p, found[k].C, found[k].K);
                gconv_features(pool_config(pool, found[k].index), p, &runs, row);
            }
            names[k] = found[k].name;
            model_rows[k] = found[k].model_row;
        }
        double key = 0.0;
        int64_t walks = 0;
        size_t best = n ? gconv_model_least(model, p, rows, n, names, model_rows, &key, &walks) : 0;
        chosen = n == 0 || best < n;
        if (chosen) {
            *pick = (gconv_pick){.index = -1, .candidates = (int64_t)n, .skipped = skipped, .tree_walks = walks};
            if (n) {
                pick->index = (int64_t)found[best].index;
                pick->padded_C = found[best].C;
                pick->padded_K = found[best].K;
                pick->key = key;
            }
        }
    }
    free(found);
    free(rows);
    free(names);
    free(model_rows);
    return chosen;
}

/* One scored candidate into least's running pick: it wins on a smaller key, or an equal one and a smaller name. */
static void consider(gconv_pick *pick, const char **best_name, const candidate *c, double key, int64_t walks) {
    pick->candidates++;
    pick->tree_walks += walks;
    if (pick->index < 0 || key < pick->key || (key == pick->key && strcmp(c->name, *best_name) < 0)) {
        *pick = (gconv_pick){(int64_t)c->index, pick->candidates, c->C, c->K, key, pick->skipped, 0,
                             pick->tree_walks};
        *best_name = c->name;
    }
}

/* The least key among the candidates of p in pool, ties by name -- Python's min over (key, name): the model's
 * choice key of the candidates it knows, or (model NULL) the rule's time of all. With a model, least_by_model
 * finds the same pick walking fewer trees; this loop scores every candidate in full (without a model, or when
 * least_by_model has no memory); the vendor path last, when it competes. */
static void least(const gconv_prob *p, const gconv_pool *pool, const gconv_model *model, int vendor,
                  gconv_pick *pick) {
    *pick = (gconv_pick){.index = -1};
    if (model && least_by_model(p, pool, model, vendor, pick)) return;
    const char *best_name = NULL;
    const int64_t walks = model ? (model->ranker.trees ? model->ranker.trees : model->regressor.trees) : 0;
    candidate c;
    for (size_t i = 0; next_candidate(p, pool, model, &i, &c, &pick->skipped); i++) {
        const gconv_config *config = pool_config(pool, i);
        double key = model ? gconv_model_choice_key(model, config, p, c.C, c.K)
                           : gconv_predicted_seconds(config, p, c.C, c.K);
        consider(pick, &best_name, &c, key, walks);
    }
    if (vendor_row(model, vendor) >= 0) {
        c = (candidate){pool->count, p->C, p->K, VENDOR_KERNEL};
        consider(pick, &best_name, &c, gconv_model_vendor_key(model, p), walks);
    }
}

/* runtime/selection.py python_best: the model's pick among the candidates it knows, or, when it knows none (or there
 * is no model), the rule's among them all. */
void gconv_pick_best(const gconv_prob *p, const gconv_pool *pool, const gconv_model *model, int vendor,
                     gconv_pick *pick) {
    least(p, pool, model, vendor, pick);
    if (model && pick->index >= 0 && (size_t)pick->index == pool->count) {
        pick->by_model = 1;
        if (model->ranker.trees) pick->key = gconv_model_vendor_ms(model, p);
    } else if (model && pick->index >= 0) {
        pick->by_model = 1;
        if (model->ranker.trees) /* the ranker chose: the key becomes the regressor's predicted time of the pick */
            pick->key = gconv_model_predicted_ms(model, pool_config(pool, (size_t)pick->index), p, pick->padded_C,
                                                 pick->padded_K, NULL);
    } else if (model && pick->skipped > 0) {
        int64_t skipped = pick->skipped;
        least(p, pool, NULL, 0, pick);
        pick->skipped = skipped;
    }
}

/* gconv_pick_best over the library's entries (kernel NULL), or runtime/selection.py forced_choice (kernel named). */
gconv_status gconv_choose(const gconv_prob *p, const char *kernel, gconv_choice *choice) {
    memset(choice, 0, sizeof *choice);
    if (kernel != NULL) {
        for (size_t i = 0; i < gconv_entry_count; i++) {
            const gconv_entry *e = &gconv_entries[i];
            if (strcmp(e->name, kernel) != 0) continue;
            if (!gconv_candidate_for(&e->config, p, &choice->padded_C, &choice->padded_K)) {
                char reason[256];
                return gconv_fail(GCONV_STATUS_UNSUPPORTED, "kernel '%s' cannot run this problem: %s", kernel,
                                  gconv_unsupported_reason(&e->config, p, reason, sizeof reason));
            }
            choice->entry = e;
            choice->candidates = 1;
            choice->seconds = gconv_predicted_seconds(&e->config, p, choice->padded_C, choice->padded_K);
            return GCONV_STATUS_SUCCESS;
        }
        return gconv_fail(GCONV_STATUS_UNKNOWN_KERNEL,
                          "kernel '%s' is not in this library (rule set '%s', %s); gconv_kernel_name lists them",
                          kernel, gconv_rule_set_name, gconv_arch_name);
    }
    const gconv_model *model = gconv_model_for(p->direction, p->dtype);
    const gconv_pool pool = {gconv_entry_count, &gconv_entries[0].config, sizeof(gconv_entry), &gconv_entries[0].name,
                             sizeof(gconv_entry)};
    gconv_pick pick;
    gconv_pick_best(p, &pool, model, 0, &pick); /* no vendor path in the library */
    if (pick.index < 0)
        return gconv_fail(GCONV_STATUS_UNSUPPORTED,
                          "no instance of rule set '%s' runs this %s %s problem on %s (the Python runtime would use "
                          "the vendor path)", gconv_rule_set_name, DIRECTIONS[p->direction], DTYPES[p->dtype],
                          gconv_arch_name);
    choice->entry = &gconv_entries[pick.index];
    choice->padded_C = pick.padded_C;
    choice->padded_K = pick.padded_K;
    choice->candidates = (int)pick.candidates;
    choice->seconds = pick.by_model ? pick.key / 1e3 : pick.key; /* selection.py: flops / (ms / 1e3) / 1e12 */
    choice->source = pick.by_model ? GCONV_SOURCE_MODEL : GCONV_SOURCE_RULE;
    choice->model = pick.by_model ? model : NULL;
    return GCONV_STATUS_SUCCESS;
}

gconv_status gconv_check_and_choose(const gconv_problem *problem, const char *kernel, gconv_prob *p,
                                    gconv_choice *choice) {
    gconv_status status = gconv_check_problem(problem, p);
    if (status != GCONV_STATUS_SUCCESS) return status;
    return gconv_choose(p, kernel, choice);
}
