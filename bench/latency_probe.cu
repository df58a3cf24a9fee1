/*
 * Where the time of a small call's GPU part goes (issue 5, target 5), without Octave:
 *   build/latency_probe [n]
 * prints the median and 10th/90th percentile of many round trips, in microseconds:
 *   launch_call      the host time of cudaLaunchKernel alone (an empty kernel)
 *   launch_sync      launch an empty kernel, cudaStreamSynchronize
 *   launch_flag      launch a kernel that writes a flag into mapped pinned memory, the host
 *                    spinning on the flag (what a small gpudot call did before the server)
 *   launch_dot       the same with a dot product of n doubles (132 x 256 threads)
 *   A/B of how the result comes back (issue 5, target 5; rounds alternate the variants):
 *   flag_fence       a 1-thread kernel: __threadfence_system, then the flag (= launch_flag)
 *   flag_nofence     the same without the fence
 *   val_fence_flag   the result (a double) into mapped memory, the fence, then the flag
 *                    (what a small gpudot call did until 90c6bde)
 *   val_only         the result alone, the host spinning on it until it leaves a NaN
 *                    pattern that it stored before the launch (the value is the flag:
 *                    what a small gpudot call does since)
 *   dot1_flag/val    one block of 256 threads: a dot of n doubles, finished either way
 *   dotg_flag/val    the grid dot above (launch_dot), finished either way
 *   server_ping      a resident kernel polling a doorbell in mapped memory: the host rings,
 *                    the kernel answers in mapped memory; no launch at all
 *   server_dot       the same, every block of the resident grid taking part in a dot
 *                    product of n doubles
 * Inputs rotate over 8 sets; results are checked against the host's sum.
 */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "bench_check.h"

using clk = std::chrono::steady_clock;

__global__ void empty_kernel() {}

__global__ void flag_kernel(volatile unsigned *flag, unsigned v)
{
    __threadfence_system();
    *flag = v;
}

__device__ __forceinline__ double block_sum(double a)
{
    __shared__ double w[32];
    for (int o = 16; o > 0; o >>= 1)
        a += __shfl_down_sync(0xffffffffu, a, o);
    if ((threadIdx.x & 31) == 0)
        w[threadIdx.x >> 5] = a;
    __syncthreads();
    a = threadIdx.x < blockDim.x / 32 ? w[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1)
            a += __shfl_down_sync(0xffffffffu, a, o);
    __syncthreads();
    return a;
}

struct Job {
    const double *x, *y;
    int n;
};

/* grid-wide dot, last block (ticket) finishes: writes *res then *flag = v (mapped) */
constexpr unsigned long long kEmpty = 0x7ff4dead0000beefull; /* a NaN no kernel makes */

/* the result's bits are the flag: never the empty mark */
__device__ __forceinline__ void put_val(volatile double *res, double t)
{
    unsigned long long b = (unsigned long long)__double_as_longlong(t);
    if (b == kEmpty)
        b = 0x7ff8000000000000ull;
    *(volatile unsigned long long *)res = b;
}

__device__ void dot_body(const Job &j, double *partials, unsigned *ticket, volatile double *res,
                         volatile unsigned *flag, unsigned v, int mode = 1)
{
    __shared__ bool last;
    double a = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < j.n; i += gridDim.x * blockDim.x)
        a += __ldcg(j.x + i) * __ldcg(j.y + i);
    a = block_sum(a);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = a;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        __threadfence();
        double t = 0;
        for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            t += __ldcg(partials + b);
        t = block_sum(t);
        if (threadIdx.x == 0) {
            *ticket = 0;
            if (mode == 0) {
                put_val(res, t);
            } else {
                *res = t;
                __threadfence_system();
                *flag = v;
            }
        }
    }
}

__global__ void val_kernel(volatile double *res, volatile unsigned *flag, double v, int mode)
{
    if (mode == 0) {
        put_val(res, v);
    } else {
        *res = v;
        __threadfence_system();
        *flag = 1;
    }
}

__global__ void nofence_kernel(volatile unsigned *flag, unsigned v)
{
    *flag = v;
}

/* one block: the whole dot, then the result (mode 0: value as flag; 1: fence + flag) */
__global__ void dot1_kernel(Job j, volatile double *res, volatile unsigned *flag, unsigned v,
                            int mode)
{
    double a = 0;
    for (int i = threadIdx.x; i < j.n; i += blockDim.x)
        a += __ldcg(j.x + i) * __ldcg(j.y + i);
    a = block_sum(a);
    if (threadIdx.x == 0) {
        if (mode == 0) {
            put_val(res, a);
        } else {
            *res = a;
            __threadfence_system();
            *flag = v;
        }
    }
}

__global__ void dot_kernel(Job j, double *partials, unsigned *ticket, volatile double *res,
                           volatile unsigned *flag, unsigned v, int mode = 1)
{
    dot_body(j, partials, ticket, res, flag, v, mode);
}

struct Box {              /* mapped pinned memory, one cache line each */
    volatile unsigned bell; /* host: request number */
    unsigned pad0[31];
    Job job;
    unsigned pad1[28];
    volatile unsigned ack;  /* kernel: request number done */
    unsigned pad2[31];
    volatile double res;
};

/* resident grid: block 0 thread 0 polls the bell (host memory), publishes the request
 * number in device memory (gen) for the other blocks; work = 0: answer only */
__global__ void server(Box *box, unsigned *gen, Job *job, double *partials, unsigned *ticket, int work)
{
    __shared__ unsigned s_req;
    unsigned last = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned s;
            if (blockIdx.x == 0) {
                while ((s = box->bell) == last)
                    ;
                /* the request into device memory once, for every block (a read of mapped
                 * host memory per thread cost ~3 ms per request in the first version) */
                job->x = ((Job volatile *)&box->job)->x;
                job->y = ((Job volatile *)&box->job)->y;
                job->n = ((Job volatile *)&box->job)->n;
                __threadfence();
                atomicExch(gen, s);
            } else {
                while ((s = *(volatile unsigned *)gen) == last)
                    ;
            }
            s_req = s;
        }
        __syncthreads();
        unsigned s = s_req;
        __syncthreads();
        if (s == 0xffffffffu)
            return;
        last = s;
        __threadfence();
        if (!work) {
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                __threadfence_system();
                box->ack = s;
            }
            continue;
        }
        dot_body(*job, partials, ticket, &box->res, &box->ack, s);
    }
}

static void report(const char *what, const std::vector<double> &v)
{
    Stats s = stats(v);
    printf("%-14s %9.2f %9.2f %9.2f\n", what, s.med, s.p10, s.p90);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    const int sets = 8, reps = 20000;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int grid = prop.multiProcessorCount, threads = 256;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Box *box, *box_d;
    CK(cudaHostAlloc((void **)&box, sizeof(Box), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&box_d, box, 0));
    memset((void *)box, 0, sizeof(Box));
    std::vector<double> hx((size_t)n * sets), hy((size_t)n * sets), want(sets);
    srand(1);
    for (int k = 0; k < sets; k++) {
        double t = 0;
        for (int i = 0; i < n; i++) {
            hx[(size_t)k * n + i] = rand() / (double)RAND_MAX - 0.5;
            hy[(size_t)k * n + i] = rand() / (double)RAND_MAX - 0.5;
            t += hx[(size_t)k * n + i] * hy[(size_t)k * n + i];
        }
        want[k] = t;
    }
    double *dx, *dy, *partials;
    unsigned *gen, *ticket;
    CK(cudaMalloc(&dx, hx.size() * 8));
    CK(cudaMalloc(&dy, hy.size() * 8));
    CK(cudaMalloc(&partials, 4096 * 8));
    CK(cudaMalloc(&gen, 4));
    CK(cudaMalloc(&ticket, 4));
    CK(cudaMemcpy(dx, hx.data(), hx.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, hy.data(), hy.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(gen, 0, 4));
    CK(cudaMemset(ticket, 0, 4));
    printf("device %s, %d SMs, n = %d doubles, %d round trips each\n", prop.name, grid, n, reps);
    printf("%-14s %9s %9s %9s\n", "us", "median", "p10", "p90");
    std::vector<double> t(reps);
    double bad = 0;

    for (int r = 0; r < reps; r++) {
        auto t0 = clk::now();
        empty_kernel<<<1, 1, 0, s>>>();
        t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
        CK(cudaStreamSynchronize(s));
    }
    report("launch_call", t);
    for (int r = 0; r < reps; r++) {
        auto t0 = clk::now();
        empty_kernel<<<1, 1, 0, s>>>();
        CK(cudaStreamSynchronize(s));
        t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
    }
    report("launch_sync", t);
    for (int r = 0; r < reps; r++) {
        auto t0 = clk::now();
        flag_kernel<<<1, 1, 0, s>>>(&box_d->ack, r + 1);
        while (box->ack != (unsigned)(r + 1))
            ;
        t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
    }
    CK(cudaStreamSynchronize(s));
    report("launch_flag", t);
    for (int leg = 0; leg < 2; leg++) {
        cudaStream_t b1, b2;
        if (leg) {
            CK(cudaStreamCreate(&b1));
            CK(cudaStreamCreate(&b2));
        }
        box->ack = 0;
        for (int r = 0; r < reps; r++) {
            auto t0 = clk::now();
            flag_kernel<<<1, 1>>>(&box_d->ack, r + 1);
            while (box->ack != (unsigned)(r + 1))
                ;
            t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
        }
        CK(cudaDeviceSynchronize());
        report(leg ? "flag_legacy+2" : "flag_legacy", t);
        if (leg) {
            CK(cudaStreamDestroy(b1));
            CK(cudaStreamDestroy(b2));
        }
    }
    box->ack = 0;
    for (int r = 0; r < reps; r++) {
        int k = r % sets;
        Job j = {dx + (size_t)k * n, dy + (size_t)k * n, n};
        auto t0 = clk::now();
        dot_kernel<<<grid, threads, 0, s>>>(j, partials, ticket, &box_d->res, &box_d->ack, r + 1);
        while (box->ack != (unsigned)(r + 1))
            ;
        t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
        bad = std::max(bad, fabs(box->res - want[k]) / fabs(want[k]));
    }
    CK(cudaStreamSynchronize(s));
    report("launch_dot", t);

    /* the A/B: 8 rounds, each variant in turn, reps / 8 round trips each */
    {
        const char *names[] = {"flag_fence", "flag_nofence", "val_fence_flag", "val_only",
                               "dot1_flag", "dot1_val", "dotg_flag", "dotg_val"};
        const int nv = 8, rounds = 8, per = reps / rounds;
        std::vector<std::vector<double>> tv(nv);
        volatile unsigned long long *rb = (volatile unsigned long long *)&box->res;
        unsigned seq = 0;
        for (int round = 0; round < rounds; round++)
            for (int v = 0; v < nv; v++)
                for (int r = 0; r < per; r++) {
                    int k = r % sets;
                    Job j = {dx + (size_t)k * n, dy + (size_t)k * n, n};
                    int byval = v == 3 || v == 5 || v == 7;
                    unsigned u = ++seq;
                    *rb = kEmpty;
                    box->ack = 0;
                    std::atomic_thread_fence(std::memory_order_seq_cst);
                    auto t0 = clk::now();
                    switch (v) {
                    case 0: flag_kernel<<<1, 1, 0, s>>>(&box_d->ack, u); break;
                    case 1: nofence_kernel<<<1, 1, 0, s>>>(&box_d->ack, u); break;
                    case 2: val_kernel<<<1, 1, 0, s>>>(&box_d->res, &box_d->ack, 1.5, 1); break;
                    case 3: val_kernel<<<1, 1, 0, s>>>(&box_d->res, &box_d->ack, 1.5, 0); break;
                    case 4: dot1_kernel<<<1, threads, 0, s>>>(j, &box_d->res, &box_d->ack, u, 1); break;
                    case 5: dot1_kernel<<<1, threads, 0, s>>>(j, &box_d->res, &box_d->ack, u, 0); break;
                    case 6: dot_kernel<<<grid, threads, 0, s>>>(j, partials, ticket, &box_d->res, &box_d->ack, u, 1); break;
                    default: dot_kernel<<<grid, threads, 0, s>>>(j, partials, ticket, &box_d->res, &box_d->ack, u, 0); break;
                    }
                    if (byval) {
                        while (*rb == kEmpty)
                            ;
                    } else {
                        unsigned want_ack = v == 2 ? 1u : u;
                        while (box->ack != want_ack)
                            ;
                    }
                    tv[v].push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
                    if (v >= 4)
                        bad = std::max(bad, fabs(box->res - want[k]) / fabs(want[k]));
                    else if (v >= 2 && box->res != 1.5)
                        bad = 1;
                    CK(cudaStreamSynchronize(s));
                }
        for (int v = 0; v < nv; v++)
            report(names[v], tv[v]);
    }

    for (int work = 0; work < 2; work++) {
        box->bell = 0;
        box->ack = 0;
        CK(cudaMemset(gen, 0, 4));
        CK(cudaDeviceSynchronize());
        server<<<grid, threads, 0, s>>>(box_d, gen, (Job *)(partials + 4000), partials, ticket, work);
        CK(cudaGetLastError());
        for (int r = 0; r < reps; r++) {
            int k = r % sets;
            box->job.x = dx + (size_t)k * n;
            box->job.y = dy + (size_t)k * n;
            box->job.n = n;
            std::atomic_thread_fence(std::memory_order_seq_cst);
            auto t0 = clk::now();
            box->bell = r + 1;
            while (box->ack != (unsigned)(r + 1))
                ;
            t[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
            if (work)
                bad = std::max(bad, fabs(box->res - want[k]) / fabs(want[k]));
        }
        box->bell = 0xffffffffu;
        CK(cudaStreamSynchronize(s));
        report(work ? "server_dot" : "server_ping", t);
    }
    printf("largest relative error of the dot products: %.3g\n", bad);
    return bad < 1e-10 ? 0 : 1;
}
