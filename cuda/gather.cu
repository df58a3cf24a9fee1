/*
 * CUDA engine: a garray's selection (garray indexing), made on the device: dst[i] =
 * src[idx[i]] for the 0-based element indices the gateway computed from the subscripts.
 */
#include <vector>

#include "engine.cuh"

namespace gpudot
{

/* One element a thread, grid-stride; W is the element (4, 8 or 16 bytes). */
template <typename W>
__global__ void gather_kernel(W *dst, const W *src, const int64_t *idx, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = src[idx[i]];
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

gpudot_status gpudot_cuda_gather(void *dst, const void *src, const int64_t *idx, int64_t n,
                                 size_t es)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK || n == 0)
        return st;
    /* a contiguous run (ranges, a colon): one copy */
    int64_t i = 1;
    while (i < n && idx[i] == idx[0] + i)
        i++;
    if (i == n) {
        CK(cudaMemcpy(dst, (const char *)src + (size_t)idx[0] * es, (size_t)n * es,
                      cudaMemcpyDeviceToDevice),
           "cudaMemcpy (selection)");
        return GPUDOT_OK;
    }
    void *d_idx = nullptr;
    CK(dev_malloc(&d_idx, (size_t)n * sizeof(int64_t)), "cudaMalloc (indices)");
    cudaError_t e = cudaMemcpy(d_idx, idx, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        int64_t blocks = (n + kThreads - 1) / kThreads;
        unsigned g = (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
        const int64_t *ix = (const int64_t *)d_idx;
        if (es == 4)
            gather_kernel<<<g, kThreads>>>((unsigned *)dst, (const unsigned *)src, ix, n);
        else if (es == 8)
            gather_kernel<<<g, kThreads>>>((unsigned long long *)dst,
                                           (const unsigned long long *)src, ix, n);
        else
            gather_kernel<<<g, kThreads>>>((ulonglong2 *)dst, (const ulonglong2 *)src, ix, n);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
    }
    cudaFree(d_idx);
    if (e != cudaSuccess)
        return fail(e, "selection kernel");
    return GPUDOT_OK;
}

} // extern "C"
