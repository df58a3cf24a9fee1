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
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpudot_engine.h"
#include "gpudot_exact.h"
#include "gpudot_exact_top.h"
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

/* Runs of at most SHORT_MAX elements first try each sum in double-double (Dot2: p + e of
 * each product by TwoProduct, p through h by TwoSum, the errors into l), within
 * (n + 2)^2 2^-103 of the products' magnitudes m of the exact sum (Ogita, Rump and Oishi:
 * 2 n (n + 1) u^2 m), rounded where every sum in that interval rounds alike (gd_round_near;
 * a cosine's sums to its 62 bits, gd_near_m62): the same bits as the exact accumulators,
 * without their 1.7 KB each to clear and scan (2^19 runs of 8 doubles on 2 cores: gdot 19x
 * "double"'s time, gcosine 41x).  Else the accumulators decide, as before.  Runs up to
 * SHORT_MAX elements take it, where it was faster (2 cores, 2^22 elements a call: single
 * dots 128 3.9 against 5.8 ms, 256 3.6 against 3.3; double dots and single norms 64 7.7
 * against 13.1 and 6.3 against 10.6, 128 7.1 against 6.8 and 6.0 against 5.7; cosines of
 * singles 32 42 against 56, 64 36 against 30; of doubles 64 30 against 36, 128 29 against
 * 19: its finish costs a cosine some 150 ns). */
static int64_t short_max(const gpudot_dot_req *r)
{
    int f = r->type == GPUDOT_F32;
    return r->op == GPUDOT_OP_COS ? (f ? 32 : 64) : r->op == GPUDOT_OP_DOT && f ? 128 : 64;
}

typedef struct {
    double h, l, m;
    int ok; /* every product so far exact as p + e */
} dsum;

/* a b into s: p + e exactly where p is 0 of a zero operand or within 2^+-960 (not
 * overflowing, its e not below the subnormals), else s is no longer certain (ok = 0).
 * two = 0: a and b are singles, whose product p is exact (e = 0) and finite when it is
 * not Inf or NaN. */
static inline void dsum_add(dsum *s, double a, double b, int two)
{
    double p = GD_MUL_d(a, b), ap = fabs(p), t, e = 0;
    if (two ? !((ap >= 0x1p-960 && ap <= 0x1p960) ||
                ((a == 0 || b == 0) && isfinite(a) && isfinite(b)))
            : !(ap <= DBL_MAX)) {
        s->ok = 0;
        return;
    }
    if (two)
        e = fma(a, b, -p);
    gd_two_sum_d(s->h, p, &s->h, &t);
    s->l += t + e;
    s->m += ap;
}

/* an output's value (re, im) in r's output class, at o */
static void store_value(const gpudot_dot_req *r, int64_t o, double re, double im)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
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

/* Output o from its sums s (as xacc's: dot re, im; norm 0; cosine xy, xyi, xx, yy) of n
 * terms each where its rounding is certain: 1 where stored */
static int store_near(const gpudot_dot_req *r, int64_t o, const dsum *s, int64_t n)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    double eb = (double)((n + 2) * (n + 2)) * 0x1p-103, re = 0, im = 0;
    if (r->op == GPUDOT_OP_COS) { /* gd_top_cos's arithmetic and gd_top_finish's clamp */
        double h[4], l[4], sh, sl;
        int e[4], ed;
        for (int i = 0; i < 4; i++) {
            uint64_t m;
            int neg;
            if (i == 1 && !cplx)
                continue;
            if (!gd_near_m62(s[i].h, s[i].l, s[i].m * eb, &m, &e[i], &neg))
                return 0;
            gd_dd_of_m(m, neg, &h[i], &l[i]);
            e[i] -= 61;
        }
        gd_cos_den(h[2], l[2], e[2], h[3], l[3], e[3], &sh, &sl, &ed);
        re = gd_cos_quot(h[0], l[0], e[0], sh, sl, ed, single);
        if (cplx)
            im = gd_cos_quot(h[1], l[1], e[1], sh, sl, ed, single);
        gd_cos_clamp(single, cplx, &re, &im);
    } else {
        int sq = r->op == GPUDOT_OP_NORM && r->pk == GD_P_TWO;
        if (!gd_round_near(s[0].h, s[0].l, s[0].m * eb, single, sq, &re) ||
            (cplx && !gd_round_near(s[1].h, s[1].l, s[1].m * eb, single, 0, &im)))
            return 0;
    }
    store_value(r, o, re, im);
    return 1;
}

/* output o's short run at x, y in double-doubles, stored where certain (store_near) */
#define DEFINE_NEAR(SUF, T)                                                                        \
    static int near_##SUF(const gpudot_dot_req *r, int64_t o, const void *x, int64_t sx,           \
                          const void *y, int64_t sy)                                               \
    {                                                                                              \
        int cx = r->cx, cy = r->cy, TWO = sizeof(T) == 8;                                          \
        double xr, xi, yr, yi;                                                                     \
        dsum s[4] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};                      \
        for (int64_t k = 0; k < r->nk; k++) {                                                      \
            ELEM(T, x, k, sx, cx, xr, xi);                                                         \
            if (r->op == GPUDOT_OP_NORM) {                                                         \
                if (r->pk == GD_P_TWO) {                                                           \
                    dsum_add(&s[0], xr, xr, TWO);                                                  \
                    dsum_add(&s[0], xi, xi, TWO);                                                  \
                } else {                                                                           \
                    dsum_add(&s[0], fabs(xr), 1.0, TWO);                                           \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            ELEM(T, y, k, sy, cy, yr, yi);                                                         \
            dsum_add(&s[0], xr, yr, TWO); /* (the products sums_ takes) */                         \
            if (cx && cy)                                                                          \
                dsum_add(&s[0], xi, yi, TWO);                                                      \
            if (cy)                                                                                \
                dsum_add(&s[1], xr, yi, TWO);                                                      \
            if (cx)                                                                                \
                dsum_add(&s[1], -xi, yr, TWO);                                                     \
            if (r->op == GPUDOT_OP_COS) {                                                          \
                dsum_add(&s[2], xr, xr, TWO);                                                      \
                dsum_add(&s[2], xi, xi, TWO);                                                      \
                dsum_add(&s[3], yr, yr, TWO);                                                      \
                dsum_add(&s[3], yi, yi, TWO);                                                      \
            }                                                                                      \
        }                                                                                          \
        if (!(s[0].ok && s[1].ok && s[2].ok && s[3].ok))                                           \
            return 0;                                                                              \
        return store_near(r, o, s, 2 * r->nk);                                                     \
    }

DEFINE_NEAR(f, float)
DEFINE_NEAR(d, double)

/* whether output o of j takes the double-double try first: a short run of a sum it
 * rounds (not a complex 1-norm's moduli, nor a root in double) */
static int near_first(const gpudot_dot_req *r)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    return r->nk <= short_max(r) && (r->op != GPUDOT_OP_NORM || (r->pk == GD_P_ONE && !r->cx) ||
                                     (r->pk == GD_P_TWO && single));
}

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
    store_value(r, o, re, im);
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
    int near = near_first(j->r);
    for (int64_t o = b; o < e; o++) {
        const char *x, *y;
        run_start(j, o, &x, &y);
        if (near && (j->r->type == GPUDOT_F32 ? near_f(j->r, o, x, j->sx, y, j->sy)
                                              : near_d(j->r, o, x, j->sx, y, j->sy)))
            continue;
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
