/* The CUDA engine's interface for builds without nvcc: no device, ever. */
#include <string.h>

#include "gpudot_hooks.h"

int gpudot_cuda_available(void)
{
    return 0;
}

gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info)
{
    memset(info, 0, sizeof *info);
    return GPUDOT_OK;
}

gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    (void)r;
    (void)poll;
    return GPUDOT_NO_DEVICE;
}

int gpudot_cuda_holds_memory(void)
{
    return 0;
}

void gpudot_cuda_release(void) {}

int gpudot_cuda_lost(void)
{
    return 0;
}

gpudot_status gpudot_cuda_inject(int fault)
{
    (void)fault;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_inject_on(int dev, int fault, int skip)
{
    (void)dev, (void)fault, (void)skip;
    return GPUDOT_NO_DEVICE;
}

const char *gpudot_cuda_last_error(void)
{
    return "gpudot was built without CUDA";
}

void gpudot_cuda_set_staging_cap(size_t bytes, size_t piece, int pack)
{
    (void)bytes;
    (void)piece;
    (void)pack;
}

gpudot_status gpudot_cuda_set_spread(const int *devs, int n)
{
    (void)devs;
    return n ? GPUDOT_NO_DEVICE : GPUDOT_OK;
}

void gpudot_cuda_set_tile_from(size_t bytes, int blocks)
{
    (void)bytes;
    (void)blocks;
}

void gpudot_cuda_set_warp_batch(int b)
{
    (void)b;
}

long gpudot_cuda_set_staged(int on)
{
    (void)on;
    return -1;
}

void gpudot_cuda_set_runtime_launch(int on)
{
    (void)on;
}

gpudot_status gpudot_cuda_ladder(const gpudot_dot_req *r, int kernel, double *ms)
{
    (void)r;
    (void)kernel;
    *ms = 0;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_ping(void)
{
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_reduce_dev(const gpudot_dot_req *r)
{
    (void)r;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_malloc(void **d, size_t bytes)
{
    (void)bytes;
    *d = NULL;
    return GPUDOT_NO_DEVICE;
}

void gpudot_cuda_free(void *d)
{
    (void)d;
}

gpudot_status gpudot_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    (void)dst, (void)src, (void)bytes, (void)to_device;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_sync(void)
{
    return GPUDOT_NO_DEVICE;
}

int gpudot_cuda_device_count(void)
{
    return 0;
}

gpudot_status gpudot_cuda_shards_alloc(gpudot_sharded *L, size_t es)
{
    (void)L, (void)es;
    return GPUDOT_NO_DEVICE;
}

void gpudot_cuda_shards_free(gpudot_sharded *L)
{
    (void)L;
}

gpudot_status gpudot_cuda_shards_copy(const gpudot_sharded *L, void *host, size_t es, int to_device)
{
    (void)L, (void)host, (void)es, (void)to_device;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_gather(void *dst, const void *src, const int64_t *idx, int64_t n,
                                 size_t es)
{
    (void)dst, (void)src, (void)idx, (void)n, (void)es;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_minmax(const void *x, int single, int cplx, int64_t pre, int64_t n,
                                 int64_t post, int is_min, void *val, double *idx)
{
    (void)x, (void)single, (void)cplx, (void)pre, (void)n, (void)post, (void)is_min, (void)val,
        (void)idx;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_topk(const void *x, int single, int64_t pre, int64_t n, int64_t post,
                               int64_t k, int is_min, void *val, double *idx)
{
    (void)x, (void)single, (void)pre, (void)n, (void)post, (void)k, (void)is_min, (void)val,
        (void)idx;
    return GPUDOT_NO_DEVICE;
}

gpudot_status gpudot_cuda_search(gpudot_search_req *r)
{
    (void)r;
    return GPUDOT_NO_DEVICE;
}
