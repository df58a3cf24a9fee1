/*
 * The results of the "exact" mode from exact sums, shared by the CPU engine (C) and the CUDA
 * kernels (GD_FN: host and device under nvcc), so that both compute the same bits.
 *
 * Every result needs only an exact sum's top 128 bits and whether any bit below them is set
 * (gd_top): rounding to 63 bits or fewer is decided there, and so is the sign of the sum
 * less any square of a 63-bit number near its square root (such a square has at most 126
 * bits, all of them on the window's grid).  An accumulator's digits (base 2^32 in int64,
 * gpudot_exact.h's limbs) reduce to it with gd_top_of_limbs.
 *
 * The square root: an estimate from the sum's leading 62 bits, then the candidate r moves
 * by an ulp until the sum lies between the squares of the midpoints around r, each compared
 * exactly.  A sum equal to a midpoint's square is a tie: to the even neighbour.  The cosine:
 * double-double arithmetic on the three sums' leading 62 bits, within one ulp.  Products
 * are rounded on their own (GD_MUL_d): nvcc would fuse a * b + c, and the engines differ.
 */
#ifndef GPUDOT_EXACT_TOP_H
#define GPUDOT_EXACT_TOP_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpudot.h"
#include "gpudot_exact.h"
#include "gpudot_math.h"

#ifdef __CUDACC__
#define GD_FN static __host__ __device__ __noinline__ __attribute__((unused))
#else
#define GD_FN static __attribute__((unused))
#endif

typedef unsigned __int128 gd_u128;

/* An exact sum: |sum| = w 2^(top - 127) + (sticky: something below), w's bit 127 set
 * unless the sum is zero; IEEE's cases aside (nan, pinf, ninf; negzero: an exact zero is
 * -0, every product having been -0) */
typedef struct {
    gd_u128 w;
    int top, neg, zero, sticky;
    int nan, pinf, ninf, negzero;
} gd_top;

GD_HD int gd_clz64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)v);
#else
    return __builtin_clzll(v);
#endif
}

GD_HD int gd_clz128(gd_u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);
    return hi ? gd_clz64(hi) : 64 + gd_clz64((uint64_t)v);
}

#ifdef __cplusplus
extern "C" {
#endif
/* An accumulator's sum as its top (cpu/gpudot_exact.c) */
void gd_exact_top(const gd_exact *a, gd_top *t);
#ifdef __cplusplus
}
#endif

/* Limb i as its base-2^32 digit, the carry (floor) added to limb i + 1; returns the carry */
GD_HD int64_t gd_carry_up(int64_t *limb, int i)
{
    int64_t c = limb[i] >> 32; /* (floor) */
    limb[i] -= c * ((int64_t)1 << 32);
    limb[i + 1] += c;
    return c;
}

/* The sum of limbs lo .. hi (base-2^32 digits in int64, the others 0; none where lo > hi)
 * into t's value fields, its digits normalised here in place (carries up, and where it is
 * negative, the magnitude's digits): the work spans the digits in use, and the few that
 * their carries reach */
GD_FN void gd_top_of_limbs(int64_t *limb, int lo, int hi, gd_top *t)
{
    t->neg = 0;
    t->w = 0;
    t->sticky = 0;
    t->top = 0;
    while (lo <= hi && limb[lo] == 0)
        lo++;
    while (hi >= lo && limb[hi] == 0)
        hi--;
    t->zero = lo > hi;
    if (t->zero)
        return;
    /* carries up from lo; past hi each carry is the next digit, so one of 0 (a sum >= 0) or
     * -1 (a negative one) ends them: k, the digit that holds the sign */
    int k = GD_EXACT_LIMBS - 1;
    for (int i = lo; i < GD_EXACT_LIMBS - 1; i++) {
        int64_t c = gd_carry_up(limb, i);
        if (i >= hi && (c == 0 || c == -1)) {
            k = i + 1;
            break;
        }
    }
    if (limb[k] < 0) { /* the magnitude: every digit negated, then carried again */
        t->neg = 1;
        for (int i = lo; i <= k; i++)
            limb[i] = -limb[i];
        for (int i = lo; i < k; i++)
            gd_carry_up(limb, i);
    }
    while (k > lo && limb[k] == 0)
        k--;
    for (int j = 0; j < 4; j++) /* the top four digits, */
        t->w = (t->w << 32) | (uint64_t)(k - j >= lo ? limb[k - j] : 0);
    int lz = gd_clz128(t->w); /* (< 32) */
    uint64_t next = k - 4 >= lo ? (uint64_t)limb[k - 4] : 0;
    t->w <<= lz; /* the fifth's top lz bits after them: 128 bits from the sum's top, */
    if (lz)
        t->w |= next >> (32 - lz);
    t->sticky = (next << (32 + lz)) != 0; /* the rest as a sticky bit */
    for (int i = k - 5; i >= lo; i--)
        t->sticky |= limb[i] != 0;
    t->top = 32 * (k - 3) + GD_EXACT_EMIN + 127 - lz;
}

/* The sum rounded once to p bits (to nearest, ties to even) with the exponent range of a
 * format whose smallest normal is 2^emin and largest finite below 2^emax: m 2^e, m < 2^p;
 * 0 where it is exactly zero, 2 where it rounds past the largest, else 1 */
GD_FN int gd_top_round(const gd_top *t, int p, int emin, int emax, uint64_t *m, int *e)
{
    if (t->zero)
        return 0;
    int keep = t->top >= emin ? p : p - (emin - t->top); /* bits down to the subnormals' */
    uint64_t q;
    int below; /* the rest against half an ulp: -1 below, 0 half, 1 above */
    if (keep <= 0) {
        q = 0;
        below = keep < 0 ? -1 : (t->w << 1 == 0 && !t->sticky ? 0 : 1);
    } else {
        int drop = 128 - keep;
        q = (uint64_t)(t->w >> drop);
        gd_u128 rest = t->w & (((gd_u128)1 << drop) - 1), half = (gd_u128)1 << (drop - 1);
        below = rest < half ? -1 : rest > half || t->sticky ? 1 : 0;
    }
    if (below > 0 || (below == 0 && (q & 1)))
        q++;
    int lsb = t->top - keep + 1; /* the exponent of q's unit */
    if (keep > 0 && q >> keep)   /* carried into a new bit */
        q >>= 1, lsb++;
    else if (keep <= 0)
        lsb = emin - p + 1;
    *m = q;
    *e = lsb;
    return lsb + (q ? 63 - gd_clz64(q) : 0) >= emax ? 2 : 1;
}

/* IEEE's cases: NaN, Inf */
GD_HD int gd_top_special(const gd_top *t, double *v)
{
    if (t->nan || (t->pinf && t->ninf))
        *v = NAN;
    else if (t->pinf)
        *v = INFINITY;
    else if (t->ninf)
        *v = -INFINITY;
    else
        return 0;
    return 1;
}

/* The sum rounded once into double, or (single) into single, returned as a double */
GD_FN double gd_top_value(const gd_top *t, int single)
{
    double v;
    if (gd_top_special(t, &v))
        return single ? (double)(float)v : v;
    uint64_t m;
    int e, r = single ? gd_top_round(t, 24, -126, 128, &m, &e)
                      : gd_top_round(t, 53, -1022, 1024, &m, &e);
    if (r == 0)
        return t->negzero ? -0.0 : 0.0;
    v = r == 2 ? INFINITY : ldexp((double)m, e); /* (m < 2^53 and e in range: exact) */
    return t->neg ? -v : v;
}

/* sign of the sum less (M 2^E)^2, M < 2^63, for a sum > 0: compared exactly (the square's
 * bits lie on the window's grid where their tops meet) */
GD_FN int gd_top_cmp_square(const gd_top *t, uint64_t M, int E)
{
    if (M == 0)
        return 1;
    gd_u128 sq = (gd_u128)M * M;
    int lz = gd_clz128(sq), T = 2 * E + 127 - lz;
    if (t->top != T)
        return t->top > T ? 1 : -1;
    sq <<= lz;
    return t->w > sq ? 1 : t->w < sq ? -1 : t->sticky;
}

/* the format's neighbours of r > 0 (single: r a float) */
GD_HD double gd_next_up(double r, int single)
{
    return single ? (double)nextafterf((float)r, (float)INFINITY) : nextafter(r, (double)INFINITY);
}
GD_HD double gd_next_down(double r, int single)
{
    return single ? (double)nextafterf((float)r, 0.0f) : nextafter(r, 0.0);
}

/* A sum known to lie within e of h + l (doubles, e >= 0): its value rounded once to
 * nearest, or (sq) its square root's, in double or (single) single, where every sum in that
 * interval rounds alike, so that the exact sum need not be formed; 0 where one might not
 * (a rounding boundary within reach; double roots always), and where the value is 0, tiny,
 * huge or near the format's ends: the exact sum decides those.  Margins of 2-4x cover the
 * roundings of the tests themselves. */
GD_HD int gd_round_near(double h, double l, double e, int single, int sq, double *v)
{
    double r, t;
    gd_two_sum_d(h, l, &r, &t); /* h + l = r + t, exactly */
    double ar = fabs(r), w = fabs(t) + e;
    if (!(ar >= 0x1p-900 && ar <= 0x1p900 && e <= 0x1p-60 * ar)) /* (NaN fails too) */
        return 0;
    if (sq) { /* sqrt (sum) within s (2^-53 + w / r) of s = sqrt (r), rounded */
        if (r < 0 || !single)
            return 0;
        double s = sqrt(r);
        w = s * (0x1p-51 + w / r);
        r = s;
    }
    if (single) { /* r within w of the value, far inside its float's midpoints */
        float f = (float)r;
        double fa = fabs((double)f);
        if (!(fa >= FLT_MIN && fa < FLT_MAX))
            return 0;
        double lo = 0.5 * ((double)f + (double)nextafterf(f, -(float)INFINITY));
        double hi = 0.5 * ((double)f + (double)nextafterf(f, (float)INFINITY));
        if (!(r - lo > 2 * w && hi - r > 2 * w))
            return 0;
        *v = (double)f;
        return 1;
    }
    /* double: r + t (t away from 0: ta) plus or minus e inside r's half gaps above and below
     * (a power of two's below is half the one above) */
    double ta = r < 0 ? -t : t;
    double above = 0.5 * (nextafter(ar, (double)INFINITY) - ar) - ta;
    double below = 0.5 * (ar - nextafter(ar, 0.0)) + ta;
    if (!(above > 0 && below > 0 && e <= 0.25 * above && e <= 0.25 * below))
        return 0;
    *v = r;
    return 1;
}

/* a double's bits and the double of bits, on both engines */
GD_HD uint64_t gd_bits_d(double v)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(v);
#else
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
#endif
}
GD_HD double gd_of_bits_d(uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)b);
#else
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
#endif
}

/* A sum known to lie within e of h + l (doubles, e >= 0) rounded to 62 bits: |sum| ~ m
 * 2^(top - 61), 2^61 <= m < 2^62 (gd_top_round's p = 62), where every sum in that interval
 * rounds so: a cosine reads no more (gd_top_dd).  0 where one might not (a midpoint of the
 * 62-bit grid within reach, ties included, or a sum below a power of two, where the grid
 * halves), and where the sum is 0, tiny or huge. */
GD_HD int gd_near_m62(double h, double l, double e, uint64_t *m, int *top, int *neg)
{
    double r, tt;
    gd_two_sum_d(h, l, &r, &tt); /* h + l = r + tt, exactly */
    double ar = fabs(r);
    if (!(ar >= 0x1p-900 && ar <= 0x1p900 && e <= 0x1p-60 * ar))
        return 0;
    uint64_t b = gd_bits_d(ar), M = (b & (((uint64_t)1 << 52) - 1)) | (uint64_t)1 << 52;
    int E = (int)(b >> 52) - 1023;                             /* |r| = M 2^(E - 52) */
    double iq = gd_of_bits_d((uint64_t)(1023 + 61 - E) << 52); /* 1 / the grid's 2^(E - 61) */
    double ta = r < 0 ? -tt : tt;                              /* (tt away from 0) */
    if (M == (uint64_t)1 << 52 && ta < 0)
        return 0;
    double u = ta * iq, k = rint(u), d = fabs(u - k), eq = e * iq; /* (|u| <= 2^8: exact) */
    if (!(d < 0.5 && eq <= 0.25 * (0.5 - d) && (eq > 0 || e == 0)))
        return 0;
    *m = (uint64_t)((int64_t)(M << 9) + (int64_t)k);
    *top = E;
    *neg = r < 0;
    return 1;
}

/* gd_near_m62's sum as the gd_top holding those bits alone */
GD_HD int gd_near62(double h, double l, double e, gd_top *t)
{
    uint64_t m;
    if (!gd_near_m62(h, l, e, &m, &t->top, &t->neg))
        return 0;
    t->w = (gd_u128)m << 66;
    t->zero = t->sticky = t->nan = t->pinf = t->ninf = t->negzero = 0;
    return 1;
}

/* The correctly rounded square root of a sum >= 0, in double or (single) single */
GD_FN double gd_top_sqrt(const gd_top *s, int single)
{
    if (s->nan || (s->pinf && s->ninf))
        return NAN;
    if (s->pinf)
        return INFINITY;
    if (s->zero)
        return 0.0;
    if (s->neg)
        return NAN;
    /* the estimate: sqrt of the leading 62 bits (within an ulp or two), clamped to the
     * finite range of the format */
    uint64_t m;
    int e;
    gd_top_round(s, 62, -100000, 100000, &m, &e);
    if (e & 1)
        m <<= 1, e--; /* (m < 2^63) */
    double r = ldexp(sqrt((double)m), e / 2);
    double top = single ? FLT_MAX : DBL_MAX, least = single ? 0x1p-149 : 0x1p-1074;
    if (single)
        r = (double)(float)r;
    r = r > top ? top : r < least ? least : r;
    for (int step = 0; step < 64; step++) {
        double up = gd_next_up(r, single), dn = gd_next_down(r, single);
        double ud = r - dn, uu = isinf(up) ? ud : up - r; /* ulps below and above: exact */
        int E = ilogb(ud) - 1;                            /* 2^E: half the ulp below */
        uint64_t R = (uint64_t)ldexp(r, -E), Mu = R + (uint64_t)ldexp(uu, -E - 1), Md = R - 1;
        int odd = (int)((uint64_t)ldexp(r, -ilogb(uu)) & 1);
        int su = gd_top_cmp_square(s, Mu, E);
        if (su > 0 || (su == 0 && odd)) { /* at or past the midpoint above */
            if (isinf(up))
                return INFINITY;
            r = up;
            continue;
        }
        int sd = gd_top_cmp_square(s, Md, E);
        if (sd < 0 || (sd == 0 && odd)) { /* below the midpoint beneath */
            r = dn;
            continue;
        }
        return r;
    }
    return r; /* (the estimate is within a few ulps: never reached) */
}

/* m of 62 bits (its sign: neg) as the double-double h + l */
GD_HD void gd_dd_of_m(uint64_t m, int neg, double *h, double *l)
{
    double hi = (double)m;
    double lo = (double)(int64_t)(m - (uint64_t)hi); /* (|m - hi| < 2^10: exact) */
    *h = neg ? -hi : hi;
    *l = neg ? -lo : lo;
}

/* a finite sum as (h + l) 2^e with 62 bits (0: zero) */
GD_HD int gd_top_dd(const gd_top *t, double *h, double *l, int *e)
{
    uint64_t m;
    if (!gd_top_round(t, 62, -100000, 100000, &m, e)) {
        *h = *l = 0;
        return 0;
    }
    gd_dd_of_m(m, t->neg, h, l);
    return 1;
}

GD_HD int gd_top_nonfinite(const gd_top *t)
{
    return t->nan || t->pinf || t->ninf;
}

/* A cosine xy / sqrt (xx yy) within one ulp (im: from xyi, where given), in double or
 * (single) single, before clamping */
/* A cosine's denominator sqrt (xx yy) as (sh + sl) 2^(ed / 2), from xx and yy as
 * double-doubles (h + l) 2^e of 62 bits: xx yy (exponent made even), then its root */
GD_HD void gd_cos_den(double xh, double xl, int ex, double yh, double yl, int ey, double *sh,
                      double *sl, int *ed)
{
    double dh = GD_MUL_d(xh, yh), dl = fma(xh, yh, -dh);
    dl += GD_MUL_d(xh, yl) + GD_MUL_d(xl, yh);
    *ed = ex + ey;
    if (*ed & 1)
        dh *= 2, dl *= 2, (*ed)--;
    *sh = sqrt(dh);
    *sl = (fma(-*sh, *sh, dh) + dl) / (2 * *sh);
}

/* A part of a cosine: its sum (ph + pl) 2^ep over gd_cos_den's, a quotient and its
 * correction, in double or (single) single */
GD_HD double gd_cos_quot(double ph, double pl, int ep, double sh, double sl, int ed, int single)
{
    double q1 = ph / sh;
    double rr = fma(-q1, sh, ph) + pl - GD_MUL_d(q1, sl);
    double v = ldexp(q1 + rr / sh, ep - ed / 2);
    return single ? (double)(float)v : v;
}

/* a cosine's parts clamped to the unit disc in the result's class (single: as floats) */
GD_HD void gd_cos_clamp(int single, int cplx, double *re, double *im)
{
    if (single) {
        float fr = (float)*re, fi = (float)*im;
        gd_clamp_unit_f(&fr, &fi, cplx);
        *re = fr, *im = fi;
    } else {
        gd_clamp_unit_d(re, im, cplx);
    }
}

GD_FN void gd_top_cos(const gd_top *xy, const gd_top *xyi, const gd_top *xx, const gd_top *yy,
                      int single, double *re, double *im)
{
    *re = *im = NAN;
    if (gd_top_nonfinite(xy) || (xyi && gd_top_nonfinite(xyi)) || gd_top_nonfinite(xx) ||
        gd_top_nonfinite(yy))
        return; /* Inf / Inf or NaN, as dot / (norm * norm) gives */
    double xh, xl, yh, yl, sh, sl;
    int ex, ey, ed;
    if (!gd_top_dd(xx, &xh, &xl, &ex) || !gd_top_dd(yy, &yh, &yl, &ey))
        return; /* a zero vector: 0 / 0 */
    gd_cos_den(xh, xl, ex, yh, yl, ey, &sh, &sl, &ed);
    for (int part = 0; part < (xyi ? 2 : 1); part++) {
        const gd_top *p = part ? xyi : xy;
        double ph, pl;
        int ep;
        *(part ? im : re) = gd_top_dd(p, &ph, &pl, &ep)
                                ? gd_cos_quot(ph, pl, ep, sh, sl, ed, single)
                                : gd_top_value(p, 0); /* +-0: its sign */
    }
    if (!xyi)
        *im = 0;
}

/* An output of the exact mode from its sums (a[0], a[1]: a dot product's real and
 * imaginary parts, a 1- or 2-norm's sum in a[0]; a cosine's xy, xyi, xx, yy), in the
 * result's class (single) as doubles; norms of other kinds (ext) are the caller's */
GD_FN void gd_top_finish(int op, int pk, int single, int cplx, const gd_top *a, double ext,
                         double *re, double *im)
{
    *re = *im = 0;
    if (op == GPUDOT_OP_DOT) {
        *re = gd_top_value(&a[0], single);
        if (cplx)
            *im = gd_top_value(&a[1], single);
    } else if (op == GPUDOT_OP_NORM) {
        *re = pk == GD_P_TWO   ? gd_top_sqrt(&a[0], single)
              : pk == GD_P_ONE ? gd_top_value(&a[0], single)
                               : ext;
    } else {
        gd_top_cos(&a[0], cplx ? &a[1] : 0, &a[2], &a[3], single, re, im);
        gd_cos_clamp(single, cplx, re, im);
    }
}

#endif
