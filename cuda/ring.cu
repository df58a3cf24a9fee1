/*
 * CUDA engine: host data.  Calls of up to kDirectBytes go direct (one thread packs, one
 * kernel reads over PCIe); larger ones stream through the staging ring.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include <omp.h>
#include <sched.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "engine.cuh"

namespace gpudot
{

/* ---- pinned staging ring for host operands ----
 * A call on host data streams its operands through kSlots pinned host buffers, each with a
 * device twin: host threads pack chunk c into pinned slot c % kSlots (a parallel memcpy out
 * of Octave's pageable array) while the copy engine moves what is packed, piece by piece,
 * and the SMs reduce the chunks already copied (RingWalk).  Pinned copies run at ~53 GB/s,
 * pageable ones at ~9, and registering the caller's array costs more than its copy, so the
 * ring packs.  The buffers are grow-only, freed by gpudot_cuda_release. */

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
};

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
    Ring *R; /* its device's ring */
    int has_y, whole_out, npmax;
    int way;                            /* how the threads store (GPUDOT_PACK_*; kPackNtUpTo) */
    size_t esx, esy, eso, piece, first; /* largest piece; the first chunk's first piece */
    int64_t nk, a_per, k_per, nslab, nchunks;
    std::atomic<int64_t> ready[kSlots]; /* the chunk that may be packed into each slot */
    std::atomic<int> *done;             /* [slot][piece]: units of the piece packed */
    /* [slot][piece]: the chunk (high 32 bits) and the units of its piece handed out (low 32):
     * a thread late from an earlier chunk in the same slot finds another chunk there and
     * takes nothing */
    std::atomic<uint64_t> *next;
    std::atomic<int> stop; /* the master gave up (error or interrupt) */
    /* Position-fixed reduction (q > 0, ring_plan): every element packed at its address in
     * the caller's array modulo 16 (ex0, ey0: where x and y of this request start there);
     * where runs are longer than q (chunked), chunks of q reduced to states, nch_own a
     * column, written to states (device) in order, merged on the host after the call. */
    int64_t q = 0, ex0 = 0, ey0 = 0, nch_own = 0;
    int chunked = 0;
    State *states = nullptr;
    std::atomic<int> *halt = nullptr; /* set where another device's part failed */

    struct Chunk {
        gpudot_dot_req sub;
        CopyJob jobs[2];
        int njobs;
        size_t xb, yb; /* packed bytes of x and y */
        size_t xo, yo; /* where x and y start in the slot */
        int64_t a0, na, sl;
        int npieces;
        int64_t c;
        /* the slot offset of packed byte b */
        size_t at(size_t b) const
        {
            return b < xb ? xo + b : yo + (b - xb);
        }
    };

    /* q > 0: the slot offset (below 16) that keeps the element at src of operand v (whose
     * request starts at element e0 of the caller's array) at its address modulo 16 */
    size_t keep16(const CopyJob &j, const void *v, int64_t e0, size_t es) const
    {
        if (!q)
            return 0;
        int64_t e = e0 + (int64_t)((j.src - (const char *)v) / es);
        return (size_t)e * es % 16;
    }

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
        h.xb = h.yb = h.xo = 0;
        h.njobs = 0;
        char *hx = (char *)R->host[c % kSlots];
        if (kn > 0) {
            h.jobs[0] = pack_job(hx, r->x, esx, r->bx, r->kx, r->ax, h.a0, h.na, k0, kn, &h.sub.kx,
                                 &h.sub.ax);
            h.xo = keep16(h.jobs[0], r->x, ex0, esx);
            h.jobs[0].dst += h.xo;
            h.xb = h.jobs[0].len * h.jobs[0].count;
            h.njobs = 1;
            if (has_y) {
                h.jobs[1] = pack_job(hx, r->y, esy, r->by, r->ky, r->ay, h.a0, h.na, k0, kn,
                                     &h.sub.ky, &h.sub.ay);
                h.yo = align16(h.xo + h.xb) + keep16(h.jobs[1], r->y, ey0, esy);
                h.jobs[1].dst += h.yo;
                h.yb = h.jobs[1].len * h.jobs[1].count;
                h.njobs = 2;
            }
        } else {
            h.sub.kx = h.sub.ky = 0;
            h.sub.ax = r->ax > 1 ? h.na : 1;
            h.sub.ay = r->ay > 1 ? h.na : 1;
        }
        if (!has_y || kn == 0)
            h.yo = align16(h.xo + h.xb);
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

    int units(size_t lo, size_t hi) const
    {
        return (int)((hi - lo + kPackUnit - 1) / kPackUnit);
    }
    std::atomic<int> &count(int64_t c, int p)
    {
        return done[(c % kSlots) * npmax + p];
    }
    std::atomic<uint64_t> &handed(int64_t c, int p)
    {
        return next[(c % kSlots) * npmax + p];
    }

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
            if (halt && halt->load(std::memory_order_relaxed)) {
                st = GPUDOT_INTERRUPTED; /* (the part that failed has the call's error) */
                break;
            }
            /* slots free for the chunks ahead: their last copies (kSlots chunks back) done */
            while (pub < nchunks && pub < c + kSlots) {
                int s = (int)(pub % kSlots);
                if (R->busy[s]) {
                    cudaError_t q = cudaEventQuery(R->copied[s]);
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
            char *hx = (char *)R->host[s], *dx = (char *)R->dev[s];
            /* once a chunk: the device slot is free once the kernel that last read it finished */
            if (p == 0 && R->busy[s])
                CKS(cudaStreamWaitEvent(R->copy, R->used[s], 0), "cudaStreamWaitEvent");
            if (p < h.npieces) {
                if (nw == 0)
                    copy_range(h.jobs, h.njobs, lo, hi, way);
                size_t d0 = h.at(lo), d1 = h.at(hi - 1) + 1;
                TL_MARK(R->copy, 'c', d1 - d0);
                CKS(cudaMemcpyAsync(dx + d0, hx + d0, d1 - d0, cudaMemcpyHostToDevice, R->copy),
                    "cudaMemcpyAsync (upload)");
                TL_MARK(R->copy, 'C', d1 - d0);
                p++;
                continue;
            }
            /* all of chunk c queued: its kernel after its copies */
            CKS(cudaEventRecord(R->copied[s], R->copy), "cudaEventRecord");
            CKS(cudaStreamWaitEvent(R->comp, R->copied[s], 0), "cudaStreamWaitEvent");
            if (st)
                break;
            void *dout = (char *)E->out.p + (whole_out ? (size_t)(h.a0 * r->nb) * eso : 0);
            TL_MARK(R->comp, 'k', 0);
            if (chunked)
                st = run_in_chunks(&h.sub, dx + h.xo, has_y ? dx + h.yo : nullptr, q,
                                   states + h.a0 * nch_own + h.sl * (k_per / q));
            else
                st = run_kernel(&h.sub, dx + h.xo, dx + h.yo, dout, h.sl > 0, h.sl == nslab - 1);
            if (st)
                break;
            TL_MARK(R->comp, 'K', 0);
            CKS(cudaEventRecord(R->used[s], R->comp), "cudaEventRecord");
            R->busy[s] = 1;
            if (!whole_out && !chunked && h.sl == nslab - 1)
                CKS(cudaMemcpyAsync((char *)r->out + (size_t)(h.a0 * r->nb) * eso, E->out.p,
                                    (size_t)(h.na * r->nb) * eso, cudaMemcpyDeviceToHost, R->comp),
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

/* A host-data call's plan: element sizes, the way of packing, the slot size, and the
 * chunks (whole runs, a_per outputs a chunk; where one output does not fit, k-slabs of
 * k_per elements of one output).  q = 0: the slabs' states carried from chunk to chunk.
 * q > 0 (position-fixed, spread_pass): where the call's runs are longer than q (chunked),
 * they are cut into chunks of q, k_per a multiple of q, each chunk its own state; the slot
 * holds at least one chunk. */
struct RingPlan {
    int has_y;
    size_t esx, esy, eso, out_all, bytes;
    int way;
    size_t want;
    int64_t q, nk, a_per, k_per, nslab, ngroup;
    int chunked; /* the call's runs are longer than q (a part's may not be) */
    size_t slot_bytes() const
    {
        return q > 0 ? want + 64 : want;
    }
};

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
    pl.chunked = chunked;

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

/* One device's part of a call on host data: its request, its plan, its walk through that
 * device's ring.  Set up and finished by the calling thread on the part's device; its
 * master runs on a thread of its own where the call has several parts at once. */
struct Leg {
    int dev = 0;
    gpudot_dot_req sub;
    RingPlan pl;
    RingWalk w;
    std::unique_ptr<std::atomic<int>[]> done;
    std::unique_ptr<std::atomic<uint64_t>[]> next;
    State *host_states = nullptr; /* chunked: where its chunks' states go */
    size_t nstates = 0;
    gpudot_status st = GPUDOT_OK;
    int ready = 0; /* set up: leg_finish must run */
};

/* Plans and sets up a part on the engine in use: ring, buffers, walk.  q, ex0, ey0: as
 * RingWalk's; states: the host's place for its chunk states. */
gpudot_status leg_setup(Leg &g, const gpudot_dot_req *sub, int64_t q, int chunked, int64_t ex0,
                        int64_t ey0, State *states)
{
    gpudot_status st;
    g.dev = E->device;
    g.sub = *sub;
    g.host_states = states;
    const gpudot_dot_req *r = &g.sub;
    RingPlan &pl = g.pl;
    if ((st = ring_plan(r, pl, q, chunked)) || (st = ring_need(pl.slot_bytes())))
        return st;
    /* Outputs stay on the device until the end, unless there are very many of them. */
    int whole_out = chunked || pl.out_all <= kOutWhole;
    if (!chunked &&
        (st = buf_need(E->out, whole_out ? pl.out_all : (size_t)(r->nb * pl.a_per) * pl.eso,
                       "cudaMalloc (out)")))
        return st;
    int64_t nch_own = chunked ? (pl.nk + q - 1) / q : 0;
    g.nstates = (size_t)(nch_own * r->na);
    if (chunked && (st = buf_need(E->carry, g.nstates * sizeof(State), "cudaMalloc (states)")))
        return st;
    if (!q && pl.nslab > 1 &&
        (st = buf_need(E->carry, (size_t)r->nb * sizeof(State), "cudaMalloc (carry)")))
        return st;
    RingWalk &w = g.w;
    w.r = r;
    w.R = &ring();
    w.has_y = pl.has_y;
    w.esx = pl.esx, w.esy = pl.esy, w.eso = pl.eso;
    w.nk = pl.nk, w.a_per = pl.a_per, w.k_per = pl.k_per, w.nslab = pl.nslab;
    w.nchunks = pl.ngroup * pl.nslab;
    w.whole_out = whole_out;
    w.way = pl.way;
    w.piece = E->piece ? E->piece : kPiece;
    w.first = kPieceFirst < w.piece ? kPieceFirst : w.piece;
    w.npmax = (int)(pl.want / w.first + 2);
    w.q = q, w.ex0 = ex0, w.ey0 = ey0, w.nch_own = nch_own, w.chunked = chunked;
    w.states = (State *)E->carry.p;
    g.done.reset(new (std::nothrow) std::atomic<int>[kSlots * w.npmax]);
    g.next.reset(new (std::nothrow) std::atomic<uint64_t>[kSlots * w.npmax]);
    if (!g.done || !g.next) {
        snprintf(g_err, sizeof g_err, "no host memory for the staging ring's counters");
        return GPUDOT_OUT_OF_MEMORY;
    }
    w.done = g.done.get();
    w.next = g.next.get();
    for (int i = 0; i < kSlots; i++)
        w.ready[i].store(-1);
    w.stop.store(0);
    /* A small call's kernel on stream 0 can still be ending when its results are seen (its
     * last block empties the tickets after writing them); the ring's streams are not
     * ordered after stream 0, and share the workspace. */
    if (E->tail0) {
        CK(cudaStreamSynchronize(0), "kernel");
        E->tail0 = 0;
    }
    E->stream = w.R->comp;
    E->fixed = q > 0;
    g.ready = 1;
    return GPUDOT_OK;
}

/* The part's results to the host, and its device idle (every exit waits for both
 * streams: nothing of the call runs on after it returns); on the part's engine. */
gpudot_status leg_finish(Leg &g)
{
    if (!g.ready)
        return g.st;
    g.ready = 0;
    gpudot_status st = g.st;
    Ring &R = *g.w.R;
    GPUDOT_MARK(GPUDOT_STAGE_PACK);
    TL_MARK(R.comp, 'r', 0);
    if (st == GPUDOT_OK && g.w.chunked)
        CKS(cudaMemcpyAsync(g.host_states, E->carry.p, g.nstates * sizeof(State),
                            cudaMemcpyDeviceToHost, R.comp),
            "kernel or cudaMemcpy (result)");
    else if (st == GPUDOT_OK && g.w.whole_out)
        CKS(cudaMemcpyAsync(g.sub.out, E->out.p, g.pl.out_all, cudaMemcpyDeviceToHost, R.comp),
            "kernel or cudaMemcpy (result)");
    GPUDOT_MARK(GPUDOT_STAGE_DRAIN);
    cudaError_t e1 = cudaStreamSynchronize(R.comp), e2 = cudaStreamSynchronize(R.copy);
    GPUDOT_MARK(GPUDOT_STAGE_WAIT);
    E->stream = 0;
    E->fixed = 0;
    if (st == GPUDOT_OK && (e1 != cudaSuccess || e2 != cudaSuccess))
        st = fail(e1 != cudaSuccess ? e1 : e2, "kernel or cudaMemcpy (result)");
    g.st = st;
    return st;
}

/* The parts of one call that run at once (each on its own device), on the CPU engine's pool
 * (cpu/gpudot_pool.c): packing task t serves part t % n; the calling thread is part 0's
 * master, a thread of its own each other part's.  (With an OpenMP region the call also
 * waited at its end for every thread of the team, one the hypervisor had not run yet
 * included.) */
struct Legs {
    Leg **g;
    int n;
    gpudot_poll_fn poll;
    std::atomic<int> halt{0};

    void give_up()
    {
        halt.store(1);
        for (int i = 0; i < n; i++)
            g[i]->w.stop.store(1);
    }
    void master(int i, int posted)
    {
        int nw = posted / n + (i < posted % n);
        g[i]->st = g[i]->w.master(nw, i == 0 ? poll : nullptr);
        if (g[i]->st != GPUDOT_OK)
            give_up();
    }
};

static void legs_worker(void *ctx, int64_t t)
{
    Legs *l = static_cast<Legs *>(ctx);
    l->g[t % l->n]->w.worker();
}

static int legs_lead(void *ctx, int posted)
{
    Legs *l = static_cast<Legs *>(ctx);
    std::vector<std::thread> threads;
    int started = 1;
    try {
        for (; started < l->n; started++) {
            int i = started;
            threads.emplace_back([l, i, posted] {
                E = &engines[l->g[i]->dev];
                cudaSetDevice(l->g[i]->dev);
                l->master(i, posted);
            });
        }
    } catch (...) { /* no thread: those parts run here, after part 0 */
    }
    use_device(l->g[0]->dev);
    l->master(0, posted);
    for (int i = started; i < l->n; i++) {
        use_device(l->g[i]->dev);
        l->master(i, posted);
    }
    for (std::thread &t : threads)
        t.join();
    return GPUDOT_OK;
}

/* Runs the set-up parts g[0 .. n), one a device, at once; packing threads come from the
 * pool, one per kPackPerThread of the call's bytes, up to every processor (fewer are slower
 * at every size: doc/design.md).  The parts' statuses are in g[i]->st. */
void run_legs(Leg **g, int n, gpudot_poll_fn poll)
{
    Legs l;
    l.g = g;
    l.n = n;
    l.poll = poll;
    size_t bytes = 0;
    for (int i = 0; i < n; i++) {
        bytes += g[i]->pl.bytes;
        g[i]->w.halt = n > 1 ? &l.halt : nullptr;
    }
    /* (the n masters are threads of the call too: more would oversubscribe the CPUs) */
    int nt = gpudot_workers((int64_t)bytes, (int64_t)kPackPerThread, omp_get_num_procs());
    int ntasks = nt > n ? nt - n : 0;
#ifdef GPUDOT_STAGES
    int tl_on = TL.on; /* the timeline follows one ring */
    TL.on = n == 1 ? tl_on : 0;
    TL.n = 0;
    TL_MARK(g[0]->w.R->copy, 'S', 0);
#endif
    gpudot_pool_lead(ntasks, legs_worker, &l, legs_lead, &l);
#ifdef GPUDOT_STAGES
    TL.on = tl_on;
#endif
}

/* The call's status from its parts': a part's own failure before the others' halts. */
gpudot_status legs_status(Leg *g, int n)
{
    gpudot_status st = GPUDOT_OK;
    for (int i = 0; i < n; i++)
        if (g[i].st != GPUDOT_OK && (st == GPUDOT_OK || st == GPUDOT_INTERRUPTED))
            st = g[i].st;
    return st;
}

/* Devices that a call on host data spreads over (test hook; none: one a kSpreadPerGpuBytes
 * of operands, from device 0, up to every visible device; below two, the primary device). */
int spread_devs[GPUDOT_MAX_SHARDS], spread_n = 0;

/* The chunk of a position-fixed call: the largest power of two whose elements of both
 * operands fit kHostChunkBytes (or the test cap on staging). */
int64_t host_chunk(size_t es)
{
    size_t b =
        E->staging_cap && E->staging_cap < kHostChunkBytes ? E->staging_cap : kHostChunkBytes;
    int64_t q = 1;
    while ((size_t)(2 * q) * es <= b)
        q *= 2;
    return q;
}

/* A call on host data reducing runs (nb = 1), position-fixed: each output's bits depend on
 * its run alone (its elements at their addresses modulo 16, runs longer than q in chunks of
 * q merged on the host in order), so they are the same whichever devices take part.  Spread
 * over devices as a garray's shards are (gpudot_shard_layout: chunks of q, or columns),
 * each device's part through its own ring; a device named more than once (the test hook)
 * runs its parts one after another. */
gpudot_status spread_pass(const gpudot_dot_req *r, const RingPlan &pl, gpudot_poll_fn poll)
{
    int64_t q = host_chunk(pl.esx + pl.esy);
    int devs[GPUDOT_MAX_SHARDS], nd = 0;
    if (spread_n)
        for (; nd < spread_n; nd++)
            devs[nd] = spread_devs[nd];
    else {
        int64_t most = (int64_t)(pl.bytes / kSpreadPerGpuBytes);
        int count = gpudot_cuda_device_count();
        if (most <= 1 || count <= 1)
            devs[nd++] = E->device;
        else
            for (; nd < count && nd < most && nd < GPUDOT_MAX_SHARDS; nd++)
                devs[nd] = nd;
    }
    gpudot_sharded L;
    gpudot_shard_layout(&L, pl.nk, r->na, r->na == 1, q, devs, nd);
    int chunked = pl.nk > q;
    int64_t nch = chunked ? (pl.nk + q - 1) / q : 0;
    std::vector<State> states;
    std::unique_ptr<Leg[]> legs(new (std::nothrow) Leg[nd]);
    try {
        states.resize((size_t)(nch * r->na));
    } catch (...) {
        legs.reset();
    }
    if (!legs) {
        snprintf(g_err, sizeof g_err, "no host memory for a call's parts");
        return GPUDOT_OUT_OF_MEMORY;
    }
    int taken[GPUDOT_MAX_SHARDS] = {};
    for (int i = 0; i < nd; i++)
        taken[i] = L.s[i].kn == 0 || L.s[i].an == 0;
    gpudot_status st = GPUDOT_OK;
    /* rounds of parts on distinct devices */
    while (st == GPUDOT_OK) {
        Leg *g[GPUDOT_MAX_SHARDS];
        int n = 0, nset = 0, round[GPUDOT_MAX_SHARDS];
        for (int i = 0; i < nd; i++) {
            int clash = taken[i];
            for (int j = 0; j < n && !clash; j++)
                clash = L.s[round[j]].dev == L.s[i].dev;
            if (!clash)
                round[n++] = i, taken[i] = 1;
        }
        if (n == 0)
            break;
        for (int j = 0; j < n && st == GPUDOT_OK; j++, nset++) {
            const gpudot_shard &sh = L.s[round[j]];
            int64_t ex = (r->ax > 1 ? sh.a0 * r->kx : 0) + (r->kx > 1 ? sh.k0 : 0);
            int64_t ey = (r->ay > 1 ? sh.a0 * r->ky : 0) + (r->ky > 1 ? sh.k0 : 0);
            gpudot_dot_req s = *r;
            s.x = (const char *)r->x + (size_t)ex * pl.esx;
            if (pl.has_y)
                s.y = (const char *)r->y + (size_t)ey * pl.esy;
            s.nk = sh.kn;
            s.na = sh.an;
            s.kx = r->kx > 1 ? sh.kn : 1;
            s.ky = r->ky > 1 ? sh.kn : 1;
            s.ax = r->ax > 1 ? sh.an : 1;
            s.ay = r->ay > 1 ? sh.an : 1;
            s.out = (char *)r->out + (size_t)sh.a0 * pl.eso;
            g[j] = &legs[round[j]];
            State *hs = chunked ? &states[(size_t)(sh.a0 * nch + sh.k0 / q)] : nullptr;
            if ((st = use_device(sh.dev)) == GPUDOT_OK)
                st = leg_setup(*g[j], &s, q, chunked, ex, ey, hs);
            g[j]->st = st;
        }
        if (st == GPUDOT_OK)
            run_legs(g, n, poll);
        for (int j = 0; j < nset; j++)
            if (g[j]->ready && use_device(g[j]->dev) == GPUDOT_OK)
                leg_finish(*g[j]);
        if (st == GPUDOT_OK)
            st = legs_status(legs.get(), nd);
    }
    use_primary();
    if (st == GPUDOT_OK && chunked)
        merge_on_host(r, states.data(), nch, r->na, r->out);
    return st;
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
