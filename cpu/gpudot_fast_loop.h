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

#include "gpudot_math.h"

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

/* The same with Dot2 (Ogita-Rump-Oishi) in double in each lane, gpudot_math.h's step
 * (gd_add_prod_d: a product's error by fma, the sum's by TwoSum), the lanes' (sum,
 * compensation) pairs merged pairwise in a fixed order.  *sum + *comp is x . y as if
 * summed in twice double's precision (x == y: a sum of squares).  GPUDOT_COMP3_LOOP:
 * x . y, x . x and y . y at once, for cosines. */
#define GPUDOT_FMA_CLONES                                                                          \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define GPUDOT_COMP_MERGE(S, C, LANES)                                                             \
    for (int w = (LANES) / 2; w > 0; w /= 2)                                                       \
        for (int l = 0; l < w; l++) {                                                              \
            double q_;                                                                             \
            gd_two_sum_d(S[l], S[l + w], &S[l], &q_);                                              \
            C[l] += C[l + w] + q_;                                                                 \
        }
#define GPUDOT_COMP_LOOP(QUAL, NAME, T, LANES)                                                     \
    QUAL void NAME(const T *x, const T *y, int64_t n, double *sum, double *comp)                   \
    {                                                                                              \
        double s[LANES] = {0}, c[LANES] = {0};                                                     \
        int64_t k = 0;                                                                             \
        for (; k + (LANES) <= n; k += (LANES))                                                     \
            for (int l = 0; l < (LANES); l++)                                                      \
                gd_add_prod_d(&s[l], &c[l], (double)x[k + l], (double)y[k + l], 1);                \
        for (int l = 0; k < n; k++, l++)                                                           \
            gd_add_prod_d(&s[l], &c[l], (double)x[k], (double)y[k], 1);                            \
        GPUDOT_COMP_MERGE(s, c, LANES)                                                             \
        *sum = s[0];                                                                               \
        *comp = c[0];                                                                              \
    }
#define GPUDOT_COMP3_LOOP(QUAL, NAME, T, LANES)                                                    \
    QUAL void NAME(const T *x, const T *y, int64_t n, double *s3, double *c3)                      \
    {                                                                                              \
        double s[3][LANES] = {{0}}, c[3][LANES] = {{0}};                                           \
        int64_t k = 0;                                                                             \
        for (; k + (LANES) <= n; k += (LANES))                                                     \
            for (int l = 0; l < (LANES); l++) {                                                    \
                double a = (double)x[k + l], b = (double)y[k + l];                                 \
                gd_add_prod_d(&s[0][l], &c[0][l], a, b, 1);                                        \
                gd_add_prod_d(&s[1][l], &c[1][l], a, a, 1);                                        \
                gd_add_prod_d(&s[2][l], &c[2][l], b, b, 1);                                        \
            }                                                                                      \
        for (int l = 0; k < n; k++, l++) {                                                         \
            double a = (double)x[k], b = (double)y[k];                                             \
            gd_add_prod_d(&s[0][l], &c[0][l], a, b, 1);                                            \
            gd_add_prod_d(&s[1][l], &c[1][l], a, a, 1);                                            \
            gd_add_prod_d(&s[2][l], &c[2][l], b, b, 1);                                            \
        }                                                                                          \
        for (int i = 0; i < 3; i++) {                                                              \
            GPUDOT_COMP_MERGE(s[i], c[i], LANES)                                                   \
            s3[i] = s[i][0];                                                                       \
            c3[i] = c[i][0];                                                                       \
        }                                                                                          \
    }

#endif
