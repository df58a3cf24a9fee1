/*
 * Results of the "exact" mode from exact sums (gpudot_exact.h): the correctly rounded square
 * root (2-norms), the correctly rounded magnitude of a complex element (1- and Inf-norms of
 * complex data), and the cosine within one ulp, each from the sums' tops by the code the
 * CUDA kernels run too (gpudot_exact_top.h).
 */
#include <math.h>

#include "gpudot_exact_top.h"

double gd_exact_sqrt(const gd_exact *s, int single)
{
    gd_top t;
    gd_exact_top(s, &t);
    return gd_top_sqrt(&t, single);
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

void gd_exact_cos(const gd_exact *xy, const gd_exact *xyi, const gd_exact *xx, const gd_exact *yy,
                  int single, double *re, double *im)
{
    gd_top t[4];
    gd_exact_top(xy, &t[0]);
    if (xyi)
        gd_exact_top(xyi, &t[1]);
    gd_exact_top(xx, &t[2]);
    gd_exact_top(yy, &t[3]);
    gd_top_cos(&t[0], xyi ? &t[1] : NULL, &t[2], &t[3], single, re, im);
}

void gd_exact_finish(const gd_exact *a, int op, int pk, int single, int cplx, double ext,
                     double *re, double *im)
{
    gd_top t[4];
    int n = op == GPUDOT_OP_COS                ? 4
            : op == GPUDOT_OP_DOT              ? (cplx ? 2 : 1)
            : pk == GD_P_TWO || pk == GD_P_ONE ? 1
                                               : 0; /* (other norms: ext) */
    for (int i = 0; i < n; i++)
        if (i != 1 || cplx)
            gd_exact_top(&a[i], &t[i]);
    gd_top_finish(op, pk, single, cplx, t, ext, re, im);
}
