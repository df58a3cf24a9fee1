/*
 * Kernel-time benchmark of the CUDA engine on device-resident data, against ceilings of its
 * own and cuBLAS, in one run.  Writes CSV rows (columns: see bench/README.md) to stdout:
 *
 *   build/kernel_bench [max_log2n [min_log2n]] > kernel.csv
 *
 * Method: CUDA events around each launch, the launches queued behind a kernel that holds the
 * stream until they all are (GPU time, without the host's launch cost; see time_us);
 * fresh random data (never zeros); several input sets rotated so that sizes under the L2
 * cache do not measure the cache (at least 4x L2 of data in rotation); the result slot is
 * poisoned (NaN) before each timed set and checked after; median, 10th and 90th percentile
 * of many launches.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpudot_hooks.h"
#include "gpudot_math.h"

#include "bench_check.h"

/* Read-only ceiling: every byte of one or two arrays read once with 16-byte loads, a
 * grid-stride loop, one conditional atomic (never taken) so nothing is optimised away. */
__global__ void read_ceiling(const float4 *x, const float4 *y, size_t n4, unsigned long long *sink)
{
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = __ldg(x + i);
        acc += v.x + v.y + v.z + v.w;
        if (y) {
            float4 w = __ldg(y + i);
            acc += w.x + w.y + w.z + w.w;
        }
    }
    if (acc == 12345.678f)
        atomicAdd(sink, 1ull);
}

/* times (us) of reps launches of f(set), sets rotated, each between two events; batches of
 * kBatch launches queued behind hold_kernel, then released (hold = 0: f waits for the device
 * itself, as a pageable cudaMemcpy does, and each f is timed alone) */
static Stats time_us(int nsets, int reps, const std::function<void(int)> &f, int hold = 1)
{
    constexpr int kBatch = 32;
    static cudaEvent_t a[kBatch], b[kBatch];
    static int *flags = nullptr, *flags_d = nullptr; /* mapped: release, timed_out */
    if (!flags) {
        for (int i = 0; i < kBatch; i++) {
            CK(cudaEventCreate(&a[i]));
            CK(cudaEventCreate(&b[i]));
        }
        CK(cudaHostAlloc((void **)&flags, 2 * sizeof(int), cudaHostAllocMapped));
        CK(cudaHostGetDevicePointer((void **)&flags_d, flags, 0));
    }
    for (int s = 0; s < nsets; s++)
        f(s); /* warm up (first launches, lazy module loading, workspace growth) */
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r0 = 0; r0 < reps; r0 += hold ? kBatch : 1) {
        int nb = hold ? std::min(kBatch, reps - r0) : 1;
        ((volatile int *)flags)[0] = 0;
        ((volatile int *)flags)[1] = 0;
        if (hold)
            hold_kernel<<<1, 1>>>(flags_d, flags_d + 1);
        for (int i = 0; i < nb; i++) {
            CK(cudaEventRecord(a[i]));
            f((r0 + i) % nsets);
            CK(cudaEventRecord(b[i]));
        }
        ((volatile int *)flags)[0] = 1;
        CK(cudaEventSynchronize(b[nb - 1]));
        if (((volatile int *)flags)[1]) {
            fprintf(stderr, "kernel_bench: the queue was not held (a timed call waited on the "
                            "device?)\n");
            exit(1);
        }
        for (int i = 0; i < nb; i++) {
            float ms;
            CK(cudaEventElapsedTime(&ms, a[i], b[i]));
            t.push_back(ms * 1e3);
        }
    }
    CK(cudaGetLastError());
    return stats(t);
}

static const char *g_dev = "";

static void row(const char *op, const char *cls, const char *shape, double n, const Stats &s,
                double bytes)
{
    printf("kernel,%s,%s,%s,%.0f,%.3f,%.3f,%.3f,%.0f,%.1f,\"%s\"\n", op, cls, shape, n, s.med,
           s.p10, s.p90, bytes, bytes / s.med * 1e-3, g_dev);
    fflush(stdout);
}

static cublasHandle_t H;
static void *dres; /* results (device), 64 bytes */

/* one gpudot launch on device data: canonical shape nb = 1, runs of nk, na outputs */
static void gd(gpudot_op op, gpudot_type t, int cx, int cy, gpudot_accum acc, int pk, const void *x,
               const void *y, int64_t nk, int64_t na, int64_t ax, void *out)
{
    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    r.op = op, r.pk = pk, r.p = pk == GD_P_ONE ? 1 : pk == GD_P_INF ? INFINITY : 2;
    r.type = t, r.cx = cx, r.cy = cy;
    r.x = x, r.y = y;
    r.nb = 1, r.nk = nk, r.na = na;
    r.bx = 1, r.kx = nk, r.ax = ax;
    r.by = 1, r.ky = nk, r.ay = na;
    r.accum = acc;
    r.out = out;
    if (gpudot_cuda_reduce_dev(&r) != GPUDOT_OK) {
        fprintf(stderr, "gpudot: %s\n", gpudot_cuda_last_error());
        exit(1);
    }
}

/* "exact": the whole engine call (the device's digits, the host's rounding), its result
 * put where check_result reads it */
static void exact_call(gpudot_type t, const void *x, const void *y, int64_t n)
{
    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    double out[2];
    r.op = GPUDOT_OP_DOT, r.type = t, r.x = x, r.y = y, r.x_dev = r.y_dev = 1;
    r.nb = 1, r.nk = n, r.na = 1, r.bx = r.by = r.ax = r.ay = 1, r.kx = r.ky = n;
    r.accum = GPUDOT_ACC_EXACT;
    r.out = out;
    if (gpudot_cuda_dot(&r, nullptr) != GPUDOT_OK) {
        fprintf(stderr, "gpudot: %s\n", gpudot_cuda_last_error());
        exit(1);
    }
    CK(cudaMemcpy(dres, out, t == GPUDOT_F64 ? 8 : 4, cudaMemcpyHostToDevice));
}

/* native's whole call: the launch, then its result copied to the host */
static void native_call(gpudot_type t, const void *x, const void *y, int64_t n)
{
    double v;
    gd(GPUDOT_OP_DOT, t, 0, 0, GPUDOT_ACC_NATIVE, 0, x, y, n, 1, 1, dres);
    CK(cudaMemcpy(&v, dres, t == GPUDOT_F64 ? 8 : 4, cudaMemcpyDeviceToHost));
}

/* A whole call of op in mode acc over na columns of nk (x broadcast where ax = 1), its
 * results in host memory: the batched shapes' "exact" and its native peer */
static void host_call(gpudot_op op, gpudot_type t, gpudot_accum acc, const void *x, const void *y,
                      int64_t nk, int64_t na, int64_t ax, void *hout)
{
    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    r.op = op, r.type = t, r.x = x, r.y = y, r.x_dev = r.y_dev = 1;
    r.nb = 1, r.nk = nk, r.na = na, r.bx = r.by = 1, r.kx = r.ky = nk, r.ax = ax, r.ay = na;
    r.accum = acc;
    r.out = hout;
    if (gpudot_cuda_dot(&r, nullptr) != GPUDOT_OK) {
        fprintf(stderr, "gpudot: %s\n", gpudot_cuda_last_error());
        exit(1);
    }
}

/* reads back the first result and fails loudly if it is NaN (poisoned, or a fallback) */
static void check_result(const char *what, int dbl)
{
    double v;
    float f;
    CK(cudaDeviceSynchronize());
    if (dbl) {
        CK(cudaMemcpy(&v, dres, 8, cudaMemcpyDeviceToHost));
    } else {
        CK(cudaMemcpy(&f, dres, 4, cudaMemcpyDeviceToHost));
        v = f;
    }
    if (v != v) {
        fprintf(stderr, "kernel_bench: %s left a NaN result\n", what);
        exit(1);
    }
}

static void poison()
{
    CK(cudaMemset(dres, 0xff, 64)); /* all-ones bits: NaN in float and double */
}

static int nsets_for(size_t bytes_per_set, size_t l2, size_t fr)
{
    int ns = (int)std::max<size_t>(2, std::min<size_t>(16, 4 * l2 / bytes_per_set + 1));
    while (ns > 2 && ns * bytes_per_set > fr / 3)
        ns--;
    return ns;
}

static void fill(void *p, size_t bytes, int dbl, unsigned seed)
{
    if (dbl)
        fill_d<<<1024, 256>>>((double *)p, bytes / 8, seed);
    else
        fill_f<<<1024, 256>>>((float *)p, bytes / 4, seed);
}

/* A/B runs: KERNEL_BENCH_ONLY="a,b": only the rows whose op starts with a or b */
static bool wanted(const char *op)
{
    const char *only = getenv("KERNEL_BENCH_ONLY");
    if (!only || !*only)
        return true;
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && !strncmp(op, p, len))
            return true;
        p += len + (e ? 1 : 0);
    }
    return false;
}

/* One size and class of the vector cases: its operand sets and its timers. */
struct VecCase {
    const cudaDeviceProp &prop;
    unsigned long long *sink;
    size_t n, bytes;
    int dbl, nsets, reps, nI;
    gpudot_type t;
    const char *cls;
    char shape[32];
    std::vector<void *> xs, ys;

    /* a gpudot or cuBLAS case, its result checked */
    void T(const char *op, double nbytes, const std::function<void(int)> &f)
    {
        if (!wanted(op))
            return;
        poison();
        Stats s = time_us(nsets, reps, f);
        check_result(op, dbl);
        row(op, cls, shape, (double)n, s, nbytes);
    }
    /* the same, each call timed alone, the result on the host before it returns (whole
     * calls: "exact" rounds on the host; its native peer copies its result back) */
    void W(const char *op, double nbytes, const std::function<void(int)> &f)
    {
        if (!wanted(op))
            return;
        poison();
        Stats s = time_us(nsets, reps, f, 0);
        check_result(op, dbl);
        row(op, cls, shape, (double)n, s, nbytes);
    }
    /* a ceiling (no result) */
    void C(const char *op, double nbytes, const std::function<void(int)> &f)
    {
        if (!wanted(op))
            return;
        Stats s = time_us(nsets, reps, f);
        row(op, cls, shape, (double)n, s, nbytes);
    }
};

static void real_cases(VecCase &v)
{
    size_t n = v.n, bytes = v.bytes;
    gpudot_type t = v.t;
    int dbl = v.dbl, nI = v.nI;
    auto &xs = v.xs, &ys = v.ys;
    unsigned long long *sink = v.sink;
    int g = v.prop.multiProcessorCount * 8;
    v.C("read_ceiling_1", bytes,
        [&](int s) { read_ceiling<<<g, 256>>>((const float4 *)xs[s], nullptr, bytes / 16, sink); });
    v.C("read_ceiling_2", 2.0 * bytes, [&](int s) {
        read_ceiling<<<g, 256>>>((const float4 *)xs[s], (const float4 *)ys[s], bytes / 16, sink);
    });
    const char *accn[] = {"native", "double", "compensated"};
    char name[64];
    for (int a = 0; a < 3; a++) {
        snprintf(name, sizeof name, "gdot_%s", accn[a]);
        v.T(name, 2.0 * bytes, [&](int s) {
            gd(GPUDOT_OP_DOT, t, 0, 0, (gpudot_accum)a, 0, xs[s], ys[s], n, 1, 1, dres);
        });
    }
    v.T(dbl ? "cublasDdot" : "cublasSdot", 2.0 * bytes, [&](int s) {
        if (dbl)
            cublasDdot(H, nI, (double *)xs[s], 1, (double *)ys[s], 1, (double *)dres);
        else
            cublasSdot(H, nI, (float *)xs[s], 1, (float *)ys[s], 1, (float *)dres);
    });
    int pks[] = {GD_P_TWO, GD_P_ONE, GD_P_INF};
    const char *pkn[] = {"2", "1", "Inf"};
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "gnorm_p%s_double", pkn[k]);
        v.T(name, bytes, [&](int s) {
            gd(GPUDOT_OP_NORM, t, 0, 0, GPUDOT_ACC_DOUBLE, pks[k], xs[s], nullptr, n, 1, 1, dres);
        });
    }
    v.T("gnorm_p2_native", bytes, [&](int s) {
        gd(GPUDOT_OP_NORM, t, 0, 0, GPUDOT_ACC_NATIVE, GD_P_TWO, xs[s], nullptr, n, 1, 1, dres);
    });
    v.T("gnorm_p2_compensated", bytes, [&](int s) {
        gd(GPUDOT_OP_NORM, t, 0, 0, GPUDOT_ACC_COMP, GD_P_TWO, xs[s], nullptr, n, 1, 1, dres);
    });
    v.T(dbl ? "cublasDnrm2" : "cublasSnrm2", bytes, [&](int s) {
        if (dbl)
            cublasDnrm2(H, nI, (double *)xs[s], 1, (double *)dres);
        else
            cublasSnrm2(H, nI, (float *)xs[s], 1, (float *)dres);
    });
    for (int a = 0; a < 3; a++) {
        snprintf(name, sizeof name, "gcosine_%s", accn[a]);
        v.T(name, 2.0 * bytes, [&](int s) {
            gd(GPUDOT_OP_COS, t, 0, 0, (gpudot_accum)a, 0, xs[s], ys[s], n, 1, 1, dres);
        });
    }
    v.W("gdot_exact", 2.0 * bytes, [&](int s) { exact_call(t, xs[s], ys[s], n); });
    v.W("gdot_native_call", 2.0 * bytes, [&](int s) { native_call(t, xs[s], ys[s], n); });
}

/* After the others: the same data with products over most of the exponent range
 * (elements times 2^k, |k| <= 450 for doubles, 40 for singles: native's sums cannot
 * overflow), "exact" beside native on it. */
static void wide_cases(VecCase &v)
{
    size_t n = v.n, bytes = v.bytes;
    gpudot_type t = v.t;
    int dbl = v.dbl;
    auto &xs = v.xs, &ys = v.ys;
    for (int s = 0; s < v.nsets; s++) {
        if (dbl) {
            spread_exponents<<<1024, 256>>>((double *)xs[s], n, 450);
            spread_exponents<<<1024, 256>>>((double *)ys[s], n, 450);
        } else {
            spread_exponents<<<1024, 256>>>((float *)xs[s], n, 40);
            spread_exponents<<<1024, 256>>>((float *)ys[s], n, 40);
        }
    }
    CK(cudaDeviceSynchronize());
    v.W("gdot_exact_wide", 2.0 * bytes, [&](int s) { exact_call(t, xs[s], ys[s], n); });
    v.W("gdot_native_call_wide", 2.0 * bytes, [&](int s) { native_call(t, xs[s], ys[s], n); });
}

/* n complex elements: 2n scalars an operand */
static void complex_cases(VecCase &v)
{
    size_t n = v.n, bytes = v.bytes;
    gpudot_type t = v.t;
    int dbl = v.dbl, nI = v.nI;
    auto &xs = v.xs, &ys = v.ys;
    v.T("gdot_complex_double", 4.0 * bytes, [&](int s) {
        gd(GPUDOT_OP_DOT, t, 1, 1, GPUDOT_ACC_DOUBLE, 0, xs[s], ys[s], n, 1, 1, dres);
    });
    v.T("gdot_complex_native", 4.0 * bytes, [&](int s) {
        gd(GPUDOT_OP_DOT, t, 1, 1, GPUDOT_ACC_NATIVE, 0, xs[s], ys[s], n, 1, 1, dres);
    });
    v.T(dbl ? "cublasZdotc" : "cublasCdotc", 4.0 * bytes, [&](int s) {
        if (dbl)
            cublasZdotc(H, nI, (cuDoubleComplex *)xs[s], 1, (cuDoubleComplex *)ys[s], 1,
                        (cuDoubleComplex *)dres);
        else
            cublasCdotc(H, nI, (cuComplex *)xs[s], 1, (cuComplex *)ys[s], 1, (cuComplex *)dres);
    });
    v.T("gnorm_complex_p2_double", 2.0 * bytes, [&](int s) {
        gd(GPUDOT_OP_NORM, t, 1, 0, GPUDOT_ACC_DOUBLE, GD_P_TWO, xs[s], nullptr, n, 1, 1, dres);
    });
    v.T(dbl ? "cublasDznrm2" : "cublasScnrm2", 2.0 * bytes, [&](int s) {
        if (dbl)
            cublasDznrm2(H, nI, (cuDoubleComplex *)xs[s], 1, (double *)dres);
        else
            cublasScnrm2(H, nI, (cuComplex *)xs[s], 1, (float *)dres);
    });
    v.T("gcosine_complex_double", 4.0 * bytes, [&](int s) {
        gd(GPUDOT_OP_COS, t, 1, 1, GPUDOT_ACC_DOUBLE, 0, xs[s], ys[s], n, 1, 1, dres);
    });
}

static void vectors(const cudaDeviceProp &prop, int minlog, int maxlog, unsigned long long *sink)
{
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    for (int log = minlog; log <= maxlog; log += log < 20 ? 2 : 1) {
        size_t n = (size_t)1 << log;
        for (int dbl = 0; dbl < 2; dbl++) {
            size_t bytes = n * (dbl ? 8 : 4);
            /* complex sets hold 2n scalars; real ops use the first n of them */
            int cplx_ok = log <= 28;
            size_t alloc = cplx_ok ? 2 * bytes : bytes;
            if (2 * alloc * 2 > fr * 0.8)
                continue;
            int nsets = nsets_for(2 * alloc, prop.l2CacheSize, fr);
            VecCase v{prop,
                      sink,
                      n,
                      bytes,
                      dbl,
                      nsets,
                      log <= 22   ? 300
                      : log <= 26 ? 60
                                  : 15,
                      (int)std::min<size_t>(n, INT32_MAX),
                      dbl ? GPUDOT_F64 : GPUDOT_F32,
                      dbl ? "double" : "single",
                      "",
                      std::vector<void *>(nsets),
                      std::vector<void *>(nsets)};
            snprintf(v.shape, sizeof v.shape, "2^%d", log);
            for (int s = 0; s < nsets; s++) {
                CK(cudaMalloc(&v.xs[s], alloc));
                CK(cudaMalloc(&v.ys[s], alloc));
                fill(v.xs[s], alloc, dbl, 17 * s + 1);
                fill(v.ys[s], alloc, dbl, 31 * s + 7);
            }
            CK(cudaDeviceSynchronize());
            real_cases(v);
            if (cplx_ok)
                complex_cases(v);
            wide_cases(v);
            for (int s = 0; s < nsets; s++) {
                cudaFree(v.xs[s]);
                cudaFree(v.ys[s]);
            }
        }
    }
}

/* Batched columns: na outputs of runs of nk (gdot of matched columns, gcosine), and one
 * query (a single column broadcast) against na columns. */
static void batched(const cudaDeviceProp &prop, unsigned long long *sink)
{
    struct Shape {
        const char *name;
        int64_t nk, na;
        int query;
    } shapes[] = {{"tall_2^24x8", (int64_t)1 << 24, 8, 0},
                  {"square_4096x4096", 4096, 4096, 0},
                  {"wide_64x2^21", 64, (int64_t)1 << 21, 0},
                  {"query_768x10^6", 768, 1000000, 1}};
    void *out;
    CK(cudaMalloc(&out, (size_t)8 << 21));
    for (auto &sh : shapes) {
        for (int dbl = 0; dbl < 2; dbl++) {
            if (sh.query && dbl)
                continue; /* the embedding case is single */
            size_t es = dbl ? 8 : 4;
            size_t ybytes = (size_t)(sh.nk * sh.na) * es;
            size_t xbytes = sh.query ? (size_t)sh.nk * es : ybytes;
            size_t fr, tot;
            CK(cudaMemGetInfo(&fr, &tot));
            int nsets = nsets_for(xbytes + ybytes, prop.l2CacheSize, fr);
            std::vector<void *> xs(nsets), ys(nsets);
            for (int s = 0; s < nsets; s++) {
                CK(cudaMalloc(&xs[s], xbytes));
                CK(cudaMalloc(&ys[s], ybytes));
                fill(xs[s], xbytes, dbl, 5 * s + 3);
                fill(ys[s], ybytes, dbl, 11 * s + 5);
            }
            CK(cudaDeviceSynchronize());
            const char *cls = dbl ? "double" : "single";
            double bytes = (double)(xbytes + ybytes);
            int reps = bytes > 1e9 ? 15 : 60;
            int g = prop.multiProcessorCount * 8;
            Stats c = time_us(nsets, reps, [&](int s) {
                read_ceiling<<<g, 256>>>((const float4 *)ys[s],
                                         sh.query ? nullptr : (const float4 *)xs[s], ybytes / 16,
                                         sink);
            });
            row(sh.query ? "read_ceiling_1" : "read_ceiling_2", cls, sh.name,
                (double)(sh.nk * sh.na), c, bytes);
            gpudot_type t = dbl ? GPUDOT_F64 : GPUDOT_F32;
            int64_t ax = sh.query ? 1 : sh.na;
            for (int op = 0; op < 2; op++) {
                gpudot_op o = op ? GPUDOT_OP_COS : GPUDOT_OP_DOT;
                CK(cudaMemset(out, 0xff, (size_t)sh.na * es));
                Stats s = time_us(nsets, reps, [&](int k) {
                    gd(o, t, 0, 0, GPUDOT_ACC_DOUBLE, 0, xs[k], ys[k], sh.nk, sh.na, ax, out);
                });
                std::vector<char> h((size_t)sh.na * es);
                CK(cudaMemcpy(h.data(), out, h.size(), cudaMemcpyDeviceToHost));
                for (int64_t i = 0; i < sh.na; i++) {
                    double v = dbl ? ((double *)h.data())[i] : ((float *)h.data())[i];
                    if (v != v) {
                        fprintf(stderr, "kernel_bench: %s %s output %lld is NaN\n", sh.name,
                                op ? "gcosine" : "gdot", (long long)i);
                        exit(1);
                    }
                }
                row(op ? "gcosine_double" : "gdot_double", cls, sh.name, (double)(sh.nk * sh.na), s,
                    bytes);
            }
            /* whole calls into host memory, "exact" beside native */
            std::vector<char> hout((size_t)sh.na * es);
            const char *calls[2][2] = {{"gdot_native_call", "gdot_exact_call"},
                                       {"gcosine_native_call", "gcosine_exact_call"}};
            for (int op = 0; op < 2 && wanted(calls[op][0]); op++) {
                gpudot_op o = op ? GPUDOT_OP_COS : GPUDOT_OP_DOT;
                for (int ex = 0; ex < 2; ex++) {
                    gpudot_accum acc = ex ? GPUDOT_ACC_EXACT : GPUDOT_ACC_NATIVE;
                    Stats s = time_us(
                        nsets, reps > 10 ? 10 : reps,
                        [&](int k) {
                            host_call(o, t, acc, xs[k], ys[k], sh.nk, sh.na, ax, hout.data());
                        },
                        0);
                    row(calls[op][ex], cls, sh.name, (double)(sh.nk * sh.na), s, bytes);
                }
            }
            if (sh.query) { /* the cuBLAS way to score a query: E' q with gemv */
                float one = 1, zero = 0;
                float *d_one, *d_zero;
                CK(cudaMalloc(&d_one, 4));
                CK(cudaMalloc(&d_zero, 4));
                CK(cudaMemcpy(d_one, &one, 4, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(d_zero, &zero, 4, cudaMemcpyHostToDevice));
                Stats s = time_us(nsets, reps, [&](int k) {
                    cublasSgemv(H, CUBLAS_OP_T, (int)sh.nk, (int)sh.na, d_one, (float *)ys[k],
                                (int)sh.nk, (float *)xs[k], 1, d_zero, (float *)out, 1);
                });
                row("cublasSgemv_T", cls, sh.name, (double)(sh.nk * sh.na), s, bytes);
                cudaFree(d_one);
                cudaFree(d_zero);
            }
            for (int s = 0; s < nsets; s++) {
                cudaFree(xs[s]);
                cudaFree(ys[s]);
            }
        }
    }
    cudaFree(out);
}

/* Copy ceilings: device-to-device (bytes read + written), pinned and pageable host to
 * device. */
static void copies()
{
    size_t big = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, big));
    CK(cudaMalloc(&b, big));
    fill(a, big, 0, 1);
    Stats s =
        time_us(1, 20, [&](int) { CK(cudaMemcpyAsync(b, a, big, cudaMemcpyDeviceToDevice)); });
    row("copy_d2d", "bytes", "1GiB", (double)big, s, 2.0 * big);
    size_t hb = (size_t)256 << 20;
    void *pinned;
    CK(cudaHostAlloc(&pinned, hb, cudaHostAllocDefault));
    memset(pinned, 1, hb);
    s = time_us(1, 20, [&](int) { CK(cudaMemcpyAsync(a, pinned, hb, cudaMemcpyHostToDevice)); });
    row("copy_h2d_pinned", "bytes", "256MiB", (double)hb, s, (double)hb);
    cudaFreeHost(pinned);
    std::vector<char> pageable(hb, 1);
    s = time_us(
        1, 10, [&](int) { CK(cudaMemcpy(a, pageable.data(), hb, cudaMemcpyHostToDevice)); }, 0);
    row("copy_h2d_pageable", "bytes", "256MiB", (double)hb, s, (double)hb);
    cudaFree(a);
    cudaFree(b);
}

int main(int argc, char **argv)
{
    int maxlog = argc > 1 ? atoi(argv[1]) : 30;
    int minlog = argc > 2 ? atoi(argv[2]) : 10;
    /* A/B runs: launches plan for at most this many blocks (the engine's test hook) */
    if (const char *b = getenv("KERNEL_BENCH_BLOCKS"))
        gpudot_cuda_set_tile_from(0, atoi(b));
    /* and warp columns read from memory alone (no columns_staged) */
    if (const char *s = getenv("KERNEL_BENCH_STAGED"))
        gpudot_cuda_set_staged(atoi(s));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    static char dev[300];
    int drv = 0;
    cudaDriverGetVersion(&drv);
    snprintf(dev, sizeof dev, "%s (%d SMs; driver %d.%d)", prop.name, prop.multiProcessorCount,
             drv / 1000, drv % 1000 / 10);
    g_dev = dev;
    printf("section,op,class,shape,n,median_us,p10_us,p90_us,bytes,GBps,device\n");
    if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE);
    unsigned long long *sink;
    CK(cudaMalloc(&sink, 8));
    CK(cudaMalloc(&dres, 64));
    /* a third argument "vectors" or "batched": those rows only (A/B runs) */
    const char *only = argc > 3 ? argv[3] : "";
    if (!*only)
        copies();
    if (strcmp(only, "batched"))
        vectors(prop, minlog, maxlog, sink);
    if (strcmp(only, "vectors"))
        batched(prop, sink);
    cublasDestroy(H);
    return 0;
}
