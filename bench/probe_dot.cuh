/*
 * The small split dot of the probes (bench/cluster_probe.cu, bench/prequeue_probe.cu): the
 * engine's load pattern (256 threads a block, 16-byte loads, four in flight per thread and
 * operand, the blocks striding through the run together) and its small finish through slots
 * (each block's thread 0 takes a ticket; every block but the last to take one stores its
 * sum in a slot, and the last block's warp 0 merges them, lane l block l, by a shuffle
 * tree), with the
 * engine's own slot accesses, empty marks and result store (cuda/reduce_kernels.cuh).
 */
#pragma once

#include "../cuda/reduce_kernels.cuh"

using gpudot::kOutEmpty64;
using gpudot::kSlotEmpty;
using gpudot::slot_load;
using gpudot::slot_store;
using gpudot::store_marked;

constexpr int kT = 256;

__device__ __forceinline__ double warp_sum(double a)
{
    for (int o = 16; o > 0; o >>= 1)
        a += __shfl_down_sync(0xffffffffu, a, o);
    return a;
}

/* thread 0 gets the block's sum */
__device__ __forceinline__ double block_sum(double a)
{
    __shared__ double w[kT / 32];
    a = warp_sum(a);
    if ((threadIdx.x & 31) == 0)
        w[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x < 32) {
        a = threadIdx.x < kT / 32 ? w[threadIdx.x] : 0.0;
        for (int o = 4; o > 0; o >>= 1)
            a += __shfl_down_sync(0xffffffffu, a, o);
    }
    return a;
}

/* thread t of nt: vectors t, t + nt, ... of nv, four in flight per operand */
__device__ __forceinline__ double run(const double2 *x, const double2 *y, long nv, int t, int nt)
{
    double acc = 0;
    long v = t;
    for (; v + 3L * nt < nv; v += 4L * nt) {
        double2 a[4], b[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            a[u] = __ldg(x + v + u * nt);
            b[u] = __ldg(y + v + u * nt);
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc = fma(a[u].y, b[u].y, fma(a[u].x, b[u].x, acc));
    }
    for (; v < nv; v += nt) {
        double2 a = __ldg(x + v), b = __ldg(y + v);
        acc = fma(a.y, b.y, fma(a.x, b.x, acc));
    }
    return acc;
}

/* the slots' finish of a dot whose thread holds acc: the result into res (mapped memory) */
__device__ __forceinline__ void slots_finish(double acc, unsigned long long *slots, unsigned *ticket,
                                             double *res)
{
    __shared__ bool last;
    __shared__ double own;
    int b = blockIdx.x, nb = gridDim.x;
    unsigned tk = 0;
    if (threadIdx.x == 0)
        tk = atomicAdd(ticket, 1u);
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
        last = tk == (unsigned)nb - 1;
        if (last)
            own = acc;
        else
            slot_store(slots + b, (unsigned long long)__double_as_longlong(acc));
    }
    __syncthreads();
    if (!last || threadIdx.x >= 32)
        return;
    int l = threadIdx.x;
    double v = 0;
    if (l < nb) {
        if (l == b) {
            v = own;
        } else {
            unsigned long long w = slot_load(slots + l);
            while (w == kSlotEmpty)
                w = slot_load(slots + l);
            slots[l] = kSlotEmpty;
            v = __longlong_as_double((long long)w);
        }
    }
    v = warp_sum(v);
    if (l == 0) {
        store_marked(res, v);
        *ticket = 0;
    }
}
