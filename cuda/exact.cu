/*
 * CUDA engine, "exact" mode.  Dot products, 2-norms, real 1-norms and cosines of resident
 * data along columns run on the device (all of an output's sums in one pass): each sum of
 * each thread keeps its share of a run as a floating-point expansion of a few
 * doubles (ExBLAS's first stage): a product x y whose TwoProduct p + e is exact goes in as
 * p and e, each through the slots by TwoSum, so the slots' sum stays exactly the thread's
 * sum; what falls out of the last slot, the slots at the end, and every other product (past
 * the range, Inf, NaN) go exactly into its warp's digits in shared memory (base 2^32
 * in int64, the host core's limbs: gpudot_exact.h), added by integer atomics.  Integer
 * sums do not depend on order, and both engines' last step is one source
 * (gpudot_exact_top.h): the same bits.  An output of several blocks: the blocks add their
 * digits into the output's with atomics too, and the last block moves them to the host
 * (mapped memory, the host spinning on them, as small gdot calls do), which finishes them.
 * An output of one block (many outputs, short runs; a warp an output where there are
 * many): the block finishes it and writes its value.  Contiguous aligned runs are read as
 * 16-byte vectors, each thread's next one in flight while it adds the last.
 * Garrays on several GPUs run so on every device at once, the host merging runs cut between
 * shards.  Real Inf, -Inf and 0 norms run as "double" (exact there).  Other calls (complex
 * 1-, Inf- and -Inf-norms, rows, host data, a host operand beside garrays of several GPUs)
 * bring the operands to the host and run the CPU engine's exact sums.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <thread>
#include <vector>

#include "engine.cuh"
#include "gpudot_exact.h"
#include "gpudot_exact_top.h"
#include "vec16.cuh"

namespace gpudot
{

/* Slots of a thread's expansion (H100, 2^28 elements, whole calls): single 4 (988 us; 3:
 * 931, but 3643 against 1075 on products over 2^+-80; 8: 978), double 3 (1490 us; 4: 1545,
 * 8: 2392; products over 2^+-900 5313, 5387, 5656). */
constexpr int kSlotsF = 4, kSlotsD = 3;
/* The fast path's products: TwoProduct exact from 2^-968, and no TwoSum of a warp's at
 * most 32 kPerThread of them (doubles: its lanes' expansions merged) can overflow below
 * 2^995. */
constexpr double kFastMin = 0x1p-968, kFastMax = 0x1p995;
constexpr int64_t kPerThread = (int64_t)1 << 22;
/* Elements of a thread's loads in flight at once (runs not read as vectors). */
constexpr int kAhead = 4;
/* Outputs of several blocks a launch takes (their records of digits, and as many moved
 * out: up to 37 MB). */
constexpr int64_t kGroup = 4096;
/* Outputs of one block each a launch takes: a grid's rows */
constexpr int64_t kMaxGridRows = 65535;
/* Warps an SM that outputs of one block each fill before they take a warp each */
constexpr int kFinWarps = 16;
constexpr int kWarps = kThreads / 32;

enum { F_NAN = 1, F_PINF = 2, F_NINF = 4, F_NONNEG = 8 };

/* m 2^e (m < 2^53, e >= GD_EXACT_EMIN), with its sign, into digits (3 of them at most) */
__device__ __forceinline__ void digits_add(unsigned long long *dig, uint64_t m, int e, bool neg)
{
    int off = e - GD_EXACT_EMIN, i = off >> 5, s = off & 31;
    unsigned __int128 w = (unsigned __int128)m << s;
    uint64_t d[3] = {(uint64_t)w & 0xffffffffu, (uint64_t)(w >> 32) & 0xffffffffu,
                     (uint64_t)(w >> 64)};
#pragma unroll
    for (int j = 0; j < 3; j++)
        if (d[j])
            atomicAdd(dig + i + j, neg ? (unsigned long long)(-(int64_t)d[j]) : d[j]);
}

/* a finite double's m 2^e */
__device__ __forceinline__ uint64_t split(double v, int *e)
{
    uint64_t b = (uint64_t)__double_as_longlong(v);
    int E = (int)((b >> 52) & 0x7ff);
    *e = (E ? E : 1) - 1075;
    return (b & (((uint64_t)1 << 52) - 1)) | ((uint64_t)(E != 0) << 52);
}

__device__ __forceinline__ void flush(unsigned long long *dig, double v)
{
    if (v != 0) {
        int e;
        uint64_t m = split(v, &e);
        digits_add(dig, m, e, v < 0);
    }
}

/* any other product: Inf, NaN, and those past the fast path's range as the exact 106-bit
 * product of their significands (zero products take the fast path: add_prod) */
__device__ __noinline__ void slow_prod(unsigned long long *dig, double x, double y, int *flags)
{
    bool neg = signbit(x) != signbit(y);
    if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
        *flags |= F_NAN;
    } else if (isinf(x) || isinf(y)) {
        *flags |= neg ? F_NINF : F_PINF;
    } else {
        *flags |= F_NONNEG;
        int ex, ey;
        uint64_t mx = split(x, &ex), my = split(y, &ey);
        unsigned __int128 m = (unsigned __int128)mx * my;
        digits_add(dig, (uint64_t)m & (((uint64_t)1 << 53) - 1), ex + ey, neg);
        digits_add(dig, (uint64_t)(m >> 53), ex + ey + 53, neg);
    }
}

/* v into the slots by TwoSum; what is left after the last, into the digits.  Every
 * operation rounds on its own (__dadd_rn): a product fused into a following add (nvcc
 * contracts a * b + c) would break the TwoSums' exactness. */
template <int S>
__device__ __forceinline__ void expand(double (&a)[S], double v, unsigned long long *dig)
{
#pragma unroll
    for (int i = 0; i < S; i++) {
        double s = __dadd_rn(a[i], v), b = __dsub_rn(s, a[i]);
        v = __dadd_rn(__dsub_rn(a[i], __dsub_rn(s, b)), __dsub_rn(v, b));
        a[i] = s;
    }
    if (v != 0)
        flush(dig, v);
}

/* x y into the slots a (or the digits), its flags into fl << sh; TWO: x y may need its
 * TwoProduct's second term (doubles; a product of singles is exact in double) */
template <int S, bool TWO>
__device__ __forceinline__ void add_prod(double (&a)[S], unsigned long long *dig, double x,
                                         double y, int &fl, int sh)
{
    double p = __dmul_rn(x, y), ap = fabs(p);
    /* a zero product (x or y 0, the other finite; not one that underflowed) adds nothing
     * and takes the fast path too, its flag F_NONNEG but for -0: data with zeros (ReLU's)
     * took slow_prod, H200 2^26 singles half 0: 778 us, 5.1x native */
    bool zero = ap == 0 && (x == 0 || y == 0);
    if ((ap >= kFastMin && ap <= kFastMax) || zero) {
        fl |= (__double_as_longlong(p) != (long long)0x8000000000000000ULL ? F_NONNEG : 0) << sh;
        expand(a, p, dig);
        if (TWO)
            expand(a, fma(x, y, -p), dig);
    } else {
        int f = 0;
        slow_prod(dig, x, y, &f);
        fl |= f << sh;
    }
}

/* What a launch sums for each output: NS = 1, a dot product x.y (M_DOT), the squares x.x
 * (M_SQ: 2-norms) or |x| (M_ABS: 1-norms); NS = 3, a cosine's x.y, x.x and y.y (M_COS);
 * complex data (cx, cy): NS = 2, conj (x) y's real and imaginary parts (M_CDOT), NS = 4,
 * those and x.x, y.y (M_CCOS), with the products the CPU engine adds. */
enum { M_DOT, M_SQ, M_ABS, M_COS, M_CDOT, M_CCOS };
constexpr int ns_of(int mode)
{
    return mode == M_COS ? 3 : mode == M_CDOT ? 2 : mode == M_CCOS ? 4 : 1;
}

/* f (sum, x, y, two) for each product of an element (x, y; xi, yi: complex parts) that
 * sum `sum` of mode takes; two: a TwoProduct may have a second term (not |x| 1) */
template <int NS, typename F>
__device__ __forceinline__ void each_prod(int mode, int cx, int cy, double x, double y, double xi,
                                          double yi, F &&f)
{
    if constexpr (NS == 2 || NS == 4) { /* (as the CPU engine: no product of an absent part) */
        f(0, x, y, true);
        if (cx && cy)
            f(0, xi, yi, true);
        if (cy)
            f(1, x, yi, true);
        if (cx)
            f(1, -xi, y, true);
        if constexpr (NS == 4) {
            f(2, x, x, true);
            f(2, xi, xi, true);
            f(3, y, y, true);
            f(3, yi, yi, true);
        }
    } else if constexpr (NS == 3) {
        f(0, x, y, true);
        f(1, x, x, true);
        f(2, y, y, true);
    } else if (mode == M_ABS) {
        f(0, fabs(x), 1.0, false);
    } else {
        f(0, x, mode == M_DOT ? y : x, true);
    }
}

/* A contiguous, 16-byte aligned run of real data: take (x, y, 0, 0) of each element, a
 * 16-byte vector of each operand a round from vector k0 on, step apart, the next round's
 * issued before this one's products; the elements it took. */
template <typename T, typename F>
__device__ __forceinline__ int64_t take_vectors(F &&take, const T *xo, const T *yo, bool hy,
                                                int64_t nk, int64_t k0, int64_t step)
{
    using VT = typename Vec16<T>::type;
    constexpr int V = Vec16<T>::n;
    int64_t nv = nk / V;
    const VT *vx = (const VT *)xo, *vy = (const VT *)yo;
    VT bx = {}, by = {};
    if (k0 < nv) {
        bx = __ldg(vx + k0);
        if (hy)
            by = __ldg(vy + k0);
    }
    for (int64_t kk = k0; kk < nv; kk += step) {
        VT cxv = bx, cyv = by;
        if (kk + step < nv) {
            bx = __ldg(vx + kk + step);
            if (hy)
                by = __ldg(vy + kk + step);
        }
#pragma unroll
        for (int e = 0; e < V; e++)
            take((double)vget<T>(cxv, e), hy ? (double)vget<T>(cyv, e) : 0.0, 0.0, 0.0);
    }
    return nv * V;
}

/* What the block of an output of one block (exact_columns' FIN) writes: its value (op, pk:
 * a norm's kind) in the output's class (single) and form (cplx: re, im), ob bytes an
 * output.  (The record kernels take none: FIN is false.) */
struct ExactOut {
    int op, pk, single, cplx, ob;
};

/* An output's result from its sums in shared memory (NS x GD_EXACT_LIMBS digits, those of
 * sum s from lo[s] to hi[s]; fl: the flags), by gd_top_finish as the CPU engine's, to d.
 * Out of line: inlined, its registers cost the element loop spills (nvcc -Xptxas -v,
 * sm_90). */
template <int NS>
__device__ __noinline__ void finish_output(long long *sums, int fl, const int *lo, const int *hi,
                                           bool some, const ExactOut &fo, char *d)
{
    __shared__ gd_top tops[4];
    int s = threadIdx.x;
    if (s < NS) { /* (a cosine's xy, xx, yy to a[0], a[2], a[3], as gd_top_finish takes them) */
        gd_top &t = tops[NS == 3 && s ? s + 1 : s];
        int f = fl >> (4 * s);
        gd_top_of_limbs((int64_t *)sums + s * GD_EXACT_LIMBS, lo[s], hi[s], &t);
        t.nan = (f & F_NAN) != 0;
        t.pinf = (f & F_PINF) != 0;
        t.ninf = (f & F_NINF) != 0;
        t.negzero = some && !(f & F_NONNEG);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double re, im;
        gd_top_finish(fo.op, fo.pk, fo.single, fo.cplx, tops, 0, &re, &im);
        if (fo.single) {
            ((float *)d)[0] = (float)re;
            if (fo.cplx)
                ((float *)d)[1] = (float)im;
        } else {
            ((double *)d)[0] = re;
            if (fo.cplx)
                ((double *)d)[1] = im;
        }
    }
}

/* An output of one warp (FIN) where no product reached its digits or was Inf or NaN: its
 * lanes' slots then hold its exact sums.  Each sum as h + l by TwoSums (every lane the
 * same: shuffles by xor, each step commutative), within 2^-99 of the slots' magnitudes m
 * of it (the errors' sum rounded 13 times at most, each error within 2^-53 of the 8
 * partial sums a slot enters), and taken from m 2^-88: a value rounded by gd_round_near, a
 * cosine's sums to the 62 bits it reads by gd_near62, where that is certain; else false,
 * and the digits finish it.  The digits' way (flushes, a scan, one lane's rounding) cost
 * 64 x 2^21 single dots 5x native's time (H200). */
template <int NS, int S>
__device__ __forceinline__ bool warp_finish(const double (&a)[NS][S], const unsigned long long *dig,
                                            int fl, int mode, const ExactOut &fo, char *d)
{
    bool clean = !(fl & (0x7777 & ((1 << (4 * NS)) - 1))); /* (F_NAN, F_PINF, F_NINF) */
    __syncwarp(); /* (the lanes' atomics on the digits seen) */
    for (int i = threadIdx.x & 31; i < NS * GD_EXACT_LIMBS; i += 32)
        clean &= dig[i] == 0;
    if (!__all_sync(0xffffffffu, clean))
        return false;
    double h[NS], l[NS], m[NS];
#pragma unroll
    for (int j = 0; j < NS; j++) {
        h[j] = a[j][0], l[j] = 0, m[j] = fabs(a[j][0]);
#pragma unroll
        for (int i = 1; i < S; i++) {
            double s, e;
            gd_two_sum_d(h[j], a[j][i], &s, &e);
            h[j] = s;
            l[j] = __dadd_rn(l[j], e);
            m[j] = __dadd_rn(m[j], fabs(a[j][i]));
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            double s, e, l2 = __shfl_xor_sync(0xffffffffu, l[j], off);
            gd_two_sum_d(h[j], __shfl_xor_sync(0xffffffffu, h[j], off), &s, &e);
            h[j] = s;
            l[j] = __dadd_rn(__dadd_rn(l[j], l2), e);
            m[j] = __dadd_rn(m[j], __shfl_xor_sync(0xffffffffu, m[j], off));
        }
    }
    bool lead = (threadIdx.x & 31) == 0;
    if constexpr (NS <= 2) { /* a value, or a complex dot product's two */
        double v[2] = {0, 0};
#pragma unroll
        for (int j = 0; j < NS; j++)
            if (!gd_round_near(h[j], l[j], m[j] * 0x1p-88, fo.single, mode == M_SQ, &v[j]))
                return false;
        if (lead)
            for (int j = 0; j < NS; j++)
                if (fo.single)
                    ((float *)d)[j] = (float)v[j];
                else
                    ((double *)d)[j] = v[j];
    } else { /* a cosine: its sums as gd_top_finish takes them (xy, xyi, xx, yy) */
        gd_top tops[4];
#pragma unroll
        for (int j = 0; j < NS; j++)
            if (!gd_near62(h[j], l[j], m[j] * 0x1p-88, &tops[NS == 3 && j ? j + 1 : j]))
                return false;
        if (lead) {
            double re, im;
            gd_top_finish(fo.op, fo.pk, fo.single, fo.cplx, tops, 0, &re, &im);
            if (fo.single) {
                ((float *)d)[0] = (float)re;
                if (fo.cplx)
                    ((float *)d)[1] = (float)im;
            } else {
                ((double *)d)[0] = re;
                if (fo.cplx)
                    ((double *)d)[1] = im;
            }
        }
    }
    return true;
}

/* The end of an output of one block: its threads' flags (fl) and its nw warps' digits (wd)
 * summed into warp 0's, with the span of the digits in use, and its result to d */
template <int NS>
__device__ __forceinline__ void block_finish(unsigned long long *wd, int nw, int fl, char *d,
                                             bool some, const ExactOut &fo)
{
    constexpr int N = NS * GD_EXACT_LIMBS;
    __shared__ int flags, lo[NS], hi[NS];
    if (threadIdx.x == 0)
        flags = 0;
    if (threadIdx.x < NS)
        lo[threadIdx.x] = GD_EXACT_LIMBS, hi[threadIdx.x] = -1;
    for (int o = 16; o > 0; o >>= 1)
        fl |= __shfl_xor_sync(0xffffffffu, fl, o);
    __syncthreads(); /* (every thread's digits are in) */
    if ((threadIdx.x & 31) == 0 && fl)
        atomicOr(&flags, fl);
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        unsigned long long s = wd[i];
        for (int w = 1; w < nw; w++)
            s += wd[w * N + i];
        wd[i] = s; /* (warp 0's digit i: read by this thread alone) */
        if (s) {
            atomicMin(&lo[i / GD_EXACT_LIMBS], i % GD_EXACT_LIMBS);
            atomicMax(&hi[i / GD_EXACT_LIMBS], i % GD_EXACT_LIMBS);
        }
    }
    __syncthreads();
    finish_output<NS>((long long *)wd, flags, lo, hi, some, fo, d);
}

/* A block's end of an output: its threads' flags (fl) and its warps' digits (wd) into the
 * output's record rec (REC words: the digits, then the flags); the last block of the output
 * (its ticket) moves the record to d and leaves it and the ticket zero again; to mapped
 * host memory (mapped), the flags word last, after a system fence, so that the host
 * spinning on it sees the whole record. */
template <int NS>
__device__ __forceinline__ void block_end(const unsigned long long *wd, int fl,
                                          unsigned long long *rec, unsigned *ticket,
                                          unsigned long long *d, int mapped)
{
    constexpr int REC = NS * GD_EXACT_LIMBS + 1;
    __shared__ bool last;
    int any = 0;
    for (int b = 1; b < 1 << (4 * NS); b <<= 1)
        any |= __syncthreads_or(fl & b) ? b : 0;
    if (threadIdx.x == 0 && any)
        atomicOr(rec + REC - 1, (unsigned long long)any);
    for (int i = threadIdx.x; i < NS * GD_EXACT_LIMBS; i += blockDim.x) {
        unsigned long long s = 0;
        for (int w = 0; w < kWarps; w++)
            s += wd[w * NS * GD_EXACT_LIMBS + i];
        if (s)
            atomicAdd(rec + i, s);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    for (int i = threadIdx.x; i < REC - 1; i += blockDim.x)
        d[i] = atomicExch(rec + i, 0ull);
    if (mapped)
        __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        *ticket = 0;
        *(volatile unsigned long long *)(d + REC - 1) = atomicExch(rec + REC - 1, 0ull);
    }
}

/* Output o0 + blockIdx.y of a column-mode call (extents kx, ax of x and ky, ay of y):
 * blockIdx.x's share of its run (NS sums of GD_EXACT_LIMBS digits, then the flags: 4 bits
 * a sum).  FIN (one block an output, of one warp where there are many): its value to dst
 * (block_finish); else its record, through acc and tickets (by blockIdx.y, zero between
 * calls), to dst (block_end). */
template <typename T, int S, int NS, bool FIN>
__global__ void __launch_bounds__(kThreads, NS == 1   ? 4
                                            : NS == 3 ? 3
                                                      : 1)
    exact_columns(const T *x, const T *y, int mode, int cx, int cy, int64_t nk, int64_t kx,
                  int64_t ax, int64_t ky, int64_t ay, int64_t o0, unsigned long long *acc,
                  unsigned *tickets, unsigned long long *dst, int mapped, ExactOut fo)
{
    constexpr bool TWO = sizeof(T) == 8, CPLX = NS == 2 || NS == 4;
    constexpr int REC = NS * GD_EXACT_LIMBS + 1;
    /* each warp's digits: kWarps' (static), or FIN's blockDim.x / 32 (dynamic: 1 or 8) */
    constexpr int WS = FIN ? 1 : kWarps, NSS = FIN ? 1 : NS, LS = FIN ? 1 : GD_EXACT_LIMBS;
    __shared__ unsigned long long ws[WS][NSS][LS];
    extern __shared__ unsigned long long wdyn[];
    unsigned long long *wd = FIN ? wdyn : &ws[0][0][0];
    int nw = FIN ? blockDim.x >> 5 : kWarps;
    if constexpr (FIN) {
        for (int i = threadIdx.x; i < nw * NS * GD_EXACT_LIMBS; i += blockDim.x)
            wd[i] = 0;
    } else {
        for (int i = threadIdx.x; i < kWarps * NS * GD_EXACT_LIMBS; i += blockDim.x)
            (&ws[0][0][0])[i] = 0;
    }
    __syncthreads();
    int64_t o = o0 + blockIdx.y;
    bool hy = NS > 1 || mode == M_DOT;
    int64_t ex = CPLX && cx ? 2 : 1, ey = CPLX && cy ? 2 : 1; /* (scalars an element) */
    const T *xo = x + (ax > 1 ? o * kx * ex : 0), *yo = hy ? y + (ay > 1 ? o * ky * ey : 0) : xo;
    int64_t sx = (kx > 1) * ex, sy = hy ? (ky > 1) * ey : sx;
    unsigned long long(*dig)[GD_EXACT_LIMBS];
    if constexpr (FIN)
        dig =
            (unsigned long long(*)[GD_EXACT_LIMBS])(wd + (threadIdx.x >> 5) * NS * GD_EXACT_LIMBS);
    else
        dig = (unsigned long long(*)[GD_EXACT_LIMBS])ws[threadIdx.x >> 5];
    double a[NS][S] = {};
    int fl = 0;
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t k0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* an element's products into the sums */
    auto take = [&](double xv, double yv, double xi, double yi) {
        each_prod<NS>(mode, cx, cy, xv, yv, xi, yi, [&](int j, double p, double q, bool two) {
            if (two)
                add_prod<S, TWO>(a[j], dig[j], p, q, fl, 4 * j);
            else
                add_prod<S, false>(a[j], dig[j], p, q, fl, 4 * j);
        });
    };
    /* elements the vector loop took: none where some threads would get no vector (a short
     * run's elements a thread each instead: 64 singles, 2 an element where 16 lanes took 4) */
    int64_t from = 0;
    if constexpr (!CPLX)
        if (sx == 1 && sy == 1 && (((uintptr_t)xo | (uintptr_t)yo) & 15) == 0 &&
            nk >= Vec16<T>::n * step)
            from = take_vectors(take, xo, yo, hy, nk, k0, step);
    /* the rest (any other run, a vector run's last elements): element k's parts (0 past nk
     * or an absent part), kAhead loads in flight */
    auto load = [&](int64_t k, double &xv, double &yv, double &xi, double &yi) {
        bool in = k < nk;
        xv = in ? (double)xo[k * sx] : 0;
        yv = in && hy ? (double)yo[k * sy] : 0;
        xi = CPLX && in && cx ? (double)xo[k * sx + 1] : 0;
        yi = CPLX && in && cy ? (double)yo[k * sy + 1] : 0;
    };
    for (int64_t k = from + k0; k < nk; k += kAhead * step) {
        double xv[kAhead], yv[kAhead], xi[kAhead], yi[kAhead];
#pragma unroll
        for (int u = 0; u < kAhead; u++) /* the loads first, all in flight */
            load(k + u * step, xv[u], yv[u], xi[u], yi[u]);
#pragma unroll
        for (int u = 0; u < kAhead; u++) {
            if (k + u * step >= nk)
                break;
            take(xv[u], yv[u], xi[u], yi[u]);
        }
    }
    if constexpr (FIN)
        if (blockDim.x == 32 &&
            warp_finish<NS, S>(a, dig[0], fl, mode, fo, (char *)dst + (int64_t)blockIdx.y * fo.ob))
            return;
    /* The warp's expansions merged towards lane 0's by shuffles (TwoSums: what falls out
     * goes to the digits, as ever), so that fewer lanes flush, where 32 lanes' atomics on a
     * short output's few digits serialised: doubles' whole slots (H200, kernel_bench's
     * whole calls, 64 x 2^21 doubles: gdot 10.5-11.8 -> 6.3-7.0 ms, gcosine 29.5-30.8 ->
     * 16.4-17.2), singles' leading slots for cosines and complex sums (64 x 2^21 gcosine
     * 12.7 -> 10.7-10.8 ms, the 768 x 10^6 query 13.1-13.4 -> 10.9-11.1).  Singles' dots
     * went 5.6 -> 6.4 ms so (9.4 with whole slots) and flush as before. */
    constexpr int MS = TWO ? S : NS > 1 ? 1 : 0;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
#pragma unroll
        for (int j = 0; j < NS; j++)
#pragma unroll
            for (int i = 0; i < MS; i++) {
                double v = __shfl_down_sync(0xffffffffu, a[j][i], off);
                if ((threadIdx.x & 31) < off && v != 0)
                    expand(a[j], v, dig[j]);
                else if ((threadIdx.x & 31) >= off && (threadIdx.x & 31) < 2 * off)
                    a[j][i] = 0; /* (sent) */
            }
#pragma unroll
    for (int j = 0; j < NS; j++)
#pragma unroll
        for (int i = 0; i < S; i++)
            flush(dig[j], a[j][i]);
    if constexpr (FIN)
        block_finish<NS>(wd, nw, fl, (char *)dst + (int64_t)blockIdx.y * fo.ob, nk > 0, fo);
    else
        block_end<NS>(wd, fl, acc + (int64_t)blockIdx.y * REC, tickets + blockIdx.y,
                      dst + (int64_t)blockIdx.y * REC, mapped);
}

/* the device kernel's sums for r (-1: r is not for it): dot products, real 1-norms,
 * 2-norms (complex ones of whole runs as the squares of their parts) and cosines of device
 * data along columns */
static int device_mode(const gpudot_dot_req *r)
{
    if (r->nb != 1 || !r->x_dev || r->xs || (r->op != GPUDOT_OP_NORM && (!r->y_dev || r->ys)) ||
        r->nk > (int64_t)E->target_blocks * kThreads * kPerThread / 2)
        return -1;
    if (r->op == GPUDOT_OP_NORM)
        return r->pk == GD_P_TWO && (!r->cx || r->kx > 1) ? M_SQ
               : r->pk == GD_P_ONE && !r->cx              ? M_ABS
                                                          : -1;
    if (r->cx || r->cy)
        return r->op == GPUDOT_OP_DOT ? M_CDOT : M_CCOS;
    return r->op == GPUDOT_OP_DOT ? M_DOT : M_COS;
}

template <typename T>
using exact_kernel = void (*)(const T *, const T *, int, int, int, int64_t, int64_t, int64_t,
                              int64_t, int64_t, int64_t, unsigned long long *, unsigned *,
                              unsigned long long *, int, ExactOut);

/* the kernel of T for mode (its number of sums); fin: FIN's */
template <typename T, bool FIN> static exact_kernel<T> kernel_of(int mode)
{
    constexpr int S = sizeof(T) == 4 ? kSlotsF : kSlotsD;
    switch (ns_of(mode)) {
    case 2:
        return exact_columns<T, S, 2, FIN>;
    case 3:
        return exact_columns<T, S, 3, FIN>;
    case 4:
        return exact_columns<T, S, 4, FIN>;
    default:
        return exact_columns<T, S, 1, FIN>;
    }
}

/* blocks of the record kernel of T for mode an SM holds (asked once a kernel and device:
 * the call costs microseconds) */
template <typename T> static int occupancy(int mode)
{
    static int occ[kMaxDevices][5];
    int &o = occ[E - engines][ns_of(mode)];
    exact_kernel<T> kern = kernel_of<T, false>(mode);
    if (o == 0 &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, kern, kThreads, 0) != cudaSuccess)
        o = 0;
    return o > 0 ? o : 1;
}

/* An output's record (each sum's digits, then the flags) as the host core's sums of count
 * products, in a as gpudot_exact_store takes them (a cosine's: xy, -, xx, yy) */
static void load_sums(int ns, int64_t count, const int64_t *rec, gd_exact *a)
{
    int fl = (int)rec[ns * GD_EXACT_LIMBS];
    for (int s = 0; s < ns; s++) {
        gd_exact *e = &a[ns == 3 && s ? s + 1 : s];
        int f = fl >> (4 * s);
        gd_exact_init(e);
        memcpy(e->limb, rec + s * GD_EXACT_LIMBS, sizeof e->limb);
        e->count = count;
        e->nan = (f & F_NAN) != 0;
        e->pinf = (f & F_PINF) != 0;
        e->ninf = (f & F_NINF) != 0;
        e->not_negzero = (f & F_NONNEG) != 0;
    }
}

/* A launch's share of E->exact: the records (acc, zero between calls) and tickets of
 * accn outputs of several blocks, then resb bytes of records or results moved out where
 * they do not fit the mapped area (res).  E->exact_zero: the bytes from its start known to
 * be zero. */
struct ExactArea {
    unsigned long long *acc, *res;
    unsigned *tickets;
    size_t zero_bytes; /* acc and tickets */
};

static gpudot_status exact_area(int64_t accn, int64_t rec, size_t resb, ExactArea *ar)
{
    size_t accb = (size_t)(accn * rec) * 8, tb = ((size_t)accn * 4 + 7) / 8 * 8;
    void *p0 = E->exact.p;
    gpudot_status st = buf_need(E->exact, accb + tb + resb, "cudaMalloc (exact)");
    if (st != GPUDOT_OK)
        return st;
    if (E->exact.p != p0)
        E->exact_zero = 0;
    char *base = (char *)E->exact.p;
    ar->acc = (unsigned long long *)base;
    ar->tickets = (unsigned *)(base + accb);
    ar->res = (unsigned long long *)(base + accb + tb);
    ar->zero_bytes = accb + tb;
    if (E->exact_zero < ar->zero_bytes) {
        CKS(cudaMemsetAsync(base, 0, ar->zero_bytes, E->stream), "cudaMemset (exact)");
        if (st == GPUDOT_OK)
            E->exact_zero = ar->zero_bytes;
    }
    return st;
}

/* How FIN ends r's outputs: their values, in r's output class and form */
static ExactOut exact_out(const gpudot_dot_req *r)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    return {(int)r->op, r->pk, single, cplx, (single ? 4 : 8) * (cplx ? 2 : 1)};
}

/* Blocks of the record kernel a run of r takes (bx), and outputs a launch (g): a wave of
 * the blocks an SM holds, shared by the launch's outputs */
template <typename T>
static void plan_blocks(const gpudot_dot_req *r, int mode, int64_t *g, int64_t *bx)
{
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c;
    *g = r->na < kGroup ? r->na : kGroup;
    int64_t wave = (int64_t)occupancy<T>(mode) * E->prop.multiProcessorCount;
    int64_t per = (nk + kThreads - 1) / kThreads; /* blocks a run could use */
    int64_t b = wave / *g > 1 ? wave / *g : 1;
    b = b < per ? b : (per > 0 ? per : 1);
    while (b * kThreads * kPerThread < nk)
        b *= 2;
    *bx = b;
}

/* r's outputs through the record kernel, kGroup at most a launch, one launch after another:
 * sink (o, rec) with output o's record (load_sums reads it) as each launch ends */
template <typename T, typename Sink>
static gpudot_status device_records(const gpudot_dot_req *r, int mode, Sink &&sink)
{
    int ns = ns_of(mode);
    /* a complex run's squares: its parts as twice the real elements */
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c, kx = r->kx * c;
    int64_t g, bx, rec = ns * GD_EXACT_LIMBS + 1;
    plan_blocks<T>(r, mode, &g, &bx);
    ExactArea ar;
    gpudot_status st = exact_area(g, rec, (size_t)(g * rec) * 8, &ar);
    if (st == GPUDOT_OK)
        st = mapped_area();
    if (st != GPUDOT_OK)
        return st;
    int64_t *hd = nullptr; /* (records too many for the mapped area) */
    exact_kernel<T> kern = kernel_of<T, false>(mode);
    for (int64_t o0 = 0; o0 < r->na && st == GPUDOT_OK; o0 += g) {
        int64_t n = r->na - o0 < g ? r->na - o0 : g;
        size_t rb = (size_t)(n * rec) * 8;
        bool mapped = rb <= kMappedBytes;
        if (mapped) {
            mark_empty((size_t)n, 8, (size_t)rec);
        } else if (!hd && !(hd = (int64_t *)malloc(rb))) {
            st = GPUDOT_OUT_OF_MEMORY;
            break;
        } else if (E->exact_zero > ar.zero_bytes) {
            E->exact_zero = ar.zero_bytes; /* (res, past this call's records, may lie over
                                            * another call's) */
        }
        kern<<<dim3((unsigned)bx, (unsigned)n), kThreads, 0, E->stream>>>(
            (const T *)r->x, (const T *)r->y, mode, r->cx, r->cy, nk, kx, r->ax, r->ky, r->ay, o0,
            ar.acc, ar.tickets, mapped ? (unsigned long long *)E->mapped_dev : ar.res, mapped,
            ExactOut{});
        CKS(cudaGetLastError(), "exact kernel");
        const int64_t *recs = hd;
        if (st == GPUDOT_OK && mapped) {
            st = wait_marked((size_t)n, 8, "exact kernel", (size_t)rec);
            recs = (const int64_t *)E->mapped;
        } else if (st == GPUDOT_OK) {
            CKS(cudaMemcpyAsync(hd, ar.res, rb, cudaMemcpyDeviceToHost, E->stream),
                "cudaMemcpy (exact)");
            CKS(cudaStreamSynchronize(E->stream), "exact kernel");
        }
        for (int64_t i = 0; i < n && st == GPUDOT_OK; i++)
            sink(o0 + i, recs + i * rec);
    }
    if (st != GPUDOT_OK)
        E->exact_zero = 0; /* (a failed launch may leave digits behind) */
    free(hd);
    return st;
}

/* r's outputs of one block each (plan_blocks' bx = 1) through FIN: their values on the
 * device, a grid's rows a launch, then copied to out (host, in the output's class) */
template <typename T>
static gpudot_status device_values(const gpudot_dot_req *r, int mode, void *out)
{
    int ns = ns_of(mode);
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c, kx = r->kx * c;
    ExactOut fo = exact_out(r);
    /* a warp an output where there are outputs enough for kFinWarps warps an SM */
    int fw = r->na >= (int64_t)kFinWarps * E->prop.multiProcessorCount ? 1 : kWarps;
    ExactArea ar;
    gpudot_status st = exact_area(0, 0, (size_t)(r->na * fo.ob), &ar);
    if (st != GPUDOT_OK)
        return st;
    exact_kernel<T> kern = kernel_of<T, true>(mode);
    for (int64_t o0 = 0; o0 < r->na && st == GPUDOT_OK; o0 += kMaxGridRows) {
        int64_t n = r->na - o0 < kMaxGridRows ? r->na - o0 : kMaxGridRows;
        kern<<<dim3(1, (unsigned)n), 32 * fw, (size_t)(fw * ns * GD_EXACT_LIMBS) * 8, E->stream>>>(
            (const T *)r->x, (const T *)r->y, mode, r->cx, r->cy, nk, kx, r->ax, r->ky, r->ay, o0,
            nullptr, nullptr, (unsigned long long *)((char *)ar.res + o0 * fo.ob), 0, fo);
        CKS(cudaGetLastError(), "exact kernel");
    }
    if (st == GPUDOT_OK)
        CKS(cudaMemcpyAsync(out, ar.res, (size_t)(r->na * fo.ob), cudaMemcpyDeviceToHost,
                            E->stream),
            "cudaMemcpy (exact)");
    if (st == GPUDOT_OK)
        CKS(cudaStreamSynchronize(E->stream), "exact kernel");
    E->exact_zero = 0; /* (the values lay where records are kept zero) */
    return st;
}

/* r's outputs through the device kernels: values finished on the device where each output
 * takes one block, else records finished here */
template <typename T> static gpudot_status device_sums(const gpudot_dot_req *r, int mode)
{
    int64_t g, bx;
    plan_blocks<T>(r, mode, &g, &bx);
    if (bx == 1)
        return device_values<T>(r, mode, r->out);
    gd_exact *a = (gd_exact *)malloc(4 * sizeof(gd_exact));
    if (!a)
        return GPUDOT_OUT_OF_MEMORY;
    int ns = ns_of(mode);
    gpudot_status st = device_records<T>(r, mode, [&](int64_t o, const int64_t *rec) {
        load_sums(ns, r->nk, rec, a);
        gpudot_exact_store(r, o, a, 0);
    });
    free(a);
    return st;
}

/* Outputs of a call on several GPUs whose runs are cut between shards (a vector's): summed
 * on the host, so few of them (their sums: 4 x 1.7 KB an output a device) */
constexpr int64_t kCutOutputsMax = 64;

/* The device kernel's mode for r on several GPUs (-1: not for it): every operand a garray
 * of one layout, reduced along its columns (no rows, no broadcast, no host operand);
 * *cut: some runs lie in more than one shard */
static int shard_mode(const gpudot_dot_req *r, bool *cut)
{
    int has_y = r->op != GPUDOT_OP_NORM;
    const gpudot_sharded *L = r->xs;
    if (!L || r->x_dev || (has_y && (!r->ys || r->y_dev || !gpudot_same_layout(L, r->ys))) ||
        r->nb != 1 || r->nk != L->k || r->na != L->a || r->nk == 0)
        return -1;
    *cut = false;
    for (int i = 0; i < L->n; i++)
        *cut |= L->s[i].kn > 0 && L->s[i].an > 0 && L->s[i].kn != L->k;
    if (*cut && r->na > kCutOutputsMax)
        return -1;
    gpudot_dot_req v = *r; /* (one GPU's call of the same operands) */
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.bx = v.by = 1;
    return device_mode(&v);
}

/* One device's part of exact_shards: its status, and where runs are cut, its sums of each
 * output (4 a output, as load_sums lays them out) */
struct DeviceSums {
    int dev = 0;
    gpudot_status st = GPUDOT_OK;
    std::vector<gd_exact> sums;
};

/* Shard i of r's layout as a call of one GPU's data */
static gpudot_dot_req shard_view(const gpudot_dot_req *r, int i)
{
    const gpudot_shard &sh = r->xs->s[i];
    gpudot_dot_req v = *r;
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.x = sh.d;
    v.y = r->op != GPUDOT_OP_NORM ? r->ys->s[i].d : nullptr;
    v.nk = v.kx = v.ky = sh.kn;
    v.na = v.ax = v.ay = sh.an;
    return v;
}

/* Device p.dev's shards of r, one after another on its engine (the calling thread's): a
 * shard of whole runs as one GPU's call into its outputs' place; runs cut between shards
 * summed into p.sums */
template <typename T>
static void device_shards(const gpudot_dot_req *r, int mode, bool cut, DeviceSums &p)
{
    gd_exact *a = (gd_exact *)malloc(4 * sizeof(gd_exact));
    int ns = ns_of(mode);
    p.st = a ? use_device(p.dev) : GPUDOT_OUT_OF_MEMORY;
    const gpudot_sharded *L = r->xs;
    for (int i = 0; i < L->n && p.st == GPUDOT_OK; i++) {
        const gpudot_shard &sh = L->s[i];
        if (sh.dev != p.dev || sh.kn == 0 || sh.an == 0)
            continue;
        gpudot_dot_req v = shard_view(r, i);
        if (!cut) {
            v.out = (char *)r->out + sh.a0 * exact_out(r).ob;
            p.st = device_sums<T>(&v, mode);
            continue;
        }
        p.st = device_records<T>(&v, mode, [&](int64_t o, const int64_t *rec) {
            load_sums(ns, sh.kn, rec, a);
            for (int s = 0; s < ns; s++) {
                int j = ns == 3 && s ? s + 1 : s;
                gd_exact_normalise(&a[j]); /* (digits below 2^32: merged without overflow) */
                gd_exact_merge(&p.sums[(size_t)(sh.a0 + o) * 4 + j], &a[j]);
            }
        });
    }
    free(a);
}

/* Garrays on several GPUs (shard_mode): every device's shards through the device kernel at
 * once, a host thread a device.  An output whose run lies in one shard is rounded from its
 * record; runs cut between shards are summed on the host, in any order (integer sums),
 * then rounded: the bits of one GPU and of the CPU engine. */
template <typename T> static gpudot_status exact_shards(const gpudot_dot_req *r, int mode, bool cut)
{
    const gpudot_sharded *L = r->xs;
    std::vector<DeviceSums> parts;
    try {
        for (int i = 0; i < L->n; i++) {
            const gpudot_shard &sh = L->s[i];
            bool seen = false;
            for (const DeviceSums &p : parts)
                seen |= p.dev == sh.dev;
            if (seen || sh.kn == 0 || sh.an == 0)
                continue;
            parts.emplace_back();
            parts.back().dev = sh.dev;
            if (cut) {
                parts.back().sums.resize((size_t)r->na * 4);
                for (gd_exact &e : parts.back().sums)
                    gd_exact_init(&e);
            }
        }
    } catch (...) {
        return GPUDOT_OUT_OF_MEMORY;
    }
    std::vector<std::thread> threads;
    gpudot_status st = GPUDOT_OK;
    if (parts.size() == 1) { /* (on this thread: no thread to start) */
        device_shards<T>(r, mode, cut, parts[0]);
    } else {
        try {
            for (DeviceSums &p : parts)
                threads.emplace_back([&] { device_shards<T>(r, mode, cut, p); });
        } catch (...) {
            snprintf(g_err, sizeof g_err, "no thread for a device's shards");
            st = GPUDOT_OUT_OF_MEMORY;
        }
        for (std::thread &t : threads)
            t.join();
    }
    use_primary();
    for (const DeviceSums &p : parts)
        if (st == GPUDOT_OK)
            st = p.st;
    if (st != GPUDOT_OK || !cut)
        return st;
    gd_exact *a = parts[0].sums.data();
    for (int64_t o = 0; o < r->na; o++) {
        for (size_t d = 1; d < parts.size(); d++)
            for (int j = 0; j < 4; j++)
                gd_exact_merge(&a[o * 4 + j], &parts[d].sums[(size_t)o * 4 + j]);
        gpudot_exact_store(r, o, &a[o * 4], 0);
    }
    return GPUDOT_OK;
}

/* operand of bx x kx x ax elements (es bytes each) on the host: itself, or a copy (*tmp)
 * of device memory or of the shards of several GPUs */
static gpudot_status to_host(const void *p, int dev, const gpudot_sharded *s, size_t n, size_t es,
                             const void **h, void **tmp)
{
    *tmp = nullptr;
    *h = p;
    if (!dev && !s)
        return GPUDOT_OK;
    *tmp = malloc(n ? n * es : 1);
    if (!*tmp)
        return GPUDOT_OUT_OF_MEMORY;
    *h = *tmp;
    return s ? gpudot_cuda_shards_copy(s, *tmp, es, 0) : gpudot_cuda_copy(*tmp, p, n * es, 0);
}

gpudot_status exact_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_status st = gpudot_check_req(r);
    if (st != GPUDOT_OK || r->nb == 0 || r->na == 0)
        return st;
    if ((r->x_dev || r->y_dev || r->xs || r->ys) && (st = probe()) != GPUDOT_OK)
        return st; /* (device data needs the device, on either path) */
    int kind = gpudot_exact_norm_kind(r), mode = kind ? -1 : device_mode(r);
    if (kind < 0)
        return GPUDOT_BAD_OPTION;
    if (kind > 0) { /* (real Inf, -Inf and 0 norms: exact in "double") */
        gpudot_dot_req q = *r;
        q.accum = GPUDOT_ACC_DOUBLE;
        return gpudot_cuda_dot(&q, poll);
    }
    if (mode >= 0)
        return r->type == GPUDOT_F32 ? device_sums<float>(r, mode) : device_sums<double>(r, mode);
    bool cut;
    if ((r->xs || r->ys) && (mode = shard_mode(r, &cut)) >= 0)
        return r->type == GPUDOT_F32 ? exact_shards<float>(r, mode, cut)
                                     : exact_shards<double>(r, mode, cut);
    gpudot_dot_req q = *r;
    int has_y = r->op != GPUDOT_OP_NORM;
    void *tx = nullptr, *ty = nullptr;
    st = to_host(r->x, r->x_dev, r->xs, (size_t)(r->bx * r->kx * r->ax), gpudot_esize(r, r->cx),
                 &q.x, &tx);
    if (st == GPUDOT_OK && has_y)
        st = to_host(r->y, r->y_dev, r->ys, (size_t)(r->by * r->ky * r->ay), gpudot_esize(r, r->cy),
                     &q.y, &ty);
    q.x_dev = q.y_dev = 0;
    q.xs = q.ys = nullptr;
    if (st == GPUDOT_OK)
        st = gpudot_cpu_dot(&q, poll);
    free(tx);
    free(ty);
    return st;
}

} // namespace gpudot
