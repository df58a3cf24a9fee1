/*
 * What the compiled entries (mex/gpudot_entry.cc: gdot.oct, gnorm.oct, gcosine.oct) call in
 * the gateway library (mex/__gpudot__.c, which they are linked against, so that there is
 * one state): the fast path of their common call.  These run outside any MEX call: they
 * never raise, never print and never change the MEX lock.
 */
#ifndef GPUDOT_ENTRY_H
#define GPUDOT_ENTRY_H

#include <stdint.h>

#include "gpudot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host data under "auto" goes to the CPU engine with nothing to report: a usable GPU, or
 * its absence reported already (the session's one gpudot:noDevice warning). */
int gpudot_entry_host_quiet(void);

/* A garray by id, when it is on the device and a call on it leaves the MEX lock as it is:
 * its device data, element count, whether it is a vector (2-D, a dimension 1), class and
 * complexity.  0 otherwise (not found, held on the host, deleted). */
int gpudot_entry_garray(int64_t id, const void **d, int64_t *numel, int *vector, int *single,
                        int *cplx);

/* The generation of the entries' registration for garray dispatch (gpudot_entry.cc,
 * dispatch_garray): an entry registers again when it differs from the one it registered in;
 * bump != 0 starts a new one (__gpudot_undispatch__, run by PKG_DEL, after it has taken the
 * registrations back).  Kept here, in the one library every entry file is linked against. */
unsigned gpudot_entry_dispatch_epoch(int bump);

/* The options of gdot, gnorm and gcosine: one table (mex/args.c) for the compiled entries'
 * fast path and the MEX, whose help texts list the same.  Names match case-insensitively;
 * each list of values is in the order of its enum. */
enum { OPT_ACCUM, OPT_DEVICE, OPT_KERNEL, OPT_N };
enum { DEV_AUTO, DEV_GPU, DEV_CPU };                 /* "device" values */
extern const char *const gpudot_option_names[OPT_N]; /* "accum", "device", "kernel" */
extern const char *const gpudot_accum_values[4];     /* gpudot_accum order; "double" default */
extern const char *const gpudot_device_values[3];    /* DEV_* order; "auto" default */
extern const char *const gpudot_kernel_values[5];    /* the ladder's kernels, in order */

/* The OPT_* of an option name, or -1. */
int gpudot_entry_option(const char *name);
/* An "accum" or "device" value: 0 where s is none of them. */
int gpudot_entry_accum(const char *s, gpudot_accum *acc);
int gpudot_entry_device(const char *s, int *dev);

/* The kind of a norm's numeric p (GD_P_* in gpudot_math.h); 0 for NaN, which is an error. */
int gpudot_entry_p(double p, int *pk);

/* One reduction of whole vectors of n >= 1 elements (dot, norm of kind pk and exponent p,
 * cosine) in mode accum, set up as the MEX's op_reduce sets up the same call; dev: x and y
 * are resident (device pointers, the GPU), else host data (the CPU engine).  out: 1 value
 * of the operands' class (2 for a complex dot or cosine). */
gpudot_status gpudot_entry_vector(gpudot_op op, int single, int cx, int cy, const void *x,
                                  const void *y, int64_t n, int dev, gpudot_accum accum, int pk,
                                  double p, void *out);

#ifdef __cplusplus
}
#endif

#endif
