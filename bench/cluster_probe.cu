/*
 * Would a thread-block cluster's merge make small split reductions shorter (issue 5,
 * target 5: the 2^14-2^16 rows, whose kernels run 8-32 blocks and merge them through
 * slots in global memory)?  Stand-alone, sm_90 only:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibench bench/cluster_probe.cu -o cluster_probe && ./cluster_probe
 * A dot product of n doubles, two ways, with the same loads (256 threads a block, 16-byte
 * loads, four in flight per thread and operand, the blocks striding through the run
 * together, as the engine's columns_split does):
 *   slots<b>    b blocks; thread 0 of each takes a ticket, the others store their block's
 *               sum in a slot, the last block's warp 0 reads the slots (lane l: block l)
 *               and merges them by a shuffle tree: the engine's small finish
 *               (cuda/reduce_kernels.cuh, split_finish_slots<Op, true>)
 *   cluster<b>  one cluster of b blocks (b <= 16; 16 is a non-portable size): each block
 *               writes its sum into block 0's shared memory (distributed shared memory),
 *               arrives on the cluster barrier and ends; block 0 waits on it and merges the
 *               sums in warp 0 by the same tree (so the same bits as slots<b>)
 *   empty       one thread writes a constant: the floor of a launch and its return
 * Every kernel writes its result into mapped pinned host memory as the engine's small
 * calls do (a NaN mark the host stored before the launch, replaced by the value).
 * Two timings, each with the data hot (one input set, in L2, as Octave's small-call rows
 * keep it) and cold (sets rotated past the 50 MB L2):
 *   gpu   CUDA events around each launch, the launches queued behind a kernel that holds
 *         the stream, so that the host's launch cost is not in them (kernel_bench's way)
 *   trip  the host's time from the launch call until it sees the result (what an Octave
 *         call pays beyond its own overhead), the variants in turn, round by round
 * Median, 10th and 90th percentile in microseconds.  Every result is checked against the
 * host's sum, and cluster<b> against slots<b> bit for bit.
 */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_check.h"
#include "probe_dot.cuh"

namespace cg = cooperative_groups;
using clk = std::chrono::steady_clock;

__global__ void __launch_bounds__(kT) slots_kernel(const double2 *x, const double2 *y, long nv,
                                                   unsigned long long *slots, unsigned *ticket,
                                                   double *res)
{
    slots_finish(run(x, y, nv, blockIdx.x * kT + threadIdx.x, gridDim.x * kT), slots, ticket, res);
}

__global__ void __launch_bounds__(kT) cluster_kernel(const double2 *x, const double2 *y, long nv,
                                                     double *res)
{
    __shared__ double sums[16];
    cg::cluster_group cl = cg::this_cluster();
    /* every block of the cluster has started before any writes into block 0's shared
     * memory: the first arrival here, its wait after the loads (by then long done) */
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
    int r = (int)cl.block_rank(), nb = (int)cl.num_blocks();
    double a = run(x, y, nv, r * kT + threadIdx.x, nb * kT);
    a = block_sum(a);
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
    if (threadIdx.x == 0)
        cl.map_shared_rank(sums, 0)[r] = a;
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    if (r != 0)
        return;
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    if (threadIdx.x >= 32)
        return;
    int l = threadIdx.x;
    double v = l < nb ? sums[l] : 0.0;
    v = warp_sum(v);
    if (l == 0)
        store_marked(res, v);
}

__global__ void empty_kernel(double *res)
{
    store_marked(res, 1.5);
}

struct Variant {
    std::string name;
    int kind; /* 0 slots, 1 cluster, 2 empty */
    int nb;
};

static cudaStream_t S;
static unsigned long long *slots_d, *res_h;
static double *res_d;
static unsigned *ticket_d;

static void launch(const Variant &v, const double *x, const double *y, long n)
{
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute at[1];
    c.gridDim = dim3(v.kind == 2 ? 1 : v.nb);
    c.blockDim = dim3(v.kind == 2 ? 1 : kT);
    c.stream = S;
    const double2 *xv = (const double2 *)x, *yv = (const double2 *)y;
    long nv = n / 2;
    if (v.kind == 0) {
        CK(cudaLaunchKernelEx(&c, slots_kernel, xv, yv, nv, slots_d, ticket_d, res_d));
    } else if (v.kind == 1) {
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = v.nb, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
        c.attrs = at, c.numAttrs = 1;
        CK(cudaLaunchKernelEx(&c, cluster_kernel, xv, yv, nv, res_d));
    } else {
        CK(cudaLaunchKernelEx(&c, empty_kernel, res_d));
    }
}

static void report(const char *mode, long n, const char *data, const std::string &name,
                   const std::vector<double> &v)
{
    Stats s = stats(v);
    printf("%-4s 2^%-2d %-4s %-10s %8.3f %8.3f %8.3f\n", mode, (int)std::lround(std::log2((double)n)),
           data, name.c_str(), s.med, s.p10, s.p90);
    fflush(stdout);
}

int main()
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
    CK(cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaMalloc(&slots_d, 64 * 8));
    {
        std::vector<unsigned long long> e(64, kSlotEmpty);
        CK(cudaMemcpy(slots_d, e.data(), 64 * 8, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&ticket_d, 4));
    CK(cudaMemset(ticket_d, 0, 4));
    CK(cudaHostAlloc((void **)&res_h, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&res_d, res_h, 0));
    int *flags, *flags_d;
    CK(cudaHostAlloc((void **)&flags, 8, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&flags_d, flags, 0));
    printf("# %s, %d SMs; cluster_probe (bench/cluster_probe.cu)\n", prop.name, prop.multiProcessorCount);
    for (int nb : {8, 16}) {
        cudaLaunchConfig_t c = {};
        cudaLaunchAttribute at[1];
        c.gridDim = dim3(nb), c.blockDim = dim3(kT);
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = nb, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
        c.attrs = at, c.numAttrs = 1;
        int m = 0;
        CK(cudaOccupancyMaxActiveClusters(&m, cluster_kernel, &c));
        printf("# clusters of %d blocks that fit at once: %d\n", nb, m);
    }
    printf("#mode n   data variant      median      p10      p90   (us)\n");
    const long ns[] = {1L << 14, 1L << 15, 1L << 16};
    const size_t cold_bytes = (size_t)160 << 20;
    int bad = 0;
    for (long n : ns) {
        std::vector<Variant> vs = {{"empty", 2, 1}};
        for (int nb : {4, 8, 16, 32})
            if (n / 2 >= (long)nb * kT * 2 && (nb < 32 || n >= (1L << 16)))
                vs.push_back({"slots" + std::to_string(nb), 0, nb});
        for (int nb : {4, 8, 16})
            if (n / 2 >= (long)nb * kT * 2)
                vs.push_back({"cluster" + std::to_string(nb), 1, nb});
        int cold_sets = (int)std::max<size_t>(8, cold_bytes / (2 * n * 8));
        double *d;
        CK(cudaMalloc(&d, (size_t)cold_sets * 2 * n * 8));
        fill_d<<<264, 256>>>(d, (size_t)cold_sets * 2 * n, (unsigned)(12345 + n));
        CK(cudaDeviceSynchronize());
        std::vector<double> want(cold_sets);
        {
            std::vector<double> h((size_t)cold_sets * 2 * n);
            CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
            for (int s = 0; s < cold_sets; s++) {
                long double t = 0;
                for (long i = 0; i < n; i++)
                    t += (long double)h[(size_t)s * 2 * n + i] * h[(size_t)s * 2 * n + n + i];
                want[s] = (double)t;
            }
        }
        for (int cold = 0; cold < 2; cold++) {
            int sets = cold ? cold_sets : 1;
            const char *data = cold ? "cold" : "hot";
            /* trip: the variants in turn, 10 rounds of 300 round trips each */
            std::vector<std::vector<double>> trip(vs.size());
            std::vector<unsigned long long> bits(vs.size());
            std::vector<int> nbad(vs.size());
            int k = 0;
            for (int round = 0; round < 10; round++)
                for (size_t vi = 0; vi < vs.size(); vi++)
                    for (int r = 0; r < 300; r++, k++) {
                        int s = k % sets;
                        const double *x = d + (size_t)s * 2 * n, *y = x + n;
                        *(volatile unsigned long long *)res_h = kOutEmpty64;
                        std::atomic_thread_fence(std::memory_order_seq_cst);
                        auto t0 = clk::now();
                        launch(vs[vi], x, y, n);
                        while (*(volatile unsigned long long *)res_h == kOutEmpty64)
                            ;
                        double us = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
                        if (round > 0)
                            trip[vi].push_back(us);
                        double got = __builtin_bit_cast(double, *(volatile unsigned long long *)res_h);
                        if (vs[vi].kind != 2 && !(std::fabs(got - want[s]) <= 1e-12 * std::fabs(want[s]) + 1e-12)) {
                            if (nbad[vi]++ < 3)
                                fprintf(stderr, "%s n=%ld %s set %d round %d: %.17g (%016llx), want %.17g\n", vs[vi].name.c_str(), n,
                                        data, s, round, got, (unsigned long long)__builtin_bit_cast(unsigned long long, got), want[s]);
                            bad++;
                        }
                        if (s == 0)
                            bits[vi] = *(volatile unsigned long long *)res_h;
                        CK(cudaStreamSynchronize(S));
                    }
            for (size_t vi = 0; vi < vs.size(); vi++) {
                report("trip", n, data, vs[vi].name, trip[vi]);
                if (nbad[vi])
                    printf("#   %s: %d of %zu results wrong\n", vs[vi].name.c_str(), nbad[vi], 10 * (size_t)300);
            }
            for (size_t a = 0; a < vs.size(); a++)
                for (size_t b = 0; b < vs.size(); b++)
                    if (vs[a].kind == 0 && vs[b].kind == 1 && vs[a].nb == vs[b].nb && bits[a] != bits[b]) {
                        bad++;
                        fprintf(stderr, "%s and %s differ in bits at n=%ld\n", vs[a].name.c_str(), vs[b].name.c_str(), n);
                    }
            /* gpu: events, batches of 32 launches behind hold_kernel, variants in turn */
            static cudaEvent_t ea[32], eb[32];
            if (!ea[0])
                for (int i = 0; i < 32; i++) {
                    CK(cudaEventCreate(&ea[i]));
                    CK(cudaEventCreate(&eb[i]));
                }
            std::vector<std::vector<double>> gpu(vs.size());
            k = 0;
            for (int round = 0; round < 40; round++)
                for (size_t vi = 0; vi < vs.size(); vi++) {
                    ((volatile int *)flags)[0] = 0, ((volatile int *)flags)[1] = 0;
                    hold_kernel<<<1, 1, 0, S>>>(flags_d, flags_d + 1);
                    for (int i = 0; i < 32; i++, k++) {
                        int s = k % sets;
                        const double *x = d + (size_t)s * 2 * n, *y = x + n;
                        CK(cudaEventRecord(ea[i], S));
                        launch(vs[vi], x, y, n);
                        CK(cudaEventRecord(eb[i], S));
                    }
                    ((volatile int *)flags)[0] = 1;
                    CK(cudaEventSynchronize(eb[31]));
                    if (((volatile int *)flags)[1]) {
                        fprintf(stderr, "cluster_probe: the queue was not held\n");
                        return 1;
                    }
                    for (int i = 0; i < 32; i++) {
                        float ms;
                        CK(cudaEventElapsedTime(&ms, ea[i], eb[i]));
                        if (round > 0)
                            gpu[vi].push_back(ms * 1e3);
                    }
                }
            for (size_t vi = 0; vi < vs.size(); vi++)
                report("gpu", n, data, vs[vi].name, gpu[vi]);
        }
        CK(cudaFree(d));
    }
    CK(cudaGetLastError());
    printf("# results: %s\n", bad ? "WRONG" : "all within 1e-12 of the host's sum; cluster<b> = slots<b> bit for bit");
    return bad ? 1 : 0;
}
