/*
 * The CPU engine's contiguous dot loop (cpu/gpudot_fast_loop.h) in isolation: lanes
 * (independent sums) and instruction set, for single data summed in double (fd) and double
 * data (dd), n = 2^10 ... 2^16, 8 input sets in turn (1-4 MiB, so L2 rather than L1), best
 * of 200 rounds, in scalars per nanosecond.  Built with the engine's flags:
 *   gcc -O3 -std=gnu11 -ffp-contract=off -Icpu bench/cpu_dot_loops.c -o cpu_dot_loops
 * AVX-512 variants run only where the CPU has AVX-512F.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpudot_fast_loop.h"

/* the engine's own loop (cpu/gpudot_fast_loop.h), one lane count and target per variant */
#define DEF(NAME, T, A, L, TGT)                                                            \
    GPUDOT_FAST_LOOP(__attribute__((target(TGT))) static, NAME##_loop, T, A, L)            \
    static double NAME(const void *x, const void *y, int64_t n)                            \
    {                                                                                      \
        return NAME##_loop(x, y, n);                                                       \
    }

DEF(fd16_def, float, double, 16, "arch=x86-64")
DEF(fd16_avx2, float, double, 16, "avx2")
DEF(fd32_avx2, float, double, 32, "avx2")
DEF(fd16_512, float, double, 16, "avx512f")
DEF(fd32_512, float, double, 32, "avx512f")
/* single data summed in double with the multiply-add fused: the same bits, as the product
 * of two floats is exact in double (the engine's clones are built with -ffp-contract=off) */
#define DEF_FMA(NAME, L, TGT)                                                              \
    GPUDOT_FAST_LOOP(__attribute__((target(TGT), optimize("fp-contract=fast"))) static,    \
                     NAME##_loop, float, double, L)                                        \
    static double NAME(const void *x, const void *y, int64_t n)                            \
    {                                                                                      \
        return NAME##_loop(x, y, n);                                                       \
    }
DEF_FMA(fd32_v3fma, 32, "arch=x86-64-v3")
DEF_FMA(fd32_v4fma, 32, "arch=x86-64-v4")
DEF(dd16_def, double, double, 16, "arch=x86-64")
DEF(dd16_avx2, double, double, 16, "avx2")
DEF(dd32_avx2, double, double, 32, "avx2")
DEF(dd16_512, double, double, 16, "avx512f")
DEF(dd32_512, double, double, 32, "avx512f")

typedef double (*loop_fn)(const void *, const void *, int64_t);
static const struct {
    const char *name;
    loop_fn f;
    int dbl, avx512;
} loops[] = {
    {"fd16_def", fd16_def, 0, 0}, {"fd16_avx2", fd16_avx2, 0, 0}, {"fd32_avx2", fd32_avx2, 0, 0},
    {"fd16_512", fd16_512, 0, 1}, {"fd32_512", fd32_512, 0, 1},  {"fd32_v3fma", fd32_v3fma, 0, 0},
    {"fd32_v4fma", fd32_v4fma, 0, 1}, {"dd16_def", dd16_def, 1, 0},
    {"dd16_avx2", dd16_avx2, 1, 0}, {"dd32_avx2", dd32_avx2, 1, 0}, {"dd16_512", dd16_512, 1, 1},
    {"dd32_512", dd32_512, 1, 1},
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    const int sets = 8;
    const int64_t cap = (int64_t)1 << 16;
    float *xf = malloc(sets * cap * sizeof *xf), *yf = malloc(sets * cap * sizeof *yf);
    double *xd = malloc(sets * cap * sizeof *xd), *yd = malloc(sets * cap * sizeof *yd);
    if (!xf || !yf || !xd || !yd)
        return 1;
    for (int64_t i = 0; i < sets * cap; i++) {
        xf[i] = rand() / (float)RAND_MAX - 0.5f;
        yf[i] = rand() / (float)RAND_MAX - 0.5f;
        xd[i] = xf[i];
        yd[i] = yf[i];
    }
    int has512 = __builtin_cpu_supports("avx512f");
    volatile double sink = 0;
    printf("scalars/ns (best of 200 rounds over %d sets)\n", sets);
    for (int e = 10; e <= 16; e += 2) {
        int64_t n = (int64_t)1 << e;
        printf("2^%d:", e);
        for (size_t i = 0; i < sizeof loops / sizeof *loops; i++) {
            if (loops[i].avx512 && !has512)
                continue;
            double best = 1e30;
            for (int r = 0; r < 200; r++) {
                double t0 = now_ns();
                for (int s = 0; s < sets; s++)
                    sink += loops[i].dbl ? loops[i].f(xd + s * cap, yd + s * cap, n)
                                         : loops[i].f(xf + s * cap, yf + s * cap, n);
                double t = (now_ns() - t0) / sets;
                best = t < best ? t : best;
            }
            /* the fused loops must give the unfused ones' bits */
            if (loops[i].f == fd32_v3fma || loops[i].f == fd32_v4fma) {
                double v = loops[i].f(xf, yf, n), ref = fd32_avx2(xf, yf, n);
                if (v != ref)
                    printf(" [%s: %.17g, unfused %.17g]", loops[i].name, v, ref);
            }
            printf(" %s %.2f", loops[i].name, n / best);
        }
        printf("\n");
    }
    free(xf), free(yf), free(xd), free(yd);
    return 0;
}
