/*
 * CUDA engine: the similarity search's kernels (search.cu launches them).  Each computes a
 * tile of scores, queries x columns of D, into the chunk s[q nc + j]: few queries a warp a
 * column (search_few); single data in 128 x 128 tiles, on Hopper's FP64 tensor cores with the
 * queries widened beforehand (search_wide_f32, in search_wide.cuh, with the helpers here)
 * or in single on the CUDA cores (search_simt_f32), both through cp.async stages; double
 * data on the FP64 tensor cores' m8n8k4 (search_mma, sm_80); the CUDA-core tiles
 * (search_tile) elsewhere and for "compensated".
 */
#pragma once

#include <cmath>

#include "engine.cuh"
#include "gpudot_math.h"

namespace gpudot
{

/* Elements of K a tile step: 16 (64 B of a single column, one sector pair a load). */
constexpr int kSearchK = 16;
constexpr int kMmaK = 32;
/* search_mma's shared memory: Q's and D's tiles (64 + 128 rows of kMmaK + 4), their norms */
constexpr size_t kMmaSmem = (size_t)((64 + 128) * (kMmaK + 4) + 64 + 128) * sizeof(double);

template <typename A> struct Safe;
template <> struct Safe<double> {
    static constexpr double tiny = 0x1p-969; /* DBL_MIN 2^53: squares here keep 53 bits */
};
template <> struct Safe<float> {
    static constexpr float tiny = 0x1p-102f; /* FLT_MIN 2^24 */
};

/* A score from its sums: the dot product, or the cosine (a2, b2: the squared norms), NaN
 * for a zero vector or an Inf element, clamped to [-1, 1]; bad: where checked, set if a
 * squared norm may have overflowed, underflowed or lost precision in the accumulator */
template <typename A>
__device__ __forceinline__ A score(A dot, A a2, A b2, bool cosine, bool checked, bool &bad)
{
    if (!cosine)
        return dot;
    if (checked && (a2 < Safe<A>::tiny || b2 < Safe<A>::tiny || isinf(a2) || isinf(b2)))
        bad = true; /* (0 too: tiny elements' squares may all underflow) */
    A v = a2 > 0 && b2 > 0 && !isinf(a2) && !isinf(b2) ? dot / (sqrt(a2) * sqrt(b2)) : (A)NAN;
    return v > (A)1 ? (A)1 : v < (A)-1 ? (A)-1 : v;
}

/* Few queries (M of them, at most kFewQueries): a warp a column, adjacent lanes on adjacent
 * elements, so D is read once and coalesced at the speed of a dot product; the queries
 * from shared memory (M x d, in the accumulator); the warp's sums combined by a butterfly
 * of shuffles (a fixed order). */
constexpr int kFewQueries = 8;
template <typename T, typename A, int M>
__global__ void __launch_bounds__(256)
    search_few(const T *__restrict__ Q, const T *__restrict__ Dc, int64_t d, int64_t m, int64_t nc,
               bool cosine, bool checked, T *__restrict__ s, int *unsafe)
{
    extern __shared__ unsigned char few_smem[];
    A *qs = (A *)few_smem, *qn = qs + M * d;
    for (int64_t e = threadIdx.x; e < M * d; e += blockDim.x)
        qs[e] = e < m * d ? (A)Q[e] : (A)0;
    __syncthreads();
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (warp == 0) {
        for (int r = 0; r < M; r++) {
            A a2 = 0;
            for (int64_t k = lane; k < d; k += 32)
                a2 = fma(qs[r * d + k], qs[r * d + k], a2);
            for (int o = 16; o > 0; o >>= 1)
                a2 += __shfl_xor_sync(0xffffffffu, a2, o);
            if (lane == 0)
                qn[r] = a2;
        }
    }
    __syncthreads();
    bool bad = false;
    for (int64_t j = (int64_t)blockIdx.x * 8 + warp; j < nc; j += (int64_t)gridDim.x * 8) {
        const T *col = Dc + j * d;
        A acc[M], b2 = 0;
#pragma unroll
        for (int r = 0; r < M; r++)
            acc[r] = 0;
#pragma unroll 4
        for (int64_t k = lane; k < d; k += 32) {
            A x = (A)col[k];
            b2 = fma(x, x, b2);
#pragma unroll
            for (int r = 0; r < M; r++)
                acc[r] = fma(qs[r * d + k], x, acc[r]);
        }
        for (int o = 16; o > 0; o >>= 1) {
            b2 += __shfl_xor_sync(0xffffffffu, b2, o);
#pragma unroll
            for (int r = 0; r < M; r++)
                acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], o);
        }
        if (lane == 0)
#pragma unroll
            for (int r = 0; r < M; r++)
                if (r < m)
                    s[r * nc + j] = (T)score(acc[r], qn[r], b2, cosine, checked, bad);
    }
    if (bad)
        *unsafe = 1;
}

/* (s, c) += a b: plain (one fma), or COMP as gdot's "compensated" (Dot2: TwoProduct and
 * TwoSum, gpudot_math.h's) */
template <bool COMP, typename A> __device__ __forceinline__ void tile_fma(A a, A b, A &s, A &c)
{
    if constexpr (COMP)
        gd_add_prod_d(&s, &c, a, b, 1);
    else
        s = fma(a, b, s);
}

/* Scores of queries q0 .. q0 + BM and columns j0 .. j0 + BN: s[q nc + j] (the chunk's
 * layout: a query's scores adjacent), D's columns from Dc (the chunk's first).  COMP (A
 * double): every sum compensated, the "compensated" mode. */
template <typename T, typename A, int RM, int RN, int TX, bool COMP = false>
__global__ void __launch_bounds__(256)
    search_tile(const T *__restrict__ Q, const T *__restrict__ Dc, int64_t d, int64_t m, int64_t nc,
                bool cosine, bool checked, T *__restrict__ s, int *unsafe)
{
    constexpr int CM = COMP ? RM : 1, CN = COMP ? RN : 1; /* the compensations' extents */
    constexpr int TY = 256 / TX, BM = TY * RM, BN = TX * RN;
    /* a column's (a query's) K values adjacent, rows padded by one: conflict-free stores
     * of the coalesced loads and reads across tx */
    __shared__ A Qs[BM][kSearchK + 1];
    __shared__ A Ds[BN][kSearchK + 1];
    __shared__ A qn[BM], dn[BN];
    int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
    int64_t j0 = (int64_t)blockIdx.x * BN, q0 = (int64_t)blockIdx.y * BM;
    A acc[RM][RN] = {}, qsq[RM] = {}, dsq[RN] = {};
    A cacc[CM][CN] = {}, cq[CM] = {}, cd[CN] = {};
    for (int64_t k0 = 0; k0 < d; k0 += kSearchK) {
        for (int e = tid; e < kSearchK * BN; e += 256) {
            int kk = e % kSearchK, j = e / kSearchK;
            Ds[j][kk] = j0 + j < nc && k0 + kk < d ? (A)Dc[(j0 + j) * d + k0 + kk] : (A)0;
        }
        for (int e = tid; e < kSearchK * BM; e += 256) {
            int kk = e % kSearchK, q = e / kSearchK;
            Qs[q][kk] = q0 + q < m && k0 + kk < d ? (A)Q[(q0 + q) * d + k0 + kk] : (A)0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kSearchK; kk++) {
            A a[RM], b[RN];
#pragma unroll
            for (int r = 0; r < RM; r++)
                a[r] = Qs[ty * RM + r][kk];
#pragma unroll
            for (int c = 0; c < RN; c++)
                b[c] = Ds[tx + c * TX][kk];
#pragma unroll
            for (int r = 0; r < RM; r++)
#pragma unroll
                for (int c = 0; c < RN; c++)
                    tile_fma<COMP>(a[r], b[c], acc[r][c], cacc[COMP ? r : 0][COMP ? c : 0]);
            if (cosine && ty == 0)
#pragma unroll
                for (int c = 0; c < RN; c++)
                    tile_fma<COMP>(b[c], b[c], dsq[c], cd[COMP ? c : 0]);
            if (cosine && tx == 0)
#pragma unroll
                for (int r = 0; r < RM; r++)
                    tile_fma<COMP>(a[r], a[r], qsq[r], cq[COMP ? r : 0]);
        }
        __syncthreads();
    }
    if constexpr (COMP) { /* the sums, compensated (gdot's rounding of s + c) */
#pragma unroll
        for (int r = 0; r < RM; r++) {
            qsq[r] = gd_value_d(qsq[r], cq[r], 1);
#pragma unroll
            for (int c = 0; c < RN; c++)
                acc[r][c] = gd_value_d(acc[r][c], cacc[r][c], 1);
        }
#pragma unroll
        for (int c = 0; c < RN; c++)
            dsq[c] = gd_value_d(dsq[c], cd[c], 1);
    }
    if (cosine) {
        if (ty == 0)
#pragma unroll
            for (int c = 0; c < RN; c++)
                dn[tx + c * TX] = dsq[c];
        if (tx == 0)
#pragma unroll
            for (int r = 0; r < RM; r++)
                qn[ty * RM + r] = qsq[r];
        __syncthreads();
    }
    bool bad = false;
#pragma unroll
    for (int r = 0; r < RM; r++) {
        int64_t q = q0 + ty * RM + r;
#pragma unroll
        for (int c = 0; c < RN; c++) {
            int64_t j = j0 + tx + c * TX;
            A v = score(acc[r][c], qn[ty * RM + r], dn[tx + c * TX], cosine,
                        checked && q < m && j < nc, bad);
            if (q < m && j < nc)
                s[q * nc + j] = (T)v;
        }
    }
    if (bad)
        *unsafe = 1;
}

/* Hopper's (and Ampere's) FP64 tensor cores: D = A B + C on an 8 x 4 by 4 x 8 tile per
 * warp, each lane holding one element of A (row lane / 4, column lane % 4), one of B (row
 * lane % 4, column lane / 4) and two of C (row lane / 4, columns 2 (lane % 4) + 0, 1). */
__device__ __forceinline__ void dmma_8x8x4(double &c0, double &c1, double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
#else
    (void)c0, (void)c1, (void)a, (void)b; /* never launched so (search_mma_ok) */
#endif
}

/* Many queries in double on the tensor cores: a block a tile of 64 queries x 128 columns,
 * each of its 8 warps 32 x 32 (4 x 4 MMA tiles); K through shared memory in steps of
 * kMmaK (128 B of a single column a load), a row's K values adjacent and rows padded by 4
 * doubles, so that the fragments'
 * loads (8 rows x 4 K) fall on distinct banks.  The norms come from the same fragments:
 * the warps of the first row square D's, those of the first column Q's. */
template <typename T>
__global__ void __launch_bounds__(256)
    search_mma(const T *__restrict__ Q, const T *__restrict__ Dc, int64_t d, int64_t m, int64_t nc,
               bool cosine, bool checked, T *__restrict__ s, int *unsafe)
{
    constexpr int BM = 64, BN = 128, BK = kMmaK, LD = BK + 4;
    extern __shared__ double mma_smem[];
    double(*Qs)[LD] = (double(*)[LD])mma_smem, (*Ds)[LD] = (double(*)[LD])(mma_smem + BM * LD);
    double *qn = mma_smem + (BM + BN) * LD, *dn = qn + BM;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int wq = warp >> 2, wj = warp & 3, g = lane >> 2, t = lane & 3;
    int64_t j0 = (int64_t)blockIdx.x * BN, q0 = (int64_t)blockIdx.y * BM;
    double c[4][4][2] = {}, asq[4] = {}, bsq[4] = {};
    for (int64_t k0 = 0; k0 < d; k0 += BK) {
        for (int e = tid; e < BK * BN; e += 256) {
            int kk = e % BK, j = e / BK;
            Ds[j][kk] = j0 + j < nc && k0 + kk < d ? (double)Dc[(j0 + j) * d + k0 + kk] : 0.0;
        }
        for (int e = tid; e < BK * BM; e += 256) {
            int kk = e % BK, q = e / BK;
            Qs[q][kk] = q0 + q < m && k0 + kk < d ? (double)Q[(q0 + q) * d + k0 + kk] : 0.0;
        }
        __syncthreads();
#pragma unroll
        for (int k4 = 0; k4 < BK; k4 += 4) {
            double a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                a[i] = Qs[wq * 32 + i * 8 + g][k4 + t];
                b[i] = Ds[wj * 32 + i * 8 + g][k4 + t];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int jt = 0; jt < 4; jt++)
                    dmma_8x8x4(c[i][jt][0], c[i][jt][1], a[i], b[jt]);
            if (cosine && wq == 0)
#pragma unroll
                for (int i = 0; i < 4; i++)
                    bsq[i] = fma(b[i], b[i], bsq[i]);
            if (cosine && wj == 0)
#pragma unroll
                for (int i = 0; i < 4; i++)
                    asq[i] = fma(a[i], a[i], asq[i]);
        }
        __syncthreads();
    }
    if (cosine) { /* the four K lanes of each row, in a fixed order */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int o = 1; o < 4; o <<= 1) {
                bsq[i] += __shfl_xor_sync(0xffffffffu, bsq[i], o);
                asq[i] += __shfl_xor_sync(0xffffffffu, asq[i], o);
            }
        if (t == 0) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                if (wq == 0)
                    dn[wj * 32 + i * 8 + g] = bsq[i];
                if (wj == 0)
                    qn[wq * 32 + i * 8 + g] = asq[i];
            }
        }
        __syncthreads();
    }
    bool bad = false;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int jt = 0; jt < 4; jt++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int ql = wq * 32 + i * 8 + g, jl = wj * 32 + jt * 8 + 2 * t + h;
                int64_t q = q0 + ql, j = j0 + jl;
                double v =
                    score(c[i][jt][h], qn[ql], dn[jl], cosine, checked && q < m && j < nc, bad);
                if (q < m && j < nc)
                    s[q * nc + j] = (T)v;
            }
    if (bad)
        *unsafe = 1;
}

/* Asynchronous copies to shared memory (sm_80): 16 bytes (zero-filled past bytes) or 4
 * (zero if !ok); src must be a valid address either way */
__device__ __forceinline__ void cp_async16(void *dst, const void *src, int bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(a), "l"(src), "r"(bytes));
#else
    (void)dst, (void)src, (void)bytes;
#endif
}
__device__ __forceinline__ void cp_async4(void *dst, const void *src, bool ok)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(a), "l"(src),
                 "r"(ok ? 4 : 0));
#else
    (void)dst, (void)src, (void)ok;
#endif
}
__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;");
#endif
}
/* until at most N of this thread's groups are pending */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N));
#endif
}

/* The single-data tiles (search_wide_f32, search_simt_f32): 128 queries x 128 columns, K
 * in stages of kMmaK through shared memory, kMmaStages in flight; rows padded by 4. */
constexpr int kMmaStages = 3;
constexpr int kMmaLd = kMmaK + 4;
constexpr size_t kMmaSmemF =
    (size_t)kMmaStages * 256 * kMmaLd * sizeof(float) + 256 * sizeof(double);

/* Tile k0 .. k0 + kMmaK of 128 queries' rows and 128 columns into a stage S (row r < 128:
 * query q0 + r; else column j0 + r - 128, rows kMmaLd apart); past m, nc or d: zeros.
 * VEC: 16-byte copies (d % 4 == 0, Q and Dc 16-byte aligned). */
template <bool VEC>
__device__ __forceinline__ void mma_load(float *S, const float *Q, const float *Dc, int64_t d,
                                         int64_t m, int64_t nc, int64_t q0, int64_t j0, int64_t k0)
{
    constexpr int BK = kMmaK, LD = kMmaLd, ROWS = 256;
    int tid = threadIdx.x;
    if (VEC) {
        for (int e = tid; e < ROWS * (BK / 4); e += 256) {
            int r = e / (BK / 4), c = e % (BK / 4) * 4;
            bool ok = r < 128 ? q0 + r < m : j0 + r - 128 < nc;
            const float *src = r < 128 ? Q + (q0 + r) * d : Dc + (j0 + r - 128) * d;
            int64_t left = d - k0 - c;
            int bytes = ok && left > 0 ? (left < 4 ? (int)left * 4 : 16) : 0;
            cp_async16(&S[r * LD + c], bytes ? src + k0 + c : Dc, bytes);
        }
    } else {
        for (int e = tid; e < ROWS * BK; e += 256) {
            int r = e / BK, c = e % BK;
            bool ok = (r < 128 ? q0 + r < m : j0 + r - 128 < nc) && k0 + c < d;
            const float *src = r < 128 ? Q + (q0 + r) * d : Dc + (j0 + r - 128) * d;
            cp_async4(&S[r * LD + c], ok ? src + k0 + c : Dc, ok);
        }
    }
}

/* Hopper's FP64 tensor cores at full rate: D = A B + C on a 16 x 16 by 16 x 8 tile per warp
 * (sm_90; m8n8k4 ran at ~23% of peak there).  With g = lane / 4, t = lane % 4: a[i] is A's
 * (g + 8 (i % 2), t + 4 (i / 2)), b[i] is B's (t + 4 i, g), c[0, 1] are C's (g, 2 t + 0, 1)
 * and c[2, 3] its (g + 8, 2 t + 0, 1). */
__device__ __forceinline__ void dmma_16x8x16(double (&c)[4], const double (&a)[8],
                                             const double (&b)[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, "
                 "%6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    (void)c, (void)a, (void)b; /* never launched so (launch_tiles_f32) */
#endif
}

/* Single data in single (native) on the CUDA cores, the same tiles and pipeline as
 * search_wide_f32 (its queries not widened): each warp 32 x 64, a lane 8 queries (rows 2 r, 2 r + 1
 * of the warp's four 8-query rows, r = lane / 8) x 8 columns (c + 8 jj, c = lane % 8), four K
 * values a load (conflict-free: the 8 columns' rows start on banks 0, 4, .., 28).  The norms:
 * thread tid squares row tid of each stage (squaring the fragments cost the first warps a quarter
 * more FMAs). */
template <bool VEC>
__global__ void __launch_bounds__(256, 1)
    search_simt_f32(const float *__restrict__ Q, const float *__restrict__ Dc, int64_t d, int64_t m,
                    int64_t nc, bool cosine, bool checked, float *__restrict__ s, int *unsafe)
{
    constexpr int BM = 128, BN = 128, BK = kMmaK, LD = kMmaLd, STAGE = (BM + BN) * LD;
    extern __shared__ float simt_smem[];
    float *qn = simt_smem + kMmaStages * STAGE, *dn = qn + BM;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int wq = warp >> 1, wj = warp & 1, r = lane >> 3, cl = lane & 7;
    int64_t j0 = (int64_t)blockIdx.x * BN, q0 = (int64_t)blockIdx.y * BM;
    int64_t ktiles = (d + BK - 1) / BK;
    bool rows[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        rows[i] = q0 + (4 * i + wq) * 8 < m;
    float acc[8][8] = {}, sq = 0;
#pragma unroll
    for (int st = 0; st < kMmaStages - 1; st++) {
        if (st < ktiles)
            mma_load<VEC>(simt_smem + st * STAGE, Q, Dc, d, m, nc, q0, j0, (int64_t)st * BK);
        cp_async_commit();
    }
    for (int64_t kt = 0; kt < ktiles; kt++) {
        cp_async_wait<kMmaStages - 2>();
        __syncthreads();
        if (kt + kMmaStages - 1 < ktiles)
            mma_load<VEC>(simt_smem + (kt + kMmaStages - 1) % kMmaStages * STAGE, Q, Dc, d, m, nc,
                          q0, j0, (kt + kMmaStages - 1) * BK);
        cp_async_commit();
        const float *Qs = simt_smem + (kt % kMmaStages) * STAGE, *Ds = Qs + BM * LD;
#pragma unroll 2
        for (int k4 = 0; k4 < BK; k4 += 4) {
            float4 a[8], b[8];
#pragma unroll
            for (int ii = 0; ii < 8; ii++)
                a[ii] =
                    *(const float4 *)&Qs[((4 * (ii >> 1) + wq) * 8 + 2 * r + (ii & 1)) * LD + k4];
#pragma unroll
            for (int jj = 0; jj < 8; jj++)
                b[jj] = *(const float4 *)&Ds[(wj * 64 + jj * 8 + cl) * LD + k4];
#pragma unroll
            for (int ii = 0; ii < 8; ii++)
                if (rows[ii >> 1])
#pragma unroll
                    for (int jj = 0; jj < 8; jj++) {
                        acc[ii][jj] = fmaf(a[ii].x, b[jj].x, acc[ii][jj]);
                        acc[ii][jj] = fmaf(a[ii].y, b[jj].y, acc[ii][jj]);
                        acc[ii][jj] = fmaf(a[ii].z, b[jj].z, acc[ii][jj]);
                        acc[ii][jj] = fmaf(a[ii].w, b[jj].w, acc[ii][jj]);
                    }
        }
        if (cosine) { /* thread tid squares row tid of the stage (Q's, then D's), in order */
            const float4 *row = (const float4 *)&Qs[tid * LD];
#pragma unroll
            for (int v = 0; v < BK / 4; v++) {
                float4 f = row[v];
                sq = fmaf(f.x, f.x, sq);
                sq = fmaf(f.y, f.y, sq);
                sq = fmaf(f.z, f.z, sq);
                sq = fmaf(f.w, f.w, sq);
            }
        }
    }
    cp_async_wait<0>();
    if (cosine) { /* (qn and dn adjacent: row tid's) */
        qn[tid] = sq;
        __syncthreads();
    }
    bool bad = false;
#pragma unroll
    for (int ii = 0; ii < 8; ii++)
#pragma unroll
        for (int jj = 0; jj < 8; jj++) {
            int ql = (4 * (ii >> 1) + wq) * 8 + 2 * r + (ii & 1), jl = wj * 64 + jj * 8 + cl;
            int64_t q = q0 + ql, j = j0 + jl;
            float v = score(acc[ii][jj], qn[ql], dn[jl], cosine, checked && q < m && j < nc, bad);
            if (q < m && j < nc)
                s[q * nc + j] = v;
        }
    if (bad)
        *unsafe = 1;
}

} // namespace gpudot
