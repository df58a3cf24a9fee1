/*
 * __gpudot__: the only mexFunction of gpudot.  Internal: users call gdot, gnorm and gcosine
 * (compiled entries, mex/gpudot_entry.cc, linked against this library: their common call
 * runs through gpudot_entry_* below, the rest comes here as "__entry__") and garray.m; the
 * .m files carry the help text.  This gateway validates every call (it can be called
 * directly), maps Octave arrays to the engine's canonical form, picks the engine, owns the engine's
 * persistent state through mexLock/mexAtExit, and is the only place errors are raised.
 *
 *   s = __gpudot__ ("info")
 *   t = __gpudot__ ("gpu_available")
 *   __gpudot__ ("release")                              free staging buffers
 *   r = __gpudot__ ("__entry__", name, args...)         gdot, gnorm or gcosine (args...):
 *                                                       the compiled entries' other calls
 * and the garray operations of mex/garray_ops.c and the test and bench hooks of mex/hooks.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mex.h"

#include "gateway.h"
#include "registry.h"
#include "gpudot_entry.h"
#include "gpudot_hooks.h"
#include "gpudot_math.h"
#include "octave_interrupt.h"

static int locked = 0;
static int at_exit_set = 0;

static void release_all(void)
{
    registry_release();
    gpudot_cuda_release();
}

/* Keeps the MEX in memory while the engine owns device memory or garrays live, so `clear
 * all` can neither strand nor double-free it; mexAtExit frees it when Octave exits.  Locked
 * exactly while memory is held, so an exit hook that runs unlocked frees nothing live.
 * (The compiled entries, linked against this library, never lock: their fast path runs
 * only where the lock would stay as it is; see gpudot_entry_garray.) */
void update_lock(void)
{
    int lock = gpudot_cuda_holds_memory() || registry_count() > 0;
    if (lock == locked)
        return;
    if (lock) {
        mexLock();
        if (!at_exit_set) {
            mexAtExit(release_all);
            at_exit_set = 1;
        }
    } else {
        mexUnlock();
    }
    locked = lock;
}

/* A count argument (bytes, blocks) of a test hook `op`: a numeric scalar >= 0; NULL where
 * the call has none. */
size_t count_arg(const char *op, const mxArray *a)
{
    if (!a || !mxIsNumeric(a) || mxGetNumberOfElements(a) != 1 || !(mxGetScalar(a) >= 0))
        gd_error("gpudot:badOption", "__gpudot__: %s needs bytes >= 0", op);
    return (size_t)mxGetScalar(a);
}

char *get_string(const mxArray *a)
{
    if (!mxIsChar(a))
        return NULL;
    return mxArrayToString(a);
}

/* The index of the string a among names[0 .. n), or -1 where a is no string or none of them. */
int name_index(const mxArray *a, const char *const *names, int n)
{
    char *s = get_string(a);
    int k = string_index(s, names, n);
    if (s)
        mxFree(s);
    return k;
}

/* Which engine runs a call of `bytes` operand bytes; raises for "gpu" without a device. */
static int use_gpu(const char *fn, int dev, size_t bytes)
{
    if (dev == DEV_CPU)
        return 0;
    if (dev == DEV_GPU) {
        need_gpu(fn);
        return 1;
    }
    if (!gpudot_cuda_available()) {
        warn_no_device(fn, "using the CPU engine");
        return 0;
    }
    return 0; /* "auto" keeps host data on the CPU engine: doc/design.md, host data */
}

/* One operand of a reduction: a host array or a resident garray. */
typedef struct {
    shape_t sh;
    int single, cplx;
    const void *data; /* host data, or a device pointer when dev */
    int dev;
    const gpudot_sharded *shd; /* dev: on several GPUs (data NULL) */
    const mxArray *mx;         /* the host array (NULL for garrays) */
    int intc;                  /* of an integer class: converted a piece at a time (intchunks.c) */
} operand_t;

static void resident_operand(const garr_t *g, operand_t *o)
{
    o->sh.nd = g->nd;
    for (int j = 0; j < MAXDIMS; j++)
        o->sh.d[j] = j < g->nd ? (int64_t)g->dims[j] : 1;
    o->single = g->single;
    o->cplx = g->cplx;
    o->data = g->d;
    o->shd = g->sh;
    o->dev = 1;
}

/* Octave 7's mxGetProperty returns a copy that the MEX call's cleanup does not free (265
 * bytes a call on a host-held garray, found by the soak).  The copies are kept here and
 * destroyed when the call ends, or at the start of the next call where an error ended
 * this one first. */
static mxArray *props[8];
static int nprops = 0;

static void props_free(void)
{
    while (nprops > 0)
        mxDestroyArray(props[--nprops]);
}

static mxArray *prop_of(const mxArray *a, const char *name)
{
    mxArray *p = mxGetProperty(a, 0, name);
    if (p && nprops < (int)(sizeof props / sizeof *props))
        props[nprops++] = p;
    return p;
}

const garr_t *garray_resident(const mxArray *a)
{
    if (mxIsNumeric(a) || !mxIsClass(a, "garray"))
        return NULL;
    mxArray *idp = prop_of(a, "id");
    const garr_t *g =
        idp && mxGetNumberOfElements(idp) == 1 ? registry_find((int64_t)mxGetScalar(idp)) : NULL;
    return garray_live(g) ? g : NULL;
}

static void resolve(const char *fn, const char *name, const mxArray *a, operand_t *o)
{
    memset(o, 0, sizeof *o);
    if (!mxIsNumeric(a) && mxIsClass(a, "garray")) {
        /* a garray object itself (the "__entry__" calls get these): its id names resident
         * data (one scalar property read); otherwise its ref property holds the data,
         * where no GPU is usable, or marks it deleted */
        const garr_t *g = garray_resident(a);
        if (g) {
            resident_operand(g, o);
            return;
        }
        a = prop_of(a, "ref");
        if (!a)
            gd_error("gpudot:badType", "%s: %s is not a valid garray", fn, name);
    }
    if (mxIsStruct(a) && mxGetNumberOfElements(a) == 1 && mxGetField(a, 0, "garray_id")) {
        const garr_t *g = garray_of(a);
        if (!garray_live(g))
            gd_error("gpudot:badType", "%s: %s is a garray that no longer exists", fn, name);
        resident_operand(g, o);
        return;
    }
    o->intc = mxIsNumeric(a) && !mxIsSparse(a) && !mxIsDouble(a) && !mxIsSingle(a);
    if (!is_float_array(a) && !o->intc)
        gd_error("gpudot:badType", "%s: %s must be a full single or double array", fn, name);
    o->data = data_of(a); /* before the shape: see data_of */
    shape_of(a, &o->sh);
    o->single = mxIsSingle(a);
    o->cplx = mxIsComplex(a);
    o->mx = a;
}

/* Widens a single host array (real or interleaved complex) to a new double buffer. */
static double *to_double(const mxArray *a)
{
    size_t n = mxGetNumberOfElements(a) * (mxIsComplex(a) ? 2 : 1);
    const float *p = (const float *)data_of(a);
    double *d = mxMalloc(n ? n * sizeof *d : 1);
    for (size_t i = 0; i < n; i++)
        d[i] = p[i];
    return d;
}

/* A resident operand copied to a new host buffer (device "cpu" on a garray). */
static void *gather_operand(const char *fn, const operand_t *o, size_t es)
{
    size_t bytes = (size_t)numel_of(&o->sh) * es * (o->cplx ? 2 : 1);
    void *h = mxMalloc(bytes ? bytes : 1);
    gpudot_status st = o->shd ? gpudot_cuda_shards_copy(o->shd, h, es * (o->cplx ? 2 : 1), 0)
                              : gpudot_cuda_copy(h, o->data, bytes, 0);
    if (st != GPUDOT_OK)
        raise_status(fn, st, gpudot_cuda_last_error());
    return h;
}

/*
 * dot, norm and cosine: __gpudot__ (op, X, Y or P, dim, accum, device).  Shapes follow dot
 * (and, for norms, vecnorm); the gateway maps them to the engine's canonical nb x nk x na
 * form, expanding an operand only where its broadcast pattern cannot be described by
 * whole-group strides.  X and Y may be resident garrays (see garray.m).
 */
/* The class a reduction computes in and the class of its result.  The result is single if
 * either input is; host data is computed in the result's class (a double operand rounded to
 * single first, as dot does).  A resident operand cannot be converted: the host operand
 * takes its class instead, and a double computation is rounded to a single result at the
 * end. */
static void classes_of(const char *fn, const operand_t *X, const operand_t *Y, int has_y,
                       int *single, int *out_single)
{
    *out_single = X->single || (has_y && Y->single);
    *single = *out_single;
    if (X->dev || (has_y && Y->dev)) {
        if (X->dev && has_y && Y->dev && X->single != Y->single)
            gd_error("gpudot:badType",
                     "%s: garrays of different classes (single and double); make both "
                     "one class",
                     fn);
        *single = X->dev ? X->single : Y->single;
    }
}

/* A request's op, norm kind, class, complexity and mode; the rest zero (shapes, pointers). */
static void req_init(gpudot_dot_req *r, gpudot_op op, int pk, double p, int single, int cx, int cy,
                     gpudot_accum accum)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->pk = pk;
    r->p = p;
    r->type = single ? GPUDOT_F32 : GPUDOT_F64;
    r->cx = cx;
    r->cy = cy;
    r->accum = accum;
}

/* The broadcast shape sb of operand shapes sx, sy (dot's vector rule first: two vectors of
 * equal numel in any orientation, no DIM), its dimension count nd, and the reduced
 * dimension d (0-based; DIM, else the first of sb that is not 1). */
typedef struct {
    shape_t sx, sy, sb;
    int nd, d;
} bcast_t;

static void broadcast(const char *fn, int has_y, int have_dim, int64_t dim, bcast_t *b)
{
    shape_t *sx = &b->sx, *sy = &b->sy, *sb = &b->sb;
    /* a DIM past both operands' dimensions is a singleton one, as any other there */
    int most = sx->nd > sy->nd ? sx->nd : sy->nd;
    if (have_dim && dim > most + 1 && most < MAXDIMS)
        dim = most + 1;
    if (sx->nd > MAXDIMS || sy->nd > MAXDIMS || dim > MAXDIMS)
        gd_error("gpudot:badDim", "%s: at most %d dimensions are supported", fn, MAXDIMS);
    if (has_y && !have_dim && is_vector(sx) && is_vector(sy) && numel_of(sx) == numel_of(sy)) {
        sx->d[0] = sy->d[0] = numel_of(sx);
        sx->d[1] = sy->d[1] = 1;
    }
    int nd = sx->nd > sy->nd ? sx->nd : sy->nd;
    if (have_dim && dim > nd)
        nd = (int)dim;
    sb->nd = nd;
    for (int j = 0; j < MAXDIMS; j++) {
        int64_t a = sx->d[j], c = sy->d[j];
        if (a == c || c == 1)
            sb->d[j] = a;
        else if (a == 1)
            sb->d[j] = c;
        else
            gd_error("gpudot:sizeMismatch",
                     "%s: sizes of X and Y must match or be compatible (dimension %d: "
                     "%lld vs %lld)",
                     fn, j + 1, (long long)a, (long long)c);
    }
    if (!have_dim) {
        dim = 1;
        for (int j = 0; j < nd; j++)
            if (sb->d[j] != 1) {
                dim = j + 1;
                break;
            }
    }
    b->nd = nd;
    b->d = (int)dim - 1;
}

/* Resident operands run on the GPU unless "cpu" is asked for; host ones as "device" says. */
static int pick_engine(const char *fn, int dev, const operand_t *X, const operand_t *Y, int has_y,
                       size_t es)
{
    if (X->dev || Y->dev)
        return dev != DEV_CPU;
    size_t bytes = (size_t)numel_of(&X->sh) * es * (X->cplx ? 2 : 1);
    if (has_y)
        bytes += (size_t)numel_of(&Y->sh) * es * (Y->cplx ? 2 : 1);
    return use_gpu(fn, dev, bytes);
}

/* One operand's data as the engine takes it: gathered where resident but run on the CPU,
 * converted to the call's class, expanded where its broadcast needs a copy.  *tmp owns
 * what was made here (mxFree). */
static const void *engine_operand(const char *fn, const operand_t *O, int gpu, int single,
                                  int exact, size_t es, const bcast_t *b, shape_t *so, int64_t *bo,
                                  int64_t *ao, void **tmp)
{
    const void *p = O->data;
    *tmp = NULL;
    if (O->dev && !gpu)
        p = *tmp = gather_operand(fn, O, es);
    if (!O->dev && !O->intc && O->single != single)
        p = *tmp = single ? (void *)to_single(O->mx) : (void *)to_double(O->mx);
    *bo = group_extent(so, &b->sb, 0, b->d);
    *ao = group_extent(so, &b->sb, b->d + 1, b->nd);
    if (O->intc && (*bo != 1 || *ao < 0 || exact)) {
        /* not a run of columns (rows, or a broadcast that needs a copy), or "exact" (whose
         * sums the pieces' rounded results would break): converted whole */
        size_t n = (size_t)numel_of(so);
        p = *tmp = mxMalloc(n ? n * es : 1);
        int_convert(*tmp, single, O->data, mxGetClassID(O->mx), 0, (int64_t)n);
    }
    if (*bo >= 0 && *ao >= 0)
        return p;
    if (O->dev && gpu)
        gd_error("gpudot:gatherFirst",
                 "%s: this broadcast pattern needs a copy of a garray operand; gather it first",
                 fn);
    void *e = expand(p, so, &b->sb, b->nd, es * (O->cplx ? 2 : 1));
    if (*tmp)
        mxFree(*tmp);
    *tmp = e;
    *so = b->sb;
    *bo = prod_range(&b->sb, 0, b->d);
    *ao = prod_range(&b->sb, b->d + 1, b->nd);
    return e;
}

/* The engine's call, then cleanup (the temporaries, the lock) before any error is raised. */
static void run_engine(const char *fn, gpudot_dot_req *r, int gpu, void *out, int out_single,
                       int out_wide, int64_t nvals, void *tmp_x, void *tmp_y, const mxArray *int_x,
                       const mxArray *int_y)
{
    void *tmp_out = NULL;
    if (r->accum == GPUDOT_ACC_EXACT && (out_wide || (out_single && r->type == GPUDOT_F64)))
        r->out_other = 1, out_single = out_wide = 0; /* rounded once, into out's class */
    if (out_single && r->type == GPUDOT_F64)         /* computed in double for a single result */
        r->out = tmp_out = mxMalloc((size_t)nvals * sizeof(double));
    if (out_wide) /* computed in single (a resident operand) for a double result */
        r->out = tmp_out = mxMalloc((size_t)nvals * sizeof(float));
    GPUDOT_MARK(GPUDOT_STAGE_PREPARE);
    gpudot_status st = int_x || int_y ? run_int_chunks(r, gpu, int_x, int_y)
                       : gpu          ? gpudot_cuda_dot(r, gpudot_interrupt_pending)
                                      : gpudot_cpu_dot(r, gpudot_interrupt_pending);
    GPUDOT_MARK(GPUDOT_STAGE_ENGINE_EXIT);
    if (st == GPUDOT_OK && tmp_out && !out_wide)
        for (int64_t i = 0; i < nvals; i++)
            ((float *)out)[i] = (float)((double *)tmp_out)[i];
    if (st == GPUDOT_OK && out_wide)
        for (int64_t i = 0; i < nvals; i++)
            ((double *)out)[i] = ((float *)tmp_out)[i];
    if (tmp_x)
        mxFree(tmp_x);
    if (tmp_y)
        mxFree(tmp_y);
    if (tmp_out)
        mxFree(tmp_out);
    if (gpu)
        update_lock();
    if (st == GPUDOT_INTERRUPTED)
        gpudot_interrupt_clear();
    if (st != GPUDOT_OK)
        raise_status(fn, st, gpu ? gpudot_cuda_last_error() : "");
}

/* gdot, gnorm or gcosine of the call's operands, options and DIM: operands, shapes, the
 * output, the engine. */
static void op_reduce(const char *fn, gpudot_op op, const call_t *c, mxArray *plhs[])
{
    int has_y = op != GPUDOT_OP_NORM;
    operand_t X, Y;
    resolve(fn, "X", c->x, &X);
    if (has_y)
        resolve(fn, "Y", c->y, &Y);
    else
        Y = X, Y.dev = 0, Y.data = NULL;
    GPUDOT_MARK(GPUDOT_STAGE_RESOLVE);
    int pk = GD_P_TWO;
    double pval = 2;
    if (c->p && !mxIsEmpty(c->p) && !parse_p(c->p, &pk, &pval))
        gd_error("gpudot:badOption",
                 "%s: P must be a real scalar (not NaN), \"fro\", \"inf\" or \"-inf\"", fn);
    if (c->accum == GPUDOT_ACC_EXACT && op == GPUDOT_OP_NORM && (pk == GD_P_POS || pk == GD_P_NEG))
        exact_bad_p(fn);
    bcast_t b;
    b.sx = X.sh, b.sy = Y.sh;
    broadcast(fn, has_y, c->have_dim, c->dim, &b);
    int nd = b.nd, d = b.d;

    int cx = X.cplx, cy = has_y && Y.cplx;
    int single, out_single;
    classes_of(fn, &X, &Y, has_y, &single, &out_single);
    if (c->int_in) {
        out_single = 0;
        if (!X.dev && !(has_y && Y.dev))
            single = 0; /* dot's class: double, and exact products of the integers */
    }
    /* norm (A, "fro"), without DIM: the 2-norm of all of A's elements */
    int fro = 0;
    if (op == GPUDOT_OP_NORM && c->p && mxIsChar(c->p) && !c->have_dim) {
        char *ps = get_string(c->p);
        fro = ps && !strcasecmp(ps, "fro");
        mxFree(ps);
    }
    if (fro) {
        int64_t n = numel_of(&b.sb);
        b.sx.nd = b.sb.nd = b.nd = nd = 2;
        for (int j = 0; j < MAXDIMS; j++)
            b.sx.d[j] = b.sb.d[j] = j == 0 ? n : 1;
        b.d = d = 0;
    }
    /* norm ([]) and vecnorm ([]) are 0 */
    int empty00 =
        op == GPUDOT_OP_NORM && !c->have_dim && X.sh.nd == 2 && X.sh.d[0] == 0 && X.sh.d[1] == 0;
    if (empty00) {
        void *z;
        plhs[0] =
            make_out(2, (mwSize[]){1, 1}, out_single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, 0, &z);
        return;
    }
    mwSize odims[MAXDIMS];
    for (int j = 0; j < nd; j++)
        odims[j] = (mwSize)(j == d ? 1 : b.sb.d[j]);
    void *out;
    plhs[0] = make_out(nd, odims, out_single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, has_y && (cx || cy),
                       &out);
    int out_wide = !out_single && single; /* a single computation, a double result */

    gpudot_dot_req r;
    req_init(&r, op, pk, pval, single, cx, cy, c->accum);
    r.nb = prod_range(&b.sb, 0, d);
    r.nk = b.sb.d[d];
    r.na = prod_range(&b.sb, d + 1, nd);
    if (r.nb == 0 || r.na == 0)
        return; /* empty output */
    if (op == GPUDOT_OP_NORM && r.nk == 0)
        return; /* norms of empty vectors are 0 for every p, as norm () gives: zeros */

    size_t es = single ? sizeof(float) : sizeof(double);
    int gpu = pick_engine(fn, c->dev, &X, &Y, has_y, es);
    void *tmp_x, *tmp_y = NULL;
    int exact = c->accum == GPUDOT_ACC_EXACT;
    r.x = engine_operand(fn, &X, gpu, single, exact, es, &b, &b.sx, &r.bx, &r.ax, &tmp_x);
    r.kx = b.sx.d[d];
    if (has_y) {
        r.y = engine_operand(fn, &Y, gpu, single, exact, es, &b, &b.sy, &r.by, &r.ay, &tmp_y);
        r.ky = b.sy.d[d];
    } else {
        r.y = NULL;
        r.by = r.bx, r.ky = r.kx, r.ay = r.ax;
    }
    r.x_dev = X.dev && gpu && !X.shd;
    r.y_dev = has_y && Y.dev && gpu && !Y.shd;
    r.xs = gpu ? X.shd : NULL;
    r.ys = has_y && gpu ? Y.shd : NULL;
    r.out = out;
    /* integer operands not converted above: a piece at a time */
    const mxArray *int_x = X.intc && !tmp_x ? X.mx : NULL;
    const mxArray *int_y = has_y && Y.intc && !tmp_y ? Y.mx : NULL;
    run_engine(fn, &r, gpu, out, out_single, out_wide, r.nb * r.na * (has_y && (cx || cy) ? 2 : 1),
               tmp_x, tmp_y, int_x, int_y);
}

/* gdot (x, y, "kernel", K): one real dot product with a kernel of the reduction ladder
 * (cuda/ladder_kernels.cuh), on the GPU; [d, ms] also returns the kernels' GPU time. */
static void op_ladder(const char *fn, const call_t *c, int nlhs, mxArray *plhs[])
{
    operand_t X, Y;
    resolve(fn, "X", c->x, &X);
    resolve(fn, "Y", c->y, &Y);
    if (X.cplx || Y.cplx || c->have_dim || !is_vector(&X.sh) || !is_vector(&Y.sh) ||
        numel_of(&X.sh) != numel_of(&Y.sh))
        gd_error("gpudot:badOption",
                 "%s: \"kernel\" takes two real vectors of equal length (one dot "
                 "product) and no DIM",
                 fn);
    if (c->accum == GPUDOT_ACC_COMP || c->accum == GPUDOT_ACC_EXACT)
        gd_error("gpudot:badOption", "%s: \"kernel\" takes \"accum\" \"native\" or \"double\"", fn);
    if (c->dev == DEV_CPU)
        gd_error("gpudot:badOption", "%s: \"kernel\" runs on the GPU, not \"cpu\"", fn);
    if (X.shd || Y.shd)
        gd_error("gpudot:badOption", "%s: \"kernel\" takes data on one GPU", fn);
    need_gpu(fn);
    int single, out_single;
    classes_of(fn, &X, &Y, 1, &single, &out_single);
    void *tmp_x = NULL, *tmp_y = NULL;
    const void *px = X.data, *py = Y.data;
    if (!X.dev && X.single != single)
        px = tmp_x = single ? (void *)to_single(X.mx) : (void *)to_double(X.mx);
    if (!Y.dev && Y.single != single)
        py = tmp_y = single ? (void *)to_single(Y.mx) : (void *)to_double(Y.mx);
    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    r.op = GPUDOT_OP_DOT;
    r.type = single ? GPUDOT_F32 : GPUDOT_F64;
    r.accum = c->accum;
    r.nb = 1, r.na = 1, r.nk = numel_of(&X.sh);
    r.bx = r.ax = r.by = r.ay = 1;
    r.kx = r.ky = r.nk;
    r.x = px, r.y = py;
    r.x_dev = X.dev, r.y_dev = Y.dev;
    double res[2] = {0, 0}, ms = 0;
    r.out = res;
    gpudot_status st = gpudot_cuda_ladder(&r, c->kernel, &ms);
    if (tmp_x)
        mxFree(tmp_x);
    if (tmp_y)
        mxFree(tmp_y);
    update_lock();
    if (st != GPUDOT_OK)
        raise_status(fn, st, gpudot_cuda_last_error());
    double v = single ? (double)*(float *)res : res[0];
    plhs[0] =
        out_single ? mxCreateNumericMatrix(1, 1, mxSINGLE_CLASS, mxREAL) : mxCreateDoubleScalar(v);
    if (out_single)
        *(float *)mxGetData(plhs[0]) = (float)v;
    if (nlhs > 1)
        plhs[1] = mxCreateDoubleScalar(ms);
}

/* ---- the compiled entries' fast paths (mex/gpudot_entry.h) ----
 * gdot.oct, gnorm.oct and gcosine.oct call these for their common call, one reduction of
 * whole vectors, without the MEX interface; their other calls come here through
 * __gpudot__ ("__entry__", name, args...). */

int gpudot_entry_host_quiet(void)
{
    return no_device_warned() || gpudot_cuda_available();
}

/* `locked`: garrays live, so the lock is held and a call leaves it so (update_lock). */
int gpudot_entry_garray(int64_t id, const void **d, int64_t *numel, int *vector, int *single,
                        int *cplx)
{
    const garr_t *g = locked ? registry_find(id) : NULL;
    if (!g || !g->d)
        return 0;
    operand_t o;
    resident_operand(g, &o);
    *d = o.data;
    *numel = numel_of(&o.sh);
    *vector = is_vector(&o.sh);
    *single = o.single;
    *cplx = o.cplx;
    return 1;
}

unsigned gpudot_entry_dispatch_epoch(int bump)
{
    static unsigned epoch = 1;
    if (bump)
        epoch++;
    return epoch;
}

static double entry_calls = 0; /* test hook: __gpudot__ ("__entry_calls__") */

double gateway_entry_calls(void)
{
    return entry_calls;
}

/* op_reduce on two vectors of n elements: dot's vector rule makes both n x 1, the
 * reduction runs along dimension 1 (nb = na = 1, nk = n, every extent 1); a norm's Y is its
 * X without data.  Device: the GPU for resident operands, the CPU engine for host data
 * (what "auto" and "cpu" give there). */

gpudot_status gpudot_entry_vector(gpudot_op op, int single, int cx, int cy, const void *x,
                                  const void *y, int64_t n, int dev, gpudot_accum accum, int pk,
                                  double p, void *out)
{
    int has_y = op != GPUDOT_OP_NORM;
    entry_calls++;
    gpudot_dot_req r;
    req_init(&r, op, pk, p, single, cx, has_y && cy, accum);
    r.nb = 1, r.nk = n, r.na = 1;
    r.bx = 1, r.kx = n, r.ax = 1;
    r.by = 1, r.ky = n, r.ay = 1;
    r.x = x;
    r.y = has_y ? y : NULL;
    r.x_dev = dev;
    r.y_dev = has_y && dev;
    r.out = out;
    return dev ? gpudot_cuda_dot(&r, gpudot_interrupt_pending)
               : gpudot_cpu_dot(&r, gpudot_interrupt_pending);
}

static void op_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)nrhs, (void)prhs;
    static const char *fields[] = {"version",         "backend",         "built_with_cuda",
                                   "device",          "device_name",     "compute_capability",
                                   "multiprocessors", "memory_total",    "memory_free",
                                   "driver_version",  "runtime_version", "staging_bytes",
                                   "garrays",         "garray_bytes",    "device_count"};
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
    size_t gb = 0;
    gb = registry_bytes();
    mxSetField(s, 0, "garrays", mxCreateDoubleScalar((double)registry_count()));
    mxSetField(s, 0, "garray_bytes", mxCreateDoubleScalar((double)gb));
    mxSetField(s, 0, "device_count", mxCreateDoubleScalar(gpudot_cuda_device_count()));
    plhs[0] = s;
}

/* The public names, answered through __gpudot__ ("__entry__", name, args...) for the
 * compiled entries (mex/gpudot_entry.cc) where their fast path does not answer. */
static const struct {
    const char *name;
    gpudot_op op;
} public_entries[] = {
    {"gdot", GPUDOT_OP_DOT}, {"gnorm", GPUDOT_OP_NORM}, {"gcosine", GPUDOT_OP_COS}};

static void dispatch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    char op[16] = "";
    if (nrhs == 1 && mxIsChar(prhs[0]))
        mxGetString(prhs[0], op, sizeof op);
    if (!strcmp(op, "__stages__")) {
        /* bench/stages.m; answered here, before the first mark of a call */
#ifdef GPUDOT_STAGES
        plhs[0] = mxCreateDoubleMatrix(1, GPUDOT_NSTAGES, mxREAL);
        gpudot_stages(mxGetDoubles(plhs[0]), GPUDOT_NSTAGES);
        return;
#else
        gd_error("gpudot:badOption",
                 "__gpudot__: built without stage timers (make -f mex.mk STAGES=1)");
#endif
    }
    GPUDOT_MARK(GPUDOT_STAGE_CALL);
    props_free(); /* left by a call that ended in an error */
    dispatch(nlhs, plhs, nrhs, prhs);
    props_free();
    GPUDOT_MARK(GPUDOT_STAGE_EXIT);
}

static int is_int_operand(const mxArray *a)
{
    return a && mxIsNumeric(a) && !mxIsDouble(a) && !mxIsSingle(a) && !mxIsClass(a, "garray");
}

/* A call of public entry e with the user's arguments. */
static void call_public(size_t e, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const char *fn = public_entries[e].name;
    gpudot_op op = public_entries[e].op;
    call_t c;
    parse_public(fn, op, nrhs, prhs, &c);
    if (nlhs > 1 && c.kernel < 0)
        gd_error("Octave:invalid-fun-call", "%s: function called with too many outputs", fn);
    if (sparse_call(op, &c)) { /* from the nonzeros (mex/sparse.c) */
        op_sparse(fn, op, &c, plhs);
        return;
    }
    /* as dot: an integer operand makes the result double */
    c.int_in = is_int_operand(c.x) || (op != GPUDOT_OP_NORM && is_int_operand(c.y));
    c.x = public_operand(fn, "X", c.x);
    if (op != GPUDOT_OP_NORM)
        c.y = public_operand(fn, "Y", c.y);
    GPUDOT_MARK(GPUDOT_STAGE_PARSE);
    if (c.kernel >= 0)
        op_ladder(fn, &c, nlhs, plhs);
    else
        op_reduce(fn, op, &c, plhs);
}

/* __gpudot__ ("__entry__", name, args...): the compiled entries' calls that are not their
 * fast path (mex/gpudot_entry.cc) */
static void op_entry(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    size_t ne = sizeof public_entries / sizeof *public_entries;
    char name[16] = "";
    if (nrhs >= 2 && mxIsChar(prhs[1]))
        mxGetString(prhs[1], name, sizeof name);
    size_t e = 0;
    while (e < ne && strcmp(name, public_entries[e].name))
        e++;
    if (e == ne)
        gd_error("gpudot:badOption", "__gpudot__: __entry__ takes gdot, gnorm or gcosine");
    call_public(e, nlhs, plhs, nrhs - 2, prhs + 2);
}

static void op_gpu_available(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)nrhs, (void)prhs;
    plhs[0] = mxCreateLogicalScalar(gpudot_cuda_available() != 0);
}

/* __gpudot__ ("release"): frees the engine's buffers (garrays stay) */
static void op_release(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs, (void)nrhs, (void)prhs;
    gpudot_cuda_release();
    update_lock();
}

/* The operations, by name; the test and bench hooks are in mex/hooks.c. */
static const gateway_op public_ops[] = {
    {"__entry__", op_entry},
    {"info", op_info},
    {"gpu_available", op_gpu_available},
    {"release", op_release},
};

static gateway_op_fn find_op(const char *name, const gateway_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, ops[i].name))
            return ops[i].fn;
    return NULL;
}

static void dispatch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 1 || !mxIsChar(prhs[0]))
        gd_error("gpudot:badOption", "__gpudot__: first argument must be an op name");
    char op[32];
    mxGetString(prhs[0], op, sizeof op);
    gateway_op_fn fn = find_op(op, public_ops, sizeof public_ops / sizeof *public_ops);
    if (!fn)
        fn = find_op(op, gateway_garray_ops, gateway_n_garray_ops);
    if (!fn)
        fn = find_op(op, gateway_search_ops, gateway_n_search_ops);
    if (!fn)
        fn = find_op(op, gateway_hook_ops, gateway_n_hook_ops);
    if (!fn)
        gd_error("gpudot:badOption", "__gpudot__: unknown op \"%s\"", op);
    fn(nlhs, plhs, nrhs, prhs);
}
