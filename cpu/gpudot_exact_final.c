/*
 * Results of the "exact" mode from exact sums (gpudot_exact.h): the correctly rounded square
 * root (2-norms), the correctly rounded magnitude of a complex element (1- and Inf-norms of
 * complex data), and the cosine within one ulp.
 *
 * The square root: an estimate from the sum's leading 62 bits, then the candidate r moves
 * by an ulp until the sum lies between the squares of the midpoints around r, each compared
 * exactly (the midpoint's square subtracted in the accumulator, its sign read).  A sum equal
 * to a midpoint's square is a tie: to the even neighbour.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "gpudot_exact.h"

/* the format's neighbours of r > 0 (single: r a float) */
static double next_up(double r, int single)
{
    return single ? (double)nextafterf((float)r, INFINITY) : nextafter(r, INFINITY);
}
static double next_down(double r, int single)
{
    return single ? (double)nextafterf((float)r, 0.0f) : nextafter(r, 0.0);
}

/* sign of s - (M 2^E)^2 */
static int cmp_mid(const gd_exact *s, uint64_t M, int E)
{
    gd_exact t = *s;
    gd_exact_sub_square(&t, M, E);
    return gd_exact_sign(&t);
}

/* The estimate: sqrt of the leading 62 bits (within an ulp or two), clamped to the finite
 * range of the format */
static double sqrt_estimate(const gd_exact *s, int single)
{
    int neg, e;
    uint64_t m;
    gd_exact_bits(s, 62, &neg, &m, &e);
    if (e & 1)
        m <<= 1, e--; /* (m < 2^63) */
    double r = ldexp(sqrt((double)m), e / 2);
    double top = single ? FLT_MAX : DBL_MAX, least = single ? 0x1p-149 : 0x1p-1074;
    if (single)
        r = (double)(float)r;
    return r > top ? top : r < least ? least : r;
}

double gd_exact_sqrt(const gd_exact *s, int single)
{
    if (s->nan || (s->pinf && s->ninf))
        return NAN;
    if (s->pinf)
        return INFINITY;
    int sg = gd_exact_sign(s);
    if (sg <= 0)
        return sg == 0 ? 0.0 : NAN;
    double r = sqrt_estimate(s, single);
    for (int step = 0; step < 64; step++) {
        double up = next_up(r, single), dn = next_down(r, single);
        double ud = r - dn, uu = isinf(up) ? ud : up - r; /* ulps below and above: exact */
        int E = ilogb(ud) - 1;                            /* 2^E: half the ulp below */
        uint64_t R = (uint64_t)ldexp(r, -E), Mu = R + (uint64_t)ldexp(uu, -E - 1), Md = R - 1;
        int odd = (int)((uint64_t)ldexp(r, -ilogb(uu)) & 1);
        int su = cmp_mid(s, Mu, E);
        if (su > 0 || (su == 0 && odd)) { /* at or past the midpoint above */
            if (isinf(up))
                return INFINITY;
            r = up;
            continue;
        }
        int sd = cmp_mid(s, Md, E);
        if (sd < 0 || (sd == 0 && odd)) { /* below the midpoint beneath */
            r = dn;
            continue;
        }
        return r;
    }
    return r; /* (the estimate is within a few ulps: never reached) */
}

double gd_exact_abs(double re, double im, int single)
{
    if (isinf(re) || isinf(im))
        return INFINITY; /* (hypot's rule: Inf beats NaN) */
    if (isnan(re) || isnan(im))
        return NAN;
    if (im == 0 || re == 0) /* (exact: no rounding) */
        return fabs(re == 0 ? im : re);
    gd_exact s;
    gd_exact_init(&s);
    gd_exact_add_prod(&s, re, re);
    gd_exact_add_prod(&s, im, im);
    return gd_exact_sqrt(&s, single);
}

/* double-double helpers: (h, l) with |l| <= ulp (h) / 2 */
static void two_prod(double a, double b, double *h, double *l)
{
    *h = a * b;
    *l = fma(a, b, -*h);
}

/* a finite exact sum as (h + l) 2^e with 62 bits (0: zero) */
static int dd_of(const gd_exact *a, double *h, double *l, int *e)
{
    int neg;
    uint64_t m;
    if (!gd_exact_bits(a, 62, &neg, &m, e)) {
        *h = *l = 0;
        return 0;
    }
    double hi = (double)m;
    double lo = (double)(int64_t)(m - (uint64_t)hi); /* (|m - hi| < 2^10: exact) */
    *h = neg ? -hi : hi;
    *l = neg ? -lo : lo;
    return 1;
}

static int special(const gd_exact *a)
{
    return a->nan || a->pinf || a->ninf;
}

void gd_exact_cos(const gd_exact *xy, const gd_exact *xyi, const gd_exact *xx, const gd_exact *yy,
                  int single, double *re, double *im)
{
    *re = *im = NAN;
    if (special(xy) || (xyi && special(xyi)) || special(xx) || special(yy))
        return; /* Inf / Inf or NaN, as dot / (norm * norm) gives */
    double xh, xl, yh, yl;
    int ex, ey;
    if (!dd_of(xx, &xh, &xl, &ex) || !dd_of(yy, &yh, &yl, &ey))
        return; /* a zero vector: 0 / 0 */
    /* d = xx yy (double-double, exponent ex + ey made even), then its square root */
    double dh, dl;
    two_prod(xh, yh, &dh, &dl);
    dl += xh * yl + xl * yh;
    int ed = ex + ey;
    if (ed & 1)
        dh *= 2, dl *= 2, ed--;
    double sh = sqrt(dh), sl = (fma(-sh, sh, dh) + dl) / (2 * sh);
    for (int part = 0; part < (xyi ? 2 : 1); part++) {
        double ph, pl;
        int ep;
        if (!dd_of(part ? xyi : xy, &ph, &pl, &ep)) {
            double z = gd_exact_round_d(part ? xyi : xy); /* +-0: its sign */
            *(part ? im : re) = z;
            continue;
        }
        /* (ph + pl) / (sh + sl): a quotient and its correction */
        double q1 = ph / sh;
        double rr = fma(-q1, sh, ph) + pl - q1 * sl;
        double q = q1 + rr / sh;
        double v = ldexp(q, ep - ed / 2);
        *(part ? im : re) = single ? (double)(float)v : v;
    }
    if (!xyi)
        *im = 0;
}
