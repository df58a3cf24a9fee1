/*
 * The CPU engine's contiguous real dot loop, x[0..n) . y[0..n) summed in type A over LANES
 * independent sums (so the compiler vectorises it and keeps LANES additions in flight),
 * merged pairwise in a fixed order.  One definition for the engine (cpu/gpudot_cpu.c:
 * 32 lanes, AVX-512/AVX2/default clones) and for bench/cpu_dot_loops.c, which measures
 * this same code with other lane counts and targets.  QUAL: storage class and attributes.
 */
#ifndef GPUDOT_FAST_LOOP_H
#define GPUDOT_FAST_LOOP_H

#include <stdint.h>

#define GPUDOT_FAST_LOOP(QUAL, NAME, T, A, LANES)                                                  \
    QUAL A NAME(const T *x, const T *y, int64_t n)                                                 \
    {                                                                                              \
        A s[LANES] = {0};                                                                          \
        int64_t k = 0;                                                                             \
        for (; k + (LANES) <= n; k += (LANES))                                                     \
            for (int l = 0; l < (LANES); l++)                                                      \
                s[l] += (A)x[k + l] * (A)y[k + l];                                                 \
        for (int l = 0; k < n; k++, l++)                                                           \
            s[l] += (A)x[k] * (A)y[k];                                                             \
        for (int w = (LANES) / 2; w > 0; w /= 2)                                                   \
            for (int l = 0; l < w; l++)                                                            \
                s[l] += s[l + w];                                                                  \
        return s[0];                                                                               \
    }

#endif
