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
 *
 * Complex values: Octave orders them by the host library's abs and arg, which are not
 * correctly rounded (glibc 2.36's hypot is an ulp off for 0.3% of random pairs, its atan2f
 * for 15%), so equal or nearly equal magnitudes can order differently on the device.  Each
 * candidate also carries its closest competitor's magnitude (the largest, for max, among
 * the elements of another value); a run whose winner is within kNearUlps of it, or that
 * holds a value half Inf, half NaN, is decided again on the host, with the library's
 * std::abs and std::arg, as Octave's max scans.
 */
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdlib>

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

/* A complex run is decided on the host when its winner's magnitude and its closest
 * competitor's are within this many ulps: the host's abs is within one ulp of the true
 * value, the device's (below) within two. */
constexpr int kNearUlps = 8;

/* A complex value's magnitude: singles in double, then rounded once (as glibc's hypotf
 * does: equal to Octave's abs on 10^7 singles tried); doubles by CUDA's hypot (2 ulps). */
__device__ __forceinline__ float mag(Elem<float> e)
{
    double r = e.re, i = e.im;
    return (float)sqrt(r * r + i * i);
}
__device__ __forceinline__ double mag(Elem<double> e)
{
    return hypot(e.re, e.im);
}

/* Octave's order of complex values: magnitude, then argument with -pi as pi (singles'
 * argument in double, then rounded once) */
__device__ __forceinline__ float arg_of(Elem<float> e)
{
    float a = (float)atan2((double)e.im, (double)e.re);
    return a == (float)-M_PI ? (float)M_PI : a;
}
__device__ __forceinline__ double arg_of(Elem<double> e)
{
    double a = atan2(e.im, e.re);
    return a == -M_PI ? M_PI : a;
}

template <typename T> __device__ __forceinline__ bool is_nan(Elem<T> e, bool cx)
{
    return e.re != e.re || (cx && e.im != e.im);
}

/* whether candidate a (index ia) beats b (index ib) for max (is_min: for min) */
template <typename T>
__device__ __forceinline__ bool beats(Elem<T> a, int64_t ia, Elem<T> b, int64_t ib, bool cx,
                                      bool is_min)
{
    T ka = cx ? mag(a) : a.re, kb = cx ? mag(b) : b.re;
    bool na = ka != ka || is_nan(a, cx);
    bool nb = kb != kb || is_nan(b, cx);
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

/* A chunk's (then a run's) candidate: its winner e at index i (-1: none yet); for complex
 * runs, near: the closest magnitude among the elements of another value (NaN: none), and
 * odd: whether an element is half Inf, half NaN (Octave's scan takes one such after its
 * first number for max, by its magnitude Inf: the host decides those runs). */
template <typename T> struct Cand {
    Elem<T> e;
    int64_t i;
    T near;
    bool odd;
};

template <typename T> __device__ __forceinline__ Cand<T> single_cand(Elem<T> e, int64_t i, bool cx)
{
    bool odd = cx && is_nan(e, cx) && (isinf(e.re) || isinf(e.im));
    return Cand<T>{e, i, (T)NAN, odd};
}

__device__ __forceinline__ bool same_bits(Elem<float> a, Elem<float> b)
{
    return __float_as_uint(a.re) == __float_as_uint(b.re) &&
           __float_as_uint(a.im) == __float_as_uint(b.im);
}
__device__ __forceinline__ bool same_bits(Elem<double> a, Elem<double> b)
{
    return __double_as_longlong(a.re) == __double_as_longlong(b.re) &&
           __double_as_longlong(a.im) == __double_as_longlong(b.im);
}

/* c takes in d's elements (in any order: beats breaks ties by index) */
template <typename T>
__device__ __forceinline__ void absorb(Cand<T> &c, const Cand<T> &d, bool cx, bool is_min)
{
    if (d.i < 0)
        return;
    if (c.i < 0) {
        c = d;
        return;
    }
    bool dw = beats(d.e, d.i, c.e, c.i, cx, is_min);
    if (cx) {
        Elem<T> w = dw ? d.e : c.e, l = dw ? c.e : d.e;
        T nr = is_min ? fmin(c.near, d.near) : fmax(c.near, d.near);
        if (!is_nan(l, cx) && !same_bits(l, w))
            nr = is_min ? fmin(nr, mag(l)) : fmax(nr, mag(l));
        c.near = nr;
        c.odd = c.odd || d.odd;
    }
    if (dw) {
        c.e = d.e;
        c.i = d.i;
    }
}

/* whether the host must decide a complex run: an odd element, or a winner's magnitude
 * within kNearUlps of its closest competitor's (Inf counted as the largest finite value) */
template <typename T> __device__ __forceinline__ bool undecided(const Cand<T> &c)
{
    if (c.odd)
        return true;
    if (c.i < 0 || is_nan(c.e, true) || c.near != c.near)
        return false;
    const T big = sizeof(T) == 4 ? (T)FLT_MAX : (T)DBL_MAX;
    const T eps = sizeof(T) == 4 ? (T)FLT_EPSILON : (T)DBL_EPSILON;
    T kw = fmin(mag(c.e), big), kn = fmin(c.near, big);
    return fabs(kw - kn) <= kNearUlps * eps * fmax(kw, kn);
}

/* pass 1, contiguous runs: block (chunk c of run r) reduces its elements, thread 0 writes */
template <typename T>
__global__ void minmax_rows(const T *x, int64_t n, int64_t C, int64_t L, bool cx, bool is_min,
                            Cand<T> *pc)
{
    int64_t r = blockIdx.y, c = blockIdx.x;
    int64_t j0 = c * L, j1 = min(n, j0 + L);
    Cand<T> best{{}, -1, (T)NAN, false};
    for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x)
        absorb(best, single_cand(load(x, r * n + j, cx), j, cx), cx, is_min);
    __shared__ Cand<T> sc[kThreads];
    sc[threadIdx.x] = best;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            absorb(sc[threadIdx.x], sc[threadIdx.x + s], cx, is_min);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        pc[r * C + c] = sc[0];
}

/* pass 1, strided runs: thread (run o, chunk c); run o = (p, q) starts at p + q pre n */
template <typename T>
__global__ void minmax_cols(const T *x, int64_t pre, int64_t n, int64_t post, int64_t C, int64_t L,
                            bool cx, bool is_min, Cand<T> *pc)
{
    int64_t runs = pre * post;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < runs * C;
         t += (int64_t)gridDim.x * blockDim.x) {
        int64_t o = t % runs, c = t / runs;
        int64_t p = o % pre, q = o / pre;
        int64_t base = p + q * pre * n;
        int64_t j0 = c * L, j1 = min(n, j0 + L);
        Cand<T> best{{}, -1, (T)NAN, false};
        for (int64_t j = j0; j < j1; j++)
            absorb(best, single_cand(load(x, base + j * pre, cx), j, cx), cx, is_min);
        pc[o * C + c] = best;
    }
}

/* pass 2: each run's C candidates in chunk order; the index out is 1-based; host[o] (complex
 * runs only): whether the host decides run o */
template <typename T>
__global__ void minmax_merge(const Cand<T> *pc, int64_t runs, int64_t C, bool cx, bool is_min,
                             T *val, double *idx, unsigned char *host)
{
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < runs;
         o += (int64_t)gridDim.x * blockDim.x) {
        Cand<T> best = pc[o * C];
        for (int64_t c = 1; c < C; c++)
            absorb(best, pc[o * C + c], cx, is_min);
        if (cx) {
            val[2 * o] = best.e.re;
            val[2 * o + 1] = best.e.im;
        } else {
            val[o] = best.e.re;
        }
        idx[o] = (double)(best.i + 1);
        if (cx)
            host[o] = undecided(best);
    }
}

/* Octave's a > b (is_min: a < b) for complex values (liboctave's oct-cmplx.h), with the
 * host library's abs and arg, as Octave's max calls them */
template <typename T> static bool octave_beats(std::complex<T> a, std::complex<T> b, bool is_min)
{
    T ax = std::abs(a), bx = std::abs(b);
    if (ax == bx) {
        T ay = std::arg(a), by = std::arg(b);
        const T pi = (T)M_PI, mpi = (T)-M_PI;
        if (ay == mpi) {
            if (by != mpi)
                return is_min ? pi < by : pi > by;
        } else if (by == mpi) {
            return is_min ? ay < pi : ay > pi;
        }
        return is_min ? ay < by : ay > by;
    }
    return is_min ? ax < bx : ax > bx;
}

/* Octave's max (is_min: min) scan of one complex run of n values, stride apart: leading
 * NaNs skipped, then each value that beats the one kept replaces it */
template <typename T>
static void octave_scan(const std::complex<T> *v, int64_t n, int64_t stride, bool is_min, T *val,
                        double *idx)
{
    auto nan = [](std::complex<T> z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
    int64_t i = 1, k = 0;
    std::complex<T> t = v[0];
    if (nan(t)) {
        while (i < n && nan(v[i * stride]))
            i++;
        if (i < n)
            t = v[i * stride], k = i;
    }
    for (; i < n; i++)
        if (octave_beats(v[i * stride], t, is_min))
            t = v[i * stride], k = i;
    val[0] = t.real();
    val[1] = t.imag();
    *idx = (double)(k + 1);
}

/* The runs the device left undecided (host[o]), decided on the host from a copy of their
 * values: the whole array's where they are many, else each run's own. */
template <typename T>
static cudaError_t decide_on_host(const T *x, int64_t pre, int64_t n, int64_t post, bool is_min,
                                  const unsigned char *host, T *val, double *idx)
{
    int64_t runs = pre * post, m = 0;
    for (int64_t o = 0; o < runs; o++)
        m += host[o];
    if (m == 0)
        return cudaSuccess;
    bool whole = m > 16 || m * n * 8 > pre * n * post;
    size_t esz = 2 * sizeof(T);
    std::complex<T> *h = (std::complex<T> *)malloc((size_t)(whole ? pre * n * post : n) * esz);
    if (!h)
        return cudaErrorMemoryAllocation;
    cudaError_t e = cudaSuccess;
    if (whole)
        e = cudaMemcpy(h, x, (size_t)(pre * n * post) * esz, cudaMemcpyDeviceToHost);
    for (int64_t o = 0; o < runs && e == cudaSuccess; o++) {
        if (!host[o])
            continue;
        int64_t base = o % pre + o / pre * pre * n;
        if (!whole)
            e = cudaMemcpy2D(h, esz, x + 2 * base, (size_t)pre * esz, esz, (size_t)n,
                             cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            octave_scan(whole ? h + base : h, n, whole ? pre : 1, is_min, val + 2 * o, idx + o);
    }
    free(h);
    return e;
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
    size_t cb = (size_t)runs * C * sizeof(Cand<T>);
    size_t ob = (size_t)runs * sizeof(double) + vb + (cx ? (size_t)runs : 0);
    void *scratch = nullptr;
    unsigned char *host = cx ? (unsigned char *)malloc((size_t)runs) : nullptr;
    if (cx && !host)
        return fail(cudaErrorMemoryAllocation, "max/min");
    cudaError_t e = dev_malloc(&scratch, cb + ob + 16);
    if (e != cudaSuccess) {
        free(host);
        return fail(e, "cudaMalloc (max/min)");
    }
    Cand<T> *pc = (Cand<T> *)scratch;
    double *idx = (double *)(pc + runs * C);
    T *val = (T *)(idx + runs);
    unsigned char *dhost = cx ? (unsigned char *)(val + runs * 2) : nullptr;
    if (rows) {
        dim3 grid((unsigned)C, (unsigned)runs);
        minmax_rows<T><<<grid, kThreads>>>(x, n, C, L, cx, is_min, pc);
    } else {
        int64_t blocks = (runs * C + kThreads - 1) / kThreads;
        unsigned g = (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
        minmax_cols<T><<<g, kThreads>>>(x, pre, n, post, C, L, cx, is_min, pc);
    }
    int64_t blocks = (runs + kThreads - 1) / kThreads;
    unsigned g = (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
    minmax_merge<T><<<g, kThreads>>>(pc, runs, C, cx, is_min, val, idx, dhost);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpy(val_host, val, vb, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(idx_host, idx, (size_t)runs * sizeof(double), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && cx)
        e = cudaMemcpy(host, dhost, (size_t)runs, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && cx)
        e = decide_on_host(x, pre, n, post, is_min, host, (T *)val_host, idx_host);
    cudaFree(scratch);
    free(host);
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
