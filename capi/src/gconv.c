/* The C API's CPU half: initialisation, registry queries and selection (the error state is error.c's). */
#include <string.h>

#include "gconv_internal.h"

const char *gconv_status_name(gconv_status status) {
    switch (status) {
    case GCONV_STATUS_SUCCESS: return "GCONV_STATUS_SUCCESS";
    case GCONV_STATUS_INVALID_ARGUMENT: return "GCONV_STATUS_INVALID_ARGUMENT";
    case GCONV_STATUS_UNSUPPORTED: return "GCONV_STATUS_UNSUPPORTED";
    case GCONV_STATUS_BUFFER_TOO_SMALL: return "GCONV_STATUS_BUFFER_TOO_SMALL";
    case GCONV_STATUS_UNKNOWN_KERNEL: return "GCONV_STATUS_UNKNOWN_KERNEL";
    case GCONV_STATUS_NO_DEVICE: return "GCONV_STATUS_NO_DEVICE";
    case GCONV_STATUS_ARCH_MISMATCH: return "GCONV_STATUS_ARCH_MISMATCH";
    case GCONV_STATUS_CUDA_ERROR: return "GCONV_STATUS_CUDA_ERROR";
    }
    return "GCONV_STATUS_UNKNOWN";
}

gconv_status gconv_init(void) {
    /* The tables are static data; nothing to prepare until gconv_run needs the driver. */
    gconv_clear_error();
    return GCONV_STATUS_SUCCESS;
}

void gconv_cleanup(void) {
    gconv_launch_cleanup();
    gconv_clear_error();
}

const char *gconv_rule_set(void) { return gconv_rule_set_name; }
const char *gconv_arch(void) { return gconv_arch_name; }
size_t gconv_kernel_count(void) { return gconv_entry_count; }
size_t gconv_registry_json_size(void) { return gconv_registry_json_size_bytes; }

static gconv_status copy_string(const char *what, const char *text, char *buffer, size_t size) {
    size_t length = strlen(text);
    if (buffer == NULL)
        return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "%s buffer is NULL", what);
    if (size < length + 1)
        return gconv_fail(GCONV_STATUS_BUFFER_TOO_SMALL, "%s needs a buffer of %zu bytes (%zu and the NUL); got %zu",
                          what, length + 1, length, size);
    memcpy(buffer, text, length + 1);
    return GCONV_STATUS_SUCCESS;
}

gconv_status gconv_kernel_name(size_t index, char *name, size_t name_size) {
    gconv_clear_error();
    if (index >= gconv_entry_count)
        return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "kernel index %zu is out of range: the library holds %zu",
                          index, gconv_entry_count);
    return copy_string("kernel name", gconv_entries[index].name, name, name_size);
}

gconv_status gconv_is_supported(const gconv_problem *problem, int *supported) {
    gconv_clear_error();
    if (supported == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "supported is NULL");
    *supported = 0;
    gconv_prob p;
    gconv_choice choice;
    gconv_status status = gconv_check_and_choose(problem, NULL, &p, &choice);
    *supported = status == GCONV_STATUS_SUCCESS;
    if (status == GCONV_STATUS_UNSUPPORTED) gconv_clear_error(); /* "no" is an answer, not an error */
    return status == GCONV_STATUS_UNSUPPORTED ? GCONV_STATUS_SUCCESS : status;
}

gconv_status gconv_select(const gconv_problem *problem, gconv_selection *selection) {
    gconv_clear_error();
    if (selection == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "selection is NULL");
    memset(selection, 0, sizeof *selection);
    gconv_prob p;
    gconv_choice choice;
    gconv_status status = gconv_check_and_choose(problem, NULL, &p, &choice);
    if (status != GCONV_STATUS_SUCCESS) return status;
    status = copy_string("kernel name", choice.entry->name, selection->kernel, sizeof selection->kernel);
    if (status != GCONV_STATUS_SUCCESS) return status;
    selection->predicted_tflops = gconv_flops(&p) / choice.seconds / 1e12;
    selection->padded_C = choice.padded_C;
    selection->padded_K = choice.padded_K;
    selection->candidates = choice.candidates;
    selection->source = choice.source;
    return GCONV_STATUS_SUCCESS;
}

gconv_status gconv_select_kernel(const gconv_problem *problem, char *name, size_t name_size) {
    gconv_clear_error();
    if (name == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "kernel name buffer is NULL");
    gconv_prob p;
    gconv_choice choice;
    gconv_status status = gconv_check_and_choose(problem, NULL, &p, &choice);
    if (status != GCONV_STATUS_SUCCESS) return status;
    return copy_string("kernel name", choice.entry->name, name, name_size);
}

gconv_status gconv_workspace_size(const gconv_problem *problem, const char *kernel, size_t *bytes) {
    gconv_clear_error();
    if (bytes == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "bytes is NULL");
    *bytes = 0;
    gconv_prob p;
    gconv_choice choice;
    gconv_status status = gconv_check_and_choose(problem, kernel, &p, &choice);
    if (status != GCONV_STATUS_SUCCESS) return status;
    *bytes = gconv_temporary_bytes(&p, &choice);
    return GCONV_STATUS_SUCCESS;
}

gconv_status gconv_run_kernel(const gconv_problem *problem, const char *kernel, const void *a, const void *b,
                              void *out, void *stream) {
    gconv_clear_error();
    gconv_prob p;
    gconv_status status = gconv_check_problem(problem, &p);
    if (status != GCONV_STATUS_SUCCESS) return status;
    const char *names[3] = {"a", "b", "out"};
    const void *pointers[3] = {a, b, out};
    for (int i = 0; i < 3; i++) {
        if (pointers[i] == NULL) return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT, "%s is NULL", names[i]);
        if ((uintptr_t)pointers[i] % 16)
            return gconv_fail(GCONV_STATUS_INVALID_ARGUMENT,
                              "%s (%p) is not 16-byte aligned; the ahead-of-time kernels assume aligned tensors (as "
                              "cudaMalloc returns them)", names[i], pointers[i]);
    }
    gconv_choice choice;
    status = gconv_choose(&p, kernel, &choice);
    if (status != GCONV_STATUS_SUCCESS) return status;
    return gconv_launch(&p, &choice, a, b, out, stream);
}

gconv_status gconv_run(const gconv_problem *problem, const void *a, const void *b, void *out, void *stream) {
    return gconv_run_kernel(problem, NULL, a, b, out, stream);
}

gconv_status gconv_export_registry_json(char *buffer, size_t size, size_t *written) {
    gconv_clear_error();
    size_t length = gconv_registry_json_size_bytes;
    if (written != NULL) *written = length;
    if (buffer == NULL || size < length + 1) {
        if (written != NULL) *written = length + 1;
        return gconv_fail(GCONV_STATUS_BUFFER_TOO_SMALL,
                          "the registry JSON needs a buffer of %zu bytes (%zu and the NUL); got %zu", length + 1,
                          length, buffer == NULL ? (size_t)0 : size);
    }
    memcpy(buffer, gconv_registry_json, length + 1);
    return GCONV_STATUS_SUCCESS;
}
