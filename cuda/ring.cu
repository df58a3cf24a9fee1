/*
 * CUDA engine: host data.  Calls of up to kDirectBytes go direct (one thread packs, one
 * kernel reads over PCIe); larger ones stream through the staging ring (ring.cuh), over one
 * device here or over several (spread.cu).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ring.cuh"

namespace gpudot
{

#ifdef GPUDOT_STAGES
Timeline TL;
#endif

/* One ring per device, used by the thread that drives that device's part of a call. */
Ring rings[kMaxDevices];

Ring &ring()
{
    return rings[E->device];
}

void ring_free()
{
    Ring &R = ring();
    for (int i = 0; i < kSlots; i++) {
        if (R.host[i] && !E->lost)
            cudaFreeHost(R.host[i]);
        if (R.dev[i] && !E->lost)
            cudaFree(R.dev[i]);
        R.host[i] = R.dev[i] = R.host_dev[i] = nullptr;
        R.busy[i] = 0;
    }
    R.cap = 0;
}

gpudot_status ring_need(size_t bytes)
{
    Ring &R = ring();
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

/* device and pinned host bytes of every device's ring */
size_t ring_bytes()
{
    size_t b = 0;
    for (const Ring &R : rings)
        b += 2 * kSlots * R.cap;
    return b;
}

size_t align16(size_t b)
{
    return (b + 15) & ~(size_t)15;
}

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

/* A small call on host data in one launch (kDirectBytes): the operands packed by the calling
 * thread into the ring's first slot (free: every call leaves both ring streams idle), read
 * there by the kernel (pinned memory, mapped), the results written into the mapped area.
 * (Its runs are shorter than spread_pass's chunks, and start at the slot's start as the
 * caller's arrays do at an address modulo 16.) */
gpudot_status dot_direct(const gpudot_dot_req *r, int has_y, size_t esx, size_t esy, size_t bo,
                         int way)
{
    gpudot_dot_req sub = *r;
    Ring &R = ring();
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
    /* runs position-fixed, as the ring reduces them (spread_pass): the same bits either way */
    E->fixed = r->nb == 1;
    gpudot_status st = run_mapped(&sub, hd, hd + align16(xb), bo);
    E->fixed = 0;
    return st;
}

size_t round_mib(size_t b)
{
    return (b + (1 << 20) - 1) & ~(size_t)((1 << 20) - 1);
}

gpudot_status ring_plan(const gpudot_dot_req *r, RingPlan &pl, int64_t q, int chunked)
{
    pl.has_y = r->op != GPUDOT_OP_NORM;
    int cplx = r->op != GPUDOT_OP_NORM && (r->cx || r->cy);
    pl.esx = esize(r->type, r->cx);
    pl.esy = pl.has_y ? esize(r->type, r->cy) : 0;
    pl.eso = esize(r->type, cplx);
    pl.q = q;
    pl.nk = r->nk > 0 ? r->nk : 0;
    pl.out_all = (size_t)(r->nb * r->na) * pl.eso;
    pl.bytes = (size_t)(r->bx * r->kx * r->ax) * pl.esx + (size_t)(r->by * r->ky * r->ay) * pl.esy;
    size_t esx = pl.esx, esy = pl.esy;
    size_t per_a = (r->ax > 1 ? (size_t)(r->bx * r->kx) * esx : 0) +
                   (r->ay > 1 ? (size_t)(r->by * r->ky) * esy : 0);
    size_t fixed = (r->ax > 1 ? 0 : (size_t)(r->bx * r->kx) * esx) +
                   (r->ay > 1 ? 0 : (size_t)(r->by * r->ky) * esy);
    size_t per_k = (r->kx > 1 ? (size_t)r->bx * esx : 0) + (r->ky > 1 ? (size_t)r->by * esy : 0);
    size_t fixed_k = (r->kx > 1 ? 0 : (size_t)r->bx * esx) + (r->ky > 1 ? 0 : (size_t)r->by * esy);

    /* How the threads store (see kPackNtUpTo); slot size (see kSlotMid, kSlotDemote):
     * packing, copying and reducing overlap from the second chunk on; the test cap forces
     * small chunks. */
    int way = gpudot_pack_way(E->pack != GPUDOT_PACK_AUTO ? E->pack : GPUDOT_PACK_DEMOTE);
    if (E->pack == GPUDOT_PACK_AUTO && way != GPUDOT_PACK_DEMOTE)
        way = pl.bytes <= kPackNtUpTo ? GPUDOT_PACK_STREAM : GPUDOT_PACK_PLAIN;
    size_t want = pl.bytes / 2;
    size_t most = way == GPUDOT_PACK_DEMOTE ? kSlotDemote
                  : pl.bytes > kSlotMidUpTo ? kSlotMax
                                            : kSlotMid;
    want = want < kSlotMin ? kSlotMin : want > most ? most : want;
    pl.want = round_mib(want);
    /* the slot holds at least one slice: one element of every row of one output (rows of
     * 300 x 300 complex singles, 2.2 MB, met 2 MiB slots: outOfMemory) */
    if (q == 0 && fixed_k + per_k + 64 > pl.want)
        pl.want = round_mib(fixed_k + per_k + 64);
    if (q > 0) { /* one chunk (or one output's whole run) and the room to align its parts */
        size_t unit = chunked ? fixed_k + (size_t)q * per_k : fixed + per_a;
        if (round_mib(unit) > pl.want)
            pl.want = round_mib(unit);
    }
    pl.way = way;
    /* room to align the parts to 16 bytes: q > 0 allocates it beyond the slot (slot_bytes), so
     * that whole chunks fill the slot (4 MiB slots held one 2 MiB chunk: single 2^26 through
     * one H100's ring 1.04 -> 1.13x the pinned floor) */
    size_t budget = q > 0 ? pl.want : pl.want - 64;
    if (E->staging_cap && E->staging_cap < budget)
        budget = E->staging_cap;

    if (!chunked && fixed + per_a <= budget) {
        int64_t a_per = per_a ? (int64_t)((budget - fixed) / per_a) : r->na;
        a_per = a_per > r->na ? r->na : a_per < 1 ? 1 : a_per;
        int64_t grid_cap =
            r->nb > 1 ? kMaxGridX / ((r->nb + kThreads - 1) / kThreads) : kMaxGridX / 64;
        pl.a_per = a_per > grid_cap ? (grid_cap > 0 ? grid_cap : 1) : a_per;
        pl.k_per = pl.nk;
    } else {
        size_t step = chunked ? (size_t)q : 1; /* k_per is a multiple of this */
        if (fixed_k + per_k * step > budget || per_k == 0) {
            snprintf(g_err, sizeof g_err, "needs %zu bytes of staging for one slice, %zu usable",
                     fixed_k + per_k * step, budget);
            return GPUDOT_OUT_OF_MEMORY;
        }
        pl.a_per = 1;
        int64_t k_per = (int64_t)((budget - fixed_k) / (per_k * step)) * (int64_t)step;
        pl.k_per = k_per > pl.nk ? pl.nk : k_per;
    }
    if (pl.nk == 0)
        pl.k_per = 0;
    pl.nslab = pl.k_per > 0 ? (pl.nk + pl.k_per - 1) / pl.k_per : 1;
    pl.ngroup = (r->na + pl.a_per - 1) / pl.a_per;
    return GPUDOT_OK;
}

/* One pass of a call: resident operands on the device (plan.cu), host data direct or
 * through the ring. */
gpudot_status dot_pass(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    gpudot_status st = begin(r);
    if (st != GPUDOT_OK)
        return st;
    if (r->nb == 0 || r->na == 0)
        return GPUDOT_OK;
    if (r->xs || (r->ys && r->op != GPUDOT_OP_NORM))
        return shard_pass(r, poll);
    if (r->x_dev || (r->y_dev && r->op != GPUDOT_OP_NORM))
        return dot_resident(r);
    RingPlan pl;
    GPUDOT_MARK(GPUDOT_STAGE_ENGINE_ENTRY);
    if ((st = ring_plan(r, pl, 0, 0)))
        return st;
    /* (the ring's test hooks, a cap, a piece size or a way of packing, keep calls in the ring) */
    if (pl.ngroup * pl.nslab == 1 && pl.nk > 0 && pl.bytes <= kDirectBytes &&
        pl.out_all <= kMappedBytes && !E->staging_cap && !E->piece && E->pack == GPUDOT_PACK_AUTO) {
        if ((st = ring_need(pl.want)))
            return st;
        GPUDOT_MARK(GPUDOT_STAGE_BUFFERS);
        return dot_direct(r, pl.has_y, pl.esx, pl.esy, pl.out_all, pl.way);
    }
    if (r->nb == 1 && pl.nk > 0)
        return spread_pass(r, pl, poll);
    /* rows (nb > 1): one device's ring, slabs' states carried on the device */
    Leg g;
    if ((st = leg_setup(g, r, 0, 0, 0, 0, nullptr)) == GPUDOT_OK) {
        GPUDOT_MARK(GPUDOT_STAGE_BUFFERS);
        Leg *one = &g;
        run_legs(&one, 1, poll);
    } else
        g.st = st;
    return leg_finish(g);
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

#ifdef GPUDOT_STAGES
int gpudot_cuda_timeline(int on, double *gpu_us, double *host_us, char *kind, size_t *bytes,
                         int max)
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

} // extern "C"
