/*
 * CUDA engine: arrays on several GPUs (gpudot_sharded).  A call launches on every shard's
 * device before it waits for any, so the GPUs reduce at once.  Each output's bits depend
 * only on its run: runs of at most q elements are reduced whole by grids planned from their
 * length (E->fixed), longer ones in chunks of q whose states are merged on the host in
 * chunk order; so one GPU and eight give the same result.
 */
#include <cstdio>
#include <cstring>

#include <algorithm>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "engine.cuh"

namespace gpudot
{

namespace
{

/* Back to the primary device's engine on every way out. */
struct OnPrimary {
    ~OnPrimary()
    {
        E->fixed = 0;
        use_primary();
    }
};

/* One operand as shard s sees it: a device pointer and its extents (k: its run, or 1; a:
 * its columns, or 1). */
struct Part {
    const char *p;
    int64_t k, a;
};

/* The bytes of host data shard s reads of an operand with extents kx, ax (0 where it is
 * sharded: its own memory). */
size_t slice_bytes(const gpudot_sharded *S, int64_t kx, int64_t ax, size_t es,
                   const gpudot_shard &sh)
{
    return S ? 0 : (size_t)((kx > 1 ? sh.kn : 1) * (ax > 1 ? sh.an : 1)) * es;
}

/* Where element e of an array of element size es goes: at e * es modulo 16, as in one
 * piece, so that the kernels' 16-byte loads split every run the same way. */
size_t shift16(int64_t e, size_t es)
{
    return (size_t)e * es % 16;
}

/* Shard s's part of an operand: its own memory where sharded, else the slice of host data
 * it reads (a broadcast operand whole), uploaded to dst. */
gpudot_status part_of(const gpudot_sharded *S, const void *host, int64_t kx, int64_t ax, size_t es,
                      const gpudot_shard &sh, int i, char *dst, Part *pt)
{
    pt->k = kx > 1 ? sh.kn : 1;
    pt->a = ax > 1 ? sh.an : 1;
    if (S) {
        pt->p = (const char *)S->s[i].d;
        return GPUDOT_OK;
    }
    int64_t e0 = shard_start(sh, kx, ax);
    dst += shift16(e0, es);
    CK(cudaMemcpy(dst, (const char *)host + (size_t)e0 * es, slice_bytes(S, kx, ax, es, sh),
                  cudaMemcpyHostToDevice),
       "cudaMemcpy (upload)");
    pt->p = dst;
    return GPUDOT_OK;
}

size_t align256(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

/* A request over parts x and y: a whole shard (column j = 0, na = its columns), or column j
 * of it alone (na = 1). */
gpudot_dot_req view(const gpudot_dot_req *r, const Part &x, const Part &y, int64_t j, int64_t nk,
                    int64_t na, size_t esx, size_t esy, const void **dx, const void **dy)
{
    gpudot_dot_req v = *r;
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.nb = v.bx = v.by = 1;
    v.nk = nk;
    v.na = na;
    v.kx = x.k > 1 ? nk : 1;
    v.ky = y.k > 1 ? nk : 1;
    v.ax = na > 1 ? x.a : 1;
    v.ay = na > 1 ? y.a : 1;
    *dx = x.p + (size_t)((x.a > 1 ? j : 0) * x.k) * esx;
    *dy = y.p ? y.p + (size_t)((y.a > 1 ? j : 0) * y.k) * esy : nullptr;
    return v;
}

/* Rows: columns c0 .. c0+cn of a shard's parts, each row one output (x.k: the rows of x, or
 * 1 where it is a row broadcast down; x.a: its columns, or 1). */
gpudot_dot_req rows_view(const gpudot_dot_req *r, const Part &x, const Part &y, int64_t c0,
                         int64_t cn, size_t esx, size_t esy, const void **dx, const void **dy)
{
    gpudot_dot_req v = *r;
    v.xs = v.ys = nullptr;
    v.x_dev = v.y_dev = 1;
    v.nk = cn;
    v.na = v.ax = v.ay = 1;
    v.bx = x.k;
    v.by = y.k;
    v.kx = x.a > 1 ? cn : 1;
    v.ky = y.a > 1 ? cn : 1;
    *dx = x.p + (size_t)((x.a > 1 ? c0 : 0) * x.k) * esx;
    *dy = y.p ? y.p + (size_t)((y.a > 1 ? c0 : 0) * y.k) * esy : nullptr;
    return v;
}

/* One call on garrays of several GPUs, in steps: where each shard's uploads, outputs and
 * states go (place), the buffers on each device (reserve), each shard's uploads and
 * kernels (launch), each device's results or wait (collect), the chunks' states merged on
 * the host (merge). */
struct ShardCall {
    const gpudot_dot_req *r;
    const gpudot_sharded *L;
    int has_y, rows, chunked;
    size_t esx, esy, eso;
    /* an operand's extents along the shards' runs and columns: (kx, ax), or for rows (bx,
     * kx); the chunks of a shard's runs (or columns, for rows) */
    int64_t kx, ax, ky, ay, nch;
    std::vector<State> states;
    /* where each shard's uploads, outputs and chunk states go in its device's buffers
     * (shards of one device side by side: their kernels run after one another) */
    struct Place {
        size_t x, y, out, carry;
    } at[GPUDOT_MAX_SHARDS], need[kMaxDevices] = {};
    int launched[GPUDOT_MAX_SHARDS] = {};

    size_t states_of(const gpudot_shard &sh) const
    {
        return rows ? (size_t)((sh.an + L->qa - 1) / L->qa * L->k)
                    : (size_t)(((sh.kn + L->q - 1) / L->q) * sh.an);
    }
    static bool empty(const gpudot_shard &sh)
    {
        return sh.kn == 0 || sh.an == 0;
    }

    /* the call's layout checked: along the first dimension (a vector: its length), or a
     * matrix's rows (dimension 2), operands of one layout */
    gpudot_status check(const gpudot_dot_req *req)
    {
        r = req;
        L = r->xs ? r->xs : r->ys;
        has_y = r->op != GPUDOT_OP_NORM;
        if (!has_y && !r->xs)
            L = nullptr;
        if (!L) {
            snprintf(g_err, sizeof g_err, "no operand on several GPUs");
            return GPUDOT_BAD_OPTION;
        }
        rows = L->a > 1 && r->nb > 1 && r->nb == L->k && r->nk == L->a && r->na == 1;
        if (!rows && (r->nb != 1 || r->nk != L->k || r->na != L->a)) {
            snprintf(g_err, sizeof g_err,
                     "a garray on several GPUs is reduced along its first dimension (a vector: "
                     "its length) or a matrix along its second; gather it for other dimensions");
            return GPUDOT_BAD_DIM;
        }
        if (has_y && r->xs && r->ys && !gpudot_same_layout(r->xs, r->ys) &&
            (r->xs->k != r->ys->k || r->xs->a != r->ys->a)) {
            snprintf(g_err, sizeof g_err,
                     "garrays on several GPUs of different sizes do not broadcast: gather "
                     "one of them");
            return GPUDOT_SIZE_MISMATCH;
        }
        if (r->x_dev || (has_y && r->y_dev) ||
            (has_y && r->xs && r->ys && !gpudot_same_layout(r->xs, r->ys))) {
            snprintf(g_err, sizeof g_err,
                     "garrays on different devices: make both with the same "
                     "\"devices\"");
            return GPUDOT_SIZE_MISMATCH;
        }
        return GPUDOT_OK;
    }

    void place()
    {
        int cplx = has_y && (r->cx || r->cy);
        esx = esize(r->type, r->cx), esy = has_y ? esize(r->type, r->cy) : 0;
        eso = esize(r->type, r->op != GPUDOT_OP_NORM && cplx);
        kx = rows ? r->bx : r->kx, ax = rows ? r->kx : r->ax;
        ky = rows ? r->by : r->ky, ay = rows ? r->ky : r->ay;
        chunked = rows || L->k > L->q;
        nch = rows ? (L->a + L->qa - 1) / L->qa : chunked ? (L->k + L->q - 1) / L->q : 1;
        for (int i = 0; i < L->n; i++) {
            const gpudot_shard &sh = L->s[i];
            if (empty(sh))
                continue;
            Place &n = need[sh.dev];
            at[i].x = n.x;
            n.x += align256(slice_bytes(r->xs, kx, ax, esx, sh) + 16);
            at[i].y = n.y;
            n.y += has_y ? align256(slice_bytes(r->ys, ky, ay, esy, sh) + 16) : 0;
            at[i].out = n.out;
            n.out += chunked ? 0 : align256((size_t)sh.an * eso);
            at[i].carry = n.carry;
            n.carry += chunked ? states_of(sh) : 0;
        }
    }

    gpudot_status reserve()
    {
        gpudot_status st = GPUDOT_OK;
        if (chunked) {
            try {
                states.resize((size_t)(nch * (rows ? L->k : L->a)));
            } catch (...) {
                snprintf(g_err, sizeof g_err, "no host memory for the chunks' states");
                return GPUDOT_OUT_OF_MEMORY;
            }
        }
        for (int d = 0; d < kMaxDevices && st == GPUDOT_OK; d++) {
            const Place &n = need[d];
            if (!n.x && !n.y && !n.out && !n.carry)
                continue;
            if ((st = use_device(d)) == GPUDOT_OK && n.x)
                st = buf_need(E->x, n.x, "cudaMalloc (x)");
            if (st == GPUDOT_OK && n.y)
                st = buf_need(E->y, n.y, "cudaMalloc (y)");
            if (st == GPUDOT_OK && n.out)
                st = buf_need(E->out, n.out, "cudaMalloc (out)");
            if (st == GPUDOT_OK && n.carry)
                st = buf_need(E->carry, n.carry * sizeof(State), "cudaMalloc (carry)");
        }
        return st;
    }

    /* shard i's uploads and kernels, queued on its device (E->fixed: grids from the runs'
     * lengths alone) */
    gpudot_status launch(int i)
    {
        const gpudot_shard &sh = L->s[i];
        gpudot_status st = use_device(sh.dev);
        if (st)
            return st;
        launched[i] = 1;
        E->fixed = 1;
        Part x, y = {nullptr, 1, 1};
        if ((st = part_of(r->xs, r->x, kx, ax, esx, sh, i, (char *)E->x.p + at[i].x, &x)))
            return st;
        if (has_y && (st = part_of(r->ys, r->y, ky, ay, esy, sh, i, (char *)E->y.p + at[i].y, &y)))
            return st;
        if (!has_y)
            y = x; /* (norms: unused by the kernels) */
        const void *dx, *dy;
        if (!chunked) {
            gpudot_dot_req v = view(r, x, y, 0, sh.kn, sh.an, esx, esy, &dx, &dy);
            st = run_kernel(&v, dx, has_y ? dy : nullptr, (char *)E->out.p + at[i].out, 0, 1);
        } else if (rows) { /* chunks of qa columns: a state for each row */
            State *carry = (State *)E->carry.p + at[i].carry;
            for (int64_t c0 = 0; c0 < sh.an && st == GPUDOT_OK; c0 += L->qa, carry += L->k) {
                gpudot_dot_req v =
                    rows_view(r, x, y, c0, std::min(L->qa, sh.an - c0), esx, esy, &dx, &dy);
                st = run_kernel(&v, dx, has_y ? dy : nullptr, nullptr, 0, 0, 0, carry);
            }
        } else { /* chunks: each column's run in chunks of q */
            int64_t per = (sh.kn + L->q - 1) / L->q;
            for (int64_t j = 0; j < sh.an && st == GPUDOT_OK; j++) {
                gpudot_dot_req v = view(r, x, y, j, sh.kn, 1, esx, esy, &dx, &dy);
                st = run_in_chunks(&v, dx, has_y ? dy : nullptr, L->q,
                                   (State *)E->carry.p + at[i].carry + j * per);
            }
        }
        E->fixed = 0;
        return st;
    }

    /* shard i's results (its outputs, or its chunks' states) to the host where the call
     * went well, else its device's wait: nothing of the call runs on after it returns */
    gpudot_status collect(int i, gpudot_status st)
    {
        const gpudot_shard &sh = L->s[i];
        gpudot_status s2 = use_device(sh.dev);
        if (s2 == GPUDOT_OK && st == GPUDOT_OK) {
            if (!chunked)
                s2 = copy_out((char *)r->out + (size_t)sh.a0 * eso, (char *)E->out.p + at[i].out,
                              (size_t)sh.an * eso);
            else
                s2 = copy_out(&states[rows ? (size_t)(sh.a0 / L->qa * L->k)
                                           : (size_t)(sh.a0 * nch + sh.k0 / L->q)],
                              (State *)E->carry.p + at[i].carry, states_of(sh) * sizeof(State));
        } else if (s2 == GPUDOT_OK) {
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess)
                fail(e, "kernel");
        }
        return s2;
    }

    void merge()
    {
        if (rows) { /* chunk by chunk to row by row, then merged */
            std::vector<State> t(states.size());
            for (int64_t c = 0; c < nch; c++)
                for (int64_t b = 0; b < L->k; b++)
                    t[(size_t)(b * nch + c)] = states[(size_t)(c * L->k + b)];
            merge_on_host(r, t.data(), nch, L->k, r->out);
        } else if (chunked)
            merge_on_host(r, states.data(), nch, L->a, r->out);
    }
};

} // namespace

gpudot_status shard_pass(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    std::unique_ptr<ShardCall> call(new (std::nothrow) ShardCall);
    if (!call) {
        snprintf(g_err, sizeof g_err, "no host memory for a call on several GPUs");
        return GPUDOT_OUT_OF_MEMORY;
    }
    ShardCall &c = *call;
    gpudot_status st = c.check(r);
    if (st)
        return st;
    if (r->nk == 0) { /* empty runs (no shard holds an element): the CPU engine's empty sums */
        static const double none[2] = {0, 0};
        gpudot_dot_req q = *r;
        q.x = r->xs ? none : r->x;
        q.y = r->ys ? none : r->y;
        q.xs = q.ys = nullptr;
        return gpudot_cpu_dot(&q, poll);
    }
    c.place();
    OnPrimary back;
    st = c.reserve();
    /* every shard's device launches before any waits, so the GPUs reduce at once */
    for (int i = 0; i < c.L->n && st == GPUDOT_OK; i++)
        if (!ShardCall::empty(c.L->s[i]))
            st = c.launch(i);
    for (int i = 0; i < c.L->n; i++) {
        if (!c.launched[i])
            continue;
        gpudot_status s2 = c.collect(i, st);
        if (st == GPUDOT_OK)
            st = s2;
    }
    if (st == GPUDOT_OK)
        c.merge();
    if (st == GPUDOT_OK && poll && poll())
        st = GPUDOT_INTERRUPTED;
    return st;
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

gpudot_status gpudot_cuda_shards_alloc(gpudot_sharded *L, size_t es)
{
    OnPrimary back;
    gpudot_status st = GPUDOT_OK;
    for (int i = 0; i < L->n && st == GPUDOT_OK; i++) {
        gpudot_shard &sh = L->s[i];
        sh.d = sh.mem = nullptr;
        if (sh.kn == 0 || sh.an == 0)
            continue;
        if ((st = use_device(sh.dev)) == GPUDOT_OK) {
            cudaError_t e = dev_malloc(&sh.mem, (size_t)(sh.kn * sh.an) * es + 16);
            sh.d = (char *)sh.mem + shift16(sh.a0 * L->k + sh.k0, es);
            if (e != cudaSuccess) {
                sh.d = sh.mem = nullptr;
                st = fail(e, "cudaMalloc");
                char what[600];
                snprintf(what, sizeof what, "%s on GPU %d", g_err, sh.dev);
                snprintf(g_err, sizeof g_err, "%s", what);
            }
        }
    }
    if (st != GPUDOT_OK)
        gpudot_cuda_shards_free(L);
    return st;
}

void gpudot_cuda_shards_free(gpudot_sharded *L)
{
    OnPrimary back;
    for (int i = 0; i < L->n; i++) {
        gpudot_shard &sh = L->s[i];
        if (sh.mem && use_device(sh.dev) == GPUDOT_OK)
            cudaFree(sh.mem);
        sh.d = sh.mem = nullptr;
    }
}

/* One host thread per shard: pageable copies to different GPUs run at once. */
gpudot_status gpudot_cuda_shards_copy(const gpudot_sharded *L, void *host, size_t es, int to_device)
{
    OnPrimary back;
    for (int i = 0; i < L->n; i++) /* every device probed and usable before any thread */
        if (L->s[i].d) {
            gpudot_status st = use_device(L->s[i].dev);
            if (st != GPUDOT_OK)
                return st;
        }
    std::vector<cudaError_t> errs((size_t)L->n, cudaSuccess);
    std::vector<std::thread> threads;
    auto copy = [&](int i) {
        const gpudot_shard &sh = L->s[i];
        char *h = (char *)host + (size_t)(sh.a0 * L->k + sh.k0) * es;
        size_t bytes = (size_t)(sh.kn * sh.an) * es;
        cudaError_t e = cudaSetDevice(sh.dev);
        if (e == cudaSuccess)
            e = to_device ? cudaMemcpy(sh.d, h, bytes, cudaMemcpyHostToDevice)
                          : cudaMemcpy(h, sh.d, bytes, cudaMemcpyDeviceToHost);
        errs[(size_t)i] = e;
    };
    try {
        for (int i = 0; i < L->n; i++)
            if (L->s[i].d)
                threads.emplace_back(copy, i);
    } catch (...) {
        for (std::thread &t : threads)
            t.join();
        snprintf(g_err, sizeof g_err, "no thread for a copy");
        return GPUDOT_OUT_OF_MEMORY;
    }
    for (std::thread &t : threads)
        t.join();
    for (int i = 0; i < L->n; i++)
        if (errs[(size_t)i] != cudaSuccess) {
            use_device(L->s[i].dev);
            return fail(errs[(size_t)i],
                        to_device ? "cudaMemcpy (upload)" : "cudaMemcpy (download)");
        }
    return GPUDOT_OK;
}

} // extern "C"
