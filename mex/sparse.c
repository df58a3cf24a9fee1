/*
 * gdot, gnorm and gcosine of sparse operands, from their nonzeros: each column's stored
 * entries are walked once (both operands' row lists merged where both are sparse), with
 * the engines' element math (gpudot_math.h), so memory stays O(nnz) and time O(nnz).
 * Sparse data is double; the modes are "double" (native is the same), "compensated" and
 * "exact".
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "gateway.h"
#include "gpudot_exact.h"
#include "gpudot_math.h"

/* One operand: sparse (jc, ir) or full, real or complex (interleaved). */
typedef struct {
    const mxArray *a;
    int sparse, cplx;
    const double *v;
    const mwIndex *jc, *ir;
    mwSize rows;
} sp_op;

static void sp_init(sp_op *o, const mxArray *a)
{
    o->a = a;
    o->sparse = mxIsSparse(a);
    o->cplx = mxIsComplex(a);
    o->v = (const double *)mxGetData(a);
    o->jc = o->sparse ? mxGetJc(a) : NULL;
    o->ir = o->sparse ? mxGetIr(a) : NULL;
    o->rows = mxGetM(a);
}

/* element (row i, column j) of a full operand */
static void full_at(const sp_op *o, mwSize i, mwSize j, double *re, double *im)
{
    size_t k = (size_t)j * o->rows + i;
    *re = o->cplx ? o->v[2 * k] : o->v[k];
    *im = o->cplx ? o->v[2 * k + 1] : 0;
}

static void stored_at(const sp_op *o, mwIndex k, double *re, double *im)
{
    *re = o->cplx ? o->v[2 * k] : o->v[k];
    *im = o->cplx ? o->v[2 * k + 1] : 0;
}

/* Row r of column j where `here` (the walk's next row is r), stepping past it; else 0. */
static void take(const sp_op *o, int here, mwIndex *k, mwSize r, mwSize j, double *re, double *im)
{
    *re = *im = 0;
    if (!here)
        return;
    if (o->sparse)
        stored_at(o, *k, re, im);
    else
        full_at(o, r, j, re, im);
    (*k)++;
}

/* The walk over the rows of column j stored in either operand, in order (a full operand
 * stores every row): each step gives the row's values, 0 in an operand that does not
 * store it, and which operands do. */
typedef struct {
    const sp_op *x, *y;
    mwSize j, rows;
    mwIndex kx, ex, ky, ey;
} walk_t;

static void walk_init(walk_t *w, const sp_op *x, const sp_op *y, mwSize j)
{
    w->x = x, w->y = y, w->j = j, w->rows = x->rows;
    w->kx = x->sparse ? x->jc[j] : 0, w->ex = x->sparse ? x->jc[j + 1] : x->rows;
    w->ky = y->sparse ? y->jc[j] : 0, w->ey = y->sparse ? y->jc[j + 1] : x->rows;
}

static int walk_next(walk_t *w, double *xr, double *xi, double *yr, double *yi, int *in_x,
                     int *in_y)
{
    if (w->kx >= w->ex && w->ky >= w->ey)
        return 0;
    const sp_op *x = w->x, *y = w->y;
    mwSize rx = w->kx < w->ex ? (x->sparse ? x->ir[w->kx] : w->kx) : w->rows;
    mwSize ry = w->ky < w->ey ? (y->sparse ? y->ir[w->ky] : w->ky) : w->rows;
    mwSize r = rx < ry ? rx : ry;
    *in_x = rx == r, *in_y = ry == r;
    take(x, *in_x, &w->kx, r, w->j, xr, xi);
    take(y, *in_y, &w->ky, r, w->j, yr, yi);
    return 1;
}

/* s += conj(x) y (real and imaginary sums, compensated where comp); a real operand has no
 * imaginary part to multiply (0 * NaN would make NaN where Octave's mixed product has none) */
static void dot_add(double *s, double *c, double xr, double xi, double yr, double yi, int cx,
                    int cy, int comp)
{
    gd_add_prod_d(&s[0], &c[0], xr, yr, comp);
    if (cx && cy)
        gd_add_prod_d(&s[0], &c[0], xi, yi, comp);
    if (cy)
        gd_add_prod_d(&s[1], &c[1], xr, yi, comp);
    if (cx)
        gd_add_prod_d(&s[1], &c[1], -xi, yr, comp);
}

/* Column j of the reduction: out[0..1] (real, imaginary); fast: a cosine's unscaled sums
 * (NaN where they cannot vouch for the result). */
static void column_fast(gpudot_op op, const sp_op *x, const sp_op *y, mwSize j, int pk, double p,
                        int comp, int fast, double *out)
{
    mwSize rows = x->rows;
    double xr, xi, yr, yi;
    if (op == GPUDOT_OP_COS && fast == 0) {
        /* as the norms: unscaled sums first, scaled only where they overflowed */
        column_fast(op, x, y, j, pk, p, comp, 1, out);
        if (out[0] == out[0])
            return;
    }
    if (op == GPUDOT_OP_NORM && pk == GD_P_TWO) {
        /* the engines' two steps: the plain sum of squares, Blue's scaled sums only where
         * it cannot vouch for its result (NaN) */
        column_fast(op, x, y, j, GD_P_SSQ, p, comp, 0, out);
        if (out[0] == out[0])
            return;
    }
    if (op == GPUDOT_OP_NORM) {
        gd_norm_d a;
        gd_norm_init_d(&a, pk);
        mwIndex k0 = x->jc[j], k1 = x->jc[j + 1];
        if (pk == GD_P_SSQ && !x->cplx && !comp) { /* the common case, as a plain loop */
            double ss = 0;
            for (mwIndex k = k0; k < k1; k++)
                ss += x->v[k] * x->v[k];
            a.s = ss;
            k0 = k1;
        }
        for (mwIndex k = k0; k < k1; k++) {
            stored_at(x, k, &xr, &xi);
            gd_norm_add_elem_d(&a, xr, xi, x->cplx, pk, p, comp);
        }
        /* the zeros count where the smallest magnitude decides (-Inf, p < 0) */
        if ((mwSize)(k1 - k0) < rows && (pk == GD_P_NEGINF || pk == GD_P_NEG))
            gd_norm_add_elem_d(&a, 0, 0, x->cplx, pk, p, comp);
        out[0] = gd_norm_final_d(&a, pk, p, comp);
        out[1] = 0;
        return;
    }
    int cx = x->cplx, cy = y->cplx;
    double s[2] = {0, 0}, c[2] = {0, 0};
    gd_cos_d a;
    gd_cos_init_d(&a);
    int cos = op == GPUDOT_OP_COS;
    /* walk the rows stored in either operand in order (a full operand stores every row);
     * a dot product adds the rows where both are stored; where only one is, the product
     * is 0 unless that element is Inf or NaN (0 * Inf is NaN, as for full operands) */
    int nf_re = 0, nf_im = 0, in_x, in_y;
    walk_t w;
    walk_init(&w, x, y, j);
    while (walk_next(&w, &xr, &xi, &yr, &yi, &in_x, &in_y)) {
        if (cos)
            gd_cos_add_d(&a, xr, xi, yr, yi, cx, cy, comp, fast);
        else if (in_x && in_y)
            dot_add(s, c, xr, xi, yr, yi, cx, cy, comp);
        else { /* one side an implicit 0 (complex where that operand is): as dot_add */
            double vr = in_x ? xr : yr, vi = in_x ? xi : yi;
            int cv = in_x ? cx : cy, cz = in_x ? cy : cx;
            nf_re |= !isfinite(vr) || (cv && cz && !isfinite(vi));
            nf_im |= (cv && !isfinite(vi)) || (cz && !isfinite(vr));
        }
    }
    if (cos) {
        gd_cos_final_d(&a, comp, fast, &out[0], &out[1]);
        if (out[0] != out[0])
            return; /* (fast: rerun scaled) */
        gd_clamp_unit_d(&out[0], &out[1], cx || cy);
    } else {
        out[0] = nf_re ? NAN : gd_value_d(s[0], c[0], comp);
        out[1] = nf_im ? NAN : gd_value_d(s[1], c[1], comp);
    }
}

/* conj (x) y into exact sums re, im (as dot_add: no products with an absent imaginary part) */
static void exact_dot_add(gd_exact *a, double xr, double xi, double yr, double yi, int cx, int cy)
{
    gd_exact_add_prod(&a[0], xr, yr);
    if (cx && cy)
        gd_exact_add_prod(&a[0], xi, yi);
    if (cy)
        gd_exact_add_prod(&a[1], xr, yi);
    if (cx)
        gd_exact_add_prod(&a[1], -xi, yr);
}

/* Column j in "exact" mode (cpu/gpudot_cpu_exact.c's sums): the walk adds the products
 * with an implicit 0 too (0 Inf is NaN, -0 products keep their sign), and one +0 product
 * where some row is stored in neither operand, as the full array's sums would. */
static void column_exact(gpudot_op op, const sp_op *x, const sp_op *y, mwSize j, int pk, double p,
                         double *out)
{
    if (op == GPUDOT_OP_NORM && pk != GD_P_ONE && pk != GD_P_TWO &&
        !((pk == GD_P_INF || pk == GD_P_NEGINF) && x->cplx)) {
        column_fast(op, x, y, j, pk, p, 0, 0, out); /* Inf, -Inf, 0: exact in "double" */
        return;
    }
    gd_exact a[4];
    for (int i = 0; i < 4; i++)
        gd_exact_init(&a[i]);
    double xr, xi, yr, yi;
    out[1] = 0;
    if (op == GPUDOT_OP_NORM) {
        double ext = pk == GD_P_NEGINF ? INFINITY : 0;
        mwIndex k0 = x->jc[j], k1 = x->jc[j + 1];
        for (mwIndex k = k0; k < k1; k++) {
            stored_at(x, k, &xr, &xi);
            double m = x->cplx ? gd_exact_abs(xr, xi, 0) : fabs(xr);
            if (pk == GD_P_TWO) { /* (Inf + NaN i: NaN, as norm gives) */
                gd_exact_add_prod(&a[0], xr, xr);
                gd_exact_add_prod(&a[0], xi, xi);
            } else if (pk == GD_P_ONE) {
                gd_exact_add_prod(&a[0], m, 1.0);
            } else if (isnan(m) || isnan(ext)) {
                ext = NAN;
            } else if (pk == GD_P_NEGINF ? m < ext : m > ext) {
                ext = m;
            }
        }
        if ((mwSize)(k1 - k0) < x->rows && pk == GD_P_NEGINF && !isnan(ext))
            ext = 0;
        out[0] = pk == GD_P_TWO   ? gd_exact_sqrt(&a[0], 0)
                 : pk == GD_P_ONE ? gd_exact_round_d(&a[0])
                                  : ext;
        return;
    }
    int cx = x->cplx, cy = y->cplx, in_x, in_y;
    mwSize seen = 0;
    walk_t w;
    walk_init(&w, x, y, j);
    while (walk_next(&w, &xr, &xi, &yr, &yi, &in_x, &in_y)) {
        exact_dot_add(a, xr, xi, yr, yi, cx, cy);
        if (op == GPUDOT_OP_COS) { /* |x|^2 and |y|^2: the parts' squares */
            gd_exact_add_prod(&a[2], xr, xr);
            gd_exact_add_prod(&a[3], yr, yr);
            if (cx)
                gd_exact_add_prod(&a[2], xi, xi);
            if (cy)
                gd_exact_add_prod(&a[3], yi, yi);
        }
        seen++;
    }
    if (seen < x->rows) /* (a +0 product: the rows neither stores) */
        gd_exact_add_prod(&a[0], 0.0, 0.0);
    if (op == GPUDOT_OP_COS) {
        gd_exact_cos(&a[0], cx || cy ? &a[1] : NULL, &a[2], &a[3], 0, &out[0], &out[1]);
        gd_clamp_unit_d(&out[0], &out[1], cx || cy);
    } else {
        out[0] = gd_exact_round_d(&a[0]);
        out[1] = gd_exact_round_d(&a[1]);
    }
}

static void column(gpudot_op op, const sp_op *x, const sp_op *y, mwSize j, int pk, double p,
                   int comp, int exact, double *out)
{
    if (exact)
        column_exact(op, x, y, j, pk, p, out);
    else
        column_fast(op, x, y, j, pk, p, comp, 0, out);
}

static mxArray *call1(const char *fn, const mxArray *a)
{
    mxArray *out = NULL, *in = (mxArray *)a;
    mexCallMATLAB(1, &out, 1, &in, fn);
    return out;
}

/* Whether this call is one for the nonzeros' walk: a sparse operand, the other (if any) of
 * the same size or a vector of the same length (no DIM), numeric, no "kernel".  Else the
 * caller makes the operands full. */
int sparse_call(gpudot_op op, const call_t *c)
{
    int has_y = op != GPUDOT_OP_NORM;
    if (c->kernel >= 0 || !(mxIsSparse(c->x) || (has_y && mxIsSparse(c->y))))
        return 0;
    if (!mxIsNumeric(c->x) || (has_y && !mxIsNumeric(c->y)) || mxIsClass(c->x, "garray") ||
        (has_y && mxIsClass(c->y, "garray")) || mxIsEmpty(c->x) || (has_y && mxIsEmpty(c->y)))
        return 0;
    if (c->have_dim && c->dim > 2)
        return 0;
    if (!has_y)
        return 1;
    if (mxGetNumberOfDimensions(c->x) > 2 || mxGetNumberOfDimensions(c->y) > 2)
        return 0; /* N-D beside sparse: broadcast as full operands */
    if (mxIsSingle(c->x) || mxIsSingle(c->y))
        return 0; /* single beside sparse: full, rounded to single as any double operand */
    if (mxGetM(c->x) == mxGetM(c->y) && mxGetN(c->x) == mxGetN(c->y) &&
        mxGetNumberOfDimensions(c->y) == 2)
        return 1;
    return !c->have_dim && mxGetNumberOfDimensions(c->y) == 2 &&
           (mxGetM(c->x) == 1 || mxGetN(c->x) == 1) && (mxGetM(c->y) == 1 || mxGetN(c->y) == 1) &&
           mxGetNumberOfElements(c->x) == mxGetNumberOfElements(c->y);
}

void op_sparse(const char *fn, gpudot_op op, const call_t *c, mxArray *plhs[])
{
    int has_y = op != GPUDOT_OP_NORM;
    mxArray *tmp[6] = {0};
    int nt = 0;
    const mxArray *X = c->x, *Y = has_y ? c->y : NULL;
    /* double data (logical and integer operands, single full ones) */
    if (!mxIsDouble(X))
        X = tmp[nt++] = call1("double", X);
    if (Y && !mxIsDouble(Y))
        Y = tmp[nt++] = call1("double", Y);
    int pk = GD_P_TWO;
    double p = 2;
    int fro = 0;
    if (op == GPUDOT_OP_NORM && c->p && !mxIsEmpty(c->p)) {
        if (!parse_p(c->p, &pk, &p))
            gd_error("gpudot:badOption",
                     "%s: P must be a real scalar (not NaN), \"fro\", \"inf\" or \"-inf\"", fn);
        char *ps = get_string(c->p);
        fro = ps && !strcasecmp(ps, "fro") && !c->have_dim;
        if (ps)
            mxFree(ps);
    }
    if (c->accum == GPUDOT_ACC_EXACT && op == GPUDOT_OP_NORM && (pk == GD_P_POS || pk == GD_P_NEG))
        exact_bad_p(fn);
    int vec_rule = Y && !c->have_dim && (mxGetM(X) != mxGetM(Y) || mxGetN(X) != mxGetN(Y));
    int isvec = mxGetM(X) == 1 || mxGetN(X) == 1;
    /* the dimension reduced: DIM, else the first that is not 1 (vectors: their length) */
    int dim = c->have_dim ? (int)c->dim : mxGetM(X) != 1 ? 1 : 2;
    if (fro || vec_rule || (Y && !c->have_dim && isvec && (mxGetM(Y) == 1 || mxGetN(Y) == 1))) {
        X = tmp[nt++] = call1("vec", X); /* one column */
        if (Y)
            Y = tmp[nt++] = call1("vec", Y);
        dim = 1;
    } else if (dim == 2) {
        X = tmp[nt++] = call1("transpose", X); /* rows as columns */
        if (Y)
            Y = tmp[nt++] = call1("transpose", Y);
    }
    sp_op x, y;
    sp_init(&x, X);
    if (Y)
        sp_init(&y, Y);
    /* the walk goes over the sparse one's columns: a full X with a sparse Y swaps them
     * (conj (x) y = conj (conj (y) x): the dot's result conjugated after) */
    int swapped = 0;
    if (Y && !x.sparse) {
        sp_op t = x;
        x = y;
        y = t;
        swapped = 1;
    }
    mwSize cols = mxGetN(X);
    int cplx = has_y && (x.cplx || y.cplx);
    mwSize odims[2] = {1, cols};
    if (dim == 2 && !fro)
        odims[0] = cols, odims[1] = 1;
    void *out;
    plhs[0] = make_out(2, odims, mxDOUBLE_CLASS, cplx, &out);
    int comp = c->accum == GPUDOT_ACC_COMP, exact = c->accum == GPUDOT_ACC_EXACT;
    double *o = (double *)out;
    for (mwSize j = 0; j < cols; j++) {
        double v[2];
        column(op, &x, Y ? &y : NULL, j, pk, p, comp, exact, v);
        if (swapped && op != GPUDOT_OP_NORM)
            v[1] = -v[1];
        if (cplx) {
            o[2 * j] = v[0];
            o[2 * j + 1] = v[1];
        } else {
            o[j] = v[0];
        }
    }
    while (nt > 0)
        mxDestroyArray(tmp[--nt]);
}
