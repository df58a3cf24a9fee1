/*
 * For bench/kernel_bench.cu: CK (call), the check of a CUDA call (a failure prints
 * where and why, and ends the program; the engine never exits, these are stand-alone
 * tools), stats (the median, 10th and 90th percentile of timings), hold_kernel, the queue
 * holder of the GPU timings, and the random fills.
 */
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct Stats {
    double med, p10, p90;
};

/* median, 10th and 90th percentile of v (not empty) */
static inline Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return {v[n / 2], v[n / 10], v[std::min(n - 1, n * 9 / 10)]};
}

/* Holds the stream until the host releases it (or 50 ms pass: a timed call that
 * synchronized the device, which no timed call should, would otherwise wait for it forever).
 * NVBench's method: the timed launches and their events are queued behind this kernel, so
 * the events time the GPU's work, not the host's launch cost, which on the H100 VM is
 * 3-4.5 us per launch and was inside every kernel row
 * before (a third of the time of a 12 us kernel). */
__global__ void hold_kernel(volatile int *release, int *timed_out)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (!*release) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 50000000ull) {
            *timed_out = 1;
            return;
        }
    }
}

/* uniform random in [-0.5, 0.5) from a hash of the index */
__global__ void fill_f(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)(i * 2654435761u) ^ seed;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        p[i] = (float)(h & 0xffffff) / 16777216.0f - 0.5f;
    }
}
/* p[i] times 2^k, k in [-span, span] by a hash of i: products over a wide exponent range */
template <typename T> __global__ void spread_exponents(T *p, size_t n, int span)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)(i * 2246822519u) ^ 0x9e3779b9u;
        h ^= h >> 15, h *= 0x85ebca6bu, h ^= h >> 13;
        p[i] = (T)ldexp((double)p[i], (int)(h % (unsigned)(2 * span + 1)) - span);
    }
}
__global__ void fill_d(double *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
        p[i] = (double)(h >> 11) / 9007199254740992.0 - 0.5;
    }
}
