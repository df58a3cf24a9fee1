/*
 * CUDA engine: the teaching ladder (gdot (..., "kernel", K)): one real dot product with
 * each kernel of cuda/ladder_kernels.cuh, host operands the textbook way.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine.cuh"
#include "ladder_kernels.cuh"

namespace gpudot
{

/* ---- the reduction ladder (gdot (..., "kernel", K)) ---- */

/* Two events for timing, or neither (the first destroyed where the second fails). */
gpudot_status two_events(cudaEvent_t &e0, cudaEvent_t &e1)
{
    CK(cudaEventCreate(&e0), "cudaEventCreate");
    cudaError_t e = cudaEventCreate(&e1);
    if (e != cudaSuccess) {
        cudaEventDestroy(e0);
        return fail(e, "cudaEventCreate");
    }
    return GPUDOT_OK;
}

template <typename T, typename A>
gpudot_status ladder_run(int kernel, const T *dx, const T *dy, int64_t n, A *result, float *ms)
{
    using namespace gpudot::ladder;
    gpudot_status st = GPUDOT_OK;
    int64_t blocks_n = (n + kLThreads - 1) / kLThreads;
    int64_t one_wave = (int64_t)E->prop.multiProcessorCount * (2048 / kLThreads);
    /* atomic and shared: one element per thread (grid x is at most 2^31 - 1 blocks; the
     * atomic kernel strides beyond); shuffle and vector: one wave of blocks */
    int64_t grid = kernel <= 1 ? blocks_n : one_wave;
    if (grid > kMaxGridX)
        grid = kMaxGridX;
    if (grid < 1)
        grid = 1;
    if (kernel == 1 && blocks_n > kMaxGridX) {
        snprintf(g_err, sizeof g_err, "the shared kernel takes at most 2^31 - 1 blocks");
        return GPUDOT_SIZE_MISMATCH;
    }
    size_t need = kernel == 1 ? (size_t)blocks_n * sizeof(A) : sizeof(A);
    if ((st = buf_need(E->out, need < 256 ? 256 : need, "cudaMalloc (out)")))
        return st;
    A *d = (A *)E->out.p;
    cudaEvent_t e0, e1;
    gpudot_status se = two_events(e0, e1);
    if (se != GPUDOT_OK)
        return se;
    cudaError_t e = cudaMemsetAsync(d, 0, sizeof(A));
    if (e == cudaSuccess)
        e = cudaEventRecord(e0);
    if (e == cudaSuccess && n > 0) {
        if (kernel == 0)
            k_atomic<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else if (kernel == 1)
            k_shared<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else if (kernel == 2)
            k_shuffle<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else
            k_vector<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(e1);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(e1);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (e != cudaSuccess)
        return fail(e, "kernel");
    if (kernel == 1 && n > 0) { /* the host pass over the block sums */
        A *h = (A *)malloc(need);
        if (!h)
            return GPUDOT_OUT_OF_MEMORY;
        e = cudaMemcpy(h, d, need, cudaMemcpyDeviceToHost);
        A acc = 0;
        for (int64_t b = 0; b < blocks_n; b++)
            acc += h[b];
        free(h);
        if (e != cudaSuccess)
            return fail(e, "cudaMemcpy (result)");
        *result = acc;
        return GPUDOT_OK;
    }
    CK(cudaMemcpy(result, d, sizeof(A), cudaMemcpyDeviceToHost), "cudaMemcpy (result)");
    return GPUDOT_OK;
}

/* Kernel 4, the production kernel (plan.cu's run_kernel), timed between events as the
 * others are. */
gpudot_status fused_run(const gpudot_dot_req *r, const void *dx, const void *dy, float *ms)
{
    int64_t n = r->nk;
    gpudot_dot_req q = *r;
    q.x_dev = q.y_dev = 1;
    q.x = dx, q.y = dy;
    q.bx = q.by = q.ax = q.ay = 1;
    q.kx = q.ky = n;
    gpudot_status st = buf_need(E->out, 256, "cudaMalloc (out)");
    if (st != GPUDOT_OK)
        return st;
    cudaEvent_t e0, e1;
    gpudot_status se = two_events(e0, e1);
    if (se != GPUDOT_OK)
        return se;
    cudaError_t e = cudaEventRecord(e0);
    if (e == cudaSuccess && n > 0)
        st = run_kernel(&q, dx, dy, E->out.p, 0, 1);
    else if (e == cudaSuccess)
        e = cudaMemsetAsync(E->out.p, 0, esize(r->type, 0));
    if (e == cudaSuccess)
        e = cudaEventRecord(e1);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(e1);
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (st == GPUDOT_OK && e != cudaSuccess)
        st = fail(e, "kernel");
    if (st == GPUDOT_OK)
        CKS(cudaMemcpy(r->out, E->out.p, esize(r->type, 0), cudaMemcpyDeviceToHost),
            "cudaMemcpy (result)");
    return st;
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

/* One real dot product with ladder kernel `kernel` (0 atomic, 1 shared, 2 shuffle,
 * 3 vector, 4 fused).  Host operands go the textbook way: cudaMalloc and cudaMemcpy per
 * call, freed after.  *ms: the kernels' time between CUDA events (no copies). */
gpudot_status gpudot_cuda_ladder(const gpudot_dot_req *r, int kernel, double *ms)
{
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK)
        return st;
    if (r->op != GPUDOT_OP_DOT || r->cx || r->cy || r->nb != 1 || r->na != 1 ||
        r->accum >= GPUDOT_ACC_COMP || kernel < 0 || kernel > 4)
        return GPUDOT_BAD_OPTION;
    int64_t n = r->nk;
    size_t es = esize(r->type, 0), bytes = (size_t)n * es;
    void *dx = (void *)r->x, *dy = (void *)r->y, *ax = nullptr, *ay = nullptr;
    cudaError_t e = cudaSuccess;
    if (!r->x_dev && (e = cudaMalloc(&ax, bytes ? bytes : 16)) == cudaSuccess)
        e = cudaMemcpy(ax, r->x, bytes, cudaMemcpyHostToDevice), dx = ax;
    if (e == cudaSuccess && !r->y_dev && (e = cudaMalloc(&ay, bytes ? bytes : 16)) == cudaSuccess)
        e = cudaMemcpy(ay, r->y, bytes, cudaMemcpyHostToDevice), dy = ay;
    float t = 0;
    if (e != cudaSuccess) {
        st = fail(e, "cudaMalloc / cudaMemcpy (upload)");
    } else if (kernel == 4) {
        st = fused_run(r, dx, dy, &t);
    } else if (r->type == GPUDOT_F64) {
        double v = 0;
        st = ladder_run<double, double>(kernel, (const double *)dx, (const double *)dy, n, &v, &t);
        *(double *)r->out = v;
    } else if (r->accum == GPUDOT_ACC_NATIVE) {
        float v = 0;
        st = ladder_run<float, float>(kernel, (const float *)dx, (const float *)dy, n, &v, &t);
        *(float *)r->out = v;
    } else {
        double v = 0;
        st = ladder_run<float, double>(kernel, (const float *)dx, (const float *)dy, n, &v, &t);
        *(float *)r->out = (float)v;
    }
    if (ax)
        cudaFree(ax);
    if (ay)
        cudaFree(ay);
    *ms = t;
    return st;
}

} // extern "C"
