/*
 * Warp columns (reduce_kernels.cuh's column mode for short runs or many outputs): a group
 * of lanes an output, and a cosine against one broadcast vector's own kernel.
 */
#pragma once

#include "reduce_kernels.cuh"

namespace gpudot
{

/* Lane `from`'s live fields of a, to every lane */
template <class Op>
__device__ __forceinline__ typename Op::Acc shfl_from(const Op &op, const typename Op::Acc &a,
                                                      int from)
{
    return shfl_live(op, a, [&](auto v) { return __shfl_sync(0xffffffffu, v, from); });
}

/* Output a's sum by the L lanes of a group (sl: this lane's place in it), reduced across
 * them (every lane of the group holds it); an empty sum past na */
template <class Op>
__device__ __forceinline__ typename Op::Acc group_sum(const Args &p, const Op &op, int64_t a,
                                                      int sl, int L)
{
    using T = typename Op::T;
    constexpr int ex = Op::CX ? 2 : 1, ey = Op::CY ? 2 : 1;
    typename Op::Acc acc;
    op.init(acc);
    if (a < p.na) {
        const T *x = (const T *)p.x + run_start(a, p.kx, p.ax, ex);
        const T *y = Op::UNARY ? x : (const T *)p.y + run_start(a, p.ky, p.ay, ey);
        run_sum(op, acc, x, p.kx > 1, y, p.ky > 1, 0, p.nk, sl, L);
    }
    return warp_reduce(op, acc, L);
}

/*
 * columns_warp for Ops whose last step is costly (Op::kBatchFinish: a cosine's square
 * roots and division): a warp sums `batch` rounds of outputs, each group's sum moving to
 * the lane numbered by its round, then finishes them all at once, where one lane a group
 * finishing each round left the others idle through that step.  The same sums in the same
 * order: the same bits.  (Dots and norms keep the plain loop: this one cost them registers,
 * 64 -> 80 and a spill for the single dot in double, nvcc -Xptxas -v, sm_90.)
 */
template <class Op>
__device__ __forceinline__ void columns_warp_batched(const Args &p, const Op &op)
{
    int lane = threadIdx.x & 31, L = p.lanes, per = 32 / L, B = p.batch > 1 ? p.batch : 1;
    int sub = lane / L, sl = lane % L;
    int64_t warp = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * (kThreads / 32);
    int64_t round = (int64_t)per * B;
    for (int64_t a0 = warp * round; a0 < p.na; a0 += nwarps * round) {
        typename Op::Acc mine; /* round sl's sum of this lane's group */
        op.init(mine);
        for (int b = 0; b < B; b++) {
            typename Op::Acc acc = group_sum(p, op, a0 + b * per + sub, sl, L);
            if (B > 1)
                acc = shfl_from(op, acc, lane - sl);
            if (sl == b)
                mine = acc;
        }
        int64_t a = a0 + sl * per + sub;
        if (sl < B && a < p.na)
            finish(op, p, a, mine);
    }
}

/*
 * Column mode, short runs or many outputs (nb == 1): groups of `lanes` lanes per output
 * (32 / lanes outputs per warp at a time, so that runs shorter than a warp's loads do not
 * leave lanes idle: 64 x 2^21 single was at 78% of the read ceiling with whole warps),
 * grid-stride over outputs; no workspace, no second pass.
 */
template <class Op>
__global__ void __launch_bounds__(kThreads, Op::kWarpBlocks) columns_warp(Args p, Op op)
{
    if constexpr (Op::kBatchFinish) {
        columns_warp_batched(p, op);
    } else {
        int lane = threadIdx.x & 31, L = p.lanes, per = 32 / L;
        int sub = lane / L, sl = lane % L;
        int64_t warp = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5);
        int64_t nwarps = (int64_t)gridDim.x * (kThreads / 32);
        for (int64_t a0 = warp * per; a0 < p.na; a0 += nwarps * per) {
            int64_t a = a0 + sub;
            typename Op::Acc acc = group_sum(p, op, a, sl, L);
            if (sl == 0 && a < p.na)
                finish(op, p, a, acc);
        }
    }
}

/* s + a b, the product rounded on its own (gpudot_math.h's GD_MUL); EXACT (products of
 * singles in double): one fma, the same bits */
template <bool EXACT> __device__ __forceinline__ double add_mul(double s, double a, double b)
{
    return EXACT ? fma(a, b, s) : s + __dmul_rn(a, b);
}
template <bool EXACT> __device__ __forceinline__ float add_mul(float s, float a, float b)
{
    return s + __fmul_rn(a, b);
}

/*
 * Warp columns of a real cosine or plain dot product against one vector broadcast over the
 * columns (a query against a matrix, gcosine (q, D), gdot (q, D)), runs of 32 lanes' loads
 * and more: the vector converted to the accumulator once, into shared memory, and (a
 * cosine) its squared norm summed once a block (a fixed order: the same bits in every
 * block); a warp a column then pays its dot product (and its own squares), one conversion
 * an element where columns_warp paid two (cosines: 768 x 10^6 singles on an H100 1.54 ms
 * against gdot's 1.02; then 1.04 against gdot's 1.18 in one ncu run).  The loads of a lane
 * a constant 32 elements apart, four in flight, as search.cu's search_few (a stride of a
 * run-time group width, rounds finished a lane each: 1.67 ms).  The Op's last step (FAST
 * sums: a NaN where they could not vouch for a result).  Runs of at most kQueryMax.
 */
template <class Op> __global__ void __launch_bounds__(kThreads) columns_query(Args p, Op op)
{
    using T = typename Op::T;
    using A = typename Op::A;
    constexpr bool EX = sizeof(T) == 4 && sizeof(A) == 8, COS = Op::kCos;
    __shared__ A qs[kQueryMax];
    bool qx = p.ax == 1; /* the vector is x (else y) */
    const T *q = (const T *)(qx ? p.x : p.y), *M = (const T *)(qx ? p.y : p.x);
    for (int64_t k = threadIdx.x; k < p.nk; k += kThreads)
        qs[k] = (A)q[k];
    __syncthreads();
    int lane = threadIdx.x & 31;
    A qq = 0;
    if constexpr (COS) {
        for (int64_t k = lane; k < p.nk; k += 32)
            qq = add_mul<EX>(qq, qs[k], qs[k]);
        for (int o = 16; o > 0; o >>= 1) /* (a butterfly: every lane the same sum) */
            qq += __shfl_xor_sync(0xffffffffu, qq, o);
    }
    int64_t warp = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * (kThreads / 32);
    for (int64_t a = warp; a < p.na; a += nwarps) {
        const T *col = M + a * p.nk;
        A dot = 0, ss = 0;
#pragma unroll 4
        for (int64_t k = lane; k < p.nk; k += 32) {
            A x = (A)col[k];
            dot = add_mul<EX>(dot, qs[k], x);
            if constexpr (COS)
                ss = add_mul<EX>(ss, x, x);
        }
        for (int o = 16; o > 0; o >>= 1) {
            dot += __shfl_down_sync(0xffffffffu, dot, o);
            if constexpr (COS)
                ss += __shfl_down_sync(0xffffffffu, ss, o);
        }
        if (lane == 0) {
            typename Op::Acc acc;
            op.init(acc);
            if constexpr (COS) {
                acc.xr = dot;
                acc.xx = qx ? qq : ss;
                acc.yy = qx ? ss : qq;
            } else {
                acc.s0 = dot;
            }
            finish(op, p, a, acc);
        }
    }
}

} // namespace gpudot
