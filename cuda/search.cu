/*
 * CUDA engine: similarity search.  Every column of Q (d x m, the queries) against every
 * column of D (d x n, on the device): dot products or cosines, a chunk of D's columns at a
 * time through search_kernels.cuh's tiles (the kernel by query count, class and mode), into
 * a chunk of scores on the device; then either the best k of each query's scores
 * (topk.cuh) or the scores themselves go to the host.  So the m x n scores never exist
 * whole unless asked for; the chunks hold at most kSearchChunk bytes.
 *
 * A cosine's norms come from the same tiles, in the accumulator.  Single data with a double
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

#include "search_wide.cuh"
#include "topk.cuh"

namespace gpudot
{

/* A chunk of scores on the device: 128 MB (3.4e5 columns of 100 single queries; a chunk
 * costs a selection and a copy of its candidates), held between calls. */
constexpr size_t kSearchChunk = (size_t)128 << 20;

/* Whether this device runs search_mma from sm_80 code or later (a build of PTX for an
 * older target compiles its MMA out: the driver's JIT of that PTX must not run it). */
template <typename K> static bool search_mma_ok(K kernel)
{
    cudaFuncAttributes fa;
    return E->prop.major >= 8 && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess &&
           fa.ptxVersion >= 80;
}

/* single data in single in 128 x 128 tiles, 16-byte copies where Q's and D's columns
 * allow them (cp.async: sm_80) */
static bool launch_simt_f32(const float *Q, const float *Dc, int64_t d, int64_t m, int64_t nc,
                            bool cosine, bool checked, float *s, int *unsafe)
{
    bool vec = d % 4 == 0 && ((uintptr_t)Q | (uintptr_t)Dc) % 16 == 0;
    auto kernel = vec ? search_simt_f32<true> : search_simt_f32<false>;
    cudaFuncAttributes fa;
    if (E->prop.major < 8 || kMmaSmemF > E->prop.sharedMemPerBlockOptin ||
        cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || fa.ptxVersion < 80)
        return false;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kMmaSmemF);
    dim3 g((unsigned)((nc + 127) / 128), (unsigned)((m + 127) / 128));
    kernel<<<g, 256, kMmaSmemF>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    return true;
}
static bool launch_simt_f32(const double *, const double *, int64_t, int64_t, int64_t, bool, bool,
                            double *, int *)
{
    return false;
}

/* search_few's query rows for m queries (its template's M) */
static int few_rows(int64_t m)
{
    return m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
}

/* search_few's shared memory for m queries of d elements (accumulators of as bytes); 0
 * where it does not take them */
static size_t few_bytes(int64_t m, int64_t d, size_t as)
{
    int M = few_rows(m);
    size_t sm = (size_t)(M * d + M) * as;
    return m <= kFewQueries && sm <= E->prop.sharedMemPerBlockOptin ? sm : 0;
}

/* K of the widened queries: d padded to whole tiles of kMmaK */
static int64_t wide_k(int64_t d)
{
    return (d + kMmaK - 1) / kMmaK * kMmaK;
}

/* Rows of queries search_wide_f32 widens at once (0: it does not take the call): all of them
 * where kWideBytes holds them, else slabs of a multiple of 128 (GPUDOT_SEARCH_SLAB: fewer,
 * for tests); none where d = 0 or a block cannot have kWideSmem.  It takes native single
 * too (5.7 ms against 10.2 on the CUDA cores for 100 queries of 768 x 10^6 on an H100; a
 * sum in double is within native's bound), but not where GPUDOT_SEARCH_CORES (tests) keeps
 * native on the CUDA cores. */
static int64_t wide_rows(const gpudot_search_req *r)
{
    bool native = r->accum == GPUDOT_ACC_NATIVE;
    cudaFuncAttributes fa;
    if (!r->single || r->accum == GPUDOT_ACC_COMP || r->dim == 0 || r->m == 0 ||
        few_bytes(r->m, r->dim, native ? 4 : 8) || (native && getenv("GPUDOT_SEARCH_CORES")) ||
        E->prop.major < 8 || kWideSmem > E->prop.sharedMemPerBlockOptin ||
        cudaFuncGetAttributes(&fa, search_wide_f32<true>) != cudaSuccess || fa.ptxVersion < 90)
        return 0;
    int64_t dp = wide_k(r->dim), mp = (r->m + 127) / 128 * 128;
    int64_t most = (int64_t)(kWideBytes / ((size_t)dp * sizeof(double))) / 128 * 128;
    const char *slab = getenv("GPUDOT_SEARCH_SLAB");
    if (slab && atoll(slab) >= 128)
        most = atoll(slab) / 128 * 128;
    return mp < most ? mp : most; /* (0 past 65536 elements a query: search_mma takes it) */
}

/* search_wide_f32 over m queries, wr a slab (widened on the first chunk, or every chunk
 * where they take several slabs): the scores into s, or (k > 0) each query's best k into
 * val and idx (layout as topk_runs'), the blocks' lists in sv and si (wide_lists entries) */
static void launch_wide(const float *Q, const float *Dc, int64_t d, int64_t m, int64_t nc,
                        int64_t wr, bool first, bool cosine, double *qw, double *q2, float *s,
                        int k, float *sv, int *si, float *val, int64_t *idx)
{
    int64_t dp = wide_k(d);
    bool vec = d % 4 == 0 && (uintptr_t)Dc % 16 == 0;
    auto kernel = vec ? search_wide_f32<true> : search_wide_f32<false>;
    size_t smem = kWideSmem + (k > 0 ? kSelSmem : 0);
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    for (int64_t q0 = 0; q0 < m; q0 += wr) {
        int64_t mq = m - q0 < wr ? m - q0 : wr, mp = (mq + 127) / 128 * 128;
        if (first || wr < m)
            widen_queries<<<(unsigned)mp, 256>>>(Q + q0 * d, d, mq, dp, qw, q2);
        /* a block an SM, each slab of queries a share of the SMs (each block loops) */
        int64_t tiles = (nc + 127) / 128, slabs = mp / 128;
        int64_t gx = E->prop.multiProcessorCount / slabs;
        gx = gx < 1 ? 1 : gx > tiles ? tiles : gx;
        dim3 g((unsigned)gx, (unsigned)slabs);
        kernel<<<g, 256, smem>>>(qw, q2, dp, Dc, d, mq, nc, cosine, k > 0 ? s : s + q0 * nc, k, sv,
                                 si);
        if (k > 0)
            search_pick<<<(unsigned)mq, 128>>>(sv, si, gx * k, k, val + q0 * k, idx + q0 * k);
    }
}
/* entries of search_wide_f32's lists for a slab of wr queries' best k */
static int64_t wide_lists(int64_t wr, int64_t k)
{
    int64_t sms = E->prop.multiProcessorCount, slabs = (wr + 127) / 128;
    return 128 * (sms > slabs ? sms : slabs) * k;
}
static void launch_wide(const double *, const double *, int64_t, int64_t, int64_t, int64_t, bool,
                        bool, double *, double *, double *, int, float *, int *, double *,
                        int64_t *)
{
} /* (never: wide_rows is 0 for double data) */

/* the tile shape by query count where search_wide_f32 does not take the call: few queries
 * waste less of a taller tile */
template <typename T, typename A>
static void launch_tiles(const T *Q, const T *Dc, int64_t d, int64_t m, int64_t nc, bool cosine,
                         bool checked, T *s, int *unsafe)
{
    int M = few_rows(m);
    if (size_t sm = few_bytes(m, d, sizeof(A))) {
        int64_t b = (nc + 7) / 8;
        unsigned g = (unsigned)(b < 132 * 16 ? b : 132 * 16);
        auto few = M == 1   ? search_few<T, A, 1>
                   : M == 2 ? search_few<T, A, 2>
                   : M == 4 ? search_few<T, A, 4>
                            : search_few<T, A, 8>;
        if (sm > 48 * 1024) /* (past the default: asked for) */
            cudaFuncSetAttribute(few, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
        few<<<g, 256, sm>>>(Q, Dc, d, m, nc, cosine, checked, s, unsafe);
    } else if (sizeof(A) == 4 && launch_simt_f32(Q, Dc, d, m, nc, cosine, checked, s, unsafe)) {
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

/* Queries from which the wide tile selects the best k itself (wide_fused).  H100, 768 x 10^6
 * singles, best 10, medians of three rounds: 100 queries 5.73 ms against 5.92 from chunks
 * of scores, 20 queries 3.40 against 3.09 (the selection's steps, a block's warps all at
 * once, weigh more beside a tile of fewer queries). */
constexpr int64_t kFuseQueries = 64;

/* Whether search_wide_f32 selects each query's best k itself: D one chunk, no score leaves
 * the SMs.  GPUDOT_SEARCH_FUSE (tests): 1 wherever it can, 0 never. */
static bool wide_fused(const gpudot_search_req *r, int64_t wr, int64_t n)
{
    const char *f = getenv("GPUDOT_SEARCH_FUSE");
    bool want = f ? atoi(f) != 0 : r->m >= kFuseQueries;
    return want && wr && r->k > 0 && r->k <= kSelMax && n <= INT32_MAX &&
           kWideSmem + kSelSmem <= E->prop.sharedMemPerBlockOptin;
}

/* One device's part: D (device memory of E's device) against Q (host); query q's
 * candidates to cand_v and cand_i at q w .. (*got of them, in the order of their indices:
 * chunk by chunk). */
template <typename T>
static gpudot_status search_one(const gpudot_search_req *r, const T *D, int64_t n, int64_t col0,
                                T *cand_v, int64_t *cand_i, int64_t w, int64_t *got, int *unsafe)
{
    int64_t d = r->dim, m = r->m, k = r->k;
    size_t es = sizeof(T);
    int64_t wr = wide_rows(r), dp = wide_k(d); /* (widened queries) */
    bool fused = wide_fused(r, wr, n);
    int64_t nc = fused ? n : chunk_columns(m, n, es);
    int64_t kk = k < 0 ? 0 : (k < nc ? k : nc), chunks = n > 0 ? (n + nc - 1) / nc : 0;
    /* one allocation: the flag, Q, a chunk's scores (fused: the blocks' lists), every
     * chunk's candidates (chunk c's kc of query q at c kk m + q kc: copied once at the end,
     * no wait between chunks) */
    auto up = [](size_t b) { return (b + 255) / 256 * 256; };
    size_t qb = up((size_t)(d * m) * es);
    size_t sb = fused ? up((size_t)wide_lists(wr, kk) * 8) : up((size_t)(nc * m) * es);
    size_t cb = (size_t)(chunks * kk * m);
    size_t wb = wr ? (size_t)(wr * dp + wr) * sizeof(double) : 0;
    gpudot_status st =
        buf_need(E->search, 256 + qb + sb + up(cb * 8) + up(cb * es) + wb, "cudaMalloc (search)");
    if (st != GPUDOT_OK)
        return st;
    void *mem = E->search.p;
    int *flag = (int *)mem;
    T *dq = (T *)((char *)mem + 256), *ds = (T *)((char *)dq + qb);
    int64_t *ci = (int64_t *)((char *)ds + sb);
    T *cv = (T *)((char *)ci + up(cb * 8));
    double *qw = (double *)((char *)cv + up(cb * es)), *q2 = qw + wr * dp;
    /* (the wide tile never finds a call unsafe: singles summed in double) */
    cudaError_t e = wr ? cudaSuccess : cudaMemset(flag, 0, sizeof(int));
    if (e == cudaSuccess)
        e = cudaMemcpy(dq, r->q, qb, cudaMemcpyHostToDevice);
    bool checked = !(r->single && r->accum != GPUDOT_ACC_NATIVE);
    for (int64_t c = 0; c < chunks && e == cudaSuccess && st == GPUDOT_OK; c++) {
        int64_t j0 = c * nc, ncc = n - j0 < nc ? n - j0 : nc;
        if (fused) {
            float *sv = (float *)ds;
            launch_wide(dq, D, d, m, n, wr, true, r->cosine, qw, q2, (T *)nullptr, (int)kk, sv,
                        (int *)(sv + wide_lists(wr, kk)), cv, ci);
        } else if (wr)
            launch_wide(dq, D + j0 * d, d, m, ncc, wr, c == 0, r->cosine, qw, q2, ds, 0, nullptr,
                        nullptr, nullptr, nullptr);
        else if (r->single && r->accum == GPUDOT_ACC_NATIVE)
            launch_tiles<T, float>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        else if (r->accum == GPUDOT_ACC_COMP)
            launch_comp<T>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        else
            launch_tiles<T, double>(dq, D + j0 * d, d, m, ncc, r->cosine, checked, ds, flag);
        if ((e = cudaGetLastError()) != cudaSuccess || fused)
            break;
        if (k < 0) /* every score: the chunk is rows j0 .. j0 + ncc of the n x m result */
            e = cudaMemcpy2D((T *)(r->dscores ? r->dscores : r->scores) + col0 + j0,
                             (size_t)r->n * es, ds, (size_t)ncc * es, (size_t)ncc * es, (size_t)m,
                             r->dscores ? cudaMemcpyDefault : cudaMemcpyDeviceToHost);
        else
            st = topk_runs(ds, 1, ncc, m, k, false, cv + c * kk * m, ci + c * kk * m, 0);
    }
    /* the candidates' indices and values in one copy (they lie together, ci then cv) */
    int64_t *hi = nullptr;
    T *hv = nullptr;
    if (cb && e == cudaSuccess && st == GPUDOT_OK) {
        size_t vat = (size_t)((char *)cv - (char *)ci), cbytes = vat + cb * es; /* (cv's offset) */
        hi = (int64_t *)malloc(cbytes);
        if (!hi)
            st = GPUDOT_OUT_OF_MEMORY;
        else if ((e = cudaMemcpy(hi, ci, cbytes, cudaMemcpyDeviceToHost)) == cudaSuccess)
            hv = (T *)((char *)hi + vat);
    }
    /* query q's candidates from chunk c after those of the chunks before */
    *got = 0;
    for (int64_t c = 0; hv && hi && e == cudaSuccess && st == GPUDOT_OK && c < chunks; c++) {
        int64_t j0 = c * nc, ncc = n - j0 < nc ? n - j0 : nc, kc = k < ncc ? k : ncc;
        for (int64_t q = 0; q < m; q++)
            for (int64_t s = 0; s < kc; s++) {
                int64_t at = c * kk * m + q * kc + s;
                cand_v[q * w + *got + s] = hv[at];
                cand_i[q * w + *got + s] = hi[at] + j0;
            }
        *got += kc;
    }
    if (e == cudaSuccess && st == GPUDOT_OK) {
        if (wr)
            *unsafe = 0;
        else
            e = cudaMemcpy(unsafe, flag, sizeof(int), cudaMemcpyDeviceToHost);
    }
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
    int64_t W = at[np], m = r->m, got[GPUDOT_MAX_SHARDS] = {0};
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
                                      cidx + at[p] * m, w[p], &got[p], &unsafe[p]);
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
        /* query q's candidates in index order: part by part (got[p] of part p's w[p] slots) */
        int64_t G = 0;
        for (int p = 0; p < np; p++)
            G += got[p];
        for (int64_t q = 0; q < m; q++)
            for (int p = 0, o = 0; p < np; o += got[p], p++)
                for (int64_t t = 0; t < got[p]; t++) {
                    allv[q * G + o + t] = cv[at[p] * m + q * w[p] + t];
                    gi[q * G + o + t] = cidx[at[p] * m + q * w[p] + t] + r->parts[p].j0;
                }
        s = gpudot_search_merge(r, allv, gi, G);
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
