/* One ahead-of-time compiled kernel as capi/aot.py embeds it (private to libgconv). */
#ifndef GCONV_BINARY_H
#define GCONV_BINARY_H

#include <stddef.h>

typedef struct gconv_binary {
    const unsigned char *cubin;
    size_t size;
    const char *function;        /* the entry point inside the cubin */
    unsigned shared;             /* dynamic shared memory per program, bytes */
    unsigned scratch_size;       /* Triton global scratch per program (TMA descriptors), bytes */
    unsigned scratch_align;
    unsigned num_warps;
    unsigned num_params;         /* kernel arguments, without the two scratch pointers Triton appends */
} gconv_binary;

#endif
