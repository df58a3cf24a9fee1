/* The CUDA engine's interface for builds without nvcc: no device, ever. */
#include <string.h>

#include "gpudot.h"

int gpudot_cuda_available(void)
{
    return 0;
}

gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info)
{
    memset(info, 0, sizeof *info);
    return GPUDOT_OK;
}

gpudot_status gpudot_cuda_dot(const gpudot_dot_req *r, gpudot_poll_fn poll)
{
    (void)r;
    (void)poll;
    return GPUDOT_NO_DEVICE;
}

int gpudot_cuda_holds_memory(void)
{
    return 0;
}

void gpudot_cuda_release(void)
{
}

const char *gpudot_cuda_last_error(void)
{
    return "gpudot was built without CUDA";
}

void gpudot_cuda_set_staging_cap(size_t bytes)
{
    (void)bytes;
}
