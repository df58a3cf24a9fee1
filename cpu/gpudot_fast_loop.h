/*
 * The CPU engine's contiguous real dot loop, x[0..n) . y[0..n) summed in type A over LANES
 * independent sums (so the compiler vectorises it and keeps LANES additions in flight),
 * merged pairwise in a fixed order.  One definition for the engine (cpu/gpudot_cpu.c:
 * 32 lanes, AVX-512/AVX2/default clones) and for bench/cpu_dot_loops.c, which measures
 * this same code with other lane counts and targets.  QUAL: storage class and attributes.
 */
#ifndef GPUDOT_FAST_LOOP_H
#define GPUDOT_FAST_LOOP_H

#include <math.h>
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

/* The same with Dot2 (Ogita-Rump-Oishi) in double in each lane: a product's error by fma, the
 * sum's by TwoSum, the lanes' (sum, compensation) pairs merged pairwise in a fixed order.
 * *s + *c is x . y as if summed in twice double's precision (x == y: a sum of squares).
 * GPUDOT_COMP3_LOOP: x . y, x . x and y . y at once, for cosines. */
#define GPUDOT_COMP_MERGE(S, C, LANES)                                                             \
    for (int w = (LANES) / 2; w > 0; w /= 2)                                                       \
        for (int l = 0; l < w; l++) {                                                              \
            double t = S[l] + S[l + w], z = t - S[l];                                              \
            C[l] += C[l + w] + ((S[l] - (t - z)) + (S[l + w] - z));                                \
            S[l] = t;                                                                              \
        }
#define GPUDOT_COMP_LOOP(QUAL, NAME, T, LANES)                                                     \
    QUAL void NAME(const T *x, const T *y, int64_t n, double *sum, double *comp)                   \
    {                                                                                              \
        double s[LANES] = {0}, c[LANES] = {0};                                                     \
        int64_t k = 0;                                                                             \
        for (; k + (LANES) <= n; k += (LANES))                                                     \
            for (int l = 0; l < (LANES); l++)                                                      \
                GPUDOT_DOT2_STEP(s[l], c[l], (double)x[k + l], (double)y[k + l]);                  \
        for (int l = 0; k < n; k++, l++)                                                           \
            GPUDOT_DOT2_STEP(s[l], c[l], (double)x[k], (double)y[k]);                              \
        GPUDOT_COMP_MERGE(s, c, LANES)                                                             \
        *sum = s[0];                                                                               \
        *comp = c[0];                                                                              \
    }
#define GPUDOT_COMP3_LOOP(QUAL, NAME, T, LANES)                                                    \
    QUAL void NAME(const T *x, const T *y, int64_t n, double *s3, double *c3)                      \
    {                                                                                              \
        double sa[LANES] = {0}, ca[LANES] = {0}, sb[LANES] = {0}, cb[LANES] = {0};                 \
        double sc[LANES] = {0}, cc[LANES] = {0};                                                   \
        int64_t k = 0;                                                                             \
        for (; k + (LANES) <= n; k += (LANES))                                                     \
            for (int l = 0; l < (LANES); l++) {                                                    \
                double a = (double)x[k + l], b = (double)y[k + l];                                 \
                GPUDOT_DOT2_STEP(sa[l], ca[l], a, b);                                              \
                GPUDOT_DOT2_STEP(sb[l], cb[l], a, a);                                              \
                GPUDOT_DOT2_STEP(sc[l], cc[l], b, b);                                              \
            }                                                                                      \
        for (int l = 0; k < n; k++, l++) {                                                         \
            double a = (double)x[k], b = (double)y[k];                                             \
            GPUDOT_DOT2_STEP(sa[l], ca[l], a, b);                                                  \
            GPUDOT_DOT2_STEP(sb[l], cb[l], a, a);                                                  \
            GPUDOT_DOT2_STEP(sc[l], cc[l], b, b);                                                  \
        }                                                                                          \
        GPUDOT_COMP_MERGE(sa, ca, LANES)                                                           \
        GPUDOT_COMP_MERGE(sb, cb, LANES)                                                           \
        GPUDOT_COMP_MERGE(sc, cc, LANES)                                                           \
        s3[0] = sa[0], c3[0] = ca[0], s3[1] = sb[0], c3[1] = cb[0], s3[2] = sc[0], c3[2] = cc[0];  \
    }

/* (s, c) += a * b, Dot2's step (gd_add_prod_d's compensated branch, written out so that
 * the compiler vectorises it) */
#define GPUDOT_DOT2_STEP(S, C, A, B)                                                               \
    do {                                                                                           \
        double p_ = (A) * (B), ep_ = fma((A), (B), -p_);                                           \
        double t_ = (S) + p_, z_ = t_ - (S);                                                       \
        (C) += ((S) - (t_ - z_)) + (p_ - z_) + ep_;                                                \
        (S) = t_;                                                                                  \
    } while (0)

#endif
