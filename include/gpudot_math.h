/*
 * Per-element math of gnorm and gcosine, shared by the CPU engine (C) and the CUDA kernels,
 * so that both engines compute the same function.  Plain C99 with GD_HD marking functions
 * for both host and device under nvcc.  Each function exists for a double accumulator
 * (suffix _d) and a float one (_f, the "native" mode of single inputs).
 *
 * Scaling.  Norms and cosines must not overflow or underflow where the true result is
 * representable, in one pass.  2-norms use Blue's fixed thresholds (below).  Cosines carry
 * a power-of-two scale exponent e (the largest exponent seen): elements enter scaled by
 * 2^-e, so every term is at most 1 and sums of up to 2^53 terms cannot overflow; when a
 * larger element arrives, the sums are rescaled by a power of two (exact unless terms fall
 * below the subnormal range, where they are negligible next to the new largest term), so
 * unscaled data gives exactly the unscaled sums.  General p scales by the extreme element
 * itself, m 2^e, since |x / 2^e|^p alone underflows for |p| past ~1075.
 */
#ifndef GPUDOT_MATH_H
#define GPUDOT_MATH_H

#include <math.h>

/* GD_SLOW: rare paths (rescaling, special values), kept out of line so that the unrolled
 * element loops stay small; they take and return the accumulator by value, so it stays in
 * registers. */
#ifdef __CUDACC__
#define GD_HD __host__ __device__ __forceinline__
#define GD_SLOW static __host__ __device__ __noinline__
#else
#define GD_HD static inline __attribute__((always_inline))
#define GD_SLOW static __attribute__((noinline, unused))
#endif

/* Norm kinds: the fast and exact cases get their own code. */
/* GD_P_SSQ and GD_P_SSQX are the engines' fast 2-norm (gpudot_fast_variant): a plain sum
 * of squares.  SSQX: single elements in a double accumulator, where squares are exact and
 * no sum of them can overflow or underflow, so the result is always right.  SSQ: elsewhere;
 * its final value is NaN where the sum left the range in which it is accurate, and the
 * engine then reruns the call with Blue's algorithm (GD_P_TWO). */
enum {
    GD_P_TWO = 0,
    GD_P_ONE,
    GD_P_INF,
    GD_P_NEGINF,
    GD_P_ZERO,
    GD_P_POS,
    GD_P_NEG,
    GD_P_SSQ,
    GD_P_SSQX,
    GD_NPK
};

/* Exponent sentinels for an accumulator that has seen no finite nonzero element. */
#define GD_E_NONE_MAX (-4000.0)
#define GD_E_NONE_MIN (4000.0)

/* Products rounded on their own, never fused into a following add: nvcc contracts a*b + c
 * into one fma, which breaks exact cancellation such as x.y = 0 for x = [a a], y = [a -a]
 * (and makes the engines differ). */
#ifdef __CUDA_ARCH__
#define GD_MUL_d(a, b) __dmul_rn(a, b)
#define GD_MUL_f(a, b) __fmul_rn(a, b)
#else
#define GD_MUL_d(a, b) ((a) * (b))
#define GD_MUL_f(a, b) ((a) * (b))
#endif

/* Error-free transformations (Knuth TwoSum; TwoProduct via fma). */
#define GD_DEFINE_EFT(SUF, A, FMA)                                                                 \
    GD_HD void gd_two_sum_##SUF(A a, A b, A *s, A *e)                                              \
    {                                                                                              \
        A t = a + b;                                                                               \
        A z = t - a;                                                                               \
        *e = (a - (t - z)) + (b - z);                                                              \
        *s = t;                                                                                    \
    }                                                                                              \
    /* (s, c) += a * b, compensated when comp, plain otherwise */                                  \
    GD_HD void gd_add_prod_##SUF(A *s, A *c, A a, A b, int comp)                                   \
    {                                                                                              \
        if (comp) {                                                                                \
            A p = a * b;                                                                           \
            A ep = FMA(a, b, -p);                                                                  \
            A q;                                                                                   \
            gd_two_sum_##SUF(*s, p, s, &q);                                                        \
            *c += q + ep;                                                                          \
        } else {                                                                                   \
            *s += GD_MUL_##SUF(a, b);                                                              \
        }                                                                                          \
    }                                                                                              \
    GD_HD void gd_add_##SUF(A *s, A *c, A v, int comp)                                             \
    {                                                                                              \
        if (comp) {                                                                                \
            A q;                                                                                   \
            gd_two_sum_##SUF(*s, v, s, &q);                                                        \
            *c += q;                                                                               \
        } else {                                                                                   \
            *s += v;                                                                               \
        }                                                                                          \
    }                                                                                              \
    GD_HD A gd_value_##SUF(A s, A c, int comp)                                                     \
    {                                                                                              \
        return (comp && isfinite(s)) ? s + c : s;                                                  \
    }

GD_DEFINE_EFT(d, double, fma)
GD_DEFINE_EFT(f, float, fmaf)

/* ---- gnorm ----
 * State: e (scale exponent), s and c (sum and its compensation).  P_ONE keeps the plain sum
 * (it cannot overflow unless the norm does), P_INF / P_NEGINF a running max / min in s,
 * P_ZERO a count.  NaN always propagates; Inf gives Inf (0 for p < 0, as |Inf|^p = 0).
 * p = 2 uses Blue's algorithm instead of the moving scale: three sums split by fixed
 * thresholds cost two compares per element and no state-dependent branch (the moving
 * scale ran at 70% of the read ceiling on an H100, Blue at the figures in the README). */
#define GD_DEFINE_NORM(SUF, A, FREXP, LDEXP, POW, HYPOT, SQRT, SMALL, SHIFT, BLUE_TSML, BLUE_TBIG, \
                       BLUE_SSML, BLUE_SBIG, SSQ_LO)                                               \
    typedef struct {                                                                               \
        A e, s, c;              /* scale exponent, sum, compensation (p = 2: Blue's middle) */     \
        A m;                    /* general p: the scale's mantissa, in [0.5, 1) */                 \
        A sml, csml, big, cbig; /* p = 2: Blue's small and big accumulators */                     \
    } gd_norm_##SUF;                                                                               \
    GD_HD void gd_norm_init_##SUF(gd_norm_##SUF *a, int pk)                                        \
    {                                                                                              \
        a->e = (A)(pk == GD_P_NEG ? GD_E_NONE_MIN : GD_E_NONE_MAX);                                \
        a->s = (A)(pk == GD_P_NEGINF ? INFINITY : 0);                                              \
        a->m = 1;                                                                                  \
        a->c = a->sml = a->csml = a->big = a->cbig = 0;                                            \
    }                                                                                              \
    /* general p: sums are multiplied by (old / new)^p when the scale moves from old = mo 2^eo     \
     * to new = mn 2^en (by 0 while the old scale is still a sentinel) */                          \
    GD_HD A gd_norm_factor_##SUF(A mo, A eo, A mn, A en, A p)                                      \
    {                                                                                              \
        if (eo == (A)GD_E_NONE_MAX || eo == (A)GD_E_NONE_MIN)                                      \
            return 0;                                                                              \
        return POW(LDEXP(mo, (int)(eo - en)) / mn, p);                                             \
    }                                                                                              \
    /* the scaled powers of general p.  The scale is the extreme element itself (the largest       \
     * for p > 0, the smallest for p < 0): its own term is exactly 1 and no term exceeds 1, for    \
     * any p.  (A power-of-two scale left the extreme term as small as 2^-|p|: 0 from |p| ~ 1075.) \
     */                                                                                            \
    GD_SLOW gd_norm_##SUF gd_norm_slow_##SUF(gd_norm_##SUF st, A v, int vs, int pk, A p, int comp) \
    {                                                                                              \
        gd_norm_##SUF *a = &st;                                                                    \
        int neg = pk == GD_P_NEG;                                                                  \
        if (v != v || v == 0 || v == (A)INFINITY) {                                                \
            if (v != v || (!neg && v != 0))                                                        \
                a->s += v; /* NaN; Inf for p > 0: sticky */                                        \
            else if (neg && v == 0)                                                                \
                a->s += (A)INFINITY; /* |0|^p = Inf for p < 0, and |Inf|^p = 0 adds nothing */     \
            return st;                                                                             \
        }                                                                                          \
        int ev;                                                                                    \
        A mv = FREXP(v, &ev);                                                                      \
        ev += vs;                                                                                  \
        int outer = neg ? ((A)ev < a->e || ((A)ev == a->e && mv < a->m))                           \
                        : ((A)ev > a->e || ((A)ev == a->e && mv > a->m));                          \
        if (outer) {                                                                               \
            A f = gd_norm_factor_##SUF(a->m, a->e, mv, (A)ev, p);                                  \
            if (isfinite(a->s)) { /* an Inf or NaN already seen stays */                           \
                a->s *= f;                                                                         \
                a->c *= f;                                                                         \
            }                                                                                      \
            a->e = (A)ev;                                                                          \
            a->m = mv;                                                                             \
        }                                                                                          \
        A t = LDEXP(v, vs - (int)a->e) / a->m;                                                     \
        gd_add_##SUF(&a->s, &a->c, POW(t, p), comp);                                               \
        return st;                                                                                 \
    }                                                                                              \
    /* adds |x| = v 2^vs (vs != 0 only for values computed at a shifted scale) */                  \
    GD_HD void gd_norm_add_s_##SUF(gd_norm_##SUF *a, A v, int vs, int pk, A p, int comp)           \
    {                                                                                              \
        if (pk == GD_P_SSQ || pk == GD_P_SSQX) { /* fast 2-norm: the plain sum */                  \
            if (vs != 0)                                                                           \
                v = LDEXP(v, vs);                                                                  \
            gd_add_prod_##SUF(&a->s, &a->c, v, v, comp);                                           \
            return;                                                                                \
        }                                                                                          \
        if (pk == GD_P_TWO) {                                                                      \
            /* Blue's algorithm: fixed thresholds, three sums, no state-dependent scale;           \
             * NaN fails both compares and lands in the middle sum */                              \
            if (vs != 0)                                                                           \
                v = LDEXP(v, vs);                                                                  \
            if (v > (A)BLUE_TBIG) {                                                                \
                A t = v * (A)BLUE_SBIG;                                                            \
                gd_add_prod_##SUF(&a->big, &a->cbig, t, t, comp);                                  \
            } else if (v < (A)BLUE_TSML) {                                                         \
                A t = v * (A)BLUE_SSML;                                                            \
                gd_add_prod_##SUF(&a->sml, &a->csml, t, t, comp);                                  \
            } else {                                                                               \
                gd_add_prod_##SUF(&a->s, &a->c, v, v, comp);                                       \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        if (vs != 0 && (pk == GD_P_ONE || pk == GD_P_INF || pk == GD_P_NEGINF))                    \
            v = LDEXP(v, vs);                                                                      \
        if (pk == GD_P_ONE) {                                                                      \
            gd_add_##SUF(&a->s, &a->c, v, comp);                                                   \
        } else if (pk == GD_P_INF) {                                                               \
            if (v > a->s || v != v)                                                                \
                a->s = (a->s != a->s) ? a->s : v;                                                  \
        } else if (pk == GD_P_NEGINF) {                                                            \
            if (v < a->s || v != v)                                                                \
                a->s = (a->s != a->s) ? a->s : v;                                                  \
        } else if (pk == GD_P_ZERO) {                                                              \
            a->s += (A)(v != 0);                                                                   \
        } else {                                                                                   \
            *a = gd_norm_slow_##SUF(*a, v, vs, pk, p, comp);                                       \
        }                                                                                          \
    }                                                                                              \
    GD_HD void gd_norm_add_##SUF(gd_norm_##SUF *a, A v, int pk, A p, int comp)                     \
    {                                                                                              \
        gd_norm_add_s_##SUF(a, v, 0, pk, p, comp);                                                 \
    }                                                                                              \
    GD_HD void gd_norm_merge_##SUF(gd_norm_##SUF *a, const gd_norm_##SUF *b, int pk, A p,          \
                                   int comp)                                                       \
    {                                                                                              \
        if (pk == GD_P_INF || pk == GD_P_NEGINF) {                                                 \
            gd_norm_add_##SUF(a, b->s, pk, p, comp);                                               \
            return;                                                                                \
        }                                                                                          \
        if (pk == GD_P_ONE || pk == GD_P_ZERO || pk == GD_P_TWO || pk == GD_P_SSQ ||               \
            pk == GD_P_SSQX) {                                                                     \
            gd_add_##SUF(&a->s, &a->c, b->s, comp);                                                \
            a->c += b->c;                                                                          \
            if (pk == GD_P_TWO) {                                                                  \
                gd_add_##SUF(&a->sml, &a->csml, b->sml, comp);                                     \
                a->csml += b->csml;                                                                \
                gd_add_##SUF(&a->big, &a->cbig, b->big, comp);                                     \
                a->cbig += b->cbig;                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        gd_norm_##SUF bb = *b;                                                                     \
        int neg = pk == GD_P_NEG;                                                                  \
        /* align both to the outer scale (the larger for p > 0, the smaller for p < 0) */          \
        int a_outer = neg ? (a->e < bb.e || (a->e == bb.e && a->m <= bb.m))                        \
                          : (a->e > bb.e || (a->e == bb.e && a->m >= bb.m));                       \
        gd_norm_##SUF *lo = a_outer ? &bb : a;                                                     \
        A e = a_outer ? a->e : bb.e, m = a_outer ? a->m : bb.m;                                    \
        if ((lo->e != e || lo->m != m) && isfinite(lo->s)) {                                       \
            A f = gd_norm_factor_##SUF(lo->m, lo->e, m, e, p);                                     \
            lo->s *= f;                                                                            \
            lo->c *= f;                                                                            \
        }                                                                                          \
        lo->e = e;                                                                                 \
        lo->m = m;                                                                                 \
        A q;                                                                                       \
        if (comp && isfinite(a->s) && isfinite(bb.s)) {                                            \
            gd_two_sum_##SUF(a->s, bb.s, &a->s, &q);                                               \
            a->c += bb.c + q;                                                                      \
        } else {                                                                                   \
            a->s += bb.s;                                                                          \
            a->c += bb.c;                                                                          \
        }                                                                                          \
        a->e = e;                                                                                  \
        a->m = m;                                                                                  \
    }                                                                                              \
    /* one element x = xr + i xi (xi = 0 when real) */                                             \
    GD_HD void gd_norm_add_elem_##SUF(gd_norm_##SUF *a, A xr, A xi, int cx, int pk, A p, int comp) \
    {                                                                                              \
        if (!cx) {                                                                                 \
            gd_norm_add_##SUF(a, fabs(xr), pk, p, comp);                                           \
        } else if (pk == GD_P_TWO || pk == GD_P_SSQ || pk == GD_P_SSQX) {                          \
            /* |z|^2 = re^2 + im^2: two terms, no hypot */                                         \
            gd_norm_add_##SUF(a, fabs(xr), pk, p, comp);                                           \
            gd_norm_add_##SUF(a, fabs(xi), pk, p, comp);                                           \
        } else if (pk == GD_P_ZERO) {                                                              \
            gd_norm_add_##SUF(a, (A)(xr != 0 || xi != 0), pk, p, comp);                            \
        } else if (fabs(xr) + fabs(xi) < SMALL) {                                                  \
            /* hypot would round on the subnormal grid: take it 2^SHIFT larger (exact) */          \
            A v = HYPOT(LDEXP(xr, SHIFT), LDEXP(xi, SHIFT));                                       \
            gd_norm_add_s_##SUF(a, v, -SHIFT, pk, p, comp);                                        \
        } else {                                                                                   \
            gd_norm_add_##SUF(a, HYPOT(xr, xi), pk, p, comp);                                      \
        }                                                                                          \
    }                                                                                              \
    GD_HD A gd_norm_final_##SUF(const gd_norm_##SUF *a, int pk, A p, int comp)                     \
    {                                                                                              \
        A s = gd_value_##SUF(a->s, a->c, comp);                                                    \
        if (pk == GD_P_ONE || pk == GD_P_INF || pk == GD_P_NEGINF || pk == GD_P_ZERO)              \
            return s;                                                                              \
        if (pk == GD_P_SSQX)                                                                       \
            return SQRT(s);                                                                        \
        if (pk == GD_P_SSQ) /* accurate only between SSQ_LO and overflow; NaN asks for a           \
                             * rerun with Blue's algorithm */                                      \
            return (s >= (A)SSQ_LO && s < (A)INFINITY) ? SQRT(s) : (A)NAN;                         \
        if (pk == GD_P_TWO) { /* LAPACK 3.10 dnrm2's combination of Blue's sums */                 \
            A amed = s, asml = gd_value_##SUF(a->sml, a->csml, comp);                              \
            A abig = gd_value_##SUF(a->big, a->cbig, comp);                                        \
            if (abig > 0 || abig != abig) {                                                        \
                if (amed > 0 || amed != amed)                                                      \
                    abig += (amed * (A)BLUE_SBIG) * (A)BLUE_SBIG;                                  \
                return SQRT(abig) / (A)BLUE_SBIG;                                                  \
            }                                                                                      \
            if (asml > 0) {                                                                        \
                if (amed > 0 || amed != amed) {                                                    \
                    A ym = SQRT(amed), ys = SQRT(asml) / (A)BLUE_SSML;                             \
                    A ymin = ys < ym ? ys : ym, ymax = ys < ym ? ym : ys;                          \
                    return ymax * SQRT(1 + (ymin / ymax) * (ymin / ymax));                         \
                }                                                                                  \
                return SQRT(asml) / (A)BLUE_SSML;                                                  \
            }                                                                                      \
            return SQRT(amed);                                                                     \
        }                                                                                          \
        if (pk == GD_P_NEG && a->s != a->s)                                                        \
            return a->s;                                                                           \
        int none = a->e == (A)(pk == GD_P_NEG ? GD_E_NONE_MIN : GD_E_NONE_MAX);                    \
        int e = none ? 0 : (int)a->e;                                                              \
        if (pk == GD_P_NEG && s == 0)                                                              \
            return (A)INFINITY; /* only Inf elements: (sum 0)^(1/p) */                             \
        return LDEXP(a->m * POW(s, 1 / p), e);                                                     \
    }

/* SMALL: below it |z| loses digits to the subnormal grid (2^(min exponent + digits)) */
/* Blue's constants as LAPACK 3.10's la_constants chooses them: squares of elements between
 * tsml and tbig neither underflow nor overflow, those outside are scaled by ssml / sbig. */
/* SSQ_LO: a plain sum of squares at least this large is accurate: squares that fell into
 * the subnormal range (each off by at most 2^-1075, or 2^-150 in float) add up, over any
 * n < 2^40, to under 2^-230 (2^-30) of it; and a finite sum had no overflow on the way
 * (all terms are positive). */
GD_DEFINE_NORM(d, double, frexp, ldexp, pow, hypot, sqrt, 0x1p-968, 128, 0x1p-511, 0x1p486, 0x1p537,
               0x1p-538, 0x1p-800)
GD_DEFINE_NORM(f, float, frexpf, ldexpf, powf, hypotf, sqrtf, 0x1p-101f, 64, 0x1p-63f, 0x1p52f,
               0x1p76f, 0x1p-76f, 0x1p-80f)

/* ---- gcosine ----
 * State: scale exponents ex, ey; sums xy (re, im), xx, yy and their compensations.
 * cos = xy / sqrt (xx yy): the scales cancel.  Any Inf or NaN element makes NaN, as
 * dot (x, y) / (norm (x) * norm (y)) does. */
#define GD_DEFINE_COS(SUF, A, FREXP, LDEXP, SQRT, MINE, SSQ_LO)                                    \
    typedef struct {                                                                               \
        A ex, ey, xr, xi, xx, yy, cxr, cxi, cxx, cyy;                                              \
        A fx, fy, limx, limy; /* cached 2^-e and 2^e, as for norms */                              \
    } gd_cos_##SUF;                                                                                \
    GD_HD void gd_cos_init_##SUF(gd_cos_##SUF *a)                                                  \
    {                                                                                              \
        a->ex = a->ey = (A)GD_E_NONE_MAX;                                                          \
        a->xr = a->xi = a->xx = a->yy = a->cxr = a->cxi = a->cxx = a->cyy = 0;                     \
        a->fx = a->fy = a->limx = a->limy = 0;                                                     \
    }                                                                                              \
    /* new scale exponent for an element of magnitude m; rescales the sums it enters */            \
    GD_HD void gd_cos_rescale_##SUF(gd_cos_##SUF *a, int which, int e_new)                         \
    {                                                                                              \
        A *e = which ? &a->ey : &a->ex;                                                            \
        A f1 = *e == (A)GD_E_NONE_MAX ? (A)0 : LDEXP((A)1, (int)(*e - e_new));                     \
        A f2 = f1 * f1;                                                                            \
        a->xr *= f1, a->xi *= f1, a->cxr *= f1, a->cxi *= f1;                                      \
        if (which)                                                                                 \
            a->yy *= f2, a->cyy *= f2;                                                             \
        else                                                                                       \
            a->xx *= f2, a->cxx *= f2;                                                             \
        *e = (A)e_new;                                                                             \
        A lim = LDEXP((A)1, e_new), f = e_new < MINE ? (A)0 : LDEXP((A)1, -e_new);                 \
        if (which)                                                                                 \
            a->limy = lim, a->fy = f;                                                              \
        else                                                                                       \
            a->limx = lim, a->fx = f;                                                              \
    }                                                                                              \
    /* the products of one scaled element pair */                                                  \
    GD_HD void gd_cos_products_##SUF(gd_cos_##SUF *a, A xr, A xi, A yr, A yi, int cx, int cy,      \
                                     int comp)                                                     \
    {                                                                                              \
        gd_add_prod_##SUF(&a->xr, &a->cxr, xr, yr, comp);                                          \
        gd_add_prod_##SUF(&a->xx, &a->cxx, xr, xr, comp);                                          \
        gd_add_prod_##SUF(&a->yy, &a->cyy, yr, yr, comp);                                          \
        if (cx) {                                                                                  \
            gd_add_prod_##SUF(&a->xx, &a->cxx, xi, xi, comp);                                      \
            gd_add_prod_##SUF(&a->xi, &a->cxi, -xi, yr, comp);                                     \
        }                                                                                          \
        if (cy) {                                                                                  \
            gd_add_prod_##SUF(&a->yy, &a->cyy, yi, yi, comp);                                      \
            gd_add_prod_##SUF(&a->xi, &a->cxi, xr, yi, comp);                                      \
        }                                                                                          \
        if (cx && cy)                                                                              \
            gd_add_prod_##SUF(&a->xr, &a->cxr, xi, yi, comp);                                      \
    }                                                                                              \
    /* an element pair that moves a scale, or holds Inf or NaN */                                  \
    GD_SLOW gd_cos_##SUF gd_cos_slow_##SUF(gd_cos_##SUF st, A xr, A xi, A yr, A yi, int cx,        \
                                           int cy, int comp)                                       \
    {                                                                                              \
        gd_cos_##SUF *a = &st;                                                                     \
        A mx = fabs(xr) > fabs(xi) ? fabs(xr) : fabs(xi);                                          \
        A my = fabs(yr) > fabs(yi) ? fabs(yr) : fabs(yi);                                          \
        if (!(mx < (A)INFINITY) || !(my < (A)INFINITY) || xi != xi || yi != yi) {                  \
            a->xx = (A)NAN;                                                                        \
            return st;                                                                             \
        }                                                                                          \
        int ev;                                                                                    \
        if (mx > 0) {                                                                              \
            FREXP(mx, &ev);                                                                        \
            if ((A)ev > a->ex)                                                                     \
                gd_cos_rescale_##SUF(a, 0, ev);                                                    \
        }                                                                                          \
        if (my > 0) {                                                                              \
            FREXP(my, &ev);                                                                        \
            if ((A)ev > a->ey)                                                                     \
                gd_cos_rescale_##SUF(a, 1, ev);                                                    \
        }                                                                                          \
        int sx = a->ex == (A)GD_E_NONE_MAX ? 0 : -(int)a->ex;                                      \
        int sy = a->ey == (A)GD_E_NONE_MAX ? 0 : -(int)a->ey;                                      \
        gd_cos_products_##SUF(a, LDEXP(xr, sx), LDEXP(xi, sx), LDEXP(yr, sy), LDEXP(yi, sy), cx,   \
                              cy, comp);                                                           \
        return st;                                                                                 \
    }                                                                                              \
    /* fast (gpudot_fast_variant): the products unscaled, checked at the end */                    \
    GD_HD void gd_cos_add_##SUF(gd_cos_##SUF *a, A xr, A xi, A yr, A yi, int cx, int cy, int comp, \
                                int fast)                                                          \
    {                                                                                              \
        if (fast) {                                                                                \
            gd_cos_products_##SUF(a, xr, xi, yr, yi, cx, cy, comp);                                \
            return;                                                                                \
        }                                                                                          \
        A mx = fabs(xr) > fabs(xi) ? fabs(xr) : fabs(xi);                                          \
        A my = fabs(yr) > fabs(yi) ? fabs(yr) : fabs(yi);                                          \
        if (mx < a->limx && my < a->limy && a->fx != 0 && a->fy != 0 && xi == xi &&                \
            yi == yi) /* common case: both scales hold; the multiplies are exact */                \
            gd_cos_products_##SUF(a, xr * a->fx, xi * a->fx, yr * a->fy, yi * a->fy, cx, cy,       \
                                  comp);                                                           \
        else                                                                                       \
            *a = gd_cos_slow_##SUF(*a, xr, xi, yr, yi, cx, cy, comp);                              \
    }                                                                                              \
    /* fast: both states hold unscaled sums (no scale is ever set), so none is aligned;            \
     * a compile-time fast keeps the rescaling out of the GPU's merge trees (code that             \
     * never ran, yet made each tree longer to fetch: see last_warp in                             \
     * cuda/reduce_kernels.cuh) */                                                                 \
    GD_HD void gd_cos_merge_##SUF(gd_cos_##SUF *a, const gd_cos_##SUF *b0, int comp, int fast)     \
    {                                                                                              \
        gd_cos_##SUF b = *b0;                                                                      \
        if (!fast) {                                                                               \
            if (b.ex > a->ex)                                                                      \
                gd_cos_rescale_##SUF(a, 0, (int)b.ex);                                             \
            else if (a->ex > b.ex)                                                                 \
                gd_cos_rescale_##SUF(&b, 0, (int)a->ex);                                           \
            if (b.ey > a->ey)                                                                      \
                gd_cos_rescale_##SUF(a, 1, (int)b.ey);                                             \
            else if (a->ey > b.ey)                                                                 \
                gd_cos_rescale_##SUF(&b, 1, (int)a->ey);                                           \
        }                                                                                          \
        A q;                                                                                       \
        if (comp) {                                                                                \
            gd_two_sum_##SUF(a->xr, b.xr, &a->xr, &q), a->cxr += b.cxr + q;                        \
            gd_two_sum_##SUF(a->xi, b.xi, &a->xi, &q), a->cxi += b.cxi + q;                        \
            gd_two_sum_##SUF(a->xx, b.xx, &a->xx, &q), a->cxx += b.cxx + q;                        \
            gd_two_sum_##SUF(a->yy, b.yy, &a->yy, &q), a->cyy += b.cyy + q;                        \
        } else {                                                                                   \
            a->xr += b.xr, a->xi += b.xi, a->xx += b.xx, a->yy += b.yy;                            \
        }                                                                                          \
    }                                                                                              \
    /* real and imaginary parts, before clamping (gd_clamp_unit_* in the output type) */           \
    GD_HD void gd_cos_final_##SUF(const gd_cos_##SUF *a, int comp, int fast, A *re, A *im)         \
    {                                                                                              \
        A xx = gd_value_##SUF(a->xx, a->cxx, comp), yy = gd_value_##SUF(a->yy, a->cyy, comp);      \
        if (fast == 1 &&                                                                           \
            !(xx >= (A)SSQ_LO && xx < (A)INFINITY && yy >= (A)SSQ_LO && yy < (A)INFINITY)) {       \
            *re = *im = (A)NAN; /* unscaled sums out of their range: rerun scaled */               \
            return;                                                                                \
        }                                                                                          \
        A den = SQRT(xx) * SQRT(yy);                                                               \
        *re = gd_value_##SUF(a->xr, a->cxr, comp) / den;                                           \
        *im = gd_value_##SUF(a->xi, a->cxi, comp) / den;                                           \
        if (xx != xx)                                                                              \
            *re = *im = xx;                                                                        \
    }

/* fast == 1: unscaled sums are accurate when xx and yy lie in [SSQ_LO, overflow) (as for
 * norms; |xy| <= sqrt (xx yy) on every partial sum, so it cannot overflow either);
 * fast == 2: single elements in double, always accurate. */
GD_DEFINE_COS(d, double, frexp, ldexp, sqrt, -1023, 0x1p-800)
GD_DEFINE_COS(f, float, frexpf, ldexpf, sqrtf, -127, 0x1p-80f)

/* Clamps a cosine in the type it is returned in: real parts to [-1, 1]; complex values to
 * |z| <= 1 exactly (not as some hypot rounds it), so that any faithful abs () gives at most
 * 1: divide by the modulus, then step both parts towards 0 by an ulp while re^2 + im^2
 * exceeds 1 (decided exactly: in double for float; with fma error terms for double).
 * NaN compares false everywhere and stays NaN. */
GD_HD int gd_over_one_f(float r, float i)
{
    return (double)r * r + (double)i * i > 1.0; /* exact squares; sum error < 2^-53 */
}

GD_HD int gd_over_one_d(double r, double i)
{
    double p1 = r * r, e1 = fma(r, r, -p1), p2 = i * i, e2 = fma(i, i, -p2);
    double hi, lo;
    gd_two_sum_d(p1, p2, &hi, &lo);
    lo += e1 + e2;
    return hi > 1.0 || (hi == 1.0 && lo > 0);
}

#define GD_DEFINE_CLAMP(SUF, A, SQRT, NEXTAFTER)                                                   \
    GD_HD void gd_clamp_unit_##SUF(A *re, A *im, int cplx)                                         \
    {                                                                                              \
        if (!cplx || *im == 0) {                                                                   \
            if (*re > 1)                                                                           \
                *re = 1;                                                                           \
            else if (*re < -1)                                                                     \
                *re = -1;                                                                          \
            return;                                                                                \
        }                                                                                          \
        if (!gd_over_one_##SUF(*re, *im))                                                          \
            return;                                                                                \
        A m = SQRT(GD_MUL_##SUF(*re, *re) + GD_MUL_##SUF(*im, *im));                               \
        *re /= m, *im /= m;                                                                        \
        for (int k = 0; k < 8 && gd_over_one_##SUF(*re, *im); k++)                                 \
            *re = NEXTAFTER(*re, (A)0), *im = NEXTAFTER(*im, (A)0);                                \
    }

GD_DEFINE_CLAMP(d, double, sqrt, nextafter)
GD_DEFINE_CLAMP(f, float, sqrtf, nextafterf)

#endif
