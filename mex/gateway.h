/*
 * What the gateway's files share: raising errors and warnings (mex/errors.c), the MEX lock,
 * argument helpers, and the operation table's entry type.
 */
#ifndef GPUDOT_GATEWAY_H
#define GPUDOT_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include "mex.h"

#include "gpudot.h"

/* Octave's error () and warning () with the message as written (mexErrMsgIdAndTxt would
 * prefix the entry's name, and every message here already names the user's function). */
void gd_error(const char *id, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void gd_warn(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* gpudot:<id> with the status's message, and CUDA's text where there is one. */
void raise_status(const char *fn, gpudot_status st, const char *detail) __attribute__((noreturn));
/* Locks the MEX exactly while the engine holds device memory or garrays live. */
void update_lock(void);
/* The index of the string a among names[0 .. n), or -1. */
int name_index(const mxArray *a, const char *const *names, int n);
/* The same for a C string (NULL: -1); case-sensitive. */
int string_index(const char *s, const char *const *names, int n);
/* A count argument (bytes, blocks) of operation op: a numeric scalar >= 0. */
size_t count_arg(const char *op, const mxArray *a);
/* Calls the compiled entries' fast path answered (a test hook). */
double gateway_entry_calls(void);

/* ---- mex/shapes.c ---- */
#define MAXDIMS 64

typedef struct {
    int nd;
    int64_t d[MAXDIMS];
} shape_t;
void shape_of(const mxArray *a, shape_t *s);
int is_vector(const shape_t *s);
int64_t numel_of(const shape_t *s);
int64_t prod_range(const shape_t *s, int lo, int hi); /* product of extents [lo, hi) */
/* the extent of o over dims [lo, hi) of broadcast shape b, or -1 where o needs expanding */
int64_t group_extent(const shape_t *o, const shape_t *b, int lo, int hi);
void *expand(const void *src, const shape_t *o, const shape_t *b, int nd, size_t es);
const void *data_of(const mxArray *a);
float *to_single(const mxArray *a);
int is_float_array(const mxArray *a);
mxArray *make_out(int nd, const mwSize *dims, mxClassID cls, int cplx, void **data);

/* ---- mex/args.c ---- */
/* One parsed reduction call, from either entry (see parse_internal, parse_public). */
typedef struct {
    const mxArray *x, *y; /* y unused for norms */
    const mxArray *p;     /* norms: P, or NULL for 2 */
    int have_dim;
    int64_t dim;
    gpudot_accum accum;
    int dev;
    int kernel; /* gdot's "kernel" option: -1 none, else the ladder index */
    int int_in; /* an operand was of an integer class (dot's result is then double) */
} call_t;
int parse_accum(const mxArray *a, gpudot_accum *acc);
int parse_device(const mxArray *a, int *dev);
int parse_p(const mxArray *a, int *pk, double *p);
int parse_kernel(const mxArray *a, int *k);
void bad_accum(const char *fn) __attribute__((noreturn));
/* a norm's P that "exact" does not take (P other than 1, 2, Inf, -Inf, 0) */
void exact_bad_p(const char *fn) __attribute__((noreturn));
void bad_device(const char *fn) __attribute__((noreturn));
void parse_public(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[], call_t *c);
/* a public entry's operand as the engine takes it (integers to double, sparse to full) */
const mxArray *public_operand(const char *fn, const char *name, const mxArray *a);
char *get_string(const mxArray *a); /* mxFree it; NULL where a is no string */

/* ---- mex/sparse.c: sparse operands, reduced from their nonzeros on the host ---- */
int sparse_call(gpudot_op op, const call_t *c);
void op_sparse(const char *fn, gpudot_op op, const call_t *c, mxArray *plhs[]);

/* ---- mex/intchunks.c: integer operands, converted a piece at a time ---- */
void int_convert(void *dst, int single, const void *src, mxClassID cls, int64_t off, int64_t n);
gpudot_status run_int_chunks(gpudot_dot_req *r, int gpu, const mxArray *xi, const mxArray *yi);

/* One operation of __gpudot__ (op, args...): prhs[0] is its name. */
typedef void (*gateway_op_fn)(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
typedef struct {
    const char *name;
    gateway_op_fn fn;
} gateway_op;

/* errors.c: raises unless a GPU is usable; the session's one gpudot:noDevice warning */
void need_gpu(const char *fn);
void warn_no_device(const char *fn, const char *instead);
int no_device_warned(void); /* whether that warning was given */

/* The garray operations (mex/garray_ops.c). */
extern const gateway_op gateway_garray_ops[];
extern const size_t gateway_n_garray_ops;
/* maxk, mink and the search (mex/search_ops.c). */
extern const gateway_op gateway_search_ops[];
extern const size_t gateway_n_search_ops;

/* The test and bench hooks (mex/hooks.c); the chunk length of new garrays on several GPUs
 * (__gpudot__.c; 0: GPUDOT_SHARD_CHUNK). */
void gateway_set_shard_chunk(int64_t q);
extern const gateway_op gateway_hook_ops[];
extern const size_t gateway_n_hook_ops;

#endif
