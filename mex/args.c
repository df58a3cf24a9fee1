/*
 * The reduction calls' arguments, as users write them (gdot (x, y, dim, "accum", ...)):
 * the options' table, P, DIM and the operands' classes.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "gateway.h"
#include "gpudot_entry.h"
#include "gpudot_math.h"

const char *const gpudot_option_names[OPT_N] = {"accum", "device", "kernel"};
const char *const gpudot_accum_values[4] = {"native", "double", "compensated", "exact"};
const char *const gpudot_device_values[3] = {"auto", "gpu", "cpu"};
const char *const gpudot_kernel_values[5] = {"atomic", "shared", "shuffle", "vector", "fused"};

int gpudot_entry_option(const char *name)
{
    for (int i = 0; i < OPT_N; i++)
        if (!strcasecmp(name, gpudot_option_names[i]))
            return i;
    return -1;
}

int string_index(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (!strcasecmp(s, names[i])) /* option values as Octave's own: any case */
            return i;
    return -1;
}

int gpudot_entry_accum(const char *s, gpudot_accum *acc)
{
    int i = string_index(s, gpudot_accum_values, 4);
    if (i >= 0)
        *acc = (gpudot_accum)i; /* GPUDOT_ACC_NATIVE, _DOUBLE, _COMP, _EXACT */
    return i >= 0;
}

int gpudot_entry_device(const char *s, int *dev)
{
    int i = string_index(s, gpudot_device_values, 3);
    if (i >= 0)
        *dev = i;
    return i >= 0;
}

int parse_accum(const mxArray *a, gpudot_accum *acc)
{
    char *s = get_string(a);
    int ok = s && gpudot_entry_accum(s, acc);
    if (s)
        mxFree(s);
    return ok;
}

int parse_device(const mxArray *a, int *dev)
{
    char *s = get_string(a);
    int ok = s && gpudot_entry_device(s, dev);
    if (s)
        mxFree(s);
    return ok;
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
int parse_p(const mxArray *a, int *pk, double *p)
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

int parse_kernel(const mxArray *a, int *k)
{
    int i = name_index(a, gpudot_kernel_values, 5);
    if (i >= 0)
        *k = i;
    return i >= 0;
}

void bad_dim(const char *fn)
{
    gd_error("gpudot:badDim", "%s: DIM must be a positive integer scalar", fn);
}

void parse_dim(const char *fn, const mxArray *D, call_t *c)
{
    double dv =
        (mxIsNumeric(D) && !mxIsComplex(D) && mxGetNumberOfElements(D) == 1) ? mxGetScalar(D) : NAN;
    if (!(dv >= 1 && dv == floor(dv) && dv <= 1e15))
        bad_dim(fn);
    c->have_dim = 1;
    c->dim = (int64_t)dv;
}

void bad_accum(const char *fn)
{
    gd_error("gpudot:badOption",
             "%s: \"accum\" must be \"native\", \"double\", \"compensated\" or \"exact\"", fn);
}

void exact_bad_p(const char *fn)
{
    gd_error("gpudot:badOption", "%s: \"accum\" \"exact\" takes P = 1, 2, Inf, -Inf, 0 or \"fro\"",
             fn);
}

void bad_device(const char *fn)
{
    gd_error("gpudot:badOption", "%s: \"device\" must be \"auto\", \"gpu\" or \"cpu\"", fn);
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
void parse_public(const char *fn, gpudot_op op, int nrhs, const mxArray *prhs[], call_t *c)
{
    int has_y = op != GPUDOT_OP_NORM;
    int k = has_y ? 2 : 1;
    memset(c, 0, sizeof *c);
    c->accum = GPUDOT_ACC_DOUBLE;
    c->dev = DEV_AUTO;
    c->kernel = -1;
    if (nrhs < k)
        gd_error("Octave:invalid-fun-call",
                 "Invalid call to %s.  Correct usage is:\n\n"
                 " -- %s (X%s, ...)",
                 fn, fn, has_y ? ", Y" : "");
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
        if (!mxIsChar(prhs[k]) || mxGetM(prhs[k]) > 1 ||
            mxGetNumberOfElements(prhs[k]) >= sizeof name)
            gd_error("gpudot:badOption", "%s: option names must be strings", fn);
        mxGetString(prhs[k], name, sizeof name);
        int opt = gpudot_entry_option(name);
        if (opt == OPT_ACCUM) {
            if (!parse_accum(prhs[k + 1], &c->accum))
                bad_accum(fn);
        } else if (opt == OPT_DEVICE) {
            if (!parse_device(prhs[k + 1], &c->dev))
                bad_device(fn);
        } else if (opt == OPT_KERNEL && op == GPUDOT_OP_DOT) {
            if (!parse_kernel(prhs[k + 1], &c->kernel))
                gd_error("gpudot:badOption",
                         "%s: \"kernel\" must be \"atomic\", \"shared\", \"shuffle\", "
                         "\"vector\" or \"fused\"",
                         fn);
        } else {
            gd_error("gpudot:badOption", "%s: unknown option \"%s\"", fn, name);
        }
    }
}

/* A public-entry operand as the engine takes it: integers to double (exact product sums),
 * sparse to full, through Octave itself; non-numeric input is an error. */
const mxArray *public_operand(const char *fn, const char *name, const mxArray *a)
{
    if ((mxIsDouble(a) || mxIsSingle(a)) && !mxIsSparse(a))
        return a; /* the common case first: class-name compares cost ~0.2 us each */
    if (mxIsClass(a, "garray"))
        return a;
    if (!mxIsNumeric(a))
        gd_error("gpudot:badType",
                 "%s: %s must be a numeric array (single, double, integer), not %s", fn, name,
                 mxGetClassName(a));
    mxArray *out = NULL, *in = (mxArray *)a;
    if (mxIsSparse(a))
        mexCallMATLAB(1, &out, 1, &in, "full");
    /* (integers stay: the gateway converts them a piece at a time, mex/intchunks.c) */
    return out ? out : a;
}
