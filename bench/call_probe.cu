/*
 * Where a small call on resident data spends its time below Octave (issue 5, target 5):
 *   build/call_probe
 * times, per call and without Octave, what gdot (g, h), gnorm (g) and gcosine (g, h) do
 * once the compiled entry has found the operands: the engine call of the fast path
 * (gpudot_cuda_dot on device pointers, the result coming back through mapped memory), and
 * beside it, in the same rounds:
 *   cpu_ref      a fixed chain of dependent integer operations (~1 us): how fast this vCPU
 *                is right now (the VMs' vCPUs differ by up to 2x; bench/notes.md, target 5)
 *   ping         gpudot_cuda_ping: an empty kernel's round trip through mapped memory (the
 *                floor of the benchmark's `__gpudot__ ('__ping__')` without the MEX call)
 *   launch_empty the host time of launching an empty kernel (no wait)
 *   launch_args  the same with a 144-byte parameter (the size of the engine's Args)
 *   launch_nb    an empty kernel on a non-blocking stream instead of stream 0
 *   launch_drv   an empty kernel through the driver's cuLaunchKernel (no runtime layer)
 *   launch_drv_args  the same with the 144-byte parameter
 *   rt_runtime / rt_driver  a kernel storing one value into mapped host memory, launched
 *                through the runtime / the driver, the host spinning until it lands
 *   launch_<op>  the host time of launching that op's kernel alone (gpudot_cuda_reduce_dev
 *                into device memory, no wait): the launch's share of the call
 *   <op>         the whole engine call: set-up, launch, the kernel, the wait, the copy out
 *   <op>_sN / _dN  the same on N singles / doubles, around the plans' edges (one warp, one
 *                block, split runs: kOneBlockVecs in cuda/tuning.h)
 * Rounds alternate the rows (8 rounds of 2500 calls each); median, p10, p90 in us.  One
 * input set, as the Octave benchmark's small calls (L2 holds these sizes anyway); each
 * result is checked against a double sum on the host.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "bench_check.h"
#include "gpudot_hooks.h"
#include "gpudot_math.h"

using clk = std::chrono::steady_clock;

__global__ void empty_kernel() {}

/* a parameter block the size of the engine's kernels' (Args, 144 bytes) */
struct Big {
    long long w[18];
};
__global__ void empty_args_kernel(Big) {}

/* a value into mapped host memory (the small calls' way back) */
__global__ void store_kernel(volatile double *p, double v)
{
    *p = v;
}

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);

static volatile unsigned long long g_sink;

/* ~1 us of dependent integer work on this machine's vCPUs */
static void cpu_ref()
{
    unsigned long long h = g_sink | 1;
    for (int i = 0; i < 1000; i++)
        h = h * 6364136223846793005ull + 1442695040888963407ull;
    g_sink = h;
}

struct Row {
    std::string name;
    std::function<void()> f;
    std::function<void()> after; /* untimed, after each call (a launch row's sync) */
    std::vector<double> t;
};

static gpudot_dot_req vec_req(gpudot_op op, gpudot_type t, const void *x, const void *y, int64_t n,
                              void *out)
{
    gpudot_dot_req r;
    memset(&r, 0, sizeof r);
    r.op = op;
    r.pk = GD_P_TWO;
    r.p = 2;
    r.type = t;
    r.accum = GPUDOT_ACC_DOUBLE;
    r.nb = 1, r.nk = n, r.na = 1;
    r.bx = 1, r.kx = n, r.ax = 1;
    r.by = 1, r.ky = n, r.ay = 1;
    r.x = x;
    r.y = op == GPUDOT_OP_NORM ? nullptr : y;
    r.x_dev = 1;
    r.y_dev = op != GPUDOT_OP_NORM;
    r.out = out;
    return r;
}

static void must(gpudot_status st, const char *what)
{
    if (st != GPUDOT_OK) {
        fprintf(stderr, "call_probe: %s: %s (%s)\n", what, gpudot_status_msg(st),
                gpudot_cuda_last_error());
        exit(1);
    }
}

int main()
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    must(gpudot_cuda_ping(), "ping");
    const int64_t ns = 1024, nd = 65536;
    std::vector<float> hxs(ns), hys(ns);
    std::vector<double> hxd(nd), hyd(nd);
    srand(7);
    for (auto &v : hxs) v = (float)(rand() / (double)RAND_MAX - 0.5);
    for (auto &v : hys) v = (float)(rand() / (double)RAND_MAX - 0.5);
    for (auto &v : hxd) v = rand() / (double)RAND_MAX - 0.5;
    for (auto &v : hyd) v = rand() / (double)RAND_MAX - 0.5;
    double ws = 0, wn = 0, wd = 0, wy = 0;
    for (int64_t i = 0; i < ns; i++) {
        ws += (double)hxs[i] * hys[i];
        wn += (double)hxs[i] * hxs[i];
        wy += (double)hys[i] * hys[i];
    }
    for (int64_t i = 0; i < nd; i++)
        wd += hxd[i] * hyd[i];
    const double want_s = ws, want_n = sqrt(wn), want_c = ws / sqrt(wn) / sqrt(wy), want_d = wd;
    void *xs, *ys, *xd, *yd, *dout;
    must(gpudot_cuda_malloc(&xs, ns * 4), "malloc");
    must(gpudot_cuda_malloc(&ys, ns * 4), "malloc");
    must(gpudot_cuda_malloc(&xd, nd * 8), "malloc");
    must(gpudot_cuda_malloc(&yd, nd * 8), "malloc");
    must(gpudot_cuda_malloc(&dout, 64), "malloc");
    must(gpudot_cuda_copy(xs, hxs.data(), ns * 4, 1), "copy");
    must(gpudot_cuda_copy(ys, hys.data(), ns * 4, 1), "copy");
    must(gpudot_cuda_copy(xd, hxd.data(), nd * 8, 1), "copy");
    must(gpudot_cuda_copy(yd, hyd.data(), nd * 8, 1), "copy");

    float fo[2];
    double dd[2];
    double worst = 0;
    auto check = [&](double got, double want) {
        worst = std::max(worst, fabs(got - want) / fabs(want));
    };
    gpudot_dot_req rs = vec_req(GPUDOT_OP_DOT, GPUDOT_F32, xs, ys, ns, fo);
    gpudot_dot_req rn = vec_req(GPUDOT_OP_NORM, GPUDOT_F32, xs, nullptr, ns, fo);
    gpudot_dot_req rc = vec_req(GPUDOT_OP_COS, GPUDOT_F32, xs, ys, ns, fo);
    gpudot_dot_req rd = vec_req(GPUDOT_OP_DOT, GPUDOT_F64, xd, yd, nd, dd);
    gpudot_dot_req ls = vec_req(GPUDOT_OP_DOT, GPUDOT_F32, xs, ys, ns, dout);
    gpudot_dot_req ld = vec_req(GPUDOT_OP_DOT, GPUDOT_F64, xd, yd, nd, dout);
    auto sync = [] { CK(cudaDeviceSynchronize()); };
    launch_fn drv = nullptr;
    {
        void *fp = nullptr;
        cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000, cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !fp) {
            fprintf(stderr, "call_probe: no cuLaunchKernel\n");
            return 1;
        }
        drv = (launch_fn)fp;
    }
    cudaFunction_t f_empty, f_args, f_store;
    CK(cudaGetFuncBySymbol(&f_empty, (const void *)empty_kernel));
    CK(cudaGetFuncBySymbol(&f_args, (const void *)empty_args_kernel));
    CK(cudaGetFuncBySymbol(&f_store, (const void *)store_kernel));
    cudaStream_t nb;
    CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    Big big;
    memset(&big, 0, sizeof big);
    volatile double *hv;
    double *dv;
    CK(cudaHostAlloc((void **)&hv, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&dv, (void *)hv, 0));
    double val = 1.0;
    const double mark = -1.0;
    auto spin = [&] {
        while (*hv == mark)
            ;
    };
    auto drv_launch = [&](CUfunction f, void **params) {
        if (drv(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr) != CUDA_SUCCESS) {
            fprintf(stderr, "call_probe: cuLaunchKernel failed\n");
            exit(1);
        }
    };
    std::vector<Row> rows = {
        {"cpu_ref", cpu_ref, nullptr, {}},
        {"ping", [] { must(gpudot_cuda_ping(), "ping"); }, nullptr, {}},
        {"launch_empty", [] { empty_kernel<<<1, 1>>>(); }, sync, {}},
        {"launch_args", [&] { empty_args_kernel<<<1, 1>>>(big); }, sync, {}},
        {"launch_nb", [&] { empty_kernel<<<1, 1, 0, nb>>>(); }, sync, {}},
        {"launch_drv", [&] { drv_launch((CUfunction)f_empty, nullptr); }, sync, {}},
        {"launch_drv_args", [&] { void *a[] = {&big}; drv_launch((CUfunction)f_args, a); }, sync, {}},
        {"rt_runtime", [&] { *hv = mark; val += 1; store_kernel<<<1, 1>>>(dv, val); spin(); }, nullptr, {}},
        {"rt_driver", [&] { *hv = mark; val += 1; double *d = dv; void *a[] = {&d, &val};
                            drv_launch((CUfunction)f_store, a); spin(); }, nullptr, {}},
        {"launch_gdot_s1024", [&] { must(gpudot_cuda_reduce_dev(&ls), "launch"); }, sync, {}},
        {"launch_gdot_d65536", [&] { must(gpudot_cuda_reduce_dev(&ld), "launch"); }, sync, {}},
        {"gdot_s1024", [&] { must(gpudot_cuda_dot(&rs, nullptr), "gdot"); check(fo[0], want_s); }, nullptr, {}},
        {"gnorm_s1024", [&] { must(gpudot_cuda_dot(&rn, nullptr), "gnorm"); check(fo[0], want_n); }, nullptr, {}},
        {"gcosine_s1024", [&] { must(gpudot_cuda_dot(&rc, nullptr), "gcosine"); check(fo[0], want_c); }, nullptr, {}},
        {"gdot_d65536", [&] { must(gpudot_cuda_dot(&rd, nullptr), "gdot"); check(dd[0], want_d); }, nullptr, {}},
    };
    /* gdot of whole single / double vectors of n elements (the first n of the 2^16 doubles,
     * or of xs, ys grown to 2^16 singles): where the small kernels' time goes with n */
    void *xs16, *ys16;
    {
        std::vector<float> a(nd), b(nd);
        for (int64_t i = 0; i < nd; i++)
            a[i] = (float)hxd[i], b[i] = (float)hyd[i];
        must(gpudot_cuda_malloc(&xs16, nd * 4), "malloc");
        must(gpudot_cuda_malloc(&ys16, nd * 4), "malloc");
        must(gpudot_cuda_copy(xs16, a.data(), nd * 4, 1), "copy");
        must(gpudot_cuda_copy(ys16, b.data(), nd * 4, 1), "copy");
    }
    /* one-output runs around the plans' edges (cuda/tuning.h, kOneBlockVecs): one warp
     * up to 2 KiB an operand, one block up to 32 KiB, then split runs */
    struct Sized {
        const char *name;
        gpudot_dot_req q;
    };
    static std::vector<Sized> sized;
    sized.reserve(16);
    auto add = [&](const char *nm, gpudot_op op, gpudot_type t, void *x, void *y, int64_t n) {
        sized.push_back({nm, vec_req(op, t, x, y, n, t == GPUDOT_F32 ? (void *)fo : (void *)dd)});
        gpudot_dot_req *q = &sized.back().q;
        rows.push_back({nm, [q] { must(gpudot_cuda_dot(q, nullptr), "sized"); }, nullptr, {}});
    };
    add("gdot_s256", GPUDOT_OP_DOT, GPUDOT_F32, xs16, ys16, 256);
    add("gdot_s8192", GPUDOT_OP_DOT, GPUDOT_F32, xs16, ys16, 8192);
    add("gdot_s16384", GPUDOT_OP_DOT, GPUDOT_F32, xs16, ys16, 16384);
    add("gdot_d1024", GPUDOT_OP_DOT, GPUDOT_F64, xd, yd, 1024);
    add("gdot_d4096", GPUDOT_OP_DOT, GPUDOT_F64, xd, yd, 4096);
    add("gdot_d16384", GPUDOT_OP_DOT, GPUDOT_F64, xd, yd, 16384);
    add("gnorm_d4096", GPUDOT_OP_NORM, GPUDOT_F64, xd, nullptr, 4096);
    add("gcosine_d4096", GPUDOT_OP_COS, GPUDOT_F64, xd, yd, 4096);
    for (auto &r : rows) /* warm: first launches, workspace */
        for (int i = 0; i < 50; i++) {
            r.f();
            if (r.after)
                r.after();
        }
    const int rounds = 8, per = 2500;
    for (int round = 0; round < rounds; round++)
        for (auto &r : rows)
            for (int i = 0; i < per; i++) {
                auto t0 = clk::now();
                r.f();
                r.t.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
                if (r.after)
                    r.after();
            }
    printf("device %s, %d SMs; %d rounds x %d calls a row, us\n", prop.name,
           prop.multiProcessorCount, rounds, per);
    printf("%-20s %9s %9s %9s\n", "row", "median", "p10", "p90");
    for (auto &r : rows) {
        std::sort(r.t.begin(), r.t.end());
        size_t n = r.t.size();
        printf("%-20s %9.2f %9.2f %9.2f\n", r.name.c_str(), r.t[n / 2], r.t[n / 10], r.t[n * 9 / 10]);
    }
    printf("largest relative error of the results against the host's double sums: %.2e\n", worst);
    /* the sized rows against the host's double sums */
    for (auto &z : sized) {
        const gpudot_dot_req *q = &z.q;
        must(gpudot_cuda_dot(q, nullptr), "check");
        double got = q->type == GPUDOT_F32 ? (double)fo[0] : dd[0];
        double sxy = 0, sxx = 0, syy = 0;
        for (int64_t k = 0; k < q->nk; k++) {
            double a = q->type == GPUDOT_F32 ? (double)(float)hxd[k] : hxd[k];
            double b = q->type == GPUDOT_F32 ? (double)(float)hyd[k] : hyd[k];
            sxy += a * b, sxx += a * a, syy += b * b;
        }
        double want = q->op == GPUDOT_OP_DOT    ? sxy
                      : q->op == GPUDOT_OP_NORM ? sqrt(sxx)
                                                : sxy / sqrt(sxx) / sqrt(syy);
        /* a dot's rounding is relative to the sum of |x .* y|, not to the result */
        double scale = q->op == GPUDOT_OP_DOT ? sqrt(sxx * syy) : fabs(want);
        worst = std::max(worst, fabs(got - want) / scale);
    }
    printf("largest relative error of the sized rows' results (dots: against |x| |y|): %.2e\n", worst);
    gpudot_cuda_release();
    return worst < 1e-5 ? 0 : 1;
}
