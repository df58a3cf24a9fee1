/*
 * The reduction ladder: the textbook kernels for one dot product x . y, each adding one
 * idea to the one before, for gdot (x, y, "kernel", K).  T is the element type, A the
 * accumulator (float for single "native", else double).  The production kernel ("fused",
 * the default) is columns_split in reduce_kernels.cuh.  Host side: gpudot_cuda_ladder.
 *
 *   atomic   one thread per element, each atomicAdd-ing its product into one result.
 *            Idea: every thread works independently.  Cost: n atomics on one address,
 *            serialised in L2; float atomics also make the last bits vary run to run.
 *   shared   one element per thread, a tree in shared memory per block (sequential
 *            addressing), block sums copied back and added on the host.
 *            Idea: cooperate inside a block.  Cost: __syncthreads per level, one block
 *            per 256 elements, a second pass (copy + host loop) over n / 256 sums.
 *   shuffle  a grid-stride loop (each thread sums many elements in a register), warp
 *            shuffles, one atomicAdd per warp.  Idea: registers and warp shuffles
 *            instead of shared memory; a grid sized to the GPU.  Cost: one atomic per
 *            warp (still order-dependent bits).
 *   vector   as shuffle, with 16-byte loads (float4 / double2).  Idea: fewer, wider
 *            memory instructions.  Cost: a scalar tail, and alignment to check.
 *   fused    (reduce_kernels.cuh) two phases in one launch: blocks leave partial sums,
 *            the last block to finish (an integer ticket) adds them in a fixed order.
 *            Idea: no float atomics and no host pass: bitwise repeatable, one launch.
 */
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace gpudot
{
namespace ladder
{

constexpr int kLThreads = 256; /* block size of the ladder kernels */

template <typename T, typename A>
__global__ void __launch_bounds__(kLThreads) k_atomic(const T *x, const T *y, int64_t n, A *out)
{
    int64_t i = (int64_t)blockIdx.x * kLThreads + threadIdx.x;
    for (; i < n; i += (int64_t)gridDim.x * kLThreads) /* grid-stride only past 2^31 blocks */
        atomicAdd(out, (A)x[i] * (A)y[i]);
}

template <typename T, typename A>
__global__ void __launch_bounds__(kLThreads)
    k_shared(const T *x, const T *y, int64_t n, A *block_sums)
{
    __shared__ A s[kLThreads];
    int64_t i = (int64_t)blockIdx.x * kLThreads + threadIdx.x;
    s[threadIdx.x] = i < n ? (A)x[i] * (A)y[i] : A(0);
    __syncthreads();
    for (int w = kLThreads / 2; w > 0; w >>= 1) { /* sequential addressing: no bank conflicts */
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = s[0];
}

template <typename A> __device__ __forceinline__ A warp_sum(A v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

template <typename T, typename A>
__global__ void __launch_bounds__(kLThreads) k_shuffle(const T *x, const T *y, int64_t n, A *out)
{
    A v = 0;
    for (int64_t i = (int64_t)blockIdx.x * kLThreads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * kLThreads)
        v += (A)x[i] * (A)y[i];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}

template <typename T> struct Vec;
template <> struct Vec<float> {
    using type = float4;
};
template <> struct Vec<double> {
    using type = double2;
};

template <typename A> __device__ __forceinline__ A vdot(const float4 &a, const float4 &b)
{
    return (A)a.x * (A)b.x + (A)a.y * (A)b.y + (A)a.z * (A)b.z + (A)a.w * (A)b.w;
}
template <typename A> __device__ __forceinline__ A vdot(const double2 &a, const double2 &b)
{
    return (A)a.x * (A)b.x + (A)a.y * (A)b.y;
}

template <typename T, typename A>
__global__ void __launch_bounds__(kLThreads) k_vector(const T *x, const T *y, int64_t n, A *out)
{
    using V = typename Vec<T>::type;
    constexpr int VN = sizeof(V) / sizeof(T);
    int64_t t = (int64_t)blockIdx.x * kLThreads + threadIdx.x, nt = (int64_t)gridDim.x * kLThreads;
    A v = 0;
    int64_t nv = n / VN; /* cudaMalloc'd arrays are 256-byte aligned */
    const V *xv = (const V *)x, *yv = (const V *)y;
    for (int64_t i = t; i < nv; i += nt)
        v += vdot<A>(__ldg(xv + i), __ldg(yv + i));
    for (int64_t i = nv * VN + t; i < n; i += nt) /* tail: < VN elements */
        v += (A)x[i] * (A)y[i];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}

} // namespace ladder
} // namespace gpudot
