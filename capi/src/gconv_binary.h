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
    unsigned long long constant; /* arguments compiled in as the constant 1 (bit i: argument i), not passed */
    /* The same kernel compiled with the integer arguments of bit mask divisible16 (bit i: argument i) known to be
     * multiples of 16, which lets Triton vectorise its loads (capi/aot.py aligned_ints); launched instead of this
     * one when the problem's values have that property. 0 for kernels without one. */
    const struct gconv_binary *aligned;
    unsigned long long divisible16;
} gconv_binary;

#endif
