/*
 * What the two engines share beyond their contract with the gateway (gpudot.h): the
 * two-step norms and cosines, the CPU engine's thread pool (which also packs the CUDA
 * engine's staging ring) and the ring's ways of storing.  Not for the gateway.
 */
#ifndef GPUDOT_ENGINE_H
#define GPUDOT_ENGINE_H

#include "gpudot.h"
#include "gpudot_exact.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Both engines compute 2-norms and cosines in two steps (the callers see one call): first
 * the fast variant, plain unscaled sums at the speed of a dot product; then, only where
 * that could not vouch for an output (it wrote NaN), the scaled algorithm over the whole
 * call.  gpudot_fast_variant turns r into its fast variant (pk, fast) and says whether the
 * outputs need that check; gpudot_two_step runs an engine's pass that way.  Single data
 * with a double accumulator needs no check: its squares and products are exact there and
 * no sum of them can overflow or underflow. */
typedef gpudot_status (*gpudot_pass_fn)(const gpudot_dot_req *r, gpudot_poll_fn poll);
int gpudot_fast_variant(gpudot_dot_req *r);
/* The CPU engine's threads (cpu/gpudot_pool.c): gpudot_pool_run calls fn(ctx, t) once for
 * each t in [0, ntasks), on the calling thread and the pool's, and returns when all have
 * returned.  Tasks are claimed one at a time, so a thread that has not started yet never
 * holds a call up; each task must write only outputs of its own.  gpudot_pool_size: the
 * threads that may run tasks, the caller included. */
typedef void (*gpudot_task_fn)(void *ctx, int64_t task);
void gpudot_pool_run(int64_t ntasks, gpudot_task_fn fn, void *ctx);
/* gpudot_pool_lead: the calling thread runs lead(lctx, posted) while the pool's threads
 * claim tasks of fn (at most ntasks; `posted` of them are offered, 0 where the pool is
 * busy or has no threads: lead must then do their work itself).  When lead returns, tasks
 * not yet claimed never start; returns lead's value once the claimed ones have returned. */
typedef int (*gpudot_lead_fn)(void *lctx, int posted);
int gpudot_pool_lead(int64_t ntasks, gpudot_task_fn fn, void *ctx, gpudot_lead_fn lead, void *lctx);
int gpudot_pool_size(void);
/* Threads that work on `work` (scalars or bytes) in `units` independent pieces: one per
 * `per_thread`, at most one per piece and per OpenMP thread (OMP_NUM_THREADS or the
 * processors), at least 1. */
int gpudot_workers(int64_t work, int64_t per_thread, int64_t units);

/* Dot2 over contiguous real data in 32 lanes (cpu/gpudot_cpu.c): *sum + *comp is x . y as
 * if summed in twice double's precision. */
void gpudot_comp_d(const double *x, const double *y, int64_t n, double *sum, double *comp);
void gpudot_comp_f(const float *x, const float *y, int64_t n, double *sum, double *comp);

/* Bytes of one element of r's class (two scalars where cplx) */
static inline size_t gpudot_esize(const gpudot_dot_req *r, int cplx)
{
    return (r->type == GPUDOT_F32 ? sizeof(float) : sizeof(double)) * (cplx ? 2 : 1);
}
/* Where the runs of output o = (i, a) of r start in x and y (y NULL for a norm); esx, esy:
 * an element's bytes (cpu/gpudot_common.c) */
void gpudot_run_start(const gpudot_dot_req *r, int64_t o, size_t esx, size_t esy, const char **x,
                      const char **y);
/* The CPU engine's "exact" mode (cpu/gpudot_cpu_exact.c): any op and shape, host data;
 * norms take p = 1, 2, Inf, -Inf and 0 (others: BAD_OPTION). */
gpudot_status gpudot_cpu_exact(const gpudot_dot_req *r, gpudot_poll_fn poll);
/* Norms whose "exact" result is "double" mode's (real Inf, -Inf and 0): 1; a p that
 * "exact" does not take: -1; any other call: 0. */
int gpudot_exact_norm_kind(const gpudot_dot_req *r);
/* Output o of r from its exact sums a (dot: re, im; norm: a[0]; cosine: xy re, xy im, xx,
 * yy) and ext (complex Inf and -Inf norms), rounded once into out's class (the other class
 * where out_other): the CPU engine's and the GPU's last step. */
void gpudot_exact_store(const gpudot_dot_req *r, int64_t o, const gd_exact *a, double ext);
gpudot_status gpudot_two_step(const gpudot_dot_req *r, gpudot_poll_fn poll, gpudot_pass_fn pass);

/* Host copies into pinned staging memory for the CUDA engine's ring (cpu/gpudot_pack.c):
 * the ways of storing (AUTO: the ring's own choice by CPU and call size); gpudot_pack_way:
 * the way this CPU can do in place of `way`; gpudot_pack_copy: m bytes stored that way;
 * gpudot_pack_fence: after a thread's copies, before they count as packed. */
enum {
    GPUDOT_PACK_AUTO = 0,
    GPUDOT_PACK_PLAIN,
    GPUDOT_PACK_STREAM,
    GPUDOT_PACK_DEMOTE,
    GPUDOT_PACK_NWAYS
};
int gpudot_pack_way(int way);
void gpudot_pack_copy(void *dst, const void *src, size_t m, int way);
void gpudot_pack_fence(int way);

#ifdef __cplusplus
}
#endif

#endif
