/*
 * CUDA engine: max and min of a garray along one dimension, with the index of each
 * (garray's max and min), by Octave's rules: NaN is skipped unless a run holds nothing
 * else (then NaN and the first NaN's index); ties go to the lowest index; complex values
 * compare by magnitude, then by argument (-pi counted as pi).
 *
 * The array is seen as pre x n x post (n: the dimension reduced).  Pass 1 cuts each run of
 * n into C chunks and reduces each chunk to a (value, index) candidate: a block a chunk
 * where runs are contiguous (pre = 1), a thread a (run, chunk) otherwise, neighbouring
 * threads on neighbouring runs.  Pass 2 merges each run's C candidates in chunk order, so
 * the result does not depend on the grid.
 */
#include <math.h>

#include "engine.cuh"

namespace gpudot
{

template <typename T> struct Elem {
    T re, im;
};

template <typename T> __device__ __forceinline__ Elem<T> load(const T *x, int64_t k, bool cx)
{
    Elem<T> e;
    e.re = cx ? x[2 * k] : x[k];
    e.im = cx ? x[2 * k + 1] : (T)0;
    return e;
}

/* Octave's order of complex values: magnitude, then argument with -pi as pi */
template <typename T> __device__ __forceinline__ T arg_of(Elem<T> e)
{
    T a = atan2(e.im, e.re);
    return a == (T)-M_PI ? (T)M_PI : a;
}

/* whether candidate a (index ia) beats b (index ib) for max (is_min: for min) */
template <typename T>
__device__ __forceinline__ bool beats(Elem<T> a, int64_t ia, Elem<T> b, int64_t ib, bool cx,
                                      bool is_min)
{
    T ka = cx ? hypot(a.re, a.im) : a.re, kb = cx ? hypot(b.re, b.im) : b.re;
    bool na = ka != ka || (cx && (a.re != a.re || a.im != a.im));
    bool nb = kb != kb || (cx && (b.re != b.re || b.im != b.im));
    if (na || nb)
        return na && nb ? ia < ib : nb;
    if (ka != kb)
        return is_min ? ka < kb : ka > kb;
    if (cx) {
        T ga = arg_of(a), gb = arg_of(b);
        if (ga != gb)
            return is_min ? ga < gb : ga > gb;
    }
    return ia < ib;
}

/* pass 1, contiguous runs: block (chunk c of run r) reduces its elements, thread 0 writes */
template <typename T>
__global__ void minmax_rows(const T *x, int64_t n, int64_t C, int64_t L, bool cx, bool is_min,
                            Elem<T> *pv, int64_t *pi)
{
    int64_t r = blockIdx.y, c = blockIdx.x;
    int64_t j0 = c * L, j1 = min(n, j0 + L);
    Elem<T> best{};
    int64_t bi = -1;
    for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        Elem<T> e = load(x, r * n + j, cx);
        if (bi < 0 || beats(e, j, best, bi, cx, is_min))
            best = e, bi = j;
    }
    __shared__ Elem<T> sv[kThreads];
    __shared__ int64_t si[kThreads];
    sv[threadIdx.x] = best;
    si[threadIdx.x] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            int64_t ob = si[threadIdx.x + s];
            if (ob >= 0 && (si[threadIdx.x] < 0 || beats(sv[threadIdx.x + s], ob, sv[threadIdx.x],
                                                         si[threadIdx.x], cx, is_min))) {
                sv[threadIdx.x] = sv[threadIdx.x + s];
                si[threadIdx.x] = ob;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        pv[r * C + c] = sv[0];
        pi[r * C + c] = si[0];
    }
}

/* pass 1, strided runs: thread (run o, chunk c); run o = (p, q) starts at p + q pre n */
template <typename T>
__global__ void minmax_cols(const T *x, int64_t pre, int64_t n, int64_t post, int64_t C, int64_t L,
                            bool cx, bool is_min, Elem<T> *pv, int64_t *pi)
{
    int64_t runs = pre * post;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < runs * C;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t o = t % runs, c = t / runs;
        int64_t p = o % pre, q = o / pre;
        int64_t base = p + q * pre * n;
        int64_t j0 = c * L, j1 = min(n, j0 + L);
        Elem<T> best{};
        int64_t bi = -1;
        for (int64_t j = j0; j < j1; j++) {
            Elem<T> e = load(x, base + j * pre, cx);
            if (bi < 0 || beats(e, j, best, bi, cx, is_min))
                best = e, bi = j;
        }
        pv[o * C + c] = best;
        pi[o * C + c] = bi;
    }
}

/* pass 2: each run's C candidates in chunk order; the index out is 1-based */
template <typename T>
__global__ void minmax_merge(const Elem<T> *pv, const int64_t *pi, int64_t runs, int64_t C, bool cx,
                             bool is_min, T *val, double *idx)
{
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < runs;
         o += (int64_t)gridDim.x * blockDim.x) {
        Elem<T> best = pv[o * C];
        int64_t bi = pi[o * C];
        for (int64_t c = 1; c < C; c++) {
            int64_t ci = pi[o * C + c];
            if (ci >= 0 && (bi < 0 || beats(pv[o * C + c], ci, best, bi, cx, is_min)))
                best = pv[o * C + c], bi = ci;
        }
        if (cx) {
            val[2 * o] = best.re;
            val[2 * o + 1] = best.im;
        } else {
            val[o] = best.re;
        }
        idx[o] = (double)(bi + 1);
    }
}

/* Chunks a run: enough candidates to fill the GPU (about 2^17 threads or 1024 blocks in
 * all), none shorter than 256 elements. */
static int64_t chunks_of(int64_t runs, int64_t n, bool rows)
{
    int64_t want = rows ? (1024 + runs - 1) / runs : ((int64_t)1 << 17) / (runs > 0 ? runs : 1);
    int64_t most = (n + 255) / 256;
    int64_t C = want < most ? want : most;
    return C < 1 ? 1 : C;
}

template <typename T>
static gpudot_status minmax(const T *x, int64_t pre, int64_t n, int64_t post, bool cx, bool is_min,
                            void *val_host, double *idx_host)
{
    int64_t runs = pre * post;
    bool rows = pre == 1 && runs <= 65535 && n >= 4096; /* a block a chunk: long runs only */
    int64_t C = chunks_of(runs, n, rows), L = (n + C - 1) / C;
    size_t vb = (size_t)runs * (cx ? 2 : 1) * sizeof(T);
    size_t pb = (size_t)runs * C * (sizeof(Elem<T>) + sizeof(int64_t));
    size_t ob = vb + (size_t)runs * sizeof(double);
    void *scratch = nullptr;
    CK(dev_malloc(&scratch, pb + ob + 16), "cudaMalloc (max/min)");
    Elem<T> *pv = (Elem<T> *)scratch;
    int64_t *pi = (int64_t *)(pv + runs * C);
    double *idx = (double *)(pi + runs * C);
    T *val = (T *)(idx + runs);
    if (rows) {
        dim3 grid((unsigned)C, (unsigned)runs);
        minmax_rows<T><<<grid, kThreads>>>(x, n, C, L, cx, is_min, pv, pi);
    } else {
        int64_t blocks = (runs * C + kThreads - 1) / kThreads;
        unsigned g = (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
        minmax_cols<T><<<g, kThreads>>>(x, pre, n, post, C, L, cx, is_min, pv, pi);
    }
    int64_t blocks = (runs + kThreads - 1) / kThreads;
    unsigned g = (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
    minmax_merge<T><<<g, kThreads>>>(pv, pi, runs, C, cx, is_min, val, idx);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpy(val_host, val, vb, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(idx_host, idx, (size_t)runs * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(scratch);
    if (e != cudaSuccess)
        return fail(e, "max/min kernel");
    return GPUDOT_OK;
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

gpudot_status gpudot_cuda_minmax(const void *x, int single, int cplx, int64_t pre, int64_t n,
                                 int64_t post, int is_min, void *val, double *idx)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK || pre * n * post == 0)
        return st;
    if (single)
        return minmax((const float *)x, pre, n, post, cplx != 0, is_min != 0, val, idx);
    return minmax((const double *)x, pre, n, post, cplx != 0, is_min != 0, val, idx);
}

} // extern "C"
