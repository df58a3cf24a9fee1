/*
 * CUDA engine, "exact" mode: for now the operands come to the host and the CPU engine's
 * exact accumulators sum them (cpu/gpudot_cpu_exact.c), so a result has the same bits as
 * the CPU engine's by construction; the device kernels are still to come.
 */
#include <cstdlib>

#include "engine.cuh"

namespace gpudot
{

/* operand of bx x kx x ax elements (es bytes each) on the host: itself, or a copy (*tmp)
 * of device memory or of the shards of several GPUs */
static gpudot_status to_host(const void *p, int dev, const gpudot_sharded *s, size_t n, size_t es,
                             const void **h, void **tmp)
{
    *tmp = nullptr;
    *h = p;
    if (!dev && !s)
        return GPUDOT_OK;
    *tmp = malloc(n ? n * es : 1);
    if (!*tmp)
        return GPUDOT_OUT_OF_MEMORY;
    *h = *tmp;
    return s ? gpudot_cuda_shards_copy(s, *tmp, es, 0) : gpudot_cuda_copy(*tmp, p, n * es, 0);
}

gpudot_status exact_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_dot_req q = *r;
    size_t es = (r->type == GPUDOT_F32 ? 4 : 8);
    int has_y = r->op != GPUDOT_OP_NORM;
    void *tx = nullptr, *ty = nullptr;
    gpudot_status st = to_host(r->x, r->x_dev, r->xs, (size_t)(r->bx * r->kx * r->ax),
                               es * (r->cx ? 2 : 1), &q.x, &tx);
    if (st == GPUDOT_OK && has_y)
        st = to_host(r->y, r->y_dev, r->ys, (size_t)(r->by * r->ky * r->ay), es * (r->cy ? 2 : 1),
                     &q.y, &ty);
    q.x_dev = q.y_dev = 0;
    q.xs = q.ys = nullptr;
    if (st == GPUDOT_OK)
        st = gpudot_cpu_dot(&q, poll);
    free(tx);
    free(ty);
    return st;
}

} // namespace gpudot
