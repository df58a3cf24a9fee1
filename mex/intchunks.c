/*
 * Integer operands, converted to the call's float type a piece at a time into buffers of
 * kIntPiece elements, never whole: reductions along columns (nb == 1) run on groups of
 * whole outputs (the same runs, so the same results as one call); a run longer than a
 * piece is reduced piece by piece and the pieces' results combined: dot products by
 * compensated addition, p-norms as the p-norm of the pieces' norms (the same norm:
 * sum |x|^p splits over pieces), cosines from their dot product and two norms.
 */
#include <math.h>
#include <string.h>

#include "gateway.h"
#include "gpudot_math.h"
#include "octave_interrupt.h"

/* Elements of one operand converted at a time: 2^22 (32 MiB of doubles). */
static const int64_t kIntPiece = (int64_t)1 << 22;

/* dst[0 .. n) = (float type) src[off .. off + n) of integer class cls */
void int_convert(void *dst, int single, const void *src, mxClassID cls, int64_t off, int64_t n)
{
#define CONV(T)                                                                                    \
    do {                                                                                           \
        const T *s = (const T *)src + off;                                                         \
        if (single)                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((float *)dst)[i] = (float)s[i];                                                   \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((double *)dst)[i] = (double)s[i];                                                 \
    } while (0)
    switch (cls) {
    case mxINT8_CLASS:
        CONV(int8_t);
        break;
    case mxUINT8_CLASS:
        CONV(uint8_t);
        break;
    case mxINT16_CLASS:
        CONV(int16_t);
        break;
    case mxUINT16_CLASS:
        CONV(uint16_t);
        break;
    case mxINT32_CLASS:
        CONV(int32_t);
        break;
    case mxUINT32_CLASS:
        CONV(uint32_t);
        break;
    case mxINT64_CLASS:
        CONV(int64_t);
        break;
    default:
        CONV(uint64_t);
        break;
    }
#undef CONV
}

/* One operand of the call: integer data (converted into buf) or float data (offsets). */
typedef struct {
    const void *p;
    mxClassID cls; /* mxUNKNOWN_CLASS: float data */
    size_t es;     /* float data: bytes an element */
    int64_t k, a;  /* extents along the run and the outputs (each full or 1) */
    void *buf;
} int_op;

/* The operand's elements [e0, e0 + n) as the engine takes them. */
static const void *slice(int_op *o, int single, int64_t e0, int64_t n)
{
    if (o->cls == mxUNKNOWN_CLASS)
        return (const char *)o->p + (size_t)e0 * o->es;
    int_convert(o->buf, single, o->p, o->cls, e0, n);
    return o->buf;
}

static gpudot_status engine(gpudot_dot_req *r, int gpu)
{
    return gpu ? gpudot_cuda_dot(r, gpudot_interrupt_pending)
               : gpudot_cpu_dot(r, gpudot_interrupt_pending);
}

/* One output's run, piece by piece; v: its value (real, imaginary). */
static gpudot_status long_run(const gpudot_dot_req *r0, int gpu, int_op *x, int_op *y, int64_t a,
                              double *v)
{
    int single = r0->type == GPUDOT_F32, has_y = r0->op != GPUDOT_OP_NORM;
    int64_t m = (r0->nk + kIntPiece - 1) / kIntPiece;
    double *parts = mxMalloc((size_t)(3 * m) * sizeof *parts); /* norms: |x|, |y| */
    double s[2] = {0, 0}, c[2] = {0, 0};
    gpudot_status st = GPUDOT_OK;
    for (int64_t i = 0; i < m && st == GPUDOT_OK; i++) {
        int64_t k0 = i * kIntPiece, n = r0->nk - k0 < kIntPiece ? r0->nk - k0 : kIntPiece;
        gpudot_dot_req r = *r0;
        r.nk = n, r.na = 1, r.kx = x->k > 1 ? n : 1, r.ax = 1;
        r.x = slice(x, single, (x->a > 1 ? a * x->k : 0) + (x->k > 1 ? k0 : 0), r.kx);
        if (has_y) {
            r.ky = y->k > 1 ? n : 1, r.ay = 1;
            r.y = slice(y, single, (y->a > 1 ? a * y->k : 0) + (y->k > 1 ? k0 : 0), r.ky);
        }
        double out[2] = {0, 0};
        r.out = out;
        if (r0->op == GPUDOT_OP_COS) { /* its dot product and the two norms */
            gpudot_dot_req q = r;
            q.op = GPUDOT_OP_DOT;
            st = engine(&q, gpu);
            q = r, q.op = GPUDOT_OP_NORM, q.pk = GD_P_TWO, q.p = 2, q.cy = 0, q.out = &parts[m + i];
            if (st == GPUDOT_OK)
                st = engine(&q, gpu);
            q.x = r.y, q.kx = r.ky, q.ax = r.ay, q.cx = r.cy, q.out = &parts[2 * m + i];
            if (st == GPUDOT_OK)
                st = engine(&q, gpu);
            if (single) { /* (the engine wrote floats) */
                parts[m + i] = *(float *)&parts[m + i];
                parts[2 * m + i] = *(float *)&parts[2 * m + i];
            }
        } else {
            st = engine(&r, gpu);
        }
        if (single) {
            float f[2];
            memcpy(f, out, sizeof f);
            out[0] = f[0], out[1] = f[1];
        }
        if (r0->op == GPUDOT_OP_NORM) {
            parts[i] = out[0];
        } else {
            gd_add_d(&s[0], &c[0], out[0], 1);
            gd_add_d(&s[1], &c[1], out[1], 1);
        }
    }
    if (st == GPUDOT_OK && r0->op == GPUDOT_OP_NORM) {
        /* the p-norm of the pieces' p-norms (p = 0 counts: their sum) */
        gpudot_dot_req q = *r0;
        q.type = GPUDOT_F64, q.nk = m, q.na = 1, q.kx = m, q.ax = 1, q.cx = 0, q.x = parts;
        q.out = v;
        if (q.pk == GD_P_ZERO)
            q.pk = GD_P_ONE;
        st = gpudot_cpu_dot(&q, NULL);
        v[1] = 0;
    } else if (st == GPUDOT_OK) {
        v[0] = gd_value_d(s[0], c[0], 1);
        v[1] = gd_value_d(s[1], c[1], 1);
        if (r0->op == GPUDOT_OP_COS) {
            double nrm[2];
            gpudot_dot_req q = *r0;
            q.op = GPUDOT_OP_NORM, q.type = GPUDOT_F64, q.pk = GD_P_TWO, q.p = 2, q.cx = q.cy = 0;
            q.nk = m, q.na = 1, q.kx = m, q.ax = 1, q.accum = GPUDOT_ACC_DOUBLE;
            q.x = &parts[m], q.out = &nrm[0];
            st = gpudot_cpu_dot(&q, NULL);
            q.x = &parts[2 * m], q.out = &nrm[1];
            if (st == GPUDOT_OK)
                st = gpudot_cpu_dot(&q, NULL);
            double d = nrm[0] * nrm[1];
            v[0] /= d, v[1] /= d;
            gd_clamp_unit_d(&v[0], &v[1], r0->cx || r0->cy);
        }
    }
    mxFree(parts);
    return st;
}

gpudot_status run_int_chunks(gpudot_dot_req *r, int gpu, const mxArray *xi, const mxArray *yi)
{
    int single = r->type == GPUDOT_F32, has_y = r->op != GPUDOT_OP_NORM;
    size_t fes = single ? 4 : 8;
    int_op x = {r->x, xi ? mxGetClassID(xi) : mxUNKNOWN_CLASS, fes * (r->cx ? 2 : 1), r->kx, r->ax,
                NULL};
    int_op y = {r->y, yi ? mxGetClassID(yi) : mxUNKNOWN_CLASS, fes * (r->cy ? 2 : 1), r->ky, r->ay,
                NULL};
    if (xi)
        x.buf = mxMalloc((size_t)kIntPiece * fes);
    if (yi && has_y)
        y.buf = mxMalloc((size_t)kIntPiece * fes);
    int cplx = has_y && (r->cx || r->cy);
    size_t eso = fes * (cplx ? 2 : 1);
    char *out = r->out;
    gpudot_status st = GPUDOT_OK;
    if (r->nk <= kIntPiece) {
        /* groups of whole outputs */
        int64_t g = kIntPiece / (r->nk > 0 ? r->nk : 1);
        for (int64_t a0 = 0; a0 < r->na && st == GPUDOT_OK; a0 += g) {
            int64_t na = r->na - a0 < g ? r->na - a0 : g;
            gpudot_dot_req q = *r;
            q.na = na;
            q.ax = x.a > 1 ? na : 1;
            q.x = slice(&x, single, x.a > 1 ? a0 * x.k : 0, x.k * q.ax);
            if (has_y) {
                q.ay = y.a > 1 ? na : 1;
                q.y = slice(&y, single, y.a > 1 ? a0 * y.k : 0, y.k * q.ay);
            }
            q.out = out + (size_t)a0 * eso;
            st = engine(&q, gpu);
        }
    } else {
        for (int64_t a = 0; a < r->na && st == GPUDOT_OK; a++) {
            double v[2];
            st = long_run(r, gpu, &x, &y, a, v);
            if (single) {
                ((float *)out)[a * (cplx ? 2 : 1)] = (float)v[0];
                if (cplx)
                    ((float *)out)[2 * a + 1] = (float)v[1];
            } else {
                ((double *)out)[a * (cplx ? 2 : 1)] = v[0];
                if (cplx)
                    ((double *)out)[2 * a + 1] = v[1];
            }
        }
    }
    if (x.buf)
        mxFree(x.buf);
    if (y.buf)
        mxFree(y.buf);
    return st;
}
