/*
 * Exact sums of products rounded once (cpu/gpudot_exact.c): the CPU core of the coming
 * "exact" mode.  gd_exact_add_prod adds x * y exactly (any doubles: products past the
 * double range and below its subnormals included; a single enters as its double);
 * gd_exact_round_d and _f round the sum once to nearest, ties to even.  NaN and Inf as
 * IEEE arithmetic gives them (Inf * 0 and Inf - Inf are NaN); an exact zero is -0 only
 * where every product was -0.
 */
#ifndef GPUDOT_EXACT_H
#define GPUDOT_EXACT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2^-2272 .. 2^2208 in base-2^32 digits: every product of two doubles and 2^63 of them;
 * limb i is 2^(32 i + GD_EXACT_EMIN) (the GPU's digits are laid out alike) */
#define GD_EXACT_LIMBS 140
#define GD_EXACT_EMIN (-32 * 71)
/* additions between normalisations: digits stay below 2^63 */
#define GD_EXACT_RENORM (1 << 29)
/* The fast stage: doubles' bits 2^-1074 .. 2^1024 (and carries) in base-2^32 digits */
#define GD_EXACT_CHUNKS 70
/* doubles added to the chunks between normalisations (each adds below 2^52 to a chunk) */
#define GD_EXACT_CHUNK_RENORM 1024

typedef struct {
    int64_t chunk[GD_EXACT_CHUNKS]; /* products p + e that are doubles' sums (most) */
    int64_t limb[GD_EXACT_LIMBS];   /* the others, whole */
    int64_t count, pending, cpending;
    int nan, pinf, ninf, not_negzero;
} gd_exact;

void gd_exact_init(gd_exact *a);
void gd_exact_add_prod(gd_exact *a, double x, double y);
/* gd_exact_add_prod of x[i] * y[i], i < n */
void gd_exact_dot_d(gd_exact *a, const double *x, const double *y, int64_t n);
void gd_exact_dot_f(gd_exact *a, const float *x, const float *y, int64_t n);
/* x * y by the whole-range path alone (tests compare it with the fast stage) */
void gd_exact_add_prod_wide(gd_exact *a, double x, double y);
/* test hook: the bulk loops' level (4: AVX-512 lanes, 3: AVX2 lanes, 0: none) lowered to
 * level where the CPU runs more (a negative level: the CPU's own); returns the level in force */
int gd_exact_set_lanes(int level);
void gd_exact_merge(gd_exact *a, const gd_exact *b);
void gd_exact_normalise(gd_exact *a);
double gd_exact_round_d(const gd_exact *a);
float gd_exact_round_f(const gd_exact *a);
/* The finite sum as m 2^e rounded to p <= 63 bits, no exponent limits (0: exactly zero) */
int gd_exact_bits(const gd_exact *a, int p, int *neg, uint64_t *m, int *e);
/* The finite sum's sign: -1, 0 (exactly zero) or 1 */
int gd_exact_sign(const gd_exact *a);

/* Results from exact sums (cpu/gpudot_exact_final.c), in double or, where single, single
 * (as a double): the correctly rounded square root of s >= 0; the correctly rounded |re +
 * i im|; a cosine xy / sqrt (xx yy) within one ulp (im: its imaginary part, where xyi). */
double gd_exact_sqrt(const gd_exact *s, int single);
double gd_exact_abs(double re, double im, int single);
void gd_exact_cos(const gd_exact *xy, const gd_exact *xyi, const gd_exact *xx, const gd_exact *yy,
                  int single, double *re, double *im);
/* An output of op (pk: a norm's kind) from its sums a (gd_top_finish's order), in the
 * result's class (single) as doubles; ext: a norm of another kind */
void gd_exact_finish(const gd_exact *a, int op, int pk, int single, int cplx, double ext,
                     double *re, double *im);

#ifdef __cplusplus
}
#endif

#endif
