/*
 * Dot-product kernels.  No host logic here: gpudot_cuda.cu sizes grids and launches.
 *
 * Every kernel computes, for output (i, a), sum_k conj(x(i,k,a)) * y(i,k,a) in one of three
 * accumulate modes, and finishes in one launch: blocks that share an output leave partial
 * states in a workspace, and the last of them to arrive (an integer ticket, never a float
 * atomic) merges those partials in block order.  The reduction order is therefore a
 * function of the shape and the device alone: results are bitwise repeatable.
 */
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace gpudot {

enum Mode { NATIVE_F = 0, PLAIN_D = 1, COMP = 2 };

constexpr int kThreads = 256; /* block size of every kernel */

/* Accumulator state as stored in global memory: wide enough for every mode. */
struct AccState {
    double s[2];
    double c[2];
};

template <int M> struct AccType { using type = double; };
template <> struct AccType<NATIVE_F> { using type = float; };

/* Register accumulator: s = sum (re, im); c = Dot2 compensation (COMP only). */
template <int M> struct Acc {
    using A = typename AccType<M>::type;
    A s0, s1, c0, c1;
    __device__ void zero() { s0 = s1 = c0 = c1 = A(0); }
};

__device__ __forceinline__ void two_sum(double a, double b, double &s, double &e)
{
    double t = a + b;
    double z = t - a;
    e = (a - (t - z)) + (b - z);
    s = t;
}

__device__ __forceinline__ void comp_add(double &s, double &c, double a, double b)
{
    double p = a * b;
    double ep = fma(a, b, -p);
    double q;
    two_sum(s, p, s, q);
    c += q + ep;
}

/* acc += conj(x) * y for one element.  The complex cases spell out only the products that
 * exist, as Octave's complex arithmetic does (a real Inf times a complex y makes no NaN). */
template <int M, bool CX, bool CY, typename T>
__device__ __forceinline__ void acc_elem(Acc<M> &acc, T xr, T xi, T yr, T yi)
{
    using A = typename AccType<M>::type;
    if constexpr (M == COMP) {
        comp_add(acc.s0, acc.c0, xr, yr);
        if constexpr (CX && CY) {
            comp_add(acc.s0, acc.c0, xi, yi);
            comp_add(acc.s1, acc.c1, xr, yi);
            comp_add(acc.s1, acc.c1, -(double)xi, yr);
        } else if constexpr (CX) {
            comp_add(acc.s1, acc.c1, -(double)xi, yr);
        } else if constexpr (CY) {
            comp_add(acc.s1, acc.c1, xr, yi);
        }
    } else {
        A ar = xr, ai = xi, br = yr, bi = yi;
        if constexpr (CX && CY) {
            acc.s0 += ar * br + ai * bi;
            acc.s1 += ar * bi - ai * br;
        } else if constexpr (CX) {
            acc.s0 += ar * br;
            acc.s1 += -ai * br;
        } else if constexpr (CY) {
            acc.s0 += ar * br;
            acc.s1 += ar * bi;
        } else {
            acc.s0 += ar * br;
        }
    }
}

template <int M> __device__ __forceinline__ void acc_merge(Acc<M> &a, const Acc<M> &b)
{
    if constexpr (M == COMP) {
        double q;
        two_sum(a.s0, b.s0, a.s0, q);
        a.c0 += b.c0 + q;
        two_sum(a.s1, b.s1, a.s1, q);
        a.c1 += b.c1 + q;
    } else {
        a.s0 += b.s0;
        a.s1 += b.s1;
    }
}

template <int M, bool CPLX> __device__ __forceinline__ Acc<M> warp_reduce(Acc<M> a)
{
    for (int off = 16; off > 0; off >>= 1) {
        Acc<M> b;
        b.s0 = __shfl_down_sync(0xffffffffu, a.s0, off);
        b.s1 = CPLX ? __shfl_down_sync(0xffffffffu, a.s1, off) : 0;
        if constexpr (M == COMP) {
            b.c0 = __shfl_down_sync(0xffffffffu, a.c0, off);
            b.c1 = CPLX ? __shfl_down_sync(0xffffffffu, a.c1, off) : 0.0;
        } else {
            b.c0 = b.c1 = 0;
        }
        acc_merge<M>(a, b);
    }
    return a;
}

/* Warp shuffles, then one shared-memory slot per warp, then warp 0: thread 0 gets the sum. */
template <int M, bool CPLX> __device__ __forceinline__ Acc<M> block_reduce(Acc<M> a)
{
    __shared__ Acc<M> warp_sums[kThreads / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = warp_reduce<M, CPLX>(a);
    if (lane == 0)
        warp_sums[warp] = a;
    __syncthreads();
    if (warp == 0) {
        if (lane < kThreads / 32)
            a = warp_sums[lane];
        else
            a.zero();
        a = warp_reduce<M, CPLX>(a);
    }
    return a;
}

template <int M> __device__ __forceinline__ AccState to_state(const Acc<M> &a)
{
    AccState s;
    s.s[0] = a.s0;
    s.s[1] = a.s1;
    s.c[0] = a.c0;
    s.c[1] = a.c1;
    return s;
}

template <int M> __device__ __forceinline__ Acc<M> from_state(const AccState &s)
{
    using A = typename AccType<M>::type;
    Acc<M> a;
    a.s0 = (A)s.s[0];
    a.s1 = (A)s.s[1];
    a.c0 = (A)s.c[0];
    a.c1 = (A)s.c[1];
    return a;
}

/* Reads a partial state written by another block of this launch (bypassing L1). */
__device__ __forceinline__ AccState load_state(const AccState *p)
{
    AccState s;
    s.s[0] = __ldcg(&p->s[0]);
    s.s[1] = __ldcg(&p->s[1]);
    s.c[0] = __ldcg(&p->c[0]);
    s.c[1] = __ldcg(&p->c[1]);
    return s;
}

template <int M> __device__ __forceinline__ double final_value(double s, double c)
{
    if constexpr (M == COMP)
        return isfinite(s) ? s + c : s;
    return s;
}

struct DotArgs {
    const void *x, *y;
    int64_t nb, nk, na;
    int64_t bx, kx, ax, by, ky, ay;
    void *out;            /* final results, output type; written when is_final */
    AccState *carry;      /* state carried between k-chunks (nullptr: none) */
    int carry_in;         /* merge carry[o] before finishing */
    int is_final;         /* write out; else write carry[o] */
    AccState *partials;   /* workspace for multi-block outputs */
    unsigned *tickets;    /* workspace, all zero between launches */
    int splits;           /* blocks sharing one output group */
};

/* Last step for output o: fold in the carried state, then write the value or the state. */
template <typename T, int M, bool CPLX>
__device__ __forceinline__ void finish(const DotArgs &p, int64_t o, Acc<M> a)
{
    if (p.carry_in) {
        Acc<M> prev = from_state<M>(p.carry[o]);
        acc_merge<M>(prev, a);
        a = prev;
    }
    if (!p.is_final) {
        p.carry[o] = to_state<M>(a);
        return;
    }
    T *out = (T *)p.out;
    if (CPLX) {
        out[2 * o] = (T)final_value<M>(a.s0, a.c0);
        out[2 * o + 1] = (T)final_value<M>(a.s1, a.c1);
    } else {
        out[o] = (T)final_value<M>(a.s0, a.c0);
    }
}

template <typename T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int n = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int n = 2; };

template <typename T> __device__ __forceinline__ T vget(const float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}
template <typename T> __device__ __forceinline__ T vget(const double2 &v, int j)
{
    return j == 0 ? v.x : v.y;
}

/*
 * Sum of elements [k0, k1) of one run (element strides sx, sy in {0, 1}), thread t of nt
 * taking elements t, t + nt, ...  Where both runs are contiguous, of the same complexity and
 * 16-byte aligned, it reads 16-byte vectors, four in flight per thread (the loads of one
 * iteration are issued before any is used); otherwise 4-8 byte loads, also four in flight.
 */
template <typename T, int M, bool CX, bool CY>
__device__ __forceinline__ void run_sum(Acc<M> &acc, const T *x, int64_t sx, const T *y,
                                        int64_t sy, int64_t k0, int64_t k1, int t, int nt)
{
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    using V = typename Vec16<T>::type;
    constexpr int VN = Vec16<T>::n;       /* scalars per vector */
    constexpr int EV = VN / ex;           /* elements per vector */
    constexpr int U = 4;                  /* vectors in flight per thread */
    const T *xs = x + k0 * sx * ex, *ys = y + k0 * sy * ey;
    int64_t n = k1 - k0, k = 0;
    if constexpr (CX == CY) {
        if (sx == 1 && sy == 1 && ((uintptr_t)xs % 16) == 0 && ((uintptr_t)ys % 16) == 0) {
            const V *xv = (const V *)xs, *yv = (const V *)ys;
            int64_t nv = n / EV, v = t;
            for (; v + (U - 1) * (int64_t)nt < nv; v += U * (int64_t)nt) {
                V a[U], b[U];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    a[u] = __ldg(xv + v + u * nt);
                    b[u] = __ldg(yv + v + u * nt);
                }
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int j = 0; j < EV; j++)
                        acc_elem<M, CX, CY, T>(acc, vget<T>(a[u], j * ex),
                                               CX ? vget<T>(a[u], j * ex + 1) : T(0),
                                               vget<T>(b[u], j * ey),
                                               CY ? vget<T>(b[u], j * ey + 1) : T(0));
            }
            for (; v < nv; v += nt) {
                V a = __ldg(xv + v), b = __ldg(yv + v);
#pragma unroll
                for (int j = 0; j < EV; j++)
                    acc_elem<M, CX, CY, T>(acc, vget<T>(a, j * ex),
                                           CX ? vget<T>(a, j * ex + 1) : T(0),
                                           vget<T>(b, j * ey), CY ? vget<T>(b, j * ey + 1) : T(0));
            }
            k = nv * EV;
            /* the tail (fewer than EV elements) is taken by threads 0.. below */
            for (int64_t e = k + t; e < n; e += nt)
                acc_elem<M, CX, CY, T>(acc, xs[e * ex], CX ? xs[e * ex + 1] : T(0), ys[e * ey],
                                       CY ? ys[e * ey + 1] : T(0));
            return;
        }
    }
    int64_t e = t;
    for (; e + (U - 1) * (int64_t)nt < n; e += U * (int64_t)nt) {
        T a[U][2], b[U][2];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const T *px = xs + (e + u * nt) * sx * ex, *py = ys + (e + u * nt) * sy * ey;
            a[u][0] = __ldg(px);
            a[u][1] = CX ? __ldg(px + 1) : T(0);
            b[u][0] = __ldg(py);
            b[u][1] = CY ? __ldg(py + 1) : T(0);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            acc_elem<M, CX, CY, T>(acc, a[u][0], a[u][1], b[u][0], b[u][1]);
    }
    for (; e < n; e += nt) {
        const T *px = xs + e * sx * ex, *py = ys + e * sy * ey;
        acc_elem<M, CX, CY, T>(acc, __ldg(px), CX ? __ldg(px + 1) : T(0), __ldg(py),
                               CY ? __ldg(py + 1) : T(0));
    }
}

/* Start of run a of an operand with extents (kx, ax) in column mode, in scalars. */
__device__ __forceinline__ int64_t run_start(int64_t a, int64_t kx, int64_t ax, int e)
{
    return (ax > 1 ? a : 0) * kx * e;
}

/*
 * Column mode, long runs (nb == 1): `splits` blocks per output, each summing a contiguous
 * slice of its run; the last block to finish an output merges the slices in order.
 * Grid: na * splits blocks.
 */
template <typename T, int M, bool CX, bool CY>
__global__ void __launch_bounds__(kThreads) dot_columns_split(DotArgs p)
{
    constexpr bool CPLX = CX || CY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    __shared__ bool is_last;
    int64_t a = blockIdx.x / p.splits;
    int b = blockIdx.x % p.splits;
    /* slices are multiples of 8 elements so every slice keeps its run's alignment */
    int64_t per = ((p.nk + p.splits - 1) / p.splits + 7) / 8 * 8;
    int64_t k0 = min((int64_t)b * per, p.nk), k1 = min(k0 + per, p.nk);
    const T *x = (const T *)p.x + run_start(a, p.kx, p.ax, ex);
    const T *y = (const T *)p.y + run_start(a, p.ky, p.ay, ey);
    Acc<M> acc;
    acc.zero();
    run_sum<T, M, CX, CY>(acc, x, p.kx > 1, y, p.ky > 1, k0, k1, threadIdx.x, kThreads);
    acc = block_reduce<M, CPLX>(acc);
    if (p.splits == 1) {
        if (threadIdx.x == 0)
            finish<T, M, CPLX>(p, a, acc);
        return;
    }
    if (threadIdx.x == 0) {
        p.partials[blockIdx.x] = to_state<M>(acc);
        __threadfence();
        unsigned ticket = atomicAdd(&p.tickets[a], 1u);
        is_last = (ticket == (unsigned)p.splits - 1);
    }
    __syncthreads();
    if (!is_last || threadIdx.x >= 32)
        return;
    __threadfence();
    /* warp 0 of the last block: lane l merges slices l, l + 32, ... in order, then a fixed
     * shuffle tree merges the lanes */
    Acc<M> tot;
    tot.zero();
    for (int s = threadIdx.x; s < p.splits; s += 32) {
        Acc<M> part = from_state<M>(load_state(&p.partials[a * p.splits + s]));
        acc_merge<M>(tot, part);
    }
    tot = warp_reduce<M, CPLX>(tot);
    if (threadIdx.x == 0) {
        finish<T, M, CPLX>(p, a, tot);
        p.tickets[a] = 0;
    }
}

/*
 * Column mode, short runs or many outputs (nb == 1): one warp per output, grid-stride over
 * outputs; no workspace, no second pass.
 */
template <typename T, int M, bool CX, bool CY>
__global__ void __launch_bounds__(kThreads) dot_columns_warp(DotArgs p)
{
    constexpr bool CPLX = CX || CY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    int lane = threadIdx.x & 31;
    int64_t warp = (int64_t)blockIdx.x * (kThreads / 32) + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * (kThreads / 32);
    for (int64_t a = warp; a < p.na; a += nwarps) {
        const T *x = (const T *)p.x + run_start(a, p.kx, p.ax, ex);
        const T *y = (const T *)p.y + run_start(a, p.ky, p.ay, ey);
        Acc<M> acc;
        acc.zero();
        run_sum<T, M, CX, CY>(acc, x, p.kx > 1, y, p.ky > 1, 0, p.nk, lane, 32);
        acc = warp_reduce<M, CPLX>(acc);
        if (lane == 0)
            finish<T, M, CPLX>(p, a, acc);
    }
}

/*
 * Row mode (nb > 1: the reduced dimension is not the first): one thread per output, so a
 * warp reads 32 neighbouring elements of one k; grid.y = splits slices of k, merged in
 * order by the last block of each column of the grid.
 */
template <typename T, int M, bool CX, bool CY>
__global__ void __launch_bounds__(kThreads) dot_rows(DotArgs p)
{
    constexpr bool CPLX = CX || CY;
    constexpr int ex = CX ? 2 : 1, ey = CY ? 2 : 1;
    __shared__ bool is_last;
    int64_t nout = p.nb * p.na;
    int64_t o = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    int b = blockIdx.y;
    int64_t per = (p.nk + p.splits - 1) / p.splits;
    int64_t k0 = min((int64_t)b * per, p.nk), k1 = min(k0 + per, p.nk);
    Acc<M> acc;
    acc.zero();
    if (o < nout) {
        int64_t i = o % p.nb, a = o / p.nb;
        const T *x = (const T *)p.x + ((p.ax > 1 ? a : 0) * p.kx * p.bx + (p.bx > 1 ? i : 0)) * ex;
        const T *y = (const T *)p.y + ((p.ay > 1 ? a : 0) * p.ky * p.by + (p.by > 1 ? i : 0)) * ey;
        int64_t sx = (p.kx > 1 ? p.bx : 0) * ex, sy = (p.ky > 1 ? p.by : 0) * ey;
        for (int64_t k = k0; k < k1; k++) {
            const T *px = x + k * sx, *py = y + k * sy;
            acc_elem<M, CX, CY, T>(acc, __ldg(px), CX ? __ldg(px + 1) : T(0), __ldg(py),
                                   CY ? __ldg(py + 1) : T(0));
        }
    }
    if (p.splits == 1) {
        if (o < nout)
            finish<T, M, CPLX>(p, o, acc);
        return;
    }
    int64_t slot = (int64_t)blockIdx.x * kThreads + threadIdx.x; /* < gridDim.x * kThreads */
    p.partials[(int64_t)b * gridDim.x * kThreads + slot] = to_state<M>(acc);
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
    Acc<M> tot;
    tot.zero();
    for (int s = 0; s < p.splits; s++) {
        Acc<M> part = from_state<M>(load_state(&p.partials[(int64_t)s * gridDim.x * kThreads + slot]));
        acc_merge<M>(tot, part);
    }
    if (o < nout)
        finish<T, M, CPLX>(p, o, tot);
    if (threadIdx.x == 0)
        p.tickets[blockIdx.x] = 0;
}

} // namespace gpudot
