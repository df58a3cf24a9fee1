/*
 * __gpudot__'s test and bench hooks, apart from its public operations:
 *
 *   n = __gpudot__ ("__entry_calls__")                  calls the compiled entries' fast path
 *                                                       answered
 *   __gpudot__ ("__ping__")                             an empty kernel's round trip (bench)
 *   __gpudot__ ("__fault__", what[, dev[, skip]])       the next launch is refused ("launch"),
 *                                                       the next kernel traps ("trap"), or the
 *                                                       next device allocation fails ("alloc";
 *                                                       on GPU dev, after skip that succeed)
 *   __gpudot__ ("shard_chunk", q)                       chunk length of new garrays on several
 *                                                       GPUs (0: the default)
 *   __gpudot__ ("spread_devices", D)                    the devices that calls on host data
 *                                                       spread over, a device more than once
 *                                                       for several parts on it ([]: every
 *                                                       device for large calls)
 *   __gpudot__ ("staging_cap", bytes[, piece[, pack]])  the ring's slot cap (forces chunks),
 *                                                       copy size and way of packing (any of
 *                                                       them set: small calls take the ring)
 *   __gpudot__ ("tile_from", bytes[, blocks])           tile order from bytes a run, launches
 *                                                       of at most blocks
 *   __gpudot__ ("runtime_launch", on)                   kernels through the runtime (<<<>>>),
 *                                                       not cuLaunchKernel
 *   __gpudot__ ("warp_batch", b)                        warp columns finish b rounds of
 *                                                       outputs at once (0: as planned)
 *   n = __gpudot__ ("staged", on)                       warp columns through shared memory
 *                                                       where their runs allow (0: never);
 *                                                       n: such launches so far (-1: none
 *                                                       can run on this device)
 *   r = __gpudot__ ("exact_dot", x, y[, c[, w]])        the exact sum of x .* y rounded once
 *                                                       (real, of one class; in chunks of c
 *                                                       merged; w: by the whole-range path
 *                                                       alone: tests/test_exact.m)
 *   n = __gpudot__ ("exact_lanes", level)               the exact mode's bulk loops: 4
 *                                                       AVX-512 lanes, 3 AVX2 ones, 0 none,
 *                                                       at most the CPU's (-1: the CPU's);
 *                                                       n: the level now in force
 *   [v, ok, lo, hi] = __gpudot__ ("exact_near", h, l, e, single, sq)
 *                                                       gd_round_near of each h + l within e
 *                                                       (ok: certain, v: its value), and
 *                                                       the exact roundings of h + l - e and
 *                                                       h + l + e (sq: their square roots)
 *   [ok, same] = __gpudot__ ("exact_near62", h, l, e)   gd_near62 of each (ok: certain) and
 *                                                       whether its 62 bits are those of
 *                                                       h + l - e and h + l + e, exactly
 */
#include <math.h>
#include <stdint.h>

#include "gateway.h"
#include "gpudot_exact.h"
#include "gpudot_exact_top.h"
#include "gpudot_hooks.h"

static void hook_entry_calls(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)nrhs, (void)prhs;
    plhs[0] = mxCreateDoubleScalar(gateway_entry_calls());
}

static void hook_ping(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs, (void)nrhs, (void)prhs;
    gpudot_status st = gpudot_cuda_ping();
    if (st != GPUDOT_OK)
        raise_status("__gpudot__", st, gpudot_cuda_last_error());
}

static void hook_fault(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    static const char *const names[] = {"none", "launch", "trap", "alloc"};
    int f = nrhs >= 2 && nrhs <= 4 ? name_index(prhs[1], names, (int)(sizeof names / sizeof *names))
                                   : -1;
    if (f < 0)
        gd_error("gpudot:badOption", "__gpudot__: __fault__ takes \"none\", \"launch\", "
                                     "\"trap\" or \"alloc\", then a device and a count");
    gpudot_status st =
        nrhs == 2 ? gpudot_cuda_inject(f)
                  : gpudot_cuda_inject_on((int)count_arg("__fault__", prhs[2]), f,
                                          nrhs == 4 ? (int)count_arg("__fault__", prhs[3]) : 0);
    if (st != GPUDOT_OK)
        raise_status("__gpudot__", st, gpudot_cuda_last_error());
}

static void hook_staging_cap(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    /* the GPUDOT_PACK_* ways, in order */
    static const char *const ways[] = {"auto", "plain", "stream", "demote"};
    if (nrhs > 4)
        gd_error("gpudot:badOption", "__gpudot__: staging_cap takes bytes, piece bytes "
                                     "and a way of packing");
    size_t cap = count_arg("staging_cap", nrhs >= 2 ? prhs[1] : NULL);
    size_t piece = nrhs >= 3 ? count_arg("staging_cap", prhs[2]) : 0;
    int way =
        nrhs == 4 ? name_index(prhs[3], ways, (int)(sizeof ways / sizeof *ways)) : GPUDOT_PACK_AUTO;
    if (way < 0)
        gd_error("gpudot:badOption", "__gpudot__: staging_cap's way of packing is \"auto\", "
                                     "\"plain\", \"stream\" or \"demote\"");
    gpudot_cuda_set_staging_cap(cap, piece, way);
}

static void hook_tile_from(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    if (nrhs > 3)
        gd_error("gpudot:badOption", "__gpudot__: tile_from takes bytes and blocks");
    size_t bytes = count_arg("tile_from", nrhs >= 2 ? prhs[1] : NULL);
    size_t blocks = nrhs == 3 ? count_arg("tile_from", prhs[2]) : 0;
    gpudot_cuda_set_tile_from(bytes, blocks > INT32_MAX ? INT32_MAX : (int)blocks);
}

static void hook_warp_batch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    if (nrhs != 2)
        gd_error("gpudot:badOption", "__gpudot__: warp_batch takes one count");
    size_t b = count_arg("warp_batch", prhs[1]);
    gpudot_cuda_set_warp_batch(b > 32 ? 32 : (int)b);
}

static void hook_staged(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    if (nrhs != 2)
        gd_error("gpudot:badOption", "__gpudot__: staged takes one flag");
    plhs[0] =
        mxCreateDoubleScalar((double)gpudot_cuda_set_staged(count_arg("staged", prhs[1]) != 0));
}

static void hook_exact_dot(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    const mxArray *x = nrhs >= 3 ? prhs[1] : NULL, *y = nrhs >= 3 ? prhs[2] : NULL;
    if (!x || !is_float_array(x) || !is_float_array(y) || mxIsComplex(x) || mxIsComplex(y) ||
        mxIsSingle(x) != mxIsSingle(y) || mxGetNumberOfElements(x) != mxGetNumberOfElements(y))
        gd_error("gpudot:badType", "__gpudot__: exact_dot takes two real arrays of one class "
                                   "and size");
    size_t n = mxGetNumberOfElements(x), c = nrhs >= 4 ? count_arg("exact_dot", prhs[3]) : n;
    int single = mxIsSingle(x), wide = nrhs >= 5 && count_arg("exact_dot", prhs[4]);
    gd_exact a, part;
    gd_exact_init(&a);
    for (size_t i0 = 0; i0 < n; i0 += c ? c : n) { /* each chunk on its own, then merged */
        size_t len = n - i0 < (c ? c : n) ? n - i0 : (c ? c : n);
        gd_exact_init(&part);
        if (wide)
            for (size_t i = i0; i < i0 + len; i++)
                gd_exact_add_prod_wide(&part, single ? mxGetSingles(x)[i] : mxGetDoubles(x)[i],
                                       single ? mxGetSingles(y)[i] : mxGetDoubles(y)[i]);
        else if (single)
            gd_exact_dot_f(&part, mxGetSingles(x) + i0, mxGetSingles(y) + i0, (int64_t)len);
        else
            gd_exact_dot_d(&part, mxGetDoubles(x) + i0, mxGetDoubles(y) + i0, (int64_t)len);
        gd_exact_merge(&a, &part);
    }
    if (single) {
        plhs[0] = mxCreateNumericMatrix(1, 1, mxSINGLE_CLASS, mxREAL);
        *mxGetSingles(plhs[0]) = gd_exact_round_f(&a);
    } else {
        plhs[0] = mxCreateDoubleScalar(gd_exact_round_d(&a));
    }
}

static void hook_exact_lanes(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    if (nrhs != 2 || !mxIsNumeric(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 1 ||
        mxIsComplex(prhs[1]) || isnan(mxGetScalar(prhs[1])))
        gd_error("gpudot:badOption", "__gpudot__: exact_lanes takes one level: 4, 3, 0 or -1");
    plhs[0] = mxCreateDoubleScalar((double)gd_exact_set_lanes((int)mxGetScalar(prhs[1])));
}

/* The exact_near hooks' h, l, e (prhs[1..3]: real doubles of one size, nrhs arguments in
 * all): their count, or an error naming the hook's arguments (usage) */
static size_t near_args(int nrhs, const mxArray *prhs[], int want, const char *usage)
{
    size_t n = nrhs == want && mxIsDouble(prhs[1]) ? mxGetNumberOfElements(prhs[1]) : 0;
    for (int i = 1; i <= 3; i++)
        if (nrhs != want || !mxIsDouble(prhs[i]) || mxIsComplex(prhs[i]) ||
            mxGetNumberOfElements(prhs[i]) != n)
            gd_error("gpudot:badType", "__gpudot__: %s", usage);
    return n;
}

/* a = h + l + s e, exactly */
static void exact_end(gd_exact *a, double h, double l, double e, int s)
{
    gd_exact_init(a);
    gd_exact_add_prod(a, h, 1);
    gd_exact_add_prod(a, l, 1);
    gd_exact_add_prod(a, s * e, 1);
}

/* the first max (nlhs, 1) of the k results as outputs, the rest freed */
static void give_outputs(int nlhs, mxArray *plhs[], mxArray **res, int k)
{
    for (int i = 0; i < k; i++)
        if (i < (nlhs > 1 ? nlhs : 1))
            plhs[i] = res[i];
        else
            mxDestroyArray(res[i]);
}

static void hook_exact_near(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    size_t n =
        near_args(nrhs, prhs, 6, "exact_near takes h, l, e (real doubles of one size), single, sq");
    int single = count_arg("exact_near", prhs[4]) != 0, sq = count_arg("exact_near", prhs[5]) != 0;
    const double *h = mxGetDoubles(prhs[1]), *l = mxGetDoubles(prhs[2]), *e = mxGetDoubles(prhs[3]);
    mxArray *res[4];
    double *out[4];
    for (int k = 0; k < 4; k++) {
        res[k] = mxCreateDoubleMatrix(1, n, mxREAL);
        out[k] = mxGetDoubles(res[k]);
    }
    gd_exact *a = (gd_exact *)mxMalloc(sizeof *a);
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        out[1][i] = gd_round_near(h[i], l[i], e[i], single, sq, &v);
        out[0][i] = v;
        for (int k = 0; k < 2; k++) { /* h + l -+ e, exactly, rounded once */
            exact_end(a, h[i], l[i], e[i], k ? 1 : -1);
            out[2 + k][i] = sq       ? gd_exact_sqrt(a, single)
                            : single ? (double)gd_exact_round_f(a)
                                     : gd_exact_round_d(a);
        }
    }
    mxFree(a);
    give_outputs(nlhs, plhs, res, 4);
}

static void hook_exact_near62(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    size_t n = near_args(nrhs, prhs, 4, "exact_near62 takes h, l, e (real doubles of one size)");
    const double *h = mxGetDoubles(prhs[1]), *l = mxGetDoubles(prhs[2]), *e = mxGetDoubles(prhs[3]);
    mxArray *res[2] = {mxCreateDoubleMatrix(1, n, mxREAL), mxCreateDoubleMatrix(1, n, mxREAL)};
    double *ok = mxGetDoubles(res[0]), *same = mxGetDoubles(res[1]);
    gd_exact *a = (gd_exact *)mxMalloc(sizeof *a);
    for (size_t i = 0; i < n; i++) {
        gd_top t;
        uint64_t m, mk;
        int x, xk, negk;
        ok[i] = gd_near62(h[i], l[i], e[i], &t);
        same[i] = ok[i] && gd_top_round(&t, 62, -100000, 100000, &m, &x) == 1;
        for (int k = 0; k < 2 && same[i]; k++) { /* h + l -+ e, exactly, to 62 bits */
            exact_end(a, h[i], l[i], e[i], k ? 1 : -1);
            same[i] = gd_exact_bits(a, 62, &negk, &mk, &xk) && mk == m && xk == x && negk == t.neg;
        }
    }
    mxFree(a);
    give_outputs(nlhs, plhs, res, 2);
}

static void hook_runtime_launch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    if (nrhs != 2 || !(mxIsNumeric(prhs[1]) || mxIsLogical(prhs[1])) ||
        mxGetNumberOfElements(prhs[1]) != 1 || mxIsComplex(prhs[1]) || isnan(mxGetScalar(prhs[1])))
        gd_error("gpudot:badOption", "__gpudot__: runtime_launch takes one value, true or false");
    gpudot_cuda_set_runtime_launch(mxGetScalar(prhs[1]) != 0);
}

static void hook_shard_chunk(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    gateway_set_shard_chunk((int64_t)count_arg("shard_chunk", nrhs == 2 ? prhs[1] : NULL));
}

static void hook_spread_devices(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    int devs[GPUDOT_MAX_SHARDS];
    size_t n = nrhs == 2 && mxIsDouble(prhs[1]) && !mxIsComplex(prhs[1])
                   ? mxGetNumberOfElements(prhs[1])
                   : GPUDOT_MAX_SHARDS + 1;
    if (n > GPUDOT_MAX_SHARDS)
        gd_error("gpudot:badOption",
                 "__gpudot__: spread_devices takes a list of up to %d device "
                 "indices (double)",
                 GPUDOT_MAX_SHARDS);
    const double *v = mxGetDoubles(prhs[1]);
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] >= 0 && v[i] < 1e6) || v[i] != floor(v[i]))
            gd_error("gpudot:badOption", "__gpudot__: device indices are integers from 0");
        devs[i] = (int)v[i];
    }
    gpudot_status st = gpudot_cuda_set_spread(devs, (int)n);
    if (st != GPUDOT_OK)
        raise_status("__gpudot__", st, gpudot_cuda_last_error());
}

const gateway_op gateway_hook_ops[] = {
    {"shard_chunk", hook_shard_chunk},
    {"spread_devices", hook_spread_devices},
    {"__entry_calls__", hook_entry_calls},
    {"__ping__", hook_ping},
    {"__fault__", hook_fault},
    {"staging_cap", hook_staging_cap},
    {"tile_from", hook_tile_from},
    {"warp_batch", hook_warp_batch},
    {"staged", hook_staged},
    {"exact_dot", hook_exact_dot},
    {"exact_lanes", hook_exact_lanes},
    {"exact_near", hook_exact_near},
    {"exact_near62", hook_exact_near62},
    {"runtime_launch", hook_runtime_launch},
};
const size_t gateway_n_hook_ops = sizeof gateway_hook_ops / sizeof *gateway_hook_ops;
