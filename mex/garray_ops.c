/*
 * __gpudot__'s garray operations: a resident copy on one GPU or several, its selection
 * (indexing), gather, free.  garray.m calls them; the registry (registry.c) keeps the data.
 *
 *   [id, on_dev, devs] = __gpudot__ ("garray_new", x[, D])  D: devices, a list or "all"
 *   id = __gpudot__ ("garray_index", id, L, dims)           the elements L, a new garray
 *   x = __gpudot__ ("garray_gather", id)
 *   [m, i] = __gpudot__ ("garray_minmax", id, dim, is_min)  max or min along dim, indices
 *   __gpudot__ ("garray_free", id)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gateway.h"
#include "registry.h"

/* The registry entry of an id (a numeric scalar), or NULL. */
garr_t *garray_by_id(const mxArray *a)
{
    return a && mxIsNumeric(a) && mxGetNumberOfElements(a) == 1
               ? registry_find((int64_t)mxGetScalar(a))
               : NULL;
}

/* garray.m passes resident operands as struct ("garray_id", id). */
const garr_t *garray_of(const mxArray *a)
{
    if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1)
        return NULL;
    const mxArray *f = mxGetField(a, 0, "garray_id");
    if (!f || !mxIsNumeric(f) || mxGetNumberOfElements(f) != 1)
        return NULL;
    return registry_find((int64_t)mxGetScalar(f));
}

int garray_live(const garr_t *g)
{
    return g && (g->d || g->sh);
}

static int64_t shard_chunk = GPUDOT_SHARD_CHUNK; /* test hook: __gpudot__ ("shard_chunk", q) */

void gateway_set_shard_chunk(int64_t q)
{
    shard_chunk = q > 0 ? q : GPUDOT_SHARD_CHUNK;
}

/* garray's "devices": a list of device indices (a device may repeat: several shards on it)
 * or "all"; *n of them into devs (none where no GPU is usable: the data then stays on the
 * host, as for garray (x)).  Raises for anything else. */
static void devices_arg(const mxArray *a, int *devs, int *n)
{
    char *s = get_string(a);
    int all = s && !strcasecmp(s, "all");
    if (s)
        mxFree(s);
    if (!all && (!(mxIsNumeric(a) || mxIsLogical(a)) || mxIsComplex(a) || mxIsEmpty(a) ||
                 mxIsSparse(a) || mxGetNumberOfElements(a) > GPUDOT_MAX_SHARDS))
        gd_error("gpudot:badOption",
                 "garray: DEVICES must be \"all\" or a list of 1 to %d device indices (from 0)",
                 GPUDOT_MAX_SHARDS);
    size_t m = all ? 0 : mxGetNumberOfElements(a);
    if (!all) {
        mxArray *d = NULL, *in = (mxArray *)a;
        mexCallMATLAB(1, &d, 1, &in, "double");
        const double *v = mxGetDoubles(d);
        for (size_t i = 0; i < m; i++)
            if (!(v[i] >= 0) || v[i] != floor(v[i])) {
                mxDestroyArray(d);
                gd_error("gpudot:badOption",
                         "garray: device indices are integers from 0 (CUDA's numbering)");
            }
        for (size_t i = 0; i < m; i++)
            devs[i] = v[i] > 1e6 ? 1000000 : (int)v[i];
        mxDestroyArray(d);
    }
    if (!gpudot_cuda_available()) { /* as garray (x): the data stays on the host */
        *n = 0;
        return;
    }
    int count = gpudot_cuda_device_count();
    if (all) {
        m = (size_t)(count < GPUDOT_MAX_SHARDS ? count : GPUDOT_MAX_SHARDS);
        for (size_t i = 0; i < m; i++)
            devs[i] = (int)i;
    }
    for (size_t i = 0; i < m; i++)
        if (devs[i] >= count)
            gd_error("gpudot:noDevice", "garray: there is no GPU %d (%d visible)", devs[i], count);
    *n = (int)m;
}

/* Allocates and fills a garray's memory on several GPUs; raises (nothing kept) on failure. */
static void garray_shards(garr_t *e, const mxArray *a, const void *src, const int *devs, int n)
{
    size_t es = (e->single ? 4 : 8) * (e->cplx ? 2 : 1);
    int64_t numel = (int64_t)mxGetNumberOfElements(a);
    shape_t sh;
    shape_of(a, &sh);
    int vec = is_vector(&sh);
    int64_t k = vec ? numel : sh.d[0], cols = 1; /* (0 x 3: 3 empty columns) */
    for (int i = 1; i < sh.nd; i++)
        cols *= sh.d[i];
    e->sh = malloc(sizeof *e->sh);
    if (!e->sh)
        gd_error("gpudot:outOfMemory", "garray: out of host memory");
    gpudot_shard_layout(e->sh, k, vec ? 1 : cols, vec, shard_chunk, devs, n);
    gpudot_status st = gpudot_cuda_shards_alloc(e->sh, es);
    if (st == GPUDOT_OK && (st = gpudot_cuda_shards_copy(e->sh, (void *)src, es, 1)) != GPUDOT_OK)
        gpudot_cuda_shards_free(e->sh);
    if (st != GPUDOT_OK) {
        free(e->sh);
        e->sh = NULL;
        raise_status("garray", st, gpudot_cuda_last_error());
    }
}

/* [id, on_device, devs] = __gpudot__ ("garray_new", x[, D]) */
static void op_garray_new(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2 || nrhs > 3 || !is_float_array(prhs[1]))
        gd_error("gpudot:badType",
                 "garray: X must be a full single or double array (real or complex)");
    const mxArray *a = prhs[1];
    int devs[GPUDOT_MAX_SHARDS], ndev = 0;
    if (nrhs == 3)
        devices_arg(prhs[2], devs, &ndev);
    const void *src = data_of(a); /* before the dimensions: see data_of */
    if (mxGetNumberOfDimensions(a) > MAXDIMS)
        gd_error("gpudot:badDim", "garray: at most %d dimensions are supported", MAXDIMS);
    if (!registry_reserve())
        gd_error("gpudot:outOfMemory", "garray: out of host memory");
    garr_t e;
    memset(&e, 0, sizeof e);
    e.id = registry_next_id();
    e.single = mxIsSingle(a);
    e.cplx = mxIsComplex(a);
    e.nd = (int)mxGetNumberOfDimensions(a);
    memcpy(e.dims, mxGetDimensions(a), (size_t)e.nd * sizeof(mwSize));
    e.bytes = mxGetNumberOfElements(a) * (e.single ? 4 : 8) * (e.cplx ? 2 : 1);
    if (ndev > 0) {
        garray_shards(&e, a, src, devs, ndev);
    } else if (gpudot_cuda_available()) {
        gpudot_status st = gpudot_cuda_malloc(&e.d, e.bytes);
        if (st == GPUDOT_OUT_OF_MEMORY) {
            gpudot_cuda_info_t in;
            gpudot_cuda_info(&in);
            gd_error("gpudot:outOfMemory",
                     "garray: cannot allocate %zu bytes on the device (%zu bytes free)", e.bytes,
                     in.mem_free);
        }
        if (st != GPUDOT_OK)
            raise_status("garray", st, gpudot_cuda_last_error());
        if ((st = gpudot_cuda_copy(e.d, src, e.bytes, 1)) != GPUDOT_OK) {
            gpudot_cuda_free(e.d);
            raise_status("garray", st, gpudot_cuda_last_error());
        }
    } else {
        warn_no_device("garray", "keeping data on the host");
    }
    registry_add(&e);
    update_lock();
    plhs[0] = mxCreateDoubleScalar((double)e.id);
    plhs[1] = mxCreateLogicalScalar(e.d != NULL || e.sh != NULL);
    if (nlhs > 2) {
        int n = e.sh ? e.sh->n : e.d ? 1 : 0;
        plhs[2] = mxCreateDoubleMatrix(1, (mwSize)n, mxREAL);
        double *v = mxGetDoubles(plhs[2]);
        gpudot_cuda_info_t in;
        if (!e.sh && e.d && gpudot_cuda_info(&in) == GPUDOT_OK)
            v[0] = in.device;
        for (int i = 0; e.sh && i < n; i++)
            v[i] = e.sh->s[i].dev;
    }
}

/* id = __gpudot__ ("garray_index", id, L, dims): a new garray of dims holding the elements
 * L (1-based linear indices, checked here) of garray id, selected on the device. */
static void op_garray_index(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    const garr_t *g = nrhs == 4 ? garray_by_id(prhs[1]) : NULL;
    if (!g || !g->d || !mxIsDouble(prhs[2]) || mxIsComplex(prhs[2]) || !mxIsDouble(prhs[3]) ||
        mxGetNumberOfElements(prhs[3]) < 2 || mxGetNumberOfElements(prhs[3]) > MAXDIMS)
        gd_error("gpudot:badType", "__gpudot__: garray_index takes a garray on one GPU, indices "
                                   "and dimensions");
    /* (registry_reserve may move the entries: g is read here, before it) */
    const void *src = g->d;
    int g_single = g->single, g_cplx = g->cplx;
    size_t es = (g->single ? 4 : 8) * (g->cplx ? 2 : 1);
    size_t numel = g->bytes / es, n = mxGetNumberOfElements(prhs[2]);
    const double *L = mxGetDoubles(prhs[2]), *dv = mxGetDoubles(prhs[3]);
    garr_t e;
    memset(&e, 0, sizeof e);
    e.nd = (int)mxGetNumberOfElements(prhs[3]);
    size_t want = 1;
    for (int j = 0; j < e.nd; j++) {
        e.dims[j] = (mwSize)dv[j];
        want *= (size_t)dv[j];
    }
    if (want != n)
        gd_error("gpudot:sizeMismatch",
                 "__gpudot__: garray_index: dimensions of %zu elements for "
                 "%zu indices",
                 want, n);
    int64_t *idx = mxMalloc(n ? n * sizeof *idx : 1);
    for (size_t i = 0; i < n; i++) {
        double v = L[i];
        if (!(v >= 1) || v != floor(v) || v > (double)numel) {
            mxFree(idx);
            if (v == floor(v) && v > (double)numel)
                gd_error("Octave:index-out-of-bounds", "index (%.0f): out of bound %zu", v, numel);
            gd_error("Octave:index-out-of-bounds",
                     "index (%g): subscripts must be either integers 1 to (2^63)-1 or logicals", v);
        }
        idx[i] = (int64_t)v - 1;
    }
    if (!registry_reserve()) {
        mxFree(idx);
        gd_error("gpudot:outOfMemory", "garray: out of host memory");
    }
    e.id = registry_next_id();
    e.single = g_single;
    e.cplx = g_cplx;
    e.bytes = n * es;
    gpudot_status st = gpudot_cuda_malloc(&e.d, e.bytes);
    if (st == GPUDOT_OK && (st = gpudot_cuda_gather(e.d, src, idx, (int64_t)n, es)) != GPUDOT_OK)
        gpudot_cuda_free(e.d);
    mxFree(idx);
    if (st != GPUDOT_OK)
        raise_status("garray", st, gpudot_cuda_last_error());
    registry_add(&e);
    update_lock();
    plhs[0] = mxCreateDoubleScalar((double)e.id);
}

/* __gpudot__ ("garray_free", id): unknown ids are ignored (delete may run twice, or after
 * the registry was emptied at exit). */
static void op_garray_free(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    if (nrhs != 2 || !mxIsNumeric(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 1)
        gd_error("gpudot:badOption", "__gpudot__: garray_free needs an id");
    garr_t *g = garray_by_id(prhs[1]);
    if (!g)
        return;
    registry_free_data(g);
    registry_remove(g);
    update_lock();
}

/* x = __gpudot__ ("garray_gather", id) */
static void op_garray_gather(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    const garr_t *g = nrhs == 2 ? garray_of(prhs[1]) : NULL;
    if (!g && nrhs == 2)
        g = garray_by_id(prhs[1]);
    if (!garray_live(g))
        gd_error("gpudot:badType", "gather: not a garray on the device");
    void *data;
    plhs[0] = make_out(g->nd, g->dims, g->single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, g->cplx, &data);
    gpudot_status st =
        g->sh ? gpudot_cuda_shards_copy(g->sh, data, (g->single ? 4 : 8) * (g->cplx ? 2 : 1), 0)
              : gpudot_cuda_copy(data, g->d, g->bytes, 0);
    if (st != GPUDOT_OK)
        raise_status("gather", st, gpudot_cuda_last_error());
}

/* [m, i] = __gpudot__ ("garray_minmax", id, dim, is_min): max (is_min: min) of garray id
 * (on one GPU) along dim (past its dimensions: the elements themselves), with 1-based
 * indices, both to the host; Octave's rules (cuda/minmax.cu). */
static void op_garray_minmax(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const garr_t *g = nrhs == 4 ? garray_by_id(prhs[1]) : NULL;
    double dim = nrhs == 4 && mxIsNumeric(prhs[2]) && mxGetNumberOfElements(prhs[2]) == 1
                     ? mxGetScalar(prhs[2])
                     : 0;
    if (!g || !g->d || !(dim >= 1) || dim != floor(dim))
        gd_error("gpudot:badType", "__gpudot__: garray_minmax takes a garray on one GPU, a DIM "
                                   "and whether min");
    int is_min = mxIsLogicalScalarTrue(prhs[3]) || (mxIsNumeric(prhs[3]) && mxGetScalar(prhs[3]));
    int64_t pre = 1, n = 1, post = 1;
    mwSize odims[MAXDIMS];
    for (int j = 0; j < g->nd; j++) {
        odims[j] = g->dims[j];
        if (j + 1 < dim)
            pre *= (int64_t)g->dims[j];
        else if (j + 1 == dim)
            n = (int64_t)g->dims[j], odims[j] = 1;
        else
            post *= (int64_t)g->dims[j];
    }
    void *val;
    mxArray *m = make_out(g->nd, odims, g->single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, g->cplx, &val);
    mxArray *i = mxCreateNumericArray((mwSize)g->nd, odims, mxDOUBLE_CLASS, mxREAL);
    gpudot_status st =
        gpudot_cuda_minmax(g->d, g->single, g->cplx, pre, n, post, is_min, val, mxGetDoubles(i));
    if (st != GPUDOT_OK) {
        mxDestroyArray(m);
        mxDestroyArray(i);
        raise_status(is_min ? "min" : "max", st, gpudot_cuda_last_error());
    }
    plhs[0] = m;
    if (nlhs > 1)
        plhs[1] = i;
    else
        mxDestroyArray(i);
}

const gateway_op gateway_garray_ops[] = {
    {"garray_minmax", op_garray_minmax}, {"garray_new", op_garray_new},
    {"garray_free", op_garray_free},     {"garray_gather", op_garray_gather},
    {"garray_index", op_garray_index},
};
const size_t gateway_n_garray_ops = sizeof gateway_garray_ops / sizeof *gateway_garray_ops;
