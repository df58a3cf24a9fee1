/*
 * CUDA engine: the best k of runs of real values (topk.cuh has the order): garray's maxk and
 * mink, and the search's selection from each chunk of scores.
 *
 * Contiguous runs (the search's chunks, maxk along a matrix's columns): a warp a segment of
 * a run keeps the segment's best k in registers across its lanes (WarpList); the warps'
 * lists are merged 32 at a time by the same code.  Strided runs: each run's elements are
 * dealt to Lr lists (element j to list j mod Lr), each kept sorted by one thread; lists are
 * then merged eight at a time until one is left a run.  The order is total (ties by index),
 * so the result does not depend on how the runs are cut.  Runs go in batches so that the
 * lists never need more than kScratch bytes.  The strided lists lie interleaved (slot s of
 * list l at s P + l), so neighbouring threads touch neighbouring words.
 */
#include <cstdlib>

#include "topk.cuh"

namespace gpudot
{

/* Two sets of lists (merges read one and write the other): 64 MB in all. */
constexpr size_t kScratch = (size_t)64 << 20;
/* Lists a launch aims for (2^17: 1024 threads on each of 128 SMs) and the fewest elements
 * a list starts from (a list shorter than k is mostly empty slots). */
constexpr int64_t kListsWanted = (int64_t)1 << 17;
constexpr int64_t kListMin = 64;
constexpr int kMergeWays = 8;
constexpr int kDealAhead = 8;

/* Where the lists lie: R runs of the batch, Lr lists a run.  Runs with adjacent elements
 * (pre = 1) keep a run's lists adjacent, so a warp reads adjacent elements of one run;
 * strided runs put list c of adjacent runs adjacent, so a warp reads adjacent runs. */
struct ListMap {
    int64_t R, Lr;
    bool run_major;
    __device__ int64_t list(int64_t o, int64_t c) const
    {
        return run_major ? o * Lr + c : c * R + o;
    }
    __device__ void of(int64_t l, int64_t &o, int64_t &c) const
    {
        if (run_major)
            o = l / Lr, c = l % Lr;
        else
            o = l % R, c = l / R;
    }
};

template <typename T> struct Lists {
    T *v;
    int64_t *i;
    int64_t P; /* lists in all */
};

/* A thread's working list, best first, k slots used: in registers (KL slots, k <= KL; every
 * index known at compile time, so no slot goes to memory: in local memory each shift of an
 * insertion waited on L2, 30-80 us a merge round) ... */
template <typename T, int KL> struct RegList {
    T v[KL];
    int64_t i[KL];
    __device__ __forceinline__ RegList(Lists<T>, int64_t, int)
    {
#pragma unroll
        for (int s = 0; s < KL; s++)
            v[s] = 0, i[s] = -1;
    }
    /* (a, ia) into its place: carried down the slots, each it beats swapped out */
    __device__ __forceinline__ void insert(int k, T a, int64_t ia, bool is_min)
    {
#pragma unroll
        for (int s = 0; s < KL; s++)
            if (s < k && topk_before(a, ia, v[s], i[s], is_min)) {
                T tv = v[s];
                int64_t ti = i[s];
                v[s] = a, i[s] = ia;
                a = tv, ia = ti;
            }
    }
    __device__ __forceinline__ void last(int k, T &wv, int64_t &wi) const
    {
#pragma unroll
        for (int s = 0; s < KL; s++)
            if (s == k - 1)
                wv = v[s], wi = i[s];
    }
    __device__ __forceinline__ void store(Lists<T> L, int64_t l, int k) const
    {
#pragma unroll
        for (int s = 0; s < KL; s++)
            if (s < k)
                L.v[s * L.P + l] = v[s], L.i[s * L.P + l] = i[s];
    }
};

/* ... or, for larger k, list l of L itself (slot s at s P + l) */
template <typename T> struct MemList {
    T *v;
    int64_t *i;
    int64_t st;
    __device__ MemList(Lists<T> L, int64_t l, int k) : v(L.v + l), i(L.i + l), st(L.P)
    {
        for (int s = 0; s < k; s++)
            i[s * st] = -1;
    }
    __device__ __forceinline__ void insert(int k, T a, int64_t ia, bool is_min)
    {
        int s = k - 1;
        while (s > 0 && topk_before(a, ia, v[(s - 1) * st], i[(s - 1) * st], is_min)) {
            v[s * st] = v[(s - 1) * st];
            i[s * st] = i[(s - 1) * st];
            s--;
        }
        v[s * st] = a;
        i[s * st] = ia;
    }
    __device__ __forceinline__ void last(int k, T &wv, int64_t &wi) const
    {
        wv = v[(k - 1) * st];
        wi = i[(k - 1) * st];
    }
    __device__ void store(Lists<T>, int64_t, int) const {}
};

/* pass 1: list l of the batch's runs o0 .. o0 + R takes elements c, c + Lr, ... of its run,
 * kDealAhead loads in flight before any is compared */
template <typename T, typename W>
__global__ void topk_deal(const T *x, int64_t pre, int64_t n, int64_t o0, ListMap M, int k,
                          bool is_min, Lists<T> L)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.P;
         l += (int64_t)gridDim.x * blockDim.x) {
        int64_t o, c;
        M.of(l, o, c);
        int64_t run = o0 + o, p = run % pre, q = run / pre;
        const T *base = x + p + q * pre * n;
        W w(L, l, k);
        T wv = 0;
        int64_t wi = -1;
        for (int64_t j = c; j < n; j += kDealAhead * M.Lr) {
            T a[kDealAhead];
#pragma unroll
            for (int u = 0; u < kDealAhead; u++)
                if (j + u * M.Lr < n)
                    a[u] = base[(j + u * M.Lr) * pre];
#pragma unroll
            for (int u = 0; u < kDealAhead; u++) {
                int64_t ju = j + u * M.Lr;
                if (ju < n && topk_before(a[u], ju, wv, wi, is_min)) {
                    w.insert(k, a[u], ju, is_min);
                    w.last(k, wv, wi);
                }
            }
        }
        w.store(L, l, k);
    }
}

/* pass 2: output list c' of run o merges input lists c' F .. c' F + F - 1 of run o (each
 * sorted: the first slot that does not go before the last kept ends that list) */
template <typename T, typename W>
__global__ void topk_merge(Lists<T> in, ListMap Mi, Lists<T> out, ListMap Mo, int k, bool is_min)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < out.P;
         l += (int64_t)gridDim.x * blockDim.x) {
        int64_t o, c;
        Mo.of(l, o, c);
        W w(out, l, k);
        T wv = 0;
        int64_t wi = -1;
        for (int64_t ci = c * kMergeWays; ci < Mi.Lr && ci < c * kMergeWays + kMergeWays; ci++) {
            int64_t li = Mi.list(o, ci);
            for (int s = 0; s < k; s++) {
                T a = in.v[s * in.P + li];
                int64_t ia = in.i[s * in.P + li];
                if (ia < 0 || !topk_before(a, ia, wv, wi, is_min))
                    break;
                w.insert(k, a, ia, is_min);
                w.last(k, wv, wi);
            }
        }
        w.store(out, l, k);
    }
}

/* the batch's one list a run, to val and idx laid out pre x k x post */
template <typename T>
__global__ void topk_out(Lists<T> L, ListMap M, int64_t pre, int64_t o0, int k, T *val,
                         int64_t *idx)
{
    int64_t total = M.R * k;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t o = t / k, s = t % k, run = o0 + o;
        int64_t p = run % pre, q = run / pre, l = M.list(o, 0);
        int64_t at = p + s * pre + q * pre * k;
        val[at] = L.v[s * L.P + l];
        idx[at] = L.i[s * L.P + l];
    }
}

/* Contiguous runs (pre = 1): a warp a segment of a run.  The warp's best k lie in its
 * registers (slot s in lane s % 32, register s / 32), and every lane knows the k-th; an
 * element is tested against it with one comparison, and the few that beat it are inserted
 * one at a time, lowest lane first, by the whole warp (no divergence, no local memory). */
template <typename T, int R> struct WarpList {
    T v[R];
    int64_t i[R];
    T tv; /* the k-th best so far (ti < 0: fewer than k yet) */
    int64_t ti;
    int k, lane;
    bool is_min;
    __device__ __forceinline__ WarpList(int k_, bool m) : tv(0), ti(-1), k(k_), is_min(m)
    {
        lane = threadIdx.x & 31;
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r] = 0, i[r] = -1;
    }
    /* (b, ib), the same on every lane, into its place; the k-th goes out */
    __device__ __forceinline__ void insert(T b, int64_t ib)
    {
        int p = 0;
#pragma unroll
        for (int r = 0; r < R; r++)
            if (r * 32 < k)
                p += __popc(__ballot_sync(0xffffffffu, topk_before(v[r], i[r], b, ib, is_min)));
        T pv[R];
        int64_t pi[R];
#pragma unroll
        for (int r = 0; r < R; r++) { /* each slot's predecessor */
            pv[r] = v[r], pi[r] = i[r];
            if (r * 32 >= k)
                continue;
            pv[r] = __shfl_up_sync(0xffffffffu, v[r], 1);
            pi[r] = __shfl_up_sync(0xffffffffu, i[r], 1);
            if (r > 0) {
                T wv = __shfl_sync(0xffffffffu, v[r - 1], 31);
                int64_t wi = __shfl_sync(0xffffffffu, i[r - 1], 31);
                if (lane == 0)
                    pv[r] = wv, pi[r] = wi;
            }
        }
        T kv = v[0];
        int64_t ki = i[0];
#pragma unroll
        for (int r = 0; r < R; r++) {
            int s = r * 32 + lane;
            if (s < k && s > p)
                v[r] = pv[r], i[r] = pi[r];
            else if (s < k && s == p)
                v[r] = b, i[r] = ib;
            if (r == (k - 1) / 32)
                kv = v[r], ki = i[r];
        }
        tv = __shfl_sync(0xffffffffu, kv, (k - 1) & 31);
        ti = __shfl_sync(0xffffffffu, ki, (k - 1) & 31);
    }
    /* each lane's (a, ia) where ok: those that beat the k-th, in lane order */
    __device__ __forceinline__ void offer(bool ok, T a, int64_t ia)
    {
        bool want = ok && topk_before(a, ia, tv, ti, is_min);
        unsigned mask;
        while ((mask = __ballot_sync(0xffffffffu, want)) != 0) {
            int src = __ffs(mask) - 1;
            insert(__shfl_sync(0xffffffffu, a, src), __shfl_sync(0xffffffffu, ia, src));
            want = want && lane != src && topk_before(a, ia, tv, ti, is_min);
        }
    }
    /* the k slots to list w of L (slot s at w k + s), or, if val, to run o's output */
    __device__ __forceinline__ void store(Lists<T> L, int64_t w, T *val, int64_t *idx,
                                          int64_t o) const
    {
#pragma unroll
        for (int r = 0; r < R; r++) {
            int s = r * 32 + lane;
            if (s >= k)
                continue;
            if (val)
                val[o * k + s] = v[r], idx[o * k + s] = i[r];
            else
                L.v[w * k + s] = v[r], L.i[w * k + s] = i[r];
        }
    }
};

/* Loads a lane keeps in flight while dealing (a warp: 32 x kWarpAhead elements a step). */
constexpr int kWarpAhead = 8;
/* Warps a launch aims for (64 a SM), and the fewest elements a warp deals (4 steps). */
constexpr int64_t kWarpsWanted = 132 * 64;
constexpr int64_t kWarpMin = 4 * 32 * kWarpAhead;
/* Lists a warp merges: 32 (32 k candidates, adjacent in memory). */
constexpr int64_t kWarpMerge = 32;

/* pass 1 (contiguous runs): warp w takes elements c seg .. (c + 1) seg of run o0 + w / S,
 * c = w % S; one segment a run (S = 1) writes the run's result itself */
template <typename T, int R>
__global__ void __launch_bounds__(256)
    topk_warp_deal(const T *x, int64_t n, int64_t o0, int64_t Rb, int64_t S, int64_t seg, int k,
                   bool is_min, Lists<T> L, T *val, int64_t *idx)
{
    int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= Rb * S) /* (the whole warp) */
        return;
    int64_t o = w / S, c = w % S, j1 = (c + 1) * seg < n ? (c + 1) * seg : n;
    const T *run = x + (o0 + o) * n;
    WarpList<T, R> W(k, is_min);
    for (int64_t j = c * seg + W.lane; j - W.lane < j1; j += 32 * kWarpAhead) {
        T a[kWarpAhead];
#pragma unroll
        for (int u = 0; u < kWarpAhead; u++)
            a[u] = j + u * 32 < j1 ? run[j + u * 32] : (T)0;
#pragma unroll
        for (int u = 0; u < kWarpAhead; u++)
            W.offer(j + u * 32 < j1, a[u], j + u * 32);
    }
    W.store(L, w, val, idx, o0 + o);
}

/* pass 2: warp w merges lists c kWarpMerge .. of run o (w = o Lo + c; Li lists a run in,
 * Lo out), all their slots adjacent; the last round (Lo = 1) writes the runs' results */
template <typename T, int R>
__global__ void __launch_bounds__(256)
    topk_warp_merge(Lists<T> in, int64_t Li, Lists<T> out, int64_t Lo, int64_t Rb, int k,
                    bool is_min, T *val, int64_t *idx, int64_t o0)
{
    int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= Rb * Lo)
        return;
    int64_t o = w / Lo, c = w % Lo, first = o * Li + c * kWarpMerge;
    int64_t lists = Li - c * kWarpMerge < kWarpMerge ? Li - c * kWarpMerge : kWarpMerge;
    int64_t cnt = lists * k;
    const T *cv = in.v + first * k;
    const int64_t *ci = in.i + first * k;
    WarpList<T, R> W(k, is_min);
    for (int64_t e = W.lane; e - W.lane < cnt; e += 32 * 4) {
        T a[4];
        int64_t ia[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            bool ok = e + u * 32 < cnt;
            a[u] = ok ? cv[e + u * 32] : (T)0;
            ia[u] = ok ? ci[e + u * 32] : -1;
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
            W.offer(ia[u] >= 0, a[u], ia[u]);
    }
    W.store(out, w, Lo == 1 ? val : nullptr, idx, o0 + o);
}

/* How the contiguous runs are cut: S segments a run of seg elements (a multiple of 32),
 * S at most most (the lists a set of scratch holds) */
static void warp_plan(int64_t n, int64_t runs, int64_t most, int64_t &S, int64_t &seg)
{
    int64_t want = kWarpsWanted / runs;
    S = (n + kWarpMin - 1) / kWarpMin;
    S = S < want ? S : want;
    S = S < most ? S : most;
    S = S > 0 ? S : 1;
    seg = ((n + S - 1) / S + 31) / 32 * 32;
    S = (n + seg - 1) / seg;
}

/* The contiguous runs' best kk, Rmax runs a batch: the warps' lists, merged kWarpMerge
 * at a time */
template <typename T, int R>
static cudaError_t topk_contiguous(const T *x, int64_t n, int64_t runs, int64_t kk, bool is_min,
                                   T *val, int64_t *idx, Lists<T> a, Lists<T> b, int64_t S,
                                   int64_t seg, int64_t Rmax, cudaStream_t stream)
{
    auto blocks = [](int64_t warps) { return (unsigned)((warps + 7) / 8); };
    for (int64_t o0 = 0; o0 < runs; o0 += Rmax) {
        int64_t Rb = runs - o0 < Rmax ? runs - o0 : Rmax;
        topk_warp_deal<T, R><<<blocks(Rb * S), 256, 0, stream>>>(
            x, n, o0, Rb, S, seg, (int)kk, is_min, a, S == 1 ? val : nullptr, idx);
        Lists<T> in = a, out = b;
        for (int64_t Li = S; Li > 1;) {
            int64_t Lo = (Li + kWarpMerge - 1) / kWarpMerge;
            topk_warp_merge<T, R><<<blocks(Rb * Lo), 256, 0, stream>>>(in, Li, out, Lo, Rb, (int)kk,
                                                                       is_min, val, idx, o0);
            Lists<T> t = in;
            in = out, out = t, Li = Lo;
        }
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

static unsigned grid_for(int64_t threads)
{
    int64_t b = (threads + kThreads - 1) / kThreads;
    return (unsigned)(b < 65535 * 16 ? (b > 0 ? b : 1) : 65535 * 16);
}

template <typename T>
gpudot_status topk_runs(const T *x, int64_t pre, int64_t n, int64_t post, int64_t k, bool is_min,
                        T *val, int64_t *idx, cudaStream_t stream)
{
    int64_t runs = pre * post, kk = k < n ? k : n;
    if (runs == 0 || kk == 0)
        return GPUDOT_OK;
    int64_t slot = (int64_t)(sizeof(T) + sizeof(int64_t));
    int64_t most = (int64_t)(kScratch / 2) / (kk * slot); /* lists one set may hold */
    if (most < 1)
        most = 1;
    if (pre == 1) {
        int64_t S, seg;
        warp_plan(n, runs, most, S, seg);
        int64_t Rmax = most / S < runs ? most / S : runs, words = Rmax * S * kk;
        gpudot_status st = buf_need(E->topk, (size_t)(2 * words * slot), "cudaMalloc (maxk/mink)");
        if (st != GPUDOT_OK)
            return st;
        Lists<T> a{nullptr, (int64_t *)E->topk.p, 0}, b{nullptr, a.i + words, 0};
        a.v = (T *)(b.i + words); /* the indices first: 8-byte words stay aligned */
        b.v = a.v + words;
        cudaError_t e = kk <= 32
                            ? topk_contiguous<T, 1>(x, n, runs, kk, is_min, val, idx, a, b, S, seg,
                                                    Rmax, stream)
                            : topk_contiguous<T, kTopkMax / 32>(x, n, runs, kk, is_min, val, idx, a,
                                                                b, S, seg, Rmax, stream);
        return e == cudaSuccess ? GPUDOT_OK : fail(e, "maxk/mink kernel");
    }
    int64_t per = kListMin > kk ? kListMin : kk;
    int64_t Lr = (n + per - 1) / per, want = kListsWanted / runs;
    Lr = Lr < want ? Lr : want;
    Lr = Lr < most ? Lr : most;
    Lr = Lr > 0 ? Lr : 1;
    int64_t R = most / Lr < runs ? most / Lr : runs;
    gpudot_status st =
        buf_need(E->topk, (size_t)(2 * R * Lr * kk * slot), "cudaMalloc (maxk/mink)");
    if (st != GPUDOT_OK)
        return st;
    void *scratch = E->topk.p;
    /* the indices first: 8-byte words stay aligned whatever T's count */
    int64_t words = R * Lr * kk;
    Lists<T> a{nullptr, (int64_t *)scratch, 0}, b{nullptr, a.i + words, 0};
    a.v = (T *)(b.i + words);
    b.v = a.v + words;
    cudaError_t e = cudaSuccess;
    for (int64_t o0 = 0; o0 < runs && e == cudaSuccess; o0 += R) {
        int64_t Rb = runs - o0 < R ? runs - o0 : R;
        ListMap M{Rb, Lr, pre == 1};
        a.P = Rb * Lr;
        /* registers where they hold the list (float: 32 slots in 231 registers; double: 16,
         * whose 32 spilled), else the list in place */
        constexpr int KL = sizeof(T) == 4 ? 32 : 16;
        bool reg = kk <= KL;
        if (reg)
            topk_deal<T, RegList<T, KL>>
                <<<grid_for(a.P), kThreads, 0, stream>>>(x, pre, n, o0, M, (int)kk, is_min, a);
        else
            topk_deal<T, MemList<T>>
                <<<grid_for(a.P), kThreads, 0, stream>>>(x, pre, n, o0, M, (int)kk, is_min, a);
        while (M.Lr > 1) {
            ListMap Mo{Rb, (M.Lr + kMergeWays - 1) / kMergeWays, M.run_major};
            b.P = Rb * Mo.Lr;
            if (reg)
                topk_merge<T, RegList<T, KL>>
                    <<<grid_for(b.P), kThreads, 0, stream>>>(a, M, b, Mo, (int)kk, is_min);
            else
                topk_merge<T, MemList<T>>
                    <<<grid_for(b.P), kThreads, 0, stream>>>(a, M, b, Mo, (int)kk, is_min);
            Lists<T> t = a;
            a = b, b = t, M = Mo;
        }
        topk_out<T><<<grid_for(Rb * kk), kThreads, 0, stream>>>(a, M, pre, o0, (int)kk, val, idx);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess)
        return fail(e, "maxk/mink kernel");
    return GPUDOT_OK;
}

template gpudot_status topk_runs<float>(const float *, int64_t, int64_t, int64_t, int64_t, bool,
                                        float *, int64_t *, cudaStream_t);
template gpudot_status topk_runs<double>(const double *, int64_t, int64_t, int64_t, int64_t, bool,
                                         double *, int64_t *, cudaStream_t);

} // namespace gpudot

using namespace gpudot;

extern "C" {

gpudot_status gpudot_cuda_topk(const void *x, int single, int64_t pre, int64_t n, int64_t post,
                               int64_t k, int is_min, void *val, double *idx)
{
    gpudot_status st = probe();
    int64_t kk = k < n ? k : n;
    if (st != GPUDOT_OK || pre * post * kk == 0)
        return st;
    if (k > kTopkMax)
        return GPUDOT_BAD_OPTION;
    size_t es = single ? 4 : 8, m = (size_t)(pre * post * kk);
    void *out = nullptr;
    CK(dev_malloc(&out, m * (es + 8)), "cudaMalloc (maxk/mink)");
    int64_t *di = (int64_t *)out;
    void *dv = di + m;
    st = single ? topk_runs((const float *)x, pre, n, post, k, is_min != 0, (float *)dv, di, 0)
                : topk_runs((const double *)x, pre, n, post, k, is_min != 0, (double *)dv, di, 0);
    int64_t *hi = nullptr;
    if (st == GPUDOT_OK && !(hi = (int64_t *)malloc(m * 8)))
        st = GPUDOT_OUT_OF_MEMORY;
    if (st == GPUDOT_OK) {
        cudaError_t e = cudaMemcpy(val, dv, m * es, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(hi, di, m * 8, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            st = fail(e, "cudaMemcpy (maxk/mink)");
    }
    if (st == GPUDOT_OK)
        for (size_t t = 0; t < m; t++)
            idx[t] = (double)(hi[t] + 1);
    free(hi);
    cudaFree(out);
    return st;
}

} // extern "C"
