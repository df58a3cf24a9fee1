/*
 * Test and benchmark hooks of the engines, apart from their contract (gpudot.h): stage
 * timers, faults on demand, the staging ring's and the planner's knobs, an empty round
 * trip.  The gateway exposes them as __gpudot__ ("__...__") operations for tests/ and bench/.
 */
#ifndef GPUDOT_HOOKS_H
#define GPUDOT_HOOKS_H

#include "gpudot_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stage timers for bench/stages.m, compiled in only by `make -f mex.mk STAGES=1`:
 * GPUDOT_MARK (s) adds the time since the previous mark to stage s; gpudot_stages copies
 * the sums (us) and the number of calls (us[GPUDOT_STAGE_CALL]), then resets.  Where a
 * stage serves both paths: "resident / host". */
enum {
    GPUDOT_STAGE_CALL,         /* start of a MEX call: counts calls */
    GPUDOT_STAGE_PARSE,        /* public entry: arguments and operand classes */
    GPUDOT_STAGE_RESOLVE,      /* operands: garray lookups */
    GPUDOT_STAGE_PREPARE,      /* shapes, output, request */
    GPUDOT_STAGE_ENGINE_ENTRY, /* engine: checks and plan */
    GPUDOT_STAGE_BUFFERS,      /* resident: uploads, mapped result / host: ring allocation */
    GPUDOT_STAGE_DRAIN,        /* resident: after the launch / host: queueing the result */
    GPUDOT_STAGE_WAIT,         /* resident: spin on the result flag / host: stream syncs */
    GPUDOT_STAGE_ENGINE_EXIT,
    GPUDOT_STAGE_LAUNCH_PREP,  /* run_kernel up to the launch */
    GPUDOT_STAGE_LAUNCH,       /* cudaLaunchKernel */
    GPUDOT_STAGE_LAUNCH_CHECK, /* cudaGetLastError */
    GPUDOT_STAGE_RING_LOOP,    /* host: the ring's calling thread queueing copies and events */
    GPUDOT_STAGE_SLOT_WAIT,    /* host: it waiting for (or packing) pieces, or a free slot */
    GPUDOT_STAGE_PACK,         /* host: the rest of the ring's pool job (its end) */
    GPUDOT_STAGE_EXIT,         /* the end of the MEX call */
    GPUDOT_NSTAGES
};
#ifdef GPUDOT_STAGES
/* The staging ring's timeline of its last call (STAGES builds): on != 0
 * records CUDA events around each copy and kernel of the calls that follow.  Copies up to
 * max marks of the last call: the GPU time (us) of each mark since the call's first, the
 * host time (us) at which it was queued since the same moment, its kind ('S' start, 'c' / 'C'
 * before / after a copy of `bytes`, 'k' / 'K' before / after a chunk's kernel, 'r' before the
 * result's copy); returns how many. */
int gpudot_cuda_timeline(int on, double *gpu_us, double *host_us, char *kind, size_t *bytes,
                         int max);
void gpudot_mark(int stage);
void gpudot_stages(double *us, int n);
#define GPUDOT_MARK(i) gpudot_mark(i)
#else
#define GPUDOT_MARK(i) ((void)0)
#endif

/* An empty kernel's round trip through mapped memory: the floor of any small call. */
gpudot_status gpudot_cuda_ping(void);
/* Test hooks: make the next kernel launch fail (LAUNCH: an invalid configuration, not
 * sticky; TRAP: a kernel that traps, sticky) or the next device allocation (ALLOC: a real
 * out-of-memory error). */
enum { GPUDOT_FAULT_NONE = 0, GPUDOT_FAULT_LAUNCH, GPUDOT_FAULT_TRAP, GPUDOT_FAULT_ALLOC };
gpudot_status gpudot_cuda_inject(int fault);
/* The same on device dev, after `skip` more allocations there succeed (the faults of a
 * garray on several GPUs). */
gpudot_status gpudot_cuda_inject_on(int dev, int fault, int skip);
/* Test hooks of the staging ring: a cap on a slot (bytes, 0 = none) forces the chunked path;
 * `piece` sets the size of its copies (bytes, 0 = the default, kPiece); `pack` the way its
 * threads store (a GPUDOT_PACK_*; AUTO = the ring's own choice). */
void gpudot_cuda_set_staging_cap(size_t bytes, size_t piece, int pack);
/* Test hook: calls on host data spread over devs[0 .. n) (a device may repeat: its parts
 * run one after another); n = 0: the engine's own choice. */
gpudot_status gpudot_cuda_set_spread(const int *devs, int n);
/* Test hook: runs of at least `bytes` per operand take the tile order (0: the default
 * threshold, kTileFromBytes in cuda/tuning.h), and launches plan for at most `blocks`
 * blocks (0: enough to fill the device), so that tests reach whole tile windows with
 * small data. */
void gpudot_cuda_set_tile_from(size_t bytes, int blocks);
/* Test hook: warp columns finish `b` rounds of outputs at once, at most a round a lane (0:
 * as planned; results do not change, only the launch's shape). */
void gpudot_cuda_set_warp_batch(int b);
/* Test hook: on == 0 keeps warp columns reading their runs from memory (columns_warp), not
 * through shared memory (columns_staged); results do not change.  Returns how many
 * launches took columns_staged so far, or -1 where the primary device cannot (before
 * sm_80), so that a test knows the path it covered. */
long gpudot_cuda_set_staged(int on);
/* Test hook: on != 0 launches the engine's kernels through the runtime (<<<>>>) instead of
 * the driver's cuLaunchKernel, the way taken where the driver's entry point is missing. */
void gpudot_cuda_set_runtime_launch(int on);

#ifdef __cplusplus
}
#endif

#endif
