/*
 * CUDA engine: the similarity search's tile for single data on Hopper's FP64 tensor cores
 * (search.cu launches it): the queries widened to double beforehand, 128 x 128 tiles through
 * cp.async stages, each block looping over column tiles; the scores either stored (a chunk
 * of them, s[q nc + j]) or each query's best k selected as the tiles go (search_pick then
 * takes the best k of the blocks' lists), so no score leaves the SM.
 */
#pragma once

#include "search_kernels.cuh"
#include "topk.cuh"

namespace gpudot
{

/* search_wide_f32's queries, widened to double once a call (or a slab of them at a time):
 * rows padded to a multiple of 128 and columns to one of kMmaK with zeros, so that its
 * copies to shared memory are whole 16-byte ones and need no bounds; q2, each row's sum of
 * squares (a fixed order).  A block a row. */
constexpr size_t kWideBytes = (size_t)64 << 20; /* widened queries at once: 10880 x 768 */
__global__ void __launch_bounds__(256)
    widen_queries(const float *__restrict__ Q, int64_t d, int64_t m, int64_t dp,
                  double *__restrict__ Qw, double *__restrict__ q2)
{
    __shared__ double part[8];
    int64_t r = blockIdx.x;
    double a2 = 0;
    for (int64_t k = threadIdx.x; k < dp; k += 256) {
        double v = r < m && k < d ? (double)Q[r * d + k] : 0.0;
        Qw[r * dp + k] = v;
        a2 = fma(v, v, a2);
    }
    for (int o = 16; o > 0; o >>= 1)
        a2 += __shfl_xor_sync(0xffffffffu, a2, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = a2;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < 8; w++)
            a2 += part[w];
        q2[r] = a2;
    }
}

/* search_wide_f32's stage: 128 widened query rows (doubles), then 128 columns of D (floats),
 * rows kMmaLd apart */
constexpr int kWideStage = 128 * kMmaLd + 128 * kMmaLd / 2; /* in doubles */
constexpr size_t kWideSmem = ((size_t)kMmaStages * kWideStage + 256) * sizeof(double);

/* Tile k0 .. k0 + kMmaK of queries q0 .. and columns j0 .. into stage S (columns past nc or
 * d: zeros).  VEC: D's copies 16 bytes (d % 4 == 0, Dc 16-byte aligned). */
template <bool VEC>
__device__ __forceinline__ void wide_load(double *S, const double *Qw, int64_t dp, const float *Dc,
                                          int64_t d, int64_t nc, int64_t q0, int64_t j0, int64_t k0)
{
    constexpr int BK = kMmaK, LD = kMmaLd;
    int tid = threadIdx.x;
    for (int e = tid; e < 128 * (BK / 2); e += 256) {
        int r = e / (BK / 2), c = e % (BK / 2) * 2;
        cp_async16(&S[r * LD + c], Qw + (q0 + r) * dp + k0 + c, 16);
    }
    float *Ds = (float *)(S + 128 * LD);
    if (VEC) {
        for (int e = tid; e < 128 * (BK / 4); e += 256) {
            int r = e / (BK / 4), c = e % (BK / 4) * 4;
            int64_t left = d - k0 - c;
            int bytes = j0 + r < nc && left > 0 ? (left < 4 ? (int)left * 4 : 16) : 0;
            cp_async16(&Ds[r * LD + c], bytes ? Dc + (j0 + r) * d + k0 + c : Dc, bytes);
        }
    } else {
        for (int e = tid; e < 128 * BK; e += 256) {
            int r = e / BK, c = e % BK;
            bool ok = j0 + r < nc && k0 + c < d;
            cp_async4(&Ds[r * LD + c], ok ? Dc + (j0 + r) * d + k0 + c : Dc, ok);
        }
    }
}

/* The reciprocals of a cosine's norms for a tile, into nd (2 x 128 doubles of shared
 * memory): D's from the first row of warps' shares bsq (the four K lanes of each column in a
 * fixed order), Q's from q2 */
__device__ __forceinline__ void wide_norms(double (&bsq)[4], const double *__restrict__ q2,
                                           int64_t q0, double *nd)
{
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int wq = warp >> 2, wj = warp & 3, g = lane >> 2, t = lane & 3;
    auto inv = [](double a2) { return a2 > 0 && !isinf(a2) ? 1 / sqrt(a2) : (double)NAN; };
#pragma unroll
    for (int o = 1; o < 4; o <<= 1)
#pragma unroll
        for (int jt = 0; jt < 4; jt++)
            bsq[jt] += __shfl_xor_sync(0xffffffffu, bsq[jt], o);
    if (wq == 0 && t == 0)
#pragma unroll
        for (int jt = 0; jt < 4; jt++)
            nd[128 + wj * 32 + jt * 8 + g] = inv(bsq[jt]);
    if (tid < 128)
        nd[tid] = inv(q2[q0 + tid]);
    __syncthreads(); /* (the next tile's writes wait for its first step's barriers) */
}

/* Where sum e of a thread's c[i][jt][e] lies in the tile: query row ql, column jl */
__device__ __forceinline__ int wide_row(int i, int e)
{
    int lane = threadIdx.x & 31, wq = threadIdx.x >> 7;
    return (2 * i + wq) * 16 + (lane >> 2) + 8 * (e / 2);
}
__device__ __forceinline__ int wide_col(int jt, int e)
{
    int lane = threadIdx.x & 31, wj = (threadIdx.x >> 5) & 3;
    return wj * 32 + jt * 8 + 2 * (lane & 3) + e % 2;
}

/* A score from its sum v: a cosine times the norms' reciprocals, clamped; in single */
__device__ __forceinline__ float wide_value(double v, bool cosine, const double *nd, int ql, int jl)
{
    if (cosine) {
        v = v * nd[ql] * nd[128 + jl];
        v = v > 1 ? 1 : v < -1 ? -1 : v;
    }
    return (float)v;
}

/* search_wide_f32's tile of scores from its warps' sums c into s */
__device__ __forceinline__ void wide_store(const double (&c)[4][4][4], bool cosine, int64_t q0,
                                           int64_t j0, int64_t m, int64_t nc, const double *nd,
                                           float *__restrict__ s)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int jt = 0; jt < 4; jt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int ql = wide_row(i, e), jl = wide_col(jt, e);
                int64_t q = q0 + ql, j = j0 + jl;
                if (q < m && j < nc)
                    s[q * nc + j] = wide_value(c[i][jt][e], cosine, nd, ql, jl);
            }
}

/* search_wide_f32's selection as it goes (k > 0): each of the block's 128 queries keeps the
 * best k (<= kSelMax) of the columns the block has scored, best first in topk_before's
 * order, so no score leaves the block.  A tile's scores that beat a query's k-th go to a
 * buffer of kSelBuf a query, which one thread a query merges into the list; a score that
 * found the buffer full waits for the next round against the new k-th.  Shared memory
 * after the stages and nd: lists (slot s of query ql at s 128 + ql), buffers likewise, and
 * the buffers' counts. */
constexpr int kSelMax = 16, kSelBuf = 32;
constexpr size_t kSelSmem = (size_t)(kSelMax + kSelBuf) * 128 * 8 + 128 * sizeof(int);
struct WideSel {
    float *v, *bv;
    int *i, *bi, *cnt;
    __device__ explicit WideSel(double *at)
        : v((float *)at), bv(v + kSelMax * 128), i((int *)(bv + kSelBuf * 128)),
          bi(i + kSelMax * 128), cnt(bi + kSelBuf * 128)
    {
    }
};

__device__ __forceinline__ void wide_select(const double (&c)[4][4][4], bool cosine, int64_t q0,
                                            int64_t j0, int64_t m, int64_t nc, const double *nd,
                                            int k, WideSel L)
{
    uint64_t pend = 0; /* bit (4 i + jt) 4 + e: that score still to test */
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int jt = 0; jt < 4; jt++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (q0 + wide_row(i, e) < m && j0 + wide_col(jt, e) < nc)
                    pend |= 1ull << ((4 * i + jt) * 4 + e);
    for (;;) {
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int ql = wide_row(i, 2 * h);
                float kv = L.v[(k - 1) * 128 + ql]; /* the query's k-th (index -1: none) */
                int ki = L.i[(k - 1) * 128 + ql];
#pragma unroll
                for (int jt = 0; jt < 4; jt++)
#pragma unroll
                    for (int e = 2 * h; e < 2 * h + 2; e++) {
                        uint64_t bit = 1ull << ((4 * i + jt) * 4 + e);
                        if (!(pend & bit))
                            continue;
                        int j = (int)j0 + wide_col(jt, e);
                        float v = wide_value(c[i][jt][e], cosine, nd, ql, wide_col(jt, e));
                        if (topk_before(v, (int64_t)j, kv, (int64_t)ki, false)) {
                            int b = atomicAdd(&L.cnt[ql], 1);
                            if (b >= kSelBuf)
                                continue; /* (the next round) */
                            L.bv[b * 128 + ql] = v;
                            L.bi[b * 128 + ql] = j;
                        }
                        pend &= ~bit;
                    }
            }
        __syncthreads();
        if (threadIdx.x < 128) { /* query ql's buffer into its list */
            int ql = threadIdx.x, nb = L.cnt[ql] < kSelBuf ? L.cnt[ql] : kSelBuf;
            L.cnt[ql] = 0;
            for (int b = 0; b < nb; b++) {
                float a = L.bv[b * 128 + ql];
                int ia = L.bi[b * 128 + ql], s = k - 1;
                if (!topk_before(a, (int64_t)ia, L.v[s * 128 + ql], (int64_t)L.i[s * 128 + ql],
                                 false))
                    continue;
                for (; s > 0 && topk_before(a, (int64_t)ia, L.v[(s - 1) * 128 + ql],
                                            (int64_t)L.i[(s - 1) * 128 + ql], false);
                     s--) {
                    L.v[s * 128 + ql] = L.v[(s - 1) * 128 + ql];
                    L.i[s * 128 + ql] = L.i[(s - 1) * 128 + ql];
                }
                L.v[s * 128 + ql] = a;
                L.i[s * 128 + ql] = ia;
            }
        }
        if (!__syncthreads_or(pend != 0))
            break;
    }
}

/* Single data in double on Hopper's tensor cores, the queries widened beforehand
 * (widen_queries): tiles of 128 queries x 128 columns, a block's 8 warps 2 x 4, each 64 x 32
 * (4 x 4 MMA tiles of 16 x 8), kMmaStages tiles of kMmaK in flight by cp.async.  A block
 * takes column tiles blockIdx.x, + gridDim.x, ..., its pipeline running on from one tile
 * into the next, so that a tile's first loads are in flight through the last one's steps
 * and its stores.  Only D's singles are widened as the fragments are read, each by two
 * warps.  A warp's 16-query rows interleave with the other row of warps'
 * (16 (2 i + wq) ..), so that a sub-partition skips as many rows past m as another.  D's
 * norms from the warps of the first row's fragments; Q's from q2. */
template <bool VEC>
__global__ void __launch_bounds__(256, 1)
    search_wide_f32(const double *__restrict__ Qw, const double *__restrict__ q2, int64_t dp,
                    const float *__restrict__ Dc, int64_t d, int64_t m, int64_t nc, bool cosine,
                    float *__restrict__ s, int k, float *__restrict__ sv, int *__restrict__ si)
{
    constexpr int BM = 128, BN = 128, BK = kMmaK, LD = kMmaLd;
    extern __shared__ double wide_smem[];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int wq = warp >> 2, wj = warp & 3, g = lane >> 2, t = lane & 3;
    int64_t q0 = (int64_t)blockIdx.y * BM;
    int ntiles = (int)((nc + BN - 1) / BN), ktiles = (int)((d + BK - 1) / BK);
    int mine = ntiles > (int)blockIdx.x ? (ntiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;
    int steps = mine * ktiles; /* (its tiles' steps of kMmaK, in order) */
    auto load = [&](int st) {
        int64_t j0 = ((int64_t)blockIdx.x + st / ktiles * gridDim.x) * BN;
        wide_load<VEC>(wide_smem + st % kMmaStages * kWideStage, Qw, dp, Dc, d, nc, q0, j0,
                       (int64_t)(st % ktiles) * BK);
    };
    double *nd = wide_smem + kMmaStages * kWideStage;
    WideSel L(nd + 256);
    if (k > 0 && threadIdx.x < 128) {
        for (int e = 0; e < k; e++)
            L.i[e * 128 + threadIdx.x] = -1;
        L.cnt[threadIdx.x] = 0; /* (seen by the first step's barrier) */
    }
    bool rows[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        rows[i] = q0 + (2 * i + wq) * 16 < m;
#pragma unroll
    for (int st = 0; st < kMmaStages - 1; st++) {
        if (st < steps)
            load(st);
        cp_async_commit();
    }
    for (int ti = 0; ti < mine; ti++) {
        int64_t j0 = ((int64_t)blockIdx.x + ti * gridDim.x) * BN;
        double c[4][4][4] = {}, bsq[4] = {};
        for (int st = ti * ktiles; st < (ti + 1) * ktiles; st++) {
            cp_async_wait<kMmaStages - 2>();
            __syncthreads();
            if (st + kMmaStages - 1 < steps)
                load(st + kMmaStages - 1);
            cp_async_commit();
            const double *Qs = wide_smem + (st % kMmaStages) * kWideStage;
            const float *Ds = (const float *)(Qs + BM * LD);
#pragma unroll
            for (int k16 = 0; k16 < BK; k16 += 16) {
                double b[4][4];
#pragma unroll
                for (int jt = 0; jt < 4; jt++)
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        b[jt][e] = (double)Ds[(wj * 32 + jt * 8 + g) * LD + k16 + t + 4 * e];
                if (cosine && wq == 0)
#pragma unroll
                    for (int jt = 0; jt < 4; jt++)
#pragma unroll
                        for (int e = 0; e < 4; e++)
                            bsq[jt] = fma(b[jt][e], b[jt][e], bsq[jt]);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    if (!rows[i])
                        continue;
                    double a[8];
#pragma unroll
                    for (int e = 0; e < 8; e++)
                        a[e] =
                            Qs[((2 * i + wq) * 16 + g + 8 * (e % 2)) * LD + k16 + t + 4 * (e / 2)];
#pragma unroll
                    for (int jt = 0; jt < 4; jt++)
                        dmma_16x8x16(c[i][jt], a, b[jt]);
                }
            }
        }
        if (cosine)
            wide_norms(bsq, q2, q0, nd);
        if (k > 0)
            wide_select(c, cosine, q0, j0, m, nc, nd, k, L);
        else
            wide_store(c, cosine, q0, j0, m, nc, nd, s);
    }
    cp_async_wait<0>();
    if (k > 0 && threadIdx.x < 128 && q0 + threadIdx.x < m) /* this block's lists */
        for (int e = 0; e < k; e++) {
            int64_t at = (q0 + threadIdx.x) * gridDim.x * k + blockIdx.x * k + e;
            sv[at] = L.v[e * 128 + threadIdx.x];
            si[at] = L.i[e * 128 + threadIdx.x];
        }
}

/* The best k of each query's candidates from search_wide_f32's blocks (w a query, index -1:
 * none), best first, into val and idx (their layout as topk_runs'): a block a query, k
 * rounds, each the best candidate after the last one chosen. */
__global__ void __launch_bounds__(128)
    search_pick(const float *__restrict__ sv, const int *__restrict__ si, int64_t w, int k,
                float *__restrict__ val, int64_t *__restrict__ idx)
{
    __shared__ float bv[4];
    __shared__ int bi[4];
    int64_t q = blockIdx.x;
    const float *v = sv + q * w;
    const int *ix = si + q * w;
    float lv = 0;
    int li = -1; /* the last chosen (-1: none yet) */
    for (int r = 0; r < k; r++) {
        float a = 0;
        int ia = -1;
        for (int64_t e = threadIdx.x; e < w; e += 128) {
            float b = v[e];
            int ib = ix[e];
            bool after = li < 0 || topk_before(lv, (int64_t)li, b, (int64_t)ib, false);
            if (ib >= 0 && after && topk_before(b, (int64_t)ib, a, (int64_t)ia, false))
                a = b, ia = ib;
        }
        for (int o = 16; o > 0; o >>= 1) {
            float b = __shfl_xor_sync(0xffffffffu, a, o);
            int ib = __shfl_xor_sync(0xffffffffu, ia, o);
            if (topk_before(b, (int64_t)ib, a, (int64_t)ia, false))
                a = b, ia = ib;
        }
        if ((threadIdx.x & 31) == 0)
            bv[threadIdx.x >> 5] = a, bi[threadIdx.x >> 5] = ia;
        __syncthreads();
        a = bv[0], ia = bi[0];
        for (int u = 1; u < 4; u++)
            if (topk_before(bv[u], (int64_t)bi[u], a, (int64_t)ia, false))
                a = bv[u], ia = bi[u];
        __syncthreads();
        if (threadIdx.x == 0)
            val[q * k + r] = a, idx[q * k + r] = ia;
        lv = a, li = ia;
    }
}

} // namespace gpudot
