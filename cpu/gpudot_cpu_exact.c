/*
 * CPU engine, "exact" mode: each output's sums in exact accumulators (gpudot_exact.h),
 * rounded once at the end.  dot: the real and imaginary parts' sums; 1-norm: |x| (complex:
 * each |z| correctly rounded); 2-norm: the sum of squares, its square root correctly
 * rounded; Inf- and -Inf-norms of complex data: the largest and smallest correctly rounded
 * |z| (the other norms' results are exact in "double" mode, which runs them); cosine: x.y,
 * x.x and y.y, then gd_exact_cos.
 *
 * An exact sum does not depend on the order of its terms, so the pool's threads take a
 * long run's pieces in any order and their accumulators merge in any order: the same bits
 * for every thread count and chunking, and as the GPU's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpudot_engine.h"
#include "gpudot_exact.h"
#include "gpudot_math.h"

/* Elements a task sums (a piece of a long run, or whole runs): at 2-8 ns an element, 0.1-0.5
 * ms of work a task.  Interrupts are polled between rounds of ROUND elements. */
#define PIECE ((int64_t)1 << 16)
#define ROUND ((int64_t)1 << 24)

/* an output's (or a piece's) sums: dot re, im; norm 0; cosine xy re, xy im, xx, yy */
typedef struct {
    gd_exact a[4];
    double ext; /* complex Inf/-Inf norms: the largest (smallest) |z| so far, NaN: any */
} xacc;

typedef struct {
    const gpudot_dot_req *r;
    size_t esx, esy;
    int64_t sx, sy; /* strides along k, in elements */
    int64_t o0, o1, per;
    int64_t o;      /* one long run's output */
    int64_t k0, k1; /* its round */
    xacc *part;     /* a long run: one accumulator a task */
    int64_t ntasks;
} xjob;

/* the sums an output needs (a real dot product: 1) */
static int nacc(const gpudot_dot_req *r)
{
    return r->op == GPUDOT_OP_COS ? 4 : r->op == GPUDOT_OP_DOT && (r->cx || r->cy) ? 2 : 1;
}

static void xacc_init(const gpudot_dot_req *r, xacc *u)
{
    for (int i = 0; i < nacc(r); i++)
        gd_exact_init(&u->a[i]);
    u->ext = r->pk == GD_P_NEGINF ? INFINITY : 0;
}

static void xacc_merge(const gpudot_dot_req *r, xacc *u, const xacc *v)
{
    for (int i = 0; i < nacc(r); i++)
        gd_exact_merge(&u->a[i], &v->a[i]);
    if (isnan(v->ext) || isnan(u->ext))
        u->ext = NAN;
    else if (r->pk == GD_P_NEGINF ? v->ext < u->ext : v->ext > u->ext)
        u->ext = v->ext;
}

/* the k-th element of a run at x (complex: interleaved), as doubles */
#define ELEM(T, p, k, s, c, re, im)                                                                \
    do {                                                                                           \
        const T *e_ = (const T *)(p) + (k) * (s) * ((c) ? 2 : 1);                                  \
        re = e_[0];                                                                                \
        im = (c) ? e_[1] : 0.0;                                                                    \
    } while (0)

/* Adds elements k0 .. k1 of the run at x, y (strides sx, sy) to u. */
#define DEFINE_SUMS(SUF, T)                                                                        \
    static void sums_##SUF(const gpudot_dot_req *r, const void *x, int64_t sx, const void *y,      \
                           int64_t sy, int64_t k0, int64_t k1, xacc *u)                            \
    {                                                                                              \
        int cx = r->cx, cy = r->cy, single = sizeof(T) == 4;                                       \
        double xr, xi, yr, yi;                                                                     \
        if (r->op != GPUDOT_OP_NORM && !cx && !cy && sx == 1 && sy == 1) {                         \
            const T *px = (const T *)x + k0, *py = (const T *)y + k0;                              \
            gd_exact_dot_##SUF(&u->a[0], px, py, k1 - k0);                                         \
            if (r->op == GPUDOT_OP_COS) { /* (three bulk passes: 2.8x faster than one by one) */   \
                gd_exact_dot_##SUF(&u->a[2], px, px, k1 - k0);                                     \
                gd_exact_dot_##SUF(&u->a[3], py, py, k1 - k0);                                     \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        if (r->op == GPUDOT_OP_NORM && r->pk == GD_P_TWO && sx == 1) {                             \
            int64_t e = cx ? 2 : 1; /* (complex: the parts' squares) */                            \
            const T *p = (const T *)x + k0 * e;                                                    \
            gd_exact_dot_##SUF(&u->a[0], p, p, (k1 - k0) * e);                                     \
            return;                                                                                \
        }                                                                                          \
        for (int64_t k = k0; k < k1; k++) {                                                        \
            ELEM(T, x, k, sx, cx, xr, xi);                                                         \
            if (r->op == GPUDOT_OP_NORM) {                                                         \
                if (r->pk == GD_P_TWO) { /* (Inf + NaN i: NaN, as norm gives) */                   \
                    gd_exact_add_prod(&u->a[0], xr, xr);                                           \
                    gd_exact_add_prod(&u->a[0], xi, xi);                                           \
                } else {                                                                           \
                    double m = cx ? gd_exact_abs(xr, xi, single) : fabs(xr);                       \
                    if (r->pk == GD_P_ONE)                                                         \
                        gd_exact_add_prod(&u->a[0], m, 1.0);                                       \
                    else if (isnan(m) || isnan(u->ext))                                            \
                        u->ext = NAN;                                                              \
                    else if (r->pk == GD_P_NEGINF ? m < u->ext : m > u->ext)                       \
                        u->ext = m;                                                                \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            ELEM(T, y, k, sy, cy, yr, yi);                                                         \
            /* conj (x) y as Octave multiplies: no products with an absent imaginary part */       \
            gd_exact_add_prod(&u->a[0], xr, yr);                                                   \
            if (cx && cy)                                                                          \
                gd_exact_add_prod(&u->a[0], xi, yi);                                               \
            if (cy)                                                                                \
                gd_exact_add_prod(&u->a[1], xr, yi);                                               \
            if (cx)                                                                                \
                gd_exact_add_prod(&u->a[1], -xi, yr);                                              \
            if (r->op == GPUDOT_OP_COS) {                                                          \
                gd_exact_add_prod(&u->a[2], xr, xr);                                               \
                gd_exact_add_prod(&u->a[2], xi, xi);                                               \
                gd_exact_add_prod(&u->a[3], yr, yr);                                               \
                gd_exact_add_prod(&u->a[3], yi, yi);                                               \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_SUMS(f, float)
DEFINE_SUMS(d, double)

static void sums(const xjob *j, const char *x, const char *y, int64_t k0, int64_t k1, xacc *u)
{
    if (j->r->type == GPUDOT_F32)
        sums_f(j->r, x, j->sx, y, j->sy, k0, k1, u);
    else
        sums_d(j->r, x, j->sx, y, j->sy, k0, k1, u);
}

void gpudot_exact_store(const gpudot_dot_req *r, int64_t o, const gd_exact *a, double ext)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    double re, im;
    gd_exact_finish(a, r->op, r->pk, single, cplx, ext, &re, &im);
    if (single) {
        float *out = (float *)r->out;
        out[cplx ? 2 * o : o] = (float)re;
        if (cplx)
            out[2 * o + 1] = (float)im;
    } else {
        double *out = (double *)r->out;
        out[cplx ? 2 * o : o] = re;
        if (cplx)
            out[2 * o + 1] = im;
    }
}

/* where output o's runs start */
static void run_start(const xjob *j, int64_t o, const char **x, const char **y)
{
    gpudot_run_start(j->r, o, j->esx, j->esy, x, y);
}

static void outputs_task(void *ctx, int64_t t)
{
    const xjob *j = ctx;
    int64_t b = j->o0 + t * j->per, e = b + j->per < j->o1 ? b + j->per : j->o1;
    xacc u; /* (7 KB) */
    for (int64_t o = b; o < e; o++) {
        const char *x, *y;
        run_start(j, o, &x, &y);
        xacc_init(j->r, &u);
        sums(j, x, y, 0, j->r->nk, &u);
        gpudot_exact_store(j->r, o, u.a, u.ext);
    }
}

/* task t of a long run's round: its share of k0 .. k1 into its accumulator */
static void piece_task(void *ctx, int64_t t)
{
    const xjob *j = ctx;
    const char *x, *y;
    run_start(j, j->o, &x, &y);
    int64_t n = j->k1 - j->k0, per = (n + j->ntasks - 1) / j->ntasks;
    int64_t b = j->k0 + t * per, e = b + per < j->k1 ? b + per : j->k1;
    if (b < e)
        sums(j, x, y, b, e, &j->part[t]);
}

int gpudot_exact_norm_kind(const gpudot_dot_req *r)
{
    if (r->op != GPUDOT_OP_NORM || r->pk == GD_P_ONE || r->pk == GD_P_TWO ||
        ((r->pk == GD_P_INF || r->pk == GD_P_NEGINF) && r->cx))
        return 0;
    /* (out_other: never for norms, whose class is x's) */
    return r->pk == GD_P_POS || r->pk == GD_P_NEG || r->out_other ? -1 : 1;
}

gpudot_status gpudot_cpu_exact(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    int has_y = r->op != GPUDOT_OP_NORM, kind = gpudot_exact_norm_kind(r);
    if (kind) {
        if (kind < 0)
            return GPUDOT_BAD_OPTION;
        gpudot_dot_req q = *r; /* Inf, -Inf, 0: exact in "double" */
        q.accum = GPUDOT_ACC_DOUBLE;
        return gpudot_cpu_dot(&q, poll);
    }
    xjob j = {.r = r,
              .esx = gpudot_esize(r, r->cx),
              .esy = has_y ? gpudot_esize(r, r->cy) : 0,
              .sx = r->kx > 1 ? r->bx : 0,
              .sy = has_y && r->ky > 1 ? r->by : 0};
    int64_t nout = r->nb * r->na;
    if (r->nk <= 2 * PIECE || nout >= gpudot_pool_size()) {
        /* whole runs, in tasks of about a piece's work, polled every round */
        j.per = r->nk > 0 ? (PIECE + r->nk - 1) / r->nk : nout;
        int64_t step = ROUND / (r->nk > 0 ? r->nk : 1) + 1;
        for (j.o0 = 0; j.o0 < nout; j.o0 += step) {
            j.o1 = j.o0 + step < nout ? j.o0 + step : nout;
            gpudot_pool_run((j.o1 - j.o0 + j.per - 1) / j.per, outputs_task, &j);
            if (poll && poll())
                return GPUDOT_INTERRUPTED;
        }
        return GPUDOT_OK;
    }
    /* few long runs: each in rounds, a round's pieces over the pool's threads */
    j.ntasks = (r->nk + PIECE - 1) / PIECE;
    int64_t most = 4 * (int64_t)gpudot_pool_size();
    j.ntasks = j.ntasks < most ? j.ntasks : most;
    j.part = malloc((size_t)j.ntasks * sizeof *j.part);
    if (!j.part)
        return GPUDOT_OUT_OF_MEMORY;
    gpudot_status st = GPUDOT_OK;
    for (j.o = 0; j.o < nout && st == GPUDOT_OK; j.o++) {
        for (int64_t t = 0; t < j.ntasks; t++)
            xacc_init(r, &j.part[t]);
        for (j.k0 = 0; j.k0 < r->nk; j.k0 = j.k1) {
            j.k1 = r->nk - j.k0 < ROUND ? r->nk : j.k0 + ROUND;
            gpudot_pool_run(j.ntasks, piece_task, &j);
            if (poll && poll()) {
                st = GPUDOT_INTERRUPTED;
                break;
            }
        }
        for (int64_t t = 1; t < j.ntasks && st == GPUDOT_OK; t++)
            xacc_merge(r, &j.part[0], &j.part[t]);
        if (st == GPUDOT_OK)
            gpudot_exact_store(r, j.o, j.part[0].a, j.part[0].ext);
    }
    free(j.part);
    return st;
}
