/*
 * CUDA engine: planning and launching the kernels on device data (garrays, and host
 * operands uploaded for one call), results through mapped memory where they are small.
 * The constants are in tuning.h.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine.cuh"

namespace gpudot
{

/* ---- launch: one kernel per (op, type, mode, complexity) chosen at run time ---- */

/* The engine's kernels launch through the driver's cuLaunchKernel, found once through the
 * runtime (no link against libcuda), with each kernel's CUfunction looked up on its first
 * launch; <<<>>> where either is missing, or under the test hook.  On the H100 VM the
 * runtime's launch of an empty kernel took 0.1-0.5 us more host time, and small resident
 * calls through the engine were 0.3-0.6 us shorter with the driver's.  A device's kernels
 * are launched by one thread at a time (the calling thread, or the master of a call's part
 * on that device: ring.cu), and their lookups are cached per device, so they need no lock;
 * the entry point is found once (a static, initialised under C++'s guard).  The driver's errors
 * have the runtime's numbers (CUDA_ERROR_INVALID_VALUE is cudaErrorInvalidValue, ...):
 * E->launch_err carries one to run_kernel's check. */
cu_launch_fn cu_launch()
{
    static const cu_launch_fn f = [] {
        void *fp = nullptr;
        cudaDriverEntryPointQueryResult q;
        int found = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000,
                                                     cudaEnableDefault, &q) == cudaSuccess &&
                    q == cudaDriverEntryPointSuccess;
        cudaGetLastError();
        return found ? (cu_launch_fn)fp : nullptr;
    }();
    return f;
}

std::atomic<long> g_staged_launches{0};

/* The launcher of r's op and element type (cuda/kernels.cu, one object per pair). */
static launch_fn launcher(const gpudot_dot_req *r)
{
    static launch_fn const fns[3][2] = {{launch_dot_f32, launch_dot_f64},
                                        {launch_norm_f32, launch_norm_f64},
                                        {launch_cos_f32, launch_cos_f64}};
    int op = r->op == GPUDOT_OP_DOT ? 0 : r->op == GPUDOT_OP_NORM ? 1 : 2;
    return fns[op][r->type == GPUDOT_F64];
}

/* Launches r's kernel; a launch error the driver returns lands in E->launch_err. */
void launch_any(const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    LaunchCtx c{E->stream,
                E->runtime_launch ? nullptr : cu_launch(),
                E->prop.multiProcessorCount,
                cudaSuccess,
                E->device,
                E->fixed,
                E->prop.major >= 8 && !E->no_staged,
                nullptr};
    launcher(r)(c, L, p, r);
    if (c.err != cudaSuccess)
        E->launch_err = c.err;
}

/* The same launchers' host side: each output the merge of its chunks' states, in order. */
void merge_on_host(const gpudot_dot_req *r, const State *states, int64_t nchunks, int64_t nout,
                   void *out)
{
    HostMerge m{states, nchunks, nout, out};
    LaunchCtx c{0, nullptr, 0, cudaSuccess, 0, 1, 0, &m};
    Launch L{};
    Args p{};
    launcher(r)(c, L, p, r);
}

/* Warp columns: the rounds of outputs a warp sums before it finishes them (cosines, in
 * columns_warp_batched; p.batch 0: the Op's plain loop, a round at a time), as many as
 * it has lanes to finish them while every warp an SM holds gets kWarpRounds rounds;
 * returns the blocks those rounds need */
static int64_t warp_columns(Args &p)
{
    int64_t per = 32 / p.lanes;
    int64_t warps = (int64_t)E->prop.multiProcessorCount * (kThreads / 32) * kBlocksPerSM;
    if (p.batch) {
        p.batch = p.lanes;
        while (p.batch > 1 && (E->warp_batch ? p.batch > E->warp_batch
                                             : p.na / (per * p.batch) < kWarpRounds * warps))
            p.batch /= 2;
    }
    int64_t per_block = (kThreads / 32) * per * (p.batch ? p.batch : 1);
    return (p.na + per_block - 1) / per_block;
}

/* Grid shape for an nb x na output with runs of nk (vecs 16-byte vectors of the wider
 * operand); sets p.splits.  Split runs plan for at most split_per_sm blocks an SM; runs of
 * kSplitMinRun and more split whatever the outputs where split_all is set (cosines). */
Launch plan_launch(Args &p, int split_per_sm, int64_t vecs, int split_all)
{
    Launch L;
    int64_t tb =
        E->blocks_cap && E->blocks_cap < E->target_blocks ? E->blocks_cap : E->target_blocks;
    if (p.nb == 1 && E->fixed) {
        /* sharded calls: each output's blocks from its run's length alone (warp columns
         * below kSplitMinRun), so that its bits do not depend on how many outputs a launch
         * holds */
        int64_t ts = (int64_t)E->prop.multiProcessorCount * split_per_sm;
        int64_t most = (p.nk + kMinPerBlock - 1) / kMinPerBlock;
        if (p.nk < kSplitMinRun) {
            int64_t blocks = warp_columns(p);
            p.splits = 1;
            L.kind = 1;
            L.grid = dim3((unsigned)(blocks < tb * 4 ? blocks : tb * 4));
        } else {
            p.splits = (int)(ts < most ? ts : most);
            L.kind = 0;
            L.grid = dim3((unsigned)(p.na * p.splits));
        }
    } else if (p.nb == 1) {
        if (p.na == 1 && vecs > kWarpRoundVecs && vecs <= kOneBlockVecs) {
            p.splits = 1;
            L.kind = 0;
            L.grid = dim3(1);
        } else if (p.nk >= kSplitMinRun && (p.na < tb / 2 || split_all)) {
            int64_t ts = (int64_t)E->prop.multiProcessorCount * split_per_sm;
            ts = ts < tb ? ts : tb;
            int64_t s = (ts + p.na - 1) / p.na;
            int64_t most = (p.nk + kMinPerBlock - 1) / kMinPerBlock;
            p.splits = (int)(s < most ? s : most);
            L.kind = 0;
            L.grid = dim3((unsigned)(p.na * p.splits));
        } else {
            int64_t blocks = warp_columns(p);
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

/* bytes of one element of type t, complex or not */
size_t esize(gpudot_type t, int cplx)
{
    return (t == GPUDOT_F32 ? 4 : 8) * (cplx ? 2 : 1);
}

gpudot_status run_kernel(const gpudot_dot_req *sub, const void *d_x, const void *d_y, void *d_out,
                         int carry_in, int is_final, int mapped, State *carry)
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
    p.carry = carry ? carry : (State *)E->carry.p;
    p.carry_in = carry_in;
    p.is_final = is_final;
    p.mapped = mapped;
    /* warp columns: about two 16-byte loads per lane and operand */
    size_t es = esize(sub->type, sub->cx || (sub->cy && sub->op != GPUDOT_OP_NORM));
    int64_t vecs = (int64_t)((sub->nk * es + 15) / 16);
    p.lanes = 1;
    while (p.lanes < 32 && 2 * p.lanes < vecs)
        p.lanes *= 2;
    p.batch = sub->op == GPUDOT_OP_COS; /* (warp_columns plans it) */
    Launch L = plan_launch(p, sub->op == GPUDOT_OP_DOT ? kSplitBlocksPerSMDot : kBlocksPerSM, vecs,
                           sub->op == GPUDOT_OP_COS && kCosSplitAll);
    if (L.kind == 0 && (size_t)sub->nk * es >= (E->tile_from ? E->tile_from : kTileFromBytes))
        p.tiles = 1;
    /* (a run of one block finishes it alone: no partials, no tickets) */
    size_t nparts = L.kind == 0 && p.splits > 1   ? (size_t)L.grid.x
                    : L.kind == 2 && p.splits > 1 ? (size_t)L.grid.x * L.grid.y * kThreads
                                                  : 0;
    size_t ntickets = L.kind == 0 && p.splits > 1 ? (size_t)p.na
                      : L.kind == 2               ? (size_t)L.grid.x
                                                  : 0;
    gpudot_status st;
    if ((st = buf_need(E->partials, nparts * sizeof(State), "cudaMalloc (workspace)")))
        return st;
    /* the counts of set-up entries go to 0 first: a failed regrowth leaves no buffer */
    if (ntickets > E->tickets_n) {
        E->tickets_n = 0;
        if ((st = buf_need(E->tickets, ntickets * sizeof(unsigned), "cudaMalloc (workspace)")))
            return st;
        CK(cudaMemsetAsync(E->tickets.p, 0, E->tickets.cap, E->stream), "cudaMemset");
        E->tickets_n = E->tickets.cap / sizeof(unsigned);
    }
    /* slots: kSlotWordsSmall words a block, whatever the Op uses (the kernels' template
     * logic decides how many; a split run's grid is about a wave of blocks: ~100 KiB at
     * most) */
    if (L.kind == 0 && p.splits > 1 && (size_t)L.grid.x > E->slots_n) {
        E->slots_n = 0;
        if ((st = buf_need(E->slots, (size_t)L.grid.x * 8 * kSlotWordsSmall,
                           "cudaMalloc (workspace)")))
            return st;
        CK(cudaMemsetAsync(E->slots.p, 0xff, E->slots.cap, E->stream),
           "cudaMemset"); /* kSlotEmpty */
        E->slots_n = E->slots.cap / (8 * kSlotWordsSmall);
    }
    p.partials = (State *)E->partials.p;
    p.tickets = (unsigned *)E->tickets.p;
    p.slots = (unsigned long long *)E->slots.p;
    if (E->fault == GPUDOT_FAULT_LAUNCH || E->fault == GPUDOT_FAULT_TRAP) {
        /* test hook: a launch the driver refuses (more threads than a block may have), or
         * a kernel that traps (a sticky fault, as an illegal address would be) */
        int trap = E->fault == GPUDOT_FAULT_TRAP;
        E->fault = GPUDOT_FAULT_NONE;
        fault_kernel<<<1, trap ? 1 : 4096, 0, E->stream>>>(trap);
        if (!trap) {
            CK(cudaGetLastError(), "kernel launch");
        }
    }
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH_PREP);
    launch_any(L, p, sub);
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH);
    if (E->launch_err != cudaSuccess) {
        cudaError_t e = E->launch_err;
        E->launch_err = cudaSuccess;
        CK(e, "kernel launch");
    }
    CK(cudaGetLastError(), "kernel launch");
    GPUDOT_MARK(GPUDOT_STAGE_LAUNCH_CHECK);
    return GPUDOT_OK;
}

gpudot_status run_in_chunks(const gpudot_dot_req *r, const void *dx, const void *dy, int64_t q,
                            State *states)
{
    /* m chunks of q as m outputs of one launch (an operand broadcast along the run has one
     * value: the same for every chunk), then the rest as one more */
    size_t esx = esize(r->type, r->cx), esy = esize(r->type, r->cy);
    int has_y = r->op != GPUDOT_OP_NORM;
    int64_t m = r->nk / q, rest = r->nk - m * q;
    gpudot_dot_req v = *r;
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.nb = v.bx = v.by = 1;
    gpudot_status st = GPUDOT_OK;
    for (int part = 0; part < 2 && st == GPUDOT_OK; part++) {
        int64_t k0 = part ? m * q : 0, nk = part ? rest : q, na = part ? 1 : m;
        if (na == 0 || nk == 0)
            continue;
        v.nk = nk;
        v.na = na;
        v.kx = r->kx > 1 ? nk : 1;
        v.ax = r->kx > 1 ? na : 1;
        v.ky = r->ky > 1 ? nk : 1;
        v.ay = r->ky > 1 ? na : 1;
        const char *px = (const char *)dx + (r->kx > 1 ? (size_t)k0 * esx : 0);
        const char *py = has_y ? (const char *)dy + (r->ky > 1 ? (size_t)k0 * esy : 0) : nullptr;
        st = run_kernel(&v, px, py, nullptr, 0, 0, 0, states + (part ? m : 0));
    }
    return st;
}

/* Validates a request and makes sure a device is there. */
gpudot_status begin(const gpudot_dot_req *r)
{
    gpudot_status st = gpudot_check_req(r);
    return st != GPUDOT_OK ? st : probe();
}

/* Whether all outputs fit one launch's grid (unchunked paths). */
gpudot_status one_launch(const gpudot_dot_req *r)
{
    int64_t nout = r->nb * r->na;
    int64_t gx = r->nb > 1 ? (nout + kThreads - 1) / kThreads : r->na;
    if (gx <= kMaxGridX / 64)
        return GPUDOT_OK;
    snprintf(g_err, sizeof g_err, "%lld outputs are more than one launch takes", (long long)nout);
    return GPUDOT_SIZE_MISMATCH;
}

/* The mapped pinned area that small results are written to, allocated on first use. */
gpudot_status mapped_area()
{
    if (!E->mapped) {
        CK(cudaHostAlloc(&E->mapped, kMappedBytes, cudaHostAllocMapped), "cudaHostAlloc");
        CK(cudaHostGetDevicePointer(&E->mapped_dev, E->mapped, 0), "cudaHostGetDevicePointer");
    }
    return GPUDOT_OK;
}

/* Fills the first nw words (of wsize bytes: 4 or 8) of the mapped area with the empty mark
 * that the kernel about to be launched replaces with values (stride > 1: word stride - 1 of
 * each of nw records, as wait_marked). */
void mark_empty(size_t nw, size_t wsize, size_t stride)
{
    if (stride > 1) {
        for (size_t i = 0; i < nw; i++)
            ((unsigned long long *)E->mapped)[i * stride + stride - 1] = kOutEmpty64;
    } else if (wsize == 4) {
        std::fill_n((unsigned *)E->mapped, nw, kOutEmpty32);
    } else {
        std::fill_n((unsigned long long *)E->mapped, nw, kOutEmpty64);
    }
}

bool word_empty(size_t i, size_t wsize)
{
    return wsize == 4 ? ((volatile unsigned *)E->mapped)[i] == kOutEmpty32
                      : ((volatile unsigned long long *)E->mapped)[i] == kOutEmpty64;
}

/* Waits for the kernel just launched on E->stream to fill the nw words that mark_empty
 * marked (or, stride > 1, word stride - 1 of each of nw records of stride words: exact.cu's
 * flags).  Spinning on mapped memory answers a few us sooner than a stream sync.  A
 * faulting kernel never fills them, so the spin asks the stream now and then and is
 * bounded; the sync after it reports any fault.  gdot's small calls and __ping__ (their
 * floor in the benchmark) share it. */
gpudot_status wait_marked(size_t nw, size_t wsize, const char *what, size_t stride)
{
    size_t i = 0;
    auto empty = [&](size_t k) { return word_empty(k * stride + stride - 1, wsize); };
    for (long spin = 0; nw > 0 && spin < kSpinLimit; spin++) {
        while (i < nw && !empty(i))
            i++;
        if (i == nw) {
            E->tail0 = E->stream == 0;
            return GPUDOT_OK;
        }
        if ((spin & 4095) == 4095 && cudaStreamQuery(E->stream) != cudaErrorNotReady)
            break;
    }
    CK(cudaStreamSynchronize(E->stream), what);
    while (i < nw && !empty(i))
        i++;
    if (i < nw) { /* a finished kernel left an output unwritten: never silently a NaN */
        snprintf(g_err, sizeof g_err, "%s: output %zu of %zu not written", what, i, nw);
        return GPUDOT_CUDA;
    }
    return GPUDOT_OK;
}

/* One launch whose bo bytes of outputs (at most kMappedBytes) come back through the mapped
 * area: its words marked empty, the kernel writing them, the host spinning until none is
 * empty, then copying them out. */
gpudot_status run_mapped(const gpudot_dot_req *r, const void *dx, const void *dy, size_t bo)
{
    gpudot_status st;
    if ((st = mapped_area()))
        return st;
    size_t ws = esize(r->type, 0);
    mark_empty(bo / ws, ws);
    GPUDOT_MARK(GPUDOT_STAGE_BUFFERS);
    if ((st = run_kernel(r, dx, dy, E->mapped_dev, 0, 1, 1)))
        return st;
    GPUDOT_MARK(GPUDOT_STAGE_DRAIN);
    if ((st = wait_marked(bo / ws, ws, "kernel")))
        return st;
    GPUDOT_MARK(GPUDOT_STAGE_WAIT);
    memcpy(r->out, E->mapped, bo);
    return GPUDOT_OK;
}

/* Results on the device to host memory, after the work queued before them.  (Large ones
 * through pinned pieces emptied by the pool were no faster: Octave's new result array
 * faults its pages in as it is written, which bounds them; doc/design.md.) */
gpudot_status copy_out(void *host, const void *dev, size_t bytes)
{
    CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "kernel or cudaMemcpy (result)");
    return GPUDOT_OK;
}

/* Some operand is resident on the device: host operands (small, typically a query) are
 * uploaded whole for this call, one launch, the result copied back.  No chunking: the
 * resident operand is already on the device, the host one must fit beside it. */
gpudot_status dot_resident(const gpudot_dot_req *r)
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
        if ((st = buf_need(E->x, bx, "cudaMalloc (x)")))
            return st;
        CK(cudaMemcpy(E->x.p, r->x, bx, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
        dx = E->x.p;
    }
    if (has_y && !r->y_dev) {
        if ((st = buf_need(E->y, by, "cudaMalloc (y)")))
            return st;
        CK(cudaMemcpy(E->y.p, r->y, by, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
        dy = E->y.p;
    }
    if (bo <= kMappedBytes)
        return run_mapped(r, dx, dy, bo);
    if ((st = buf_need(E->out, bo, "cudaMalloc (out)")))
        return st;
    if ((st = run_kernel(r, dx, dy, E->out.p, 0, 1)))
        return st;
    return copy_out(r->out, E->out.p, bo);
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

/* The fast variant first; the scaled algorithm where it could not vouch for an output
 * (NaN: extreme magnitudes, Inf or NaN elements, zero vectors). */
gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    if (r->accum == GPUDOT_ACC_EXACT)
        return exact_dot(r, poll);
    return gpudot_two_step(r, poll, dot_pass);
}

gpudot_status gpudot_cuda_reduce_dev(const gpudot_dot_req *r0)
{
    gpudot_dot_req f = *r0, *r = &f;
    if (r->accum == GPUDOT_ACC_EXACT)
        return GPUDOT_BAD_OPTION; /* (no exact kernels yet) */
    gpudot_fast_variant(r);
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK || r->nb == 0 || r->na == 0)
        return st;
    if ((st = one_launch(r)))
        return st;
    return run_kernel(r, r->x, r->y, r->out, 0, 1);
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
    ping_kernel<<<1, 1, 0, E->stream>>>((double *)E->mapped_dev);
    CK(cudaGetLastError(), "kernel launch");
    /* dot_resident's own wait (an earlier copy without its stream queries read 46 us a
     * call in one H100 run whose resident gdot calls took 18-23 us) */
    return wait_marked(1, 8, "kernel");
}

} // extern "C"
