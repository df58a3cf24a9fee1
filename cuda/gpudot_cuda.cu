/*
 * CUDA engine, host side: device state, persistent buffers, chunk planning and launches.
 * Kernels live in reduce_kernels.cuh.  Every CUDA call is checked; failures become a status
 * and a saved error text, never a print or an exit.
 */
#include <cstdio>
#include <cstring>

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
    DevBuf x, y, out, carry, partials, tickets;
    void *mapped = nullptr;   /* pinned, mapped host memory for small results */
    void *mapped_dev = nullptr;
    size_t tickets_n = 0;
    size_t staging_cap = 0;
    char err[512] = "";
} E;

/* Blocks per SM for kThreads = 256: 8 blocks x 8 warps = 64 warps, a full H100/A100 SM. */
constexpr int kBlocksPerSM = 8;
/* Column runs at least this long get split over several blocks; shorter runs get one warp
 * each.  4096 elements = 16 KiB per operand in single: one warp's 16 loads in flight cover
 * it in a few round trips. */
constexpr int64_t kSplitMinRun = 4096;
/* Each block of a split run takes at least this many elements (8 per thread). */
constexpr int64_t kMinPerBlock = kThreads * 8;

gpudot_status fail(cudaError_t e, const char *what)
{
    snprintf(E.err, sizeof E.err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it so the next call works */
        return GPUDOT_OUT_OF_MEMORY;
    }
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return GPUDOT_NO_DEVICE;
    return GPUDOT_CUDA;
}

#define CK(call, what)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return fail(e_, what);                                                         \
    } while (0)

gpudot_status probe()
{
    if (E.probed)
        return E.ok ? GPUDOT_OK : GPUDOT_NO_DEVICE;
    E.probed = 1;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (e != cudaSuccess)
            fail(e, "cudaGetDeviceCount");
        else
            snprintf(E.err, sizeof E.err, "no CUDA device found");
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
    if (b.p)
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
    CK(cudaMalloc(&b.p, want), what);
    b.cap = want;
    return GPUDOT_OK;
}

/* Results up to this size are written by the kernel straight into mapped pinned host
 * memory: a launch and a stream sync, no separate copy (H100: ~10 us round trip against
 * ~20 us for launch + copy + sync). */
constexpr size_t kMappedBytes = 64 * 1024;
/* Host polls of the done flag before falling back to cudaStreamSynchronize: ~10^7 polls of
 * uncached mapped memory is of the order of seconds, far beyond any single-output kernel. */
constexpr long kSpinLimit = 10000000;

size_t held()
{
    return E.x.cap + E.y.cap + E.out.cap + E.carry.cap + E.partials.cap + E.tickets.cap +
           (E.mapped ? kMappedBytes : 0);
}

/* ---- launch: one kernel per (type, mode, complexity) chosen at run time ---- */

struct Launch {
    int kind; /* 0 split columns, 1 warp columns, 2 rows */
    dim3 grid;
};

template <class Op> void launch_op(const Launch &L, const Args &p, const Op &op)
{
    if (L.kind == 0)
        columns_split<Op><<<L.grid, kThreads>>>(p, op);
    else if (L.kind == 1)
        columns_warp<Op><<<L.grid, kThreads>>>(p, op);
    else
        rows<Op><<<L.grid, kThreads>>>(p, op);
}

/* One functor per op; go<T, A, COMP>() picks the rest of the template arguments. */
struct DotLaunch {
    template <typename T, typename A, bool COMPM>
    static void go(const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        constexpr int M = COMPM ? COMP : sizeof(A) == 4 ? NATIVE_F : PLAIN_D;
        if (r->cx && r->cy)
            launch_op(L, p, DotOp<T, M, true, true>{});
        else if (r->cx)
            launch_op(L, p, DotOp<T, M, true, false>{});
        else if (r->cy)
            launch_op(L, p, DotOp<T, M, false, true>{});
        else
            launch_op(L, p, DotOp<T, M, false, false>{});
    }
};

struct NormLaunch {
    template <typename T, typename A, bool COMPM, bool CX>
    static void go_cx(const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        /* the fast 2-norm, 1 and Inf get code of their own; the rest (Blue's 2-norm, run
         * only where the fast one cannot vouch for its result, and other p) share one kernel
         * with the kind at run time */
        A pv = (A)r->p;
        if (r->pk == GD_P_SSQ || r->pk == GD_P_SSQX)
            launch_op(L, p, NormOp<T, A, GD_P_SSQ, COMPM, CX>{r->pk, pv});
        else if (r->pk == GD_P_ONE)
            launch_op(L, p, NormOp<T, A, GD_P_ONE, COMPM, CX>{r->pk, pv});
        else if (r->pk == GD_P_INF)
            launch_op(L, p, NormOp<T, A, GD_P_INF, COMPM, CX>{r->pk, pv});
        else
            launch_op(L, p, NormOp<T, A, -1, COMPM, CX>{r->pk, pv});
    }
    template <typename T, typename A, bool COMPM>
    static void go(const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->cx)
            go_cx<T, A, COMPM, true>(L, p, r);
        else
            go_cx<T, A, COMPM, false>(L, p, r);
    }
};

struct CosLaunch {
    template <typename T, typename A, bool COMPM, bool FAST>
    static void go_f(const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->cx && r->cy)
            launch_op(L, p, CosOp<T, A, COMPM, true, true, FAST>{r->fast});
        else if (r->cx)
            launch_op(L, p, CosOp<T, A, COMPM, true, false, FAST>{r->fast});
        else if (r->cy)
            launch_op(L, p, CosOp<T, A, COMPM, false, true, FAST>{r->fast});
        else
            launch_op(L, p, CosOp<T, A, COMPM, false, false, FAST>{r->fast});
    }
    template <typename T, typename A, bool COMPM>
    static void go(const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->fast)
            go_f<T, A, COMPM, true>(L, p, r);
        else
            go_f<T, A, COMPM, false>(L, p, r);
    }
};

/* Element type, accumulator type and compensation from the request's type and mode:
 * single "native" accumulates in float, everything else in double. */
template <class F> void by_mode(const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    if (r->type == GPUDOT_F32) {
        if (r->accum == GPUDOT_ACC_NATIVE)
            F::template go<float, float, false>(L, p, r);
        else if (r->accum == GPUDOT_ACC_DOUBLE)
            F::template go<float, double, false>(L, p, r);
        else
            F::template go<float, double, true>(L, p, r);
    } else {
        if (r->accum == GPUDOT_ACC_COMP)
            F::template go<double, double, true>(L, p, r);
        else
            F::template go<double, double, false>(L, p, r);
    }
}

void launch_any(const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    if (r->op == GPUDOT_OP_DOT)
        by_mode<DotLaunch>(L, p, r);
    else if (r->op == GPUDOT_OP_NORM)
        by_mode<NormLaunch>(L, p, r);
    else
        by_mode<CosLaunch>(L, p, r);
}

/* Grid shape for an nb x na output with runs of nk; sets p.splits. */
Launch plan_launch(Args &p)
{
    Launch L;
    int64_t tb = E.target_blocks;
    if (p.nb == 1) {
        if (p.nk >= kSplitMinRun && p.na < tb / 2) {
            int64_t s = (tb + p.na - 1) / p.na;
            int64_t most = (p.nk + kMinPerBlock - 1) / kMinPerBlock;
            p.splits = (int)(s < most ? s : most);
            L.kind = 0;
            L.grid = dim3((unsigned)(p.na * p.splits));
        } else {
            int64_t blocks = (p.na + kThreads / 32 - 1) / (kThreads / 32);
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

/* Grid x of the kernels is at most 2^31 - 1; one chunk must stay below. */
constexpr int64_t kMaxGridX = ((int64_t)1 << 31) - 1;

gpudot_status run_kernel(const gpudot_dot_req *sub, const void *d_x, const void *d_y,
                         void *d_out, int carry_in, int is_final, volatile int *done = nullptr)
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
    p.done = done;
    Launch L = plan_launch(p);
    size_t nparts = L.kind == 0 ? (size_t)L.grid.x
                  : L.kind == 2 && p.splits > 1 ? (size_t)L.grid.x * L.grid.y * kThreads : 0;
    size_t ntickets = L.kind == 0 ? (size_t)p.na : L.kind == 2 ? (size_t)L.grid.x : 0;
    gpudot_status st;
    if ((st = buf_need(E.partials, nparts * sizeof(State), "cudaMalloc (workspace)")))
        return st;
    if (ntickets > E.tickets_n) {
        if ((st = buf_need(E.tickets, ntickets * sizeof(unsigned), "cudaMalloc (workspace)")))
            return st;
        CK(cudaMemset(E.tickets.p, 0, E.tickets.cap), "cudaMemset");
        E.tickets_n = E.tickets.cap / sizeof(unsigned);
    }
    p.partials = (State *)E.partials.p;
    p.tickets = (unsigned *)E.tickets.p;
    launch_any(L, p, sub);
    CK(cudaGetLastError(), "kernel launch");
    return GPUDOT_OK;
}

size_t esize(gpudot_type t, int cplx)
{
    return (t == GPUDOT_F32 ? 4 : 8) * (cplx ? 2 : 1);
}

/* Copies the part of one operand that chunk (a0..a0+na, k0..k0+nk) needs to d; returns
 * the operand's extents within the chunk. */
gpudot_status upload(void *d, const void *h, size_t es, int64_t b, int64_t k, int64_t a,
                     int64_t a0, int64_t na, int64_t k0, int64_t nk, int64_t *kc, int64_t *ac)
{
    int64_t ka0 = k > 1 ? k0 : 0, kn = k > 1 ? nk : 1;
    int64_t aa0 = a > 1 ? a0 : 0, an = a > 1 ? na : 1;
    *kc = kn;
    *ac = an;
    const char *src = (const char *)h + ((size_t)aa0 * k + ka0) * b * es;
    if (kn == k || an == 1) { /* one contiguous block */
        CK(cudaMemcpy(d, src, (size_t)(kn * b * an) * es, cudaMemcpyHostToDevice),
           "cudaMemcpy (upload)");
        return GPUDOT_OK;
    }
    CK(cudaMemcpy2D(d, (size_t)(kn * b) * es, src, (size_t)(k * b) * es, (size_t)(kn * b) * es,
                    (size_t)an, cudaMemcpyHostToDevice),
       "cudaMemcpy2D (upload)");
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

void gpudot_cuda_release(void)
{
    buf_free(E.x);
    buf_free(E.y);
    buf_free(E.out);
    buf_free(E.carry);
    buf_free(E.partials);
    buf_free(E.tickets);
    E.tickets_n = 0;
    if (E.mapped)
        cudaFreeHost(E.mapped);
    E.mapped = E.mapped_dev = nullptr;
}

const char *gpudot_cuda_last_error(void)
{
    return E.err;
}

void gpudot_cuda_set_staging_cap(size_t bytes)
{
    E.staging_cap = bytes;
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
    if (bo <= kMappedBytes - 64) {
        if (!E.mapped) {
            CK(cudaHostAlloc(&E.mapped, kMappedBytes, cudaHostAllocMapped), "cudaHostAlloc");
            CK(cudaHostGetDevicePointer(&E.mapped_dev, E.mapped, 0), "cudaHostGetDevicePointer");
        }
        /* one output: the finishing thread raises a flag after its result (both in
         * mapped memory); spinning on it answers a few us sooner than a stream sync.  The
         * flag sits after the result area; a bounded spin falls back to the sync, which
         * also reports any fault. */
        volatile int *flag = (volatile int *)((char *)E.mapped + kMappedBytes - 64);
        int *flag_dev = (int *)((char *)E.mapped_dev + kMappedBytes - 64);
        int single = r->nb * r->na == 1;
        if (single)
            *flag = 0;
        if ((st = run_kernel(r, dx, dy, E.mapped_dev, 0, 1, single ? flag_dev : nullptr)))
            return st;
        if (single) {
            for (long spin = 0; spin < kSpinLimit && !*flag; spin++)
                ;
        }
        if (!single || !*flag)
            CK(cudaStreamSynchronize(0), "kernel");
        memcpy(r->out, E.mapped, bo);
        return GPUDOT_OK;
    }
    if ((st = buf_need(E.out, bo, "cudaMalloc (out)")))
        return st;
    if ((st = run_kernel(r, dx, dy, E.out.p, 0, 1)))
        return st;
    CK(cudaMemcpy(r->out, E.out.p, bo, cudaMemcpyDeviceToHost), "kernel or cudaMemcpy (result)");
    return GPUDOT_OK;
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

    /* Budget for staging: what we hold plus what is free, less a margin for the
     * workspace and other users; or the test cap. */
    size_t bx_all = (size_t)(r->bx * r->kx * r->ax) * esx, by_all = (size_t)(r->by * r->ky * r->ay) * esy;
    size_t out_all = (size_t)(r->nb * r->na) * eso;
    size_t budget;
    if (E.staging_cap) {
        budget = E.staging_cap;
    } else if (bx_all + by_all + out_all <= E.x.cap + E.y.cap + E.out.cap) {
        budget = bx_all + by_all + out_all;
    } else {
        size_t fr = 0, tot = 0;
        CK(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
        size_t have = E.x.cap + E.y.cap + E.out.cap + fr;
        size_t margin = (size_t)64 << 20;
        budget = have > 2 * margin ? have - margin - have / 16 : have / 2;
    }

    /* Plan: whole runs, as many outputs (a) per chunk as fit; if one a does not fit, k-slabs
     * of a single a carried from chunk to chunk. */
    size_t per_a = (r->ax > 1 ? (size_t)(r->bx * r->kx) * esx : 0) +
                   (r->ay > 1 ? (size_t)(r->by * r->ky) * esy : 0) + (size_t)r->nb * eso;
    size_t fixed = (r->ax > 1 ? 0 : (size_t)(r->bx * r->kx) * esx) +
                   (r->ay > 1 ? 0 : (size_t)(r->by * r->ky) * esy);
    int64_t a_per, k_per;
    if (fixed + per_a <= budget) {
        a_per = (int64_t)((budget - fixed) / per_a);
        a_per = a_per > r->na ? r->na : a_per;
        int64_t grid_cap = r->nb > 1 ? kMaxGridX / ((r->nb + kThreads - 1) / kThreads) : kMaxGridX / 64;
        a_per = a_per > grid_cap ? (grid_cap > 0 ? grid_cap : 1) : a_per;
        k_per = nk;
    } else {
        size_t per_k = (r->kx > 1 ? (size_t)r->bx * esx : 0) + (r->ky > 1 ? (size_t)r->by * esy : 0);
        size_t fixed_k = (r->kx > 1 ? 0 : (size_t)r->bx * esx) + (r->ky > 1 ? 0 : (size_t)r->by * esy) +
                         (size_t)r->nb * (eso + sizeof(State));
        if (fixed_k + per_k > budget || per_k == 0) {
            snprintf(E.err, sizeof E.err, "needs %zu bytes of device memory for one slice, %zu usable",
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

    /* Buffers for the largest chunk. */
    int64_t k_buf = k_per > 0 ? k_per : 1;
    size_t need_x = (size_t)(r->bx * (r->kx > 1 ? k_buf : 1) * (r->ax > 1 ? a_per : 1)) * esx;
    size_t need_y = (size_t)(r->by * (r->ky > 1 ? k_buf : 1) * (r->ay > 1 ? a_per : 1)) * esy;
    if ((st = buf_need(E.x, need_x, "cudaMalloc (x)")) ||
        (st = buf_need(E.y, need_y, "cudaMalloc (y)")) ||
        (st = buf_need(E.out, (size_t)(r->nb * a_per) * eso, "cudaMalloc (out)")))
        return st;
    if (nslab > 1 && (st = buf_need(E.carry, (size_t)r->nb * sizeof(State), "cudaMalloc (carry)")))
        return st;

    for (int64_t a0 = 0; a0 < r->na; a0 += a_per) {
        int64_t na = r->na - a0 < a_per ? r->na - a0 : a_per;
        for (int64_t s = 0; s < nslab; s++) {
            int64_t k0 = s * k_per, kn = nk - k0 < k_per ? nk - k0 : k_per;
            if (nk == 0)
                k0 = 0, kn = 0;
            gpudot_dot_req sub = *r;
            sub.nk = kn;
            sub.na = na;
            if (kn > 0) {
                if ((st = upload(E.x.p, r->x, esx, r->bx, r->kx, r->ax, a0, na, k0, kn, &sub.kx, &sub.ax)) ||
                    (has_y && (st = upload(E.y.p, r->y, esy, r->by, r->ky, r->ay, a0, na, k0, kn,
                                           &sub.ky, &sub.ay))))
                    return st;
            } else {
                sub.kx = sub.ky = 0;
                sub.ax = r->ax > 1 ? na : 1;
                sub.ay = r->ay > 1 ? na : 1;
            }
            if ((st = run_kernel(&sub, E.x.p, E.y.p, E.out.p, s > 0, s == nslab - 1)))
                return st;
            if (poll && nslab * ((r->na + a_per - 1) / a_per) > 1) {
                CK(cudaDeviceSynchronize(), "kernel");
                if (poll())
                    return GPUDOT_INTERRUPTED;
            }
        }
        CK(cudaMemcpy((char *)r->out + (size_t)(a0 * r->nb) * eso, E.out.p,
                      (size_t)(na * r->nb) * eso, cudaMemcpyDeviceToHost),
           "kernel or cudaMemcpy (result)");
    }
    return GPUDOT_OK;
}

/* The fast variant first; the scaled algorithm where it could not vouch for an output
 * (NaN: extreme magnitudes, Inf or NaN elements, zero vectors). */
gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_dot_req f = *r;
    int check = gpudot_fast_variant(&f);
    gpudot_status st = dot_pass(&f, poll);
    if (st == GPUDOT_OK && check && gpudot_fast_failed(&f))
        st = dot_pass(r, poll);
    return st;
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

gpudot_status gpudot_cuda_malloc(void **d, size_t bytes)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    *d = nullptr;
    CK(cudaMalloc(d, bytes ? bytes : 1), "cudaMalloc");
    return GPUDOT_OK;
}

void gpudot_cuda_free(void *d)
{
    if (d)
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
