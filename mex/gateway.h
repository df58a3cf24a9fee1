/*
 * What the gateway's files (mex/__gpudot__.c, mex/hooks.c) share: raising errors and
 * warnings, the MEX lock, argument helpers, and the operation table's entry type.
 */
#ifndef GPUDOT_GATEWAY_H
#define GPUDOT_GATEWAY_H

#include <stddef.h>

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
/* A count argument (bytes, blocks) of operation op: a numeric scalar >= 0. */
size_t count_arg(const char *op, const mxArray *a);
/* Calls the compiled entries' fast path answered (a test hook). */
double gateway_entry_calls(void);

/* One operation of __gpudot__ (op, args...): prhs[0] is its name. */
typedef void (*gateway_op_fn)(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
typedef struct {
    const char *name;
    gateway_op_fn fn;
} gateway_op;

/* The test and bench hooks (mex/hooks.c). */
extern const gateway_op gateway_hook_ops[];
extern const size_t gateway_n_hook_ops;

#endif
