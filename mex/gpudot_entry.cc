/*
 * gdot, gnorm and gcosine as compiled Octave functions (built once as gdot.oct, copied as
 * gnorm.oct, gcosine.oct and __gpudot_undispatch__.oct; each file defines all four and holds
 * no state but whether its entries registered for garray dispatch: see dispatch_garray).
 *
 * Why not the MEX itself: a MEX call wraps every argument and result in an mxArray, and the
 * gateway must ask Octave for each operand's class, dimensions and data through that layer
 * (each a few allocations in Octave 7).  On 2^10 single elements from Octave, in loops of
 * rotating inputs on the CPU-only machine, an empty MEX with two arguments cost 8.2 us a
 * call against 7.3 for an empty .oct, and gdot through the MEX 9.6 us against 9.1 for the
 * built-in dot; on the H100 machine's VM the MEX's share doubled (gdot 11.2 against dot 9.2,
 * 1.22-1.30x at 2^10-2^14).
 *
 * The common call, one reduction of whole vectors of one class (host data on the CPU
 * engine, "auto" or "cpu"; or two resident garrays on the GPU, "auto" or "gpu"), with a
 * norm's numeric p and the "accum" and "device" options, goes straight to the engine
 * through the gateway library's gpudot_entry_* functions (mex/gpudot_entry.h): same setup,
 * same engine, the same bits as the MEX path.  Every other call, and any call the fast path
 * cannot vouch for (a DIM, "kernel", host data to the GPU, the session's gpudot:noDevice
 * warning still to give, a garray not on the device, empty or mixed-class operands, any
 * argument it does not recognise), goes to __gpudot__ ("__entry__", name, args...), which
 * validates and answers it (or raises the error) as it always has.
 */
#include <cctype>
#include <string>

#include <octave/cdef-object.h>
#include <octave/oct.h>
#include <octave/interpreter.h>
#include <octave/ov-builtin.h>
#include <octave/ov-classdef.h>
#include <octave/parse.h>
#include <octave/quit.h>
#include <octave/symtab.h>

#include "gpudot_entry.h"
#include "gpudot_help.h" /* the .m files' help, generated at build time */
#include "gpudot_math.h"

namespace
{

struct operand {
    const void *data = nullptr;
    octave_idx_type n = 0;
    bool single = false, cplx = false, dev = false;
};

/* Whether obj is a garray.  Octave 7 reads a class's name through its meta-class (a
 * property lookup and a string copy, every time); the class object seen last time is
 * compared first.  Kept as a bare address, not a reference (a reference held past the
 * interpreter's end would be released after it): were that class gone and another one
 * made at its address, an object of it would pass here and fail in the registry, which
 * knows only live garrays by id, and go to the MEX as any other argument. */
bool is_garray(const octave::cdef_object &obj)
{
    static const void *garray_class = nullptr;
    const octave::cdef_class c = obj.get_class();
    const void *cls = static_cast<const octave::cdef_object &>(c).get_rep();
    if (cls == garray_class)
        return true;
    if (obj.class_name() != "garray")
        return false;
    garray_class = cls;
    return true;
}

/* A resident garray vector: its id read from the object, then the gateway's registry. */
bool garray_operand(const octave_value &v, operand &o)
{
    octave::cdef_object obj = v.classdef_object_value()->get_object();
    if (!obj.ok() || !is_garray(obj))
        return false;
    octave_value id = obj.get("id");
    if (!id.is_real_scalar() || !id.is_double_type())
        return false;
    int64_t n;
    int vector, single, cplx;
    if (!gpudot_entry_garray((int64_t)id.double_value(), &o.data, &n, &vector, &single, &cplx) ||
        !vector)
        return false;
    o.n = n;
    o.single = single;
    o.cplx = cplx;
    o.dev = true;
    return true;
}

/* A full single or double vector (2-D, a dimension 1) held by Octave, or a resident garray
 * vector; false for everything else (ranges, integers, sparse, logical, matrices, ...). */
bool fast_operand(const octave_value &v, operand &o)
{
    if (v.is_classdef_object())
        return garray_operand(v, o);
    if (!(v.is_single_type() || v.is_double_type()) || v.issparse() || v.ndims() != 2 ||
        (v.rows() != 1 && v.columns() != 1))
        return false;
    o.data = v.mex_get_data(); /* the array's own data (interleaved if complex); none for ranges */
    o.n = v.numel();
    o.single = v.is_single_type();
    o.cplx = v.iscomplex();
    return o.data != nullptr;
}

/* As the gateway's raise_status: "gpudot:<id>", "<fn>: <message>[ (<detail>)]". */
void raise(const char *fn, gpudot_status st, const char *detail)
{
    std::string id = std::string("gpudot:") + gpudot_status_id(st);
    if (detail && *detail)
        error_with_id(id.c_str(), "%s: %s (%s)", fn, gpudot_status_msg(st), detail);
    error_with_id(id.c_str(), "%s: %s", fn, gpudot_status_msg(st));
}

/* Options of the call from args(k) on, as the gateway's parse_public takes them: name/value
 * pairs, names in any case, later pairs overriding earlier ones; false for anything else
 * ("kernel", a DIM, bad names or values: the MEX answers those). */
bool fast_options(const octave_value_list &args, int k, gpudot_accum &accum, int &device)
{
    if ((args.length() - k) % 2)
        return false;
    for (; k < args.length(); k += 2) {
        const octave_value &a = args(k), &v = args(k + 1);
        if (!a.is_string() || a.rows() != 1 || !v.is_string() || v.rows() != 1)
            return false;
        std::string name = a.string_value(), val = v.string_value();
        int opt = gpudot_entry_option(name.c_str());
        if (!(opt == OPT_ACCUM    ? gpudot_entry_accum(val.c_str(), &accum)
              : opt == OPT_DEVICE ? gpudot_entry_device(val.c_str(), &device)
                                  : false))
            return false;
    }
    return true;
}

/* The function object f holds, where it is one loaded from an .oct file (a dld function,
 * which is a built-in to Octave); else null. */
octave_builtin *dld_builtin(const octave_value &f)
{
    octave_function *fn = f.is_defined() ? f.function_value(true) : nullptr;
    return fn && fn->is_dld_function() ? dynamic_cast<octave_builtin *>(fn) : nullptr;
}

/* Octave finds the function a call names through its class of the arguments first: with a
 * garray among them it looks for a garray method of that name (the class's methods, @garray
 * folders on the path, parent classes, then built-ins that declare the class), and keeps
 * only what it finds.  gdot (g, h) found nothing there and searched again on every call:
 * an empty .oct called with two garrays took 2.88 us a call against 1.65 with two doubles
 * (CI machine, loops of 20000), and 4.7-7.2 against 2.4-3.7 on the H100 VM.  A built-in that
 * declares the class, as Octave's own built-ins do, is the one kind the search caches; so each
 * entry, on its first call, registers the function object Octave loaded from this file (which keeps
 * the file loaded) as the built-in of its name for class garray: the same empty .oct then took 1.88
 * us.  Calls with host data find the file on the path as before; which and exist (name) still give
 * the file.  pkg unload runs PKG_DEL, whose __gpudot_undispatch__ (below) takes the registrations
 * back, so the names leave with the package; an entry registers again once the epoch it registered
 * in has passed. */
void dispatch_garray(const char *name, octave_builtin::fcn self)
{
    octave::interpreter *interp = octave::interpreter::the_interpreter();
    if (!interp)
        return;
    octave::symbol_table &st = interp->get_symbol_table();
    if (st.is_built_in_function_name(name)) /* registered already, or Octave's own */
        return;
    octave_value f = st.find_user_function(name);
    octave_builtin *b = dld_builtin(f);
    if (!b || b->function() != self) /* not this file's function (the .m of that name) */
        return;
    st.install_built_in_function(name, f);
    if (!b->handles_dispatch_class("garray")) /* (a second registration of the same object) */
        st.install_built_in_dispatch(name, "garray");
}

/* The fast path; false where the call must go to the MEX. */
bool fast_call(const char *fn, gpudot_op op, const octave_value_list &args, octave_value &r)
{
    int nin = op == GPUDOT_OP_NORM ? 1 : 2, k = nin;
    operand x, y;
    if (args.length() < nin || !fast_operand(args(0), x) || (nin == 2 && !fast_operand(args(1), y)))
        return false;
    if (nin == 1)
        y = x;
    int pk = GD_P_TWO;
    double p = 2;
    if (op == GPUDOT_OP_NORM && args.length() > 1 && !args(1).is_string()) {
        /* a numeric p, as parse_p takes it (names like "fro" and "inf": the MEX) */
        const octave_value &pv = args(1);
        if (!(pv.is_double_type() || pv.is_single_type()) || pv.iscomplex() || pv.issparse() ||
            pv.numel() != 1)
            return false;
        p = pv.double_value();
        if (!gpudot_entry_p(p, &pk))
            return false;
        k = 2;
    }
    gpudot_accum accum = GPUDOT_ACC_DOUBLE;
    int device = DEV_AUTO;
    if (!fast_options(args, k, accum, device))
        return false;
    if (accum == GPUDOT_ACC_EXACT && (pk == GD_P_POS || pk == GD_P_NEG))
        return false; /* (the MEX names the P "exact" takes) */
    if (y.n != x.n || y.single != x.single || y.dev != x.dev || x.n == 0)
        return false;
    /* resident data on the GPU ("cpu" would gather it); host data on the CPU engine ("gpu"
     * goes through the staging ring, "auto" only once it has nothing to say) */
    if (x.dev ? device == DEV_CPU
              : device == DEV_GPU || (device == DEV_AUTO && !gpudot_entry_host_quiet()))
        return false;
    bool cplx = op != GPUDOT_OP_NORM && (x.cplx || y.cplx);
    double buf[2] = {0, 0}; /* 1 or 2 values of the operands' class */
    gpudot_status st = gpudot_entry_vector(op, x.single, x.cplx, y.cplx, x.data, y.data, x.n, x.dev,
                                           accum, pk, p, buf);
    if (st == GPUDOT_INTERRUPTED)
        octave_interrupt_state = 0; /* as the MEX: the next call works */
    if (st != GPUDOT_OK)
        raise(fn, st, x.dev ? gpudot_cuda_last_error() : "");
    if (x.single) {
        const float *f = reinterpret_cast<const float *>(buf);
        r = cplx ? octave_value(FloatComplex(f[0], f[1])) : octave_value(f[0]);
    } else {
        r = cplx ? octave_value(Complex(buf[0], buf[1])) : octave_value(buf[0]);
    }
    return true;
}

octave_value_list entry(const char *fn, gpudot_op op, octave_builtin::fcn self,
                        const octave_value_list &args, int nargout)
{
    static unsigned registered[3]; /* the epoch each entry registered in (0: never) */
    unsigned epoch = gpudot_entry_dispatch_epoch(0);
    if (registered[op] != epoch) {
        registered[op] = epoch;
        dispatch_garray(fn, self);
    }
    octave_value r;
    if (nargout <= 1 && fast_call(fn, op, args, r))
        return r;
    octave_value_list fwd(args.length() + 2);
    fwd(0) = "__entry__";
    fwd(1) = fn;
    for (octave_idx_type i = 0; i < args.length(); i++)
        fwd(i + 2) = args(i);
    return octave::feval("__gpudot__", fwd, nargout);
}

} // namespace

DEFUN_DLD(gdot, args, nargout, GPUDOT_HELP_gdot)
{
    return entry("gdot", GPUDOT_OP_DOT, Fgdot, args, nargout);
}

DEFUN_DLD(gnorm, args, nargout, GPUDOT_HELP_gnorm)
{
    return entry("gnorm", GPUDOT_OP_NORM, Fgnorm, args, nargout);
}

DEFUN_DLD(gcosine, args, nargout, GPUDOT_HELP_gcosine)
{
    return entry("gcosine", GPUDOT_OP_COS, Fgcosine, args, nargout);
}

/* Built as a copy of this file of its own name, run by PKG_DEL (pkg unload): takes back
 * the entries' registrations for garray dispatch (dispatch_garray), leaving any built-in of
 * those names that is not theirs, and drops Octave's cached lookups of the names, so that
 * they are found on the path, or not at all, as for any other function. */
DEFUN_DLD(__gpudot_undispatch__, args, ,
          "-*- texinfo -*-\n@deftypefn {} {} __gpudot_undispatch__ ()\n"
          "Internal (PKG_DEL): undo the registration of gdot, gnorm and gcosine for garray "
          "dispatch.\n@end deftypefn")
{
    if (args.length() != 0)
        print_usage();
    octave::interpreter *interp = octave::interpreter::the_interpreter();
    if (!interp)
        return octave_value_list();
    octave::symbol_table &st = interp->get_symbol_table();
    for (const char *name : {"gdot", "gnorm", "gcosine"}) {
        octave_builtin *b = dld_builtin(st.find_built_in_function(name));
        if (!b || !b->handles_dispatch_class("garray"))
            continue;
        st.install_built_in_function(name, octave_value());
        st.clear_function(name);
    }
    gpudot_entry_dispatch_epoch(1);
    return octave_value_list();
}
