/*
 * CUDA engine, host data: a call's parts, one a device, each through its device's ring, their
 * masters on threads of their own and the pool's packing tasks dealt out among them; a
 * position-fixed call (runs in chunks of q merged on the host in order) spread over devices.
 */
#include <cstdio>

#include <new>
#include <thread>
#include <vector>

#include "ring.cuh"

namespace gpudot
{

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
            int64_t ex = shard_start(sh, r->kx, r->ax), ey = shard_start(sh, r->ky, r->ay);
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

} // namespace gpudot
