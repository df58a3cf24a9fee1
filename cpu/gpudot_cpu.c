/*
 * CPU engine: the same reductions and accumulate modes as the CUDA engine, in C.
 *
 * Order of summation is fixed for a given shape (never depends on the thread count), so
 * results are bitwise repeatable.  Column mode (nb == 1, each output a contiguous run)
 * splits long runs into fixed chunks summed by the pool's threads, then combined in chunk
 * order; row mode (nb > 1) walks k outermost so the inner loop over i is contiguous.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpudot_hooks.h"
#include "gpudot_fast_loop.h"
#include "gpudot_math.h"

/* Scalars per chunk of a long reduction: the unit in which runs are split over threads and
 * summed, in a fixed order, so results never depend on the thread count or on which path
 * below took a run. */
#define CHUNK ((int64_t)1 << 12)
/* A run is split into its chunks only from 2 * PER_THREAD scalars: on the H100 machine's
 * 16-core VM, with one thread a run single 2^15-2^16 ran at 1.1-1.3x Octave's dot, split
 * at 0.65-0.8x; runs of 2^14 split over 4
 * threads measured no faster there than one thread.  The chunks go to the pool
 * (cpu/gpudot_pool.c), one task each: with OpenMP a team of all 16 threads on 2^16 doubles
 * once took 473 us a call (median; 79-3766 us) against dot's 51 in a `make bench`, as a
 * region waits for every thread of its team and on that VM any one of 16 can stall; teams
 * of one thread per 2^14 made it rarer, not gone. */
#define PER_THREAD ((int64_t)1 << 14)
/* Many short runs (one output each) go to the pool only above this much work, in tasks of
 * about a chunk's work: posting a job and waking a thread cost ~1 us or more, a third of
 * a small call. */
#define SERIAL_WORK ((int64_t)1 << 16)
/* Interrupts are polled after every this many scalars of work (about 10 ms on one core). */
#define POLL_WORK ((int64_t)1 << 24)
/* A long run's chunks go to the pool in about this many tasks a thread, each of
 * consecutive chunks (the same sums, merged in the same order).  One task a chunk, gdot of
 * 10^7 elements on the 2-core VM, builds alternated: doubles 3.7-5.5 ms against 2.9-4.1,
 * singles 2.5-2.9 against 1.1-1.7 (Octave's dot 5.9-6.4). */
#define TASKS_PER_THREAD 8
/* Independent partial sums per run: lets the compiler keep 8 additions in flight. */
#define LANES 8

typedef struct {
    double s[2]; /* running sum, re and im */
    double c[2]; /* compensation (COMP mode only) */
} acc_t;

enum { M_NATIVE_F = 0, M_PLAIN_D = 1, M_COMP = 2 };

/* TwoSum and the Dot2 step (gd_two_sum_d, gd_add_prod_d) are gpudot_math.h's, shared with
 * the kernels. */

/* Adds conj(x) * y for one element pair to acc in mode m (compile-time constants after
 * inlining).  Terms follow Octave's complex multiply: no products with implicit zeros, so a
 * real Inf meeting a complex value does not make NaN where Octave gives none. */
static inline __attribute__((always_inline)) void
acc_elem(acc_t *acc, int m, int cx, int cy, double xr, double xi, double yr, double yi)
{
    if (m == M_NATIVE_F) {
        float fxr = (float)xr, fxi = (float)xi, fyr = (float)yr, fyi = (float)yi;
        float sr = (float)acc->s[0], si = (float)acc->s[1];
        if (cx && cy) {
            sr += fxr * fyr + fxi * fyi;
            si += fxr * fyi - fxi * fyr;
        } else if (cx) {
            sr += fxr * fyr;
            si += -fxi * fyr;
        } else if (cy) {
            sr += fxr * fyr;
            si += fxr * fyi;
        } else {
            sr += fxr * fyr;
        }
        acc->s[0] = sr;
        acc->s[1] = si;
    } else if (m == M_PLAIN_D) {
        if (cx && cy) {
            acc->s[0] += xr * yr + xi * yi;
            acc->s[1] += xr * yi - xi * yr;
        } else if (cx) {
            acc->s[0] += xr * yr;
            acc->s[1] += -xi * yr;
        } else if (cy) {
            acc->s[0] += xr * yr;
            acc->s[1] += xr * yi;
        } else {
            acc->s[0] += xr * yr;
        }
    } else {
        gd_add_prod_d(&acc->s[0], &acc->c[0], xr, yr, 1);
        if (cx && cy) {
            gd_add_prod_d(&acc->s[0], &acc->c[0], xi, yi, 1);
            gd_add_prod_d(&acc->s[1], &acc->c[1], xr, yi, 1);
            gd_add_prod_d(&acc->s[1], &acc->c[1], -xi, yr, 1);
        } else if (cx) {
            gd_add_prod_d(&acc->s[1], &acc->c[1], -xi, yr, 1);
        } else if (cy) {
            gd_add_prod_d(&acc->s[1], &acc->c[1], xr, yi, 1);
        }
    }
}

/* acc += b, in the arithmetic of mode m. */
static inline void acc_merge(acc_t *a, const acc_t *b, int m)
{
    for (int j = 0; j < 2; j++) {
        if (m == M_NATIVE_F) {
            a->s[j] = (float)((float)a->s[j] + (float)b->s[j]);
        } else if (m == M_PLAIN_D) {
            a->s[j] += b->s[j];
        } else {
            double q;
            gd_two_sum_d(a->s[j], b->s[j], &a->s[j], &q);
            a->c[j] += b->c[j] + q;
        }
    }
}

/* Final value of one component: s + c unless s is already Inf or NaN (then c is noise). */
static inline double acc_final(const acc_t *a, int j, int m)
{
    if (m == M_COMP && isfinite(a->s[j]))
        return a->s[j] + a->c[j];
    return a->s[j];
}

static void store(const gpudot_dot_req *r, int m, int64_t o, const acc_t *a)
{
    int cplx = r->cx || r->cy;
    double re = acc_final(a, 0, m), im = acc_final(a, 1, m);
    if (r->type == GPUDOT_F32) {
        float *out = (float *)r->out;
        if (cplx) {
            out[2 * o] = (float)re;
            out[2 * o + 1] = (float)im;
        } else {
            out[o] = (float)re;
        }
    } else {
        double *out = (double *)r->out;
        if (cplx) {
            out[2 * o] = re;
            out[2 * o + 1] = im;
        } else {
            out[o] = re;
        }
    }
}

/* Sum of n element pairs starting at x, y (element strides sx, sy in {0, 1}) into LANES
 * lanes combined in a fixed tree.  T is float or double. */
#define DEFINE_RUN(SUF, T)                                                                         \
    static inline __attribute__((always_inline)) acc_t run_##SUF(                                  \
        const T *x, int64_t sx, const T *y, int64_t sy, int64_t n, int m, int cx, int cy)          \
    {                                                                                              \
        acc_t lane[LANES];                                                                         \
        memset(lane, 0, sizeof lane);                                                              \
        int64_t ex = cx ? 2 : 1, ey = cy ? 2 : 1;                                                  \
        int64_t k = 0;                                                                             \
        for (; k + LANES <= n; k += LANES) {                                                       \
            for (int l = 0; l < LANES; l++) {                                                      \
                const T *px = x + (k + l) * sx * ex, *py = y + (k + l) * sy * ey;                  \
                acc_elem(&lane[l], m, cx, cy, px[0], cx ? px[1] : 0.0, py[0], cy ? py[1] : 0.0);   \
            }                                                                                      \
        }                                                                                          \
        for (int l = 0; k < n; k++, l++) {                                                         \
            const T *px = x + k * sx * ex, *py = y + k * sy * ey;                                  \
            acc_elem(&lane[l], m, cx, cy, px[0], cx ? px[1] : 0.0, py[0], cy ? py[1] : 0.0);       \
        }                                                                                          \
        for (int w = LANES / 2; w > 0; w /= 2)                                                     \
            for (int l = 0; l < w; l++)                                                            \
                acc_merge(&lane[l], &lane[l + w], m);                                              \
        return lane[0];                                                                            \
    }

DEFINE_RUN(f, float)
DEFINE_RUN(d, double)

/* The common case, real contiguous data outside "compensated", as plain loops over 32
 * independent sums that the compiler vectorises, with AVX-512 and AVX2 clones picked at
 * load time where the CPU has them.  No clone may contract a * b + s into an FMA (mex.mk
 * builds with -ffp-contract=off), so every clone gives the same bits.  Measured: on the
 * CI machine (AMD EPYC), 2^16 single with double accumulation 17.9 us a call against
 * 34.9 us for the general loop above; in isolation single data with double sums at 2^12-2^14 ran at
 * 4.4 scalars/ns with the 16-lane AVX2 loop and 5.7 with the AVX-512 one on the H100
 * machine's Intel Xeon (the float-to-double conversions bound it), while the AMD EPYC
 * ran both at ~6.5-7 (bound by L2). */
#define FAST_LANES 32
#define FAST_CLONES __attribute__((target_clones("avx512f", "avx2", "default"))) static
GPUDOT_FAST_LOOP(FAST_CLONES, fast_ff, float, float, FAST_LANES)
GPUDOT_FAST_LOOP(FAST_CLONES, fast_dd, double, double, FAST_LANES)
/* Single data summed in double is the one loop allowed to fuse s + x * y: the product of
 * two floats is exact in double, so the fused and unfused forms give the same bits (a
 * 24 x 24-bit product fits double's 53 bits, and its exponent range too).  The x86-64-v3/v4
 * clones have FMA (plain avx2 does not imply it); the default clone stays unfused.  Fusing
 * saves a port slot per 8 elements next to the two float-to-double conversions that bound
 * this loop: on the CI machine 4.6 -> 5.1 scalars/ns at 2^12-2^14 (bench/cpu_dot_loops.c). */
#define FAST_FD_CLONES                                                                             \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),                   \
                   optimize("fp-contract=fast"))) static
GPUDOT_FAST_LOOP(FAST_FD_CLONES, fast_fd, float, double, FAST_LANES)

/* "compensated" over contiguous real data: Dot2 in 32 lanes, vectorised where the clone has
 * fma (x86-64-v3 and v4).  One lane at a time was bound by the TwoSum chain's latency: gdot
 * of 10^7 doubles took 15.6 ms against 7.1 for "double" (CI machine, 2 cores); 32 lanes
 * 4.8 against 4.5.  gpudot_cpu_ops.c's norms use the same loops (gpudot_engine.h). */
GPUDOT_COMP_LOOP(GPUDOT_FMA_CLONES, gpudot_comp_d, double, 32)
GPUDOT_COMP_LOOP(GPUDOT_FMA_CLONES, gpudot_comp_f, float, 32)

/* One specialised run per (type, mode, cx, cy): the switch passes literals so that the
 * always-inline bodies above lose their branches. */
static acc_t run_dispatch(const gpudot_dot_req *r, int m, const void *x, int64_t sx, const void *y,
                          int64_t sy, int64_t n)
{
    if (!r->cx && !r->cy && sx == 1 && sy == 1 && m == M_COMP) {
        acc_t a;
        memset(&a, 0, sizeof a);
        if (r->type == GPUDOT_F64)
            gpudot_comp_d((const double *)x, (const double *)y, n, &a.s[0], &a.c[0]);
        else
            gpudot_comp_f((const float *)x, (const float *)y, n, &a.s[0], &a.c[0]);
        return a;
    }
    if (!r->cx && !r->cy && sx == 1 && sy == 1 && m != M_COMP) {
        acc_t a;
        memset(&a, 0, sizeof a);
        if (r->type == GPUDOT_F64)
            a.s[0] = fast_dd((const double *)x, (const double *)y, n);
        else if (m == M_NATIVE_F)
            a.s[0] = fast_ff((const float *)x, (const float *)y, n);
        else
            a.s[0] = fast_fd((const float *)x, (const float *)y, n);
        return a;
    }
    int key = (r->type == GPUDOT_F64) * 100 + m * 10 + (r->cx ? 2 : 0) + (r->cy ? 1 : 0);
#define CASE_F(M, CX, CY)                                                                          \
    case 0 * 100 + M * 10 + CX * 2 + CY:                                                           \
        return run_f((const float *)x, sx, (const float *)y, sy, n, M, CX, CY);
#define CASE_D(M, CX, CY)                                                                          \
    case 1 * 100 + M * 10 + CX * 2 + CY:                                                           \
        return run_d((const double *)x, sx, (const double *)y, sy, n, M, CX, CY);
#define CASES4(C, M) C(M, 0, 0) C(M, 0, 1) C(M, 1, 0) C(M, 1, 1)
    switch (key) {
        CASES4(CASE_F, 0)
        CASES4(CASE_F, 1)
        CASES4(CASE_F, 2)
        CASES4(CASE_D, 1)
        CASES4(CASE_D, 2)
    default: {
        acc_t z;
        memset(&z, 0, sizeof z);
        return z;
    }
    }
#undef CASE_F
#undef CASE_D
#undef CASES4
}

static int mode_of(const gpudot_dot_req *r)
{
    if (r->accum == GPUDOT_ACC_COMP)
        return M_COMP;
    if (r->accum == GPUDOT_ACC_NATIVE && r->type == GPUDOT_F32)
        return M_NATIVE_F;
    return M_PLAIN_D;
}

static const void *offset(const void *p, int64_t elems, size_t es)
{
    return (const char *)p + (size_t)elems * es;
}

/* One whole run, chunk by chunk in the order the parallel path below merges them (so an
 * output's bits do not depend on which path computed it). */
static acc_t run_chunked(const gpudot_dot_req *r, int m, const void *x, int64_t sx, size_t esx,
                         const void *y, int64_t sy, size_t esy, int64_t nk)
{
    acc_t acc = run_dispatch(r, m, x, sx, y, sy, nk < CHUNK ? nk : CHUNK);
    for (int64_t k0 = CHUNK; k0 < nk; k0 += CHUNK) {
        acc_t part = run_dispatch(r, m, offset(x, k0 * sx, esx), sx, offset(y, k0 * sy, esy), sy,
                                  nk - k0 < CHUNK ? nk - k0 : CHUNK);
        acc_merge(&acc, &part, m);
    }
    return acc;
}

/* A column-mode call's work for the pool: outputs [a0, a0 + per * t ...) whole (task t of
 * a batch of runs), or chunks [c0 + per t, c0 + per (t + 1)) of output a, before c1 (a
 * long run). */
typedef struct {
    const gpudot_dot_req *r;
    int m;
    size_t esx, esy;
    int64_t sx, sy;
    int64_t a0, a1, per; /* runs whole; per: runs a task, or a long run's chunks a task */
    const void *xa, *ya; /* one long run, chunk by chunk */
    int64_t c0, c1;
    acc_t *part;
} column_job;

/* Where the runs of output a start in x and y. */
static void run_start(const column_job *j, int64_t a, const void **x, const void **y)
{
    const gpudot_dot_req *r = j->r;
    *x = offset(r->x, (r->ax > 1 ? a : 0) * r->kx, j->esx);
    *y = offset(r->y, (r->ay > 1 ? a : 0) * r->ky, j->esy);
}

static void whole_runs(const column_job *j, int64_t b, int64_t e)
{
    const gpudot_dot_req *r = j->r;
    for (int64_t a = b; a < e; a++) {
        const void *x, *y;
        run_start(j, a, &x, &y);
        acc_t acc = run_chunked(r, j->m, x, j->sx, j->esx, y, j->sy, j->esy, r->nk);
        store(r, j->m, a, &acc);
    }
}

static void whole_runs_task(void *ctx, int64_t t)
{
    const column_job *j = ctx;
    int64_t b = j->a0 + t * j->per, e = b + j->per < j->a1 ? b + j->per : j->a1;
    whole_runs(j, b, e);
}

static void chunk_task(void *ctx, int64_t t)
{
    const column_job *j = ctx;
    const gpudot_dot_req *r = j->r;
    int64_t e = j->c0 + (t + 1) * j->per < j->c1 ? j->c0 + (t + 1) * j->per : j->c1;
    for (int64_t c = j->c0 + t * j->per; c < e; c++) {
        int64_t k0 = c * CHUNK, n = r->nk - k0 < CHUNK ? r->nk - k0 : CHUNK;
        j->part[c] = run_dispatch(r, j->m, offset(j->xa, k0 * j->sx, j->esx), j->sx,
                                  offset(j->ya, k0 * j->sy, j->esy), j->sy, n);
    }
}

/* nb == 1: output a is the run x(0, :, a) . y(0, :, a). */
static gpudot_status column_mode(const gpudot_dot_req *r, int m, gpudot_poll_fn poll)
{
    column_job j = {.r = r,
                    .m = m,
                    .esx = gpudot_esize(r, r->cx),
                    .esy = gpudot_esize(r, r->cy),
                    .sx = r->kx > 1,
                    .sy = r->ky > 1};
    int64_t nchunks = r->nk > CHUNK ? (r->nk + CHUNK - 1) / CHUNK : 1;

    if (nchunks == 1 || r->na * r->nk < 2 * PER_THREAD || r->na >= gpudot_pool_size()) {
        /* Short runs, at least a run per thread, or too little work to split a run:
         * runs whole, in tasks of about a chunk's work (or serial); polling every
         * POLL_WORK scalars. */
        int64_t per_poll = r->nk > 0 ? POLL_WORK / r->nk + 1 : r->na;
        j.per = r->nk > 0 ? (CHUNK + r->nk - 1) / r->nk : r->na;
        for (int64_t a0 = 0; a0 < r->na; a0 += per_poll) {
            int64_t a1 = a0 + per_poll < r->na ? a0 + per_poll : r->na;
            if ((a1 - a0) * r->nk <= SERIAL_WORK) {
                /* small: no threads at all (waking them costs more than the work) */
                whole_runs(&j, a0, a1);
            } else {
                j.a0 = a0;
                j.a1 = a1;
                gpudot_pool_run((a1 - a0 + j.per - 1) / j.per, whole_runs_task, &j);
            }
            if (poll && poll())
                return GPUDOT_INTERRUPTED;
        }
        return GPUDOT_OK;
    }

    /* Long runs: fixed chunks in parallel, merged in chunk order. */
    j.part = malloc((size_t)nchunks * sizeof *j.part);
    if (!j.part)
        return GPUDOT_OUT_OF_MEMORY;
    int64_t chunks_per_poll = POLL_WORK / CHUNK;
    gpudot_status st = GPUDOT_OK;
    for (int64_t a = 0; a < r->na && st == GPUDOT_OK; a++) {
        run_start(&j, a, &j.xa, &j.ya);
        for (int64_t c0 = 0; c0 < nchunks; c0 += chunks_per_poll) {
            int64_t c1 = c0 + chunks_per_poll < nchunks ? c0 + chunks_per_poll : nchunks;
            j.c0 = c0;
            j.c1 = c1;
            j.per = (c1 - c0 + TASKS_PER_THREAD * gpudot_pool_size() - 1) /
                    (TASKS_PER_THREAD * gpudot_pool_size());
            gpudot_pool_run((c1 - c0 + j.per - 1) / j.per, chunk_task, &j);
            if (poll && poll()) {
                st = GPUDOT_INTERRUPTED;
                break;
            }
        }
        if (st != GPUDOT_OK)
            break;
        for (int64_t c = 1; c < nchunks; c++)
            acc_merge(&j.part[0], &j.part[c], m);
        store(r, m, a, &j.part[0]);
    }
    free(j.part);
    return st;
}

/* Row mode, one type: acc[i] += x(i, k, a) y(i, k, a) with k outermost. */
#define DEFINE_ROWS(SUF, T)                                                                        \
    static void rows_##SUF(const gpudot_dot_req *r, int m, int64_t a, acc_t *acc)                  \
    {                                                                                              \
        int cx = r->cx, cy = r->cy;                                                                \
        int64_t ex = cx ? 2 : 1, ey = cy ? 2 : 1;                                                  \
        const T *x = (const T *)r->x + (r->ax > 1 ? a : 0) * r->bx * r->kx * ex;                   \
        const T *y = (const T *)r->y + (r->ay > 1 ? a : 0) * r->by * r->ky * ey;                   \
        int64_t sbx = r->bx > 1, sby = r->by > 1;                                                  \
        for (int64_t k = 0; k < r->nk; k++) {                                                      \
            const T *xk = x + (r->kx > 1 ? k : 0) * r->bx * ex;                                    \
            const T *yk = y + (r->ky > 1 ? k : 0) * r->by * ey;                                    \
            for (int64_t i = 0; i < r->nb; i++) {                                                  \
                const T *px = xk + i * sbx * ex, *py = yk + i * sby * ey;                          \
                acc_elem(&acc[i], m, cx, cy, px[0], cx ? px[1] : 0.0, py[0], cy ? py[1] : 0.0);    \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_ROWS(f, float)
DEFINE_ROWS(d, double)

static gpudot_status row_mode(const gpudot_dot_req *r, int m, gpudot_poll_fn poll)
{
    acc_t *acc = malloc((size_t)r->nb * sizeof *acc);
    if (!acc)
        return GPUDOT_OUT_OF_MEMORY;
    int64_t work = 0;
    for (int64_t a = 0; a < r->na; a++) {
        memset(acc, 0, (size_t)r->nb * sizeof *acc);
        if (r->type == GPUDOT_F32)
            rows_f(r, m, a, acc);
        else
            rows_d(r, m, a, acc);
        for (int64_t i = 0; i < r->nb; i++)
            store(r, m, a * r->nb + i, &acc[i]);
        work += r->nb * r->nk;
        if (work > POLL_WORK) {
            work = 0;
            if (poll && poll()) {
                free(acc);
                return GPUDOT_INTERRUPTED;
            }
        }
    }
    free(acc);
    return GPUDOT_OK;
}

gpudot_status gpudot_cpu_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_status st = gpudot_check_req(r);
    if (st != GPUDOT_OK)
        return st;
    if (r->x_dev || r->y_dev)
        return GPUDOT_NO_DEVICE; /* device pointers: the gateway gathers them first */
    if (r->nb == 0 || r->na == 0)
        return GPUDOT_OK;
    if (r->accum == GPUDOT_ACC_EXACT)
        return gpudot_cpu_exact(r, poll);
    if (r->op != GPUDOT_OP_DOT)
        return gpudot_cpu_reduce(r, poll);
    int m = mode_of(r);
    return r->nb == 1 ? column_mode(r, m, poll) : row_mode(r, m, poll);
}
