/*
 * CPU engine for gnorm and gcosine: the per-element math of gpudot_math.h (shared with the
 * CUDA kernels) driven over the canonical shape.  Each output's run is split into fixed
 * chunks summed by the pool's threads (cpu/gpudot_pool.c) and merged in chunk order, so
 * results do not depend on the thread count.  (The dot product has its own tuned loops in
 * gpudot_cpu.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "gpudot_fast_loop.h"
#include "gpudot_hooks.h"
#include "gpudot_math.h"

/* Elements per chunk: 2^15 norm or cosine updates (~0.1-0.3 ms on one core), 256 chunks of
 * parallel work at n = 2^23. */
#define CHUNK ((int64_t)1 << 15)
#define POLL_WORK ((int64_t)1 << 24)

/* Storage for any accumulator below (gd_cos_d is the largest). */
typedef union {
    gd_norm_d nd;
    gd_norm_f nf;
    gd_cos_d cd;
    gd_cos_f cf;
} acc_u;

/* Which arithmetic: element type T and accumulator A (float only for single "native"). */
enum { K_FF = 0, K_FD = 1, K_DD = 2 };

static int kind_of(const gpudot_dot_req *r)
{
    if (r->type == GPUDOT_F64)
        return K_DD;
    return r->accum == GPUDOT_ACC_NATIVE ? K_FF : K_FD;
}

/* "compensated" over contiguous real data (complex: its parts as reals, for norms): Dot2 in
 * 32 lanes (gpudot_cpu.c's loops), three sums in 8 for cosines, vectorised where the clone
 * has fma.  At 10^7 doubles (CI machine, 2 cores) one element at a time took 71.9 ms for
 * gnorm and 55.7 for gcosine against 2.1 and 5.8 for "double"; the lanes 2.1 and 5.8. */
GPUDOT_COMP3_LOOP(GPUDOT_FMA_CLONES static, comp3_d, double, 8)
GPUDOT_COMP3_LOOP(GPUDOT_FMA_CLONES static, comp3_f, float, 8)
#define COMP_LOOP(x) _Generic((x), const float * : gpudot_comp_f, const double * : gpudot_comp_d)
#define COMP3_LOOP(x) _Generic((x), const float * : comp3_f, const double * : comp3_d)

/* (s, c) += (s2, c2): the lanes' result into an accumulator's pair */
static void add_pair(double *s, double *c, double s2, double c2)
{
    double q;
    gd_two_sum_d(*s, s2, s, &q);
    *c += c2 + q;
}

/* Adds n elements (strides sx, sy in elements, any sign-free value) to acc. */
#define DEFINE_RUNS(NAME, T, A, SUF)                                                               \
    static void norm_run_##NAME(const gpudot_dot_req *r, const T *x, int64_t sx, int64_t n,        \
                                acc_u *u)                                                          \
    {                                                                                              \
        int cx = r->cx, pk = r->pk, comp = r->accum == GPUDOT_ACC_COMP;                            \
        A p = (A)r->p;                                                                             \
        int64_t ex = cx ? 2 : 1;                                                                   \
        if ((pk == GD_P_SSQ || pk == GD_P_SSQX) && comp && sx == 1 && sizeof(A) == 8) {            \
            double s1, c1;                                                                         \
            COMP_LOOP(x)(x, x, n * ex, &s1, &c1);                                                  \
            add_pair((double *)&u->n##SUF.s, (double *)&u->n##SUF.c, s1, c1);                      \
            return;                                                                                \
        }                                                                                          \
        if ((pk == GD_P_SSQ || pk == GD_P_SSQX) && !comp && sx == 1) {                             \
            /* the fast 2-norm over contiguous data: 8 independent sums (vectorised) */            \
            A s8[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                    \
            int64_t m = n * ex, k = 0;                                                             \
            for (; k + 8 <= m; k += 8)                                                             \
                for (int j = 0; j < 8; j++)                                                        \
                    s8[j] += GD_MUL_##SUF((A)x[k + j], (A)x[k + j]);                               \
            for (; k < m; k++)                                                                     \
                s8[k & 7] += GD_MUL_##SUF((A)x[k], (A)x[k]);                                       \
            u->n##SUF.s +=                                                                         \
                ((s8[0] + s8[1]) + (s8[2] + s8[3])) + ((s8[4] + s8[5]) + (s8[6] + s8[7]));         \
            return;                                                                                \
        }                                                                                          \
        for (int64_t k = 0; k < n; k++) {                                                          \
            const T *px = x + k * sx * ex;                                                         \
            gd_norm_add_elem_##SUF(&u->n##SUF, (A)px[0], cx ? (A)px[1] : (A)0, cx, pk, p, comp);   \
        }                                                                                          \
    }                                                                                              \
    static void cos_run_##NAME(const gpudot_dot_req *r, const T *x, int64_t sx, const T *y,        \
                               int64_t sy, int64_t n, acc_u *u)                                    \
    {                                                                                              \
        int cx = r->cx, cy = r->cy, comp = r->accum == GPUDOT_ACC_COMP, fast = r->fast;            \
        int64_t ex = cx ? 2 : 1, ey = cy ? 2 : 1;                                                  \
        if (fast && comp && !cx && !cy && sx == 1 && sy == 1 && sizeof(A) == 8) {                  \
            double s3[3], c3[3];                                                                   \
            COMP3_LOOP(x)(x, y, n, s3, c3);                                                        \
            add_pair((double *)&u->c##SUF.xr, (double *)&u->c##SUF.cxr, s3[0], c3[0]);             \
            add_pair((double *)&u->c##SUF.xx, (double *)&u->c##SUF.cxx, s3[1], c3[1]);             \
            add_pair((double *)&u->c##SUF.yy, (double *)&u->c##SUF.cyy, s3[2], c3[2]);             \
            return;                                                                                \
        }                                                                                          \
        if (fast && !comp && !cx && !cy && sx == 1 && sy == 1) {                                   \
            /* fast cosine over contiguous real data: 4 lanes of the three sums */                 \
            A xy[4] = {0, 0, 0, 0}, xx[4] = {0, 0, 0, 0}, yy[4] = {0, 0, 0, 0};                    \
            int64_t k = 0;                                                                         \
            for (; k + 4 <= n; k += 4)                                                             \
                for (int j = 0; j < 4; j++) {                                                      \
                    A a = (A)x[k + j], b = (A)y[k + j];                                            \
                    xy[j] += GD_MUL_##SUF(a, b);                                                   \
                    xx[j] += GD_MUL_##SUF(a, a);                                                   \
                    yy[j] += GD_MUL_##SUF(b, b);                                                   \
                }                                                                                  \
            for (; k < n; k++) {                                                                   \
                A a = (A)x[k], b = (A)y[k];                                                        \
                xy[k & 3] += GD_MUL_##SUF(a, b);                                                   \
                xx[k & 3] += GD_MUL_##SUF(a, a);                                                   \
                yy[k & 3] += GD_MUL_##SUF(b, b);                                                   \
            }                                                                                      \
            u->c##SUF.xr += (xy[0] + xy[1]) + (xy[2] + xy[3]);                                     \
            u->c##SUF.xx += (xx[0] + xx[1]) + (xx[2] + xx[3]);                                     \
            u->c##SUF.yy += (yy[0] + yy[1]) + (yy[2] + yy[3]);                                     \
            return;                                                                                \
        }                                                                                          \
        for (int64_t k = 0; k < n; k++) {                                                          \
            const T *px = x + k * sx * ex, *py = y + k * sy * ey;                                  \
            gd_cos_add_##SUF(&u->c##SUF, (A)px[0], cx ? (A)px[1] : (A)0, (A)py[0],                 \
                             cy ? (A)py[1] : (A)0, cx, cy, comp, fast);                            \
        }                                                                                          \
    }

DEFINE_RUNS(ff, float, float, f)
DEFINE_RUNS(fd, float, double, d)
DEFINE_RUNS(dd, double, double, d)

static void acc_init(const gpudot_dot_req *r, int kind, acc_u *u)
{
    memset(u, 0, sizeof *u);
    if (r->op == GPUDOT_OP_NORM) {
        if (kind == K_FF)
            gd_norm_init_f(&u->nf, r->pk);
        else
            gd_norm_init_d(&u->nd, r->pk);
    } else {
        if (kind == K_FF)
            gd_cos_init_f(&u->cf);
        else
            gd_cos_init_d(&u->cd);
    }
}

static void acc_run(const gpudot_dot_req *r, int kind, const void *x, int64_t sx, const void *y,
                    int64_t sy, int64_t n, acc_u *u)
{
    if (r->op == GPUDOT_OP_NORM) {
        if (kind == K_FF)
            norm_run_ff(r, x, sx, n, u);
        else if (kind == K_FD)
            norm_run_fd(r, x, sx, n, u);
        else
            norm_run_dd(r, x, sx, n, u);
    } else {
        if (kind == K_FF)
            cos_run_ff(r, x, sx, y, sy, n, u);
        else if (kind == K_FD)
            cos_run_fd(r, x, sx, y, sy, n, u);
        else
            cos_run_dd(r, x, sx, y, sy, n, u);
    }
}

static void acc_merge(const gpudot_dot_req *r, int kind, acc_u *a, const acc_u *b)
{
    int comp = r->accum == GPUDOT_ACC_COMP;
    if (r->op == GPUDOT_OP_NORM) {
        if (kind == K_FF)
            gd_norm_merge_f(&a->nf, &b->nf, r->pk, (float)r->p, comp);
        else
            gd_norm_merge_d(&a->nd, &b->nd, r->pk, r->p, comp);
    } else {
        if (kind == K_FF)
            gd_cos_merge_f(&a->cf, &b->cf, comp, r->fast);
        else
            gd_cos_merge_d(&a->cd, &b->cd, comp, r->fast);
    }
}

static void acc_write(const gpudot_dot_req *r, int kind, int64_t o, const acc_u *u)
{
    int comp = r->accum == GPUDOT_ACC_COMP;
    double re = 0, im = 0;
    if (r->op == GPUDOT_OP_NORM) {
        re = kind == K_FF ? gd_norm_final_f(&u->nf, r->pk, (float)r->p, comp)
                          : gd_norm_final_d(&u->nd, r->pk, r->p, comp);
    } else if (kind == K_FF) {
        float fr, fi;
        gd_cos_final_f(&u->cf, comp, r->fast, &fr, &fi);
        re = fr, im = fi;
    } else {
        gd_cos_final_d(&u->cd, comp, r->fast, &re, &im);
    }
    int cplx = r->op == GPUDOT_OP_COS && (r->cx || r->cy);
    if (r->type == GPUDOT_F32) {
        float *out = (float *)r->out, fr = (float)re, fi = (float)im;
        if (r->op == GPUDOT_OP_COS)
            gd_clamp_unit_f(&fr, &fi, cplx);
        if (cplx)
            out[2 * o] = fr, out[2 * o + 1] = fi;
        else
            out[o] = fr;
    } else {
        double *out = (double *)r->out;
        if (r->op == GPUDOT_OP_COS)
            gd_clamp_unit_d(&re, &im, cplx);
        if (cplx)
            out[2 * o] = re, out[2 * o + 1] = im;
        else
            out[o] = re;
    }
}

/* A call's work for the pool: outputs [o0 + per * t ...) whole, or chunk t of one output's
 * run starting at x, y; element sizes, and strides along k. */
typedef struct {
    const gpudot_dot_req *r;
    int kind;
    int64_t o0, o1, per;
    const char *x, *y;
    size_t esx, esy;
    int64_t sx, sy;
    acc_u *part;
} reduce_job;

/* where output o's runs start */
static void run_start(const reduce_job *j, int64_t o, const char **x, const char **y)
{
    gpudot_run_start(j->r, o, j->esx, j->esy, x, y);
}

/* Output o from its whole run, on the calling thread. */
static void whole_output(const reduce_job *j, int64_t o)
{
    const char *x, *y;
    run_start(j, o, &x, &y);
    acc_u u;
    acc_init(j->r, j->kind, &u);
    acc_run(j->r, j->kind, x, j->sx, y, j->sy, j->r->nk, &u);
    acc_write(j->r, j->kind, o, &u);
}

static void outputs_task(void *ctx, int64_t t)
{
    const reduce_job *j = ctx;
    int64_t b = j->o0 + t * j->per, e = b + j->per < j->o1 ? b + j->per : j->o1;
    for (int64_t o = b; o < e; o++)
        whole_output(j, o);
}

static void chunk_task(void *ctx, int64_t c)
{
    const reduce_job *j = ctx;
    const gpudot_dot_req *r = j->r;
    int64_t k0 = c * CHUNK, n = r->nk - k0 < CHUNK ? r->nk - k0 : CHUNK;
    acc_init(r, j->kind, &j->part[c]);
    acc_run(r, j->kind, j->x + (size_t)(k0 * j->sx) * j->esx, j->sx,
            j->y ? j->y + (size_t)(k0 * j->sy) * j->esy : NULL, j->sy, n, &j->part[c]);
}

static gpudot_status reduce_pass(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    int kind = kind_of(r);
    int has_y = r->op != GPUDOT_OP_NORM;
    reduce_job j = {.r = r,
                    .kind = kind,
                    .esx = gpudot_esize(r, r->cx),
                    .esy = has_y ? gpudot_esize(r, r->cy) : 0,
                    .sx = r->kx > 1 ? r->bx : 0,
                    .sy = has_y && r->ky > 1 ? r->by : 0};
    int64_t nout = r->nb * r->na;
    int64_t nchunks = r->nk > CHUNK ? (r->nk + CHUNK - 1) / CHUNK : 1;
    j.part = malloc((size_t)nchunks * sizeof *j.part);
    if (!j.part)
        return GPUDOT_OUT_OF_MEMORY;
    int64_t outs_per_poll = POLL_WORK / (r->nk > 0 ? r->nk : 1) + 1;
    j.per = r->nk > 0 ? (CHUNK + r->nk - 1) / r->nk : nout;
    gpudot_status st = GPUDOT_OK;
    for (int64_t o0 = 0; o0 < nout && st == GPUDOT_OK; o0 += outs_per_poll) {
        int64_t o1 = o0 + outs_per_poll < nout ? o0 + outs_per_poll : nout;
        if (nchunks == 1) {
            /* whole outputs, in tasks of about a chunk's work (one task: no threads) */
            j.o0 = o0;
            j.o1 = o1;
            gpudot_pool_run((o1 - o0 + j.per - 1) / j.per, outputs_task, &j);
        } else {
            for (int64_t o = o0; o < o1; o++) {
                run_start(&j, o, &j.x, &j.y);
                gpudot_pool_run(nchunks, chunk_task, &j);
                for (int64_t c = 1; c < nchunks; c++)
                    acc_merge(r, kind, &j.part[0], &j.part[c]);
                acc_write(r, kind, o, &j.part[0]);
                if (poll && (o - o0) % 16 == 15 && poll()) {
                    st = GPUDOT_INTERRUPTED;
                    break;
                }
            }
        }
        if (st == GPUDOT_OK && poll && poll())
            st = GPUDOT_INTERRUPTED;
    }
    free(j.part);
    return st;
}

/* The fast variant first; the scaled algorithm where it could not vouch for an output. */
gpudot_status gpudot_cpu_reduce(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    return gpudot_two_step(r, poll, reduce_pass);
}
