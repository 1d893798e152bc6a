/* The thread-local error state behind gconv_last_error (libgconv and the Python runtime's selector share it). */
#include <stdarg.h>
#include <stdio.h>

#include "gconv_internal.h"

static _Thread_local char last_error[1024];

gconv_status gconv_fail(gconv_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return status;
}

void gconv_clear_error(void) { last_error[0] = '\0'; }

const char *gconv_last_error(void) { return last_error; }
