/*
 * Host-side bandwidth behind the staging ring (target 6): how fast threads copy pageable
 * memory into pinned memory (the ring's pack), how fast the copy engine moves pinned memory
 * to the device, and both at once, as the ring runs them.  If packing and DMA share one
 * memory bandwidth, the ring cannot reach the pinned-transfer floor, whatever its overlap.
 * The pack is timed for each way of storing (gpudot_pack_copy: plain memcpy, non-temporal
 * stores, memcpy + cldemote).  And the zero-copy alternative: a kernel reading the mapped
 * pinned buffer itself (bench/results/h100-host-bw-zero-copy-2026-11-23.txt: 50.5 GB/s
 * against the copy engine's 54.9; not taken into the ring, reasons there).
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -Iinclude bench/host_bw.cu cpu/gpudot_pack.c -o host_bw &&
 *   ./host_bw
 * GB/s of payload (bytes copied, not bytes read + written); median of 15 repetitions.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <omp.h>

#include "gpudot_hooks.h"

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                    \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

/* zero-copy: the SMs read mapped pinned memory themselves (16-byte loads, four in flight a
 * thread), in place of the copy engine; the sum only keeps the loads alive */
__global__ void zread(const uint4 *p, size_t n16, unsigned long long *sink)
{
    unsigned long long s = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
        s += (a.x ^ b.y) + (c.z ^ d.w) + (a.w ^ d.x);
    }
    for (; i < n16; i += stride)
        s += p[i].x ^ p[i].w;
    if (s == 0x123456789abcdefull)
        *sink = s;
}

static double now()
{
    return omp_get_wtime();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static const char *const way_names[GPUDOT_PACK_NWAYS] = {"auto", "plain", "stream", "demote"};

/* the ring's pack: the full team, `nt` threads each copying one contiguous share */
static void pack(char *dst, const char *src, size_t bytes, int nt, int way)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < nt) {
            size_t b = bytes * t / nt, e = bytes * (t + 1) / nt;
            gpudot_pack_copy(dst + b, src + b, e - b, way);
            gpudot_pack_fence(way);
        }
    }
}

int main()
{
    const size_t chunk = (size_t)32 << 20, pool = (size_t)512 << 20; /* pool >> LLC */
    int maxt = omp_get_max_threads();
    char *src = (char *)malloc(pool);
    char *pin[2], *dev;
    if (!src)
        return 1;
    for (size_t i = 0; i < pool; i++)
        src[i] = (char)(rand() >> 7);
    CK(cudaHostAlloc((void **)&pin[0], chunk, cudaHostAllocMapped));
    CK(cudaHostAlloc((void **)&pin[1], chunk, cudaHostAllocMapped));
    char *dpin[2];
    CK(cudaHostGetDevicePointer((void **)&dpin[0], pin[0], 0));
    CK(cudaHostGetDevicePointer((void **)&dpin[1], pin[1], 0));
    unsigned long long *sink;
    CK(cudaMalloc((void **)&sink, 8));
    int nsm = 0;
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaMalloc((void **)&dev, chunk));
    memset(pin[0], 1, chunk);
    memset(pin[1], 1, chunk);
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int reps = 15;
    size_t off = 0;
    auto next_src = [&]() { /* rotate the source so the LLC holds none of it */
        off = (off + chunk) % pool;
        return src + off;
    };
    printf("# %d OpenMP threads; 32 MiB chunks from a 512 MiB pageable pool\n", maxt);

    /* host read bandwidth alone: all threads summing the pool */
    {
        std::vector<double> v;
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            unsigned long long sum = 0;
#pragma omp parallel for reduction(+ : sum)
            for (size_t i = 0; i < pool / 8; i++)
                sum += ((const unsigned long long *)src)[i];
            v.push_back(pool / (now() - t0) / 1e9);
            if (sum == 42)
                printf("!");
        }
        printf("host read, %d threads: %.1f GB/s\n", maxt, median(v));
    }
    /* the pack alone, by way of storing and thread count */
    for (int way = GPUDOT_PACK_PLAIN; way < GPUDOT_PACK_NWAYS; way++) {
        int w = gpudot_pack_way(way);
        printf("pack pageable->pinned, %s (as done: %s):", way_names[way], way_names[w]);
        for (int nt : {1, 2, 4, 8, 12, 15, 16}) {
            if (nt > maxt)
                continue;
            std::vector<double> v;
            for (int r = 0; r < reps; r++) {
                const char *p = next_src();
                double t0 = now();
                pack(pin[r & 1], p, chunk, nt, w);
                v.push_back(chunk / (now() - t0) / 1e9);
            }
            printf(" %d thr %.1f", nt, median(v));
        }
        printf(" GB/s\n");
    }
    /* DMA alone */
    {
        std::vector<double> v;
        for (int r = 0; r < reps; r++) {
            CK(cudaEventRecord(e0, s));
            CK(cudaMemcpyAsync(dev, pin[0], chunk, cudaMemcpyHostToDevice, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            v.push_back(chunk / (ms * 1e-3) / 1e9);
        }
        printf("DMA pinned->device alone: %.1f GB/s\n", median(v));
    }
    /* zero-copy alone: a kernel reading the mapped buffer (written long before), by blocks
     * per SM */
    for (int bps : {1, 2, 4, 8}) {
        std::vector<double> v;
        for (int r = 0; r < reps; r++) {
            CK(cudaEventRecord(e0, s));
            zread<<<nsm * bps, 256, 0, s>>>((const uint4 *)dpin[0], chunk / 16, sink);
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            v.push_back(chunk / (ms * 1e-3) / 1e9);
        }
        printf("zero-copy kernel read alone, %d x 256 threads a SM: %.1f GB/s\n", bps, median(v));
    }
    /* both at once: DMA of slot 0 queued back to back while the threads pack slot 1 */
    for (int way = GPUDOT_PACK_PLAIN; way < GPUDOT_PACK_NWAYS; way++)
    for (int nt : {4, 8, 15}) {
        int w = gpudot_pack_way(way);
        if (nt > maxt)
            continue;
        std::vector<double> vp, vd;
        for (int r = 0; r < reps; r++) {
            const int q = 8;
            CK(cudaEventRecord(e0, s));
            for (int i = 0; i < q; i++)
                CK(cudaMemcpyAsync(dev, pin[0], chunk, cudaMemcpyHostToDevice, s));
            CK(cudaEventRecord(e1, s));
            double t0 = now();
            size_t packed = 0;
            while (cudaEventQuery(e1) == cudaErrorNotReady) {
                pack(pin[1], next_src(), chunk, nt, w);
                packed += chunk;
            }
            double th = now() - t0;
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            vp.push_back(packed / th / 1e9);
            vd.push_back(q * chunk / (ms * 1e-3) / 1e9);
        }
        printf("both at once, %s, %2d pack threads: pack %.1f GB/s, DMA %.1f GB/s\n",
               way_names[w], nt, median(vp), median(vd));
    }
    /* the ring in miniature: pieces packed by nt threads into the two pinned buffers, each
     * read as soon as it is packed, so the device reads lines the CPU has just written (the
     * ring's case; above, it read a buffer packed long before): by the copy engine (a copy a
     * piece) or by the SMs where the piece was packed (zero-copy: a kernel a piece).  wall:
     * the 64 MiB over the whole loop; reads: over the span from the first read's start to the
     * last one's end (GB/s, medians over reps) */
    auto miniature = [&](size_t piece, int nt, int w, bool zero_copy, double *wall, double *reads) {
        const int npieces = (int)(2 * chunk / piece);
        std::vector<double> vw, vr;
        for (int r = 0; r < reps; r++) {
            const char *src2[2] = {next_src(), next_src()};
            double t0 = now();
            for (int i = 0; i < npieces; i++) {
                int b = i / (npieces / 2);
                size_t off = (size_t)(i % (npieces / 2)) * piece;
                pack(pin[b] + off, src2[b] + off, piece, nt, w);
                if (i == 0)
                    CK(cudaEventRecord(e0, s));
                if (zero_copy)
                    zread<<<nsm * 2, 256, 0, s>>>((const uint4 *)(dpin[b] + off), piece / 16, sink);
                else
                    CK(cudaMemcpyAsync(dev + off, pin[b] + off, piece, cudaMemcpyHostToDevice, s));
            }
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            double th = now() - t0;
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            vw.push_back(2 * chunk / th / 1e9);
            vr.push_back(2 * chunk / (ms * 1e-3) / 1e9);
        }
        *wall = median(vw);
        *reads = median(vr);
        return 0;
    };
    double gw, gr;
    for (int way = GPUDOT_PACK_PLAIN; way < GPUDOT_PACK_NWAYS; way++)
    for (int nt : {8, 15}) {
        int w = gpudot_pack_way(way);
        if (nt > maxt)
            continue;
        if (miniature((size_t)4 << 20, nt, w, false, &gw, &gr))
            return 1;
        printf("pack then copy, 4 MiB pieces, %s, %2d pack threads: wall %.1f GB/s, copies %.1f GB/s\n",
               way_names[w], nt, gw, gr);
    }
    for (int way = GPUDOT_PACK_PLAIN; way < GPUDOT_PACK_NWAYS; way++)
    for (size_t piece : {(size_t)1 << 20, (size_t)4 << 20}) {
        const int nt = maxt - 1 > 1 ? maxt - 1 : 1;
        int w = gpudot_pack_way(way);
        if (miniature(piece, nt, w, true, &gw, &gr))
            return 1;
        printf("pack then zero-copy read, %zu MiB pieces, %s, %2d pack threads: wall %.1f GB/s, reads %.1f GB/s\n",
               piece >> 20, way_names[w], nt, gw, gr);
    }
    return 0;
}
