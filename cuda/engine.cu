/*
 * CUDA engine: the device and its state, errors, grow-only buffers, and the C API's
 * housekeeping (availability, info, release, test hooks, garray memory).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <mutex>

#include "engine.cuh"

namespace gpudot
{

Engine engines[kMaxDevices];
thread_local Engine *E = &engines[0];
static std::mutex g_err_lock; /* (the threads of a call on several GPUs may fail at once) */
char g_err[512] = "";
static int g_count = -1;  /* devices visible, once probed */
static int g_primary = 0; /* the device of one-GPU calls and garrays */

/* Every CUDA failure comes here: the text is kept for the gateway's message.  Errors of
 * the call itself (out of memory, a bad launch configuration) are cleared so the next call
 * works.  A fault inside a kernel (illegal address, trap, launch failure) is sticky: the
 * context stays broken and every later CUDA call in the process fails, so only a new
 * process (restarting Octave) can use the GPU again.  That is found by clearing the error
 * and synchronizing: a sticky error comes back.  From then on the engine answers every GPU
 * request with GPUDOT_CUDA and that message, gpudot_cuda_available () is 0 (so "auto"
 * takes the CPU engine), and frees are skipped (they would fail anyway). */
gpudot_status lost_status()
{
    std::lock_guard<std::mutex> hold(g_err_lock);
    snprintf(g_err, sizeof g_err, "%s", E->lost_msg);
    return GPUDOT_CUDA;
}

gpudot_status fail(cudaError_t e, const char *what)
{
    if (E->lost)
        return lost_status();
    std::unique_lock<std::mutex> hold(g_err_lock);
    snprintf(g_err, sizeof g_err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it so the next call works */
        return GPUDOT_OUT_OF_MEMORY;
    }
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return GPUDOT_NO_DEVICE;
    if (E->ok) {
        cudaGetLastError();
        cudaError_t s = cudaDeviceSynchronize();
        if (s != cudaSuccess) {
            /* CUDA's rule: after a fault in a kernel the process cannot use any device
             * (a fault on one GPU made the next call on another fail the same way) */
            char msg[sizeof E->lost_msg];
            snprintf(msg, sizeof msg,
                     "%s; a kernel fault on GPU %d: CUDA is lost to this process, restart "
                     "Octave to use the GPUs again",
                     g_err, E->device);
            for (int d = 0; d < kMaxDevices; d++) {
                engines[d].lost = 1;
                snprintf(engines[d].lost_msg, sizeof engines[d].lost_msg, "%s", msg);
            }
            hold.unlock();
            return lost_status();
        }
    }
    return GPUDOT_CUDA;
}

/* cudaMalloc, or a real allocation failure where a test asked for one (an impossible size). */
cudaError_t dev_malloc(void **p, size_t bytes)
{
    if (E->fault == GPUDOT_FAULT_ALLOC && E->fault_skip-- <= 0) {
        E->fault = GPUDOT_FAULT_NONE;
        E->fault_skip = 0;
        bytes = (size_t)1 << 60;
    }
    return cudaMalloc(p, bytes);
}

/* The engine in use, probed once: the devices visible (first call), then its device. */
gpudot_status probe()
{
    if (E->lost)
        return lost_status();
    if (E->probed)
        return E->ok ? GPUDOT_OK : GPUDOT_NO_DEVICE;
    E->probed = 1;
    if (g_count > 0) {
        CK(cudaGetDevice(&E->device), "cudaGetDevice");
        CK(cudaGetDeviceProperties(&E->prop, E->device), "cudaGetDeviceProperties");
        E->target_blocks = E->prop.multiProcessorCount * kBlocksPerSM;
        E->ok = 1;
        return GPUDOT_OK;
    }
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        /* say it in the user's terms: no driver, an old driver, or no (visible) device */
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        if (e == cudaErrorInsufficientDriver && drv == 0)
            snprintf(g_err, sizeof g_err, "no NVIDIA driver is installed");
        else if (e == cudaErrorInsufficientDriver)
            snprintf(g_err, sizeof g_err,
                     "the NVIDIA driver supports CUDA %d.%d, gpudot was built with CUDA %d.%d",
                     drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        else if (e == cudaErrorNoDevice || n == 0)
            snprintf(g_err, sizeof g_err, "no CUDA device found%s",
                     getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES is set)" : "");
        else
            fail(e, "cudaGetDeviceCount");
        cudaGetLastError();
        g_count = 0;
        return GPUDOT_NO_DEVICE;
    }
    g_count = n < kMaxDevices ? n : kMaxDevices;
    if (cudaGetDevice(&g_primary) != cudaSuccess || g_primary >= g_count)
        g_primary = 0;
    if (E != &engines[g_primary]) { /* (another library made another device current) */
        *E = Engine();              /* probed again when used */
        E = &engines[g_primary];
        E->probed = 1;
    }
    CK(cudaGetDevice(&E->device), "cudaGetDevice");
    CK(cudaGetDeviceProperties(&E->prop, E->device), "cudaGetDeviceProperties");
    E->target_blocks = E->prop.multiProcessorCount * kBlocksPerSM;
    E->ok = 1;
    return GPUDOT_OK;
}

/* Makes device dev's engine the one in use (and dev CUDA's current device). */
gpudot_status use_device(int dev)
{
    if (g_count < 0) {
        gpudot_status st = probe();
        if (st != GPUDOT_OK)
            return st;
    }
    if (dev < 0 || dev >= g_count) {
        snprintf(g_err, sizeof g_err, "there is no GPU %d (%d visible)", dev, g_count);
        return GPUDOT_NO_DEVICE;
    }
    if (E != &engines[dev]) {
        E = &engines[dev];
        cudaError_t e = cudaSetDevice(dev);
        if (e != cudaSuccess)
            return fail(e, "cudaSetDevice");
    }
    return probe();
}

void use_primary()
{
    if (g_count > 0 && E != &engines[g_primary]) {
        E = &engines[g_primary];
        cudaSetDevice(g_primary);
    }
}

void buf_free(DevBuf &b)
{
    if (b.p && !E->lost)
        cudaFree(b.p);
    b.p = nullptr;
    b.cap = 0;
}

gpudot_status buf_need(DevBuf &b, size_t bytes, const char *what)
{
    if (bytes <= b.cap)
        return GPUDOT_OK;
    buf_free(b);
    size_t want = bytes < 256 ? 256 : bytes;
    CK(dev_malloc(&b.p, want), what);
    b.cap = want;
    return GPUDOT_OK;
}

/* device and pinned bytes the engines hold, every device's */
size_t held()
{
    size_t b = ring_bytes();
    for (int d = 0; d < kMaxDevices; d++) {
        const Engine &e = engines[d];
        b += e.x.cap + e.y.cap + e.out.cap + e.carry.cap + e.partials.cap + e.tickets.cap +
             e.slots.cap + e.search.cap + e.topk.cap + e.exact.cap + (e.mapped ? kMappedBytes : 0);
    }
    return b;
}

} // namespace gpudot

using namespace gpudot;

extern "C" {

int gpudot_cuda_available(void)
{
    return probe() == GPUDOT_OK;
}

gpudot_status gpudot_cuda_info(gpudot_cuda_info_t *info)
{
    memset(info, 0, sizeof *info);
    info->built_with_cuda = 1;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    if (probe() != GPUDOT_OK)
        return GPUDOT_OK;
    info->available = 1;
    info->device = E->device;
    snprintf(info->name, sizeof info->name, "%s", E->prop.name);
    info->cc_major = E->prop.major;
    info->cc_minor = E->prop.minor;
    info->sm_count = E->prop.multiProcessorCount;
    CK(cudaMemGetInfo(&info->mem_free, &info->mem_total), "cudaMemGetInfo");
    info->staging_bytes = held();
    return GPUDOT_OK;
}

int gpudot_cuda_holds_memory(void)
{
    return held() > 0;
}

int gpudot_cuda_lost(void)
{
    return E->lost;
}

gpudot_status gpudot_cuda_inject(int fault)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    E->fault = fault;
    return GPUDOT_OK;
}

gpudot_status gpudot_cuda_inject_on(int dev, int fault, int skip)
{
    gpudot_status st = use_device(dev);
    if (st == GPUDOT_OK) {
        E->fault = fault;
        E->fault_skip = skip;
    }
    use_primary();
    return st;
}

static void release_engine()
{
    buf_free(E->x);
    buf_free(E->y);
    buf_free(E->out);
    buf_free(E->carry);
    buf_free(E->partials);
    buf_free(E->tickets);
    E->tickets_n = 0;
    buf_free(E->slots);
    buf_free(E->search);
    buf_free(E->topk);
    buf_free(E->exact);
    E->slots_n = 0;
    if (E->mapped && !E->lost)
        cudaFreeHost(E->mapped);
    E->mapped = E->mapped_dev = nullptr;
}

void gpudot_cuda_release(void)
{
    for (int d = 0; d < g_count; d++)
        if (engines[d].ok) {
            E = &engines[d];
            if (!E->lost)
                cudaSetDevice(d);
            release_engine();
            ring_free();
        }
    if (g_count > 0)
        E = &engines[g_primary], cudaSetDevice(g_primary);
}

int gpudot_cuda_device_count(void)
{
    return probe() == GPUDOT_OK ? g_count : 0;
}

const char *gpudot_cuda_last_error(void)
{
    return g_err;
}

void gpudot_cuda_set_staging_cap(size_t bytes, size_t piece, int pack)
{
    E->staging_cap = bytes;
    E->piece = piece;
    E->pack = pack > GPUDOT_PACK_AUTO && pack < GPUDOT_PACK_NWAYS ? pack : GPUDOT_PACK_AUTO;
}

gpudot_status gpudot_cuda_set_spread(const int *devs, int n)
{
    for (int i = 0; i < n; i++)
        if (devs[i] >= gpudot_cuda_device_count()) {
            snprintf(g_err, sizeof g_err, "there is no GPU %d (%d visible)", devs[i], g_count);
            return GPUDOT_NO_DEVICE;
        }
    spread_n = 0;
    for (int i = 0; i < n && i < GPUDOT_MAX_SHARDS; i++)
        spread_devs[i] = devs[i];
    spread_n = n;
    return GPUDOT_OK;
}

void gpudot_cuda_set_tile_from(size_t bytes, int blocks)
{
    E->tile_from = bytes;
    E->blocks_cap = blocks;
}

void gpudot_cuda_set_warp_batch(int b)
{
    E->warp_batch = b;
}

long gpudot_cuda_set_staged(int on)
{
    for (Engine &e : engines) /* (every device's: sharded calls launch on each) */
        e.no_staged = !on;
    if (probe() != GPUDOT_OK || E->prop.major < 8)
        return -1;
    return g_staged_launches.load();
}

void gpudot_cuda_set_runtime_launch(int on)
{
    E->runtime_launch = on != 0;
}

gpudot_status gpudot_cuda_malloc(void **d, size_t bytes)
{
    gpudot_status st = probe();
    if (st != GPUDOT_OK)
        return st;
    *d = nullptr;
    CK(dev_malloc(d, bytes ? bytes : 1), "cudaMalloc");
    return GPUDOT_OK;
}

void gpudot_cuda_free(void *d)
{
    if (d && !E->lost)
        cudaFree(d);
}

gpudot_status gpudot_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    if (bytes == 0)
        return GPUDOT_OK;
    CK(cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
       to_device ? "cudaMemcpy (upload)" : "cudaMemcpy (download)");
    return GPUDOT_OK;
}

gpudot_status gpudot_cuda_sync(void)
{
    CK(cudaDeviceSynchronize(), "kernel");
    return GPUDOT_OK;
}

} // extern "C"
