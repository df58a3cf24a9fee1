/*
 * gpudot engine interface: the only engine header the MEX gateway includes.
 *
 * The engine knows nothing of Octave: it takes plain host pointers and a shape, computes
 * reductions on the CPU or the GPU, and returns a status code.  Only the gateway turns a
 * status into an Octave error.  The engine never prints, exits or aborts.
 */
#ifndef GPUDOT_H
#define GPUDOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUDOT_VERSION "0.1.0"

/* One list gives the status enum, the identifier suffix (gpudot:<id>) and the default
 * message, so the three can never drift apart. */
#define GPUDOT_STATUS_LIST(X)                                                                      \
    X(OK, "ok", "success")                                                                         \
    X(BAD_TYPE, "badType", "X and Y must be single or double arrays")                              \
    X(SIZE_MISMATCH, "sizeMismatch", "sizes of X and Y must match or be compatible")               \
    X(BAD_DIM, "badDim", "DIM not supported for these operands")                                   \
    X(BAD_OPTION, "badOption", "invalid option")                                                   \
    X(NO_DEVICE, "noDevice", "no usable CUDA device")                                              \
    X(OUT_OF_MEMORY, "outOfMemory", "out of memory")                                               \
    X(CUDA, "cuda", "CUDA error")                                                                  \
    X(INTERRUPTED, "interrupted", "interrupted by the user")

#define GPUDOT_ENUM_ENTRY(name, id, msg) GPUDOT_##name,
typedef enum { GPUDOT_STATUS_LIST(GPUDOT_ENUM_ENTRY) GPUDOT_NSTATUS } gpudot_status;
#undef GPUDOT_ENUM_ENTRY

const char *gpudot_status_id(gpudot_status s);  /* "badType", ... */
const char *gpudot_status_msg(gpudot_status s); /* default message */

typedef enum { GPUDOT_F32 = 0, GPUDOT_F64 = 1 } gpudot_type;

typedef enum {
    GPUDOT_ACC_NATIVE = 0, /* accumulate in the element precision */
    GPUDOT_ACC_DOUBLE = 1, /* accumulate in double (single products are exact there) */
    GPUDOT_ACC_COMP = 2,   /* Ogita-Rump-Oishi Dot2 in double: as if in twice the precision */
    GPUDOT_ACC_EXACT = 3 /* exact sums rounded once (2-norms: the square root correctly rounded) */
} gpudot_accum;

typedef enum {
    GPUDOT_OP_DOT = 0,  /* sum conj(x) y */
    GPUDOT_OP_NORM = 1, /* vector p-norm of x (y unused) */
    GPUDOT_OP_COS = 2   /* conj(x) y / (|x| |y|), clamped */
} gpudot_op;

/*
 * An array on several GPUs: k x a elements (runs of k, a columns; a vector is k x 1), cut
 * into n contiguous shards, each on one device (a device may hold several).  A vector is
 * cut at multiples of its chunk length q, anything else at multiples of qa columns (about
 * q elements).  Runs longer than q are reduced in chunks of q, rows (a matrix along its
 * second dimension) in chunks of qa columns, each chunk's state merged on the host in
 * chunk order, and
 * every element lies at the same address modulo 16 as in one piece (the kernels' 16-byte
 * loads start where a run's alignment allows), so a result has the same bits for any
 * number and order of devices.
 */
#define GPUDOT_MAX_SHARDS 64
/* The chunk length q of new arrays (elements): runs up to q are reduced whole, by a grid
 * that fills one GPU (a 2^22 run splits into 264 blocks of 15.9K elements on an H100). */
#define GPUDOT_SHARD_CHUNK ((int64_t)1 << 22)
typedef struct {
    int dev;                /* CUDA ordinal */
    void *d;                /* kn x an elements; NULL where the shard is empty */
    void *mem;              /* the allocation d lies in (see gpudot_cuda_shards_alloc) */
    int64_t k0, kn, a0, an; /* rows k0 .. k0+kn of columns a0 .. a0+an */
} gpudot_shard;
typedef struct {
    int n;
    int64_t k, a, q, qa;
    gpudot_shard s[GPUDOT_MAX_SHARDS];
} gpudot_sharded;

/* Lays out k x a elements over devs[0 .. nd) (nd <= GPUDOT_MAX_SHARDS), by chunks of q
 * where `vector`, else by chunks of qa columns; no memory yet. */
void gpudot_shard_layout(gpudot_sharded *L, int64_t k, int64_t a, int vector, int64_t q,
                         const int *devs, int nd);
/* Whether two layouts put the same elements on the same devices. */
int gpudot_same_layout(const gpudot_sharded *A, const gpudot_sharded *B);

/*
 * A batch of reductions in canonical form (named for the dot product, the first op).  The output is
 * an nb x na array; output (i, a) is the sum over k < nk of conj(x(i, k, a)) * y(i, k, a).  Each
 * operand is stored contiguously (column-major) as a bx x kx x ax array whose extents are either
 * the full extent or 1 (broadcast): bx in {1, nb}, kx in {1, nk}, ax in {1, na}.  Complex operands
 * are interleaved (re, im) pairs.  Both operands have the same element type; the output has that
 * type and is complex (interleaved) when either operand is, except for norms (real).
 * Norms read x only: y and its extents are ignored.
 */
typedef struct {
    gpudot_op op;
    int pk;   /* norms: the kind of p, GD_P_* in gpudot_math.h */
    double p; /* norms: the exponent for GD_P_POS and GD_P_NEG */
    gpudot_type type;
    int cx, cy;        /* operand is complex */
    const void *x, *y; /* host pointers */
    int64_t nb, nk, na;
    int64_t bx, kx, ax;
    int64_t by, ky, ay;
    gpudot_accum accum;
    void *out;                     /* host, nb * na elements */
    int x_dev, y_dev;              /* CUDA engine only: x / y are device pointers (resident data) */
    const gpudot_sharded *xs, *ys; /* CUDA engine only: x / y on several GPUs (x, y NULL) */
    int fast;                      /* engine-internal, 0 from callers: see gpudot_fast_variant */
    int out_other; /* "exact" only: out is of the other class than type (rounded once there) */
} gpudot_dot_req;

/* Called between chunks of long operations; non-zero stops the call with INTERRUPTED. */
typedef int (*gpudot_poll_fn)(void);

/* Shared by both engines: extents are consistent and every count is non-negative. */
gpudot_status gpudot_check_req(const gpudot_dot_req *r);

/* ---- CPU engine (always built) ---- */
gpudot_status gpudot_cpu_dot(const gpudot_dot_req *r, gpudot_poll_fn poll);    /* any op */
gpudot_status gpudot_cpu_reduce(const gpudot_dot_req *r, gpudot_poll_fn poll); /* norm, cos */

/* ---- CUDA engine (stubs answering NO_DEVICE when built without nvcc) ---- */
typedef struct {
    int built_with_cuda;
    int available; /* a usable device was found */
    int device;    /* ordinal in use */
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t mem_total, mem_free;
    int driver_version, runtime_version; /* as CUDA encodes them: 1000 * major + 10 * minor */
    size_t staging_bytes;                /* persistent device memory held by the engine */
} gpudot_cuda_info_t;

int gpudot_cuda_available(void); /* probes once, then cached */
gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info);
gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll);
int gpudot_cuda_holds_memory(void);       /* persistent buffers are allocated */
void gpudot_cuda_release(void);           /* frees every persistent buffer */
const char *gpudot_cuda_last_error(void); /* text of the last CUDA failure */
/* Device-resident operands: r->x, r->y and r->out are device pointers; one launch, no
 * chunking, asynchronous (gpudot_cuda_sync or a copy waits for it).  Runs the fast variant
 * only: a NaN among 2-norm or cosine outputs may mean "rerun scaled" (gpudot_cuda_dot does
 * that); for benchmarks and the kernel ladder. */
gpudot_status gpudot_cuda_reduce_dev(const gpudot_dot_req *r);
gpudot_status gpudot_cuda_malloc(void **d, size_t bytes);
/* The reduction ladder (gdot's "kernel" option): one real dot product (nb = na = 1) with
 * kernel 0 atomic, 1 shared, 2 shuffle, 3 vector, 4 fused (the production kernel); accum
 * native or double.  Host operands are copied with cudaMalloc + cudaMemcpy per call.  *ms:
 * the kernels' time between CUDA events. */
gpudot_status gpudot_cuda_ladder(const gpudot_dot_req *r, int kernel, double *ms);
void gpudot_cuda_free(void *d);
gpudot_status gpudot_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
gpudot_status gpudot_cuda_sync(void);
/* After a sticky CUDA error (a faulting kernel) the context is unusable until the process
 * ends: every GPU request fails with GPUDOT_CUDA and a message that says so, and
 * gpudot_cuda_available () answers 0. */
int gpudot_cuda_lost(void);
/* Arrays on several GPUs (gpudot_sharded): the devices visible; memory for every shard (all
 * or nothing: a failure frees what was allocated); its release; copies of the whole array
 * from or to host memory, the shards' copies running at once.  (A shard whose device was
 * lost is not freed: its context is gone.) */
int gpudot_cuda_device_count(void);
/* dst[i] = src[idx[i]] for i < n (0-based element indices, on the host), elements of es
 * bytes (4, 8 or 16), src and dst device memory of the primary device (garray indexing). */
gpudot_status gpudot_cuda_gather(void *dst, const void *src, const int64_t *idx, int64_t n,
                                 size_t es);
/* max (is_min: min) along the middle dimension of pre x n x post elements of x (device
 * memory of the primary device, single or double, complex interleaved), by Octave's rules
 * (NaN skipped unless alone, ties to the lowest index, complex by magnitude then argument):
 * pre * post values (complex where x is) and 1-based indices into host memory. */
gpudot_status gpudot_cuda_minmax(const void *x, int single, int cplx, int64_t pre, int64_t n,
                                 int64_t post, int is_min, void *val, double *idx);
/* The best k of each run of x (pre x n x post real elements, device memory of the primary
 * device): maxk (is_min: mink), by value, NaN after every number, equal values by the lowest
 * index (the first k of a stable sort).  min(k, n) values a run and 1-based indices into host
 * memory, laid out pre x min(k, n) x post.  k <= 256 (else BAD_OPTION: the host selects). */
gpudot_status gpudot_cuda_topk(const void *x, int single, int64_t pre, int64_t n, int64_t post,
                               int64_t k, int is_min, void *val, double *idx);
/* The same on host memory, any k (cpu/gpudot_topk.c). */
gpudot_status gpudot_topk_host(const void *x, int single, int64_t pre, int64_t n, int64_t post,
                               int64_t k, int is_min, void *val, double *idx);
/* Similarity search (cuda/search.cu): the m queries q (dim x m, host, D's class) against the
 * n columns of D, in parts on devices (a garray on one GPU: one part): dot products or
 * cosines in the accumulator of `accum` (native or double), rounded to D's class.  k >= 0:
 * the best min(k, n) scores of each query, largest first, NaN last, ties to the lowest index,
 * into scores and idx (1-based), min(k, n) x m; k = -1: every score, n x m, into scores.
 * k <= 256; k = -1 with dscores: every score into dscores instead (device memory of the
 * primary device).  unsafe (out): a squared norm overflowed or lost precision in the
 * accumulator, the cosines must be computed scaled. */
typedef struct {
    int dev;       /* CUDA ordinal; -1: the primary device (a garray on one GPU) */
    const void *d; /* dim x n of D's columns, device memory of dev */
    int64_t j0, n; /* columns j0 .. j0 + n of D */
} gpudot_search_part;
typedef struct {
    const void *q;
    int single, cosine;
    gpudot_accum accum;
    int64_t dim, m, n, k;
    int nparts;
    gpudot_search_part parts[GPUDOT_MAX_SHARDS];
    void *scores;
    double *idx;
    void *dscores;
    int unsafe;
} gpudot_search_req;
gpudot_status gpudot_cuda_search(gpudot_search_req *r);
/* The same on the CPU engine: one part, its d host memory (cpu/gpudot_search.c) */
gpudot_status gpudot_search_host(gpudot_search_req *r);
/* The last step of both: per query, W candidates (values cv of D's class, 0-based indices
 * ci; query q's at q W, in index order) to the best k in r->scores and r->idx. */
gpudot_status gpudot_search_merge(gpudot_search_req *r, const void *cv, const int64_t *ci,
                                  int64_t W);
gpudot_status gpudot_cuda_shards_alloc(gpudot_sharded *L, size_t es);
void gpudot_cuda_shards_free(gpudot_sharded *L);
gpudot_status gpudot_cuda_shards_copy(const gpudot_sharded *L, void *host, size_t es,
                                      int to_device);
#ifdef __cplusplus
}
#endif

#endif
