/*
 * CUDA engine, "exact" mode.  Dot products, 2-norms, real 1-norms and cosines of resident
 * data along columns run on the device (all of an output's sums in one pass): each sum of
 * each thread keeps its share of a run as a floating-point expansion of a few
 * doubles (ExBLAS's first stage): a product x y whose TwoProduct p + e is exact goes in as
 * p and e, each through the slots by TwoSum, so the slots' sum stays exactly the thread's
 * sum; what falls out of the last slot, the slots at the end, and every other product (past
 * the range, Inf, NaN) go exactly into its warp's digits in shared memory (base 2^32
 * in int64, the host core's limbs: gpudot_exact.h), added by integer atomics.  Integer
 * sums do not depend on order, and both engines' last step is one source
 * (gpudot_exact_top.h): the same bits.  An output of several blocks: the blocks add their
 * digits into the output's with atomics too, and the last block moves them to the host
 * (mapped memory, the host spinning on them, as small gdot calls do), which finishes them.
 * An output of one block (many outputs, short runs; a warp an output where there are
 * many): the block finishes it and writes its value (a warp's output from its lanes'
 * partial sums where the rounding is certain: gpudot_exact_top.h's gd_round_near and
 * gd_near_m62).  Contiguous aligned runs are read as
 * 16-byte vectors, each thread's next one in flight while it adds the last.
 * Garrays on several GPUs run so on every device at once, the host merging runs cut between
 * shards.  Real Inf, -Inf and 0 norms run as "double" (exact there).  Other calls (complex
 * 1-, Inf- and -Inf-norms, rows, host data, a host operand beside garrays of several GPUs)
 * bring the operands to the host and run the CPU engine's exact sums.  The kernel and its
 * device code: cuda/exact_kernels.cuh.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <thread>
#include <vector>

#include "engine.cuh"
#include "exact_kernels.cuh"
#include "gpudot_exact.h"

namespace gpudot
{

/* the device kernel's sums for r (-1: r is not for it): dot products, real 1-norms,
 * 2-norms (complex ones of whole runs as the squares of their parts) and cosines of device
 * data along columns */
static int device_mode(const gpudot_dot_req *r)
{
    if (r->nb != 1 || !r->x_dev || r->xs || (r->op != GPUDOT_OP_NORM && (!r->y_dev || r->ys)) ||
        r->nk > (int64_t)E->target_blocks * kThreads * kPerThread / 2)
        return -1;
    if (r->op == GPUDOT_OP_NORM)
        return r->pk == GD_P_TWO && (!r->cx || r->kx > 1) ? M_SQ
               : r->pk == GD_P_ONE && !r->cx              ? M_ABS
                                                          : -1;
    if (r->cx || r->cy)
        return r->op == GPUDOT_OP_DOT ? M_CDOT : M_CCOS;
    return r->op == GPUDOT_OP_DOT ? M_DOT : M_COS;
}

template <typename T>
using exact_kernel = void (*)(const T *, const T *, int, int, int, int64_t, int64_t, int64_t,
                              int64_t, int64_t, int64_t, unsigned long long *, unsigned *,
                              unsigned long long *, int, ExactOut);

/* the kernel of T for mode (its number of sums); fin: FIN's */
template <typename T, bool FIN> static exact_kernel<T> kernel_of(int mode)
{
    constexpr int S = sizeof(T) == 4 ? kSlotsF : kSlotsD;
    switch (ns_of(mode)) {
    case 2:
        return exact_columns<T, S, 2, FIN>;
    case 3:
        return exact_columns<T, S, 3, FIN>;
    case 4:
        return exact_columns<T, S, 4, FIN>;
    default:
        return exact_columns<T, S, 1, FIN>;
    }
}

/* blocks of the record kernel of T for mode an SM holds (asked once a kernel and device:
 * the call costs microseconds) */
template <typename T> static int occupancy(int mode)
{
    static int occ[kMaxDevices][5];
    int &o = occ[E - engines][ns_of(mode)];
    exact_kernel<T> kern = kernel_of<T, false>(mode);
    if (o == 0 &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, kern, kThreads, 0) != cudaSuccess)
        o = 0;
    return o > 0 ? o : 1;
}

/* An output's record (each sum's digits, then the flags) as the host core's sums of count
 * products, in a as gpudot_exact_store takes them (a cosine's: xy, -, xx, yy) */
static void load_sums(int ns, int64_t count, const int64_t *rec, gd_exact *a)
{
    int fl = (int)rec[ns * GD_EXACT_LIMBS];
    for (int s = 0; s < ns; s++) {
        gd_exact *e = &a[ns == 3 && s ? s + 1 : s];
        int f = fl >> (4 * s);
        gd_exact_init(e);
        memcpy(e->limb, rec + s * GD_EXACT_LIMBS, sizeof e->limb);
        e->count = count;
        e->nan = (f & F_NAN) != 0;
        e->pinf = (f & F_PINF) != 0;
        e->ninf = (f & F_NINF) != 0;
        e->not_negzero = (f & F_NONNEG) != 0;
    }
}

/* A launch's share of E->exact: the records (acc, zero between calls) and tickets of
 * accn outputs of several blocks, then resb bytes of records or results moved out where
 * they do not fit the mapped area (res).  E->exact_zero: the bytes from its start known to
 * be zero. */
struct ExactArea {
    unsigned long long *acc, *res;
    unsigned *tickets;
    size_t zero_bytes; /* acc and tickets */
};

static gpudot_status exact_area(int64_t accn, int64_t rec, size_t resb, ExactArea *ar)
{
    size_t accb = (size_t)(accn * rec) * 8, tb = ((size_t)accn * 4 + 7) / 8 * 8;
    void *p0 = E->exact.p;
    gpudot_status st = buf_need(E->exact, accb + tb + resb, "cudaMalloc (exact)");
    if (st != GPUDOT_OK)
        return st;
    if (E->exact.p != p0)
        E->exact_zero = 0;
    char *base = (char *)E->exact.p;
    ar->acc = (unsigned long long *)base;
    ar->tickets = (unsigned *)(base + accb);
    ar->res = (unsigned long long *)(base + accb + tb);
    ar->zero_bytes = accb + tb;
    if (E->exact_zero < ar->zero_bytes) {
        CKS(cudaMemsetAsync(base, 0, ar->zero_bytes, E->stream), "cudaMemset (exact)");
        if (st == GPUDOT_OK)
            E->exact_zero = ar->zero_bytes;
    }
    return st;
}

/* How FIN ends r's outputs: their values, in r's output class and form */
static ExactOut exact_out(const gpudot_dot_req *r)
{
    int single = (r->type == GPUDOT_F32) != (r->out_other != 0);
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    return {(int)r->op, r->pk, single, cplx, (single ? 4 : 8) * (cplx ? 2 : 1)};
}

/* Blocks of the record kernel a run of r takes (bx), and outputs a launch (g): a wave of
 * the blocks an SM holds, shared by the launch's outputs */
template <typename T>
static void plan_blocks(const gpudot_dot_req *r, int mode, int64_t *g, int64_t *bx)
{
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c;
    *g = r->na < kGroup ? r->na : kGroup;
    int64_t wave = (int64_t)occupancy<T>(mode) * E->prop.multiProcessorCount;
    int64_t per = (nk + kThreads - 1) / kThreads; /* blocks a run could use */
    int64_t b = wave / *g > 1 ? wave / *g : 1;
    b = b < per ? b : (per > 0 ? per : 1);
    while (b * kThreads * kPerThread < nk)
        b *= 2;
    *bx = b;
}

/* r's outputs through the record kernel, kGroup at most a launch, one launch after another:
 * sink (o, rec) with output o's record (load_sums reads it) as each launch ends */
template <typename T, typename Sink>
static gpudot_status device_records(const gpudot_dot_req *r, int mode, Sink &&sink)
{
    int ns = ns_of(mode);
    /* a complex run's squares: its parts as twice the real elements */
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c, kx = r->kx * c;
    int64_t g, bx, rec = ns * GD_EXACT_LIMBS + 1;
    plan_blocks<T>(r, mode, &g, &bx);
    ExactArea ar;
    gpudot_status st = exact_area(g, rec, (size_t)(g * rec) * 8, &ar);
    if (st == GPUDOT_OK)
        st = mapped_area();
    if (st != GPUDOT_OK)
        return st;
    int64_t *hd = nullptr; /* (records too many for the mapped area) */
    exact_kernel<T> kern = kernel_of<T, false>(mode);
    for (int64_t o0 = 0; o0 < r->na && st == GPUDOT_OK; o0 += g) {
        int64_t n = r->na - o0 < g ? r->na - o0 : g;
        size_t rb = (size_t)(n * rec) * 8;
        bool mapped = rb <= kMappedBytes;
        if (mapped) {
            mark_empty((size_t)n, 8, (size_t)rec);
        } else if (!hd && !(hd = (int64_t *)malloc(rb))) {
            st = GPUDOT_OUT_OF_MEMORY;
            break;
        } else if (E->exact_zero > ar.zero_bytes) {
            E->exact_zero = ar.zero_bytes; /* (res, past this call's records, may lie over
                                            * another call's) */
        }
        kern<<<dim3((unsigned)bx, (unsigned)n), kThreads, 0, E->stream>>>(
            (const T *)r->x, (const T *)r->y, mode, r->cx, r->cy, nk, kx, r->ax, r->ky, r->ay, o0,
            ar.acc, ar.tickets, mapped ? (unsigned long long *)E->mapped_dev : ar.res, mapped,
            ExactOut{});
        CKS(cudaGetLastError(), "exact kernel");
        const int64_t *recs = hd;
        if (st == GPUDOT_OK && mapped) {
            st = wait_marked((size_t)n, 8, "exact kernel", (size_t)rec);
            recs = (const int64_t *)E->mapped;
        } else if (st == GPUDOT_OK) {
            CKS(cudaMemcpyAsync(hd, ar.res, rb, cudaMemcpyDeviceToHost, E->stream),
                "cudaMemcpy (exact)");
            CKS(cudaStreamSynchronize(E->stream), "exact kernel");
        }
        for (int64_t i = 0; i < n && st == GPUDOT_OK; i++)
            sink(o0 + i, recs + i * rec);
    }
    if (st != GPUDOT_OK)
        E->exact_zero = 0; /* (a failed launch may leave digits behind) */
    free(hd);
    return st;
}

/* r's outputs of one block each (plan_blocks' bx = 1) through FIN: their values on the
 * device, a grid's rows a launch, then copied to out (host, in the output's class) */
template <typename T>
static gpudot_status device_values(const gpudot_dot_req *r, int mode, void *out)
{
    int ns = ns_of(mode);
    int64_t c = mode == M_SQ && r->cx ? 2 : 1, nk = r->nk * c, kx = r->kx * c;
    ExactOut fo = exact_out(r);
    /* a warp an output where there are outputs enough for kFinWarps warps an SM */
    int fw = r->na >= (int64_t)kFinWarps * E->prop.multiProcessorCount ? 1 : kWarps;
    ExactArea ar;
    gpudot_status st = exact_area(0, 0, (size_t)(r->na * fo.ob), &ar);
    if (st != GPUDOT_OK)
        return st;
    exact_kernel<T> kern = kernel_of<T, true>(mode);
    for (int64_t o0 = 0; o0 < r->na && st == GPUDOT_OK; o0 += kMaxGridRows) {
        int64_t n = r->na - o0 < kMaxGridRows ? r->na - o0 : kMaxGridRows;
        kern<<<dim3(1, (unsigned)n), 32 * fw, (size_t)(fw * ns * GD_EXACT_LIMBS) * 8, E->stream>>>(
            (const T *)r->x, (const T *)r->y, mode, r->cx, r->cy, nk, kx, r->ax, r->ky, r->ay, o0,
            nullptr, nullptr, (unsigned long long *)((char *)ar.res + o0 * fo.ob), 0, fo);
        CKS(cudaGetLastError(), "exact kernel");
    }
    if (st == GPUDOT_OK)
        CKS(cudaMemcpyAsync(out, ar.res, (size_t)(r->na * fo.ob), cudaMemcpyDeviceToHost,
                            E->stream),
            "cudaMemcpy (exact)");
    if (st == GPUDOT_OK)
        CKS(cudaStreamSynchronize(E->stream), "exact kernel");
    E->exact_zero = 0; /* (the values lay where records are kept zero) */
    return st;
}

/* r's outputs through the device kernels: values finished on the device where each output
 * takes one block, else records finished here */
template <typename T> static gpudot_status device_sums(const gpudot_dot_req *r, int mode)
{
    int64_t g, bx;
    plan_blocks<T>(r, mode, &g, &bx);
    if (bx == 1)
        return device_values<T>(r, mode, r->out);
    gd_exact *a = (gd_exact *)malloc(4 * sizeof(gd_exact));
    if (!a)
        return GPUDOT_OUT_OF_MEMORY;
    int ns = ns_of(mode);
    gpudot_status st = device_records<T>(r, mode, [&](int64_t o, const int64_t *rec) {
        load_sums(ns, r->nk, rec, a);
        gpudot_exact_store(r, o, a, 0);
    });
    free(a);
    return st;
}

/* Outputs of a call on several GPUs whose runs are cut between shards (a vector's): summed
 * on the host, so few of them (their sums: 4 x 1.7 KB an output a device) */
constexpr int64_t kCutOutputsMax = 64;

/* The device kernel's mode for r on several GPUs (-1: not for it): every operand a garray
 * of one layout, reduced along its columns (no rows, no broadcast, no host operand);
 * *cut: some runs lie in more than one shard */
static int shard_mode(const gpudot_dot_req *r, bool *cut)
{
    int has_y = r->op != GPUDOT_OP_NORM;
    const gpudot_sharded *L = r->xs;
    if (!L || r->x_dev || (has_y && (!r->ys || r->y_dev || !gpudot_same_layout(L, r->ys))) ||
        r->nb != 1 || r->nk != L->k || r->na != L->a || r->nk == 0)
        return -1;
    *cut = false;
    for (int i = 0; i < L->n; i++)
        *cut |= L->s[i].kn > 0 && L->s[i].an > 0 && L->s[i].kn != L->k;
    if (*cut && r->na > kCutOutputsMax)
        return -1;
    gpudot_dot_req v = *r; /* (one GPU's call of the same operands) */
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.bx = v.by = 1;
    return device_mode(&v);
}

/* One device's part of exact_shards: its status, and where runs are cut, its sums of each
 * output (4 a output, as load_sums lays them out) */
struct DeviceSums {
    int dev = 0;
    gpudot_status st = GPUDOT_OK;
    std::vector<gd_exact> sums;
};

/* Shard i of r's layout as a call of one GPU's data */
static gpudot_dot_req shard_view(const gpudot_dot_req *r, int i)
{
    const gpudot_shard &sh = r->xs->s[i];
    gpudot_dot_req v = *r;
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.x = sh.d;
    v.y = r->op != GPUDOT_OP_NORM ? r->ys->s[i].d : nullptr;
    v.nk = v.kx = v.ky = sh.kn;
    v.na = v.ax = v.ay = sh.an;
    return v;
}

/* Device p.dev's shards of r, one after another on its engine (the calling thread's): a
 * shard of whole runs as one GPU's call into its outputs' place; runs cut between shards
 * summed into p.sums */
template <typename T>
static void device_shards(const gpudot_dot_req *r, int mode, bool cut, DeviceSums &p)
{
    gd_exact *a = (gd_exact *)malloc(4 * sizeof(gd_exact));
    int ns = ns_of(mode);
    p.st = a ? use_device(p.dev) : GPUDOT_OUT_OF_MEMORY;
    const gpudot_sharded *L = r->xs;
    for (int i = 0; i < L->n && p.st == GPUDOT_OK; i++) {
        const gpudot_shard &sh = L->s[i];
        if (sh.dev != p.dev || sh.kn == 0 || sh.an == 0)
            continue;
        gpudot_dot_req v = shard_view(r, i);
        if (!cut) {
            v.out = (char *)r->out + sh.a0 * exact_out(r).ob;
            p.st = device_sums<T>(&v, mode);
            continue;
        }
        p.st = device_records<T>(&v, mode, [&](int64_t o, const int64_t *rec) {
            load_sums(ns, sh.kn, rec, a);
            for (int s = 0; s < ns; s++) {
                int j = ns == 3 && s ? s + 1 : s;
                gd_exact_normalise(&a[j]); /* (digits below 2^32: merged without overflow) */
                gd_exact_merge(&p.sums[(size_t)(sh.a0 + o) * 4 + j], &a[j]);
            }
        });
    }
    free(a);
}

/* Garrays on several GPUs (shard_mode): every device's shards through the device kernel at
 * once, a host thread a device.  An output whose run lies in one shard is rounded from its
 * record; runs cut between shards are summed on the host, in any order (integer sums),
 * then rounded: the bits of one GPU and of the CPU engine. */
template <typename T> static gpudot_status exact_shards(const gpudot_dot_req *r, int mode, bool cut)
{
    const gpudot_sharded *L = r->xs;
    std::vector<DeviceSums> parts;
    try {
        for (int i = 0; i < L->n; i++) {
            const gpudot_shard &sh = L->s[i];
            bool seen = false;
            for (const DeviceSums &p : parts)
                seen |= p.dev == sh.dev;
            if (seen || sh.kn == 0 || sh.an == 0)
                continue;
            parts.emplace_back();
            parts.back().dev = sh.dev;
            if (cut) {
                parts.back().sums.resize((size_t)r->na * 4);
                for (gd_exact &e : parts.back().sums)
                    gd_exact_init(&e);
            }
        }
    } catch (...) {
        return GPUDOT_OUT_OF_MEMORY;
    }
    std::vector<std::thread> threads;
    gpudot_status st = GPUDOT_OK;
    if (parts.size() == 1) { /* (on this thread: no thread to start) */
        device_shards<T>(r, mode, cut, parts[0]);
    } else {
        try {
            for (DeviceSums &p : parts)
                threads.emplace_back([&] { device_shards<T>(r, mode, cut, p); });
        } catch (...) {
            snprintf(g_err, sizeof g_err, "no thread for a device's shards");
            st = GPUDOT_OUT_OF_MEMORY;
        }
        for (std::thread &t : threads)
            t.join();
    }
    use_primary();
    for (const DeviceSums &p : parts)
        if (st == GPUDOT_OK)
            st = p.st;
    if (st != GPUDOT_OK || !cut)
        return st;
    gd_exact *a = parts[0].sums.data();
    for (int64_t o = 0; o < r->na; o++) {
        for (size_t d = 1; d < parts.size(); d++)
            for (int j = 0; j < 4; j++)
                gd_exact_merge(&a[o * 4 + j], &parts[d].sums[(size_t)o * 4 + j]);
        gpudot_exact_store(r, o, &a[o * 4], 0);
    }
    return GPUDOT_OK;
}

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
    gpudot_status st = gpudot_check_req(r);
    if (st != GPUDOT_OK || r->nb == 0 || r->na == 0)
        return st;
    if ((r->x_dev || r->y_dev || r->xs || r->ys) && (st = probe()) != GPUDOT_OK)
        return st; /* (device data needs the device, on either path) */
    int kind = gpudot_exact_norm_kind(r), mode = kind ? -1 : device_mode(r);
    if (kind < 0)
        return GPUDOT_BAD_OPTION;
    if (kind > 0) { /* (real Inf, -Inf and 0 norms: exact in "double") */
        gpudot_dot_req q = *r;
        q.accum = GPUDOT_ACC_DOUBLE;
        return gpudot_cuda_dot(&q, poll);
    }
    if (mode >= 0)
        return r->type == GPUDOT_F32 ? device_sums<float>(r, mode) : device_sums<double>(r, mode);
    bool cut;
    if ((r->xs || r->ys) && (mode = shard_mode(r, &cut)) >= 0)
        return r->type == GPUDOT_F32 ? exact_shards<float>(r, mode, cut)
                                     : exact_shards<double>(r, mode, cut);
    gpudot_dot_req q = *r;
    int has_y = r->op != GPUDOT_OP_NORM;
    void *tx = nullptr, *ty = nullptr;
    st = to_host(r->x, r->x_dev, r->xs, (size_t)(r->bx * r->kx * r->ax), gpudot_esize(r, r->cx),
                 &q.x, &tx);
    if (st == GPUDOT_OK && has_y)
        st = to_host(r->y, r->y_dev, r->ys, (size_t)(r->by * r->ky * r->ay), gpudot_esize(r, r->cy),
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
