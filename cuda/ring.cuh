/*
 * CUDA engine, host data: the pinned staging ring, a call's walk through it (RingWalk), its
 * plan (RingPlan) and one device's part of a call (Leg).  ring.cu holds the ring and the
 * calls of one device; spread.cu runs a call's parts on several devices at once.
 */
#ifndef GPUDOT_RING_CUH
#define GPUDOT_RING_CUH

#include <atomic>
#include <memory>

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
};
extern Timeline TL;
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

/* The ring of the device in use (one a device, used by the thread driving that device's
 * part of a call); grown to slots of at least bytes. */
Ring &ring();
gpudot_status ring_need(size_t bytes);
size_t align16(size_t b);

/* A strided copy: `count` segments of `len` bytes, `stride` apart in src, to dst back to
 * back. */
struct CopyJob {
    char *dst;
    const char *src;
    size_t len, stride, count;
};

/* Copies bytes [b0, b1) of the jobs' sources, taken back to back (job 0's bytes, then job
 * 1's), to their places in the jobs' destinations. */
void copy_range(const CopyJob *jobs, int njobs, size_t b0, size_t b1, int way);

/* The job that packs the part of one operand that chunk (a0..a0+na, k0..k0+nk) needs into
 * dst; sets the operand's extents within the chunk. */
CopyJob pack_job(char *dst, const void *h, size_t es, int64_t b, int64_t k, int64_t a, int64_t a0,
                 int64_t na, int64_t k0, int64_t nk, int64_t *kc, int64_t *ac);

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
                         int way);

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
    size_t slot_bytes() const
    {
        return q > 0 ? want + 64 : want;
    }
};

size_t round_mib(size_t b);
gpudot_status ring_plan(const gpudot_dot_req *r, RingPlan &pl, int64_t q, int chunked);

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

/* spread.cu: a part's set-up and finish (on its device's engine), the parts of a call run at
 * once, their status; a position-fixed call spread over devices */
gpudot_status leg_setup(Leg &g, const gpudot_dot_req *sub, int64_t q, int chunked, int64_t ex0,
                        int64_t ey0, State *states);
gpudot_status leg_finish(Leg &g);
void run_legs(Leg **g, int n, gpudot_poll_fn poll);
gpudot_status legs_status(Leg *g, int n);
gpudot_status spread_pass(const gpudot_dot_req *r, const RingPlan &pl, gpudot_poll_fn poll);

} // namespace gpudot

#endif
