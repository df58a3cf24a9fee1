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

/* One level of a transposed group sum: lanes sl and sl ^ off hold partial sums of two
 * rounds, lo and hi; the lane without bit off keeps lo's pair, the other hi's, one shuffle
 * a field.  Each pair merged lower lane first, as warp_reduce merges it: the same bits. */
template <class Op>
__device__ __forceinline__ typename Op::Acc
exchange(const Op &op, const typename Op::Acc &lo, const typename Op::Acc &hi, int off, bool upper)
{
    using A = typename Op::A;
    typename Op::Acc first, second;
    op.init(first);
    op.init(second);
    const A *pl = reinterpret_cast<const A *>(&lo), *ph = reinterpret_cast<const A *>(&hi);
    A *pf = reinterpret_cast<A *>(&first), *ps = reinterpret_cast<A *>(&second);
#pragma unroll
    for (int j = 0; j < nfields<Op>(); j++)
        if (live<Op>(j)) {
            A recv = __shfl_xor_sync(0xffffffffu, upper ? pl[j] : ph[j], off);
            pf[j] = upper ? recv : pl[j];
            ps[j] = upper ? ph[j] : recv;
        }
    op.merge(first, second);
    return first;
}

/*
 * A warp's sums of outputs whose last step is costly (Op::kBatchFinish: a cosine's square
 * roots and division), carried from round to round (columns_staged: from tile to tile), B
 * rounds (B: the lanes of a group) finished at once, every lane its own, where one lane a
 * group finishing each round left the others idle through that step.  The rounds' partial
 * sums are reduced transposed, as a binary counter: round b's pairs with round b - 1's at
 * the first level (lanes B/2 apart), and so on: a batch takes B - 1 shuffles of a sum, where
 * reducing each round and moving it to its lane took B log2 B + B (64 x 2^21 single
 * cosines, 8 lanes: 24 shuffle instructions a round -> 5.25).  Lane sl ends with round
 * bit-reverse (sl); the pairs of each round as warp_reduce's tree: the same bits.  Sums of
 * more fields (compensated) reduce each round and move it to its lane: their levels
 * spilled (a 96-272 byte stack frame at 128 registers; nvcc -Xptxas -v, sm_90).
 */
template <class Op> struct BatchFinish {
    static constexpr bool kTransposed = live_count<Op>() <= 4;
    /* level k's pending pair sum (a round of bit k clear); named, not an array, so that
     * they stay in registers (an array went to a 584-byte stack frame: 2.5x slower) */
    typename Op::Acc l0, l1, l2, l3, l4;
    int64_t a = -1;             /* the output this lane finishes (-1: none) */
    int b = 0, B = 1, bits = 0; /* rounds in, and rounds a batch (2^bits) */
    __device__ __forceinline__ void set_rounds(int rounds)
    {
        B = rounds;
        bits = 31 - __clz(rounds);
    }
    /* Output o's partial sum acc in this lane (sl of its group; o -1: an empty sum) */
    __device__ __forceinline__ void add(const Args &p, const Op &op, int64_t o,
                                        typename Op::Acc acc, int sl)
    {
        if constexpr (!kTransposed) {
            acc = warp_reduce(op, acc, B);
            if (B > 1)
                acc = shfl_from(op, acc, (threadIdx.x & 31) - sl);
            if (sl == b) {
                l0 = acc;
                a = o;
            }
            if (++b == B)
                flush(p, op, sl);
            return;
        }
        if ((bits ? (int)(__brev((unsigned)sl) >> (32 - bits)) : 0) == b)
            a = o;
        /* level k: keep acc until its pair comes (true), or merge it with the one kept */
        auto keep = [&](typename Op::Acc &l, int k) {
            if (k >= bits)
                return false;
            if (!((b >> k) & 1)) {
                l = acc;
                return true;
            }
            int off = B >> (k + 1);
            acc = exchange(op, l, acc, off, (sl & off) != 0);
            return false;
        };
        if (keep(l0, 0) || keep(l1, 1) || keep(l2, 2) || keep(l3, 3) || keep(l4, 4)) {
            b++;
            return;
        }
        if (a >= 0)
            finish(op, p, a, acc);
        a = -1;
        b = 0;
    }
    /* the rounds in, finished (the batch filled with empty sums) */
    __device__ __forceinline__ void flush(const Args &p, const Op &op, int sl)
    {
        if constexpr (!kTransposed) {
            if (a >= 0)
                finish(op, p, a, l0);
            a = -1;
            b = 0;
            return;
        }
        while (b) {
            typename Op::Acc e;
            op.init(e);
            add(p, op, -1, e, sl);
        }
    }
};

/*
 * The outputs [lo, hi) of warp w of nw, in rounds of 32 / L (a group of L lanes an output):
 * sum (a, sl, L) gives output a's sum, reduced across its group (an empty sum where a >=
 * hi).  Ops whose last step is costly (Op::kBatchFinish: a cosine's square roots and
 * division) sum `batch` rounds, each group's sum moving to the lane numbered by its round,
 * then finish them all at once, where one lane a group finishing each round left the others
 * idle through that step.  The same sums in the same order: the same bits.  (Dots and norms
 * keep the plain loop: the batched one cost them registers, 64 -> 80 and a spill for the
 * single dot in double.)  BatchFinish finishes batches of rounds that are not adjacent
 * (columns_staged's tiles), reduced transposed; here each lane's output follows from its
 * round, which kept registers down (a carried index: the query cosine's spill 20 -> 76
 * bytes; nvcc -Xptxas -v, sm_90).
 */
template <class Op, class Sum>
__device__ __forceinline__ void warp_outputs(const Args &p, const Op &op, int64_t lo, int64_t hi,
                                             int64_t w, int64_t nw, int batch, Sum sum)
{
    int lane = threadIdx.x & 31, L = p.lanes, per = 32 / L;
    int sub = lane / L, sl = lane % L;
    if constexpr (Op::kBatchFinish) {
        int B = batch > 1 ? batch : 1;
        int64_t round = (int64_t)per * B;
        for (int64_t a0 = lo + w * round; a0 < hi; a0 += nw * round) {
            typename Op::Acc mine; /* round sl's sum of this lane's group */
            op.init(mine);
            for (int b = 0; b < B; b++) {
                typename Op::Acc acc = sum(a0 + b * per + sub, sl, L);
                if (B > 1)
                    acc = shfl_from(op, acc, lane - sl);
                if (sl == b)
                    mine = acc;
            }
            int64_t a = a0 + sl * per + sub;
            if (sl < B && a < hi)
                finish(op, p, a, mine);
        }
    } else {
        for (int64_t a0 = lo + w * per; a0 < hi; a0 += nw * per) {
            int64_t a = a0 + sub;
            typename Op::Acc acc = sum(a, sl, L);
            if (sl == 0 && a < hi)
                finish(op, p, a, acc);
        }
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
    int64_t warp = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * (kThreads / 32);
    warp_outputs(p, op, 0, p.na, warp, nwarps, p.batch,
                 [&](int64_t a, int sl, int L) { return group_sum(p, op, a, sl, L); });
}

/* ---- staged warp columns: tiles of whole runs copied to shared memory ahead ---- */

/* 16 bytes from global to shared memory without registers (cp.async, sm_80 and later),
 * grouped by commit and waited for by wait_group: the copies of later tiles stay in flight
 * while the warps sum an earlier one. */
__device__ __forceinline__ void copy16_async(void *smem, const void *gmem)
{
#if __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#endif
}
__device__ __forceinline__ void copy_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void copy_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/* Ops whose warp columns may take columns_staged: runs of one complexity (read as whole
 * vectors), Op::kStaged (dots, and norms but those of a p known at run time, bound by
 * their arithmetic; ops.cuh says why not cosines) */
template <class Op> __host__ __device__ constexpr bool stages_runs()
{
    return (Op::UNARY || Op::CX == Op::CY) && Op::kStaged;
}

/*
 * Warp columns whose runs lie adjacent, 16-byte aligned, in whole 16-byte vectors
 * (planned by kernels.cu's staged_grid): each block takes tiles of p.stage_cols outputs,
 * copies their runs into shared memory kStages - 1 tiles ahead, and its warps sum a tile
 * from there as columns_warp sums from memory, the same vectors in the same order
 * (run_sum's vector path) and the same groups: the same bits.  columns_warp keeps one round
 * of loads a lane in flight, too few for runs this short: gdot of 64 x 2^21 singles read at
 * 73% of the read ceiling on an H200 (90% on an H100); staged, 92%.  Cosines carry their
 * sums from tile to tile in a BatchFinish, a tile leaving a warp too few rounds to finish
 * together (2 of 64 x 2^21 singles, which finished 8 outputs at once: 297 -> 306 us).
 */
template <class Op>
__global__ void __launch_bounds__(kThreads, kStagedBlocks) columns_staged(Args p, Op op)
{
    using T = typename Op::T;
    using V = typename Vec16<T>::type;
    constexpr bool UN = Op::UNARY;
    constexpr int EV = Vec16<T>::n / (Op::CX ? 2 : 1); /* elements a vector */
    extern __shared__ uint4 staged[];
    const int64_t C = p.stage_cols, rv = p.nk / EV; /* vectors a run (either operand) */
    const int64_t tile_vecs = C * rv * (UN ? 1 : 2), ntiles = (p.na + C - 1) / C;
    V *buf = reinterpret_cast<V *>(staged);
    /* tile t's runs into stage s (a group committed even where there is no tile, so that
     * wait_group counts the same in every block) */
    auto issue = [&](int64_t t, int s) {
        if (t < ntiles) {
            int64_t c0 = t * C, n = ((p.na - c0 < C) ? p.na - c0 : C) * rv;
            V *sx = buf + s * tile_vecs, *sy = sx + C * rv;
            const V *gx = (const V *)p.x + c0 * rv, *gy = (const V *)p.y + c0 * rv;
            for (int64_t j = threadIdx.x; j < n; j += kThreads) {
                copy16_async(sx + j, gx + j);
                if (!UN)
                    copy16_async(sy + j, gy + j);
            }
        }
        copy_commit();
    };
    /* costly last steps: batches of as many rounds as a group has lanes, over tiles */
    BatchFinish<Op> bf;
    bf.set_rounds(p.lanes);
    int64_t step = gridDim.x;
    for (int s = 0; s < kStages - 1; s++)
        issue(blockIdx.x + s * step, s);
    int s = 0;
    for (int64_t t = blockIdx.x; t < ntiles; t += step) {
        issue(t + (kStages - 1) * step, (s + kStages - 1) % kStages);
        copy_wait<kStages - 1>();
        __syncthreads();
        const V *sx = buf + s * tile_vecs, *sy = UN ? sx : sx + C * rv;
        int64_t lo = t * C, hi = p.na - lo < C ? p.na : lo + C;
        /* output a's partial sum in lane sl of its group of L */
        auto tile_part = [&](int64_t a, int sl, int L) {
            typename Op::Acc acc;
            op.init(acc);
            if (a < hi) {
                const V *xv = sx + (a - lo) * rv, *yv = sy + (a - lo) * rv;
                for (int64_t v = sl; v < rv; v += L) {
                    V va = xv[v], vb = UN ? va : yv[v];
                    add_vector(op, acc, va, vb);
                }
            }
            return acc;
        };
        if constexpr (Op::kBatchFinish) {
            int lane = threadIdx.x & 31, L = p.lanes, per = 32 / L, sub = lane / L, sl = lane % L;
            for (int64_t a = lo + (threadIdx.x >> 5) * per + sub; a - sub < hi;
                 a += (kThreads / 32) * per)
                bf.add(p, op, a < hi ? a : -1, tile_part(a, sl, L), sl);
        } else {
            warp_outputs(
                p, op, lo, hi, threadIdx.x >> 5, kThreads / 32, 0,
                [&](int64_t a, int sl, int L) { return warp_reduce(op, tile_part(a, sl, L), L); });
        }
        __syncthreads(); /* (stage s is copied into again next) */
        s = s + 1 == kStages ? 0 : s + 1;
    }
    if constexpr (Op::kBatchFinish)
        bf.flush(p, op, (threadIdx.x & 31) % p.lanes);
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
 * a constant 32 elements apart (a stride of a run-time group width, rounds finished a lane
 * each: 1.67 ms), eight in flight: four left the H200's memory idle, 757 -> 705 us against
 * a read ceiling of 694 (gdot 762 -> 717; kernel_bench, two rounds each way).  The Op's
 * last step (FAST sums: a NaN where they could not vouch for a result).  Runs of at most
 * kQueryMax.
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
#pragma unroll 8
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
