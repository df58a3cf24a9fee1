/*
 * Reduction kernels.  No host logic here: plan.cu sizes grids, kernels.cu launches.
 *
 * Three kernels (split columns, warp columns in warp_columns.cuh, rows) walk the canonical
 * nb x nk x na shape; what they compute is an Op (ops.cuh): the dot product (DotOp), a
 * vector norm (NormOp) or a cosine (CosOp), whose per-element math lives in gpudot_math.h,
 * shared with the CPU engine.  Every kernel finishes in one launch: blocks that share an output
 * leave partial states in a workspace (a state of one or two fields in slots that its values mark
 * as full), and the last of them to arrive (an integer ticket, never a float atomic) merges those
 * partials in block order.  The reduction order is therefore a function of the shape and the device
 * alone: results are bitwise repeatable.
 */
#pragma once

#include <type_traits>
#include <cstdint>
#include <cuda_runtime.h>

#include "gpudot_math.h"
#include "tuning.h"
#include "vec16.cuh"

namespace gpudot
{

enum Mode { NATIVE_F = 0, PLAIN_D = 1, COMP = 2 };

/* An accumulator as stored in global memory (partials, carries): wide enough for every
 * Op's accumulator, whose fields are all of one type A (float or double). */
struct State {
    double v[14];
};

template <int M> struct AccType {
    using type = double;
};
template <> struct AccType<NATIVE_F> {
    using type = float;
};

/* Register accumulator: s = sum (re, im); c = Dot2 compensation (COMP only). */
template <int M> struct Acc {
    using A = typename AccType<M>::type;
    A s0, s1, c0, c1;
    __host__ __device__ void zero()
    {
        s0 = s1 = c0 = c1 = A(0);
    }
};

/* TwoSum and the Dot2 step are gpudot_math.h's, shared with the CPU engine. */

/* A product rounded on its own (gpudot_math.h's GD_MUL): nvcc would fuse a * b + s into one
 * fma, whose unrounded product turned Inf + (-1e600) into Inf where the CPU engine (and
 * Octave) give NaN, and breaks exact cancellation. */
__device__ __forceinline__ double mul_rn(double a, double b)
{
    return __dmul_rn(a, b);
}
__device__ __forceinline__ float mul_rn(float a, float b)
{
    return __fmul_rn(a, b);
}

/* acc += conj(x) * y for one element.  The complex cases spell out only the products that
 * exist, as Octave's complex arithmetic does (a real Inf times a complex y makes no NaN). */
template <int M, bool CX, bool CY, typename T>
__device__ __forceinline__ void acc_elem(Acc<M> &acc, T xr, T xi, T yr, T yi)
{
    using A = typename AccType<M>::type;
    if constexpr (M == COMP) {
        gd_add_prod_d(&acc.s0, &acc.c0, xr, yr, 1);
        if constexpr (CX && CY) {
            gd_add_prod_d(&acc.s0, &acc.c0, xi, yi, 1);
            gd_add_prod_d(&acc.s1, &acc.c1, xr, yi, 1);
            gd_add_prod_d(&acc.s1, &acc.c1, -(double)xi, yr, 1);
        } else if constexpr (CX) {
            gd_add_prod_d(&acc.s1, &acc.c1, -(double)xi, yr, 1);
        } else if constexpr (CY) {
            gd_add_prod_d(&acc.s1, &acc.c1, xr, yi, 1);
        }
    } else {
        A ar = xr, ai = xi, br = yr, bi = yi;
        if constexpr (CX && CY) {
            acc.s0 += mul_rn(ar, br) + mul_rn(ai, bi);
            acc.s1 += mul_rn(ar, bi) - mul_rn(ai, br);
        } else if constexpr (CX) {
            acc.s0 += mul_rn(ar, br);
            acc.s1 += mul_rn(-ai, br);
        } else if constexpr (CY) {
            acc.s0 += mul_rn(ar, br);
            acc.s1 += mul_rn(ar, bi);
        } else {
            acc.s0 += mul_rn(ar, br);
        }
    }
}

template <int M> __host__ __device__ __forceinline__ void acc_merge(Acc<M> &a, const Acc<M> &b)
{
    if constexpr (M == COMP) {
        double q;
        gd_two_sum_d(a.s0, b.s0, &a.s0, &q);
        a.c0 += b.c0 + q;
        gd_two_sum_d(a.s1, b.s1, &a.s1, &q);
        a.c1 += b.c1 + q;
    } else {
        a.s0 += b.s0;
        a.s1 += b.s1;
    }
}

template <int M> __host__ __device__ __forceinline__ double final_value(double s, double c)
{
    if constexpr (M == COMP)
        return isfinite(s) ? s + c : s;
    return s;
}

struct Args {
    const void *x, *y;
    int64_t nb, nk, na;
    int64_t bx, kx, ax, by, ky, ay;
    void *out;         /* final results, output type; written when is_final */
    State *carry;      /* accumulators carried between k-chunks */
    int carry_in;      /* merge carry[o] before finishing */
    int is_final;      /* write out; else write carry[o] */
    State *partials;   /* workspace for multi-block outputs */
    unsigned *tickets; /* workspace, all zero between launches */
    unsigned long long
        *slots;      /* split columns' sums of <= kSlotWords fields; kSlotEmpty between launches */
    int mapped;      /* out is mapped host memory, each value word its own flag (below) */
    int mapped_pad_; /* keeps the fields below where they were when `mapped` was an 8-byte
                      * pointer.  Without it ptxas gave the split single dot 58 registers
                      * instead of 64 (nvcc -Xptxas -v, sm_90) and it lost 1-2% at single
                      * 2^23-2^26 (2^24: 94.5% of the read ceiling against 96.5% with the
                      * pad) */
    int splits;      /* blocks sharing one output group */
    int lanes;       /* warp columns: lanes per output, a power of two <= 32 */
    int tiles;       /* split columns: 0 grid-stride order, 1 tile order (run_sum) */
    int batch;       /* warp columns: rounds of outputs a warp sums before it finishes them */
    int stage_cols;  /* staged warp columns: outputs a tile (columns_staged) */
};

/* ---- generic handling of an Op's accumulator (all fields of type Op::A) ---- */

template <class Op> __host__ __device__ constexpr int nfields()
{
    return sizeof(typename Op::Acc) / sizeof(typename Op::A);
}

/* Fields of an Op's accumulator that can be non-zero for its template arguments (bit j:
 * field j); only these are shuffled, saved and loaded, the others keep their init value.
 * (A real dot product in double shuffles one double instead of four per tree level.) */
template <class Op> __device__ __forceinline__ bool live(int j)
{
    return (Op::kLive >> j) & 1u;
}

/* shfl (v) of each live field of a (the others as init leaves them) */
template <class Op, class F>
__device__ __forceinline__ typename Op::Acc shfl_live(const Op &op, const typename Op::Acc &a,
                                                      F shfl)
{
    using A = typename Op::A;
    typename Op::Acc b;
    op.init(b);
    const A *pa = reinterpret_cast<const A *>(&a);
    A *pb = reinterpret_cast<A *>(&b);
#pragma unroll
    for (int j = 0; j < nfields<Op>(); j++)
        if (live<Op>(j))
            pb[j] = shfl(pa[j]);
    return b;
}

template <class Op>
__device__ __forceinline__ typename Op::Acc shfl_down(const Op &op, const typename Op::Acc &a,
                                                      int off, int width = 32)
{
    return shfl_live(op, a, [&](auto v) { return __shfl_down_sync(0xffffffffu, v, off, width); });
}

template <class Op> __device__ __forceinline__ void save(State *s, const typename Op::Acc &a)
{
    using A = typename Op::A;
    const A *pa = reinterpret_cast<const A *>(&a);
#pragma unroll
    for (int j = 0; j < nfields<Op>(); j++)
        if (live<Op>(j))
            s->v[j] = (double)pa[j];
}

/* How many fields of an Op's accumulator are live (bits of kLive). */
template <class Op> __host__ __device__ constexpr int live_count()
{
    int c = 0;
    for (int j = 0; j < 32; j++)
        c += (Op::kLive >> j) & 1u;
    return c;
}

/* ---- states of one or two live fields (real and complex dots, the fast norms) ----
 * Each live field is published as a double with one strong 64-bit store into a slot of its
 * own: the slot holds kSlotEmpty until the value arrives, so the value is its own flag and
 * the split columns' last block needs no fences (see columns_split).  A block's slots are
 * adjacent (live_count<Op>() words). */
constexpr unsigned long long kSlotEmpty = ~0ull; /* a NaN; cudaMemset (0xff) writes it */

/* index of the i-th live field (i from 0) */
template <class Op> __host__ __device__ constexpr int live_field(int i = 0)
{
    int j = 0;
    for (;; j++)
        if (((Op::kLive >> j) & 1u) && i-- == 0)
            return j;
}

/* f (std::integral_constant<int, I>{}) for I = 0 .. K-1: field indices stay constants (an
 * index computed at run time puts the whole state in local memory) */
template <int I, int K, class F> __device__ __forceinline__ void static_for(F &&f)
{
    if constexpr (I < K) {
        f(std::integral_constant<int, I>{});
        static_for<I + 1, K>(f);
    }
}

template <class Op, int I>
__device__ __forceinline__ unsigned long long slot_bits(const typename Op::Acc &a)
{
    using A = typename Op::A;
    constexpr int j = live_field<Op>(I);
    unsigned long long b =
        (unsigned long long)__double_as_longlong((double)reinterpret_cast<const A *>(&a)[j]);
    return b == kSlotEmpty ? 0x7ff8000000000000ull : b; /* that NaN's bits are the empty mark */
}

/* sets live field I of a from the bits of its slot */
template <class Op, int I>
__device__ __forceinline__ void from_slot(typename Op::Acc &a, unsigned long long b)
{
    using A = typename Op::A;
    constexpr int j = live_field<Op>(I);
    reinterpret_cast<A *>(&a)[j] = (A)__longlong_as_double((long long)b);
}

__device__ __forceinline__ void slot_store(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned long long slot_load(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* Reads a state written by another block of this launch (L2, not L1) or an earlier one. */
template <class Op> __device__ __forceinline__ typename Op::Acc load(const Op &op, const State *s)
{
    using A = typename Op::A;
    typename Op::Acc a;
    op.init(a);
    A *pa = reinterpret_cast<A *>(&a);
#pragma unroll
    for (int j = 0; j < nfields<Op>(); j++)
        if (live<Op>(j))
            pa[j] = (A)__ldcg(&s->v[j]);
    return a;
}

/* Shuffle tree over groups of `width` lanes (a power of two <= 32): lane 0 of each group
 * gets its group's sum.  Every lane of the warp must take part. */
template <class Op>
__device__ __forceinline__ typename Op::Acc warp_reduce(const Op &op, typename Op::Acc a,
                                                        int width = 32)
{
    for (int off = width / 2; off > 0; off >>= 1) {
        typename Op::Acc b = shfl_down<Op>(op, a, off, width);
        op.merge(a, b);
    }
    return a;
}

/* Warp shuffles, then one shared-memory slot per warp, then warp 0: thread 0 gets the sum.
 * at_barrier () runs in every thread once all have passed the barrier, before warp 0's
 * shuffles (the split columns take their ticket there, so that the atomic's round trip
 * overlaps them). */
struct NoHook {
    __device__ void operator()() const {}
};
template <class Op, class Hook = NoHook>
__device__ __forceinline__ typename Op::Acc block_reduce(const Op &op, typename Op::Acc a,
                                                         Hook at_barrier = Hook())
{
    __shared__ typename Op::Acc warp_sums[kThreads / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = warp_reduce(op, a);
    if (lane == 0)
        warp_sums[warp] = a;
    __syncthreads();
    at_barrier();
    if (warp == 0) {
        if (lane < kThreads / 32)
            a = warp_sums[lane];
        else
            op.init(a);
        a = warp_reduce(op, a);
    }
    return a;
}

/* Results written straight into mapped host memory (small calls): the host fills each word
 * of the outputs with an empty mark, launches, and spins until no word holds it; the kernel
 * stores each word once with one strong store, a word whose value has those bits as another
 * NaN.  The value is its own flag: no fence and no separate flag, whose
 * __threadfence_system () before it cost 0.6-0.9 us of each small call's round trip
 * (H100: a one-block dot of 2^10 doubles 8.78 against 8.14 us).  Marks: NaN patterns that no
 * arithmetic makes (signalling payloads). */
constexpr unsigned kOutEmpty32 = 0x7fa0beefu;
constexpr unsigned long long kOutEmpty64 = 0x7ff4dead0000beefull;

__device__ __forceinline__ void store_marked(float *w, float v)
{
    unsigned b = __float_as_uint(v);
    *(volatile unsigned *)w = b == kOutEmpty32 ? 0x7fc00000u : b;
}

__device__ __forceinline__ void store_marked(double *w, double v)
{
    unsigned long long b = (unsigned long long)__double_as_longlong(v);
    *(volatile unsigned long long *)w = b == kOutEmpty64 ? 0x7ff8000000000000ull : b;
}

/* Last step for output o: fold in the carried state, then write the value or the state. */
template <class Op>
__device__ __forceinline__ void finish(const Op &op, const Args &p, int64_t o, typename Op::Acc a)
{
    if (p.carry_in) {
        typename Op::Acc prev = load<Op>(op, &p.carry[o]);
        op.merge(prev, a);
        a = prev;
    }
    if (!p.is_final) {
        save<Op>(&p.carry[o], a);
    } else if (!p.mapped) {
        op.write(p.out, o, a);
    } else {
        using T = typename Op::T;
        T v[2];
        op.write(v, 0, a);
        for (int j = 0; j < Op::kWords; j++)
            store_marked((T *)p.out + Op::kWords * o + j, v[j]);
    }
}

/* ---- element walks ---- */

/*
 * Adds elements [k0, k1) of one run (element strides sx, sy in {0, 1}) to acc, thread t of
 * nt taking elements t, t + nt, ...  Where the runs are contiguous, of the same complexity
 * and 16-byte aligned, it reads 16-byte vectors, four in flight per thread (the loads of
 * one iteration are issued before any is used); otherwise 4-8 byte loads, also four in
 * flight.  Unary ops (norms) never read y.
 */

/* The elements of one 16-byte vector of each operand (a of x, b of y; b unread for
 * norms), added in order: run_sum's vector path and columns_staged */
template <class Op, typename V>
__device__ __forceinline__ void add_vector(const Op &op, typename Op::Acc &acc, const V &a,
                                           const V &b)
{
    using T = typename Op::T;
    constexpr bool CX = Op::CX, CY = Op::CY, UN = Op::UNARY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
#pragma unroll
    for (int j = 0; j < Vec16<T>::n / ex; j++)
        op.add(acc, vget<T>(a, j * ex), CX ? vget<T>(a, j * ex + 1) : T(0),
               UN ? T(0) : vget<T>(b, j * ey), (CY && !UN) ? vget<T>(b, j * ey + 1) : T(0));
}

/* One round of run_sum's 16-byte loads: U vectors of each operand from v on, `stride`
 * apart, all issued before any is added, then added in order. */
template <class Op, typename V>
__device__ __forceinline__ void add_round(const Op &op, typename Op::Acc &acc, const V *xv,
                                          const V *yv, int64_t v, int stride)
{
    constexpr bool UN = Op::UNARY;
    constexpr int U = UN ? 8 : 4;
    V a[U], b[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        a[u] = __ldg(xv + v + u * stride);
        if (!UN)
            b[u] = __ldg(yv + v + u * stride);
    }
#pragma unroll
    for (int u = 0; u < U; u++)
        add_vector(op, acc, a[u], b[u]);
}

/* run_sum's 16-byte path: contiguous runs of the same complexity, 16-byte aligned; U
 * vectors in flight per thread; the tile order where `tiles` asks for it. */
template <class Op>
__device__ __forceinline__ void run_sum_vectors(const Op &op, typename Op::Acc &acc,
                                                const typename Op::T *xs, const typename Op::T *ys,
                                                int64_t n, int t, int nt, int g, int tiles)
{
    using T = typename Op::T;
    constexpr bool CX = Op::CX, CY = Op::CY, UN = Op::UNARY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    using V = typename Vec16<T>::type;
    constexpr int VN = Vec16<T>::n; /* scalars per vector */
    constexpr int EV = VN / ex;     /* elements per vector */
    /* vectors in flight per thread: 4 per operand for two operands; 8 for norms, which
     * read one, so that every op keeps 128 bytes a thread in flight */
    constexpr int U = UN ? 8 : 4;
    const V *xv = (const V *)xs, *yv = (const V *)ys;
    int64_t nv = n / EV, v = t;
    if (tiles > 0) {
        /* tile order: in each window of TV * U * nt vectors, the g threads of a
         * group (a block) read one contiguous stretch of TV * U * g vectors, U at
         * a time; the rest of the run in the grid-stride order below.  TV is a
         * compile-time constant (`tiles` only turns the order on): with it read at
         * run time, the H100 bench read double 2^27-2^30 at 0.995-1.000x cuBLAS
         * where the same order compiled with a constant read 1.003-1.013x in A/B
         * rounds. */
        auto windows = [&](auto tvc) {
            constexpr int TV = decltype(tvc)::value;
            int64_t win = (int64_t)TV * U * nt;
            int64_t first = (int64_t)(t / g) * TV * U * g + t % g;
            int64_t v0 = 0;
            for (; v0 + win <= nv; v0 += win) {
                for (int it = 0; it < TV; it++)
                    add_round(op, acc, xv, yv, v0 + first + (int64_t)it * U * g, g);
            }
            return v0;
        };
        /* only this element type's size is compiled: with both compiled into
         * every kernel, single "native" read 0.980-0.984x cuBLAS at 2^28-2^30
         * against 0.999-1.000x in grid-stride order (H100, three rounds) */
        if constexpr (sizeof(T) == 4)
            v = t + windows(std::integral_constant<int, kTileItersF32>{});
        else
            v = t + windows(std::integral_constant<int, kTileItersF64>{});
    }
    for (; v + (U - 1) * (int64_t)nt < nv; v += U * (int64_t)nt)
        add_round(op, acc, xv, yv, v, nt);
    /* the last < U vectors of this thread, loads issued together and added in the
     * same order as one at a time: a loop of single loads waited for DRAM once per
     * vector (single 2^24: 3-4 per thread, after 3 full rounds) */
    if (v < nv) {
        V a[U], b[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (v + u * (int64_t)nt < nv) {
                a[u] = __ldg(xv + v + u * nt);
                if (!UN)
                    b[u] = __ldg(yv + v + u * nt);
            }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (v + u * (int64_t)nt < nv)
                add_vector(op, acc, a[u], b[u]);
    }
    for (int64_t e = nv * EV + t; e < n; e += nt) /* tail: < EV elements */
        op.add(acc, xs[e * ex], CX ? xs[e * ex + 1] : T(0), UN ? T(0) : ys[e * ey],
               (CY && !UN) ? ys[e * ey + 1] : T(0));
}

/* run_sum's scalar path: strided or misaligned runs, 4-8 byte loads, U in flight. */
template <class Op>
__device__ __forceinline__ void
run_sum_scalars(const Op &op, typename Op::Acc &acc, const typename Op::T *xs, int64_t sx,
                const typename Op::T *ys, int64_t sy, int64_t n, int t, int nt)
{
    using T = typename Op::T;
    constexpr bool CX = Op::CX, CY = Op::CY, UN = Op::UNARY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    constexpr int U = UN ? 8 : 4;
    int64_t e = t;
    for (; e + (U - 1) * (int64_t)nt < n; e += U * (int64_t)nt) {
        T a[U][2], b[U][2];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const T *px = xs + (e + u * nt) * sx * ex, *py = ys + (e + u * nt) * sy * ey;
            a[u][0] = __ldg(px);
            a[u][1] = CX ? __ldg(px + 1) : T(0);
            b[u][0] = UN ? T(0) : __ldg(py);
            b[u][1] = (CY && !UN) ? __ldg(py + 1) : T(0);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            op.add(acc, a[u][0], a[u][1], b[u][0], b[u][1]);
    }
    for (; e < n; e += nt) {
        const T *px = xs + e * sx * ex, *py = ys + e * sy * ey;
        op.add(acc, __ldg(px), CX ? __ldg(px + 1) : T(0), UN ? T(0) : __ldg(py),
               (CY && !UN) ? __ldg(py + 1) : T(0));
    }
}

template <class Op>
__device__ __forceinline__ void run_sum(const Op &op, typename Op::Acc &acc,
                                        const typename Op::T *x, int64_t sx,
                                        const typename Op::T *y, int64_t sy, int64_t k0, int64_t k1,
                                        int t, int nt, int g = 0, int tiles = 0)
{
    using T = typename Op::T;
    constexpr bool CX = Op::CX, CY = Op::CY, UN = Op::UNARY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    const T *xs = x + k0 * sx * ex, *ys = UN ? x : y + k0 * sy * ey;
    int64_t n = k1 - k0;
    if constexpr (UN || CX == CY) {
        if (sx == 1 && (UN || sy == 1) && ((uintptr_t)xs % 16) == 0 &&
            (UN || ((uintptr_t)ys % 16) == 0)) {
            run_sum_vectors(op, acc, xs, ys, n, t, nt, g, tiles);
            return;
        }
    }
    run_sum_scalars(op, acc, xs, sx, ys, sy, n, t, nt);
}

/* Start of run a of an operand with extents (kx, ax) in column mode, in scalars. */
__device__ __forceinline__ int64_t run_start(int64_t a, int64_t kx, int64_t ax, int e)
{
    return (ax > 1 ? a : 0) * kx * e;
}

/*
 * The last block's merge where a run has at most 32 blocks (every split run up to 2^16
 * elements): lane l of warp 0 merges block l's sum (get (l)) into an empty state and the
 * warp's shuffle tree merges the lanes: the tree that block_reduce takes over these values
 * (its other warps and lanes hold empty states, and merging one is exact), so the same bits,
 * without the block-wide tree and its barrier.  In the last block of a compensated cosine at
 * 2^12 that tree took 6332 cycles (clock64), one warp's 521; 2299 against 348 for a
 * "double" one: code that runs once a launch, in one block, pays for fetching its
 * instructions, and a block's tree is several times a warp's code (H100).  kernel_bench,
 * against the block-wide finish, 4 alternating rounds: cosines 11-30% shorter at 2^12-2^16
 * (compensated double 2^12 10.99 -> 7.66 us), 3-10% at 2^18-2^22, every other kernel within
 * 0.97-1.01x. Through the slots of the same kernels (dots, norms) it made small calls 1-19% shorter
 * too, but changed the registers of larger kernels (a 16-byte stack frame in single
 * "double" gnorm(x, Inf)) and cost up to 6% from 2^18 (single gnorm(x, Inf) 2^24 +5.7%,
 * compensated 2-norms +2-4%): the
 * slots take it in small kernels of their own (kSmallSplits, below).
 */
template <class Op, class Get>
__device__ __forceinline__ void last_warp(const Op &op, const Args &p, int64_t a, Get get)
{
    if (threadIdx.x >= 32)
        return;
    typename Op::Acc tot;
    op.init(tot);
    if ((int)threadIdx.x < p.splits)
        op.merge(tot, get((int)threadIdx.x));
    tot = warp_reduce(op, tot);
    if (threadIdx.x == 0) {
        finish(op, p, a, tot);
        p.tickets[a] = 0;
    }
}

static_assert(kSlotWordsSmall >= kSlotWords, "slots sized for the larger protocol");

template <class Op> __host__ __device__ constexpr bool has_small_finish()
{
    return live_count<Op>() <= kSlotWordsSmall;
}

/*
 * The end of columns_split for states of up to kSlotWords live fields: the block takes its
 * ticket while warp 0 finishes the block's sum, then publishes the sum's fields in its
 * slots; the last block to take a ticket reads the others' slots (waiting on any still
 * empty: their blocks have taken their tickets and are about to store), empties them for
 * the next launch and merges them with its own sum in block order, as the general protocol
 * below does (the same values in the same order: the same bits).  Its chain after its
 * loads: one atomic (under warp 0's shuffles) and one read of the slots, where the general
 * protocol pays a store and a fence, an atomic, then the reads, each an L2 round trip.
 * ONE_WARP (the small kernels, above): warp 0 alone merges the slots (last_warp).
 */
template <class Op, bool ONE_WARP = false>
__device__ __forceinline__ void split_finish_slots(const Op &op, const Args &p, int64_t a, int b,
                                                   typename Op::Acc acc)
{
    constexpr int K = live_count<Op>();
    __shared__ bool is_last;
    __shared__ unsigned long long own[K]; /* the last block's sum, never stored in its slots */
    unsigned ticket = 0;
    acc = block_reduce(op, acc, [&] {
        if (threadIdx.x == 0 && p.splits > 1)
            ticket = atomicAdd(&p.tickets[a], 1u);
    });
    if (p.splits == 1) {
        if (threadIdx.x == 0)
            finish(op, p, a, acc);
        return;
    }
    unsigned long long *slots = p.slots + a * p.splits * K;
    if (threadIdx.x == 0) {
        is_last = ticket == (unsigned)p.splits - 1;
        static_for<0, K>([&](auto I) {
            constexpr int i = decltype(I)::value;
            unsigned long long v = slot_bits<Op, i>(acc);
            if (is_last)
                own[i] = v;
            else
                slot_store(&slots[(int64_t)b * K + i], v);
        });
    }
    __syncthreads();
    if (!is_last)
        return;
    if constexpr (ONE_WARP) {
        /* lane l merges block l's sum (splits <= 32): all its fields' loads issued before
         * it waits on any */
        last_warp(op, p, a, [&](int sl) {
            unsigned long long *q = slots + (int64_t)sl * K;
            unsigned long long v[K];
            static_for<0, K>([&](auto I) {
                constexpr int i = decltype(I)::value;
                v[i] = sl == b ? own[i] : slot_load(&q[i]);
            });
            typename Op::Acc part;
            op.init(part);
            static_for<0, K>([&](auto I) {
                constexpr int i = decltype(I)::value;
                while (v[i] == kSlotEmpty)
                    v[i] = slot_load(&q[i]);
                if (sl != b)
                    q[i] = kSlotEmpty;
                from_slot<Op, i>(part, v[i]);
            });
            return part;
        });
        return;
    }
    typename Op::Acc tot;
    op.init(tot);
    constexpr int kPre = K == 1 ? 8 : K == 2 ? 4 : 2;
    for (int s0 = threadIdx.x; s0 < p.splits; s0 += kPre * kThreads) {
        unsigned long long v[kPre * K]; /* slice u's field I at u * K + I */
#pragma unroll
        for (int u = 0; u < kPre; u++) {
            int sl = s0 + u * kThreads;
            if (sl < p.splits)
                static_for<0, K>([&](auto I) {
                    constexpr int i = decltype(I)::value;
                    v[u * K + i] = sl == b ? own[i] : slot_load(&slots[(int64_t)sl * K + i]);
                });
        }
#pragma unroll
        for (int u = 0; u < kPre; u++) {
            int sl = s0 + u * kThreads;
            if (sl < p.splits) {
                typename Op::Acc part;
                op.init(part);
                static_for<0, K>([&](auto I) {
                    constexpr int i = decltype(I)::value;
                    unsigned long long &w = v[u * K + i];
                    while (w == kSlotEmpty)
                        w = slot_load(&slots[(int64_t)sl * K + i]);
                    if (sl != b)
                        slots[(int64_t)sl * K + i] = kSlotEmpty;
                    from_slot<Op, i>(part, w);
                });
                op.merge(tot, part);
            }
        }
    }
    tot = block_reduce(op, tot);
    if (threadIdx.x == 0) {
        finish(op, p, a, tot);
        p.tickets[a] = 0;
    }
}

/* The end of columns_split for states of several fields: each block stores its partial
 * state, fences and takes a ticket; the last to take one merges the partials (warp 0 alone
 * where they are at most 32: last_warp). */
template <class Op>
__device__ __forceinline__ void split_finish_partials(const Op &op, const Args &p, int64_t a,
                                                      typename Op::Acc acc)
{
    __shared__ bool is_last;
    acc = block_reduce(op, acc);
    if (p.splits == 1) {
        if (threadIdx.x == 0)
            finish(op, p, a, acc);
        return;
    }
    if (threadIdx.x == 0) {
        save<Op>(&p.partials[blockIdx.x], acc);
        __threadfence();
        unsigned ticket = atomicAdd(&p.tickets[a], 1u);
        is_last = (ticket == (unsigned)p.splits - 1);
    }
    __syncthreads();
    if (!is_last)
        return;
    if (p.splits <= 32) {
        if (threadIdx.x < 32)
            __threadfence();
        last_warp(op, p, a, [&](int sl) { return load<Op>(op, &p.partials[a * p.splits + sl]); });
        return;
    }
    __threadfence();
    /* the last block: thread t merges slices t, t + 256, ... in order, then the fixed tree
     * of block_reduce merges the threads.  (Warp 0 alone took 33 dependent L2 round trips
     * for 1056 slices, ~4-5 us at the end of every large call on an H100; now <= 5.) */
    typename Op::Acc tot;
    op.init(tot);
    /* The loads of a thread's slices are issued together, then merged in order (same
     * order as one at a time: results do not change).  One at a time, each merge waited
     * for its L2 load: ~5 round trips at the end of every large call, the main part of the
     * ~4 us that 2^24 single (a ~50 us call) paid over the read ceiling. */
    constexpr int kPre = live_count<Op>() <= 2 ? 8 : live_count<Op>() <= 4 ? 4 : 2;
    for (int s0 = threadIdx.x; s0 < p.splits; s0 += kPre * kThreads) {
        typename Op::Acc part[kPre];
#pragma unroll
        for (int u = 0; u < kPre; u++)
            if (s0 + u * kThreads < p.splits)
                part[u] = load<Op>(op, &p.partials[a * p.splits + s0 + u * kThreads]);
#pragma unroll
        for (int u = 0; u < kPre; u++)
            if (s0 + u * kThreads < p.splits)
                op.merge(tot, part[u]);
    }
    tot = block_reduce(op, tot);
    if (threadIdx.x == 0) {
        finish(op, p, a, tot);
        p.tickets[a] = 0;
    }
}

/*
 * Column mode, long runs (nb == 1): `splits` blocks per output, striding through its run
 * together; the last block to finish an output merges the blocks' sums in block order.
 * Grid: na * splits blocks.  SMALL (splits <= kSmallSplits): the slots with a one-warp merge.
 */
template <class Op, bool SMALL = false>
__global__ void __launch_bounds__(kThreads) columns_split(Args p, Op op)
{
    using T = typename Op::T;
    constexpr int ex = Op::CX ? 2 : 1, ey = Op::CY ? 2 : 1;
    int64_t a = blockIdx.x / p.splits;
    int b = blockIdx.x % p.splits;
    const T *x = (const T *)p.x + run_start(a, p.kx, p.ax, ex);
    const T *y = Op::UNARY ? x : (const T *)p.y + run_start(a, p.ky, p.ay, ey);
    typename Op::Acc acc;
    op.init(acc);
    /* the run's blocks stride through it together (thread b * kThreads + t of splits *
     * kThreads), so that all loads in flight fall in one window of a few MB.  Contiguous
     * slices per block (the first version) spread them over the whole run: at 2^30 single
     * (8 GB in two operands) that reached 91% of the read ceiling against 99% at 2^28, the
     * pattern of TLB misses.  Runs of a GiB and more take the tile order (p.tiles; see
     * kTileFromBytes in tuning.h): the same windows, each block reading one stretch
     * of it. */
    run_sum(op, acc, x, p.kx > 1, y, p.ky > 1, 0, p.nk, b * kThreads + threadIdx.x,
            p.splits * kThreads, kThreads, p.tiles);
    if constexpr (SMALL)
        split_finish_slots<Op, true>(op, p, a, b, acc);
    else if constexpr (live_count<Op>() <= kSlotWords)
        split_finish_slots(op, p, a, b, acc);
    else
        split_finish_partials(op, p, a, acc);
}

/*
 * Row mode (nb > 1: the reduced dimension is not the first): one thread per output, so a
 * warp reads 32 neighbouring elements of one k; grid.y = splits slices of k, merged in
 * order by the last block of each column of the grid.
 */
template <class Op> __global__ void __launch_bounds__(kThreads) rows(Args p, Op op)
{
    using T = typename Op::T;
    constexpr bool CX = Op::CX, CY = Op::CY, UN = Op::UNARY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    __shared__ bool is_last;
    int64_t nout = p.nb * p.na;
    int64_t o = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int b = blockIdx.y;
    int64_t per = (p.nk + p.splits - 1) / p.splits;
    int64_t k0 = min((int64_t)b * per, p.nk), k1 = min(k0 + per, p.nk);
    typename Op::Acc acc;
    op.init(acc);
    if (o < nout) {
        int64_t i = o % p.nb, a = o / p.nb;
        const T *x = (const T *)p.x + ((p.ax > 1 ? a : 0) * p.kx * p.bx + (p.bx > 1 ? i : 0)) * ex;
        const T *y =
            UN ? x : (const T *)p.y + ((p.ay > 1 ? a : 0) * p.ky * p.by + (p.by > 1 ? i : 0)) * ey;
        int64_t sx = (p.kx > 1 ? p.bx : 0) * ex, sy = (p.ky > 1 ? p.by : 0) * ey;
        for (int64_t k = k0; k < k1; k++) {
            const T *px = x + k * sx, *py = y + k * sy;
            op.add(acc, __ldg(px), CX ? __ldg(px + 1) : T(0), UN ? T(0) : __ldg(py),
                   (CY && !UN) ? __ldg(py + 1) : T(0));
        }
    }
    if (p.splits == 1) {
        if (o < nout)
            finish(op, p, o, acc);
        return;
    }
    int64_t slot = (int64_t)blockIdx.x * kThreads + threadIdx.x; /* < gridDim.x * kThreads */
    save<Op>(&p.partials[(int64_t)b * gridDim.x * kThreads + slot], acc);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned ticket = atomicAdd(&p.tickets[blockIdx.x], 1u);
        is_last = (ticket == (unsigned)p.splits - 1);
    }
    __syncthreads();
    if (!is_last)
        return;
    __threadfence();
    typename Op::Acc tot;
    op.init(tot);
    for (int s = 0; s < p.splits; s++) {
        typename Op::Acc part = load<Op>(op, &p.partials[(int64_t)s * gridDim.x * kThreads + slot]);
        op.merge(tot, part);
    }
    if (o < nout)
        finish(op, p, o, tot);
    if (threadIdx.x == 0)
        p.tickets[blockIdx.x] = 0;
}

} // namespace gpudot
