/*
 * The "exact" mode's device kernel (cuda/exact.cu launches it and finishes what it
 * leaves): each thread's share of a run as a floating-point expansion of a few doubles,
 * the spills and the slots at the end exactly into its warp's integer digits in shared
 * memory; an output of several blocks as a record of digits, an output of one block
 * finished on the device (by its lanes' partial sums where the rounding is certain, else
 * by its digits).  Its tuning constants and the host's planning ones together at the top.
 */
#ifndef GPUDOT_EXACT_KERNELS_CUH
#define GPUDOT_EXACT_KERNELS_CUH

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
    if (mode == M_SQ && !fo.single)
        return false; /* (a double root's rounding is never certain here: gd_round_near) */
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
    } else { /* a cosine (xy, xx, yy; complex: xy, xyi, xx, yy) as gd_top_cos computes it */
        double ph[NS], pl[NS], re, im = 0;
        int pe[NS];
#pragma unroll
        for (int j = 0; j < NS; j++) {
            uint64_t mj;
            int neg;
            if (!gd_near_m62(h[j], l[j], m[j] * 0x1p-88, &mj, &pe[j], &neg))
                return false;
            gd_dd_of_m(mj, neg, &ph[j], &pl[j]);
            pe[j] -= 61;
        }
        constexpr int XX = NS - 2, YY = NS - 1;
        double sh, sl;
        int ed;
        gd_cos_den(ph[XX], pl[XX], pe[XX], ph[YY], pl[YY], pe[YY], &sh, &sl, &ed);
        re = gd_cos_quot(ph[0], pl[0], pe[0], sh, sl, ed, fo.single);
        if (NS == 4)
            im = gd_cos_quot(ph[1], pl[1], pe[1], sh, sl, ed, fo.single);
        if (lead) { /* (gd_top_finish's clamp) */
            if (fo.single) {
                float fr = (float)re, fi = (float)im;
                gd_clamp_unit_f(&fr, &fi, fo.cplx);
                ((float *)d)[0] = fr;
                if (fo.cplx)
                    ((float *)d)[1] = fi;
            } else {
                gd_clamp_unit_d(&re, &im, fo.cplx);
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

/* A warp's expansions merged towards lane 0's by shuffles (TwoSums: what falls out
 * goes to the digits, as ever), so that fewer lanes flush, where 32 lanes' atomics on a
 * short output's few digits serialised: doubles' whole slots (H200, kernel_bench's
 * whole calls, 64 x 2^21 doubles: gdot 10.5-11.8 -> 6.3-7.0 ms, gcosine 29.5-30.8 ->
 * 16.4-17.2), singles' leading slots for cosines and complex sums (64 x 2^21 gcosine
 * 12.7 -> 10.7-10.8 ms, the 768 x 10^6 query 13.1-13.4 -> 10.9-11.1).  Singles' dots
 * went 5.6 -> 6.4 ms so (9.4 with whole slots) and flush as before.  Then every slot
 * into the digits. */
template <int NS, int S, bool TWO>
__device__ __forceinline__ void merge_flush(double (&a)[NS][S],
                                            unsigned long long (*dig)[GD_EXACT_LIMBS])
{
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
    merge_flush<NS, S, TWO>(a, dig);
    if constexpr (FIN)
        block_finish<NS>(wd, nw, fl, (char *)dst + (int64_t)blockIdx.y * fo.ob, nk > 0, fo);
    else
        block_end<NS>(wd, fl, acc + (int64_t)blockIdx.y * REC, tickets + blockIdx.y,
                      dst + (int64_t)blockIdx.y * REC, mapped);
}

} // namespace gpudot

#endif
