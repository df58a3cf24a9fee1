/*
 * The gateway's errors and warnings: Octave's error () and warning () with the message as
 * written, a status as gpudot:<id> with its text, and the checks and the one warning about
 * a missing GPU.  Every file of the gateway raises through these (gateway.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "gateway.h"

static int warned_no_device = 0;

int no_device_warned(void)
{
    return warned_no_device;
}

/* Errors and warnings (gateway.h) go through Octave's error () and warning (). */
static void gd_call(const char *what, const char *id, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mxArray *a[3] = {mxCreateString(id), mxCreateString("%s"), mxCreateString(msg)};
    mexCallMATLAB(0, NULL, 3, a, what);
    for (int i = 0; i < 3; i++)
        mxDestroyArray(a[i]);
}

void gd_error(const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_call("error", id, fmt, ap);
    va_end(ap);
    mexErrMsgIdAndTxt(id, "error () returned"); /* not reached: error () throws */
    __builtin_unreachable();                    /* nor here: mexErrMsgIdAndTxt throws too */
}

void gd_warn(const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_call("warning", id, fmt, ap);
    va_end(ap);
}

void raise_status(const char *fn, gpudot_status st, const char *detail)
{
    char id[64];
    snprintf(id, sizeof id, "gpudot:%s", gpudot_status_id(st));
    if (detail && *detail)
        gd_error(id, "%s: %s (%s)", fn, gpudot_status_msg(st), detail);
    gd_error(id, "%s: %s", fn, gpudot_status_msg(st));
}

/* Raises unless the GPU can be used: gpudot:noDevice, or gpudot:cuda once a kernel fault
 * has lost the CUDA context. */
void need_gpu(const char *fn)
{
    if (!gpudot_cuda_available())
        raise_status(fn, gpudot_cuda_lost() ? GPUDOT_CUDA : GPUDOT_NO_DEVICE,
                     gpudot_cuda_last_error());
}

/* The session's one gpudot:noDevice warning: fn, why, and what it does instead. */
void warn_no_device(const char *fn, const char *instead)
{
    if (!warned_no_device) {
        warned_no_device = 1;
        gd_warn("gpudot:noDevice", "%s: no usable CUDA device (%s); %s", fn,
                gpudot_cuda_last_error(), instead);
    }
}
