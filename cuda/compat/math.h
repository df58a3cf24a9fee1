/*
 * Included in place of <math.h> by nvcc where glibc 2.42+ declares rsqrt and rsqrtf
 * (C23), which clash with CUDA 13.0's declarations of the same functions (an exception
 * specification mismatch).  glibc's declarations take other names; CUDA's stay.  Used
 * only where cuda/configure-cuda.sh's probe needs it; nothing in the toolkit is edited.
 */
#define rsqrt __gpudot_glibc_rsqrt
#define rsqrtf __gpudot_glibc_rsqrtf
/* glibc pastes each name onto __DECL_SIMD_ for its vector variants */
#define __DECL_SIMD___gpudot_glibc_rsqrt
#define __DECL_SIMD___gpudot_glibc_rsqrtf
#define __DECL_SIMD___gpudot_glibc_rsqrtl
#define __DECL_SIMD___gpudot_glibc_rsqrtf16
#define __DECL_SIMD___gpudot_glibc_rsqrtf32
#define __DECL_SIMD___gpudot_glibc_rsqrtf64
#define __DECL_SIMD___gpudot_glibc_rsqrtf128
#define __DECL_SIMD___gpudot_glibc_rsqrtf32x
#define __DECL_SIMD___gpudot_glibc_rsqrtf64x
#define __DECL_SIMD___gpudot_glibc_rsqrtf128x
#include_next <math.h>
#undef rsqrt
#undef rsqrtf
