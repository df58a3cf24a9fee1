/*
 * __gpudot__'s selection and search operations (gsearch.m and garray's maxk and mink call
 * them; arguments are checked there, with the caller's name):
 *
 *   [v, i] = __gpudot__ ("topk", x, k, dim, is_min)         host x: the CPU engine
 *   [v, i] = __gpudot__ ("garray_topk", id, k, dim, is_min) a garray on one GPU, k <= 256
 *   [S, I, unsafe] = __gpudot__ ("search", Q, D, k, cosine, mode)      host D: the CPU engine
 *   [S, I, unsafe] = __gpudot__ ("garray_search", Q, id, k, cosine, mode)
 *       Q (dim x m, D's class) against D (dim x n; a garray on one GPU or several): the
 *       best k scores and indices of each query (k x m; on the GPU k <= 256), or every
 *       score (k = -1: n x m); mode: 0 "double", 1 "native", 2 "compensated" (on the GPU);
 *       unsafe: the cosines must be computed scaled
 *   [id, dev, unsafe] = __gpudot__ ("garray_scores", Q, id, cosine, mode)
 *       every score, n x m, into a new garray on the primary GPU (dev: its ordinal)
 *   [S, I, done] = __gpudot__ ("gsearch", Q, D, k, name, value, ...)
 *       gsearch (Q, D, k, ...)'s common calls in one gateway call (its m-file path costs
 *       ~150 us of interpreter a call): D a garray object on the GPU, Q of D's class, k
 *       from 0 to 256, options "metric" and "accum" only.  Anything else, and cosines that
 *       must be computed scaled, answer done = false and empty S and I: gsearch.m then
 *       takes its own path (and its errors).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "gateway.h"
#include "registry.h"

/* x seen as pre x n x post along dim; odims: x's extents with len at dim (past x's
 * dimensions too: *ond of them) */
static void split_at(int nd, const mwSize *dims, int64_t dim, mwSize len, int64_t *pre, int64_t *n,
                     int64_t *post, mwSize *odims, int *ond)
{
    *pre = *n = *post = 1;
    *ond = dim > nd ? (int)dim : nd;
    for (int j = 0; j < *ond; j++) {
        mwSize e = j < nd ? dims[j] : 1;
        odims[j] = e;
        if (j + 1 < dim)
            *pre *= (int64_t)e;
        else if (j + 1 == dim)
            *n = (int64_t)e, odims[j] = len;
        else
            *post *= (int64_t)e;
    }
}

static double scalar_arg(const mxArray *a, double bad)
{
    return a && mxIsNumeric(a) && !mxIsComplex(a) && mxGetNumberOfElements(a) == 1 ? mxGetScalar(a)
                                                                                   : bad;
}

static int flag_arg(const mxArray *a)
{
    return mxIsLogicalScalarTrue(a) || scalar_arg(a, 0) != 0;
}

/* k and dim as the callers pass them: whole numbers, k >= 0 (Inf: all), dim >= 1 */
static void k_dim(const mxArray *ka, const mxArray *da, const char *op, int64_t *k, int64_t *dim)
{
    double kv = scalar_arg(ka, -1), dv = scalar_arg(da, 0);
    if (!(kv >= 0) || (kv != floor(kv) && !isinf(kv)) || !(dv >= 1) || dv != floor(dv) ||
        dv > MAXDIMS)
        gd_error("gpudot:badOption", "__gpudot__: %s takes K >= 0 and DIM >= 1", op);
    *k = kv > 9e18 ? INT64_MAX : (int64_t)kv;
    *dim = (int64_t)dv;
}

static void two_out(int nlhs, mxArray *plhs[], mxArray *v, mxArray *i)
{
    plhs[0] = v;
    if (nlhs > 1)
        plhs[1] = i;
    else
        mxDestroyArray(i);
}

/* [v, i] = __gpudot__ ("topk", x, k, dim, is_min) */
static void op_topk(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs != 5 || !(mxIsDouble(prhs[1]) || mxIsSingle(prhs[1])) || mxIsComplex(prhs[1]) ||
        mxIsSparse(prhs[1]))
        gd_error("gpudot:badType", "__gpudot__: topk takes a real single or double array");
    int64_t k, dim, pre, n, post;
    k_dim(prhs[2], prhs[3], "topk", &k, &dim);
    const mxArray *x = prhs[1];
    int nd = (int)mxGetNumberOfDimensions(x), ond;
    const mwSize *dims = mxGetDimensions(x);
    mwSize odims[MAXDIMS];
    split_at(nd, dims, dim, 0, &pre, &n, &post, odims, &ond);
    int64_t kk = k < n ? k : n;
    odims[dim - 1] = (mwSize)kk;
    int single = mxIsSingle(x);
    void *val;
    mxArray *v = make_out(ond, odims, single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, 0, &val);
    mxArray *i = mxCreateNumericArray((mwSize)ond, odims, mxDOUBLE_CLASS, mxREAL);
    gpudot_status st = gpudot_topk_host(mxGetData(x), single, pre, n, post, kk, flag_arg(prhs[4]),
                                        val, mxGetDoubles(i));
    if (st != GPUDOT_OK) {
        mxDestroyArray(v);
        mxDestroyArray(i);
        raise_status(flag_arg(prhs[4]) ? "mink" : "maxk", st, NULL);
    }
    two_out(nlhs, plhs, v, i);
}

/* [v, i] = __gpudot__ ("garray_topk", id, k, dim, is_min) */
static void op_garray_topk(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const garr_t *g = nrhs == 5 ? garray_by_id(prhs[1]) : NULL;
    if (!g || !g->d || g->cplx)
        gd_error("gpudot:badType", "__gpudot__: garray_topk takes a real garray on one GPU");
    int64_t k, dim, pre, n, post;
    k_dim(prhs[2], prhs[3], "garray_topk", &k, &dim);
    int is_min = flag_arg(prhs[4]), ond;
    mwSize odims[MAXDIMS];
    split_at(g->nd, g->dims, dim, 0, &pre, &n, &post, odims, &ond);
    int64_t kk = k < n ? k : n;
    odims[dim - 1] = (mwSize)kk;
    void *val;
    mxArray *v = make_out(ond, odims, g->single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, 0, &val);
    mxArray *i = mxCreateNumericArray((mwSize)ond, odims, mxDOUBLE_CLASS, mxREAL);
    gpudot_status st =
        gpudot_cuda_topk(g->d, g->single, pre, n, post, kk, is_min, val, mxGetDoubles(i));
    if (st != GPUDOT_OK) {
        mxDestroyArray(v);
        mxDestroyArray(i);
        raise_status(is_min ? "mink" : "maxk", st, gpudot_cuda_last_error());
    }
    two_out(nlhs, plhs, v, i);
}

/* Whether Q is a real dim x m matrix of D's class */
static int query_fits(const mxArray *Q, int single, int64_t dim)
{
    return (single ? mxIsSingle(Q) : mxIsDouble(Q)) && !mxIsComplex(Q) && !mxIsSparse(Q) &&
           mxGetNumberOfDimensions(Q) == 2 && (int64_t)mxGetM(Q) == dim;
}

/* Whether k is a whole number from -1 (every score) to kmax */
static int k_fits(const mxArray *ka, int64_t kmax)
{
    double kv = scalar_arg(ka, -2);
    return kv >= -1 && kv == floor(kv) && kv <= (double)kmax;
}

/* The request of a search of Q against D (dim x n, D's class: single or double) */
static void search_init(gpudot_search_req *r, const mxArray *Q, int single, int64_t dim, int64_t n,
                        const mxArray *ka, int cosine, gpudot_accum accum)
{
    memset(r, 0, sizeof *r);
    r->q = mxGetData(Q);
    r->single = single;
    r->cosine = cosine;
    r->accum = accum;
    r->dim = dim;
    r->m = (int64_t)mxGetN(Q);
    r->n = n;
    r->k = (int64_t)mxGetScalar(ka);
}

/* search_init's arguments checked, with errors */
static void search_req(gpudot_search_req *r, const mxArray *Q, int single, int64_t dim, int64_t n,
                       const mxArray *ka, const mxArray *cosine, const mxArray *mode, int64_t kmax,
                       int comp_ok)
{
    if (!query_fits(Q, single, dim))
        gd_error("gpudot:badType", "__gpudot__: search takes Q (dim x m, D's class) and a real D "
                                   "(dim x n)");
    if (!k_fits(ka, kmax))
        gd_error("gpudot:badOption", "__gpudot__: search takes k from 0 to %lld, or -1",
                 (long long)kmax);
    double mv = scalar_arg(mode, -1);
    if (!(mv == 0 || mv == 1 || (mv == 2 && comp_ok)))
        gd_error("gpudot:badOption", "__gpudot__: search takes mode 0 (double), 1 (native)%s",
                 comp_ok ? " or 2 (compensated)" : "");
    search_init(r, Q, single, dim, n, ka, flag_arg(cosine),
                mv == 1   ? GPUDOT_ACC_NATIVE
                : mv == 2 ? GPUDOT_ACC_COMP
                          : GPUDOT_ACC_DOUBLE);
}

/* D's parts on their devices into r; 0 where a part holds pieces of columns (a vector cut
 * along its rows over several GPUs) */
static int search_parts(gpudot_search_req *r, const garr_t *g)
{
    if (!g->sh) {
        r->parts[r->nparts++] = (gpudot_search_part){-1, g->d, 0, r->n};
        return 1;
    }
    for (int p = 0; p < g->sh->n; p++) {
        const gpudot_shard *s = &g->sh->s[p];
        if (s->an > 0 && s->kn != r->dim)
            return 0;
        r->parts[r->nparts++] = (gpudot_search_part){s->dev, s->d, s->a0, s->an};
    }
    return 1;
}

/* Runs r (search: the engine's function) into [S, I, unsafe] */
static void search_out(int nlhs, mxArray *plhs[], gpudot_search_req *r,
                       gpudot_status (*search)(gpudot_search_req *))
{
    int64_t rows = r->k < 0 ? r->n : (r->k < r->n ? r->k : r->n);
    void *sv;
    mwSize od[2] = {(mwSize)rows, (mwSize)r->m};
    mxArray *S = make_out(2, od, r->single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, 0, &sv);
    mxArray *I =
        mxCreateNumericMatrix(r->k < 0 ? 0 : (mwSize)rows, (mwSize)r->m, mxDOUBLE_CLASS, mxREAL);
    r->scores = sv;
    r->idx = mxGetDoubles(I);
    gpudot_status st = rows * r->m > 0 ? search(r) : GPUDOT_OK;
    if (st != GPUDOT_OK) {
        mxDestroyArray(S);
        mxDestroyArray(I);
        raise_status("gsearch", st, search == gpudot_cuda_search ? gpudot_cuda_last_error() : NULL);
    }
    plhs[0] = S;
    if (nlhs > 1)
        plhs[1] = I;
    else
        mxDestroyArray(I);
    if (nlhs > 2)
        plhs[2] = mxCreateLogicalScalar(r->unsafe != 0);
}

/* [S, I, unsafe] = __gpudot__ ("search", Q, D, k, cosine, mode): D on the host */
static void op_search(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const mxArray *D = nrhs == 6 ? prhs[2] : NULL;
    if (!D || !(mxIsSingle(D) || mxIsDouble(D)) || mxIsComplex(D) || mxIsSparse(D) ||
        mxGetNumberOfDimensions(D) != 2)
        gd_error("gpudot:badType", "__gpudot__: search takes Q and a real matrix D");
    gpudot_search_req r;
    search_req(&r, prhs[1], mxIsSingle(D), (int64_t)mxGetM(D), (int64_t)mxGetN(D), prhs[3], prhs[4],
               prhs[5], INT64_MAX / 2, 0);
    r.nparts = 1;
    r.parts[0] = (gpudot_search_part){-1, mxGetData(D), 0, r.n};
    search_out(nlhs, plhs, &r, gpudot_search_host);
}

/* [S, I, unsafe] = __gpudot__ ("garray_search", Q, id, k, cosine, mode) */
static void op_garray_search(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const garr_t *g = nrhs == 6 ? garray_by_id(prhs[2]) : NULL;
    if (!garray_live(g) || g->cplx || g->nd != 2)
        gd_error("gpudot:badType", "__gpudot__: garray_search takes a real garray D on the GPU");
    gpudot_search_req r;
    search_req(&r, prhs[1], g->single, (int64_t)g->dims[0], (int64_t)g->dims[1], prhs[3], prhs[4],
               prhs[5], 256, 1);
    if (!search_parts(&r, g))
        gd_error("gpudot:gatherFirst", "__gpudot__: garray_search needs D's columns whole");
    search_out(nlhs, plhs, &r, gpudot_cuda_search);
}

/* [id, dev, unsafe] = __gpudot__ ("garray_scores", Q, id, cosine, mode) */
static void op_garray_scores(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const garr_t *g = nrhs == 5 ? garray_by_id(prhs[2]) : NULL;
    if (!garray_live(g) || g->cplx || g->nd != 2)
        gd_error("gpudot:badType", "__gpudot__: garray_scores takes a real garray D on the GPU");
    mxArray *all = mxCreateDoubleScalar(-1);
    gpudot_search_req r;
    search_req(&r, prhs[1], g->single, (int64_t)g->dims[0], (int64_t)g->dims[1], all, prhs[3],
               prhs[4], 256, 1);
    mxDestroyArray(all);
    if (!search_parts(&r, g))
        gd_error("gpudot:gatherFirst", "__gpudot__: garray_scores needs D's columns whole");
    /* (registry_reserve may move the entries: g is not read past it) */
    if (!registry_reserve())
        gd_error("gpudot:outOfMemory", "gsearch: out of host memory");
    garr_t e;
    memset(&e, 0, sizeof e);
    e.id = registry_next_id();
    e.single = r.single;
    e.nd = 2;
    e.dims[0] = (mwSize)r.n;
    e.dims[1] = (mwSize)r.m;
    e.bytes = (size_t)(r.n * r.m) * (r.single ? 4 : 8);
    gpudot_status st = gpudot_cuda_malloc(&e.d, e.bytes);
    r.dscores = e.d;
    if (st == GPUDOT_OK && r.n * r.m > 0 && (st = gpudot_cuda_search(&r)) != GPUDOT_OK)
        gpudot_cuda_free(e.d);
    if (st != GPUDOT_OK)
        raise_status("gsearch", st, gpudot_cuda_last_error());
    registry_add(&e);
    update_lock();
    gpudot_cuda_info_t in;
    plhs[0] = mxCreateDoubleScalar((double)e.id);
    if (nlhs > 1)
        plhs[1] = mxCreateDoubleScalar(gpudot_cuda_info(&in) == GPUDOT_OK ? in.device : 0);
    if (nlhs > 2)
        plhs[2] = mxCreateLogicalScalar(r.unsafe != 0);
}

/* gsearch's options "metric" and "accum" (names and values in any case, as its strcmpi)
 * into *cosine and *accum; 0 for anything else, which gsearch.m then checks */
static int fast_options(int n, const mxArray *a[], int *cosine, gpudot_accum *accum)
{
    *cosine = 1;
    *accum = GPUDOT_ACC_DOUBLE;
    if (n % 2)
        return 0;
    for (int i = 0; i < n; i += 2) {
        char name[8], val[12];
        if (!mxIsChar(a[i]) || !mxIsChar(a[i + 1]) || mxGetM(a[i]) != 1 || mxGetM(a[i + 1]) != 1 ||
            mxGetString(a[i], name, sizeof name) || mxGetString(a[i + 1], val, sizeof val))
            return 0;
        if (!strcasecmp(name, "metric") && !strcasecmp(val, "cosine"))
            *cosine = 1;
        else if (!strcasecmp(name, "metric") && !strcasecmp(val, "dot"))
            *cosine = 0;
        else if (!strcasecmp(name, "accum") && !strcasecmp(val, "double"))
            *accum = GPUDOT_ACC_DOUBLE;
        else if (!strcasecmp(name, "accum") && !strcasecmp(val, "native"))
            *accum = GPUDOT_ACC_NATIVE;
        else if (!strcasecmp(name, "accum") && !strcasecmp(val, "compensated"))
            *accum = GPUDOT_ACC_COMP;
        else
            return 0;
    }
    return 1;
}

/* [S, I, done] = __gpudot__ ("gsearch", Q, D, k, name, value, ...) */
static void op_gsearch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 4 || nlhs != 3)
        gd_error("gpudot:badOption", "__gpudot__: [S, I, done] = gsearch (Q, D, k, ...)");
    const garr_t *g = garray_resident(prhs[2]);
    gpudot_search_req r;
    int cosine;
    gpudot_accum accum;
    if (g && !g->cplx && g->nd == 2 && query_fits(prhs[1], g->single, (int64_t)g->dims[0]) &&
        k_fits(prhs[3], 256) && mxGetScalar(prhs[3]) >= 0 &&
        fast_options(nrhs - 4, prhs + 4, &cosine, &accum)) {
        search_init(&r, prhs[1], g->single, (int64_t)g->dims[0], (int64_t)g->dims[1], prhs[3],
                    cosine, accum);
        if (search_parts(&r, g)) {
            search_out(3, plhs, &r, gpudot_cuda_search);
            mxDestroyArray(plhs[2]);
            if (!r.unsafe) {
                plhs[2] = mxCreateLogicalScalar(1);
                return;
            }
            mxDestroyArray(plhs[0]);
            mxDestroyArray(plhs[1]);
        }
    }
    plhs[0] = mxCreateDoubleMatrix(0, 0, mxREAL);
    plhs[1] = mxCreateDoubleMatrix(0, 0, mxREAL);
    plhs[2] = mxCreateLogicalScalar(0);
}

const gateway_op gateway_search_ops[] = {
    {"topk", op_topk},       {"garray_topk", op_garray_topk},
    {"search", op_search},   {"garray_search", op_garray_search},
    {"gsearch", op_gsearch}, {"garray_scores", op_garray_scores},
};
const size_t gateway_n_search_ops = sizeof gateway_search_ops / sizeof *gateway_search_ops;
