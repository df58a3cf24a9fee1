/*
 * __gpudot__: the only mexFunction of gpudot.  Internal: users call gdot, gnorm and gcosine
 * (compiled entries, mex/gpudot_entry.cc, linked against this library: their common call
 * runs through gpudot_entry_* below, the rest comes here as "__entry__") and garray.m; the
 * .m files carry the help text.  This gateway validates every call (it can be called
 * directly), maps
 * Octave arrays to the engine's canonical form, picks the engine, owns the engine's
 * persistent state through mexLock/mexAtExit, and is the only place errors are raised.
 *
 *   r = __gpudot__ ("dot", x, y, dim, accum, device)   dim [] = default
 *   r = __gpudot__ ("norm", x, p, dim, accum, device)   p [] = 2
 *   r = __gpudot__ ("cosine", x, y, dim, accum, device)
 *   s = __gpudot__ ("info")
 *   t = __gpudot__ ("gpu_available")
 *   [id, on_dev] = __gpudot__ ("garray_new", x)        resident copy of x
 *   __gpudot__ ("garray_free", id)
 *   x = __gpudot__ ("garray_gather", id)
 *   __gpudot__ ("release")                              free staging buffers
 *   r = __gpudot__ ("__entry__", name, args...)         gdot, gnorm or gcosine (args...):
 *                                                       the compiled entries' other calls
 * and the test and bench hooks of mex/hooks.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mex.h"

#include "gateway.h"
#include "gpudot_entry.h"
#include "gpudot_hooks.h"
#include "gpudot_math.h"
#include "octave_interrupt.h"

#define MAXDIMS 64

/* Errors and warnings (gateway.h) go through Octave's error () and warning (). */
static void gd_call(const char *what, const char *id, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mxArray *a[3] = {mxCreateString(id), mxCreateString("%s"), mxCreateString(msg)};
    mexCallMATLAB(0, NULL, 3, a, what);
    for (int i = 0; i < 3; i++)
        mxDestroyArray(a[i]);
}

void gd_error(const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_call("error", id, fmt, ap);
    va_end(ap);
    mexErrMsgIdAndTxt(id, "error () returned"); /* not reached: error () throws */
    __builtin_unreachable(); /* nor here: mexErrMsgIdAndTxt throws too */
}

void gd_warn(const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_call("warning", id, fmt, ap);
    va_end(ap);
}


/* Inputs of the reduction ops, by slot (IN_Y is P for norms). */
enum { IN_OP, IN_X, IN_Y, IN_DIM, IN_ACCUM, IN_DEVICE, IN_END };


static int locked = 0;
static int warned_no_device = 0;
static int at_exit_set = 0;

/* ---- garray registry: arrays kept on the device between calls ----
 * garray.m holds an id; the data lives here (on the device), or, where no GPU is usable,
 * in the garray object itself (an entry with d == NULL, kept for the counts). */
typedef struct {
    int64_t id;
    void *d; /* device memory, or NULL for a host-held garray */
    size_t bytes;
    int nd;
    mwSize dims[MAXDIMS];
    int single, cplx;
} garr_t;

static garr_t *garr = NULL;
static size_t ngarr = 0, cap_garr = 0;
static int64_t next_garr_id = 1;

/* id -> position in garr, for every call on a garray (a scan of garr took time in
 * proportion to the garrays alive, and made deleting n of them O(n^2)): open addressing
 * with linear probing, slots hold position + 1 (0: empty), at most half full; deletion
 * shifts the rest of its run back, so no tombstones. */
static size_t *gidx = NULL;
static size_t cap_gidx = 0; /* a power of two, or 0 */

static size_t gidx_home(int64_t id)
{
    return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & (cap_gidx - 1);
}

/* the slot holding id, or the empty slot where it would go */
static size_t gidx_slot(int64_t id)
{
    size_t s = gidx_home(id);
    while (gidx[s] && garr[gidx[s] - 1].id != id)
        s = (s + 1) & (cap_gidx - 1);
    return s;
}

/* Room for one more entry (the table at most half full); 0 where memory ran out. */
static int gidx_reserve(void)
{
    if (2 * (ngarr + 1) <= cap_gidx)
        return 1;
    size_t nc = cap_gidx ? 2 * cap_gidx : 64;
    size_t *t = calloc(nc, sizeof *t);
    if (!t)
        return 0;
    free(gidx);
    gidx = t;
    cap_gidx = nc;
    for (size_t i = 0; i < ngarr; i++)
        gidx[gidx_slot(garr[i].id)] = i + 1;
    return 1;
}

static garr_t *garr_find(int64_t id)
{
    if (!cap_gidx)
        return NULL;
    size_t s = gidx_slot(id);
    return gidx[s] ? &garr[gidx[s] - 1] : NULL;
}

/* Removes *g from garr (the last entry takes its place) and from the index. */
static void garr_remove(garr_t *g)
{
    size_t s = gidx_slot(g->id), pos = (size_t)(g - garr);
    /* backward-shift deletion: later entries of the run move into the hole where their
     * home slot allows */
    for (size_t j = (s + 1) & (cap_gidx - 1); gidx[j]; j = (j + 1) & (cap_gidx - 1)) {
        size_t h = gidx_home(garr[gidx[j] - 1].id);
        int stays = s <= j ? (s < h && h <= j) : (s < h || h <= j); /* h in (s, j], cyclically */
        if (!stays) {
            gidx[s] = gidx[j];
            s = j;
        }
    }
    gidx[s] = 0;
    if (pos != ngarr - 1) {
        garr[pos] = garr[ngarr - 1];
        gidx[gidx_slot(garr[pos].id)] = pos + 1;
    }
    ngarr--;
}

static void release_all(void)
{
    for (size_t i = 0; i < ngarr; i++)
        gpudot_cuda_free(garr[i].d);
    free(garr);
    garr = NULL;
    ngarr = cap_garr = 0;
    free(gidx);
    gidx = NULL;
    cap_gidx = 0;
    gpudot_cuda_release();
}

void raise_status(const char *fn, gpudot_status st, const char *detail)
{
    char id[64];
    snprintf(id, sizeof id, "gpudot:%s", gpudot_status_id(st));
    if (detail && *detail)
        gd_error(id, "%s: %s (%s)", fn, gpudot_status_msg(st), detail);
    gd_error(id, "%s: %s", fn, gpudot_status_msg(st));
}

/* Keeps the MEX in memory while the engine owns device memory or garrays live, so `clear
 * all` can neither strand nor double-free it; mexAtExit frees it when Octave exits.  Locked
 * exactly while memory is held, so an exit hook that runs unlocked frees nothing live.
 * (The compiled entries, linked against this library, never lock: their fast path runs
 * only where the lock would stay as it is; see gpudot_entry_garray.) */
void update_lock(void)
{
    int lock = gpudot_cuda_holds_memory() || ngarr > 0;
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

static char *get_string(const mxArray *a)
{
    if (!mxIsChar(a))
        return NULL;
    return mxArrayToString(a);
}

/* The index of the string a among names[0 .. n), or -1 where a is no string or none of them. */
int name_index(const mxArray *a, const char *const *names, int n)
{
    char *s = get_string(a);
    int k = -1;
    for (int i = 0; s && i < n && k < 0; i++)
        if (!strcmp(s, names[i]))
            k = i;
    if (s)
        mxFree(s);
    return k;
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
 * getters: Octave 7.3's mxGetComplexSingles fails ("type mismatch") on complex single.
 * Asked for before an array's dimensions: for a range (1:n) Octave 7.3 makes a new full
 * array here and hands it the dimensions it cached, copied, never freeing its own (16
 * bytes a call, found by check-valgrind). */
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
        /* Octave 7.3 gives a complex array n elements, not 2n: replace them, freeing the
         * first buffer (Octave would not: left there it leaked 8n bytes a call, found by
         * the soak) */
        void *p = mxCalloc(n ? 2 * n : 1, es);
        if (cls == mxSINGLE_CLASS) {
            mxFree(mxGetData(o));
            mxSetComplexSingles(o, (mxComplexSingle *)p);
        } else {
            mxFree(mxGetComplexDoubles(o));
            mxSetComplexDoubles(o, (mxComplexDouble *)p);
        }
        *data = p;
    } else {
        *data = cls == mxSINGLE_CLASS ? (void *)mxGetSingles(o) : (void *)mxGetDoubles(o);
    }
    return o;
}

/* "accum" and "device" values (case-sensitive); shared with the compiled entries. */
int gpudot_entry_accum(const char *s, gpudot_accum *acc)
{
    static const char *const names[] = {"native", "double", "compensated"};
    static const gpudot_accum modes[] = {GPUDOT_ACC_NATIVE, GPUDOT_ACC_DOUBLE, GPUDOT_ACC_COMP};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *acc = modes[i];
            return 1;
        }
    return 0;
}

int gpudot_entry_device(const char *s, int *dev)
{
    static const char *const names[] = {"auto", "gpu", "cpu"}; /* DEV_* in order */
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *dev = i;
            return 1;
        }
    return 0;
}

static int parse_accum(const mxArray *a, gpudot_accum *acc)
{
    char *s = get_string(a);
    int ok = s && gpudot_entry_accum(s, acc);
    if (s)
        mxFree(s);
    return ok;
}

static int parse_device(const mxArray *a, int *dev)
{
    char *s = get_string(a);
    int ok = s && gpudot_entry_device(s, dev);
    if (s)
        mxFree(s);
    return ok;
}

/* Raises unless the GPU can be used: gpudot:noDevice, or gpudot:cuda once a kernel fault
 * has lost the CUDA context. */
static void need_gpu(const char *fn)
{
    if (!gpudot_cuda_available())
        raise_status(fn, gpudot_cuda_lost() ? GPUDOT_CUDA : GPUDOT_NO_DEVICE,
                     gpudot_cuda_last_error());
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
        if (!warned_no_device) {
            warned_no_device = 1;
            gd_warn("gpudot:noDevice",
                    "%s: no usable CUDA device (%s); using the CPU engine", fn,
                    gpudot_cuda_last_error());
        }
        return 0;
    }
    return 0; /* "auto" keeps host data on the CPU engine: doc/design.md, host data */
}

/* The kind of a numeric p (0 for NaN); shared with the compiled entries. */
int gpudot_entry_p(double v, int *pk)
{
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

/* p of a norm: 2 or "fro", 1, Inf or "inf", -Inf or "-inf", 0, any other real scalar. */
static int parse_p(const mxArray *a, int *pk, double *p)
{
    if (mxIsChar(a)) {
        char *s = mxArrayToString(a);
        int ok = 1;
        if (!s)
            return 0;
        if (!strcasecmp(s, "fro"))
            *pk = GD_P_TWO, *p = 2;
        else if (!strcasecmp(s, "inf"))
            *pk = GD_P_INF, *p = INFINITY;
        else if (!strcasecmp(s, "-inf"))
            *pk = GD_P_NEGINF, *p = -INFINITY;
        else
            ok = 0;
        mxFree(s);
        return ok;
    }
    if (!(mxIsDouble(a) || mxIsSingle(a)) || mxIsComplex(a) || mxIsSparse(a) ||
        mxGetNumberOfElements(a) != 1)
        return 0;
    *p = mxGetScalar(a);
    return gpudot_entry_p(*p, pk);
}

/* One operand of a reduction: a host array or a resident garray. */
typedef struct {
    shape_t sh;
    int single, cplx;
    const void *data; /* host data, or a device pointer when dev */
    int dev;
    const mxArray *mx; /* the host array (NULL for garrays) */
} operand_t;

/* garray.m passes resident operands as struct ("garray_id", id). */
static const garr_t *garray_of(const mxArray *a)
{
    if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1)
        return NULL;
    const mxArray *f = mxGetField(a, 0, "garray_id");
    if (!f || !mxIsNumeric(f) || mxGetNumberOfElements(f) != 1)
        return NULL;
    return garr_find((int64_t)mxGetScalar(f));
}

static void resident_operand(const garr_t *g, operand_t *o)
{
    o->sh.nd = g->nd;
    for (int j = 0; j < MAXDIMS; j++)
        o->sh.d[j] = j < g->nd ? (int64_t)g->dims[j] : 1;
    o->single = g->single;
    o->cplx = g->cplx;
    o->data = g->d;
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

static void resolve(const char *fn, const char *name, const mxArray *a, operand_t *o)
{
    memset(o, 0, sizeof *o);
    if (!mxIsNumeric(a) && mxIsClass(a, "garray")) {
        /* a garray object itself (the "__entry__" calls get these): its id names resident
         * data (one scalar property read); otherwise its ref property holds the data,
         * where no GPU is usable, or marks it deleted */
        mxArray *idp = prop_of(a, "id");
        const garr_t *g = idp && mxGetNumberOfElements(idp) == 1 ? garr_find((int64_t)mxGetScalar(idp)) : NULL;
        if (g && g->d) {
            resident_operand(g, o);
            return;
        }
        a = prop_of(a, "ref");
        if (!a)
            gd_error("gpudot:badType", "%s: %s is not a valid garray", fn, name);
    }
    if (mxIsStruct(a) && mxGetNumberOfElements(a) == 1 && mxGetField(a, 0, "garray_id")) {
        const garr_t *g = garray_of(a);
        if (!g || !g->d)
            gd_error("gpudot:badType", "%s: %s is a garray that no longer exists", fn,
                     name);
        resident_operand(g, o);
        return;
    }
    if (!is_float_array(a))
        gd_error("gpudot:badType", "%s: %s must be a full single or double array",
                 fn, name);
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
    gpudot_status st = gpudot_cuda_copy(h, o->data, bytes, 0);
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
/* One parsed reduction call, from either entry (see parse_internal, parse_public). */
typedef struct {
    const mxArray *x, *y; /* y unused for norms */
    const mxArray *p;     /* norms: P, or NULL for 2 */
    int have_dim;
    int64_t dim;
    gpudot_accum accum;
    int dev;
    int kernel; /* gdot's "kernel" option: -1 none, else the ladder index */
} call_t;

static const char *const ladder_names[] = {"atomic", "shared", "shuffle", "vector", "fused"};

static int parse_kernel(const mxArray *a, int *k)
{
    int i = name_index(a, ladder_names, (int)(sizeof ladder_names / sizeof *ladder_names));
    if (i >= 0)
        *k = i;
    return i >= 0;
}

static void bad_dim(const char *fn)
{
    gd_error("gpudot:badDim", "%s: DIM must be a positive integer scalar", fn);
}

static void parse_dim(const char *fn, const mxArray *D, call_t *c)
{
    double dv = (mxIsNumeric(D) && !mxIsComplex(D) && mxGetNumberOfElements(D) == 1)
                    ? mxGetScalar(D) : NAN;
    if (!(dv >= 1 && dv == floor(dv) && dv <= 1e15))
        bad_dim(fn);
    c->have_dim = 1;
    c->dim = (int64_t)dv;
}

static void bad_accum(const char *fn)
{
    gd_error("gpudot:badOption",
             "%s: \"accum\" must be \"native\", \"double\" or \"compensated\"", fn);
}

static void bad_device(const char *fn)
{
    gd_error("gpudot:badOption", "%s: \"device\" must be \"auto\", \"gpu\" or \"cpu\"", fn);
}

/* __gpudot__ (op, X, Y or P, dim, accum, device): fixed slots, [] for defaults. */
static void parse_internal(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[],
                           call_t *c)
{
    int has_y = op != GPUDOT_OP_NORM;
    memset(c, 0, sizeof *c);
    c->accum = GPUDOT_ACC_DOUBLE;
    c->dev = DEV_AUTO;
    c->kernel = -1;
    if (nrhs < IN_X + 1 || nrhs > IN_END || (has_y && nrhs < IN_Y + 1))
        gd_error("gpudot:badOption", "%s: expected %d to 5 arguments after the op", fn,
                 has_y ? 2 : 1);
    c->x = prhs[IN_X];
    if (has_y)
        c->y = prhs[IN_Y];
    else if (nrhs > IN_Y && !mxIsEmpty(prhs[IN_Y]))
        c->p = prhs[IN_Y];
    if (nrhs > IN_DIM && !mxIsEmpty(prhs[IN_DIM]))
        parse_dim(fn, prhs[IN_DIM], c);
    if (nrhs > IN_ACCUM && !parse_accum(prhs[IN_ACCUM], &c->accum))
        bad_accum(fn);
    if (nrhs > IN_DEVICE && !parse_device(prhs[IN_DEVICE], &c->dev))
        bad_device(fn);
}

/* Whether a is one of the option names (any case). */
static int is_option_name(const mxArray *a)
{
    char buf[16];
    if (!mxIsChar(a) || mxGetNumberOfElements(a) >= sizeof buf)
        return 0;
    mxGetString(a, buf, sizeof buf);
    return !strcasecmp(buf, "accum") || !strcasecmp(buf, "device") || !strcasecmp(buf, "kernel");
}

/*
 * The public entries, called as gdot (x, y, [dim], name, value, ...), gcosine (same) and
 * gnorm (x, [p], [dim], name, value, ...), through "__entry__": the .m files of the same
 * names hold the help and the same logic for when they run instead of the compiled entries.
 */
static void parse_public(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[],
                         call_t *c)
{
    int has_y = op != GPUDOT_OP_NORM;
    int k = has_y ? 2 : 1;
    memset(c, 0, sizeof *c);
    c->accum = GPUDOT_ACC_DOUBLE;
    c->dev = DEV_AUTO;
    c->kernel = -1;
    if (nrhs < k)
        gd_error("Octave:invalid-fun-call", "Invalid call to %s.  Correct usage is:\n\n"
                 " -- %s (X%s, ...)", fn, fn, has_y ? ", Y" : "");
    c->x = prhs[0];
    if (has_y)
        c->y = prhs[1];
    else if (k < nrhs && !is_option_name(prhs[k]))
        c->p = prhs[k++];
    if (k < nrhs && !mxIsChar(prhs[k]))
        parse_dim(fn, prhs[k++], c);
    if ((nrhs - k) % 2)
        gd_error("gpudot:badOption", "%s: options must come in name/value pairs", fn);
    for (; k < nrhs; k += 2) {
        char name[16];
        if (!mxIsChar(prhs[k]) || mxGetM(prhs[k]) > 1 || mxGetNumberOfElements(prhs[k]) >= sizeof name)
            gd_error("gpudot:badOption", "%s: option names must be strings", fn);
        mxGetString(prhs[k], name, sizeof name);
        if (!strcasecmp(name, "accum")) {
            if (!parse_accum(prhs[k + 1], &c->accum))
                bad_accum(fn);
        } else if (!strcasecmp(name, "device")) {
            if (!parse_device(prhs[k + 1], &c->dev))
                bad_device(fn);
        } else if (!strcasecmp(name, "kernel") && op == GPUDOT_OP_DOT) {
            if (!parse_kernel(prhs[k + 1], &c->kernel))
                gd_error("gpudot:badOption",
                         "%s: \"kernel\" must be \"atomic\", \"shared\", \"shuffle\", "
                         "\"vector\" or \"fused\"", fn);
        } else {
            gd_error("gpudot:badOption", "%s: unknown option \"%s\"", fn, name);
        }
    }
}

/* A public-entry operand as the engine takes it: integers to double (exact product sums),
 * sparse to full, through Octave itself; non-numeric input is an error. */
static const mxArray *public_operand(const char *fn, const char *name, const mxArray *a)
{
    if ((mxIsDouble(a) || mxIsSingle(a)) && !mxIsSparse(a))
        return a; /* the common case first: class-name compares cost ~0.2 us each */
    if (mxIsClass(a, "garray"))
        return a;
    if (!mxIsNumeric(a))
        gd_error("gpudot:badType",
                 "%s: %s must be a numeric array (single, double, integer), not %s", fn,
                 name, mxGetClassName(a));
    mxArray *out = NULL, *in = (mxArray *)a;
    if (mxIsSparse(a))
        mexCallMATLAB(1, &out, 1, &in, "full");
    else if (!mxIsDouble(a) && !mxIsSingle(a))
        mexCallMATLAB(1, &out, 1, &in, "double");
    return out ? out : a;
}

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
                     "one class", fn);
        *single = X->dev ? X->single : Y->single;
    }
}

/* A request's op, norm kind, class, complexity and mode; the rest zero (shapes, pointers). */
static void req_init(gpudot_dot_req *r, gpudot_op op, int pk, double p, int single, int cx,
                     int cy, gpudot_accum accum)
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
    int have_dim = c->have_dim;
    int64_t dim = c->dim;
    gpudot_accum accum = c->accum;
    int dev = c->dev;

    shape_t sx = X.sh, sy = Y.sh, sb;
    if (sx.nd > MAXDIMS || sy.nd > MAXDIMS || dim > MAXDIMS)
        gd_error("gpudot:badDim", "%s: at most %d dimensions are supported", fn, MAXDIMS);
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
            gd_error("gpudot:sizeMismatch",
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

    int cx = X.cplx, cy = has_y && Y.cplx;
    int single, out_single;
    classes_of(fn, &X, &Y, has_y, &single, &out_single);
    mwSize odims[MAXDIMS];
    for (int j = 0; j < nd; j++)
        odims[j] = (mwSize)(j == d ? 1 : sb.d[j]);
    void *out;
    plhs[0] = make_out(nd, odims, out_single ? mxSINGLE_CLASS : mxDOUBLE_CLASS,
                       has_y && (cx || cy), &out);

    gpudot_dot_req r;
    req_init(&r, op, pk, pval, single, cx, cy, accum);
    r.nb = prod_range(&sb, 0, d);
    r.nk = sb.d[d];
    r.na = prod_range(&sb, d + 1, nd);
    if (r.nb == 0 || r.na == 0)
        return; /* empty output */
    if (op == GPUDOT_OP_NORM && r.nk == 0)
        return; /* norms of empty vectors are 0 for every p, as norm () gives: zeros */

    /* Engine: resident operands run on the GPU unless "cpu" is asked for. */
    size_t es = single ? sizeof(float) : sizeof(double);
    int resident = X.dev || Y.dev;
    int gpu;
    if (resident)
        gpu = dev != DEV_CPU;
    else
        gpu = use_gpu(fn, dev, (size_t)numel_of(&X.sh) * es * (cx ? 2 : 1) +
                                   (has_y ? (size_t)numel_of(&Y.sh) * es * (cy ? 2 : 1) : 0));

    void *tmp_x = NULL, *tmp_y = NULL, *tmp_out = NULL;
    const void *px = X.data, *py = has_y ? Y.data : NULL;
    if (X.dev && !gpu)
        px = tmp_x = gather_operand(fn, &X, es);
    if (has_y && Y.dev && !gpu)
        py = tmp_y = gather_operand(fn, &Y, es);
    if (!X.dev && X.single != single)
        px = tmp_x = single ? (void *)to_single(X.mx) : (void *)to_double(X.mx);
    if (has_y && !Y.dev && Y.single != single)
        py = tmp_y = single ? (void *)to_single(Y.mx) : (void *)to_double(Y.mx);
    int64_t bx = group_extent(&sx, &sb, 0, d), ax = group_extent(&sx, &sb, d + 1, nd);
    int64_t by = group_extent(&sy, &sb, 0, d), ay = group_extent(&sy, &sb, d + 1, nd);
    if ((bx < 0 || ax < 0) || (has_y && (by < 0 || ay < 0))) {
        if ((X.dev && gpu && (bx < 0 || ax < 0)) || (Y.dev && gpu && (by < 0 || ay < 0)))
            gd_error("gpudot:sizeMismatch",
                     "%s: this broadcast pattern needs a copy of a garray operand; "
                     "gather it first", fn);
    }
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
    r.x_dev = X.dev && gpu;
    r.y_dev = has_y && Y.dev && gpu;
    r.bx = bx, r.kx = sx.d[d], r.ax = ax;
    r.by = by, r.ky = sy.d[d], r.ay = ay;
    r.out = out;
    int64_t nout = r.nb * r.na, ocomp = has_y && (cx || cy) ? 2 : 1;
    if (out_single && !single) /* computed in double for a single result */
        r.out = tmp_out = mxMalloc((size_t)(nout * ocomp) * sizeof(double));

    GPUDOT_MARK(GPUDOT_STAGE_PREPARE);
    gpudot_status st = gpu ? gpudot_cuda_dot(&r, gpudot_interrupt_pending) : gpudot_cpu_dot(&r, gpudot_interrupt_pending);
    GPUDOT_MARK(GPUDOT_STAGE_ENGINE_EXIT);
    if (st == GPUDOT_OK && tmp_out) {
        for (int64_t i = 0; i < nout * ocomp; i++)
            ((float *)out)[i] = (float)((double *)tmp_out)[i];
    }
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
                 "product) and no DIM", fn);
    if (c->accum == GPUDOT_ACC_COMP)
        gd_error("gpudot:badOption",
                 "%s: \"kernel\" takes \"accum\" \"native\" or \"double\"", fn);
    if (c->dev == DEV_CPU)
        gd_error("gpudot:badOption", "%s: \"kernel\" runs on the GPU, not \"cpu\"", fn);
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
    plhs[0] = out_single ? mxCreateNumericMatrix(1, 1, mxSINGLE_CLASS, mxREAL)
                         : mxCreateDoubleScalar(v);
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
    return warned_no_device || gpudot_cuda_available();
}

/* `locked`: garrays live, so the lock is held and a call leaves it so (update_lock). */
int gpudot_entry_garray(int64_t id, const void **d, int64_t *numel, int *vector, int *single,
                        int *cplx)
{
    const garr_t *g = locked ? garr_find(id) : NULL;
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
                                  const void *y, int64_t n, int dev, gpudot_accum accum,
                                  int pk, double p, void *out)
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
    return dev ? gpudot_cuda_dot(&r, gpudot_interrupt_pending) : gpudot_cpu_dot(&r, gpudot_interrupt_pending);
}

/* ---- garray ops ---- */

/* [id, on_device] = __gpudot__ ("garray_new", x) */
static void op_garray_new(int nrhs, const mxArray *prhs[], mxArray *plhs[])
{
    if (nrhs != 2 || !is_float_array(prhs[1]))
        gd_error("gpudot:badType",
                 "garray: X must be a full single or double array (real or complex)");
    const mxArray *a = prhs[1];
    const void *src = data_of(a); /* before the dimensions: see data_of */
    if (mxGetNumberOfDimensions(a) > MAXDIMS)
        gd_error("gpudot:badDim", "garray: at most %d dimensions are supported", MAXDIMS);
    if (ngarr == cap_garr) {
        size_t nc = cap_garr ? 2 * cap_garr : 16;
        garr_t *g = realloc(garr, nc * sizeof *g);
        if (!g)
            gd_error("gpudot:outOfMemory", "garray: out of host memory");
        garr = g;
        cap_garr = nc;
    }
    if (!gidx_reserve())
        gd_error("gpudot:outOfMemory", "garray: out of host memory");
    garr_t e;
    memset(&e, 0, sizeof e);
    e.id = next_garr_id++;
    e.single = mxIsSingle(a);
    e.cplx = mxIsComplex(a);
    e.nd = (int)mxGetNumberOfDimensions(a);
    memcpy(e.dims, mxGetDimensions(a), (size_t)e.nd * sizeof(mwSize));
    e.bytes = mxGetNumberOfElements(a) * (e.single ? 4 : 8) * (e.cplx ? 2 : 1);
    if (gpudot_cuda_available()) {
        gpudot_status st = gpudot_cuda_malloc(&e.d, e.bytes);
        if (st == GPUDOT_OUT_OF_MEMORY) {
            gpudot_cuda_info_t in;
            gpudot_cuda_info(&in);
            gd_error("gpudot:outOfMemory",
                     "garray: cannot allocate %zu bytes on the device (%zu bytes free)",
                     e.bytes, in.mem_free);
        }
        if (st != GPUDOT_OK)
            raise_status("garray", st, gpudot_cuda_last_error());
        if ((st = gpudot_cuda_copy(e.d, src, e.bytes, 1)) != GPUDOT_OK) {
            gpudot_cuda_free(e.d);
            raise_status("garray", st, gpudot_cuda_last_error());
        }
    } else if (!warned_no_device) {
        warned_no_device = 1;
        gd_warn("gpudot:noDevice",
                "garray: no usable CUDA device (%s); keeping data on the host",
                gpudot_cuda_last_error());
    }
    garr[ngarr] = e;
    gidx[gidx_slot(e.id)] = ++ngarr;
    update_lock();
    plhs[0] = mxCreateDoubleScalar((double)e.id);
    plhs[1] = mxCreateLogicalScalar(e.d != NULL);
}

/* __gpudot__ ("garray_free", id): unknown ids are ignored (delete may run twice, or after
 * the registry was emptied at exit). */
static void op_garray_free(int nrhs, const mxArray *prhs[])
{
    if (nrhs != 2 || !mxIsNumeric(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 1)
        gd_error("gpudot:badOption", "__gpudot__: garray_free needs an id");
    garr_t *g = garr_find((int64_t)mxGetScalar(prhs[1]));
    if (!g)
        return;
    gpudot_cuda_free(g->d);
    garr_remove(g);
    update_lock();
}

/* x = __gpudot__ ("garray_gather", id) */
static void op_garray_gather(int nrhs, const mxArray *prhs[], mxArray *plhs[])
{
    const garr_t *g = nrhs == 2 ? garray_of(prhs[1]) : NULL;
    if (!g && nrhs == 2 && mxIsNumeric(prhs[1]) && mxGetNumberOfElements(prhs[1]) == 1)
        g = garr_find((int64_t)mxGetScalar(prhs[1]));
    if (!g || !g->d)
        gd_error("gpudot:badType", "gather: not a garray on the device");
    void *data;
    plhs[0] = make_out(g->nd, g->dims, g->single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, g->cplx, &data);
    gpudot_status st = gpudot_cuda_copy(data, g->d, g->bytes, 0);
    if (st != GPUDOT_OK)
        raise_status("gather", st, gpudot_cuda_last_error());
}

static void op_info(mxArray *plhs[])
{
    static const char *fields[] = {"version",         "backend",        "built_with_cuda",
                                   "device",          "device_name",    "compute_capability",
                                   "multiprocessors", "memory_total",   "memory_free",
                                   "driver_version",  "runtime_version", "staging_bytes",
                                   "garrays",         "garray_bytes"};
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
    for (size_t i = 0; i < ngarr; i++)
        gb += garr[i].bytes;
    mxSetField(s, 0, "garrays", mxCreateDoubleScalar((double)ngarr));
    mxSetField(s, 0, "garray_bytes", mxCreateDoubleScalar((double)gb));
    plhs[0] = s;
}

/* The public names, answered through __gpudot__ ("__entry__", name, args...) for the
 * compiled entries (mex/gpudot_entry.cc) where their fast path does not answer. */
static const struct {
    const char *name;
    gpudot_op op;
} public_entries[] = {{"gdot", GPUDOT_OP_DOT}, {"gnorm", GPUDOT_OP_NORM}, {"gcosine", GPUDOT_OP_COS}};

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
        gd_error("gpudot:badOption", "__gpudot__: built without stage timers (make -f mex.mk STAGES=1)");
#endif
    }
    GPUDOT_MARK(GPUDOT_STAGE_CALL);
    props_free(); /* left by a call that ended in an error */
    dispatch(nlhs, plhs, nrhs, prhs);
    props_free();
    GPUDOT_MARK(GPUDOT_STAGE_EXIT);
}

/* A call of public entry e with the user's arguments. */
static void call_public(size_t e, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const char *fn = public_entries[e].name;
    gpudot_op op = public_entries[e].op;
    call_t c;
    parse_public(fn, op, nrhs, prhs, &c);
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

/* __gpudot__ ("dot" | "norm" | "cosine", x, y or p, dim, accum, device) (the .m files) */
static void op_internal(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[],
                        mxArray *plhs[])
{
    call_t c;
    parse_internal(fn, op, nrhs, prhs, &c);
    op_reduce(fn, op, &c, plhs);
}

static void op_dot(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    op_internal("gdot", GPUDOT_OP_DOT, nrhs, prhs, plhs);
}

static void op_norm(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    op_internal("gnorm", GPUDOT_OP_NORM, nrhs, prhs, plhs);
}

static void op_cosine(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    op_internal("gcosine", GPUDOT_OP_COS, nrhs, prhs, plhs);
}

/* [d, ms] = __gpudot__ ("ladder", x, y, kernel, accum, device) (gdot.m) */
static void op_ladder_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    call_t c;
    if (nrhs != 6)
        gd_error("gpudot:badOption", "__gpudot__: ladder takes x, y, kernel, accum, device");
    memset(&c, 0, sizeof c);
    c.x = prhs[1], c.y = prhs[2];
    if (!parse_kernel(prhs[3], &c.kernel))
        gd_error("gpudot:badOption", "gdot: unknown \"kernel\"");
    if (!parse_accum(prhs[4], &c.accum))
        bad_accum("gdot");
    if (!parse_device(prhs[5], &c.dev))
        bad_device("gdot");
    op_ladder("gdot", &c, nlhs, plhs);
}

static void op_info_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)nrhs, (void)prhs;
    op_info(plhs);
}

static void op_gpu_available(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)nrhs, (void)prhs;
    plhs[0] = mxCreateLogicalScalar(gpudot_cuda_available() != 0);
}

static void op_garray_new_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    op_garray_new(nrhs, prhs, plhs);
}

static void op_garray_free_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs, (void)plhs;
    op_garray_free(nrhs, prhs);
}

static void op_garray_gather_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    op_garray_gather(nrhs, prhs, plhs);
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
    {"dot", op_dot},
    {"norm", op_norm},
    {"cosine", op_cosine},
    {"ladder", op_ladder_call},
    {"info", op_info_call},
    {"gpu_available", op_gpu_available},
    {"garray_new", op_garray_new_call},
    {"garray_free", op_garray_free_call},
    {"garray_gather", op_garray_gather_call},
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
        fn = find_op(op, gateway_hook_ops, gateway_n_hook_ops);
    if (!fn)
        gd_error("gpudot:badOption", "__gpudot__: unknown op \"%s\"", op);
    fn(nlhs, plhs, nrhs, prhs);
}
