/*
 * __gpudot__: the only mexFunction of gpudot.  Internal: users call the .m wrappers, which
 * carry the help text; this gateway validates again (it can be called directly), maps
 * Octave arrays to the engine's canonical form, picks the engine, owns the engine's
 * persistent state through mexLock/mexAtExit, and is the only place errors are raised.
 *
 *   r = __gpudot__ ("dot", x, y, dim, accum, device)   dim [] = default
 *   r = __gpudot__ ("norm", x, p, dim, accum, device)   p [] = 2
 *   r = __gpudot__ ("cosine", x, y, dim, accum, device)
 *   s = __gpudot__ ("info")
 *   t = __gpudot__ ("gpu_available")
 *   __gpudot__ ("release")                              free device buffers, unlock
 *   __gpudot__ ("staging_cap", bytes)                   test hook: force chunking
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mex.h"
#include "octave-config.h"
#include "quit.h"

#include "gpudot.h"
#include "gpudot_math.h"

#define MAXDIMS 64

/* Inputs of the reduction ops, by slot (IN_Y is P for norms). */
enum { IN_OP, IN_X, IN_Y, IN_DIM, IN_ACCUM, IN_DEVICE, IN_END };

enum { DEV_AUTO, DEV_GPU, DEV_CPU };

/* Device "auto" on host data: the CPU engine.  Measured on an H100 machine (16 cores,
 * bench/crossover.m, 2026-11-22): the CPU engine answered first at every n from 2^6 to 2^24,
 * single and double (2^24 single: CPU 5.5 ms, GPU 14.8 ms; 2^10: 107 vs 140 us), because a
 * GPU call on host data must first copy it over PCIe from pageable memory (~9 GB/s), while
 * the CPU engine reads it at 20-45 GB/s.  The GPU pays on data that stays on the device.
 * Revisit when host transfers go through a pinned staging ring. */
static int auto_prefers_gpu(size_t bytes)
{
    (void)bytes;
    return 0;
}

static int locked = 0;
static int warned_no_device = 0;
static int at_exit_set = 0;

static void release_all(void)
{
    gpudot_cuda_release();
}

static void raise_status(const char *fn, gpudot_status st, const char *detail)
{
    char id[64];
    snprintf(id, sizeof id, "gpudot:%s", gpudot_status_id(st));
    if (detail && *detail)
        mexErrMsgIdAndTxt(id, "%s: %s (%s)", fn, gpudot_status_msg(st), detail);
    mexErrMsgIdAndTxt(id, "%s: %s", fn, gpudot_status_msg(st));
}

/* Keeps the MEX in memory while the CUDA engine owns device memory, so `clear all` can
 * neither strand nor double-free it; mexAtExit frees it when Octave exits. */
static void update_lock(void)
{
    if (!at_exit_set) {
        mexAtExit(release_all);
        at_exit_set = 1;
    }
    if (gpudot_cuda_holds_memory() && !locked) {
        mexLock();
        locked = 1;
    } else if (!gpudot_cuda_holds_memory() && locked) {
        mexUnlock();
        locked = 0;
    }
}

static int poll_interrupt(void)
{
    return octave_interrupt_state > 0;
}

static char *get_string(const mxArray *a)
{
    if (!mxIsChar(a))
        return NULL;
    return mxArrayToString(a);
}

/* ---- shapes ---- */

typedef struct {
    int nd;
    int64_t d[MAXDIMS];
} shape_t;

static void shape_of(const mxArray *a, shape_t *s)
{
    mwSize nd = mxGetNumberOfDimensions(a);
    const mwSize *d = mxGetDimensions(a);
    s->nd = (int)nd;
    for (int j = 0; j < MAXDIMS; j++)
        s->d[j] = j < (int)nd ? (int64_t)d[j] : 1;
}

static int is_vector(const shape_t *s)
{
    return s->nd == 2 && (s->d[0] == 1 || s->d[1] == 1);
}

static int64_t numel_of(const shape_t *s)
{
    int64_t n = 1;
    for (int j = 0; j < s->nd; j++)
        n *= s->d[j];
    return n;
}

static int64_t prod_range(const shape_t *s, int lo, int hi)
{
    int64_t n = 1;
    for (int j = lo; j < hi; j++)
        n *= s->d[j];
    return n;
}

/* Extent of an operand within dims [lo, hi) of the broadcast shape b: the full product,
 * 1 (broadcast over the whole group), or -1 (mixed: the operand must be expanded). */
static int64_t group_extent(const shape_t *o, const shape_t *b, int lo, int hi)
{
    int all_full = 1, all_one = 1;
    for (int j = lo; j < hi; j++) {
        if (o->d[j] != b->d[j])
            all_full = 0;
        if (o->d[j] != 1)
            all_one = 0;
    }
    if (all_full)
        return prod_range(b, lo, hi);
    if (all_one)
        return 1;
    return -1;
}

/* Copies operand src (shape o) broadcast to shape b into a new mxMalloc'd buffer. */
static void *expand(const void *src, const shape_t *o, const shape_t *b, int nd, size_t es)
{
    int64_t n = prod_range(b, 0, nd);
    char *dst = mxMalloc((size_t)n * es);
    int64_t idx[MAXDIMS] = {0};
    int64_t ostride[MAXDIMS];
    int64_t st = 1;
    for (int j = 0; j < nd; j++) {
        ostride[j] = o->d[j] == 1 ? 0 : st;
        st *= o->d[j];
    }
    int64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
        memcpy(dst + (size_t)i * es, (const char *)src + (size_t)off * es, es);
        for (int j = 0; j < nd; j++) { /* odometer */
            idx[j]++;
            off += ostride[j];
            if (idx[j] < b->d[j])
                break;
            off -= ostride[j] * idx[j];
            idx[j] = 0;
        }
    }
    return dst;
}

/* Element data, interleaved for complex (-R2018a).  mxGetData rather than the typed
 * getters: Octave 7.3's mxGetComplexSingles fails ("type mismatch") on complex single. */
static const void *data_of(const mxArray *a)
{
    return mxGetData(a);
}

/* Rounds a double array (real or interleaved complex) to a new float buffer. */
static float *to_single(const mxArray *a)
{
    size_t n = mxGetNumberOfElements(a) * (mxIsComplex(a) ? 2 : 1);
    const double *p = (const double *)data_of(a);
    float *f = mxMalloc(n ? n * sizeof *f : 1);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)p[i];
    return f;
}

static int is_float_array(const mxArray *a)
{
    return (mxIsDouble(a) || mxIsSingle(a)) && !mxIsSparse(a);
}

/* Result array of class cls with the given dims; complex storage is attached by hand
 * because mxCreateNumericArray (..., mxCOMPLEX) under-allocates in Octave 7.3. */
static mxArray *make_out(int nd, const mwSize *dims, mxClassID cls, int cplx, void **data)
{
    mxArray *o = mxCreateNumericArray((mwSize)nd, dims, cls, cplx ? mxCOMPLEX : mxREAL);
    size_t n = mxGetNumberOfElements(o);
    size_t es = cls == mxSINGLE_CLASS ? sizeof(float) : sizeof(double);
    if (cplx) {
        void *p = mxCalloc(n ? 2 * n : 1, es);
        if (cls == mxSINGLE_CLASS)
            mxSetComplexSingles(o, (mxComplexSingle *)p);
        else
            mxSetComplexDoubles(o, (mxComplexDouble *)p);
        *data = p;
    } else {
        *data = cls == mxSINGLE_CLASS ? (void *)mxGetSingles(o) : (void *)mxGetDoubles(o);
    }
    return o;
}

static int parse_accum(const mxArray *a, gpudot_accum *acc)
{
    char *s = get_string(a);
    if (!s)
        return 0;
    int ok = 1;
    if (!strcmp(s, "native"))
        *acc = GPUDOT_ACC_NATIVE;
    else if (!strcmp(s, "double"))
        *acc = GPUDOT_ACC_DOUBLE;
    else if (!strcmp(s, "compensated"))
        *acc = GPUDOT_ACC_COMP;
    else
        ok = 0;
    mxFree(s);
    return ok;
}

static int parse_device(const mxArray *a, int *dev)
{
    char *s = get_string(a);
    if (!s)
        return 0;
    int ok = 1;
    if (!strcmp(s, "auto"))
        *dev = DEV_AUTO;
    else if (!strcmp(s, "gpu"))
        *dev = DEV_GPU;
    else if (!strcmp(s, "cpu"))
        *dev = DEV_CPU;
    else
        ok = 0;
    mxFree(s);
    return ok;
}

/* Which engine runs a call of `bytes` operand bytes; raises for "gpu" without a device. */
static int use_gpu(const char *fn, int dev, size_t bytes)
{
    if (dev == DEV_CPU)
        return 0;
    if (dev == DEV_GPU) {
        if (!gpudot_cuda_available())
            raise_status(fn, GPUDOT_NO_DEVICE, gpudot_cuda_last_error());
        return 1;
    }
    if (!gpudot_cuda_available()) {
        if (!warned_no_device) {
            warned_no_device = 1;
            mexWarnMsgIdAndTxt("gpudot:noDevice",
                               "%s: no usable CUDA device (%s); using the CPU engine", fn,
                               gpudot_cuda_last_error());
        }
        return 0;
    }
    return auto_prefers_gpu(bytes);
}

/* p of a norm: 2 or "fro", 1, Inf or "inf", -Inf or "-inf", 0, any other real scalar. */
static int parse_p(const mxArray *a, int *pk, double *p)
{
    if (mxIsChar(a)) {
        char *s = mxArrayToString(a);
        int ok = 1;
        if (!s)
            return 0;
        if (!strcmp(s, "fro"))
            *pk = GD_P_TWO, *p = 2;
        else if (!strcmp(s, "inf") || !strcmp(s, "Inf"))
            *pk = GD_P_INF, *p = INFINITY;
        else if (!strcmp(s, "-inf") || !strcmp(s, "-Inf"))
            *pk = GD_P_NEGINF, *p = -INFINITY;
        else
            ok = 0;
        mxFree(s);
        return ok;
    }
    if (!(mxIsDouble(a) || mxIsSingle(a)) || mxIsComplex(a) || mxIsSparse(a) ||
        mxGetNumberOfElements(a) != 1)
        return 0;
    double v = mxGetScalar(a);
    *p = v;
    if (v != v)
        return 0;
    else if (v == 2)
        *pk = GD_P_TWO;
    else if (v == 1)
        *pk = GD_P_ONE;
    else if (v == INFINITY)
        *pk = GD_P_INF;
    else if (v == -INFINITY)
        *pk = GD_P_NEGINF;
    else if (v == 0)
        *pk = GD_P_ZERO;
    else
        *pk = v > 0 ? GD_P_POS : GD_P_NEG;
    return 1;
}

/*
 * dot, norm and cosine: __gpudot__ (op, X, Y or P, dim, accum, device).  Shapes follow dot
 * (and, for norms, vecnorm); the gateway maps them to the engine's canonical nb x nk x na
 * form, expanding an operand only where its broadcast pattern cannot be described by
 * whole-group strides.
 */
static void op_reduce(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[],
                      mxArray *plhs[])
{
    int has_y = op != GPUDOT_OP_NORM;
    if (nrhs < IN_X + 1 || nrhs > IN_END || (has_y && nrhs < IN_Y + 1))
        mexErrMsgIdAndTxt("gpudot:badOption", "%s: expected %d to 5 arguments after the op", fn,
                          has_y ? 2 : 1);
    const mxArray *X = prhs[IN_X], *Y = has_y ? prhs[IN_Y] : NULL;
    if (!is_float_array(X) || (has_y && !is_float_array(Y)))
        mexErrMsgIdAndTxt("gpudot:badType", "%s: %s must be full single or double arrays", fn,
                          has_y ? "X and Y" : "X");
    int pk = GD_P_TWO;
    double pval = 2;
    if (!has_y && nrhs > IN_Y && !mxIsEmpty(prhs[IN_Y]) && !parse_p(prhs[IN_Y], &pk, &pval))
        mexErrMsgIdAndTxt("gpudot:badOption",
                          "%s: P must be a real scalar (not NaN), \"fro\", \"inf\" or \"-inf\"", fn);

    int have_dim = 0;
    int64_t dim = 0;
    if (nrhs > IN_DIM && !mxIsEmpty(prhs[IN_DIM])) {
        const mxArray *D = prhs[IN_DIM];
        double dv = (mxIsNumeric(D) && !mxIsComplex(D) && mxGetNumberOfElements(D) == 1)
                        ? mxGetScalar(D) : NAN;
        if (!(dv >= 1 && dv == floor(dv) && dv <= 1e15))
            mexErrMsgIdAndTxt("gpudot:badDim", "%s: DIM must be a positive integer scalar", fn);
        have_dim = 1;
        dim = (int64_t)dv;
    }
    gpudot_accum accum = GPUDOT_ACC_DOUBLE;
    if (nrhs > IN_ACCUM && !parse_accum(prhs[IN_ACCUM], &accum))
        mexErrMsgIdAndTxt("gpudot:badOption",
                          "%s: \"accum\" must be \"native\", \"double\" or \"compensated\"", fn);
    int dev = DEV_AUTO;
    if (nrhs > IN_DEVICE && !parse_device(prhs[IN_DEVICE], &dev))
        mexErrMsgIdAndTxt("gpudot:badOption", "%s: \"device\" must be \"auto\", \"gpu\" or \"cpu\"",
                          fn);

    shape_t sx, sy, sb;
    shape_of(X, &sx);
    if (has_y)
        shape_of(Y, &sy);
    else
        sy = sx;
    if (sx.nd > MAXDIMS || sy.nd > MAXDIMS || dim > MAXDIMS)
        mexErrMsgIdAndTxt("gpudot:badDim", "%s: at most %d dimensions are supported", fn, MAXDIMS);
    /* dot's vector rule: two vectors of equal numel in any orientation, no DIM */
    if (has_y && !have_dim && is_vector(&sx) && is_vector(&sy) && numel_of(&sx) == numel_of(&sy)) {
        sx.d[0] = sy.d[0] = numel_of(&sx);
        sx.d[1] = sy.d[1] = 1;
    }
    int nd = sx.nd > sy.nd ? sx.nd : sy.nd;
    if (have_dim && dim > nd)
        nd = (int)dim;
    sb.nd = nd;
    for (int j = 0; j < MAXDIMS; j++) {
        int64_t a = sx.d[j], b = sy.d[j];
        if (a == b || b == 1)
            sb.d[j] = a;
        else if (a == 1)
            sb.d[j] = b;
        else
            mexErrMsgIdAndTxt("gpudot:sizeMismatch",
                              "%s: sizes of X and Y must match or be compatible (dimension %d: "
                              "%lld vs %lld)", fn, j + 1, (long long)a, (long long)b);
    }
    if (!have_dim) {
        dim = 1;
        for (int j = 0; j < nd; j++)
            if (sb.d[j] != 1) {
                dim = j + 1;
                break;
            }
    }
    int d = (int)dim - 1;

    /* output shape and class: single if either input is single; complex unless a norm */
    mwSize odims[MAXDIMS];
    for (int j = 0; j < nd; j++)
        odims[j] = (mwSize)(j == d ? 1 : sb.d[j]);
    int cx = mxIsComplex(X), cy = has_y && mxIsComplex(Y);
    int single = mxIsSingle(X) || (has_y && mxIsSingle(Y));
    mxClassID cls = single ? mxSINGLE_CLASS : mxDOUBLE_CLASS;
    void *out;
    plhs[0] = make_out(nd, odims, cls, has_y && (cx || cy), &out);

    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    r.op = op;
    r.pk = pk;
    r.p = pval;
    r.type = single ? GPUDOT_F32 : GPUDOT_F64;
    r.cx = cx;
    r.cy = cy;
    r.accum = accum;
    r.out = out;
    r.nb = prod_range(&sb, 0, d);
    r.nk = sb.d[d];
    r.na = prod_range(&sb, d + 1, nd);
    if (r.nb == 0 || r.na == 0)
        return; /* empty output */
    if (op == GPUDOT_OP_NORM && r.nk == 0)
        return; /* norms of empty vectors are 0 for every p, as norm () gives: zeros */

    /* operands: class conversion (single wins, as in dot) and broadcast expansion */
    void *tmp_x = NULL, *tmp_y = NULL;
    const void *px = data_of(X), *py = has_y ? data_of(Y) : NULL;
    if (single && mxIsDouble(X))
        px = tmp_x = to_single(X);
    if (has_y && single && mxIsDouble(Y))
        py = tmp_y = to_single(Y);
    size_t es = single ? sizeof(float) : sizeof(double);
    int64_t bx = group_extent(&sx, &sb, 0, d), ax = group_extent(&sx, &sb, d + 1, nd);
    int64_t by = group_extent(&sy, &sb, 0, d), ay = group_extent(&sy, &sb, d + 1, nd);
    if (bx < 0 || ax < 0) {
        void *e = expand(px, &sx, &sb, nd, es * (cx ? 2 : 1));
        if (tmp_x)
            mxFree(tmp_x);
        px = tmp_x = e;
        bx = r.nb, ax = r.na;
        sx = sb;
    }
    if (has_y && (by < 0 || ay < 0)) {
        void *e = expand(py, &sy, &sb, nd, es * (cy ? 2 : 1));
        if (tmp_y)
            mxFree(tmp_y);
        py = tmp_y = e;
        by = r.nb, ay = r.na;
        sy = sb;
    }
    r.x = px;
    r.y = py;
    r.bx = bx, r.kx = sx.d[d], r.ax = ax;
    r.by = by, r.ky = sy.d[d], r.ay = ay;

    size_t bytes = (size_t)(r.bx * r.kx * r.ax) * es * (cx ? 2 : 1) +
                   (has_y ? (size_t)(r.by * r.ky * r.ay) * es * (cy ? 2 : 1) : 0);
    gpudot_status st;
    int gpu = use_gpu(fn, dev, bytes);
    st = gpu ? gpudot_cuda_dot(&r, poll_interrupt) : gpudot_cpu_dot(&r, poll_interrupt);
    if (tmp_x)
        mxFree(tmp_x);
    if (tmp_y)
        mxFree(tmp_y);
    if (gpu)
        update_lock();
    if (st == GPUDOT_INTERRUPTED)
        octave_interrupt_state = 0;
    if (st != GPUDOT_OK)
        raise_status(fn, st, gpu ? gpudot_cuda_last_error() : "");
}

static void op_info(mxArray *plhs[])
{
    static const char *fields[] = {"version",         "backend",        "built_with_cuda",
                                   "device",          "device_name",    "compute_capability",
                                   "multiprocessors", "memory_total",   "memory_free",
                                   "driver_version",  "runtime_version", "staging_bytes"};
    gpudot_cuda_info_t in;
    gpudot_status st = gpudot_cuda_info(&in);
    if (st != GPUDOT_OK)
        raise_status("gpudot_info", st, gpudot_cuda_last_error());
    mxArray *s = mxCreateStructMatrix(1, 1, sizeof fields / sizeof *fields, fields);
    char buf[64];
    mxSetField(s, 0, "version", mxCreateString(GPUDOT_VERSION));
    mxSetField(s, 0, "backend", mxCreateString(in.available ? "cuda" : "cpu"));
    mxSetField(s, 0, "built_with_cuda", mxCreateLogicalScalar(in.built_with_cuda != 0));
    mxSetField(s, 0, "device", mxCreateDoubleScalar(in.available ? in.device : -1));
    mxSetField(s, 0, "device_name", mxCreateString(in.available ? in.name : ""));
    snprintf(buf, sizeof buf, "%d.%d", in.cc_major, in.cc_minor);
    mxSetField(s, 0, "compute_capability", mxCreateString(in.available ? buf : ""));
    mxSetField(s, 0, "multiprocessors", mxCreateDoubleScalar(in.sm_count));
    mxSetField(s, 0, "memory_total", mxCreateDoubleScalar((double)in.mem_total));
    mxSetField(s, 0, "memory_free", mxCreateDoubleScalar((double)in.mem_free));
    snprintf(buf, sizeof buf, "%d.%d", in.driver_version / 1000, in.driver_version % 1000 / 10);
    mxSetField(s, 0, "driver_version", mxCreateString(in.driver_version ? buf : ""));
    snprintf(buf, sizeof buf, "%d.%d", in.runtime_version / 1000, in.runtime_version % 1000 / 10);
    mxSetField(s, 0, "runtime_version", mxCreateString(in.runtime_version ? buf : ""));
    mxSetField(s, 0, "staging_bytes", mxCreateDoubleScalar((double)in.staging_bytes));
    plhs[0] = s;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 1 || !mxIsChar(prhs[0]))
        mexErrMsgIdAndTxt("gpudot:badOption", "__gpudot__: first argument must be an op name");
    char op[32];
    mxGetString(prhs[0], op, sizeof op);
    (void)nlhs;
    if (!strcmp(op, "dot")) {
        op_reduce("gdot", GPUDOT_OP_DOT, nrhs, prhs, plhs);
    } else if (!strcmp(op, "norm")) {
        op_reduce("gnorm", GPUDOT_OP_NORM, nrhs, prhs, plhs);
    } else if (!strcmp(op, "cosine")) {
        op_reduce("gcosine", GPUDOT_OP_COS, nrhs, prhs, plhs);
    } else if (!strcmp(op, "info")) {
        op_info(plhs);
    } else if (!strcmp(op, "gpu_available")) {
        plhs[0] = mxCreateLogicalScalar(gpudot_cuda_available() != 0);
    } else if (!strcmp(op, "release")) {
        gpudot_cuda_release();
        update_lock();
    } else if (!strcmp(op, "staging_cap")) {
        if (nrhs != 2 || !mxIsNumeric(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 1 ||
            mxGetScalar(prhs[1]) < 0)
            mexErrMsgIdAndTxt("gpudot:badOption", "__gpudot__: staging_cap needs bytes >= 0");
        gpudot_cuda_set_staging_cap((size_t)mxGetScalar(prhs[1]));
    } else {
        mexErrMsgIdAndTxt("gpudot:badOption", "__gpudot__: unknown op \"%s\"", op);
    }
}
