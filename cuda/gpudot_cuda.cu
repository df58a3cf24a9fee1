/*
 * CUDA engine, host side: device state, persistent buffers, chunk planning and launches.
 * Kernels live in reduce_kernels.cuh.  Every CUDA call is checked; failures become a status
 * and a saved error text, never a print or an exit.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>

#include <cuda.h>
#include <omp.h>
#include <sched.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "ladder_kernels.cuh"
#include "launch.cuh"
#include "reduce_kernels.cuh"
#include "gpudot.h"

using namespace gpudot;

namespace {

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
    void *mapped = nullptr;   /* pinned, mapped host memory for small results */
    void *mapped_dev = nullptr;
    size_t tickets_n = 0;
    size_t slots_n = 0; /* blocks whose slots are set to kSlotEmpty (they stay so between launches) */
    size_t staging_cap = 0;
    size_t piece = 0; /* test hook: the ring's copy size (0: kPiece) */
    int pack = GPUDOT_PACK_AUTO; /* test hook: how the ring's threads store */
    size_t tile_from = 0; /* test hooks: tile order from this many bytes a run (0: kTileFromBytes), */
    int blocks_cap = 0;   /* at most this many blocks a launch plans for (0: target_blocks) */
    cudaStream_t stream = 0; /* where kernels launch: 0, or the ring's compute stream */
    int fault = GPUDOT_FAULT_NONE; /* test hook: gpudot_cuda_inject */
    int lost = 0;                  /* a sticky error: the context is unusable */
    int tail0 = 0; /* a kernel on stream 0 may still be ending (wait_marked saw its results) */
    char err[512] = "";
    cudaError_t launch_err = cudaSuccess; /* what cuLaunchKernel returned (kl) */
    int runtime_launch = 0; /* test hook: launch through the runtime (<<<>>>), not the driver */
    char lost_msg[640] = "";
} E;

/* Column runs at least this long get split over several blocks; shorter runs get one warp
 * each.  4096 elements = 16 KiB per operand in single: one warp's 16 loads in flight cover
 * it in a few round trips. */
constexpr int64_t kSplitMinRun = 4096;
/* Each block of a split run takes at least this many elements (8 per thread). */
constexpr int64_t kMinPerBlock = kThreads * 8;
/* A dot product's split runs plan for 2 blocks per SM (512 threads, each with its 128 bytes
 * of loads in flight: 64 KiB an SM), where the other ops plan for kBlocksPerSM and the
 * occupancy of their kernel decides (4 blocks an SM for a real dot in "native" or
 * "double").  H100, kernel_bench, alternating builds on one machine, 2 rounds (2026-11-23,
 * bench/results/h100-kernel-slots-ab-2026-11-23.txt), "double" mode, % of the read ceiling
 * and cuBLAS time / gdot time, 4 -> 2 blocks an SM: single 2^24 94.8 -> 96.7%, 2^25 97.8 ->
 * 98.5%, 2^26 99.0 -> 100.1%; double 2^24 97.7 -> 98.8%, 2^28-2^30 0.995-0.997x -> 1.003-
 * 1.009x cuBLAS; tall 2^24 x 8 double 98.7 -> 100.4%; the rest within +-0.5%.  Norms and
 * cosines lost up to 1.4% (double 2^27-2^30) with 2 blocks an SM, so they keep the former
 * plan. */
constexpr int kSplitBlocksPerSMDot = 2;

/* Every CUDA failure comes here: the text is kept for the gateway's message.  Errors of
 * the call itself (out of memory, a bad launch configuration) are cleared so the next call
 * works.  A fault inside a kernel (illegal address, trap, launch failure) is sticky: the
 * context stays broken and every later CUDA call in the process fails, so only a new
 * process (restarting Octave) can use the GPU again.  That is found by clearing the error
 * and synchronizing: a sticky error comes back.  From then on the engine answers every GPU
 * request with GPUDOT_CUDA and that message, gpudot_cuda_available () is 0 (so "auto"
 * takes the CPU engine), and frees are skipped (they would fail anyway). */
gpudot_status lost_status()
{
    snprintf(E.err, sizeof E.err, "%s", E.lost_msg);
    return GPUDOT_CUDA;
}

gpudot_status fail(cudaError_t e, const char *what)
{
    if (E.lost)
        return lost_status();
    snprintf(E.err, sizeof E.err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it so the next call works */
        return GPUDOT_OUT_OF_MEMORY;
    }
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return GPUDOT_NO_DEVICE;
    if (E.ok) {
        cudaGetLastError();
        cudaError_t s = cudaDeviceSynchronize();
        if (s != cudaSuccess) {
            E.lost = 1;
            snprintf(E.lost_msg, sizeof E.lost_msg,
                     "%s; the CUDA context is lost: restart Octave to use the GPU again", E.err);
            return lost_status();
        }
    }
    return GPUDOT_CUDA;
}

/* cudaMalloc, or a real allocation failure where a test asked for one (an impossible size). */
cudaError_t dev_malloc(void **p, size_t bytes)
{
    if (E.fault == GPUDOT_FAULT_ALLOC) {
        E.fault = GPUDOT_FAULT_NONE;
        bytes = (size_t)1 << 60;
    }
    return cudaMalloc(p, bytes);
}

#define CK(call, what)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return fail(e_, what);                                                         \
    } while (0)

gpudot_status probe()
{
    if (E.lost)
        return lost_status();
    if (E.probed)
        return E.ok ? GPUDOT_OK : GPUDOT_NO_DEVICE;
    E.probed = 1;
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        /* say it in the user's terms: no driver, an old driver, or no (visible) device */
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        if (e == cudaErrorInsufficientDriver && drv == 0)
            snprintf(E.err, sizeof E.err, "no NVIDIA driver is installed");
        else if (e == cudaErrorInsufficientDriver)
            snprintf(E.err, sizeof E.err,
                     "the NVIDIA driver supports CUDA %d.%d, gpudot was built with CUDA %d.%d",
                     drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        else if (e == cudaErrorNoDevice || n == 0)
            snprintf(E.err, sizeof E.err, "no CUDA device found%s",
                     getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES is set)" : "");
        else
            fail(e, "cudaGetDeviceCount");
        cudaGetLastError();
        return GPUDOT_NO_DEVICE;
    }
    CK(cudaGetDevice(&E.device), "cudaGetDevice");
    CK(cudaGetDeviceProperties(&E.prop, E.device), "cudaGetDeviceProperties");
    E.target_blocks = E.prop.multiProcessorCount * kBlocksPerSM;
    E.ok = 1;
    return GPUDOT_OK;
}

void buf_free(DevBuf &b)
{
    if (b.p && !E.lost)
        cudaFree(b.p);
    b.p = nullptr;
    b.cap = 0;
}

gpudot_status buf_need(DevBuf &b, size_t bytes, const char *what)
{
    if (bytes <= b.cap)
        return GPUDOT_OK;
    buf_free(b);
    size_t want = bytes < 256 ? 256 : bytes;
    CK(dev_malloc(&b.p, want), what);
    b.cap = want;
    return GPUDOT_OK;
}

/* Results up to this size are written by the kernel straight into mapped pinned host
 * memory, each value word its own flag (kOutEmpty*, reduce_kernels.cuh): a launch and a
 * spin, no separate copy and no stream sync (H100: ~10 us round trip against ~20 us for
 * launch + copy + sync). */
constexpr size_t kMappedBytes = 64 * 1024;
/* Host polls of the results before falling back to cudaStreamSynchronize: ~10^7 polls of
 * mapped memory is of the order of seconds, far beyond any kernel of these sizes. */
constexpr long kSpinLimit = 10000000;

size_t ring_bytes();

size_t held()
{
    return E.x.cap + E.y.cap + E.out.cap + E.carry.cap + E.partials.cap + E.tickets.cap + E.slots.cap +
           (E.mapped ? kMappedBytes : 0) + ring_bytes();
}

/* ---- launch: one kernel per (op, type, mode, complexity) chosen at run time ---- */

/* The engine's kernels launch through the driver's cuLaunchKernel, found once through the
 * runtime (no link against libcuda), with each kernel's CUfunction looked up on its first
 * launch; <<<>>> where either is missing, or under the test hook.  On the H100 machine the
 * runtime's launch of an empty kernel took 0.1-0.5 us more host time (5 of 5 runs of
 * bench/call_probe.cu), and small resident calls through the engine were 0.3-0.6 us
 * shorter with it (bench/results/h100-small-plan-launch-ab-2026-11-24.txt).  Only the
 * calling thread launches (the ring's pool threads pack), so the cached lookups need no
 * lock.  The driver's errors have the runtime's numbers (CUDA_ERROR_INVALID_VALUE is
 * cudaErrorInvalidValue, ...): E.launch_err carries one to run_kernel's check. */
cu_launch_fn cu_launch()
{
    static cu_launch_fn f = nullptr;
    static int tried = 0;
    if (!tried) {
        tried = 1;
        void *fp = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            f = (cu_launch_fn)fp;
        cudaGetLastError();
    }
    return f;
}

/* The launcher of r's op and element type (cuda/kernels.cu, one object per pair); a
 * launch error the driver returns lands in E.launch_err. */
void launch_any(const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    static launch_fn const fns[3][2] = {{launch_dot_f32, launch_dot_f64},
                                        {launch_norm_f32, launch_norm_f64},
                                        {launch_cos_f32, launch_cos_f64}};
    int op = r->op == GPUDOT_OP_DOT ? 0 : r->op == GPUDOT_OP_NORM ? 1 : 2;
    LaunchCtx c{E.stream, E.runtime_launch ? nullptr : cu_launch(), E.prop.multiProcessorCount,
                cudaSuccess};
    fns[op][r->type == GPUDOT_F64](c, L, p, r);
    if (c.err != cudaSuccess)
        E.launch_err = c.err;
}

/* A single output (na == 1) whose run (vecs: 16-byte vectors of its wider operand) is
 * longer than one round of a warp's loads (32 lanes x 4 vectors: 2 KiB an operand) and at
 * most two rounds of a block's (256 threads x 4 vectors x 2: 32 KiB) gets one block of the
 * split kernel, which then finishes without a merge (splits == 1), where it took one warp
 * (runs under kSplitMinRun: 1024 doubles in 4 rounds of loads) or 2-4 blocks and the
 * slots' merge.  bench/call_probe.cu on the H100 machine, the engine's call without Octave
 * (bench/results/h100-small-plan-launch-ab-2026-11-24.txt): with the driver's launch
 * (kl), gdot of 1024 doubles 11.25 -> 9.29 us, gnorm of 1024 singles 11.38 -> 9.40, gdot of
 * 4096 singles 10.60 -> 9.61; up to two rounds against one, 2048 vectors: gnorm and
 * gcosine 0.5-1.0 us shorter, gdot of 4096 doubles 0.1-0.4 shorter, of 8192 singles
 * 0.1-0.2 longer. */
constexpr int64_t kWarpRoundVecs = 32 * 4;
constexpr int64_t kOneBlockVecs = 2 * kThreads * 4;

/* Grid shape for an nb x na output with runs of nk (vecs 16-byte vectors of the wider
 * operand); sets p.splits.  Split runs plan for at most split_per_sm blocks an SM. */
Launch plan_launch(Args &p, int split_per_sm, int64_t vecs)
{
    Launch L;
    int64_t tb = E.blocks_cap && E.blocks_cap < E.target_blocks ? E.blocks_cap : E.target_blocks;
    if (p.nb == 1) {
        if (p.na == 1 && vecs > kWarpRoundVecs && vecs <= kOneBlockVecs) {
            p.splits = 1;
            L.kind = 0;
            L.grid = dim3(1);
        } else if (p.nk >= kSplitMinRun && p.na < tb / 2) {
            int64_t ts = (int64_t)E.prop.multiProcessorCount * split_per_sm;
            ts = ts < tb ? ts : tb;
            int64_t s = (ts + p.na - 1) / p.na;
            int64_t most = (p.nk + kMinPerBlock - 1) / kMinPerBlock;
            p.splits = (int)(s < most ? s : most);
            L.kind = 0;
            L.grid = dim3((unsigned)(p.na * p.splits));
        } else {
            int64_t per_block = (kThreads / 32) * (32 / p.lanes);
            int64_t blocks = (p.na + per_block - 1) / per_block;
            int64_t cap = tb * 4; /* beyond this, warps loop over outputs */
            p.splits = 1;
            L.kind = 1;
            L.grid = dim3((unsigned)(blocks < cap ? blocks : cap));
        }
    } else {
        int64_t nout = p.nb * p.na;
        int64_t gx = (nout + kThreads - 1) / kThreads;
        int64_t s = 1;
        if (gx < tb) {
            s = tb / gx;
            int64_t most = (p.nk + 63) / 64; /* at least 64 k per slice */
            s = s < most ? s : most;
            s = s < 1 ? 1 : s;
            s = s > 65535 ? 65535 : s;
        }
        p.splits = (int)s;
        L.kind = 2;
        L.grid = dim3((unsigned)gx, (unsigned)s);
    }
    return L;
}

/* gpudot_cuda_inject's kernel: traps where asked (else it is launched with a block size
 * no device takes, and never runs). */
__global__ void fault_kernel(int trap)
{
    if (trap)
        __trap();
}

/* Tile order for long runs (reduce_kernels.cuh, run_sum): from runs of kTileFromBytes per
 * operand, each block reads its own stretch of kTileIters* x 16 KiB of every window (4
 * 16-byte loads per thread and operand, 256 threads; norms load 8, twice the stretch)
 * instead of all blocks interleaving 4 KiB pieces.  Measured on the H100 (device tool,
 * 2026-11-22 20:55-20:59 UTC, kernel_bench 30 24, five alternating rounds of four builds;
 * bench/results/h100-kernel-tiles-ab-*.txt), cuBLAS dot time / gdot time, median over
 * rounds, 2^27-2^30 ("double" mode):
 *   double data: grid-stride 0.992-0.995, 16 KiB tiles 1.003-1.012, 64 KiB 1.001-1.002,
 *   256 KiB 0.998-1.002 (gnorm, 32 KiB: 0.997-0.999 of the read ceiling at 2^29-2^30,
 *   grid-stride 0.993-0.995);
 *   single data (2^28-2^30): grid-stride 0.998-1.000, 16 KiB 0.951-0.965, 64 KiB 0.999,
 *   256 KiB 1.001-1.004.
 * Below a GiB the grid-stride order is as fast or faster (single 2^24: 1.057 against
 * 1.044 with 256 KiB tiles; double 2^24 1.032 against 1.020 with 64 KiB). */
constexpr size_t kTileFromBytes = (size_t)1 << 30;

/* Grid x of the kernels is at most 2^31 - 1; one chunk must stay below. */
constexpr int64_t kMaxGridX = ((int64_t)1 << 31) - 1;

/* bytes of one element of type t, complex or not */
size_t esize(gpudot_type t, int cplx)
{
    return (t == GPUDOT_F32 ? 4 : 8) * (cplx ? 2 : 1);
}

gpudot_status run_kernel(const gpudot_dot_req *sub, const void *d_x, const void *d_y,
                         void *d_out, int carry_in, int is_final, int mapped = 0)
{
    Args p;
    memset(&p, 0, sizeof p);
    p.x = d_x;
    p.y = d_y;
    p.nb = sub->nb;
    p.nk = sub->nk;
    p.na = sub->na;
    p.bx = sub->bx, p.kx = sub->kx, p.ax = sub->ax;
    p.by = sub->by, p.ky = sub->ky, p.ay = sub->ay;
    p.out = d_out;
    p.carry = (State *)E.carry.p;
    p.carry_in = carry_in;
    p.is_final = is_final;
    p.mapped = mapped;
    /* warp columns: about two 16-byte loads per lane and operand */
    size_t es = esize(sub->type, sub->cx || (sub->cy && sub->op != GPUDOT_OP_NORM));
    int64_t vecs = (int64_t)((sub->nk * es + 15) / 16);
    p.lanes = 1;
    while (p.lanes < 32 && 2 * p.lanes < vecs)
        p.lanes *= 2;
    Launch L = plan_launch(p, sub->op == GPUDOT_OP_DOT ? kSplitBlocksPerSMDot : kBlocksPerSM, vecs);
    if (L.kind == 0 && (size_t)sub->nk * es >= (E.tile_from ? E.tile_from : kTileFromBytes))
        p.tiles = 1;
    size_t nparts = L.kind == 0 ? (size_t)L.grid.x
                  : L.kind == 2 && p.splits > 1 ? (size_t)L.grid.x * L.grid.y * kThreads : 0;
    size_t ntickets = L.kind == 0 ? (size_t)p.na : L.kind == 2 ? (size_t)L.grid.x : 0;
    gpudot_status st;
    if ((st = buf_need(E.partials, nparts * sizeof(State), "cudaMalloc (workspace)")))
        return st;
    /* the counts of set-up entries go to 0 first: a failed regrowth leaves no buffer */
    if (ntickets > E.tickets_n) {
        E.tickets_n = 0;
        if ((st = buf_need(E.tickets, ntickets * sizeof(unsigned), "cudaMalloc (workspace)")))
            return st;
        CK(cudaMemsetAsync(E.tickets.p, 0, E.tickets.cap, E.stream), "cudaMemset");
        E.tickets_n = E.tickets.cap / sizeof(unsigned);
    }
    /* slots: kSlotWordsSmall words a block, whatever the Op uses (the kernels' template
     * logic decides how many; a split run's grid is about a wave of blocks: ~100 KiB at
     * most) */
    if (L.kind == 0 && p.splits > 1 && (size_t)L.grid.x > E.slots_n) {
        E.slots_n = 0;
        if ((st = buf_need(E.slots, (size_t)L.grid.x * 8 * kSlotWordsSmall, "cudaMalloc (workspace)")))
            return st;
        CK(cudaMemsetAsync(E.slots.p, 0xff, E.slots.cap, E.stream), "cudaMemset"); /* kSlotEmpty */
        E.slots_n = E.slots.cap / (8 * kSlotWordsSmall);
    }
    p.partials = (State *)E.partials.p;
    p.tickets = (unsigned *)E.tickets.p;
    p.slots = (unsigned long long *)E.slots.p;
    if (E.fault == GPUDOT_FAULT_LAUNCH || E.fault == GPUDOT_FAULT_TRAP) {
        /* test hook: a launch the driver refuses (more threads than a block may have), or
         * a kernel that traps (a sticky fault, as an illegal address would be) */
        int trap = E.fault == GPUDOT_FAULT_TRAP;
        E.fault = GPUDOT_FAULT_NONE;
        fault_kernel<<<1, trap ? 1 : 4096, 0, E.stream>>>(trap);
        if (!trap) {
            CK(cudaGetLastError(), "kernel launch");
        }
    }
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH_PREP);
    launch_any(L, p, sub);
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH);
    if (E.launch_err != cudaSuccess) {
        cudaError_t e = E.launch_err;
        E.launch_err = cudaSuccess;
        CK(e, "kernel launch");
    }
    CK(cudaGetLastError(), "kernel launch");
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH_CHECK);
    return GPUDOT_OK;
}



/* ---- pinned staging ring for host operands ----
 * A call on host data streams its operands through kSlots pinned host buffers, each with a
 * device twin: host threads pack chunk c into pinned slot c % kSlots (a parallel memcpy out
 * of Octave's pageable array) while the copy engine moves what is packed, piece by piece,
 * and the SMs reduce the chunks already copied (RingWalk).  cudaMemcpy from pageable memory
 * ran at ~9 GB/s on the H100 machine, pinned copies at 53.6 GB/s, and cudaHostRegister of
 * the caller's array cost 28-67 ms per GiB: more than the copy itself, so the ring packs
 * instead.  The buffers are allocated once and reused (grow-only), freed by
 * gpudot_cuda_release. */
constexpr int kSlots = 3;
/* Slot size (x and y of one chunk together): half the operands, at least kSlotMin, at
 * most kSlotMid up to kSlotMidUpTo bytes of operands and kSlotMax beyond (kSlotDemote
 * where the threads demote what they pack: see kPackNtUpTo).  A chunk costs
 * more than its bytes on the H100 machine (a pack region, copy, event and launch calls:
 * ~16 us of calls a chunk in bench/stages.m), so fewer, larger chunks win until the first
 * pack and the last copy, which overlap nothing, dominate.  bench/ring_bench.cu (the
 * engine without Octave; time over the pinned-transfer floor, median of three rounds;
 * results/h100-ring-ab-*.txt):
 * with an eighth of the operands within [2, 32] MiB (before): single 2^22 1.81-1.98x,
 * 2^24 1.20-1.25x, double 2^22 1.48-1.55x, 2^24 1.16x; with 8 MiB slots: 1.47x, 1.10x,
 * 1.25x, 1.15x; 16 MiB: 1.68x, 1.14x, 1.37x, 1.02x; 4 MiB: 1.63x, 1.47x, 1.79x, 1.48x.
 * 4 slots instead of 3: no consistent gain (single 2^22 1.75x, 2^26 1.14x against 1.07x). */
constexpr size_t kSlotMin = (size_t)2 << 20;
constexpr size_t kSlotMid = (size_t)8 << 20;
constexpr size_t kSlotMidUpTo = (size_t)128 << 20;
constexpr size_t kSlotMax = (size_t)16 << 20;
/* A chunk's bytes go to the device in copies ("pieces") of up to kPiece, each queued as soon
 * as the packing threads have filled it (RingWalk), so that the copy engine waits for one
 * piece, not a whole chunk.  A copy costs ~2 us of copy-engine time beyond its bytes on the
 * H100 machine (ring_bench with uniform pieces, ratio to the pinned floor at double 2^26:
 * 1.31x with 512 KiB pieces, 1.16x 1 MiB, 1.10x 2 MiB, 1.06x 4 MiB, 1.05x whole 16 MiB
 * chunks), while small pieces start the copies sooner (single 2^22: 1.54x with 512 KiB,
 * 1.65x 2 MiB, 1.83x whole chunks).  So the call's first chunk starts with a piece of
 * kPieceFirst and doubles it up to kPiece.  Packing threads take kPackUnit bytes at a time
 * from a shared counter, so that a thread the VM deschedules holds up one unit, not a
 * fixed share of every piece.  results/h100-ring-piece-ab-2026-11-23.txt. */
constexpr size_t kPiece = (size_t)4 << 20;
constexpr size_t kPieceFirst = (size_t)256 << 10;
constexpr size_t kPackUnit = (size_t)64 << 10;
/* How the packing threads store (cpu/gpudot_pack.c).  Where the CPU has cldemote: memcpy, then
 * each line demoted from the core's caches to the shared last level (GPUDOT_PACK_DEMOTE), in
 * slots of kSlotDemote: the copy engine then reads the packed lines from the last-level
 * cache (no snoop of a core, no trip to memory), and slots this small are written again
 * while their lines are still there.  ring_bench on the H100 machine (Xeon with a 300 MiB
 * L3, 16 vCPUs; results/h100-ring-pack-ab-2026-11-23.txt), ratio to the pinned floor,
 * medians of 3-6 rounds, the former default (below) -> demote in 4 MiB slots: single
 * 2^22 1.43x -> 1.24x, 2^24 1.26x -> 1.13x, 2^26 1.11x -> 1.09x; double 2^22 1.34x ->
 * 1.19x, 2^24 1.15x -> 1.10x, 2^26 1.09x -> 1.08x.  2 and 3 MiB slots did as well up to
 * 2^24, 6 and 8 MiB worse (single 2^22 1.27-1.29x), demote in the default slots between
 * (1.36x); 4 MiB slots without demote were worse than the default slots (single 2^24
 * 1.78x).  Tried and dropped: AVX-512 streaming stores (a whole line each), as fast as
 * memcpy alone (55-63 GB/s with 15 threads) but in the ring no better than the former
 * default at 2^22 (single 1.45x) and worse from 2^24 (single 2^26 1.31x).  Also dropped:
 * demoting in 4 or 16 KiB steps interleaved with the memcpy (the pack alone 57-62 GB/s
 * against 42-60 for a unit's memcpy then its demotes, 15-16 threads), in the ring call by
 * call (ring_bench RB_PACK, three runs) -1.2 to -1.8% at single 2^22 and up to +6% at
 * single 2^26 (results/h100-ring-pack-fine-demote-2026-11-24.txt); and software prefetch
 * of the source into L2 (4-16 KiB ahead, the copy in 1 KiB steps), +2.7 to +7.8% at single
 * 2^22 (results/h100-ring-pack-prefetch-2026-11-24.txt).
 * Elsewhere (no cldemote: AMD, older Intel), the former default: calls of up to
 * kPackNtUpTo bytes of operands pack with non-temporal stores, larger ones with
 * memcpy.  ring_bench, three alternating rounds on one H100 machine, ratio to the pinned
 * floor, memcpy -> streaming stores: single 2^20 2.96-3.02x -> 1.78-1.89x, 2^22 1.78-1.80x
 * -> 1.38-1.42x, 2^23 1.38-1.41x -> 1.28-1.34x; double 2^20 2.65-2.80x -> 1.50-1.56x, 2^22
 * 1.38-1.44x -> 1.30-1.37x; but from 128 MiB worse: single 2^24 1.24x -> 1.24-1.33x, 2^26
 * 1.10-1.12x -> 1.21-1.27x, double 2^23 1.21-1.26x -> 1.22-1.30x, 2^26 1.09-1.22x ->
 * 1.20-1.23x (results/h100-ring-piece-ab-2026-11-23.txt).  With plain stores the copy
 * engine reads lines still dirty in the CPU's caches; why that wins for long calls is not
 * established. */
constexpr size_t kPackNtUpTo = (size_t)64 << 20;
constexpr size_t kSlotDemote = (size_t)4 << 20; /* slots of a ring that demotes (above) */
/* Packing runs in parallel above this many bytes, each thread taking >= kPackPerThread. */
/* (1 MiB a thread packed ~7 GB/s in all for a 2 MiB chunk on the H100 machine: one
 * thread's memcpy speed; 128 KiB puts all 16 threads on a 2 MiB chunk) */
constexpr size_t kPackPerThread = (size_t)128 << 10;
/* Outputs up to this size stay on the device until the end of a chunked call. */
constexpr size_t kOutWhole = (size_t)256 << 20;
/* Calls on host data of up to this many bytes of operands, whose outputs fit the mapped
 * area, go direct (dot_direct): the calling thread packs them into the ring's first slot
 * and one kernel reads them there over PCIe and writes its results into mapped memory,
 * where the ring's way costs a copy, events, a result copy and two stream syncs, each a
 * few us of host time on the H100 machine.  bench/host_gpu_ab.m, the ring against direct
 * calls up to 512 KiB, 3 alternating rounds on one machine (bench/results/
 * h100-host-direct-ab-2026-11-24.txt): up to 256 KiB 0.59-0.91x the ring's time (gdot of
 * 2^12 singles 60.9 -> 39.3 us, of 2^14 doubles 131.5 -> 90.0), at 512 KiB 1.34-1.54x
 * (gdot of 2^16 singles 104.0 -> 159.8 us: one thread's memcpy and the kernel's reads over
 * PCIe, unoverlapped, against the ring's threads and copy engine). */
constexpr size_t kDirectBytes = (size_t)256 << 10;

#ifdef GPUDOT_STAGES
/* The ring's timeline (gpudot_cuda_timeline): events on its streams around each copy and
 * kernel, with the host's time of queueing each. */
struct Timeline {
    static constexpr int kMax = 1024;
    cudaEvent_t ev[kMax];
    double host[kMax];
    char kind[kMax];
    size_t bytes[kMax];
    int n = 0, made = 0, on = 0;
    void mark(cudaStream_t s, char k, size_t b)
    {
        if (!on || n >= kMax)
            return;
        if (n >= made) {
            if (cudaEventCreate(&ev[n]) != cudaSuccess)
                return;
            made++;
        }
        host[n] = omp_get_wtime();
        cudaEventRecord(ev[n], s);
        kind[n] = k;
        bytes[n++] = b;
    }
} TL;
#define TL_MARK(s, k, b) TL.mark(s, k, b)
#else
#define TL_MARK(s, k, b) ((void)0)
#endif

struct Ring {
    void *host[kSlots] = {}, *dev[kSlots] = {};
    void *host_dev[kSlots] = {}; /* the device's address of host[i] (direct calls) */
    size_t cap = 0;
    int busy[kSlots] = {};
    cudaEvent_t copied[kSlots] = {}, used[kSlots] = {};
    cudaStream_t copy = nullptr, comp = nullptr;
} R;

#define CKS(call, what)                                                                    \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess && st == GPUDOT_OK)                                          \
            st = fail(e_, what);                                                           \
    } while (0)

void ring_free()
{
    for (int i = 0; i < kSlots; i++) {
        if (R.host[i] && !E.lost)
            cudaFreeHost(R.host[i]);
        if (R.dev[i] && !E.lost)
            cudaFree(R.dev[i]);
        R.host[i] = R.dev[i] = R.host_dev[i] = nullptr;
        R.busy[i] = 0;
    }
    R.cap = 0;
}

gpudot_status ring_need(size_t bytes)
{
    if (!R.copy) {
        CK(cudaStreamCreateWithFlags(&R.copy, cudaStreamNonBlocking), "cudaStreamCreate");
        CK(cudaStreamCreateWithFlags(&R.comp, cudaStreamNonBlocking), "cudaStreamCreate");
        for (int i = 0; i < kSlots; i++) {
            CK(cudaEventCreateWithFlags(&R.copied[i], cudaEventDisableTiming), "cudaEventCreate");
            CK(cudaEventCreateWithFlags(&R.used[i], cudaEventDisableTiming), "cudaEventCreate");
        }
    }
    if (bytes <= R.cap)
        return GPUDOT_OK;
    ring_free();
    for (int i = 0; i < kSlots; i++) {
        cudaError_t e = cudaHostAlloc(&R.host[i], bytes, cudaHostAllocPortable);
        if (e == cudaSuccess) /* mapped in any case on devices with unified addressing */
            e = cudaHostGetDevicePointer(&R.host_dev[i], R.host[i], 0);
        if (e == cudaSuccess)
            e = dev_malloc(&R.dev[i], bytes);
        if (e != cudaSuccess) {
            ring_free();
            return fail(e, "cudaHostAlloc / cudaMalloc (staging ring)");
        }
    }
    R.cap = bytes;
    return GPUDOT_OK;
}

/* device and pinned host bytes of the ring */
size_t ring_bytes()
{
    return 2 * kSlots * R.cap;
}

size_t align16(size_t b)
{
    return (b + 15) & ~(size_t)15;
}

/* A strided copy: `count` segments of `len` bytes, `stride` apart in src, to dst back to
 * back. */
struct CopyJob {
    char *dst;
    const char *src;
    size_t len, stride, count;
};

/* Copies bytes [b0, b1) of the jobs' sources, taken back to back (job 0's bytes, then job
 * 1's), to their places in the jobs' destinations. */
void copy_range(const CopyJob *jobs, int njobs, size_t b0, size_t b1, int way)
{
    size_t base = 0;
    for (int j = 0; j < njobs && b0 < b1; j++) {
        const CopyJob &c = jobs[j];
        size_t jb = c.len * c.count;
        while (b0 < b1 && b0 < base + jb) {
            size_t off = b0 - base, seg = off / c.len, in = off % c.len;
            size_t m = c.len - in;
            if (m > b1 - b0)
                m = b1 - b0;
            gpudot_pack_copy(c.dst + off, c.src + seg * c.stride + in, m, way);
            b0 += m;
        }
        base += jb;
    }
    gpudot_pack_fence(way); /* the stores visible before the caller counts them packed */
}

/* The job that packs the part of one operand that chunk (a0..a0+na, k0..k0+nk) needs into
 * dst; sets the operand's extents within the chunk. */
CopyJob pack_job(char *dst, const void *h, size_t es, int64_t b, int64_t k, int64_t a, int64_t a0,
                 int64_t na, int64_t k0, int64_t nk, int64_t *kc, int64_t *ac)
{
    int64_t ka0 = k > 1 ? k0 : 0, kn = k > 1 ? nk : 1;
    int64_t aa0 = a > 1 ? a0 : 0, an = a > 1 ? na : 1;
    *kc = kn;
    *ac = an;
    const char *src = (const char *)h + ((size_t)aa0 * k + ka0) * b * es;
    size_t len = (size_t)(kn * b) * es;
    if (kn == k || an == 1)
        return CopyJob{dst, src, len * an, 0, 1};
    return CopyJob{dst, src, len, (size_t)(k * b) * es, (size_t)an};
}

/* One turn of a wait loop: the CPU's pause hint, and every kSpinYield turns a yield, so that
 * a descheduled thread the loop waits for can get a CPU while every vCPU spins.  (Runs of
 * ring_bench on the H100 machine had whole rows of ~6 ms calls where others took 0.4 ms,
 * with and without the yield: it did not remove them.) */
struct Spin {
    static constexpr int kSpinYield = 256;
    int n = 0;
    void operator()()
    {
        if (++n < kSpinYield) {
#if defined(__x86_64__) || defined(__i386__)
            _mm_pause();
#endif
        } else {
            n = 0;
            sched_yield();
        }
    }
};

/*
 * One call's walk through the ring.  Chunk c (slot c % kSlots) holds outputs a0..a0+na of
 * group c / nslab and the k-slab c % nslab of their runs.  Worker threads pack the chunks'
 * bytes in order, piece by piece (the chunk's x part followed by its y part, cut into
 * pieces: piece_at), taking kPackUnit bytes of a piece at a time from a shared counter and
 * counting each unit done; the calling thread (master) publishes a slot to the workers once
 * the copies of the chunk that last used it have finished, queues each piece's copy as soon
 * as all its units are packed (packing units of it itself while it waits), and after a
 * chunk's last piece its kernel.  No barriers and no job per chunk: one pool job spans the
 * call (an OpenMP region per chunk put a thread wake-up on the copy engine's critical
 * path), and the copy engine starts after one piece instead of a whole chunk.
 */
struct RingWalk {
    const gpudot_dot_req *r;
    int has_y, whole_out, npmax;
    int way;          /* how the threads store (GPUDOT_PACK_*; kPackNtUpTo) */
    size_t esx, esy, eso, piece, first; /* largest piece; the first chunk's first piece */
    int64_t nk, a_per, k_per, nslab, nchunks;
    std::atomic<int64_t> ready[kSlots]; /* the chunk that may be packed into each slot */
    std::atomic<int> *done;             /* [slot][piece]: units of the piece packed */
    /* [slot][piece]: the chunk (high 32 bits) and the units of its piece handed out (low 32):
     * a thread late from an earlier chunk in the same slot finds another chunk there and
     * takes nothing */
    std::atomic<uint64_t> *next;
    std::atomic<int> stop;              /* the master gave up (error or interrupt) */

    struct Chunk {
        gpudot_dot_req sub;
        CopyJob jobs[2];
        int njobs;
        size_t xb, yb; /* packed bytes of x and y; y starts at align16(xb) in the slot */
        int64_t a0, na, sl;
        int npieces;
        int64_t c;
        /* the slot offset of packed byte b */
        size_t at(size_t b) const { return b < xb ? b : align16(xb) + (b - xb); }
    };

    Chunk chunk(int64_t c) const
    {
        Chunk h;
        int64_t g = c / nslab;
        h.sl = c % nslab;
        h.a0 = g * a_per;
        h.na = r->na - h.a0 < a_per ? r->na - h.a0 : a_per;
        int64_t k0 = h.sl * k_per, kn = nk - k0 < k_per ? nk - k0 : k_per;
        if (nk == 0)
            k0 = 0, kn = 0;
        h.sub = *r;
        h.sub.nk = kn;
        h.sub.na = h.na;
        h.xb = h.yb = 0;
        h.njobs = 0;
        char *hx = (char *)R.host[c % kSlots];
        if (kn > 0) {
            h.jobs[0] = pack_job(hx, r->x, esx, r->bx, r->kx, r->ax, h.a0, h.na, k0, kn,
                                 &h.sub.kx, &h.sub.ax);
            h.xb = h.jobs[0].len * h.jobs[0].count;
            h.njobs = 1;
            if (has_y) {
                h.jobs[1] = pack_job(hx + align16(h.xb), r->y, esy, r->by, r->ky, r->ay, h.a0,
                                     h.na, k0, kn, &h.sub.ky, &h.sub.ay);
                h.yb = h.jobs[1].len * h.jobs[1].count;
                h.njobs = 2;
            }
        } else {
            h.sub.kx = h.sub.ky = 0;
            h.sub.ax = r->ax > 1 ? h.na : 1;
            h.sub.ay = r->ay > 1 ? h.na : 1;
        }
        h.c = c;
        h.npieces = 0;
        for (size_t lo, hi; piece_at(h, h.npieces, &lo, &hi), lo < hi;)
            h.npieces++;
        return h;
    }

    /* packed bytes [lo, hi) of piece p of chunk h: pieces of `piece` bytes, but in the
     * call's first chunk first, 2 first, 4 first, ... up to `piece` */
    void piece_at(const Chunk &h, int p, size_t *lo, size_t *hi) const
    {
        size_t total = h.xb + h.yb, sz = h.c == 0 && first < piece ? first : piece, o = 0;
        int i = 0;
        for (; i < p && sz < piece; i++) {
            o += sz;
            sz = 2 * sz < piece ? 2 * sz : piece;
        }
        o += (size_t)(p - i) * sz;
        *lo = o < total ? o : total;
        *hi = o + sz < total ? o + sz : total;
    }

    int units(size_t lo, size_t hi) const { return (int)((hi - lo + kPackUnit - 1) / kPackUnit); }
    std::atomic<int> &count(int64_t c, int p) { return done[(c % kSlots) * npmax + p]; }
    std::atomic<uint64_t> &handed(int64_t c, int p) { return next[(c % kSlots) * npmax + p]; }

    /* takes one unit of piece p ([lo, hi)) of chunk h (published) and packs it; false where
     * every unit is taken (or the slot holds a later chunk already) */
    bool pack_unit(const Chunk &h, int p, size_t lo, size_t hi)
    {
        std::atomic<uint64_t> &nx = handed(h.c, p);
        uint64_t nu = (uint64_t)units(lo, hi), v = nx.load(std::memory_order_relaxed);
        do {
            if (v >> 32 != (uint64_t)h.c || (v & 0xffffffffu) >= nu)
                return false;
        } while (!nx.compare_exchange_weak(v, v + 1, std::memory_order_relaxed));
        size_t b = lo + (size_t)(v & 0xffffffffu) * kPackUnit;
        copy_range(h.jobs, h.njobs, b, hi - b < kPackUnit ? hi : b + kPackUnit, way);
        count(h.c, p).fetch_add(1, std::memory_order_release);
        return true;
    }

    /* a packing thread: units of every piece of every chunk, as they come */
    void worker()
    {
        for (int64_t c = 0; c < nchunks; c++) {
            Chunk h = chunk(c);
            /* (past c: the others packed all of chunk c while this thread was away) */
            for (Spin spin; ready[c % kSlots].load(std::memory_order_acquire) < c; spin())
                if (stop.load(std::memory_order_relaxed))
                    return;
            for (int p = 0; p < h.npieces; p++) {
                size_t lo, hi;
                piece_at(h, p, &lo, &hi);
                do
                    if (stop.load(std::memory_order_relaxed))
                        return;
                while (pack_unit(h, p, lo, hi));
            }
        }
    }

    /* the calling thread: slots, copies, kernels, result copies (nw = 0: packs too) */
    gpudot_status master(int nw, gpudot_poll_fn poll)
    {
        gpudot_status st = GPUDOT_OK;
        int64_t pub = 0, c = 0; /* next chunk to publish; chunk being queued */
        int p = 0;              /* its next piece */
        Chunk h = chunk(0);
        bool waiting = false;
        Spin spin;
        while (c < nchunks && st == GPUDOT_OK) {
            /* slots free for the chunks ahead: their last copies (kSlots chunks back) done */
            while (pub < nchunks && pub < c + kSlots) {
                int s = (int)(pub % kSlots);
                if (R.busy[s]) {
                    cudaError_t q = cudaEventQuery(R.copied[s]);
                    if (q == cudaErrorNotReady)
                        break;
                    CKS(q, "cudaMemcpyAsync (upload)");
                    if (st)
                        break;
                }
                for (int i = 0; i < npmax; i++) {
                    done[s * npmax + i].store(0, std::memory_order_relaxed);
                    next[s * npmax + i].store((uint64_t)pub << 32, std::memory_order_relaxed);
                }
                ready[s].store(pub, std::memory_order_release);
                pub++;
            }
            if (st)
                break;
            /* wait until chunk c's slot is published and its next piece packed */
            size_t lo = 0, hi = 0;
            if (p < h.npieces)
                piece_at(h, p, &lo, &hi);
            if (c >= pub || (p < h.npieces && nw > 0 &&
                             count(c, p).load(std::memory_order_acquire) < units(lo, hi))) {
                if (!waiting)
                    GPUDOT_MARK(GPUDOT_STAGE_RING_LOOP);
                waiting = true;
                /* the piece it waits for: it packs units of it too, so that the call goes
                 * on where packing threads came late or not at all */
                if (c >= pub || !pack_unit(h, p, lo, hi))
                    spin();
                continue;
            }
            if (waiting)
                GPUDOT_MARK(GPUDOT_STAGE_SLOT_WAIT);
            waiting = false;
            int s = (int)(c % kSlots);
            char *hx = (char *)R.host[s], *dx = (char *)R.dev[s];
            /* once a chunk: the device slot is free once the kernel that last read it finished */
            if (p == 0 && R.busy[s])
                CKS(cudaStreamWaitEvent(R.copy, R.used[s], 0), "cudaStreamWaitEvent");
            if (p < h.npieces) {
                if (nw == 0)
                    copy_range(h.jobs, h.njobs, lo, hi, way);
                size_t d0 = h.at(lo), d1 = h.at(hi - 1) + 1;
                TL_MARK(R.copy, 'c', d1 - d0);
                CKS(cudaMemcpyAsync(dx + d0, hx + d0, d1 - d0, cudaMemcpyHostToDevice, R.copy),
                    "cudaMemcpyAsync (upload)");
                TL_MARK(R.copy, 'C', d1 - d0);
                p++;
                continue;
            }
            /* all of chunk c queued: its kernel after its copies */
            CKS(cudaEventRecord(R.copied[s], R.copy), "cudaEventRecord");
            CKS(cudaStreamWaitEvent(R.comp, R.copied[s], 0), "cudaStreamWaitEvent");
            if (st)
                break;
            void *dout = (char *)E.out.p + (whole_out ? (size_t)(h.a0 * r->nb) * eso : 0);
            TL_MARK(R.comp, 'k', 0);
            if ((st = run_kernel(&h.sub, dx, dx + align16(h.xb), dout, h.sl > 0, h.sl == nslab - 1)))
                break;
            TL_MARK(R.comp, 'K', 0);
            CKS(cudaEventRecord(R.used[s], R.comp), "cudaEventRecord");
            R.busy[s] = 1;
            if (!whole_out && h.sl == nslab - 1)
                CKS(cudaMemcpyAsync((char *)r->out + (size_t)(h.a0 * r->nb) * eso, E.out.p,
                                    (size_t)(h.na * r->nb) * eso, cudaMemcpyDeviceToHost, R.comp),
                    "kernel or cudaMemcpy (result)");
            if (st == GPUDOT_OK && poll && poll())
                st = GPUDOT_INTERRUPTED;
            if (++c < nchunks)
                h = chunk(c);
            p = 0;
        }
        return st;
    }
};

/* The ring on the CPU engine's pool (cpu/gpudot_pool.c): the calling thread is the master,
 * pool threads that come take packing tasks.  (With an OpenMP region the call also waited
 * at its end for every thread of the team, one the hypervisor had not run yet included.) */
struct RingLead {
    RingWalk *w;
    gpudot_poll_fn poll;
};

static void ring_worker(void *ctx, int64_t)
{
    static_cast<RingWalk *>(ctx)->worker();
}

static int ring_master(void *lctx, int posted)
{
    RingLead *l = static_cast<RingLead *>(lctx);
    gpudot_status st = l->w->master(posted, l->poll);
    if (st != GPUDOT_OK)
        l->w->stop.store(1);
    return st;
}

/* ---- the reduction ladder (gdot (..., "kernel", K)) ---- */

template <typename T, typename A>
gpudot_status ladder_run(int kernel, const T *dx, const T *dy, int64_t n, A *result,
                                float *ms)
{
    using namespace gpudot::ladder;
    gpudot_status st = GPUDOT_OK;
    int64_t blocks_n = (n + kLThreads - 1) / kLThreads;
    int64_t one_wave = (int64_t)E.prop.multiProcessorCount * (2048 / kLThreads);
    /* atomic and shared: one element per thread (grid x is at most 2^31 - 1 blocks; the
     * atomic kernel strides beyond); shuffle and vector: one wave of blocks */
    int64_t grid = kernel <= 1 ? blocks_n : one_wave;
    if (grid > kMaxGridX)
        grid = kMaxGridX;
    if (grid < 1)
        grid = 1;
    if (kernel == 1 && blocks_n > kMaxGridX) {
        snprintf(E.err, sizeof E.err, "the shared kernel takes at most 2^31 - 1 blocks");
        return GPUDOT_SIZE_MISMATCH;
    }
    size_t need = kernel == 1 ? (size_t)blocks_n * sizeof(A) : sizeof(A);
    if ((st = buf_need(E.out, need < 256 ? 256 : need, "cudaMalloc (out)")))
        return st;
    A *d = (A *)E.out.p;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0), "cudaEventCreate");
    CK(cudaEventCreate(&e1), "cudaEventCreate");
    cudaMemsetAsync(d, 0, sizeof(A));
    cudaEventRecord(e0);
    if (n > 0) {
        if (kernel == 0)
            k_atomic<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else if (kernel == 1)
            k_shared<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else if (kernel == 2)
            k_shuffle<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
        else
            k_vector<T, A><<<(unsigned)grid, kLThreads>>>(dx, dy, n, d);
    }
    cudaEventRecord(e1);
    cudaError_t e = cudaEventSynchronize(e1);
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

} // namespace

extern "C" {

int gpudot_cuda_available(void)
{
    return probe() == GPUDOT_OK;
}

gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info)
{
    memset(info, 0, sizeof *info);
    info->built_with_cuda = 1;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    if (probe() != GPUDOT_OK)
        return GPUDOT_OK;
    info->available = 1;
    info->device = E.device;
    snprintf(info->name, sizeof info->name, "%s", E.prop.name);
    info->cc_major = E.prop.major;
    info->cc_minor = E.prop.minor;
    info->sm_count = E.prop.multiProcessorCount;
    CK(cudaMemGetInfo(&info->mem_free, &info->mem_total), "cudaMemGetInfo");
    info->staging_bytes = held();
    return GPUDOT_OK;
}

int gpudot_cuda_holds_memory(void)
{
    return held() > 0;
}

int gpudot_cuda_lost(void)
{
    return E.lost;
}

gpudot_status gpudot_cuda_inject(int fault)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    E.fault = fault;
    return GPUDOT_OK;
}

void gpudot_cuda_release(void)
{
    buf_free(E.x);
    buf_free(E.y);
    buf_free(E.out);
    buf_free(E.carry);
    buf_free(E.partials);
    buf_free(E.tickets);
    E.tickets_n = 0;
    buf_free(E.slots);
    E.slots_n = 0;
    if (E.mapped && !E.lost)
        cudaFreeHost(E.mapped);
    E.mapped = E.mapped_dev = nullptr;
    ring_free();
}

const char *gpudot_cuda_last_error(void)
{
    return E.err;
}

void gpudot_cuda_set_staging_cap(size_t bytes, size_t piece, int pack)
{
    E.staging_cap = bytes;
    E.piece = piece;
    E.pack = pack > GPUDOT_PACK_AUTO && pack < GPUDOT_PACK_NWAYS ? pack : GPUDOT_PACK_AUTO;
}

void gpudot_cuda_set_tile_from(size_t bytes, int blocks)
{
    E.tile_from = bytes;
    E.blocks_cap = blocks;
}

void gpudot_cuda_set_runtime_launch(int on)
{
    E.runtime_launch = on != 0;
}

/* Validates a request and makes sure a device is there. */
static gpudot_status begin(const gpudot_dot_req *r)
{
    gpudot_status st = gpudot_check_req(r);
    return st != GPUDOT_OK ? st : probe();
}

/* Whether all outputs fit one launch's grid (unchunked paths). */
static gpudot_status one_launch(const gpudot_dot_req *r)
{
    int64_t nout = r->nb * r->na;
    int64_t gx = r->nb > 1 ? (nout + kThreads - 1) / kThreads : r->na;
    if (gx <= kMaxGridX / 64)
        return GPUDOT_OK;
    snprintf(E.err, sizeof E.err, "%lld outputs are more than one launch takes", (long long)nout);
    return GPUDOT_SIZE_MISMATCH;
}

/* The mapped pinned area that small results are written to, allocated on first use. */
static gpudot_status mapped_area()
{
    if (!E.mapped) {
        CK(cudaHostAlloc(&E.mapped, kMappedBytes, cudaHostAllocMapped), "cudaHostAlloc");
        CK(cudaHostGetDevicePointer(&E.mapped_dev, E.mapped, 0), "cudaHostGetDevicePointer");
    }
    return GPUDOT_OK;
}

/* Fills the first nw words (of wsize bytes: 4 or 8) of the mapped area with the empty mark
 * that the kernel about to be launched replaces with values. */
static void mark_empty(size_t nw, size_t wsize)
{
    if (wsize == 4)
        std::fill_n((unsigned *)E.mapped, nw, kOutEmpty32);
    else
        std::fill_n((unsigned long long *)E.mapped, nw, kOutEmpty64);
}

static bool word_empty(size_t i, size_t wsize)
{
    return wsize == 4 ? ((volatile unsigned *)E.mapped)[i] == kOutEmpty32
                      : ((volatile unsigned long long *)E.mapped)[i] == kOutEmpty64;
}

/* Waits for the kernel just launched on E.stream to fill the nw words that mark_empty
 * marked.  Spinning on mapped memory answers a few us sooner than a stream sync.  A
 * faulting kernel never fills them, so the spin asks the stream now and then and is
 * bounded; the sync after it reports any fault.  gdot's small calls and __ping__ (their
 * floor in the benchmark) share it. */
static gpudot_status wait_marked(size_t nw, size_t wsize, const char *what)
{
    size_t i = 0;
    for (long spin = 0; nw > 0 && spin < kSpinLimit; spin++) {
        while (i < nw && !word_empty(i, wsize))
            i++;
        if (i == nw) {
            E.tail0 = E.stream == 0;
            return GPUDOT_OK;
        }
        if ((spin & 4095) == 4095 && cudaStreamQuery(E.stream) != cudaErrorNotReady)
            break;
    }
    CK(cudaStreamSynchronize(E.stream), what);
    while (i < nw && !word_empty(i, wsize))
        i++;
    if (i < nw) { /* a finished kernel left an output unwritten: never silently a NaN */
        snprintf(E.err, sizeof E.err, "%s: output %zu of %zu not written", what, i, nw);
        return GPUDOT_CUDA;
    }
    return GPUDOT_OK;
}

/* One launch whose bo bytes of outputs (at most kMappedBytes) come back through the mapped
 * area: its words marked empty, the kernel writing them, the host spinning until none is
 * empty, then copying them out. */
static gpudot_status run_mapped(const gpudot_dot_req *r, const void *dx, const void *dy, size_t bo)
{
    gpudot_status st;
    if ((st = mapped_area()))
        return st;
    size_t ws = esize(r->type, 0);
    mark_empty(bo / ws, ws);
    GPUDOT_MARK(GPUDOT_STAGE_BUFFERS);
    if ((st = run_kernel(r, dx, dy, E.mapped_dev, 0, 1, 1)))
        return st;
    GPUDOT_MARK(GPUDOT_STAGE_DRAIN);
    if ((st = wait_marked(bo / ws, ws, "kernel")))
        return st;
    GPUDOT_MARK(GPUDOT_STAGE_WAIT);
    memcpy(r->out, E.mapped, bo);
    return GPUDOT_OK;
}

/* Some operand is resident on the device: host operands (small, typically a query) are
 * uploaded whole for this call, one launch, the result copied back.  No chunking: the
 * resident operand is already on the device, the host one must fit beside it. */
static gpudot_status dot_resident(const gpudot_dot_req *r)
{
    int has_y = r->op != GPUDOT_OP_NORM;
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    size_t esx = esize(r->type, r->cx), esy = esize(r->type, r->cy), eso = esize(r->type, cplx);
    size_t bx = (size_t)(r->bx * r->kx * r->ax) * esx, by = (size_t)(r->by * r->ky * r->ay) * esy;
    size_t bo = (size_t)(r->nb * r->na) * eso;
    gpudot_status st;
    GPUDOT_MARK(GPUDOT_STAGE_ENGINE_ENTRY);
    if ((st = one_launch(r)))
        return st;
    const void *dx = r->x, *dy = r->y;
    if (!r->x_dev) {
        if ((st = buf_need(E.x, bx, "cudaMalloc (x)")))
            return st;
        CK(cudaMemcpy(E.x.p, r->x, bx, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
        dx = E.x.p;
    }
    if (has_y && !r->y_dev) {
        if ((st = buf_need(E.y, by, "cudaMalloc (y)")))
            return st;
        CK(cudaMemcpy(E.y.p, r->y, by, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
        dy = E.y.p;
    }
    if (bo <= kMappedBytes)
        return run_mapped(r, dx, dy, bo);
    if ((st = buf_need(E.out, bo, "cudaMalloc (out)")))
        return st;
    if ((st = run_kernel(r, dx, dy, E.out.p, 0, 1)))
        return st;
    CK(cudaMemcpy(r->out, E.out.p, bo, cudaMemcpyDeviceToHost), "kernel or cudaMemcpy (result)");
    return GPUDOT_OK;
}

/* A small call on host data in one launch (kDirectBytes): the operands packed by the calling
 * thread into the ring's first slot (free: every call leaves both ring streams idle), read
 * there by the kernel (pinned memory, mapped), the results written into the mapped area. */
static gpudot_status dot_direct(const gpudot_dot_req *r, int has_y, size_t esx, size_t esy,
                                size_t bo, int way)
{
    gpudot_dot_req sub = *r;
    char *h = (char *)R.host[0], *hd = (char *)R.host_dev[0];
    CopyJob jobs[2];
    jobs[0] = pack_job(h, r->x, esx, r->bx, r->kx, r->ax, 0, r->na, 0, r->nk, &sub.kx, &sub.ax);
    size_t xb = jobs[0].len * jobs[0].count, yb = 0;
    if (has_y) {
        jobs[1] = pack_job(h + align16(xb), r->y, esy, r->by, r->ky, r->ay, 0, r->na, 0, r->nk,
                           &sub.ky, &sub.ay);
        yb = jobs[1].len * jobs[1].count;
    }
    copy_range(jobs, has_y ? 2 : 1, 0, xb + yb, way);
    return run_mapped(&sub, hd, hd + align16(xb), bo);
}

static gpudot_status dot_pass(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK)
        return st;
    if (r->nb == 0 || r->na == 0)
        return GPUDOT_OK;
    if (r->x_dev || (r->y_dev && r->op != GPUDOT_OP_NORM))
        return dot_resident(r);
    int has_y = r->op != GPUDOT_OP_NORM;
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    size_t esx = esize(r->type, r->cx), esy = has_y ? esize(r->type, r->cy) : 0;
    size_t eso = esize(r->type, cplx);
    int64_t nk = r->nk > 0 ? r->nk : 0;

    size_t out_all = (size_t)(r->nb * r->na) * eso;
    size_t bx_all = (size_t)(r->bx * r->kx * r->ax) * esx, by_all = (size_t)(r->by * r->ky * r->ay) * esy;

    /* How the threads store (see kPackNtUpTo); slot size (see kSlotMid, kSlotDemote):
     * packing, copying and reducing overlap from the second chunk on; the test cap forces
     * small chunks. */
    int way = gpudot_pack_way(E.pack != GPUDOT_PACK_AUTO ? E.pack : GPUDOT_PACK_DEMOTE);
    if (E.pack == GPUDOT_PACK_AUTO && way != GPUDOT_PACK_DEMOTE)
        way = bx_all + by_all <= kPackNtUpTo ? GPUDOT_PACK_STREAM : GPUDOT_PACK_PLAIN;
    size_t want = (bx_all + by_all) / 2;
    size_t most = way == GPUDOT_PACK_DEMOTE             ? kSlotDemote
                  : bx_all + by_all > kSlotMidUpTo ? kSlotMax
                                                    : kSlotMid;
    want = want < kSlotMin ? kSlotMin : want > most ? most : want;
    want = (want + (1 << 20) - 1) & ~(size_t)((1 << 20) - 1);
    GPUDOT_MARK(GPUDOT_STAGE_ENGINE_ENTRY);
    if ((st = ring_need(want)))
        return st;
    GPUDOT_MARK(GPUDOT_STAGE_BUFFERS);
    size_t budget = want - 64; /* room to align y's part to 16 bytes */
    if (E.staging_cap && E.staging_cap < budget)
        budget = E.staging_cap;

    /* Plan: whole runs, as many outputs (a) per chunk as fit; if one a does not fit, k-slabs
     * of a single a, their states carried from chunk to chunk. */
    size_t per_a = (r->ax > 1 ? (size_t)(r->bx * r->kx) * esx : 0) +
                   (r->ay > 1 ? (size_t)(r->by * r->ky) * esy : 0);
    size_t fixed = (r->ax > 1 ? 0 : (size_t)(r->bx * r->kx) * esx) +
                   (r->ay > 1 ? 0 : (size_t)(r->by * r->ky) * esy);
    int64_t a_per, k_per;
    if (fixed + per_a <= budget) {
        a_per = per_a ? (int64_t)((budget - fixed) / per_a) : r->na;
        a_per = a_per > r->na ? r->na : a_per < 1 ? 1 : a_per;
        int64_t grid_cap = r->nb > 1 ? kMaxGridX / ((r->nb + kThreads - 1) / kThreads) : kMaxGridX / 64;
        a_per = a_per > grid_cap ? (grid_cap > 0 ? grid_cap : 1) : a_per;
        k_per = nk;
    } else {
        size_t per_k = (r->kx > 1 ? (size_t)r->bx * esx : 0) + (r->ky > 1 ? (size_t)r->by * esy : 0);
        size_t fixed_k = (r->kx > 1 ? 0 : (size_t)r->bx * esx) + (r->ky > 1 ? 0 : (size_t)r->by * esy);
        if (fixed_k + per_k > budget || per_k == 0) {
            snprintf(E.err, sizeof E.err, "needs %zu bytes of staging for one slice, %zu usable",
                     fixed_k + per_k, budget);
            return GPUDOT_OUT_OF_MEMORY;
        }
        a_per = 1;
        k_per = (int64_t)((budget - fixed_k) / per_k);
        k_per = k_per > nk ? nk : k_per;
    }
    if (nk == 0)
        k_per = 0;
    int64_t nslab = k_per > 0 ? (nk + k_per - 1) / k_per : 1;
    int64_t ngroup = (r->na + a_per - 1) / a_per;
    /* (the ring's test hooks, a cap, a piece size or a way of packing, keep calls in the ring) */
    if (ngroup * nslab == 1 && nk > 0 && bx_all + by_all <= kDirectBytes && out_all <= kMappedBytes &&
        !E.staging_cap && !E.piece && E.pack == GPUDOT_PACK_AUTO)
        return dot_direct(r, has_y, esx, esy, out_all, way);

    /* Outputs stay on the device until the end, unless there are very many of them. */
    int whole_out = out_all <= kOutWhole;
    if ((st = buf_need(E.out, whole_out ? out_all : (size_t)(r->nb * a_per) * eso, "cudaMalloc (out)")))
        return st;
    if (nslab > 1 && (st = buf_need(E.carry, (size_t)r->nb * sizeof(State), "cudaMalloc (carry)")))
        return st;

    RingWalk w;
    w.r = r;
    w.has_y = has_y;
    w.esx = esx, w.esy = esy, w.eso = eso;
    w.nk = nk, w.a_per = a_per, w.k_per = k_per, w.nslab = nslab;
    w.nchunks = ngroup * nslab;
    w.whole_out = whole_out;
    w.way = way;
    w.piece = E.piece ? E.piece : kPiece;
    w.first = kPieceFirst < w.piece ? kPieceFirst : w.piece;
    w.npmax = (int)(want / w.first + 2);
    std::unique_ptr<std::atomic<int>[]> done(new (std::nothrow) std::atomic<int>[kSlots * w.npmax]);
    std::unique_ptr<std::atomic<uint64_t>[]> next(new (std::nothrow) std::atomic<uint64_t>[kSlots * w.npmax]);
    if (!done || !next) {
        snprintf(E.err, sizeof E.err, "no host memory for the staging ring's counters");
        return GPUDOT_OUT_OF_MEMORY;
    }
    w.done = done.get();
    w.next = next.get();
    for (int i = 0; i < kSlots; i++)
        w.ready[i].store(-1);
    w.stop.store(0);
    /* A small call's kernel on stream 0 can still be ending when its results are seen (its
     * last block empties the tickets after writing them); the ring's streams are not
     * ordered after stream 0, and share the workspace. */
    if (E.tail0) {
        CK(cudaStreamSynchronize(0), "kernel");
        E.tail0 = 0;
    }
    E.stream = R.comp;
    /* threads: the calling one, which queues the copies and kernels (and packs where it is
     * alone or waits for a piece), and packing ones from the pool, one per kPackPerThread
     * of the call's bytes, up to every processor (as OpenMP would use them).  Packing bounds
     * the ring (bench/results/h100-ring-threads-2026-11-24.txt: 8, 10, 12 and 15 threads,
     * call by call in one process, single 2^22 1138 / 944 / 826 / 742 us).  Until
     * 2026-11-24 one processor was left to the CUDA driver's threads: 16 threads against 15
     * on the 16-vCPU H100 machine, call by call, 4 runs of 2^20-2^24 (RB_AB; results/
     * h100-ring-threads-2026-11-24.txt): shorter in 32 of 40 rows, single 2^22 876.9 /
     * 748.8 / 781.7 / 741.1 us against 900.6 / 752.4 / 785.9 / 755.8. */
    int procs = omp_get_num_procs();
    int nt = gpudot_workers((int64_t)(bx_all + by_all), (int64_t)kPackPerThread, procs);
    RingLead lead{&w, poll};
#ifdef GPUDOT_STAGES
    TL.n = 0;
    TL_MARK(R.copy, 'S', 0);
#endif
    st = (gpudot_status)gpudot_pool_lead(nt - 1, ring_worker, &w, ring_master, &lead);
    GPUDOT_MARK(GPUDOT_STAGE_PACK);
    TL_MARK(R.comp, 'r', 0);
    if (st == GPUDOT_OK && whole_out)
        CKS(cudaMemcpyAsync(r->out, E.out.p, out_all, cudaMemcpyDeviceToHost, R.comp),
            "kernel or cudaMemcpy (result)");
    /* every exit waits for both streams: nothing of this call runs on after it returns */
    GPUDOT_MARK(GPUDOT_STAGE_DRAIN);
    cudaError_t e1 = cudaStreamSynchronize(R.comp), e2 = cudaStreamSynchronize(R.copy);
    GPUDOT_MARK(GPUDOT_STAGE_WAIT);
    E.stream = 0;
    if (st == GPUDOT_OK && (e1 != cudaSuccess || e2 != cudaSuccess))
        st = fail(e1 != cudaSuccess ? e1 : e2, "kernel or cudaMemcpy (result)");
    return st;
}

#ifdef GPUDOT_STAGES
int gpudot_cuda_timeline(int on, double *gpu_us, double *host_us, char *kind, size_t *bytes, int max)
{
    TL.on = on;
    int n = TL.n < max ? TL.n : max;
    for (int i = 0; i < n; i++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, TL.ev[0], TL.ev[i]) != cudaSuccess)
            ms = -1;
        gpu_us[i] = 1e3 * ms;
        host_us[i] = 1e6 * (TL.host[i] - TL.host[0]);
        kind[i] = TL.kind[i];
        bytes[i] = TL.bytes[i];
    }
    return n;
}
#endif

/* The fast variant first; the scaled algorithm where it could not vouch for an output
 * (NaN: extreme magnitudes, Inf or NaN elements, zero vectors). */
gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    return gpudot_two_step(r, poll, dot_pass);
}

gpudot_status gpudot_cuda_reduce_dev(const gpudot_dot_req *r0)
{
    gpudot_dot_req f = *r0, *r = &f;
    gpudot_fast_variant(r);
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK || r->nb == 0 || r->na == 0)
        return st;
    if ((st = one_launch(r)))
        return st;
    return run_kernel(r, r->x, r->y, r->out, 0, 1);
}

/* One real dot product with ladder kernel `kernel` (0 atomic, 1 shared, 2 shuffle,
 * 3 vector, 4 fused).  Host operands go the textbook way: cudaMalloc and cudaMemcpy per
 * call, freed after.  *ms: the kernels' time between CUDA events (no copies). */
gpudot_status gpudot_cuda_ladder(const gpudot_dot_req *r, int kernel, double *ms)
{
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK)
        return st;
    if (r->op != GPUDOT_OP_DOT || r->cx || r->cy || r->nb != 1 || r->na != 1 ||
        r->accum == GPUDOT_ACC_COMP || kernel < 0 || kernel > 4)
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
        gpudot_dot_req q = *r;
        q.x_dev = q.y_dev = 1;
        q.x = dx, q.y = dy;
        q.bx = q.by = q.ax = q.ay = 1;
        q.kx = q.ky = n;
        int cplx = 0;
        if ((st = buf_need(E.out, 256, "cudaMalloc (out)")) == GPUDOT_OK) {
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            cudaEventRecord(e0);
            st = n > 0 ? run_kernel(&q, dx, dy, E.out.p, 0, 1) : GPUDOT_OK;
            if (n == 0)
                cudaMemsetAsync(E.out.p, 0, es);
            cudaEventRecord(e1);
            e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                cudaEventElapsedTime(&t, e0, e1);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            if (st == GPUDOT_OK && e != cudaSuccess)
                st = fail(e, "kernel");
            if (st == GPUDOT_OK)
                CKS(cudaMemcpy(r->out, E.out.p, esize(r->type, cplx), cudaMemcpyDeviceToHost),
                    "cudaMemcpy (result)");
        }
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

/* The floor of a small call: a kernel that writes one value into mapped memory, the host
 * spinning on it, as dot_resident does for a one-output result. */
__global__ void ping_kernel(double *out)
{
    store_marked(out, 1.0);
}

gpudot_status gpudot_cuda_ping(void)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    if ((st = mapped_area()))
        return st;
    mark_empty(1, 8);
    ping_kernel<<<1, 1, 0, E.stream>>>((double *)E.mapped_dev);
    CK(cudaGetLastError(), "kernel launch");
    /* dot_resident's own wait (an earlier copy without its stream queries read 46 us a
     * call in one H100 run whose resident gdot calls took 18-23 us) */
    return wait_marked(1, 8, "kernel");
}

gpudot_status gpudot_cuda_malloc(void **d, size_t bytes)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    *d = nullptr;
    CK(dev_malloc(d, bytes ? bytes : 1), "cudaMalloc");
    return GPUDOT_OK;
}

void gpudot_cuda_free(void *d)
{
    if (d && !E.lost)
        cudaFree(d);
}

gpudot_status gpudot_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    if (bytes == 0)
        return GPUDOT_OK;
    CK(cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
       to_device ? "cudaMemcpy (upload)" : "cudaMemcpy (download)");
    return GPUDOT_OK;
}

gpudot_status gpudot_cuda_sync(void)
{
    CK(cudaDeviceSynchronize(), "kernel");
    return GPUDOT_OK;
}

} // extern "C"
