/*
 * Exact sums of products (the coming "exact" mode's CPU core), in two stages:
 *  - fast: a product whose TwoProduct p + e is exact (|p| from 2^-968 to the largest
 *    double: every product of singles, and of doubles of ordinary range) adds p and e to
 *    chunks, base-2^32 digits of the doubles' whole range (2^-1074 ..) in int64 (xsum's
 *    small accumulator): a term's 53 bits go to two chunks by its exponent, no branch;
 *  - whole: any other product (past the double range, underflowing, zeros, Inf, NaN) as
 *    its exact 106-bit m 2^e into a fixed-point accumulator wide enough for every product
 *    of two doubles and 2^63 of them (2^-2272 .. 2^2208), base-2^32 digits in int64 limbs.
 * Digits are normalised (carries passed up) before they could overflow.  The chunks fold
 * into the limbs, and the sum is rounded once (to nearest, ties to even) into double or
 * single, subnormals and overflow included.  The value does not depend on the order of
 * the additions, so neither does the result.
 */
#include "gpudot_exact.h"
#include "gpudot_exact_top.h"

#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define EMIN GD_EXACT_EMIN /* limb 0's lowest bit: 2^-2272, below every product's m 2^e */
#define CMIN (-1074)       /* chunk 0's lowest bit: the smallest subnormal */

void gd_exact_init(gd_exact *a)
{
    memset(a, 0, sizeof *a);
}

/* carries up the chunks: each but the top in [0, 2^32) */
static void chunks_normalise(gd_exact *a)
{
    for (int i = 0; i < GD_EXACT_CHUNKS - 1; i++) {
        int64_t c = a->chunk[i] >> 32; /* (floor) */
        a->chunk[i] -= c * ((int64_t)1 << 32);
        a->chunk[i + 1] += c;
    }
    a->cpending = 0;
}

/* a finite double v into the chunks: its m 2^(pos + CMIN), m < 2^53, as the low 32 bits of
 * m 2^s to chunk pos / 32 and the rest to the next (s = pos % 32), with v's sign */
static inline void chunk_add(gd_exact *a, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    uint64_t E = (b >> 52) & 0x7ff, m = b & (((uint64_t)1 << 52) - 1);
    int64_t sg = -(int64_t)(b >> 63); /* 0 or -1 */
    m |= (uint64_t)(E != 0) << 52;    /* (a subnormal: no hidden bit, exponent as E = 1) */
    unsigned pos = (unsigned)(E ? E : 1) - 1, i = pos >> 5, s = pos & 31;
    int64_t lo = (int64_t)((m << s) & 0xffffffffu), hi = (int64_t)(m >> (32 - s));
    a->chunk[i] += (lo ^ sg) - sg;
    a->chunk[i + 1] += (hi ^ sg) - sg;
}

/* terms more doubles in the chunks: their carries once they could overflow */
static inline void chunks_pending(gd_exact *a, int terms)
{
    if ((a->cpending += terms) >= GD_EXACT_CHUNK_RENORM)
        chunks_normalise(a);
}

/* a product's count, once its terms (terms of them) are in the chunks */
static inline void chunks_counted(gd_exact *a, int terms)
{
    a->not_negzero = 1;
    a->count++;
    chunks_pending(a, terms);
}

/* a zero product p (x or y 0, the other finite): nothing to add but its sign's part in an
 * exact 0's (the whole-range path took it: 5-7 ns a product where the bulk loops' lanes
 * are not built or a block stops them) */
static inline void zero_prod(gd_exact *a, double p)
{
    a->count++;
    if (!signbit(p))
        a->not_negzero = 1;
}

/* x * y where TwoProduct is exact (see above), else by the whole-range path */
static inline void add_prod_fast(gd_exact *a, double x, double y)
{
    double p = x * y, ap = fabs(p);
    if (ap >= 0x1p-968 && ap <= 0x1.fffffffffffffp1023) {
        chunk_add(a, p);
        chunk_add(a, fma(x, y, -p));
        chunks_counted(a, 2);
    } else if (p == 0 && (x == 0 || y == 0)) { /* (not a product that underflowed) */
        zero_prod(a, p);
    } else {
        gd_exact_add_prod_wide(a, x, y);
    }
}

/* v * 2^e (v < 2^128, EMIN <= e, e + 160 at most the top limb's end), with its sign, into
 * the limbs */
static void add_scaled(gd_exact *a, unsigned __int128 v, int e, int neg)
{
    int off = e - EMIN, i = off / 32, s = off % 32;
    unsigned __int128 lo = v << s;
    uint64_t hi = s ? (uint64_t)(v >> (128 - s)) : 0;
    uint64_t d[5] = {(uint64_t)lo & 0xffffffffu, (uint64_t)(lo >> 32) & 0xffffffffu,
                     (uint64_t)(lo >> 64) & 0xffffffffu, (uint64_t)(lo >> 96), hi};
    for (int j = 0; j < 5; j++)
        a->limb[i + j] += neg ? -(int64_t)d[j] : (int64_t)d[j];
    if (++a->pending >= GD_EXACT_RENORM)
        gd_exact_normalise(a);
}

/* x as m * 2^e, m < 2^53 a whole number (x finite and nonzero) */
static uint64_t split(double x, int *e)
{
    int ex;
    double f = frexp(fabs(x), &ex); /* |x| = f 2^ex, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);
    *e = ex - 53;
    /* a subnormal's m has low zero bits; any m < 2^53 times 2^e is exact */
    return m;
}

void gd_exact_add_prod(gd_exact *a, double x, double y)
{
    add_prod_fast(a, x, y);
}

/* a product of singles is exact in double: one term (its e is 0) */
static inline void add_prod_fast_f(gd_exact *a, float x, float y)
{
    double p = (double)x * (double)y, ap = fabs(p);
    if (ap > 0 && ap <= 0x1.fffffffffffffp1023) {
        chunk_add(a, p);
        chunks_counted(a, 1);
    } else if (p == 0) { /* (a product of singles is 0 only where x or y is) */
        zero_prod(a, p);
    } else {
        gd_exact_add_prod_wide(a, x, y);
    }
}

/* The bulk loops' first stage on AVX-512: XL lanes.  A block of XL products whose
 * TwoProduct p + e is exact and below 2^1000 goes into two windows of exact accumulators a
 * lane (lanes_f, lanes_d) where its terms fit them; else singles' products go to bins by
 * their exponent (bin_put), and doubles' p and e to the lanes' own chunk sets (wide_put).
 * A block with any other product goes one product at a time.  An exact sum is the same by
 * any path, so the CPU picks one: on the 2-core VM (AMD EPYC), one thread, random data 0.4
 * ns a double product and 0.2 a single one, over the exponent range 1.35 and 0.52, against
 * the chunks' 5.6-6 and 3.1.  CPUs with AVX2 alone run the windows in 4 lanes (lanes4_d,
 * lanes4_f); older ones take every product one at a time. */
#define XL 8
#define XRUN ((int64_t)1 << 22)
#define EXACT_V4 __attribute__((target("arch=x86-64-v4")))

/* v into the chunks, counted towards their carries (an expansion's spill) */
static inline void chunk_spill(gd_exact *a, double v)
{
    chunk_add(a, v);
    chunks_pending(a, 1);
}

typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8i __attribute__((vector_size(64)));

/* the lanes of v that are not 0 into the chunks (v by value: the accumulators it empties
 * stay in registers, where a pointer to them kept them on the stack) */
EXACT_V4 static void spill_lanes(gd_exact *a, v8d v)
{
    double t[XL];
    memcpy(t, &v, sizeof t);
    for (int l = 0; l < XL; l++)
        if (t[l] != 0)
            chunk_spill(a, t[l]);
    /* GCC emits no vzeroupper where a vector comes in, and calls count on one: the pool's
     * threads kept the AVX-512 state dirty, and the SSE loops they ran next took 3x as long
     * (gcosine of 10^7 singles in "double" after an exact call: 13.2 ms, 4.2 before) */
    _mm256_zeroupper();
}

/* whether some lane of v is negative: one mask instruction where an OR
 * across the lanes took seven (10^7 products, one thread on the 2-core VM: doubles 26.7 ->
 * 24.5 ms, singles 9.2 -> 7.2) */
EXACT_V4 static inline int any_neg(v8i v)
{
    return _mm512_movepi64_mask((__m512i)v) != 0;
}

/* The lanes' own chunk sets (c[l]: lane l's), so that a block's 8 terms add to 8 places
 * whatever their exponents: terms that no window holds go there, their chunks
 * computed for the 8 lanes at once (chunk_add's arithmetic), then added one by one.  A
 * block adds below 2^53 to a chunk (a term's high part 2^52, a smaller term's low one
 * 2^32), so WIDE_BLOCKS blocks keep them below 2^62 before they fold into a's chunks. */
#define WIDE_BLOCKS 512
typedef int64_t lane_sets[XL][GD_EXACT_CHUNKS];

/* The one-by-one adds come a few vectors late: a term vector's chunk numbers (offsets
 * into the sets) and digits are stored into a ring of WIDE_RING slots, and the adds read
 * the slot stored WIDE_RING vectors before, from L1, where taking each lane out of the
 * vector just computed held them up.  One thread on the 2-core VM, products of doubles over
 * 2^+-900, their two terms' adds: 1.85 -> 1.1 ns a product (a ring of 2 vectors: 3.3, 4:
 * 1.15, 16: 1.1). */
#define WIDE_RING 8
typedef struct {
    v8i off, lo, hi;
} wide_slot;
typedef struct {
    wide_slot s[WIDE_RING];
    int64_t k; /* vectors in; the last min (k, WIDE_RING) wait in the ring */
} wide_ring;

/* a slot's 8 terms into the sets */
__attribute__((always_inline)) static inline void wide_drain(int64_t *c, const wide_slot *w)
{
    const int64_t *off = (const int64_t *)&w->off, *lo = (const int64_t *)&w->lo,
                  *hi = (const int64_t *)&w->hi;
    for (int l = 0; l < XL; l++) {
        c[off[l]] += lo[l];
        c[off[l] + 1] += hi[l];
    }
}

/* v's terms into the ring (lane l's chunk number as an offset into set l), the slot they
 * take added to the sets first */
EXACT_V4 __attribute__((always_inline)) static inline void wide_put(lane_sets c, wide_ring *r,
                                                                    v8d v)
{
    const v8i set = {0,
                     GD_EXACT_CHUNKS,
                     2 * GD_EXACT_CHUNKS,
                     3 * GD_EXACT_CHUNKS,
                     4 * GD_EXACT_CHUNKS,
                     5 * GD_EXACT_CHUNKS,
                     6 * GD_EXACT_CHUNKS,
                     7 * GD_EXACT_CHUNKS};
    wide_slot *w = &r->s[r->k & (WIDE_RING - 1)];
    if (r->k >= WIDE_RING)
        wide_drain(&c[0][0], w);
    v8i b = (v8i)v, E = (b >> 52) & 0x7ff;
    v8i m = (b & (((int64_t)1 << 52) - 1)) | ((E != 0) & ((int64_t)1 << 52));
    v8i pos = E - 1 - (E == 0), s = pos & 31, sg = b >> 63;
    v8i lo = (m << s) & 0xffffffff, hi = m >> (32 - s);
    w->off = (pos >> 5) + set;
    w->lo = (lo ^ sg) - sg, w->hi = (hi ^ sg) - sg;
    r->k++;
}

/* the vectors still in the ring into the sets */
static void wide_flush(lane_sets c, wide_ring *r)
{
    for (int64_t j = r->k > WIDE_RING ? r->k - WIDE_RING : 0; j < r->k; j++)
        wide_drain(&c[0][0], &r->s[j & (WIDE_RING - 1)]);
    r->k = 0;
}

/* the lane sets into a's chunks (each set's digits carried up first, so that each adds
 * below 2^32 but the top), and cleared */
static void lanes_fold(gd_exact *a, lane_sets c)
{
    for (int l = 0; l < XL; l++) {
        int64_t carry = 0;
        for (int i = 0; i < GD_EXACT_CHUNKS - 1; i++) {
            int64_t v = c[l][i] + carry;
            carry = v >> 32; /* (floor) */
            a->chunk[i] += v - carry * ((int64_t)1 << 32);
            c[l][i] = 0;
        }
        a->chunk[GD_EXACT_CHUNKS - 1] += c[l][GD_EXACT_CHUNKS - 1] + carry;
        c[l][GD_EXACT_CHUNKS - 1] = 0;
    }
    chunks_pending(a, XL);
}

/* whether a block's product lies outside the fast range, from their exponent fields ep: |p|
 * from the exponent field plo on (2^-968 for doubles, whose TwoProduct's error is then
 * exact; any normal p for singles'), below 2^1000 (no TwoSum of a lane's XRUN overflows).
 * Zeros, Inf and NaN lie outside; so does no factor the fused multiply-add needs. */
EXACT_V4 static inline int block_out(v8i ep, int64_t plo)
{
    return any_neg((ep - plo) | (2023 - ep));
}

/* Doubles: a block's zero products (z: their lanes; x y exactly 0, not underflowed) add
 * nothing, so they take the exponent field `in` (one the block's others can go with) and
 * the block stays in the lanes; a block of -0 products alone is counted (*negz), since the
 * sign of an exact zero sum is -0 only where every product is.  Before, a zero left the
 * lanes for its block: gdot of 10^7 doubles half 0 in "exact", 2 threads on the 2-core
 * VM: 67 -> 3.0-3.6 ms.  (Singles replace theirs in lanes_f's main path.) */
EXACT_V4 static inline v8i zeros_in(v8i ep, v8i z, v8d p, int64_t in, int64_t *negz)
{
    *negz += (_mm512_movepi64_mask((__m512i)z) & _mm512_movepi64_mask((__m512i)p)) == 0xff;
    return (ep & ~z) | (in & z);
}

/* the lanes whose product of doubles is exactly 0: x or y 0 (the other finite, or p is
 * NaN), not a product that underflowed */
EXACT_V4 static inline v8i zero_prods(v8d x, v8d y, v8d p)
{
    return (v8i)(p == 0) & ((v8i)(x == 0) | (v8i)(y == 0));
}

/* XL elements from x (doubles, or singles widened: a single's product is exact in double) */
EXACT_V4 static inline v8d load_d(const double *x)
{
    return (v8d)_mm512_loadu_pd(x);
}
EXACT_V4 static inline v8d load_f(const float *x)
{
    return (v8d)_mm512_cvtps_pd(_mm256_loadu_ps(x));
}

/* the largest lane of v (the first block's, which sets the windows) */
EXACT_V4 static int64_t max_lane(v8i v)
{
    int64_t mx = v[0];
    for (int l = 1; l < XL; l++)
        mx = v[l] > mx ? v[l] : mx;
    return mx;
}

/* Singles' blocks outside the window go to bins, one a biased exponent of the product (a
 * double: a product of singles has 48 bits, so its significand's low 5 bits are 0): bin E
 * adds the significand over 2^5 with the product's sign, one add a term where the lane
 * sets take two, through a ring as theirs.  2^15 such adds (WIN_BLOCKS blocks) stay below
 * 2^63, then the bins fold into the limbs.  One thread on the 2-core VM, products over
 * 2^+-80: 1.2 ns a product (4 expansion slots a lane, their spills to the sets) -> 0.52;
 * of two exponents 2^40 apart (which the slots held) 0.70 -> 0.55. */
#define BIN_RING 8
#define NBINS 2048
typedef struct {
    v8i e, v;
} bin_slot;
typedef struct {
    bin_slot s[BIN_RING];
    int64_t k; /* vectors in; the last min (k, BIN_RING) wait in the ring */
} bin_ring;

__attribute__((always_inline)) static inline void bin_drain(int64_t *bins, const bin_slot *w)
{
    const int64_t *e = (const int64_t *)&w->e, *v = (const int64_t *)&w->v;
    for (int l = 0; l < XL; l++)
        bins[e[l]] += v[l];
}

/* a block's products p (products of singles: normal doubles, or zeros) into the ring */
EXACT_V4 __attribute__((always_inline)) static inline void bin_put(int64_t *bins, bin_ring *r,
                                                                   v8d p)
{
    bin_slot *w = &r->s[r->k & (BIN_RING - 1)];
    if (r->k >= BIN_RING)
        bin_drain(bins, w);
    v8i b = (v8i)p, sg = b >> 63, E = (b >> 52) & 0x7ff; /* (E 0: a zero product) */
    v8i m = ((b & (((int64_t)1 << 52) - 1)) | ((E != 0) & ((int64_t)1 << 52))) >> 5;
    w->e = E;
    w->v = (m ^ sg) - sg;
    r->k++;
}

static void add_signed(gd_exact *a, int64_t v, int off);

/* the ring, then the bins, into the limbs (bin E: its sum times 2^(E - 1070)), cleared */
static void bins_fold(gd_exact *a, int64_t *bins, bin_ring *r)
{
    for (int64_t j = r->k > BIN_RING ? r->k - BIN_RING : 0; j < r->k; j++)
        bin_drain(bins, &r->s[j & (BIN_RING - 1)]);
    r->k = 0;
    for (int e = 0; e < NBINS; e++)
        if (bins[e]) {
            add_signed(a, bins[e], e - 1070 - EMIN);
            bins[e] = 0;
        }
}

/* 2^k, k within the normal doubles' exponents, from its bits (no call: ldexp's cost the
 * loops their registers) */
static inline double pow2s(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The windows of the lanes below, from a largest product's exponent field (top): set by
 * the first block's, and again at a run's end by the largest of its blocks out of the
 * window where those were a sixteenth of the run or more and that product lies outside it,
 * so that the window follows data that grow or shrink past it.  gdot of 10^7 singles
 * 2^(-120 .. 120) in order, 2 threads on the 2-core VM: 2.30 -> 1.27 ms; doubles
 * 2^(-1000 .. 1000): 8.70 -> 3.6-5.3.  T: 2^6 above the largest product (the windows: the
 * comments of lanes_f and lanes_d); each returns s1, 2^(T + 12), and doubles' t1 is s1
 * 2^-54.  The AVX2 lanes take the same windows. */
static inline double window_f(int64_t top, int64_t *lo, int64_t *hi)
{
    int t = (int)top - 1023 + 7;
    *hi = t + 1022, *lo = t + 989; /* (within the fast range: products of singles) */
    return pow2s(t + 12);
}
static inline double window_d(int64_t top, int64_t *lo, int64_t *hi)
{
    int t = (int)top - 1023 + 7;
    *lo = t + 993 > 55 ? t + 993 : 55, *hi = t + 1022 < 2023 ? t + 1022 : 2023;
    return pow2s(t + 12);
}

/* singles: e0 with the fields of its zero products (0: x or y is 0, a product of singles
 * is 0 nowhere else) set to in */
EXACT_V4 static inline v8i zeros_at(v8i e0, int64_t in)
{
    return (v8i)_mm512_mask_mov_epi64(
        (__m512i)e0, _mm512_testn_epi64_mask((__m512i)e0, (__m512i)e0), _mm512_set1_epi64(in));
}

/* Singles' window (Rump, Ogita and Oishi's ExtractScalar): a block whose products p all lie
 * in [2^(T - 34), 2^T) goes into two accumulators a lane: q1 = (s1 + p) - s1 (s1 =
 * 2^(T + 12)), on the grid 2^(T - 41), and the remainder p - q1, at most 2^(T - 41) and on
 * p's grid 2^(T - 81) (a product of singles has 48 bits); both are exact, and so are the
 * accumulators' sums of at most 2^12 of them (2^53 units of their grids at most), which go
 * to the chunks every WIN_BLOCKS blocks.  Any other block goes to the bins (bin_put), with
 * no exit from the loop.  T: 2^6 above the first block's largest product.  Four additions a
 * product where an expansion's TwoSums took 24.  gdot of 10^7 random singles, one thread on
 * the 2-core VM: 2.8 ms (expansions alone 13.4). */
#define WIN_BLOCKS 4096
EXACT_V4 static int64_t lanes_f(gd_exact *a, const float *x, const float *y, int64_t m)
{
    v8d s1 = {0};
    int64_t i = 0, elo = 1023, ehi = -1; /* (elo: zeros' exponent field before a window) */
    v8i nz = {0};                        /* some lane not 0 where some product was not -0 */
    int stop = 0;
    int64_t bins[NBINS]; /* (cleared at the first wide block) */
    int bins_clear = 0;
    bin_ring ring;
    ring.k = 0;
    while (!stop && i + XL <= m) {
        /* at most WIN_BLOCKS blocks with no call in the loop, so that the window's sums stay
         * in registers (a call spills them: 7.9 -> 5.7 ms for 10^7 products) */
        v8d w1 = {0}, w2 = {0};
        int64_t end = m - i > WIN_BLOCKS * XL ? i + WIN_BLOCKS * XL : m, i0 = i, nout = 0;
        v8i omax = {0}; /* the largest exponent field of the blocks out of the window */
        for (; i + XL <= end; i += XL) {
            v8d p = load_f(x + i) * load_f(y + i);
            v8i e0 = ((v8i)p >> 52) & 0x7ff;
            /* a zero product (x or y 0: a product of singles is 0 nowhere else) adds
             * nothing and takes the window's bottom; every block marks whether a product was
             * not -0, for an exact 0's sign.  Three instructions a block: 10^7 products half
             * 0, one thread, 0.52 -> 0.24 ns a product where zeros were taken out of the
             * loop's main path (random data 0.21 -> 0.23) */
            nz |= (v8i)p ^ INT64_MIN;
            v8i ep = zeros_at(e0, elo);
            if (ehi < 0) { /* the window: T = the largest's unbiased exponent + 1 + 6 */
                if (block_out(ep, 1)) {
                    stop = 1;
                    break;
                }
                if (max_lane(e0) == 0)
                    continue; /* (zeros alone: no window yet) */
                s1 = (v8d){0} + window_f(max_lane(e0), &elo, &ehi);
                ep = zeros_at(e0, elo);
            }
            if (any_neg((ep - elo) | (ehi - ep))) {
                if (block_out(ep, 1)) { /* (Inf, NaN) */
                    stop = 1;
                    break;
                }
                if (!bins_clear) {
                    memset(bins, 0, sizeof bins);
                    bins_clear = 1;
                }
                bin_put(bins, &ring, p);
                omax = (v8i)_mm512_max_epi64((__m512i)ep, (__m512i)omax), nout++;
                continue;
            }
            v8d q1 = (s1 + p) - s1;
            w1 += q1, w2 += p - q1;
        }
        spill_lanes(a, w1), spill_lanes(a, w2);
        if (ring.k) /* (blocks went to the bins since the last fold) */
            bins_fold(a, bins, &ring);
        if (nout && nout * 16 >= (i - i0) / XL && (max_lane(omax) > ehi || max_lane(omax) < elo))
            s1 = (v8d){0} + window_f(max_lane(omax), &elo, &ehi);
    }
    if (i > 0 && _mm512_test_epi64_mask((__m512i)nz, (__m512i)nz)) /* (a stopped block's
                                                                    * mark: Inf or NaN) */
        a->not_negzero = 1;
    a->count += i;
    _mm256_zeroupper(); /* (as spill_lanes') */
    return i;
}

/* Doubles' window: as lanes_f's for a product's p in [2^(T - 30), 2^T), its remainder
 * p - q1 on p's grid 2^(T - 82); and for its rounding error e (TwoProduct's, by a fused
 * multiply-add): |e| <= 2^(T - 54) and e lies on the grid of x y's bits, 2^(T - 136) (x y
 * >= 2^(T - 30) has 106 bits at most), so g1 = (t1 + e) - t1 (t1 = 2^(T - 42)), on the
 * grid 2^(T - 95), and e - g1 <= 2^(T - 95) sum 2^12 times within 2^53 units of their
 * grids.  Any other block goes to the lane sets: one thread on the 2-core VM, products
 * over 2^+-900 1.35 ns each (2.4 before the ring, 8.3 in 3 expansion slots, which spilled
 * nearly every block).  A block in the window is
 * in the fast range (the window clamped to it), so only the others test it.  gdot of 10^7
 * random doubles, one thread on the 2-core VM: 4.2-5.8 ms (the slots alone 28). */
EXACT_V4 static int64_t lanes_d(gd_exact *a, const double *x, const double *y, int64_t m)
{
    v8d s1 = {0}, t1 = {0};
    int64_t i = 0, plo = 0, phi = -1, negz = 0;
    int stop = 0, nwide = 0;
    lane_sets c; /* (cleared at the first wide block, as lanes_f's bins) */
    int sets_clear = 0;
    wide_ring ring;
    ring.k = 0;
    while (!stop && i + XL <= m) {
        /* at most WIN_BLOCKS blocks with no call in the loop (as lanes_f's) */
        v8d w1 = {0}, w2 = {0}, u1 = {0}, u2 = {0};
        int64_t end = m - i > WIN_BLOCKS * XL ? i + WIN_BLOCKS * XL : m, i0 = i;
        v8i omax = {0}; /* (as lanes_f's) */
        for (; i + XL <= end; i += XL) {
            v8d xv = load_d(x + i), yv = load_d(y + i);
            __asm__(""
                    : "+v"(xv), "+v"(yv)); /* (one load each: GCC folded each into both
                                            * its uses, 4.2-5.8 -> 6.6-7.5 ms) */
            v8d p = xv * yv;
            v8i ep = ((v8i)p >> 52) & 0x7ff;
            if (phi < 0) { /* the windows, from this first block */
                if (block_out(zeros_in(ep, zero_prods(xv, yv, p), p, 1023, &negz), 55)) {
                    stop = 1;
                    break;
                }
                if (max_lane(ep) == 0)
                    continue; /* (zeros alone: no window yet) */
                s1 = (v8d){0} + window_d(max_lane(ep), &plo, &phi), t1 = s1 * 0x1p-54;
            }
            /* TwoProduct's error x y - p, exact wherever |p| >= 2^-968 (no bit of it below
             * the subnormals), by one fused multiply-add (an explicit one: the build's
             * -ffp-contract=off leaves it) */
            v8d e = (v8d)_mm512_fmsub_pd((__m512d)xv, (__m512d)yv, (__m512d)p);
            if (any_neg((ep - plo) | (phi - ep))) {
                if (block_out(ep, 55)) { /* zeros, Inf, NaN, past the range */
                    ep = zeros_in(ep, zero_prods(xv, yv, p), p, plo, &negz);
                    if (block_out(ep, 55)) {
                        stop = 1;
                        break;
                    }
                }
                if (any_neg((ep - plo) | (phi - ep))) {
                    if (!sets_clear) {
                        memset(c, 0, sizeof c);
                        sets_clear = 1;
                    }
                    wide_put(c, &ring, p);
                    wide_put(c, &ring, e);
                    omax = (v8i)_mm512_max_epi64((__m512i)ep, (__m512i)omax);
                    if (++nwide == WIDE_BLOCKS) {
                        i += XL;
                        break;
                    }
                    continue;
                }
            }
            v8d q1 = (s1 + p) - s1, g1 = (t1 + e) - t1;
            w1 += q1, w2 += p - q1, u1 += g1, u2 += e - g1;
        }
        spill_lanes(a, w1), spill_lanes(a, w2), spill_lanes(a, u1), spill_lanes(a, u2);
        if (nwide && nwide * 16 >= (i - i0) / XL && (max_lane(omax) > phi || max_lane(omax) < plo))
            s1 = (v8d){0} + window_d(max_lane(omax), &plo, &phi), t1 = s1 * 0x1p-54;
        if (nwide)
            wide_flush(c, &ring), lanes_fold(a, c), nwide = 0;
    }
    if (i > negz * XL) /* (some product not -0) */
        a->not_negzero = 1;
    a->count += i;
    _mm256_zeroupper(); /* (as spill_lanes') */
    return i;
}

/* CPUs with AVX2 and FMA but not AVX-512 (x86-64-v3): the windows of lanes_d and lanes_f
 * in 4 lanes of 256 bits, zero products taken in; any other block (outside the window,
 * past the fast range) stops them, the one-at-a-time path takes it, and the next entry
 * sets the window again from its first block.  No chunk sets or bins: data of wide range
 * goes one product at a time, as before. */
#define EXACT_V3 __attribute__((target("arch=x86-64-v3")))
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));

EXACT_V3 static inline int any_neg4(v4i v)
{
    return _mm256_movemask_pd((__m256d)v) != 0;
}

EXACT_V3 static inline int64_t max_lane4(v4i v)
{
    int64_t mx = v[0];
    for (int l = 1; l < 4; l++)
        mx = v[l] > mx ? v[l] : mx;
    return mx;
}

/* the lanes of v that are not 0 into the chunks (as spill_lanes) */
EXACT_V3 static void spill4(gd_exact *a, v4d v)
{
    double t[4];
    memcpy(t, &v, sizeof t);
    for (int l = 0; l < 4; l++)
        if (t[l] != 0)
            chunk_spill(a, t[l]);
    _mm256_zeroupper(); /* (as spill_lanes') */
}

EXACT_V3 static int64_t lanes4_d(gd_exact *a, const double *x, const double *y, int64_t m)
{
    v4d s1 = {0}, t1 = {0};
    v4i nz = {0}; /* (as lanes_f's) */
    int64_t i = 0, plo = 0, phi = -1;
    int stop = 0;
    while (!stop && i + 4 <= m) {
        v4d w1 = {0}, w2 = {0}, u1 = {0}, u2 = {0};
        int64_t end = m - i > WIN_BLOCKS * 4 ? i + WIN_BLOCKS * 4 : m;
        for (; i + 4 <= end; i += 4) {
            v4d xv = (v4d)_mm256_loadu_pd(x + i), yv = (v4d)_mm256_loadu_pd(y + i);
            v4d p = xv * yv;
            v4i ep = ((v4i)p >> 52) & 0x7ff;
            v4i z = (v4i)(p == 0) & ((v4i)(xv == 0) | (v4i)(yv == 0)); /* (not underflowed) */
            if (phi < 0) { /* the windows, from this first block (lanes_d's) */
                v4i e1 = (ep & ~z) | (1023 & z);
                if (any_neg4((e1 - 55) | (2023 - e1))) {
                    stop = 1;
                    break;
                }
                int64_t top = max_lane4(ep);
                if (top == 0) { /* (zeros alone: no window yet) */
                    nz |= (v4i)p ^ INT64_MIN;
                    continue;
                }
                s1 = (v4d){0} + window_d(top, &plo, &phi), t1 = s1 * 0x1p-54;
            }
            ep = (ep & ~z) | (plo & z);
            if (any_neg4((ep - plo) | (phi - ep))) {
                stop = 1;
                break;
            }
            nz |= (v4i)p ^ INT64_MIN;
            v4d e = (v4d)_mm256_fmsub_pd((__m256d)xv, (__m256d)yv, (__m256d)p);
            v4d q1 = (s1 + p) - s1, g1 = (t1 + e) - t1;
            w1 += q1, w2 += p - q1, u1 += g1, u2 += e - g1;
        }
        spill4(a, w1), spill4(a, w2), spill4(a, u1), spill4(a, u2);
    }
    if (nz[0] | nz[1] | nz[2] | nz[3])
        a->not_negzero = 1;
    a->count += i;
    _mm256_zeroupper();
    return i;
}

EXACT_V3 static int64_t lanes4_f(gd_exact *a, const float *x, const float *y, int64_t m)
{
    v4d s1 = {0};
    v4i nz = {0};
    int64_t i = 0, elo = 1023, ehi = -1;
    int stop = 0;
    while (!stop && i + 4 <= m) {
        v4d w1 = {0}, w2 = {0};
        int64_t end = m - i > WIN_BLOCKS * 4 ? i + WIN_BLOCKS * 4 : m;
        for (; i + 4 <= end; i += 4) {
            v4d p = (v4d)_mm256_cvtps_pd(_mm_loadu_ps(x + i)) *
                    (v4d)_mm256_cvtps_pd(_mm_loadu_ps(y + i));
            v4i e0 = ((v4i)p >> 52) & 0x7ff, z = e0 == 0; /* (zeros: x or y 0) */
            if (ehi < 0) {                                /* the window (lanes_f's) */
                v4i e1 = (e0 & ~z) | (1023 & z);
                if (any_neg4((e1 - 1) | (2023 - e1))) {
                    stop = 1;
                    break;
                }
                int64_t top = max_lane4(e0);
                if (top == 0) {
                    nz |= (v4i)p ^ INT64_MIN;
                    continue;
                }
                s1 = (v4d){0} + window_f(top, &elo, &ehi);
            }
            v4i ep = (e0 & ~z) | (elo & z);
            if (any_neg4((ep - elo) | (ehi - ep))) {
                stop = 1;
                break;
            }
            nz |= (v4i)p ^ INT64_MIN;
            v4d q1 = (s1 + p) - s1;
            w1 += q1, w2 += p - q1;
        }
        spill4(a, w1), spill4(a, w2);
    }
    if (nz[0] | nz[1] | nz[2] | nz[3])
        a->not_negzero = 1;
    a->count += i;
    _mm256_zeroupper();
    return i;
}

/* Which bulk loops run: 4 (the AVX-512 lanes), 3 (the AVX2 ones), 0 (one product at a
 * time), from the CPU, asked once; gd_exact_set_lanes lowers it for tests. */
static int lanes_level = -1; /* (a race writes the same value) */
static int lanes_ok(void)
{
    if (lanes_level < 0) {
        __builtin_cpu_init();
        lanes_level = __builtin_cpu_supports("x86-64-v4") > 0   ? 4
                      : __builtin_cpu_supports("x86-64-v3") > 0 ? 3
                                                                : 0;
    }
    return lanes_level;
}

int gd_exact_set_lanes(int level)
{
    lanes_level = -1;
    int top = lanes_ok();
    lanes_level = level >= 0 && level < top ? level : top;
    return lanes_level;
}

/* blocks of XL through the lanes while they take them; where they stop, `slow` products
 * one at a time (XL, doubled up to SLOW_MAX while the lanes take fewer than 64 blocks
 * between stops: the AVX2 lanes stop at every block outside their window, and re-entering
 * them every few products of wide-range data cost 6.6 ns a double product where one at a
 * time takes 3.8), and the tail */
#define SLOW_MAX 4096
#define DEFINE_BULK(SUF, T, LANES, LANES4, ONE)                                                    \
    void gd_exact_dot_##SUF(gd_exact *a, const T *x, const T *y, int64_t n)                        \
    {                                                                                              \
        int64_t i = 0, slow = XL;                                                                  \
        int v = lanes_ok();                                                                        \
        while (i < n) {                                                                            \
            int64_t m = v ? (n - i) / XL * XL : 0;                                                 \
            m = m < XRUN * XL ? m : XRUN * XL;                                                     \
            int64_t done = !m       ? 0                                                            \
                           : v == 4 ? LANES(a, x + i, y + i, m)                                    \
                                    : LANES4(a, x + i, y + i, m);                                  \
            i += done;                                                                             \
            if (done < m || m == 0) {                                                              \
                slow = done >= 64 * XL ? XL : slow < SLOW_MAX ? 2 * slow : SLOW_MAX;               \
                for (int64_t e = v && n - i > slow ? i + slow : n; i < e; i++)                     \
                    ONE(a, x[i], y[i]);                                                            \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_BULK(d, double, lanes_d, lanes4_d, add_prod_fast)
DEFINE_BULK(f, float, lanes_f, lanes4_f, add_prod_fast_f)

void gd_exact_add_prod_wide(gd_exact *a, double x, double y)
{
    a->count++;
    if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
        a->nan = 1;
        return;
    }
    int neg = signbit(x) != signbit(y);
    if (isinf(x) || isinf(y)) {
        if (neg)
            a->ninf = 1;
        else
            a->pinf = 1;
        return;
    }
    if (x == 0 || y == 0) {
        if (!neg)
            a->not_negzero = 1;
        return;
    }
    a->not_negzero = 1;
    int ex, ey;
    uint64_t mx = split(x, &ex), my = split(y, &ey);
    add_scaled(a, (unsigned __int128)mx * my, ex + ey, neg);
}

/* a signed v 2^(off + EMIN) into the limbs (|v| < 2^63, off >= 0) */
static void add_signed(gd_exact *a, int64_t v, int off)
{
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    add_scaled(a, u, off + EMIN, v < 0);
}

/* the chunks into the limbs: chunk i is 2^(32 i + CMIN) = 2^(32 (i + 37) + 14 + EMIN) */
static void chunks_fold(gd_exact *a, const int64_t *chunk)
{
    for (int i = 0; i < GD_EXACT_CHUNKS; i++)
        if (chunk[i])
            add_signed(a, chunk[i], 32 * i + CMIN - EMIN);
}

void gd_exact_merge(gd_exact *a, const gd_exact *b)
{
    chunks_fold(a, b->chunk);
    for (int i = 0; i < GD_EXACT_LIMBS; i++)
        a->limb[i] += b->limb[i];
    a->count += b->count;
    a->nan |= b->nan;
    a->pinf |= b->pinf;
    a->ninf |= b->ninf;
    a->not_negzero |= b->not_negzero;
    a->pending += b->pending + 1;
    if (a->pending >= GD_EXACT_RENORM)
        gd_exact_normalise(a);
}

void gd_exact_normalise(gd_exact *a)
{
    int64_t c[GD_EXACT_CHUNKS]; /* the chunks first: into the limbs, then cleared */
    memcpy(c, a->chunk, sizeof c);
    memset(a->chunk, 0, sizeof a->chunk);
    a->cpending = 0;
    a->pending = 0;
    chunks_fold(a, c);
    for (int i = 0; i < GD_EXACT_LIMBS - 1; i++) {
        int64_t c = a->limb[i] >> 32; /* (floor) */
        a->limb[i] -= c * ((int64_t)1 << 32);
        a->limb[i + 1] += c;
    }
    a->pending = 0;
}

void gd_exact_top(const gd_exact *a0, gd_top *t)
{
    gd_exact a = *a0;
    gd_exact_normalise(&a); /* (the chunks into the limbs) */
    gd_top_of_limbs(a.limb, 0, GD_EXACT_LIMBS - 1, t);
    t->nan = a0->nan;
    t->pinf = a0->pinf;
    t->ninf = a0->ninf;
    t->negzero = a0->count && !a0->not_negzero;
}

int gd_exact_bits(const gd_exact *a, int p, int *neg, uint64_t *m, int *e)
{
    gd_top t;
    gd_exact_top(a, &t);
    *neg = t.neg;
    return gd_top_round(&t, p, -100000, 100000, m, e) != 0;
}

int gd_exact_sign(const gd_exact *a)
{
    gd_top t;
    gd_exact_top(a, &t);
    return t.zero ? 0 : t.neg ? -1 : 1;
}

double gd_exact_round_d(const gd_exact *a)
{
    gd_top t;
    gd_exact_top(a, &t);
    return gd_top_value(&t, 0);
}

float gd_exact_round_f(const gd_exact *a)
{
    gd_top t;
    gd_exact_top(a, &t);
    return (float)gd_top_value(&t, 1);
}
