/*
 * Kernel-time benchmark of the CUDA engine on device-resident data, against a read-only
 * ceiling kernel of its own and cuBLAS in device pointer mode, in one run.
 *
 *   bench/kernel_bench [max_log2n [min_log2n]]   prints: op class n us GB/s (median)
 *
 * CUDA events around each launch; fresh random data (never zeros); several input sets
 * rotated so that sizes under the L2 cache do not measure the cache.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpudot.h"
#include "gpudot_math.h"

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* Read-only ceiling: every element read once with 16-byte loads, one atomic per block
 * (integer adds of a checksum, so nothing is optimised away). */
__global__ void read_ceiling(const float4 *x, size_t n4, unsigned long long *sink)
{
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = __ldg(x + i);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.678f)
        atomicAdd(sink, 1ull);
}

__global__ void fill(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)(i * 2654435761u) ^ seed;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        p[i] = (float)(h & 0xffffff) / 16777216.0f - 0.5f;
    }
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* median time (us) of reps calls of f(set), sets rotated */
static double time_us(int nsets, int reps, const std::function<void(int)> &f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int s = 0; s < nsets; s++)
        f(s); /* warm up */
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(a));
        f(r % nsets);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e3);
    }
    CK(cudaGetLastError());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

int main(int argc, char **argv)
{
    int maxlog = argc > 1 ? atoi(argv[1]) : 28;
    int minlog = argc > 2 ? atoi(argv[2]) : 20;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    printf("# device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);
    printf("%-22s %-6s %6s %10s %9s\n", "op", "class", "log2n", "us", "GB/s");
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    unsigned long long *sink;
    void *dres;
    CK(cudaMalloc(&sink, 8));
    CK(cudaMalloc(&dres, 64));

    for (int log = minlog; log <= maxlog; log += (log < 16 ? 6 : log < 20 ? 4 : 2)) {
        size_t n = (size_t)1 << log;
        for (int dbl = 0; dbl < 2; dbl++) {
            size_t es = dbl ? 8 : 4, bytes = n * es;
            /* at least 2 sets, enough to exceed 4x L2, within 1/3 of free memory */
            int nsets = (int)std::max<size_t>(2, std::min<size_t>(16, (size_t)4 * prop.l2CacheSize / bytes + 1));
            while (nsets > 2 && 2 * nsets * bytes > fr / 3)
                nsets--;
            if (2 * nsets * bytes > fr * 0.8)
                continue;
            std::vector<void *> xs(nsets), ys(nsets);
            for (int s = 0; s < nsets; s++) {
                CK(cudaMalloc(&xs[s], bytes));
                CK(cudaMalloc(&ys[s], bytes));
                fill<<<1024, 256>>>((float *)xs[s], bytes / 4, 17 * s + 1);
                fill<<<1024, 256>>>((float *)ys[s], bytes / 4, 31 * s + 7);
                /* doubles from float bit patterns would be odd values: refill as doubles */
            }
            if (dbl) { /* proper random doubles: convert a float fill */
                std::vector<float> hf(std::min<size_t>(n, (size_t)1 << 20));
                for (size_t i = 0; i < hf.size(); i++)
                    hf[i] = (float)rand() / RAND_MAX - 0.5f;
                std::vector<double> hd(hf.begin(), hf.end());
                for (int s = 0; s < nsets; s++)
                    for (size_t o = 0; o < n; o += hd.size()) {
                        size_t c = std::min(hd.size(), n - o);
                        CK(cudaMemcpy((double *)xs[s] + o, hd.data(), c * 8, cudaMemcpyHostToDevice));
                        CK(cudaMemcpy((double *)ys[s] + o, hd.data() + (s % 7), (c > 7 ? c - 7 : c) * 8, cudaMemcpyHostToDevice));
                    }
            }
            CK(cudaDeviceSynchronize());
            int reps = log <= 22 ? 200 : log <= 26 ? 50 : 20;
            const char *cls = dbl ? "double" : "single";
            auto report = [&](const char *op, double us, double nbytes) {
                printf("%-22s %-6s %6d %10.2f %9.1f\n", op, cls, log, us, nbytes / us * 1e-3);
                fflush(stdout);
            };
            report("read_ceiling(x)", time_us(nsets, reps, [&](int s) {
                       read_ceiling<<<prop.multiProcessorCount * 8, 256>>>((const float4 *)xs[s], bytes / 16, sink);
                   }), bytes);
            auto req = [&](gpudot_op op, gpudot_accum acc, int pk, int s) {
                gpudot_dot_req r;
                memset(&r, 0, sizeof r);
                r.op = op, r.pk = pk, r.p = pk == GD_P_ONE ? 1 : pk == GD_P_INF ? INFINITY : 2;
                r.type = dbl ? GPUDOT_F64 : GPUDOT_F32;
                r.x = xs[s], r.y = ys[s];
                r.nb = 1, r.nk = (int64_t)n, r.na = 1;
                r.bx = r.ax = r.by = r.ay = 1;
                r.kx = r.ky = (int64_t)n;
                r.accum = acc;
                r.out = dres;
                if (gpudot_cuda_reduce_dev(&r) != GPUDOT_OK) {
                    fprintf(stderr, "gpudot: %s\n", gpudot_cuda_last_error());
                    exit(1);
                }
            };
            const char *accn[] = {"native", "double", "compensated"};
            char name[64];
            for (int a = 0; a < 3; a++) {
                snprintf(name, sizeof name, "gdot %s", accn[a]);
                report(name, time_us(nsets, reps, [&](int s) { req(GPUDOT_OP_DOT, (gpudot_accum)a, 0, s); }), 2.0 * bytes);
            }
            report(dbl ? "cublasDdot" : "cublasSdot", time_us(nsets, reps, [&](int s) {
                       if (dbl)
                           cublasDdot(h, (int)std::min<size_t>(n, INT32_MAX), (double *)xs[s], 1, (double *)ys[s], 1, (double *)dres);
                       else
                           cublasSdot(h, (int)std::min<size_t>(n, INT32_MAX), (float *)xs[s], 1, (float *)ys[s], 1, (float *)dres);
                   }), 2.0 * bytes);
            int pks[] = {GD_P_TWO, GD_P_ONE, GD_P_INF};
            const char *pkn[] = {"2", "1", "Inf"};
            for (int k = 0; k < 3; k++) {
                snprintf(name, sizeof name, "gnorm p=%s double", pkn[k]);
                report(name, time_us(nsets, reps, [&](int s) { req(GPUDOT_OP_NORM, GPUDOT_ACC_DOUBLE, pks[k], s); }), bytes);
            }
            report("gnorm p=2 native", time_us(nsets, reps, [&](int s) { req(GPUDOT_OP_NORM, GPUDOT_ACC_NATIVE, GD_P_TWO, s); }), bytes);
            report(dbl ? "cublasDnrm2" : "cublasSnrm2", time_us(nsets, reps, [&](int s) {
                       if (dbl)
                           cublasDnrm2(h, (int)std::min<size_t>(n, INT32_MAX), (double *)xs[s], 1, (double *)dres);
                       else
                           cublasSnrm2(h, (int)std::min<size_t>(n, INT32_MAX), (float *)xs[s], 1, (float *)dres);
                   }), bytes);
            for (int a = 0; a < 3; a++) {
                snprintf(name, sizeof name, "gcosine %s", accn[a]);
                report(name, time_us(nsets, reps, [&](int s) { req(GPUDOT_OP_COS, (gpudot_accum)a, 0, s); }), 2.0 * bytes);
            }
            for (int s = 0; s < nsets; s++) {
                cudaFree(xs[s]);
                cudaFree(ys[s]);
            }
        }
    }
    cublasDestroy(h);
    return 0;
}
