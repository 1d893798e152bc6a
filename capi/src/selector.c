/* The selector alone, for the Python runtime: runtime/native_selector.py compiles this file with select.c, model.c,
 * error.c and gconv/c_source.py's selector_source (arch data only) on first use, and calls gconv_selector_choose
 * through ctypes with its own pool and model -- the code libgconv selects with, without kernels or CUDA. */
#include "gconv_internal.h"

#define SELECTOR_API __attribute__((visibility("default")))

/* The sizes of the structs Python mirrors with ctypes, and the feature version, checked when the library loads. */
SELECTOR_API void gconv_selector_layout(int64_t out[6]) {
    out[0] = (int64_t)sizeof(gconv_prob);
    out[1] = (int64_t)sizeof(gconv_config);
    out[2] = (int64_t)sizeof(gconv_tree_node);
    out[3] = (int64_t)sizeof(gconv_model);
    out[4] = (int64_t)sizeof(gconv_pick);
    out[5] = GCONV_FEATURE_VERSION;
}

/* gconv_pick_best over count configs and their names (model NULL: the rule heuristic), and the vendor path (pick
 * index count) when vendor is set and the model was trained on it. */
SELECTOR_API void gconv_selector_choose(const gconv_prob *p, const gconv_config *configs, const char *const *names,
                                        size_t count, const gconv_model *model, int32_t vendor, gconv_pick *pick) {
    const gconv_pool pool = {count, configs, sizeof *configs, names, sizeof *names};
    gconv_pick_best(p, &pool, model, vendor, pick);
}
