/*
 * The best k of runs of real values on the device (internal to the CUDA engine): garray's
 * maxk and mink (topk.cu) and the search's selection from each chunk of scores (search.cu).
 *
 * Order: by value (largest first; is_min: smallest first), NaN after every number, and
 * equal values (NaN among NaN) by the lowest index, so a result equals the first k of a
 * stable sort and does not depend on the grid.
 */
#pragma once

#include <cstdint>

#include "engine.cuh"

namespace gpudot
{

/* The largest k the device selects; larger k go through the host (gpudot_topk_host). */
constexpr int64_t kTopkMax = 256;

/* whether (a, ia) goes before (b, ib); an index < 0 is an empty slot, after everything */
template <typename T>
__device__ __forceinline__ bool topk_before(T a, int64_t ia, T b, int64_t ib, bool is_min)
{
    if (ib < 0 || ia < 0)
        return ia >= 0 && ib < 0;
    bool na = a != a, nb = b != b;
    if (na || nb)
        return na && nb ? ia < ib : nb;
    if (a != b)
        return is_min ? a < b : a > b;
    return ia < ib;
}

/* The best kk = min(k, n) of each run of x, seen as pre x n x post (the runs: along the
 * middle dimension), best first, into val (T) and idx (0-based) on the device, laid out
 * pre x kk x post.  k <= kTopkMax.  Temporary device memory: at most about 64 MB. */
template <typename T>
gpudot_status topk_runs(const T *x, int64_t pre, int64_t n, int64_t post, int64_t k, bool is_min,
                        T *val, int64_t *idx, cudaStream_t stream);

} // namespace gpudot
