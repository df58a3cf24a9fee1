/*
 * CUDA engine: similarity search.  Every column of Q (d x m, the queries) against every
 * column of D (d x n, on the device): dot products or cosines, blocked as a GEMM is (a block
 * a tile of BM queries x BN columns, K in steps of kSearchK through shared memory, each
 * thread RM x RN accumulators), into a chunk of scores on the device; then either the best
 * k of each query's scores (topk.cuh) or the scores themselves go to the host.  So the m x n
 * scores never exist whole unless asked for; the chunks hold at most kSearchChunk bytes.
 *
 * A cosine's norms come from the same tiles (the first row of threads squares D's columns,
 * the first column of threads Q's), in the accumulator.  Single data with a double
 * accumulator cannot overflow or underflow there; otherwise a squared norm that is Inf or
 * below Safe<A>::tiny (0 included) marks the call unsafe and the caller computes it scaled
 * (gsearch.m).
 * Scores are rounded to D's class before the selection, so the indices are those of a
 * stable sort of the scores returned.
 */
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "topk.cuh"

namespace gpudot
{

/* Elements of K a tile step: 16 (64 B of a single column, one sector pair a load). */
constexpr int kSearchK = 16;
constexpr int kMmaK = 32;
/* search_mma's shared memory: Q's and D's tiles (64 + 128 rows of kMmaK + 4), their norms */
constexpr size_t kMmaSmem = (size_t)((64 + 128) * (kMmaK + 4) + 64 + 128) * sizeof(double);
/* A chunk of scores on the device: 128 MB (3.4e5 columns of 100 single queries; a chunk
 * costs a selection and a copy of its candidates), held between calls. */
constexpr size_t kSearchChunk = (size_t)128 << 20;

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

/* The single-data tiles (search_mma_f32, search_simt_f32): 128 queries x 128 columns, K
 * in stages of kMmaK through shared memory, kMmaStages in flight; rows padded by 4 floats. */
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

/* search_mma_f32's norms: the four K lanes of each row summed in a fixed order, and each
 * norm's reciprocal (NaN for a zero vector or an Inf element) to qn (Q's) and dn (D's), so
 * that a cosine is two products, not two square roots and a division an element */
__device__ __forceinline__ void mma_norms(double (&asq)[2][2], double (&bsq)[8], double *qn,
                                          double *dn, int wq, int wj, int g, int t)
{
#pragma unroll
    for (int o = 1; o < 4; o <<= 1) {
#pragma unroll
        for (int jt = 0; jt < 8; jt++)
            bsq[jt] += __shfl_xor_sync(0xffffffffu, bsq[jt], o);
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                asq[i][h] += __shfl_xor_sync(0xffffffffu, asq[i][h], o);
    }
    auto inv = [](double a2) { return a2 > 0 && !isinf(a2) ? 1 / sqrt(a2) : (double)NAN; };
    if (t == 0) {
        if (wq == 0)
#pragma unroll
            for (int jt = 0; jt < 8; jt++)
                dn[wj * 64 + jt * 8 + g] = inv(bsq[jt]);
        if (wj == 0)
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    qn[(4 * i + wq) * 16 + g + 8 * h] = inv(asq[i][h]);
    }
    __syncthreads();
}

/* search_mma_f32's scores from its accumulators (C's layout of dmma_16x8x16), cosines
 * clamped to [-1, 1], to s[q nc + j] inside m x nc */
__device__ __forceinline__ void mma_store(const double (&c)[2][8][4], const double *qn,
                                          const double *dn, bool cosine, int64_t q0, int64_t j0,
                                          int64_t m, int64_t nc, int wq, int wj, int g, int t,
                                          float *__restrict__ s)
{
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int jt = 0; jt < 8; jt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int ql = (4 * i + wq) * 16 + g + 8 * (e / 2), jl = wj * 64 + jt * 8 + 2 * t + e % 2;
                int64_t q = q0 + ql, j = j0 + jl;
                double v = c[i][jt][e];
                if (cosine) {
                    v = v * qn[ql] * dn[jl];
                    v = v > 1 ? 1 : v < -1 ? -1 : v;
                }
                if (q < m && j < nc)
                    s[q * nc + j] = (float)v;
            }
}

/* Single data in double on Hopper's tensor cores: a block a tile of 128 queries x 128
 * columns, its 8 warps 4 x 2, each 32 x 64 (2 x 8 MMA tiles of 16 x 8); the singles go to
 * shared memory as they are, by cp.async, kMmaStages tiles of kMmaK in flight, and are
 * widened as the fragments are read (a product of singles is exact in double).  A warp's
 * two 16-query rows are interleaved with the other warps' (rows 16 (4 i + wq) ..), and rows
 * past m are skipped.  Rows padded by 4 floats: a fragment's loads (8 rows x 4 K) fall on
 * distinct banks.  The norms come from the same fragments: the warps of the first row
 * square D's columns, those of the first column Q's. */
template <bool VEC>
__global__ void __launch_bounds__(256, 1)
    search_mma_f32(const float *__restrict__ Q, const float *__restrict__ Dc, int64_t d, int64_t m,
                   int64_t nc, bool cosine, bool checked, float *__restrict__ s, int *unsafe)
{
    constexpr int BM = 128, BN = 128, BK = kMmaK, LD = kMmaLd, STAGE = (BM + BN) * LD;
    extern __shared__ float mmaf_smem[];
    double *qn = (double *)(mmaf_smem + kMmaStages * STAGE), *dn = qn + BM;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int wq = warp >> 1, wj = warp & 1, g = lane >> 2, t = lane & 3;
    int64_t j0 = (int64_t)blockIdx.x * BN, q0 = (int64_t)blockIdx.y * BM;
    int64_t ktiles = (d + BK - 1) / BK;
    bool rows[2];
#pragma unroll
    for (int i = 0; i < 2; i++)
        rows[i] = q0 + (4 * i + wq) * 16 < m;
    double c[2][8][4] = {}, asq[2][2] = {}, bsq[8] = {};
#pragma unroll
    for (int st = 0; st < kMmaStages - 1; st++) {
        if (st < ktiles)
            mma_load<VEC>(mmaf_smem + st * STAGE, Q, Dc, d, m, nc, q0, j0, (int64_t)st * BK);
        cp_async_commit();
    }
    for (int64_t kt = 0; kt < ktiles; kt++) {
        cp_async_wait<kMmaStages - 2>(); /* tile kt is in (a group a tile, empty ones too) */
        __syncthreads();                 /* ... for every thread, and kt - 1's stage is free */
        if (kt + kMmaStages - 1 < ktiles)
            mma_load<VEC>(mmaf_smem + (kt + kMmaStages - 1) % kMmaStages * STAGE, Q, Dc, d, m, nc,
                          q0, j0, (kt + kMmaStages - 1) * BK);
        cp_async_commit();
        const float *Qs = mmaf_smem + (kt % kMmaStages) * STAGE, *Ds = Qs + BM * LD;
#pragma unroll
        for (int k16 = 0; k16 < BK; k16 += 16) {
            double a[2][8];
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int e = 0; e < 8; e++)
                    a[i][e] = (double)
                        Qs[((4 * i + wq) * 16 + g + 8 * (e % 2)) * LD + k16 + t + 4 * (e / 2)];
            if (cosine && wj == 0)
#pragma unroll
                for (int i = 0; i < 2; i++)
#pragma unroll
                    for (int e = 0; e < 8; e++)
                        asq[i][e % 2] = fma(a[i][e], a[i][e], asq[i][e % 2]);
#pragma unroll
            for (int jt = 0; jt < 8; jt++) {
                double b[4];
#pragma unroll
                for (int e = 0; e < 4; e++)
                    b[e] = (double)Ds[(wj * 64 + jt * 8 + g) * LD + k16 + t + 4 * e];
#pragma unroll
                for (int i = 0; i < 2; i++)
                    if (rows[i])
                        dmma_16x8x16(c[i][jt], a[i], b);
                if (cosine && wq == 0)
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        bsq[jt] = fma(b[e], b[e], bsq[jt]);
            }
        }
    }
    cp_async_wait<0>();
    if (cosine)
        mma_norms(asq, bsq, qn, dn, wq, wj, g, t);
    (void)checked, (void)unsafe; /* single data's sums in double cannot overflow or underflow */
    mma_store(c, qn, dn, cosine, q0, j0, m, nc, wq, wj, g, t, s);
}

/* Single data in single (native) on the CUDA cores, the same tiles and pipeline as
 * search_mma_f32: each warp 32 x 64, a lane 8 queries (rows 2 r, 2 r + 1 of the warp's four
 * 8-query rows, r = lane / 8) x 8 columns (c + 8 jj, c = lane % 8), four K values a load
 * (conflict-free: the 8 columns' rows start on banks 0, 4, .., 28).  The norms: thread tid
 * squares row tid of each stage (squaring the fragments cost the first warps a quarter
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

/* Whether this device runs search_mma from sm_80 code or later (a build of PTX for an
 * older target compiles its MMA out: the driver's JIT of that PTX must not run it). */
template <typename K> static bool search_mma_ok(K kernel)
{
    cudaFuncAttributes fa;
    return E->prop.major >= 8 && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess &&
           fa.ptxVersion >= 80;
}

/* single data in 128 x 128 tiles (tc: in double on the tensor cores; else in single),
 * 16-byte copies where Q's and D's columns allow them */
static bool launch_tiles_f32(const float *Q, const float *Dc, int64_t d, int64_t m, int64_t nc,
                             bool tc, bool cosine, bool checked, float *s, int *unsafe)
{
    bool vec = d % 4 == 0 && ((uintptr_t)Q | (uintptr_t)Dc) % 16 == 0;
    auto kernel = tc ? (vec ? search_mma_f32<true> : search_mma_f32<false>)
                     : (vec ? search_simt_f32<true> : search_simt_f32<false>);
    cudaFuncAttributes fa; /* (tc: the sm_90 MMA shape; the other, cp.async: sm_80) */
    if (E->prop.major < 8 || cudaFuncGetAttributes(&fa, kernel) != cudaSuccess ||
        fa.ptxVersion < (tc ? 90 : 80))
        return false;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kMmaSmemF);
    dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 127) / 128));
    kernel<<<g, 256, kMmaSmemF>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    return true;
}
static bool launch_tiles_f32(const double *, const double *, int64_t, int64_t, int64_t, bool, bool,
                             bool, double *, int *)
{
    return false;
}

/* the tile shape by query count: few queries waste less of a taller tile */
template <typename T, typename A>
static void launch_tiles(const T *Q, const T *Dc, int64_t d, int64_t m, int64_t nc, bool cosine,
                         bool checked, T *s, int *unsafe)
{
    /* Single data: in double on Hopper's tensor cores, native included (6.9 ms against 10.2
     * on the CUDA cores for 100 queries of 768 x 10^6 on an H100; a sum in double is within
     * native's bound).  GPUDOT_SEARCH_CORES (tests) keeps native on the CUDA cores. */
    bool cores = sizeof(A) == 4 && getenv("GPUDOT_SEARCH_CORES");
    int M = m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
    size_t sm = (size_t)(M * d + M) * sizeof(A);
    if (m <= kFewQueries && sm <= E->prop.sharedMemPerBlockOptin) {
        int64_t b = (nc + 7) / 8;
        unsigned g = (unsigned)(b < 132 * 16 ? b : 132 * 16);
        auto few = M == 1   ? search_few<T, A, 1>
                   : M == 2 ? search_few<T, A, 2>
                   : M == 4 ? search_few<T, A, 4>
                            : search_few<T, A, 8>;
        if (sm > 48 * 1024) /* (past the default: asked for) */
            cudaFuncSetAttribute(few, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
        few<<<g, 256, sm>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else if (!cores && launch_tiles_f32(Q, Dc, d, m, nc, true, cosine, checked, s, unsafe)) {
    } else if (sizeof(A) == 4 &&
               launch_tiles_f32(Q, Dc, d, m, nc, false, cosine, checked, s, unsafe)) {
    } else if (sizeof(A) == 8 && search_mma_ok(search_mma<T>)) {
        dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 63) / 64));
        cudaFuncSetAttribute(search_mma<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)kMmaSmem);
        search_mma<T><<<g, 256, kMmaSmem>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else if (m <= 8) {
        dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 7) / 8));
        search_tile<T, A, 2, 2, 64><<<g, 256>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else if (m <= 32) {
        dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 31) / 32));
        search_tile<T, A, 4, 4, 32><<<g, 256>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else {
        dim3 g((unsigned)((nc + 63) / 64), (unsigned)((m + 63) / 64));
        search_tile<T, A, 4, 4, 16><<<g, 256>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    }
}

/* "compensated": every sum Dot2 in double, on the CUDA cores (tile shapes as launch_tiles') */
template <typename T>
static void launch_comp(const T *Q, const T *Dc, int64_t d, int64_t m, int64_t nc, bool cosine,
                        bool checked, T *s, int *unsafe)
{
    if (m <= 8) {
        dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 7) / 8));
        search_tile<T, double, 2, 2, 64, true>
            <<<g, 256>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else {
        dim3 g((unsigned)((nc + 63) / 64), (unsigned)((m + 31) / 32));
        search_tile<T, double, 2, 4, 16, true>
            <<<g, 256>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    }
}

/* Columns of a part's chunk of scores (search_one cuts by it, part_width sizes the host's
 * candidates by it): kSearchChunk bytes of m queries' scores, at least 128 columns. */
static int64_t chunk_columns(int64_t m, int64_t n, size_t es)
{
    int64_t nc = (int64_t)(kSearchChunk / ((size_t)m * es));
    nc = nc < n ? nc : n;
    return nc > 128 ? nc : (n < 128 ? n : 128);
}

/* One device's part: D (device memory of E's device) against Q (host). */
template <typename T>
static gpudot_status search_one(const gpudot_search_req *r, const T *D, int64_t n, int64_t col0,
                                T *cand_v, int64_t *cand_i, int *unsafe)
{
    int64_t d = r->dim, m = r->m, k = r->k;
    size_t es = sizeof(T);
    int64_t nc = chunk_columns(m, n, es);
    int64_t kk = k < 0 ? 0 : (k < nc ? k : nc), chunks = n > 0 ? (n + nc - 1) / nc : 0;
    /* one allocation: the flag, Q, a chunk's scores, every chunk's candidates (chunk c's kc
     * of query q at c kk m + q kc: copied once at the end, no wait between chunks) */
    auto up = [](size_t b) { return (b + 255) / 256 * 256; };
    size_t qb = up((size_t)(d * m) * es), sb = up((size_t)(nc * m) * es);
    size_t cb = (size_t)(chunks * kk * m);
    gpudot_status st =
        buf_need(E->search, 256 + qb + sb + up(cb * 8) + cb * es, "cudaMalloc (search)");
    if (st != GPUDOT_OK)
        return st;
    void *mem = E->search.p;
    int *flag = (int *)mem;
    T *dq = (T *)((char *)mem + 256), *ds = (T *)((char *)dq + qb);
    int64_t *ci = (int64_t *)((char *)ds + sb);
    T *cv = (T *)((char *)ci + up(cb * 8));
    cudaError_t e = cudaMemset(flag, 0, sizeof(int));
    if (e == cudaSuccess)
        e = cudaMemcpy(dq, r->q, qb, cudaMemcpyHostToDevice);
    bool checked = !(r->single && r->accum != GPUDOT_ACC_NATIVE);
    for (int64_t c = 0; c < chunks && e == cudaSuccess && st == GPUDOT_OK; c++) {
        int64_t j0 = c * nc, ncc = n - j0 < nc ? n - j0 : nc;
        if (r->single && r->accum == GPUDOT_ACC_NATIVE)
            launch_tiles<T, float>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        else if (r->accum == GPUDOT_ACC_COMP)
            launch_comp<T>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        else
            launch_tiles<T, double>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        if ((e = cudaGetLastError()) != cudaSuccess)
            break;
        if (k < 0) /* every score: the chunk is rows j0 .. j0 + ncc of the n x m result */
            e = cudaMemcpy2D((T *)(r->dscores ? r->dscores : r->scores) + col0 + j0,
                             (size_t)r->n * es, ds, (size_t)ncc * es, (size_t)ncc * es, (size_t)m,
                             r->dscores ? cudaMemcpyDefault : cudaMemcpyDeviceToHost);
        else
            st = topk_runs(ds, 1, ncc, m, k, false, cv + c * kk * m, ci + c * kk * m, 0);
    }
    T *hv = nullptr;
    int64_t *hi = nullptr;
    if (cb && e == cudaSuccess && st == GPUDOT_OK) {
        hv = (T *)malloc(cb * es);
        hi = (int64_t *)malloc(cb * 8);
        if (!hv || !hi)
            st = GPUDOT_OUT_OF_MEMORY;
        else if ((e = cudaMemcpy(hv, cv, cb * es, cudaMemcpyDeviceToHost)) == cudaSuccess)
            e = cudaMemcpy(hi, ci, cb * 8, cudaMemcpyDeviceToHost);
    }
    /* query q's candidates from chunk c to slots c kk .. of its row of cand; a short last
     * chunk's missing ones NaN (after every candidate, never chosen before one) */
    int64_t w = chunks * kk;
    for (int64_t c = 0; hv && hi && e == cudaSuccess && st == GPUDOT_OK && c < chunks; c++) {
        int64_t j0 = c * nc, ncc = n - j0 < nc ? n - j0 : nc, kc = k < ncc ? k : ncc;
        for (int64_t q = 0; q < m; q++)
            for (int64_t s = 0; s < kk; s++) {
                int64_t at = c * kk * m + q * kc + s;
                cand_v[q * w + c * kk + s] = s < kc ? hv[at] : (T)NAN;
                cand_i[q * w + c * kk + s] = s < kc ? hi[at] + j0 : n;
            }
    }
    free(hv);
    if (e == cudaSuccess && st == GPUDOT_OK)
        e = cudaMemcpy(unsafe, flag, sizeof(int), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess && st == GPUDOT_OK)
        st = fail(e, "search kernel or cudaMemcpy");
    free(hi);
    return st;
}

/* The candidates per query (kk a chunk of each part), in the order of their indices */
static int64_t part_width(const gpudot_search_req *r, int64_t n, size_t es)
{
    if (r->k < 0 || n == 0)
        return 0;
    int64_t nc = chunk_columns(r->m, n, es);
    int64_t kk = r->k < nc ? r->k : nc;
    return (n + nc - 1) / nc * kk;
}

template <typename T> static gpudot_status search(gpudot_search_req *r)
{
    int np = r->nparts;
    size_t es = sizeof(T);
    int64_t w[GPUDOT_MAX_SHARDS], at[GPUDOT_MAX_SHARDS + 1] = {0};
    for (int p = 0; p < np; p++) {
        w[p] = part_width(r, r->parts[p].n, es);
        at[p + 1] = at[p] + w[p];
    }
    int64_t W = at[np], m = r->m;
    T *cv = nullptr, *allv = nullptr;
    int64_t *cidx = nullptr, *gi = nullptr;
    if (W > 0) {
        allv = (T *)malloc((size_t)(W * m) * es);
        cv = (T *)malloc((size_t)(W * m) * es);
        cidx = (int64_t *)malloc((size_t)(W * m) * 8);
        gi = (int64_t *)malloc((size_t)(W * m) * 8);
        if (!allv || !cv || !cidx || !gi) {
            free(allv), free(cv), free(cidx), free(gi);
            return GPUDOT_OUT_OF_MEMORY;
        }
    }
    gpudot_status st[GPUDOT_MAX_SHARDS];
    int unsafe[GPUDOT_MAX_SHARDS] = {0};
    /* each device's parts in order, the devices at once (a device's buffers serve one part
     * at a time); part p's candidates go to cv at at[p] m */
    auto run = [&](int dev) {
        for (int p = 0; p < np; p++) {
            const gpudot_search_part &P = r->parts[p];
            if (P.dev != dev)
                continue;
            if (P.dev < 0)
                use_primary();
            st[p] = P.dev < 0 ? probe() : use_device(P.dev);
            if (st[p] == GPUDOT_OK)
                st[p] = search_one<T>(r, (const T *)P.d, P.n, P.j0, cv + at[p] * m,
                                      cidx + at[p] * m, &unsafe[p]);
        }
    };
    int devs[GPUDOT_MAX_SHARDS], nd = 0;
    for (int p = 0; p < np; p++) {
        int seen = 0;
        for (int i = 0; i < nd; i++)
            seen |= devs[i] == r->parts[p].dev;
        if (!seen)
            devs[nd++] = r->parts[p].dev;
    }
    if (nd == 1) {
        run(devs[0]);
    } else {
        std::thread th[GPUDOT_MAX_SHARDS];
        for (int i = 0; i < nd; i++)
            th[i] = std::thread(run, devs[i]);
        for (int i = 0; i < nd; i++)
            th[i].join();
    }
    use_primary();
    gpudot_status s = GPUDOT_OK;
    for (int p = 0; p < np; p++) {
        if (s == GPUDOT_OK)
            s = st[p];
        r->unsafe |= unsafe[p];
    }
    if (s == GPUDOT_OK && W > 0) {
        /* query q's candidates in index order: part by part, each part's chunk by chunk */
        for (int64_t q = 0; q < m; q++)
            for (int p = 0; p < np; p++)
                for (int64_t t = 0; t < w[p]; t++) {
                    allv[q * W + at[p] + t] = cv[at[p] * m + q * w[p] + t];
                    gi[q * W + at[p] + t] = cidx[at[p] * m + q * w[p] + t] + r->parts[p].j0;
                }
        s = gpudot_search_merge(r, allv, gi, W);
    }
    free(allv), free(cv), free(cidx), free(gi);
    return s;
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

gpudot_status gpudot_cuda_search(gpudot_search_req *r)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    if (r->k > kTopkMax || r->nparts < 1 || r->nparts > GPUDOT_MAX_SHARDS)
        return GPUDOT_BAD_OPTION;
    return r->single ? search<float>(r) : search<double>(r);
}

} // extern "C"
