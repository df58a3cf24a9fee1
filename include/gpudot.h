/*
 * gpudot engine interface: the only engine header the MEX gateway includes.
 *
 * The engine knows nothing of Octave: it takes plain host pointers and a shape, computes
 * reductions on the CPU or the GPU, and returns a status code.  Only the gateway turns a
 * status into an Octave error.  The engine never prints, exits or aborts.
 */
#ifndef GPUDOT_H
#define GPUDOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUDOT_VERSION "0.1.0"

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
/* The staging ring's timeline of its last call (STAGES builds, bench/ring_bench.cu): on != 0
 * records CUDA events around each copy and kernel of the calls that follow.  Copies up to
 * max marks of the last call: the GPU time (us) of each mark since the call's first, the
 * host time (us) at which it was queued since the same moment, its kind ('S' start, 'c' / 'C'
 * before / after a copy of `bytes`, 'k' / 'K' before / after a chunk's kernel, 'r' before the
 * result's copy); returns how many. */
int gpudot_cuda_timeline(int on, double *gpu_us, double *host_us, char *kind, size_t *bytes, int max);
void gpudot_mark(int stage);
void gpudot_stages(double *us, int n);
#define GPUDOT_MARK(i) gpudot_mark(i)
#else
#define GPUDOT_MARK(i) ((void)0)
#endif

/* One list gives the status enum, the identifier suffix (gpudot:<id>) and the default
 * message, so the three can never drift apart. */
#define GPUDOT_STATUS_LIST(X)                                                              \
    X(OK, "ok", "success")                                                                 \
    X(BAD_TYPE, "badType", "X and Y must be single or double arrays")                      \
    X(SIZE_MISMATCH, "sizeMismatch", "sizes of X and Y must match or be compatible")       \
    X(BAD_DIM, "badDim", "DIM must be a positive integer scalar")                          \
    X(BAD_OPTION, "badOption", "invalid option")                                           \
    X(NO_DEVICE, "noDevice", "no usable CUDA device")                                      \
    X(OUT_OF_MEMORY, "outOfMemory", "out of memory")                                       \
    X(CUDA, "cuda", "CUDA error")                                                          \
    X(INTERRUPTED, "interrupted", "interrupted by the user")

#define GPUDOT_ENUM_ENTRY(name, id, msg) GPUDOT_##name,
typedef enum { GPUDOT_STATUS_LIST(GPUDOT_ENUM_ENTRY) GPUDOT_NSTATUS } gpudot_status;
#undef GPUDOT_ENUM_ENTRY

const char *gpudot_status_id(gpudot_status s);  /* "badType", ... */
const char *gpudot_status_msg(gpudot_status s); /* default message */

typedef enum { GPUDOT_F32 = 0, GPUDOT_F64 = 1 } gpudot_type;

typedef enum {
    GPUDOT_ACC_NATIVE = 0, /* accumulate in the element precision */
    GPUDOT_ACC_DOUBLE = 1, /* accumulate in double (single products are exact there) */
    GPUDOT_ACC_COMP = 2    /* Ogita-Rump-Oishi Dot2 in double: as if in twice the precision */
} gpudot_accum;

typedef enum {
    GPUDOT_OP_DOT = 0, /* sum conj(x) y */
    GPUDOT_OP_NORM = 1, /* vector p-norm of x (y unused) */
    GPUDOT_OP_COS = 2  /* conj(x) y / (|x| |y|), clamped */
} gpudot_op;

/*
 * A batch of reductions in canonical form (named for the dot product, the first op).  The output is an nb x na array; output (i, a)
 * is the sum over k < nk of conj(x(i, k, a)) * y(i, k, a).  Each operand is stored
 * contiguously (column-major) as a bx x kx x ax array whose extents are either the full
 * extent or 1 (broadcast): bx in {1, nb}, kx in {1, nk}, ax in {1, na}.  Complex operands are
 * interleaved (re, im) pairs.  Both operands have the same element type; the output has that
 * type and is complex (interleaved) when either operand is, except for norms (real).
 * Norms read x only: y and its extents are ignored.
 */
typedef struct {
    gpudot_op op;
    int pk;   /* norms: the kind of p, GD_P_* in gpudot_math.h */
    double p; /* norms: the exponent for GD_P_POS and GD_P_NEG */
    gpudot_type type;
    int cx, cy;        /* operand is complex */
    const void *x, *y; /* host pointers */
    int64_t nb, nk, na;
    int64_t bx, kx, ax;
    int64_t by, ky, ay;
    gpudot_accum accum;
    void *out; /* host, nb * na elements */
    int x_dev, y_dev; /* CUDA engine only: x / y are device pointers (resident data) */
    int fast; /* engine-internal, 0 from callers: see gpudot_fast_variant */
} gpudot_dot_req;

/* Called between chunks of long operations; non-zero stops the call with INTERRUPTED. */
typedef int (*gpudot_poll_fn)(void);

/* Shared by both engines: extents are consistent and every count is non-negative. */
gpudot_status gpudot_check_req(const gpudot_dot_req *r);

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
int gpudot_pool_lead(int64_t ntasks, gpudot_task_fn fn, void *ctx, gpudot_lead_fn lead,
                     void *lctx);
int gpudot_pool_size(void);
/* Threads that work on `work` (scalars or bytes) in `units` independent pieces: one per
 * `per_thread`, at most one per piece and per OpenMP thread (OMP_NUM_THREADS or the
 * processors), at least 1. */
int gpudot_workers(int64_t work, int64_t per_thread, int64_t units);

gpudot_status gpudot_two_step(const gpudot_dot_req *r, gpudot_poll_fn poll, gpudot_pass_fn pass);

/* Host copies into pinned staging memory for the CUDA engine's ring (cpu/gpudot_pack.c):
 * the ways of storing (AUTO: the ring's own choice by CPU and call size); gpudot_pack_way:
 * the way this CPU can do in place of `way`; gpudot_pack_copy: m bytes stored that way;
 * gpudot_pack_fence: after a thread's copies, before they count as packed. */
enum { GPUDOT_PACK_AUTO = 0, GPUDOT_PACK_PLAIN, GPUDOT_PACK_STREAM, GPUDOT_PACK_DEMOTE,
       GPUDOT_PACK_NWAYS };
int gpudot_pack_way(int way);
void gpudot_pack_copy(void *dst, const void *src, size_t m, int way);
void gpudot_pack_fence(int way);

/* ---- CPU engine (always built) ---- */
gpudot_status gpudot_cpu_dot(const gpudot_dot_req *r, gpudot_poll_fn poll);    /* any op */
gpudot_status gpudot_cpu_reduce(const gpudot_dot_req *r, gpudot_poll_fn poll); /* norm, cos */

/* ---- CUDA engine (stubs answering NO_DEVICE when built without nvcc) ---- */
typedef struct {
    int built_with_cuda;
    int available; /* a usable device was found */
    int device;    /* ordinal in use */
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t mem_total, mem_free;
    int driver_version, runtime_version; /* as CUDA encodes them: 1000 * major + 10 * minor */
    size_t staging_bytes;                /* persistent device memory held by the engine */
} gpudot_cuda_info_t;

int gpudot_cuda_available(void); /* probes once, then cached */
gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info);
gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll);
int gpudot_cuda_holds_memory(void); /* persistent buffers are allocated */
void gpudot_cuda_release(void);     /* frees every persistent buffer */
const char *gpudot_cuda_last_error(void); /* text of the last CUDA failure */
/* Device-resident operands: r->x, r->y and r->out are device pointers; one launch, no
 * chunking, asynchronous (gpudot_cuda_sync or a copy waits for it).  Runs the fast variant
 * only: a NaN among 2-norm or cosine outputs may mean "rerun scaled" (gpudot_cuda_dot does
 * that); for benchmarks and the kernel ladder. */
gpudot_status gpudot_cuda_reduce_dev(const gpudot_dot_req *r);
gpudot_status gpudot_cuda_malloc(void **d, size_t bytes);
/* The reduction ladder (gdot's "kernel" option): one real dot product (nb = na = 1) with
 * kernel 0 atomic, 1 shared, 2 shuffle, 3 vector, 4 fused (the production kernel); accum
 * native or double.  Host operands are copied with cudaMalloc + cudaMemcpy per call.  *ms:
 * the kernels' time between CUDA events. */
gpudot_status gpudot_cuda_ladder(const gpudot_dot_req *r, int kernel, double *ms);
/* An empty kernel's round trip through mapped memory: the floor of any small call. */
gpudot_status gpudot_cuda_ping(void);
void gpudot_cuda_free(void *d);
gpudot_status gpudot_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
gpudot_status gpudot_cuda_sync(void);
/* After a sticky CUDA error (a faulting kernel) the context is unusable until the process
 * ends: every GPU request fails with GPUDOT_CUDA and a message that says so, and
 * gpudot_cuda_available () answers 0. */
int gpudot_cuda_lost(void);
/* Test hooks: make the next kernel launch fail (LAUNCH: an invalid configuration, not
 * sticky; TRAP: a kernel that traps, sticky) or the next device allocation (ALLOC: a real
 * out-of-memory error). */
enum { GPUDOT_FAULT_NONE = 0, GPUDOT_FAULT_LAUNCH, GPUDOT_FAULT_TRAP, GPUDOT_FAULT_ALLOC };
gpudot_status gpudot_cuda_inject(int fault);
/* Test hooks of the staging ring: a cap on a slot (bytes, 0 = none) forces the chunked path;
 * `piece` sets the size of its copies (bytes, 0 = the default, kPiece); `pack` the way its
 * threads store (a GPUDOT_PACK_*; AUTO = the ring's own choice). */
void gpudot_cuda_set_staging_cap(size_t bytes, size_t piece, int pack);
/* Test hook: runs of at least `bytes` per operand take the tile order (0: the default
 * threshold, kTileFromBytes in gpudot_cuda.cu), and launches plan for at most `blocks`
 * blocks (0: enough to fill the device), so that tests reach whole tile windows with
 * small data. */
void gpudot_cuda_set_tile_from(size_t bytes, int blocks);
/* Test hook: on != 0 launches the engine's kernels through the runtime (<<<>>>) instead of
 * the driver's cuLaunchKernel, the way taken where the driver's entry point is missing. */
void gpudot_cuda_set_runtime_launch(int on);

#ifdef __cplusplus
}
#endif

#endif
