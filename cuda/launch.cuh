/*
 * Launching the reduction kernels (internal to the CUDA engine).  The kernels of each
 * (op, element type) pair compile in a translation unit of their own: cuda/kernels.cu,
 * built once per pair by mex.mk, so that they compile in parallel.  The host code
 * (plan.cu) plans a launch and calls the pair's launcher.
 */
#pragma once

#include <atomic>

#include <cuda.h>
#include <cuda_runtime.h>

#include "gpudot.h"
#include "warp_columns.cuh"

namespace gpudot
{

struct Launch {
    int kind; /* 0 split columns, 1 warp columns, 2 rows */
    dim3 grid;
};

/* The driver's cuLaunchKernel (found once through the runtime, see cu_launch). */
typedef CUresult (*cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, CUstream, void **, void **);

/* Instead of a launch: nout outputs, each the merge of its nchunks states in order, written
 * to out on the host (a run reduced in chunks on several GPUs). */
struct HostMerge {
    const State *states; /* nout x nchunks, an output's chunks adjacent */
    int64_t nchunks, nout;
    void *out;
};

constexpr int kMaxLaunchDevices = 64; /* kernel handles are cached per device */

struct LaunchCtx {
    cudaStream_t stream;
    cu_launch_fn drv; /* null: launch through the runtime (<<<>>>) */
    int sm_count;
    cudaError_t err; /* what cuLaunchKernel returned, where it failed */
    int dev;         /* CUDA ordinal: the kernels' handles are its context's */
    int fixed;       /* keep the planned grid (the occupancy trim depends on the output count) */
    int staged;      /* columns_staged may run: sm_80 and later, not turned off by its hook */
    const HostMerge *merge; /* non-null: merge states on the host, launch nothing */
};

/* Launches of columns_staged so far (read by a test hook) */
extern std::atomic<long> g_staged_launches;

typedef void (*launch_fn)(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);

void launch_dot_f32(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);
void launch_dot_f64(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);
void launch_norm_f32(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);
void launch_norm_f64(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);
void launch_cos_f32(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);
void launch_cos_f64(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r);

} // namespace gpudot
