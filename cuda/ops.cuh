/*
 * The reductions, as Ops for the kernels of reduce_kernels.cuh: an Op names its element and
 * accumulator types and gives init, add (one element), merge (two partial states) and write
 * (the final value).  The element math of norms and cosines is gpudot_math.h's, shared with
 * the CPU engine.  A new reduction is a new Op here.
 */
#pragma once

#include "reduce_kernels.cuh"

namespace gpudot
{

/* conj(x) . y in mode M (NATIVE_F, PLAIN_D, COMP) */
template <typename T_, int M, bool CX_, bool CY_> struct DotOp {
    using T = T_;
    using A = typename AccType<M>::type;
    using Acc = gpudot::Acc<M>;
    static constexpr bool CX = CX_, CY = CY_, UNARY = false;
    /* columns_query takes real plain sums of a vector broadcast over the columns */
    static constexpr bool kBatchFinish = false, kCos = false, kQuery = M != COMP && !CX_ && !CY_;
    static constexpr bool kStaged = true; /* (stages_runs) */
    static constexpr int kWarpBlocks = 1; /* columns_warp's launch bounds: as ptxas likes */
    static constexpr int kWords = (CX || CY) ? 2 : 1; /* values of T an output takes */
    /* fields s0, s1, c0, c1 */
    static constexpr unsigned kLive =
        1u | ((CX || CY) ? 2u : 0u) | (M == COMP ? (4u | ((CX || CY) ? 8u : 0u)) : 0u);
    __host__ __device__ void init(Acc &a) const
    {
        a.zero();
    }
    __device__ void add(Acc &a, T xr, T xi, T yr, T yi) const
    {
        acc_elem<M, CX, CY, T>(a, xr, xi, yr, yi);
    }
    __host__ __device__ void merge(Acc &a, const Acc &b) const
    {
        acc_merge<M>(a, b);
    }
    __host__ __device__ void write(void *out, int64_t o, const Acc &a) const
    {
        T *r = (T *)out;
        if (CX || CY) {
            r[2 * o] = (T)final_value<M>(a.s0, a.c0);
            r[2 * o + 1] = (T)final_value<M>(a.s1, a.c1);
        } else {
            r[o] = (T)final_value<M>(a.s0, a.c0);
        }
    }
};

template <typename A> struct NormAcc;
template <> struct NormAcc<double> {
    using type = gd_norm_d;
};
template <> struct NormAcc<float> {
    using type = gd_norm_f;
};

/* vector p-norm of x, accumulated in A; PK a GD_P_* kind, or -1: the kind is run time */
template <typename T_, typename A_, int PK, bool COMPM, bool CX_> struct NormOp {
    using T = T_;
    using A = A_;
    using Acc = typename NormAcc<A>::type;
    static constexpr bool CX = CX_, CY = false, UNARY = true;
    static constexpr bool kBatchFinish = false, kCos = false, kQuery = false;
    static constexpr bool kStaged = PK != -1;
    static constexpr int kWarpBlocks = 1; /* columns_warp's launch bounds: as ptxas likes */
    static constexpr int kWords = 1;
    /* fields e, s, c, sml, csml, big, cbig: the fast 2-norm and p = 1 use s (and c),
     * Inf s, the run-time kinds all */
    static constexpr unsigned kLive = (PK == GD_P_SSQ || PK == GD_P_ONE) ? (2u | (COMPM ? 4u : 0u))
                                      : PK == GD_P_INF                   ? 2u
                                                                         : 0x7fu;
    int pk;
    A p;
    __host__ __device__ int kind() const
    {
        return PK >= 0 ? PK : pk;
    }
    __host__ __device__ void init(Acc &a) const
    {
        if constexpr (sizeof(A) == 8)
            gd_norm_init_d(&a, kind());
        else
            gd_norm_init_f(&a, kind());
    }
    __device__ void add(Acc &a, T xr, T xi, T, T) const
    {
        if constexpr (PK < 0)
            a = add_out_of_line(a, xr, xi);
        else
            add_elem(a, xr, xi);
    }
    __device__ __forceinline__ void add_elem(Acc &a, T xr, T xi) const
    {
        if constexpr (sizeof(A) == 8)
            gd_norm_add_elem_d(&a, xr, xi, CX, kind(), p, COMPM);
        else
            gd_norm_add_elem_f(&a, xr, xi, CX, kind(), p, COMPM);
    }
    /* The run-time kinds (other p, Blue's 2-norm) are bound by their arithmetic, not by
     * memory: one call per element instead of their code inlined at every unrolled load
     * keeps the kernels small (the PTX of all kernels fell from 43 to 20 MB). */
    __device__ __noinline__ Acc add_out_of_line(Acc a, T xr, T xi) const
    {
        add_elem(a, xr, xi);
        return a;
    }
    __host__ __device__ void merge(Acc &a, const Acc &b) const
    {
        if constexpr (sizeof(A) == 8)
            gd_norm_merge_d(&a, &b, kind(), p, COMPM);
        else
            gd_norm_merge_f(&a, &b, kind(), p, COMPM);
    }
    __host__ __device__ void write(void *out, int64_t o, const Acc &a) const
    {
        A r;
        int k = PK == GD_P_SSQ ? pk : kind(); /* the SSQ code serves SSQ and SSQX */
        if constexpr (sizeof(A) == 8)
            r = gd_norm_final_d(&a, k, p, COMPM);
        else
            r = gd_norm_final_f(&a, k, p, COMPM);
        ((T *)out)[o] = (T)r;
    }
};

template <typename A> struct CosAcc;
template <> struct CosAcc<double> {
    using type = gd_cos_d;
};
template <> struct CosAcc<float> {
    using type = gd_cos_f;
};

/* conj(x) . y / (|x| |y|), one pass, accumulated in A; FAST: unscaled sums (fast = 1 or 2
 * at run time, see gpudot_fast_variant), else scaled */
template <typename T_, typename A_, bool COMPM, bool CX_, bool CY_, bool FAST> struct CosOp {
    using T = T_;
    using A = A_;
    using Acc = typename CosAcc<A>::type;
    static constexpr bool CX = CX_, CY = CY_, UNARY = false;
    static constexpr bool kBatchFinish = true, kCos = true; /* (columns_warp_batched) */
    /* columns_query takes it where one operand is a vector broadcast over the columns */
    static constexpr bool kQuery = FAST && !COMPM && !CX_ && !CY_;
    /* columns_warp's blocks an SM for unscaled real sums: ptxas took 98 registers, 2 blocks
     * (64 x 2^21 single cosines at 82% of the read ceiling); 3 blocks: 80 and a 20-byte
     * spill, 394 us against gdot's 408 in one ncu run (4 blocks: 64 and 160 bytes spilled) */
    /* columns_staged for unscaled sums (the scaled ones are bound by their arithmetic),
     * finishing batches carried over tiles: 64 x 2^21 singles 300 -> 283 us, doubles 548
     * -> 519 (H200 kernel_bench, two rounds; read ceiling 240 and 477) */
    static constexpr bool kStaged = FAST;
    static constexpr int kWarpBlocks = kQuery ? 3 : 1;
    static constexpr int kWords = (CX || CY) ? 2 : 1;
    /* fields ex, ey, xr, xi, xx, yy, cxr, cxi, cxx, cyy, fx, fy, limx, limy: unscaled sums
     * use xr, xx, yy (xi when complex, the c* when compensated); scaled ones 0-9 (merge
     * recomputes the cached factors) */
    static constexpr unsigned kLive = FAST ? (0x34u | ((CX || CY) ? 0x8u : 0u) |
                                              (COMPM ? (0x340u | ((CX || CY) ? 0x80u : 0u)) : 0u))
                                           : 0x3ffu;
    int fast;
    __host__ __device__ void init(Acc &a) const
    {
        if constexpr (sizeof(A) == 8)
            gd_cos_init_d(&a);
        else
            gd_cos_init_f(&a);
    }
    __device__ void add(Acc &a, T xr, T xi, T yr, T yi) const
    {
        if constexpr (FAST)
            add_elem(a, xr, xi, yr, yi);
        else
            a = add_out_of_line(a, xr, xi, yr, yi);
    }
    __device__ __forceinline__ void add_elem(Acc &a, T xr, T xi, T yr, T yi) const
    {
        if constexpr (sizeof(A) == 8)
            gd_cos_add_d(&a, xr, xi, yr, yi, CX, CY, COMPM, FAST);
        else
            gd_cos_add_f(&a, xr, xi, yr, yi, CX, CY, COMPM, FAST);
    }
    /* The scaled sums (data whose squares could overflow or underflow) are bound by their
     * arithmetic: one call per element, as the norms' run-time kinds. */
    __device__ __noinline__ Acc add_out_of_line(Acc a, T xr, T xi, T yr, T yi) const
    {
        add_elem(a, xr, xi, yr, yi);
        return a;
    }
    __host__ __device__ void merge(Acc &a, const Acc &b) const
    {
        if constexpr (sizeof(A) == 8)
            gd_cos_merge_d(&a, &b, COMPM, FAST);
        else
            gd_cos_merge_f(&a, &b, COMPM, FAST);
    }
    __host__ __device__ void write(void *out, int64_t o, const Acc &a) const
    {
        A re, im;
        if constexpr (sizeof(A) == 8)
            gd_cos_final_d(&a, COMPM, FAST ? fast : 0, &re, &im);
        else
            gd_cos_final_f(&a, COMPM, FAST ? fast : 0, &re, &im);
        T r = (T)re, i = (T)im;
        if constexpr (sizeof(T) == 8)
            gd_clamp_unit_d(&r, &i, CX || CY);
        else
            gd_clamp_unit_f(&r, &i, CX || CY);
        T *res = (T *)out;
        if (CX || CY) {
            res[2 * o] = r;
            res[2 * o + 1] = i;
        } else {
            res[o] = r;
        }
    }
};

} // namespace gpudot
