/*
 * Host-side bandwidth behind the staging ring (target 6): how fast threads copy pageable
 * memory into pinned memory (the ring's pack), how fast the copy engine moves pinned memory
 * to the device, and both at once, as the ring runs them.  If packing and DMA share one
 * memory bandwidth, the ring cannot reach the pinned-transfer floor, whatever its overlap.
 *   nvcc -O3 -Xcompiler -fopenmp bench/host_bw.cu -o host_bw && ./host_bw
 * GB/s of payload (bytes copied, not bytes read + written); median of 15 repetitions.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <omp.h>

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                    \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

static double now()
{
    return omp_get_wtime();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* the ring's pack: the full team, `nt` threads each copying one contiguous share */
static void pack(char *dst, const char *src, size_t bytes, int nt)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < nt) {
            size_t b = bytes * t / nt, e = bytes * (t + 1) / nt;
            memcpy(dst + b, src + b, e - b);
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
    CK(cudaHostAlloc((void **)&pin[0], chunk, cudaHostAllocDefault));
    CK(cudaHostAlloc((void **)&pin[1], chunk, cudaHostAllocDefault));
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
    /* the pack alone, by thread count */
    for (int nt = 1; nt <= maxt; nt *= 2) {
        std::vector<double> v;
        for (int r = 0; r < reps; r++) {
            const char *p = next_src();
            double t0 = now();
            pack(pin[r & 1], p, chunk, nt);
            v.push_back(chunk / (now() - t0) / 1e9);
        }
        printf("pack pageable->pinned, %2d threads: %.1f GB/s\n", nt, median(v));
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
    /* both at once: DMA of slot 0 queued back to back while the threads pack slot 1 */
    for (int nt = 2; nt <= maxt; nt *= 2) {
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
                pack(pin[1], next_src(), chunk, nt);
                packed += chunk;
            }
            double th = now() - t0;
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            vp.push_back(packed / th / 1e9);
            vd.push_back(q * chunk / (ms * 1e-3) / 1e9);
        }
        printf("both at once, %2d pack threads: pack %.1f GB/s, DMA %.1f GB/s\n", nt,
               median(vp), median(vd));
    }
    return 0;
}
