/*
 * CPU engine: the best k of runs of real values (maxk, mink and the search's selection),
 * in the device's order (cuda/topk.cuh): by value, largest first (is_min: smallest), NaN
 * after every number, equal values by the lowest index: the first k of a stable sort.
 *
 * A partial selection, not a sort: each run keeps a heap of its best k whose root is the
 * worst kept, so an element that does not beat the root costs one comparison (n log k in
 * the worst case); the heap is sorted at the end.  Runs go to the pool's threads.
 */
#include <stdlib.h>

#include "gpudot_engine.h"

typedef struct {
    double v; /* a float widens exactly */
    int64_t i;
} item;

/* whether a goes before b */
static int before(item a, item b, int is_min)
{
    int na = a.v != a.v, nb = b.v != b.v;
    if (na || nb)
        return na && nb ? a.i < b.i : nb;
    if (a.v != b.v)
        return is_min ? a.v < b.v : a.v > b.v;
    return a.i < b.i;
}

/* restores the heap below slot s: every parent goes after its children (root: the worst) */
static void sift_down(item *h, int64_t m, int64_t s, int is_min)
{
    for (;;) {
        int64_t c = 2 * s + 1;
        if (c >= m)
            return;
        if (c + 1 < m && before(h[c], h[c + 1], is_min))
            c++;
        if (!before(h[s], h[c], is_min))
            return;
        item t = h[s];
        h[s] = h[c];
        h[c] = t;
        s = c;
    }
}

typedef struct {
    const void *x;
    int single, is_min;
    int64_t pre, n, kk;
    void *val;
    double *idx;
    item *heaps; /* a heap of kk a run */
} job;

static void select_run(void *ctx, int64_t o)
{
    const job *J = ctx;
    int64_t p = o % J->pre, q = o / J->pre, kk = J->kk, pre = J->pre;
    int64_t base = p + q * pre * J->n;
    item *h = J->heaps + o * kk;
    const float *xf = J->x;
    const double *xd = J->x;
    for (int64_t j = 0; j < J->n; j++) {
        item a = {J->single ? (double)xf[base + j * pre] : xd[base + j * pre], j};
        if (j < kk) {
            h[j] = a; /* heapified once full */
            if (j == kk - 1)
                for (int64_t s = kk / 2 - 1; s >= 0; s--)
                    sift_down(h, kk, s, J->is_min);
        } else if (before(a, h[0], J->is_min)) {
            h[0] = a;
            sift_down(h, kk, 0, J->is_min);
        }
    }
    /* sorted, best first: the worst goes to the end, one at a time */
    for (int64_t m = kk; m > 1; m--) {
        item t = h[0];
        h[0] = h[m - 1];
        h[m - 1] = t;
        sift_down(h, m - 1, 0, J->is_min);
    }
    for (int64_t s = 0; s < kk; s++) {
        int64_t at = p + s * pre + q * pre * kk;
        if (J->single)
            ((float *)J->val)[at] = (float)h[s].v;
        else
            ((double *)J->val)[at] = h[s].v;
        J->idx[at] = (double)(h[s].i + 1);
    }
}

gpudot_status gpudot_topk_host(const void *x, int single, int64_t pre, int64_t n, int64_t post,
                               int64_t k, int is_min, void *val, double *idx)
{
    int64_t runs = pre * post, kk = k < n ? k : n;
    if (runs == 0 || kk <= 0)
        return GPUDOT_OK;
    job J = {x, single, is_min, pre, n, kk, val, idx, NULL};
    J.heaps = malloc((size_t)(runs * kk) * sizeof(item));
    if (!J.heaps)
        return GPUDOT_OUT_OF_MEMORY;
    if (runs == 1 || runs * n < ((int64_t)1 << 16))
        for (int64_t o = 0; o < runs; o++)
            select_run(&J, o);
    else
        gpudot_pool_run(runs, select_run, &J);
    free(J.heaps);
    return GPUDOT_OK;
}
