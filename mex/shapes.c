/*
 * Shapes of Octave arrays and the gateway's array helpers: broadcast extents, expansion
 * of an operand where its broadcast needs a copy, class conversion, outputs.
 */
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

void shape_of(const mxArray *a, shape_t *s)
{
    mwSize nd = mxGetNumberOfDimensions(a);
    const mwSize *d = mxGetDimensions(a);
    s->nd = (int)nd;
    for (int j = 0; j < MAXDIMS; j++)
        s->d[j] = j < (int)nd ? (int64_t)d[j] : 1;
}

int is_vector(const shape_t *s)
{
    return s->nd == 2 && (s->d[0] == 1 || s->d[1] == 1);
}

int64_t numel_of(const shape_t *s)
{
    int64_t n = 1;
    for (int j = 0; j < s->nd; j++)
        n *= s->d[j];
    return n;
}

int64_t prod_range(const shape_t *s, int lo, int hi)
{
    int64_t n = 1;
    for (int j = lo; j < hi; j++)
        n *= s->d[j];
    return n;
}

/* Extent of an operand within dims [lo, hi) of the broadcast shape b: the full product,
 * 1 (broadcast over the whole group), or -1 (mixed: the operand must be expanded). */
int64_t group_extent(const shape_t *o, const shape_t *b, int lo, int hi)
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
void *expand(const void *src, const shape_t *o, const shape_t *b, int nd, size_t es)
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
const void *data_of(const mxArray *a)
{
    return mxGetData(a);
}

/* Rounds a double array (real or interleaved complex) to a new float buffer. */
float *to_single(const mxArray *a)
{
    size_t n = mxGetNumberOfElements(a) * (mxIsComplex(a) ? 2 : 1);
    const double *p = (const double *)data_of(a);
    float *f = mxMalloc(n ? n * sizeof *f : 1);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)p[i];
    return f;
}

int is_float_array(const mxArray *a)
{
    return (mxIsDouble(a) || mxIsSingle(a)) && !mxIsSparse(a);
}

/* Result array of class cls with the given dims; complex storage is attached by hand
 * because mxCreateNumericArray (..., mxCOMPLEX) under-allocates in Octave 7.3. */
mxArray *make_out(int nd, const mwSize *dims, mxClassID cls, int cplx, void **data)
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
