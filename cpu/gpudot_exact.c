/*
 * Exact sums of products (the coming "exact" mode's CPU core): a fixed-point accumulator
 * wide enough for every product of two doubles and 2^63 of them (2^-2148 .. 2^2111),
 * in base-2^32 digits held in int64 limbs (carry-save: a digit is normalised every
 * GD_EXACT_RENORM additions), and one correct rounding (to nearest, ties to even) into
 * double or single at the end, subnormals and overflow included.  The value does not
 * depend on the order of the additions, so neither does the result.
 */
#include "gpudot_exact.h"

#include <math.h>
#include <string.h>

#define EMIN (-32 * 71) /* limb 0's lowest bit: 2^-2272, below every product's m 2^e */

void gd_exact_init(gd_exact *a)
{
    memset(a, 0, sizeof *a);
}

/* v * 2^e (v < 2^106, e >= -2148), with its sign, into the limbs */
static void add_scaled(gd_exact *a, unsigned __int128 v, int e, int neg)
{
    int off = e - EMIN, i = off / 32, s = off % 32;
    unsigned __int128 lo = v << s;
    uint64_t hi = s ? (uint64_t)(v >> (128 - s)) : 0;
    uint64_t d[5] = {(uint64_t)lo & 0xffffffffu, (uint64_t)(lo >> 32) & 0xffffffffu,
                     (uint64_t)(lo >> 64) & 0xffffffffu, (uint64_t)(lo >> 96), hi};
    for (int j = 0; j < 5; j++)
        a->limb[i + j] += neg ? -(int64_t)d[j] : (int64_t)d[j];
    if (++a->pending >= GD_EXACT_RENORM)
        gd_exact_normalise(a);
}

/* x as m * 2^e, m < 2^53 a whole number (x finite and nonzero) */
static uint64_t split(double x, int *e)
{
    int ex;
    double f = frexp(fabs(x), &ex); /* |x| = f 2^ex, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);
    *e = ex - 53;
    /* a subnormal's m has low zero bits; any m < 2^53 times 2^e is exact */
    return m;
}

void gd_exact_add_prod(gd_exact *a, double x, double y)
{
    a->count++;
    if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
        a->nan = 1;
        return;
    }
    int neg = signbit(x) != signbit(y);
    if (isinf(x) || isinf(y)) {
        if (neg)
            a->ninf = 1;
        else
            a->pinf = 1;
        return;
    }
    if (x == 0 || y == 0) {
        if (!neg)
            a->not_negzero = 1;
        return;
    }
    a->not_negzero = 1;
    int ex, ey;
    uint64_t mx = split(x, &ex), my = split(y, &ey);
    add_scaled(a, (unsigned __int128)mx * my, ex + ey, neg);
}

void gd_exact_merge(gd_exact *a, const gd_exact *b)
{
    for (int i = 0; i < GD_EXACT_LIMBS; i++)
        a->limb[i] += b->limb[i];
    a->count += b->count;
    a->nan |= b->nan;
    a->pinf |= b->pinf;
    a->ninf |= b->ninf;
    a->not_negzero |= b->not_negzero;
    a->pending += b->pending + 1;
    if (a->pending >= GD_EXACT_RENORM)
        gd_exact_normalise(a);
}

void gd_exact_normalise(gd_exact *a)
{
    for (int i = 0; i < GD_EXACT_LIMBS - 1; i++) {
        int64_t c = a->limb[i] >> 32; /* (floor) */
        a->limb[i] -= c * ((int64_t)1 << 32);
        a->limb[i + 1] += c;
    }
    a->pending = 0;
}

/* The accumulator's value rounded once to p bits with the exponent range of a format
 * whose smallest normal is 2^emin and largest finite below 2^emax: its sign in *neg,
 * the result m 2^e (m < 2^p) in *m and *e, or *inf where it rounds past the largest. */
static int round_to(const gd_exact *a0, int p, int emin, int emax, int *neg, uint64_t *m, int *e)
{
    gd_exact a = *a0;
    gd_exact_normalise(&a);
    *neg = a.limb[GD_EXACT_LIMBS - 1] < 0;
    if (*neg) { /* the magnitude: negate every digit, then normalise again */
        for (int i = 0; i < GD_EXACT_LIMBS; i++)
            a.limb[i] = -a.limb[i];
        gd_exact_normalise(&a);
    }
    int t = GD_EXACT_LIMBS - 1;
    while (t >= 0 && a.limb[t] == 0)
        t--;
    if (t < 0)
        return 0; /* an exact zero */
    /* a 128-bit window of the top digits, the rest as a sticky bit */
    unsigned __int128 w = 0;
    int sticky = 0;
    for (int j = 0; j < 4; j++) {
        int i = t - j;
        w = (w << 32) | (uint64_t)(i >= 0 ? a.limb[i] : 0);
    }
    for (int i = t - 4; i >= 0; i--)
        sticky |= a.limb[i] != 0;
    int lz = 0;
    while (!((w >> (127 - lz)) & 1))
        lz++;
    w <<= lz;
    int top = 32 * (t - 3) + EMIN + 127 - lz;      /* the exponent of w's bit 127 */
    int keep = top >= emin ? p : p - (emin - top); /* bits down to the subnormals' */
    uint64_t q;
    int below; /* the rest against half an ulp: -1 below, 0 half, 1 above */
    if (keep <= 0) {
        q = 0;
        below = keep < 0 ? -1 : (w << 1 == 0 && !sticky ? 0 : 1);
    } else {
        int drop = 128 - keep;
        q = (uint64_t)(w >> drop);
        unsigned __int128 rest = w & (((unsigned __int128)1 << drop) - 1),
                          half = (unsigned __int128)1 << (drop - 1);
        below = rest < half ? -1 : rest > half || sticky ? 1 : 0;
    }
    if (below > 0 || (below == 0 && (q & 1)))
        q++;
    int lsb = top - keep + 1;  /* the exponent of q's unit */
    if (keep > 0 && q >> keep) /* carried into a new bit */
        q >>= 1, lsb++;
    else if (keep <= 0)
        lsb = emin - p + 1;
    *m = q;
    *e = lsb;
    return lsb + (q ? 63 - __builtin_clzll(q) : 0) >= emax ? 2 : 1;
}

/* IEEE's cases first: NaN, Inf, the sign of an exact zero */
static int special(const gd_exact *a, double *v)
{
    if (a->nan || (a->pinf && a->ninf))
        *v = NAN;
    else if (a->pinf)
        *v = INFINITY;
    else if (a->ninf)
        *v = -INFINITY;
    else
        return 0;
    return 1;
}

double gd_exact_round_d(const gd_exact *a)
{
    double v;
    if (special(a, &v))
        return v;
    int neg, e;
    uint64_t m;
    int r = round_to(a, 53, -1022, 1024, &neg, &m, &e);
    if (r == 0)
        return a->count && !a->not_negzero ? -0.0 : 0.0;
    v = r == 2 ? INFINITY : ldexp((double)m, e);
    return neg ? -v : v;
}

float gd_exact_round_f(const gd_exact *a)
{
    double v;
    if (special(a, &v))
        return (float)v;
    int neg, e;
    uint64_t m;
    int r = round_to(a, 24, -126, 128, &neg, &m, &e);
    if (r == 0)
        return a->count && !a->not_negzero ? -0.0f : 0.0f;
    float f = r == 2 ? INFINITY : ldexpf((float)m, e);
    return neg ? -f : f;
}
