/* Model selection in C: the feature engine of heuristics/features.py (one row of feature_matrix, the vectorised path
 * Python's selection runs, operation for operation in float64) and the LightGBM tree ensembles that
 * capi/cmake_tool.py models converts from heuristics/models/<arch>/ (gconv_models.c). tests/test_capi.py checks
 * the rows against feature_matrix, the raw scores against Booster.predict and the choices against gconv.select. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gconv_internal.h"
#include "gconv_rules.h"

typedef __int128 wide;
typedef unsigned __int128 uwide;

const gconv_model *gconv_model_for(int direction, int dtype) {
    for (size_t i = 0; i < gconv_model_count; i++)
        if (gconv_models[i].direction == direction && gconv_models[i].dtype == dtype) return &gconv_models[i];
    return NULL;
}

static int bit_length(uwide v) {
    int n = 0;
    while (v) {
        v >>= 1;
        n++;
    }
    return n;
}

/* Python's int / int (a, b > 0): the correctly rounded quotient. Plain float division where both are exact doubles
 * (what CPython does too); otherwise 55+ quotient bits with a sticky bit, rounded once by the conversion. */
static double true_divide(wide a, wide b) {
    const wide exact = (wide)1 << 53;
    if (a <= exact && b <= exact) return (double)a / (double)b;
    int shift = 55 - (bit_length((uwide)a) - bit_length((uwide)b));
    uwide num = (uwide)a, den = (uwide)b;
    if (shift >= 0) num <<= shift;
    else den <<= -shift;
    uwide q = num / den;
    uint64_t bits = (uint64_t)q | (uint64_t)(num % den != 0);
    return ldexp((double)bits, -shift);
}

static double dmax(double a, double b) { return b > a ? b : a; } /* Python's max / np.maximum on non-NaN */
static double dmin(double a, double b) { return b < a ? b : a; }

/* features.py _peak_flops and _memory_efficiency (analytic.estimate's, per config) */
static double peak_flops(const gconv_config *c) {
    const gconv_arch_spec *a = &gconv_arch_data;
    if (c->algorithm == GCONV_ALGORITHM_DIRECT) return a->cuda_core_tflops * 1e12 * GCONV_DIRECT_PEAK_FRACTION;
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE) return a->cuda_core_tflops * 1e12 * GCONV_DEPTHWISE_PEAK_FRACTION;
    double size_factor = pow(dmin(1.0, (double)(c->block_m * c->block_n) / GCONV_FULL_EFFICIENCY_TILE), 0.35);
    return a->peak_tflops[c->dtype] * 1e12 * GCONV_PEAK_FRACTION * size_factor;
}

static double memory_efficiency(const gconv_config *c) {
    double base = c->algorithm != GCONV_ALGORITHM_IGEMM ? 0.25 : 0.4;
    double slope = c->algorithm != GCONV_ALGORITHM_IGEMM ? 0.75 : 0.6;
    return dmin(1.0, base + slope * c->vector_width * gconv_dtype_bytes(c->dtype) / gconv_arch_data.max_vector_bytes);
}

static wide gemm_k(const gconv_prob *p) {
    if (p->direction == GCONV_DIRECTION_FWD) return (wide)p->C * p->Y * p->X;
    if (p->direction == GCONV_DIRECTION_BWD_DATA) return (wide)p->K * p->Y * p->X;
    return (wide)p->N * p->Ho * p->Wo;
}

/* features.py cuda_core_waste: waste_m and waste_n of a direct or depthwise kernel on fwd / bwd_data (pixel blocks --
 * depthwise: tile_h x tile_w tiles of the rows and columns, bwd_data's per stride-residue class -- and channel blocks,
 * depthwise: groups, over what they cover); bwd_weight keeps 1. */
static void cuda_core_waste(const gconv_config *c, const gconv_prob *r, double waste[3]) {
    if (r->direction == GCONV_DIRECTION_BWD_WEIGHT) return;
    int fwd = r->direction == GCONV_DIRECTION_FWD;
    if (c->algorithm == GCONV_ALGORITHM_DEPTHWISE) {
        double th = (double)(c->block_m / c->tile_w), tw = (double)c->tile_w;
        double rows = fwd ? (double)r->Ho : ceil((double)r->Hi / (double)r->stride_h);
        double cols = fwd ? (double)r->Wo : ceil((double)r->Wi / (double)r->stride_w);
        waste[0] = ceil(rows / th) * th * ceil(cols / tw) * tw / (rows * cols);
        waste[1] = ceil((double)r->G / c->block_n) * c->block_n / (double)r->G;
        return;
    }
    double pixels = fwd ? (double)((wide)r->N * r->Ho * r->Wo) : (double)((wide)r->N * r->Hi * r->Wi);
    double channels = fwd ? (double)((wide)r->G * r->K) : (double)((wide)r->G * r->C);
    waste[0] = ceil(pixels / c->block_m) * c->block_m / pixels;
    waste[1] = ceil(channels / c->block_n) * c->block_n / channels;
}

/* One row of feature_matrix: problem_features(problem), kernel_features(config), derived_features on runs (problem
 * after channel padding, or problem itself) as features.py _fill_derived computes them. */
/* problem_features: Python ints as floats, math.log2 of ints, int / int; the first GCONV_PROBLEM_FEATURE_COUNT. */
static void problem_features(const gconv_prob *p, double f[GCONV_FEATURE_COUNT]) {
    int n = 0;
    const int64_t sizes[16] = {p->N, p->G, p->C, p->K, p->Hi, p->Wi, p->Ho, p->Wo, p->Y, p->X,
                               p->stride_h, p->stride_w, p->pad_h, p->pad_w, p->dil_h, p->dil_w};
    for (int i = 0; i < 16; i++) f[n++] = (double)sizes[i];
    wide gm, gn, gk = gemm_k(p);
    if (p->direction == GCONV_DIRECTION_FWD) {
        gm = (wide)p->N * p->Ho * p->Wo;
        gn = p->K;
    } else if (p->direction == GCONV_DIRECTION_BWD_DATA) {
        gm = (wide)p->N * p->Hi * p->Wi;
        gn = p->C;
    } else {
        gm = p->K;
        gn = (wide)p->C * p->Y * p->X;
    }
    wide flops = gconv_flops_exact(p), moved = gconv_problem_bytes(p);
    f[n++] = log2((double)gm);
    f[n++] = log2((double)gn);
    f[n++] = log2((double)gk);
    f[n++] = log2((double)flops);
    f[n++] = log2((double)moved);
    f[n++] = true_divide(flops, moved);
    f[n++] = p->C == 1 ? 1.0 : 0.0;
}

/* features.py derived_features with extra_seconds added to the analytic seconds and memory seconds. */
static void features(const gconv_config *c, const gconv_prob *p, const gconv_prob *r, double extra_seconds,
                     double f[GCONV_FEATURE_COUNT]) {
    problem_features(p, f);
    int n = GCONV_PROBLEM_FEATURE_COUNT;
    /* kernel_features */
    int direct = c->algorithm == GCONV_ALGORITHM_DIRECT, depthwise = c->algorithm == GCONV_ALGORITHM_DEPTHWISE;
    int cuda_core = direct || depthwise;
    const int kernel[23] = {direct, c->block_m, c->block_n, c->block_k, c->num_warps, c->num_stages,
                            c->pipeline == GCONV_PIPELINE_TMA, c->pipeline == GCONV_PIPELINE_PERSISTENT,
                            c->raster_group, c->vector_width, c->groups_to_merge, c->split_k, depthwise,
                            c->tile_w, c->filter_size, c->multiplier, c->tap_major, c->two_stage,
                            c->pipeline == GCONV_PIPELINE_STREAMK, c->explicit_gemm, c->sliding_rows,
                            c->last_arrival, c->aligned_k};
    for (int i = 0; i < 23; i++) f[n++] = (double)kernel[i];

    /* derived_features, as _extents / _direct_programs / _depthwise_programs / _fill_derived compute them in float64 */
    double merge = c->groups_to_merge;
    double divisors[4] = {1, 1, 1, 1};
    if (!cuda_core) {
        divisors[0] = c->block_m;
        divisors[1] = c->block_n;
        divisors[2] = c->block_k;
        divisors[3] = merge;
    }
    double multipliers[4] = {r->direction == GCONV_DIRECTION_BWD_WEIGHT ? merge : 1.0, merge, 1.0, 1.0};
    wide base[4];
    if (r->direction == GCONV_DIRECTION_FWD) {
        base[0] = (wide)r->N * r->Ho * r->Wo;
        base[1] = r->K;
    } else if (r->direction == GCONV_DIRECTION_BWD_DATA) {
        base[0] = (wide)r->N * r->Hi * r->Wi;
        base[1] = r->C;
    } else {
        base[0] = r->K;
        base[1] = (wide)r->Y * r->X * r->C;
    }
    base[2] = gemm_k(r);
    base[3] = r->G;
    double split_k = c->split_k, extents[4], steps[4], waste[3];
    for (int i = 0; i < 4; i++) extents[i] = (double)base[i] * multipliers[i];
    if (c->split_k > 1) extents[2] = ceil(extents[2] / split_k);
    for (int i = 0; i < 4; i++) steps[i] = ceil(extents[i] / divisors[i]);
    /* _residue_steps: igemm bwd_data tiles each stride-residue class apart and walks only the taps that reach it */
    int residue = !cuda_core && r->direction == GCONV_DIRECTION_BWD_DATA && p->stride_h * p->stride_w > 1;
    double per_class = 0.0, walked = 0.0;
    if (residue) {
        per_class = ceil((double)((wide)p->N * ((p->Hi + p->stride_h - 1) / p->stride_h) *
                                  ((p->Wi + p->stride_w - 1) / p->stride_w)) / divisors[0]);
        walked = (double)gconv_residue_steps(p, r->K, c->block_k); /* the float ceils of integers below 2**53 */
        steps[0] = (double)(p->stride_h * p->stride_w) * per_class;
        steps[2] = walked;
    }
    if (c->tap_major) { /* every tap's channels (fwd) or filters (bwd_data) padded to block_k */
        double per_tap = r->direction == GCONV_DIRECTION_FWD ? (double)r->C : (double)r->K;
        steps[2] = (double)((wide)r->Y * r->X) * ceil(per_tap / divisors[2]);
        if (residue) walked = steps[2]; /* the classes' taps together are all Y*X of them */
    }
    if (!cuda_core && c->tile_w && r->direction != GCONV_DIRECTION_BWD_WEIGHT) {
        /* grid.row_tiles: the boxes; analytic.padded_reduction: each tap's merged channels (fwd) or filters (bwd_data)
         * padded to block_k */
        int fwd = r->direction == GCONV_DIRECTION_FWD;
        double th = (double)(c->block_m / c->tile_w), tw = (double)c->tile_w;
        double rows = (double)(fwd ? r->Ho : r->Hi), cols = (double)(fwd ? r->Wo : r->Wi);
        steps[0] = (double)r->N * ceil(rows / th) * ceil(cols / tw);
        steps[2] = (double)((wide)r->Y * r->X) * ceil((double)(fwd ? r->C : r->K) * divisors[3] / divisors[2]);
    } else if (!cuda_core && c->tile_w) /* grid.col_tiles: pixel boxes round each tap's channels up to whole tiles */
        steps[1] = (double)((wide)r->Y * r->X) * ceil((double)r->C * divisors[3] / divisors[1]);
    for (int i = 0; i < 3; i++) waste[i] = steps[i] * divisors[i] / extents[i];
    if (cuda_core) cuda_core_waste(c, r, waste);
    double programs = steps[0] * steps[1] * steps[3] * split_k;
    double dtv = (double)(2 * c->block_m * c->block_n * c->block_k);
    double work = residue ? per_class * steps[1] * steps[3] * dtv * walked : programs * dtv * steps[2];
    if (direct) {
        if (r->direction == GCONV_DIRECTION_BWD_WEIGHT) {
            programs = ceil((double)((wide)r->G * r->K) / c->block_n) * (double)((wide)r->C * r->Y * r->X) * split_k;
        } else {
            wide pixels = r->direction == GCONV_DIRECTION_FWD ? (wide)r->N * r->Ho * r->Wo : (wide)r->N * r->Hi * r->Wi;
            wide channels = r->direction == GCONV_DIRECTION_FWD ? (wide)r->G * r->K : (wide)r->G * r->C;
            programs = ceil((double)pixels / c->block_m) * ceil((double)channels / c->block_n);
        }
        work = (double)gconv_flops_exact(r);
    }
    if (depthwise) {
        int64_t grid[3];
        gconv_tile_grid(c, r, grid); /* integers below 2**53: the float64 products of _depthwise_programs, exactly */
        programs = (double)grid[0] * (double)grid[1] * (double)grid[2];
        work = (double)gconv_flops_exact(r);
    }
    double slots = (double)((wide)gconv_arch_data.sm_count * gconv_resident_blocks_per_sm(c));
    double waves = programs / slots;
    double tail = waves / ceil(waves);
    double growth = true_divide((wide)r->C * r->K, (wide)p->C * p->K);
    double compute_s = work / (peak_flops(c) * tail);
    double traffic = (double)gconv_problem_bytes(r);
    if (c->split_k > 1) traffic = traffic + (double)(2 * c->split_k * 4) * (double)gconv_split_result_elements(r);
    double memory_s = traffic / (gconv_arch_data.dram_bandwidth_gbs * 1e9 * memory_efficiency(c));
    double seconds = dmax(compute_s, memory_s);
    if (c->pipeline == GCONV_PIPELINE_PERSISTENT || c->pipeline == GCONV_PIPELINE_STREAMK)
        seconds *= GCONV_PERSISTENT_GAIN;
    seconds += GCONV_LAUNCH_LATENCY_S;
    double copies = gconv_padding_copy_seconds(p, r->C, r->K); /* channel padding's copies, 0 unpadded */
    seconds += copies;
    memory_s += copies;
    seconds += extra_seconds;
    memory_s += extra_seconds;
    f[n++] = log2(programs);
    f[n++] = waves;
    f[n++] = tail;
    for (int i = 0; i < 3; i++) f[n++] = waste[i];
    f[n++] = log2(work);
    f[n++] = work / programs;
    f[n++] = growth;
    f[n++] = log2(dmax(seconds, 0.0));
    f[n++] = log2(dmax(compute_s, 1e-12));
    f[n++] = log2(dmax(memory_s, 1e-12));
    f[n++] = 0.0; /* vendor */
}

/* features.py feature_rows: a via_fwd config's row is its forward kernel's on the forward twins, with the problem's own
 * features and the filter's transposition (analytic.py twin_filter_seconds of the problem it runs) added. */
void gconv_features(const gconv_config *c, const gconv_prob *p, const gconv_prob *r, double f[GCONV_FEATURE_COUNT]) {
    if (!c->via_fwd) {
        features(c, p, r, 0.0, f);
        return;
    }
    gconv_prob twin, twin_runs;
    gconv_forward_twin(p, &twin);
    gconv_forward_twin(r, &twin_runs);
    gconv_config kernel = gconv_forward_kernel(c);
    features(&kernel, &twin, &twin_runs, gconv_twin_filter_seconds(r), f);
    problem_features(p, f);
}

/* features.py vendor_row: the vendor path's row, its problem's features, zeros, and vendor = 1. */
void gconv_vendor_features(const gconv_prob *p, double f[GCONV_FEATURE_COUNT]) {
    for (int i = 0; i < GCONV_FEATURE_COUNT; i++) f[i] = 0.0;
    problem_features(p, f);
    f[GCONV_FEATURE_VENDOR] = 1.0;
}

/* LightGBM's prediction of one dense float64 row: |values| <= kZeroThreshold read as 0 (the dense row becomes a sparse
 * one), each tree walked with Tree::NumericalDecision, the leaf values summed in tree order from 0. */
#define LGBM_ZERO_THRESHOLD ((double)1e-35f)

/* Tree::NumericalDecision, for a model that is not plain: NaN reads as 0 unless the split's missing type is NaN; a
 * missing value (Zero type: 0, NaN type: NaN) goes the default way, any other value left when <= threshold. */
static int32_t decide(const gconv_tree_node *split, const double *row) {
    double value = row[split->feature];
    int missing = split->flags >> 1, nan = isnan(value);
    value = (nan & (missing != 2)) ? 0.0 : value;
    int absent = ((missing == 1) & (value >= -LGBM_ZERO_THRESHOLD) & (value <= LGBM_ZERO_THRESHOLD)) |
                 ((missing == 2) & nan);
    int left = absent ? (split->flags & 1) : (value <= split->threshold);
    return left ? split->left : split->right;
}

/* A feature row as LightGBM reads it: |value| <= kZeroThreshold is 0, and a plain model reads NaN as 0 too. */
static void model_row(const gconv_forest *m, const double *features, double *row) {
    if (m->plain) { /* NaN fails the comparison too: one compare a feature, which the compiler vectorises */
        for (int i = 0; i < GCONV_FEATURE_COUNT; i++)
            row[i] = fabs(features[i]) > LGBM_ZERO_THRESHOLD ? features[i] : 0.0;
        return;
    }
    for (int i = 0; i < GCONV_FEATURE_COUNT; i++)
        row[i] = (fabs(features[i]) > LGBM_ZERO_THRESHOLD || isnan(features[i])) ? features[i] : 0.0;
}

static int32_t next_node(const gconv_forest *m, const gconv_tree_node *split, const double *row) {
    return m->plain ? (row[split->feature] <= split->threshold ? split->left : split->right) : decide(split, row);
}

/* The leaf value one tree gives a model row. */
static double tree_value(const gconv_forest *m, int32_t tree, const double *row) {
    int32_t node = m->roots[tree];
    while (node >= 0) node = next_node(m, &m->nodes[node], row);
    return m->leaves[~node];
}

/* Walks run together, one step of each in turn (WALK_LANES at most). */
#define WALK_LANES 8

/* The leaves trees first.. first + count - 1 (count <= WALK_LANES) of a plain forest give row, into leaf[]. Each step
 * is free of branches (a plain split only compares; a finished walk keeps its leaf and reads split 0, which must
 * exist), so the walks' chains of loads overlap instead of waiting on mispredicted branches. */
static void plain_leaves(const gconv_forest *m, int32_t first, int32_t count, const double *row, double *leaf) {
    const gconv_tree_node *nodes = m->nodes;
    int32_t a = m->roots[first], b = count > 1 ? m->roots[first + 1] : -1, c = count > 2 ? m->roots[first + 2] : -1,
            d = count > 3 ? m->roots[first + 3] : -1, e = count > 4 ? m->roots[first + 4] : -1,
            f = count > 5 ? m->roots[first + 5] : -1, g = count > 6 ? m->roots[first + 6] : -1,
            h = count > 7 ? m->roots[first + 7] : -1;
#define GCONV_STEP(at)                                                                                               \
    do {                                                                                                             \
        int32_t done = (at) >> 31; /* -1 once at a leaf, else 0 */                                                  \
        const gconv_tree_node *split = &nodes[(at) & ~done];                                                        \
        int32_t right = -(int32_t)!(row[split->feature] <= split->threshold);                                        \
        int32_t next = split->left ^ ((split->left ^ split->right) & right);                                         \
        (at) = ((at) & done) | (next & ~done);                                                                       \
    } while (0)
    while ((a & b & c & d & e & f & g & h) >= 0) { /* until every walk has reached a leaf (all negative) */
        GCONV_STEP(a);
        GCONV_STEP(b);
        GCONV_STEP(c);
        GCONV_STEP(d);
        GCONV_STEP(e);
        GCONV_STEP(f);
        GCONV_STEP(g);
        GCONV_STEP(h);
    }
#undef GCONV_STEP
    int32_t node[WALK_LANES] = {a, b, c, d, e, f, g, h};
    for (int32_t j = 0; j < count; j++) leaf[j] = m->leaves[~node[j]];
}

/* The leaves of trees first.. first + count - 1, walked together where the forest is plain. */
static void tree_values(const gconv_forest *m, int32_t first, int32_t count, const double *row, double *leaf) {
    if (m->plain && m->node_count > 0) {
        plain_leaves(m, first, count, row, leaf);
        return;
    }
    for (int32_t j = 0; j < count; j++) leaf[j] = tree_value(m, first + j, row);
}

/* The leaves trees from.. to - 1 give a model row, summed in tree order. */
static double leaves_sum(const gconv_forest *m, int32_t from, int32_t to, const double *row) {
    double sum = 0.0, leaf[WALK_LANES];
    for (int32_t t = from; t < to; t += WALK_LANES) {
        int32_t count = to - t < WALK_LANES ? to - t : WALK_LANES;
        tree_values(m, t, count, row, leaf);
        for (int32_t j = 0; j < count; j++) sum += leaf[j];
    }
    return sum;
}

/* The raw score of one row: the leaf values its walks reach, summed in tree order from 0 -- bit for bit LightGBM's.
 * (Walking 8 rows in lockstep through a tree with branches, or QuickScorer's bitvectors, measured no faster on the
 * CI-class CPU; 8 trees of one row at once without branches, plain_leaves, did: 8 lanes beat 4, 12 and 16.) */
static double forest_raw(const gconv_forest *f, const double features[GCONV_FEATURE_COUNT]) {
    double row[GCONV_FEATURE_COUNT];
    model_row(f, features, row);
    return leaves_sum(f, 0, f->trees, row);
}

double gconv_model_raw(const gconv_model *m, const double features[GCONV_FEATURE_COUNT]) {
    return forest_raw(&m->regressor, features);
}

/* heuristics/target.py scale_ms: the milliseconds exp(raw) is in units of (1 for log_time). */
static double target_scale_ms(const gconv_model *m, const gconv_prob *p, const double features[GCONV_FEATURE_COUNT]) {
    if (m->target == GCONV_TARGET_LOG_TIME_OVER_ROOFLINE) {
        double compute = (double)gconv_flops_exact(p) / (gconv_roofline_tflops[p->dtype] * 1e12);
        double memory = (double)gconv_problem_bytes(p) / (gconv_roofline_bandwidth_gbs * 1e9);
        return dmax(compute, memory) * 1e3;
    }
    if (m->target == GCONV_TARGET_LOG_TIME_OVER_ANALYTIC) return exp2(features[GCONV_FEATURE_ANALYTIC_SECONDS]) * 1e3;
    return 1.0;
}

/* One candidate's feature row: config c running p at padded_C / padded_K channels per group. */
static void candidate_features(const gconv_config *c, const gconv_prob *p, int64_t padded_C, int64_t padded_K,
                               double features[GCONV_FEATURE_COUNT]) {
    gconv_prob runs = gconv_with_channels(p, padded_C, padded_K);
    gconv_features(c, p, &runs, features);
}

/* heuristics/model.py predict_ms of one feature row: exp(raw) * scale_ms (heuristics/target.py). */
static double row_ms(const gconv_model *m, const gconv_prob *p, const double features[GCONV_FEATURE_COUNT],
                     double *raw_out) {
    double raw = gconv_model_raw(m, features);
    if (raw_out) *raw_out = raw;
    return exp(raw) * target_scale_ms(m, p, features);
}

/* heuristics/model.py choice_keys of one feature row: the ranker's exp(-score) (its leaves are negated), or the
 * predicted time when there is no ranker. */
static double row_key(const gconv_model *m, const gconv_prob *p, const double features[GCONV_FEATURE_COUNT]) {
    return m->ranker.trees == 0 ? row_ms(m, p, features, NULL) : exp(forest_raw(&m->ranker, features));
}

double gconv_model_predicted_ms(const gconv_model *m, const gconv_config *c, const gconv_prob *p, int64_t padded_C,
                                int64_t padded_K, double *raw_out) {
    double features[GCONV_FEATURE_COUNT];
    candidate_features(c, p, padded_C, padded_K, features);
    return row_ms(m, p, features, raw_out);
}

double gconv_model_choice_key(const gconv_model *m, const gconv_config *c, const gconv_prob *p, int64_t padded_C,
                              int64_t padded_K) {
    double features[GCONV_FEATURE_COUNT];
    candidate_features(c, p, padded_C, padded_K, features);
    return row_key(m, p, features);
}

/* The same for the vendor path (select.c), whose row is gconv_vendor_features'. */
double gconv_model_vendor_ms(const gconv_model *m, const gconv_prob *p) {
    double features[GCONV_FEATURE_COUNT];
    gconv_vendor_features(p, features);
    return row_ms(m, p, features, NULL);
}

/* heuristics/model.py vendor_key's last factor: exp(-vendor_weight x the classifier's log-odds) for the vendor row
 * (its leaves are negated, so the sum is minus the log-odds); 1 without a classifier. */
static double vendor_odds_factor(const gconv_model *m, const double features[GCONV_FEATURE_COUNT]) {
    return m->vendor.trees == 0 ? 1.0 : exp(m->vendor_weight * forest_raw(&m->vendor, features));
}

double gconv_model_vendor_key(const gconv_model *m, const gconv_prob *p) {
    double features[GCONV_FEATURE_COUNT];
    gconv_vendor_features(p, features);
    return row_key(m, p, features) * exp(m->vendor_margin) * vendor_odds_factor(m, features);
}

/* The least leaf of the subtree at node that a row with the problem's features of row can reach: a split on a problem
 * feature (the same in every candidate's row) goes the problem's way, any other both ways. */
static double problem_least(const gconv_forest *m, int32_t node, const double *row) {
    while (node >= 0 && m->nodes[node].feature < GCONV_PROBLEM_FEATURE_COUNT) node = next_node(m, &m->nodes[node], row);
    if (node < 0) return m->leaves[~node];
    return dmin(problem_least(m, m->nodes[node].left, row), problem_least(m, m->nodes[node].right, row));
}

/* The sum of least[from.. to - 1] in four running sums (no chain of dependent additions). */
static double least_sum(const double *least, int32_t from, int32_t to) {
    double part[4] = {0.0, 0.0, 0.0, 0.0};
    int32_t t = from;
    for (; t + 4 <= to; t += 4)
        for (int j = 0; j < 4; j++) part[j] += least[t + j];
    for (; t < to; t++) part[0] += least[t];
    return (part[0] + part[1]) + (part[2] + part[3]);
}

typedef struct partial_score {
    double sum; /* of the first trees' leaves */
    size_t row;
} partial_score;

static int by_partial_sum(const void *a, const void *b) {
    double x = ((const partial_score *)a)->sum, y = ((const partial_score *)b)->sum;
    return (x > y) - (x < y);
}

/* Trees every candidate walks before the search orders them; after that, the most promising candidate goes first. */
#define ORDERING_TREES 6
/* A bound exceeds the best by more than this (in log milliseconds) before it drops a candidate: far above the
 * rounding of the sums, so a candidate whose key could tie or beat the best is always walked to the end. */
#define BOUND_MARGIN 1e-9

/* The row of the least (choice key, name) of n candidates -- the key bit for bit gconv_model_choice_key's -- with
 * its key in *key; the trees whose leaves the search used are added to *walks (a dropped candidate's last batch may
 * walk up to WALK_LANES - 1 more, unused). rows holds each candidate's features (gconv_features), COUNT per row, and
 * is rewritten; model_rows holds each candidate's row in the model's pool (-1: none). Without
 * scratch memory it returns n, choosing none: the caller scores one by one.
 *
 * Every candidate walks the first ORDERING_TREES trees; then, in the order of those partial sums, each walks on until
 * its sum so far plus the least the remaining trees can add exceeds the best key found: it cannot win, and is
 * dropped. A tree's least is the candidate kernel's own (kernel_least: the least leaf with the kernel's features
 * fixed), or without that table the least leaf with the problem's features fixed (problem_least). (Taking the larger
 * of both, the problem's searched anew for every selection, walked fewer trees but took longer: bench/model_c_ab.py.)
 * The winner's sum is the full one, in tree order, so nothing changes but the work. */
size_t gconv_model_least(const gconv_model *model, const gconv_prob *p, double *rows, size_t n,
                         const char *const *names, const int32_t *model_rows, double *key, int64_t *walks) {
    const int ranked = model->ranker.trees > 0;
    const gconv_forest *m = ranked ? &model->ranker : &model->regressor;
    int32_t trees = m->trees, ordering = trees < ORDERING_TREES ? trees : ORDERING_TREES;
    /* One scratch block: the candidates' order, each tree's least (without the kernel table), each candidate's
     * scale. */
    partial_score *order = malloc(sizeof(partial_score) * (n ? n : 1) + sizeof(double) * ((size_t)trees + n));
    if (order == NULL) return n;
    double *least = (double *)(order + n), *scales = least + trees;
    double vendor_factor = exp(model->vendor_margin), vendor_odds = 1.0;
    for (size_t i = 0; i < n; i++) {
        double *row = rows + i * GCONV_FEATURE_COUNT;
        scales[i] = ranked ? 1.0 : target_scale_ms(model, p, row);
        if (row[GCONV_FEATURE_VENDOR] == 1.0) vendor_odds = vendor_odds_factor(model, row); /* one vendor row */
        model_row(m, row, row);
    }
    if (model->kernel_least == NULL) /* each tree's least for every candidate */
        for (int32_t t = 0; t < trees; t++) least[t] = problem_least(m, m->roots[t], rows);
    for (size_t i = 0; i < n; i++)
        order[i] = (partial_score){leaves_sum(m, 0, ordering, rows + i * GCONV_FEATURE_COUNT), i};
    *walks += (int64_t)n * ordering;
    qsort(order, n, sizeof *order, by_partial_sum);
    size_t best = n;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k].row;
        const double *row = rows + i * GCONV_FEATURE_COUNT;
        const int vendor = row[GCONV_FEATURE_VENDOR] == 1.0;
        const double factor = vendor ? vendor_factor : 1.0, odds = vendor ? vendor_odds : 1.0;
        double limit = best < n ? log(*key / (scales[i] * factor * odds)) + BOUND_MARGIN : INFINITY;
        double sum = order[k].sum;
        if (isnan(limit)) limit = INFINITY;
        /* The least the trees from t on can add (remaining): the sum of each tree's least, this candidate kernel's
         * own where the model has the table (none for a candidate without a row there, the vendor path's: it walks
         * every tree), else the problem's; each walked tree's taken off. (Summed in another order than a suffix sum,
         * it differs from one by rounding far below BOUND_MARGIN.) */
        const double *bound = model->kernel_least == NULL ? least
                              : model_rows[i] >= 0 ? model->kernel_least + (size_t)model_rows[i] * (size_t)trees
                                                   : NULL;
        if (!(limit < INFINITY)) bound = NULL; /* nothing to beat yet */
        double remaining = bound ? least_sum(bound, ordering, trees) : -INFINITY;
        /* The trees from t on, WALK_LANES at a time; before each tree's leaf is added, the bound is checked as if
         * they were walked one by one (a dropped candidate's last walks of a batch go unused). */
        int32_t t = ordering;
        while (t < trees && sum + remaining <= limit) {
            double leaf[WALK_LANES];
            int32_t count = trees - t < WALK_LANES ? trees - t : WALK_LANES, j = 0;
            tree_values(m, t, count, row, leaf);
            do {
                sum += leaf[j];
                if (bound) remaining -= bound[t + j];
                j++;
            } while (j < count && sum + remaining <= limit);
            t += j;
            if (j < count) break;
        }
        *walks += t - ordering;
        if (t < trees) continue; /* cannot beat the best */
        double candidate_key = exp(sum) * scales[i] * factor * odds;
        if (best == n || candidate_key < *key || (candidate_key == *key && strcmp(names[i], names[best]) < 0)) {
            best = i;
            *key = candidate_key;
        }
    }
    free(order);
    return best;
}

/* Testing entry point (gconv.h): one candidate's feature row and the model's raw score. */
gconv_status gconv_debug_features(const gconv_problem *problem, const char *kernel, double *features, size_t count,
                                  double *raw_score) {
    gconv_clear_error();
    if (features == NULL || kernel == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "features or kernel is NULL");
    if (count < GCONV_FEATURE_COUNT)
        return gconv_fail(GCONV_STATUS_BUFFER_TOO_SMALL, "features needs %d entries; got %zu", GCONV_FEATURE_COUNT,
                          count);
    gconv_prob p;
    gconv_choice choice;
    gconv_status status = gconv_check_and_choose(problem, kernel, &p, &choice);
    if (status != GCONV_STATUS_SUCCESS) return status;
    gconv_prob runs = gconv_with_channels(&p, choice.padded_C, choice.padded_K);
    gconv_features(&choice.entry->config, &p, &runs, features);
    const gconv_model *model = gconv_model_for(p.direction, p.dtype);
    if (raw_score) *raw_score = model ? gconv_model_raw(model, features) : NAN;
    return GCONV_STATUS_SUCCESS;
}

size_t gconv_feature_count(void) { return GCONV_FEATURE_COUNT; }

const char *gconv_model_name(int32_t direction, int32_t dtype) {
    const gconv_model *model = gconv_model_for(direction, dtype);
    return model ? model->name : NULL;
}
