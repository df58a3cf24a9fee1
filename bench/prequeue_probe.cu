/*
 * Can a small call skip the launch on its critical path (issue 5, target 5)?  On the H100
 * VM the host's cuLaunchKernel takes ~4 us of a ~7-8 us round trip.  Here the launch is
 * queued ahead, behind a stream wait (cuStreamWaitValue32) on a word in mapped pinned host
 * memory: at "call" time the host only writes its arguments and that word, then spins on the
 * result in mapped memory.  The GPU's front end polls the word; no SM spins meanwhile.
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibench bench/prequeue_probe.cu -lcuda -o prequeue_probe
 * Variants, in turn, round by round (the host's clock from the call's start until it sees
 * the result; median, p10, p90 in us):
 *   launch_empty    cuLaunchKernel of a one-thread kernel that stores the result, then spin
 *   pre_empty       the same kernel queued ahead behind the wait: write the word, then spin
 *   launch_dot      a dot of n doubles (32 blocks, the engine's small-split shape and slot
 *                   accesses), its arguments as kernel parameters
 *   pre_dot         the same kernel queued ahead, reading its arguments (x, y, n) from mapped
 *                   host memory that the host writes before the word
 *   enqueue         the host's cost of queuing the wait and the launch (off the call's path
 *                   only if another thread or the previous call's tail does it)
 * Results checked against the host's sum.
 */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "bench_check.h"
#include "probe_dot.cuh"

using clk = std::chrono::steady_clock;

#define CU(x)                                                                              \
    do {                                                                                   \
        CUresult r_ = (x);                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                          \
            const char *s_ = "?";                                                          \
            cuGetErrorString(r_, &s_);                                                     \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_);                         \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

struct DotArgs {
    const double2 *x, *y;
    long nv;
};

__global__ void empty_kernel(double *res)
{
    store_marked(res, 1.5);
}

/* args: kernel parameters (mapped == nullptr) or read from mapped host memory */
__global__ void __launch_bounds__(kT) dot_kernel(DotArgs a0, const DotArgs *mapped,
                                                 unsigned long long *slots, unsigned *ticket, double *res)
{
    __shared__ DotArgs sa;
    if (threadIdx.x == 0) {
        if (mapped) {
            const volatile DotArgs *m = mapped;
            sa.x = m->x, sa.y = m->y, sa.nv = m->nv;
        } else {
            sa = a0;
        }
    }
    __syncthreads();
    slots_finish(run(sa.x, sa.y, sa.nv, blockIdx.x * kT + threadIdx.x, gridDim.x * kT), slots, ticket, res);
}

static void report(const char *what, const std::vector<double> &v)
{
    Stats s = stats(v);
    printf("%-14s %8.3f %8.3f %8.3f\n", what, s.med, s.p10, s.p90);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1L << 16;
    const int nb = 32, rounds = 10, per = 500;
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    int memops = 0;
    CU(cuDeviceGetAttribute(&memops, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s; stream memory operations: %d; n = %ld doubles, %d blocks\n", prop.name, memops, n, nb);
    cudaStream_t S;
    CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
    /* mapped: [0] result, [8] the go word, [16..] args */
    char *mh, *md;
    CK(cudaHostAlloc((void **)&mh, 4096, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&md, mh, 0));
    volatile unsigned long long *res_h = (volatile unsigned long long *)mh;
    double *res_d = (double *)md;
    volatile unsigned *go_h = (volatile unsigned *)(mh + 64);
    CUdeviceptr go_d = (CUdeviceptr)(md + 64);
    DotArgs *args_h = (DotArgs *)(mh + 128), *args_d = (DotArgs *)(md + 128);
    *go_h = 0;
    unsigned long long *slots;
    unsigned *ticket;
    CK(cudaMalloc(&slots, 64 * 8));
    {
        std::vector<unsigned long long> e(64, kSlotEmpty);
        CK(cudaMemcpy(slots, e.data(), 64 * 8, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&ticket, 4));
    CK(cudaMemset(ticket, 0, 4));
    double *d;
    CK(cudaMalloc(&d, 2 * n * 8));
    fill_d<<<264, 256>>>(d, 2 * n, 777u);
    CK(cudaDeviceSynchronize());
    std::vector<double> h(2 * n);
    CK(cudaMemcpy(h.data(), d, 2 * n * 8, cudaMemcpyDeviceToHost));
    long double want = 0;
    for (long i = 0; i < n; i++)
        want += (long double)h[i] * h[n + i];
    DotArgs a = {(const double2 *)d, (const double2 *)(d + n), n / 2};
    const char *names[] = {"launch_empty", "pre_empty", "launch_dot", "pre_dot"};
    std::vector<std::vector<double>> t(4);
    std::vector<double> enq;
    unsigned seq = 0;
    int bad = 0;
    const DotArgs *nomap = nullptr;
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < 4; v++)
            for (int i = 0; i < per; i++) {
                bool pre = v == 1 || v == 3, dot = v >= 2;
                *res_h = kOutEmpty64;
                if (pre) {
                    /* queued ahead (not timed as part of the call) */
                    auto e0 = clk::now();
                    CU(cuStreamWaitValue32((CUstream)S, go_d, ++seq, CU_STREAM_WAIT_VALUE_GEQ));
                    if (dot)
                        dot_kernel<<<nb, kT, 0, S>>>(DotArgs{}, args_d, slots, ticket, res_d);
                    else
                        empty_kernel<<<1, 1, 0, S>>>(res_d);
                    enq.push_back(std::chrono::duration<double, std::micro>(clk::now() - e0).count());
                    /* let the front end reach the wait */
                    for (auto w0 = clk::now(); std::chrono::duration<double, std::micro>(clk::now() - w0).count() < 30;)
                        ;
                }
                std::atomic_thread_fence(std::memory_order_seq_cst);
                auto t0 = clk::now();
                if (pre) {
                    if (dot)
                        args_h->x = a.x, args_h->y = a.y, args_h->nv = a.nv;
                    std::atomic_thread_fence(std::memory_order_release);
                    *go_h = seq;
                } else if (dot) {
                    dot_kernel<<<nb, kT, 0, S>>>(a, nomap, slots, ticket, res_d);
                } else {
                    empty_kernel<<<1, 1, 0, S>>>(res_d);
                }
                while (*res_h == kOutEmpty64)
                    ;
                double us = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
                if (r > 0)
                    t[v].push_back(us);
                double got = __builtin_bit_cast(double, (unsigned long long)*res_h);
                if (dot ? !(std::fabs(got - (double)want) <= 1e-12 * std::fabs((double)want) + 1e-12) : got != 1.5)
                    if (bad++ < 5)
                        fprintf(stderr, "%s: %.17g, want %.17g\n", names[v], got, dot ? (double)want : 1.5);
                CK(cudaStreamSynchronize(S));
            }
    printf("%-14s %8s %8s %8s   (us)\n", "variant", "median", "p10", "p90");
    for (int v = 0; v < 4; v++)
        report(names[v], t[v]);
    report("enqueue", enq);
    printf("# results: %s\n", bad ? "WRONG" : "all checked");
    return bad ? 1 : 0;
}
