/*
 * CPU engine: similarity search (gsearch on host data), and the merge of candidates that
 * both engines end with.
 *
 * Scores come a chunk of columns at a time (CHUNK_BYTES of them): the pool's threads take
 * blocks of NB columns, and each block runs through the queries QG at a time, so a block
 * of D stays in cache while every query passes (a small GEMM); each dot product sums over
 * LANES lanes merged in a fixed order, in the accumulator (double: a single's products
 * exact).  Then each chunk's best k (gpudot_topk_host), then the merge.  The same rules as
 * the device's (cuda/search.cu): cosines NaN for zero vectors and Inf elements, clamped,
 * and "unsafe" where a squared norm overflowed or lost precision in the accumulator.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpudot_engine.h"
#include "gpudot_fast_loop.h"

#define LANES 8
#define QG 8                            /* queries a pass over a block */
#define NB 32                           /* columns a task: 96 KB of 768-row singles */
#define CHUNK_BYTES ((int64_t)64 << 20) /* scores of a chunk (host memory) */

typedef struct {
    const gpudot_search_req *r;
    const void *D;  /* the chunk's first column */
    const void *qa; /* the queries in the accumulator's type, q d + k */
    const void *q2; /* their squared norms (cosines), the same type */
    int64_t nc;     /* columns in the chunk */
    void *s;        /* the chunk's scores, q nc + j, D's class */
    int bad;        /* (tasks only set it) */
} search_job;

/* A score from its sums (the device's score () in cuda/search.cu) */
#define DEFINE_SCORE(A, TINY)                                                                      \
    static A score_##A(A dot, A a2, A b2, int cosine, int checked, int *bad)                       \
    {                                                                                              \
        if (!cosine)                                                                               \
            return dot;                                                                            \
        if (checked && (a2 < TINY || b2 < TINY || isinf(a2) || isinf(b2)))                         \
            *bad = 1;                                                                              \
        A v = a2 > 0 && b2 > 0 && !isinf(a2) && !isinf(b2) ? dot / (sqrt(a2) * sqrt(b2)) : (A)NAN; \
        return v > 1 ? 1 : v < -1 ? -1 : v;                                                        \
    }
DEFINE_SCORE(double, 0x1p-969)
DEFINE_SCORE(float, 0x1p-102f)

/* Squared norms: the engine's lane loop (gpudot_fast_loop.h), x . x in LANES lanes */
GPUDOT_FAST_LOOP(static, lanes_fd, float, double, LANES)
GPUDOT_FAST_LOOP(static, lanes_ff, float, float, LANES)
GPUDOT_FAST_LOOP(static, lanes_dd, double, double, LANES)

/* The scores of block b of the chunk: T data, A accumulator, LOOP its lane loop */
#define DEFINE_BLOCK(NAME, T, A, LOOP)                                                             \
    static void block_##NAME(void *ctx, int64_t b)                                                 \
    {                                                                                              \
        search_job *J = ctx;                                                                       \
        const gpudot_search_req *r = J->r;                                                         \
        int64_t d = r->dim, m = r->m, nc = J->nc, j0 = b * NB, j1 = j0 + NB < nc ? j0 + NB : nc;   \
        const T *D = J->D;                                                                         \
        const A *qa = J->qa, *a2 = J->q2;                                                          \
        T *s = J->s;                                                                               \
        int checked = !(r->single && r->accum != GPUDOT_ACC_NATIVE), bad = 0;                      \
        A b2[NB];                                                                                  \
        for (int64_t j = j0; j < j1; j++)                                                          \
            b2[j - j0] = r->cosine ? LOOP(D + j * d, D + j * d, d) : 0;                            \
        for (int64_t q0 = 0; q0 < m; q0 += QG) {                                                   \
            int g = m - q0 < QG ? (int)(m - q0) : QG;                                              \
            for (int64_t j = j0; j < j1; j++) {                                                    \
                const T *x = D + j * d;                                                            \
                A acc[QG][LANES];                                                                  \
                memset(acc, 0, sizeof acc);                                                        \
                int64_t k = 0;                                                                     \
                for (; k + LANES <= d; k += LANES)                                                 \
                    for (int t = 0; t < g; t++)                                                    \
                        for (int l = 0; l < LANES; l++)                                            \
                            acc[t][l] += qa[(q0 + t) * d + k + l] * (A)x[k + l];                   \
                for (int l = 0; k < d; k++, l++)                                                   \
                    for (int t = 0; t < g; t++)                                                    \
                        acc[t][l] += qa[(q0 + t) * d + k] * (A)x[k];                               \
                for (int t = 0; t < g; t++) {                                                      \
                    for (int w = LANES / 2; w > 0; w /= 2)                                         \
                        for (int l = 0; l < w; l++)                                                \
                            acc[t][l] += acc[t][l + w];                                            \
                    s[(q0 + t) * nc + j] =                                                         \
                        (T)score_##A(acc[t][0], a2[q0 + t], b2[j - j0], r->cosine, checked, &bad); \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (bad)                                                                                   \
            __atomic_store_n(&J->bad, 1, __ATOMIC_RELAXED);                                        \
    }
DEFINE_BLOCK(fd, float, double, lanes_fd)
DEFINE_BLOCK(ff, float, float, lanes_ff)
DEFINE_BLOCK(dd, double, double, lanes_dd)

gpudot_status gpudot_search_merge(gpudot_search_req *r, const void *cv, const int64_t *ci,
                                  int64_t W)
{
    int64_t m = r->m, kk = r->k < W ? r->k : W;
    if (kk <= 0 || m == 0)
        return GPUDOT_OK;
    gpudot_status st = gpudot_topk_host(cv, r->single, 1, W, m, r->k, 0, r->scores, r->idx);
    for (int64_t q = 0; st == GPUDOT_OK && q < m; q++)
        for (int64_t t = 0; t < kk; t++) {
            double *x = &r->idx[q * kk + t];
            *x = (double)(ci[q * W + (int64_t)*x - 1] + 1);
        }
    return st;
}

gpudot_status gpudot_search_host(gpudot_search_req *r)
{
    int64_t d = r->dim, m = r->m, n = r->n, k = r->k;
    size_t es = r->single ? 4 : 8;
    int acc_f = r->single && r->accum == GPUDOT_ACC_NATIVE;
    size_t as = acc_f ? 4 : 8;
    if (m == 0 || n == 0)
        return GPUDOT_OK;
    int64_t nc = CHUNK_BYTES / (int64_t)(m * es);
    nc = nc < NB ? NB : nc;
    nc = nc < n ? nc : n;
    int64_t chunks = (n + nc - 1) / nc, kk = k < 0 ? 0 : (k < nc ? k : nc), W = chunks * kk;
    void *qa = malloc((size_t)(d * m) * as + 1), *q2 = malloc((size_t)m * as),
         *s = malloc((size_t)(nc * m) * es);
    void *cv = W ? malloc((size_t)(W * m) * es) : NULL,
         *tv = kk ? malloc((size_t)(kk * m) * es) : NULL;
    int64_t *ci = W ? malloc((size_t)(W * m) * 8) : NULL;
    double *ti = kk ? malloc((size_t)(kk * m) * 8) : NULL;
    gpudot_status st = GPUDOT_OK;
    if (!qa || !q2 || !s || (W && (!cv || !ci || !tv || !ti)))
        st = GPUDOT_OUT_OF_MEMORY;
    for (int64_t e = 0; st == GPUDOT_OK && e < d * m; e++) {
        double v = r->single ? (double)((const float *)r->q)[e] : ((const double *)r->q)[e];
        if (acc_f)
            ((float *)qa)[e] = (float)v;
        else
            ((double *)qa)[e] = v;
    }
    /* the queries' squared norms, once (in the accumulator already: exact there) */
    for (int64_t q = 0; st == GPUDOT_OK && q < m; q++) {
        if (acc_f)
            ((float *)q2)[q] =
                r->cosine ? lanes_ff((float *)qa + q * d, (float *)qa + q * d, d) : 0;
        else
            ((double *)q2)[q] =
                r->cosine ? lanes_dd((double *)qa + q * d, (double *)qa + q * d, d) : 0;
    }
    for (int64_t c = 0; st == GPUDOT_OK && c < chunks; c++) {
        int64_t j0 = c * nc, ncc = n - j0 < nc ? n - j0 : nc;
        search_job J = {r, (const char *)r->parts[0].d + (size_t)(j0 * d) * es, qa, q2, ncc, s, 0};
        gpudot_task_fn fn = acc_f ? block_ff : r->single ? block_fd : block_dd;
        gpudot_pool_run((ncc + NB - 1) / NB, fn, &J);
        r->unsafe |= J.bad;
        if (k < 0) { /* every score: rows j0 .. j0 + ncc of the n x m result */
            for (int64_t q = 0; q < m; q++)
                memcpy((char *)r->scores + (size_t)(q * n + j0) * es,
                       (char *)s + (size_t)(q * ncc) * es, (size_t)ncc * es);
            continue;
        }
        int64_t kc = k < ncc ? k : ncc;
        st = gpudot_topk_host(s, r->single, 1, ncc, m, kc, 0, tv, ti);
        for (int64_t q = 0; st == GPUDOT_OK && q < m; q++)
            for (int64_t t = 0; t < kk; t++) { /* a short last chunk: NaN, never chosen first */
                int64_t at = q * W + c * kk + t;
                if (r->single)
                    ((float *)cv)[at] = t < kc ? ((float *)tv)[q * kc + t] : NAN;
                else
                    ((double *)cv)[at] = t < kc ? ((double *)tv)[q * kc + t] : NAN;
                ci[at] = t < kc ? (int64_t)ti[q * kc + t] - 1 + j0 : n;
            }
    }
    if (st == GPUDOT_OK && W)
        st = gpudot_search_merge(r, cv, ci, W);
    free(qa), free(q2), free(s), free(cv), free(ci), free(tv), free(ti);
    return st;
}
