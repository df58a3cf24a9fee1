/*
 * The CUDA engine's shared state and helpers (internal: included by the engine's .cu files
 * only).  engine.cu owns the state and the C API's housekeeping; plan.cu plans and launches
 * the kernels on device data; ring.cu streams host data through pinned buffers; ladder.cu
 * runs the teaching ladder.  Every CUDA call is checked (CK): failures become a status and
 * a saved error text, never a print or an exit.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "gpudot.h"
#include "gpudot_hooks.h"
#include "launch.cuh"
#include "tuning.h"

namespace gpudot
{

/* Grow-only device buffer: allocated on first use, reallocated only to grow, freed at exit
 * (gpudot_cuda_release), so steady-state calls never call cudaMalloc. */
struct DevBuf {
    void *p = nullptr;
    size_t cap = 0;
};

struct Engine {
    int probed = 0, ok = 0;
    int device = 0;
    cudaDeviceProp prop;
    int target_blocks = 0; /* blocks that fill the device once */
    DevBuf x, y, out, carry, partials, tickets, slots;
    DevBuf search, topk;    /* search.cu's queries, scores and candidates; topk.cu's lists */
    DevBuf exact;           /* exact.cu's digits and flags */
    size_t exact_zero = 0;  /* its bytes known to be zero (exact.cu's records between calls) */
    void *mapped = nullptr; /* pinned, mapped host memory for small results */
    void *mapped_dev = nullptr;
    size_t tickets_n = 0;
    size_t slots_n =
        0; /* blocks whose slots are set to kSlotEmpty (they stay so between launches) */
    size_t staging_cap = 0;
    size_t piece = 0;            /* test hook: the ring's copy size (0: kPiece) */
    int pack = GPUDOT_PACK_AUTO; /* test hook: how the ring's threads store */
    size_t tile_from =
        0;              /* test hooks: tile order from this many bytes a run (0: kTileFromBytes), */
    int blocks_cap = 0; /* at most this many blocks a launch plans for (0: target_blocks) */
    int warp_batch = 0; /* test hook: rounds of warp columns, up to lanes (0: as planned) */
    int no_staged = 0;  /* test hook: warp columns read from memory (no columns_staged) */
    cudaStream_t stream = 0;       /* where kernels launch: 0, or the ring's compute stream */
    int fault = GPUDOT_FAULT_NONE; /* test hook: gpudot_cuda_inject */
    int fault_skip = 0;            /* allocations that succeed before an ALLOC fault */
    int lost = 0;                  /* a sticky error: the context is unusable */
    int tail0 = 0; /* a kernel on stream 0 may still be ending (wait_marked saw its results) */
    int fixed = 0; /* sharded calls: grids planned from a run's length alone (plan_launch) */
    cudaError_t launch_err = cudaSuccess; /* what cuLaunchKernel returned (kl) */
    int runtime_launch = 0; /* test hook: launch through the runtime (<<<>>>), not the driver */
    char lost_msg[640] = "";
};

/* One engine per device: E is the one a thread uses (the primary device's, except while a
 * call on several GPUs visits each of its devices: use_device).  A call on host data over
 * several GPUs drives each device from a thread of its own (ring.cu), each with its E.
 * g_err holds the text of the last failure on any device. */
constexpr int kMaxDevices = 64;
extern Engine engines[kMaxDevices];
extern thread_local Engine *E;
extern char g_err[512];
gpudot_status use_device(int dev);
void use_primary();

/* Errors: fail() keeps CUDA's text for the gateway and tells a lost context from a failed
 * call (engine.cu). */
gpudot_status lost_status();
gpudot_status fail(cudaError_t e, const char *what);
#define CK(call, what)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return fail(e_, what);                                                                 \
    } while (0)

/* As CK where cleanup must follow: keeps the first failure in st and goes on. */
#define CKS(call, what)                                                                            \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess && st == GPUDOT_OK)                                                  \
            st = fail(e_, what);                                                                   \
    } while (0)

/* Grid x of the kernels is at most 2^31 - 1; one chunk must stay below. */
constexpr int64_t kMaxGridX = ((int64_t)1 << 31) - 1;

/* engine.cu: the device, once; grow-only device buffers; the bytes the engine holds */
gpudot_status probe();
cudaError_t dev_malloc(void **p, size_t bytes);
void buf_free(DevBuf &b);
gpudot_status buf_need(DevBuf &b, size_t bytes, const char *what);
size_t held();

/* plan.cu: kernels on device data */
size_t esize(gpudot_type t, int cplx);
gpudot_status begin(const gpudot_dot_req *r);
gpudot_status one_launch(const gpudot_dot_req *r);
gpudot_status mapped_area();
void mark_empty(size_t nw, size_t wsize, size_t stride = 1); /* (stride > 1: 8-byte words) */
gpudot_status wait_marked(size_t nw, size_t wsize, const char *what, size_t stride = 1);
gpudot_status run_kernel(const gpudot_dot_req *sub, const void *d_x, const void *d_y, void *d_out,
                         int carry_in, int is_final, int mapped = 0, State *carry = nullptr);
/* the states of r's one run (na = 1) in chunks of q, in order, to states (device) */
gpudot_status run_in_chunks(const gpudot_dot_req *r, const void *dx, const void *dy, int64_t q,
                            State *states);
/* merges nchunks states of each of nout outputs in order on the host, writes the outputs */
void merge_on_host(const gpudot_dot_req *r, const State *states, int64_t nchunks, int64_t nout,
                   void *out);
gpudot_status run_mapped(const gpudot_dot_req *r, const void *dx, const void *dy, size_t bo);
gpudot_status dot_resident(const gpudot_dot_req *r);
gpudot_status copy_out(void *host, const void *dev, size_t bytes);

/* ring.cu, spread.cu: host data (ring.cuh) */
extern int spread_devs[GPUDOT_MAX_SHARDS], spread_n;
void ring_free();
size_t ring_bytes();
gpudot_status dot_pass(const gpudot_dot_req *r, gpudot_poll_fn poll);

/* The element of an operand with extents k (its run, or 1) and a (its columns, or 1) where
 * shard sh starts (shards.cu's garrays and spread.cu's parts of host data) */
inline int64_t shard_start(const gpudot_shard &sh, int64_t k, int64_t a)
{
    return (a > 1 ? sh.a0 * k : 0) + (k > 1 ? sh.k0 : 0);
}

/* shards.cu: garrays of several GPUs */
gpudot_status shard_pass(const gpudot_dot_req *r, gpudot_poll_fn poll);
/* "exact" (exact.cu): real dot products of device data along columns on the device, the
 * rest by the CPU engine's exact sums on the operands brought to the host */
gpudot_status exact_dot(const gpudot_dot_req *r, gpudot_poll_fn poll);

} // namespace gpudot
