/*
 * Can the GPU read Octave's pageable arrays itself, with no pack at all (issue 5, target 6)?
 * Where the driver has HMM (heterogeneous memory management: cudaDevAttrPageableMemoryAccess),
 * a kernel may dereference malloc'd memory.  This probe says whether the device machine has
 * it and, if so, what a dot of two malloc'd single vectors of 2^22 costs read that way:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench bench/hmm_probe.cu -o hmm_probe && ./hmm_probe
 * Legs (each on fresh arrays): the first kernel over them, the next ones; then the CPU reads
 * them again (were the pages moved to the GPU?) and the kernel runs once more.  With
 * cudaMemAdvise (preferred location: the CPU; accessed by: the GPU) before the first kernel,
 * the advice's own cost timed.  Times in us (host clock around launch + sync); the result of
 * every kernel checked against the CPU's sum.
 */
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/utsname.h>

#include <cuda_runtime.h>

#include "bench_check.h"

using clk = std::chrono::steady_clock;

__global__ void dot_kernel(const float4 *x, const float4 *y, size_t n4, double *out)
{
    double acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 a = x[i], b = y[i];
        acc += (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
    }
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, acc);
}

static double us_since(clk::time_point t0)
{
    return std::chrono::duration<double, std::micro>(clk::now() - t0).count();
}

int main()
{
    struct utsname u;
    uname(&u);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int pma = 0, pt = 0, cma = 0;
    CK(cudaDeviceGetAttribute(&pma, cudaDevAttrPageableMemoryAccess, 0));
    CK(cudaDeviceGetAttribute(&pt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0));
    CK(cudaDeviceGetAttribute(&cma, cudaDevAttrConcurrentManagedAccess, 0));
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    printf("# %s, driver API %d, kernel %s\n", prop.name, drv, u.release);
    printf("# pageableMemoryAccess %d, usesHostPageTables %d, concurrentManagedAccess %d\n", pma, pt, cma);
    if (!pma) {
        printf("# no HMM here: a kernel cannot read pageable host memory; nothing to time\n");
        return 0;
    }
    const size_t n = (size_t)1 << 22;
    double *out;
    CK(cudaMallocManaged(&out, sizeof(double)));
    for (int advise = 0; advise < 2; advise++) {
        float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);
        double want = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
            y[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
            want += (double)x[i] * y[i];
        }
        if (advise) {
            cudaMemLocation cpu = {cudaMemLocationTypeHost, 0}, gpu = {cudaMemLocationTypeDevice, 0};
            auto t0 = clk::now();
            CK(cudaMemAdvise(x, n * 4, cudaMemAdviseSetPreferredLocation, cpu));
            CK(cudaMemAdvise(y, n * 4, cudaMemAdviseSetPreferredLocation, cpu));
            CK(cudaMemAdvise(x, n * 4, cudaMemAdviseSetAccessedBy, gpu));
            CK(cudaMemAdvise(y, n * 4, cudaMemAdviseSetAccessedBy, gpu));
            printf("advise (preferred CPU, accessed by GPU), both arrays: %.1f us\n", us_since(t0));
        }
        auto run = [&](const char *what) {
            *out = 0;
            auto t0 = clk::now();
            dot_kernel<<<prop.multiProcessorCount * 4, 256>>>((const float4 *)x, (const float4 *)y, n / 4, out);
            CK(cudaDeviceSynchronize());
            double t = us_since(t0);
            printf("%s %-28s %10.1f us  (%.1f GB/s)  %s\n", advise ? "advised" : "default", what, t,
                   2.0 * n * 4 / t * 1e-3, std::fabs(*out - want) <= 1e-6 * std::fabs(want) + 1e-6 ? "ok" : "WRONG");
        };
        run("first kernel");
        for (int r = 0; r < 3; r++)
            run("again");
        auto t0 = clk::now();
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += x[i] + y[i];
        printf("%s CPU reads both arrays after: %.1f us (%s)\n", advise ? "advised" : "default", us_since(t0),
               s == 12345.0 ? "!" : "");
        run("after the CPU read them");
        t0 = clk::now();
        for (size_t i = 0; i < n; i += 1024)
            x[i] = x[i];
        printf("%s CPU writes one float every 4 KiB of x: %.1f us\n", advise ? "advised" : "default", us_since(t0));
        run("after the CPU wrote x");
        free(x);
        free(y);
    }
    CK(cudaFree(out));
    return 0;
}
