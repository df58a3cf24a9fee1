/*
 * Where a small split reduction's time goes: columns_split of an instrumented copy of the
 * kernels (rk.cuh, written by instrument.py) at 2^12-2^16 elements and 2-64 blocks, each
 * launch timed between CUDA events (with the host's launch, unlike kernel_bench), then 60
 * launches with probes on: thread 0 of each block stores clock64 and %globaltimer at each
 * phase.  Prints per op / n / blocks: event median and p10 (us); span, the first block's
 * start to the last block's store (us); loads-all, to the last block's loads done; the last
 * block's cycles by phase; the result's bits (equal across variants).  The probe points read
 * a flag even when off, so cycle counts carry that load; compare variants, not kernels.
 * Results: bench/results/h100-small-finish-probe-2026-11-23.txt.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
__device__ unsigned long long g_clk[4096 * 8], g_gt[4096 * 8];
__device__ int g_on;
__device__ __forceinline__ unsigned long long gtimer() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
#define PROBE(i) do { if (threadIdx.x == 0 && g_on) { g_clk[blockIdx.x * 8 + (i)] = clock64(); g_gt[blockIdx.x * 8 + (i)] = gtimer(); } } while (0)
#include "rk.cuh"
using namespace gpudot;
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
static const int NSET = 64;
struct Bufs { void *x[NSET], *y[NSET]; State *partials; unsigned *tickets; unsigned long long *slots; void *out; };
template <class Op> void run(const char *name, Op op, Bufs &B, int64_t n, int splits, int esz)
{
    Args p{};
    p.nb = 1; p.nk = n; p.na = 1; p.bx = 1; p.kx = n; p.ax = 1; p.by = 1; p.ky = n; p.ay = 1;
    p.out = B.out; p.is_final = 1; p.partials = B.partials; p.tickets = B.tickets; p.slots = B.slots;
    p.splits = splits; p.lanes = 32; p.tiles = 0;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    int zero = 0, one = 1;
    CK(cudaMemcpyToSymbol(g_on, &zero, 4));
    std::vector<float> ts;
    for (int r = 0; r < 300; r++) {
        p.x = B.x[r % NSET]; p.y = B.y[r % NSET];
        cudaEventRecord(e0);
        columns_split<Op><<<splits, kThreads>>>(p, op);
        cudaEventRecord(e1);
        CK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 20) ts.push_back(ms * 1000);
    }
    std::sort(ts.begin(), ts.end());
    /* probe runs */
    CK(cudaMemcpyToSymbol(g_on, &one, 4));
    std::vector<double> ph[8]; std::vector<double> span, lastwait;
    for (int r = 0; r < 60; r++) {
        p.x = B.x[r % NSET]; p.y = B.y[r % NSET];
        columns_split<Op><<<splits, kThreads>>>(p, op);
        CK(cudaDeviceSynchronize());
        static unsigned long long c[4096 * 8], g[4096 * 8];
        CK(cudaMemcpyFromSymbol(c, g_clk, splits * 8 * 8));
        CK(cudaMemcpyFromSymbol(g, g_gt, splits * 8 * 8));
        /* the last block: the one with phase 4 recorded latest... find block with max g[.,6] or phase 2 if splits==1 */
        int lb = 0; unsigned long long g0 = ~0ull, gmax1 = 0;
        for (int b = 0; b < splits; b++) { if (g[b * 8] < g0) g0 = g[b * 8]; if (g[b*8+1] > gmax1) gmax1 = g[b*8+1]; }
        if (splits > 1) { unsigned long long best = 0; for (int b = 0; b < splits; b++) if (g[b*8+6] > best && g[b*8+6] >= g[b*8+3]) { best = g[b*8+6]; lb = b; } }
        int last = splits > 1 ? 6 : 2;
        for (int i = 1; i <= last; i++) ph[i].push_back((double)(c[lb * 8 + i] - c[lb * 8 + i - 1]));
        span.push_back((g[lb * 8 + last] - g0) / 1000.0);
        lastwait.push_back((gmax1 - g0) / 1000.0);
        CK(cudaMemset(g_clk, 0, 0));
        { static unsigned long long z[4096*8]; CK(cudaMemcpyToSymbol(g_clk, z, splits*64)); CK(cudaMemcpyToSymbol(g_gt, z, splits*64)); }
    }
    unsigned long long ob[2] = {0, 0};
    CK(cudaMemcpy(ob, B.out, 16, cudaMemcpyDeviceToHost));
    auto med = [](std::vector<double> v) { if (v.empty()) return 0.0; std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    printf("%-8s n=2^%-2d splits=%-3d event med %6.2f p10 %6.2f | span(us) %5.2f loads-all %5.2f | last blk cycles: sum %5.0f red1 %5.0f tick %5.0f merge %5.0f red2 %5.0f fin %5.0f | %016llx\n",
           name, (int)__builtin_ctzll(n), splits, ts[ts.size() / 2], ts[ts.size() / 10], med(span), med(lastwait), med(ph[1]), med(ph[2]), med(ph[3]), med(ph[4]), med(ph[5]), med(ph[6]), ob[0]);
    fflush(stdout);
}
int main(int argc, char **argv)
{
    Bufs B;
    int64_t nmax = 1 << 16;
    std::vector<double> h(2 * nmax);
    srand(1);
    for (auto &v : h) v = rand() / (double)RAND_MAX - 0.5;
    std::vector<float> hf(h.begin(), h.end());
    void *xf[NSET], *yf[NSET];
    for (int s = 0; s < NSET; s++) {
        CK(cudaMalloc(&B.x[s], nmax * 16)); CK(cudaMalloc(&B.y[s], nmax * 16));
        CK(cudaMemcpy(B.x[s], h.data(), nmax * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(B.y[s], h.data() + nmax, nmax * 8, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&xf[s], nmax * 8)); CK(cudaMalloc(&yf[s], nmax * 8));
        CK(cudaMemcpy(xf[s], hf.data(), nmax * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(yf[s], hf.data() + nmax, nmax * 4, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&B.partials, 4096 * sizeof(State)));
    CK(cudaMalloc(&B.tickets, 4096 * 4)); CK(cudaMemset(B.tickets, 0, 4096 * 4));
    CK(cudaMalloc(&B.slots, 4096 * 8 * 8)); CK(cudaMemset(B.slots, 0xff, 4096 * 64));
    CK(cudaMalloc(&B.out, 64));
    Bufs Bf = B; for (int s = 0; s < NSET; s++) Bf.x[s] = xf[s], Bf.y[s] = yf[s];
    printf("SLOTW=%d\n", SLOTW);
    int ss[] = {2, 8, 32, 64};
    for (int lg : {12, 14, 16}) {
        int64_t n = 1ll << lg;
        for (int sp : ss) {
            if ((int64_t)sp * 2048 > n * 2 && sp > 1) continue;
            run("dot_d", DotOp<double, PLAIN_D, false, false>{}, B, n, sp, 8);
            run("nrm2_d", NormOp<double, double, GD_P_SSQ, false, false>{GD_P_SSQ, 2.0}, B, n, sp, 8);
            run("nrm1_d", NormOp<double, double, GD_P_ONE, false, false>{GD_P_ONE, 1.0}, B, n, sp, 8);
            run("cos_d", CosOp<double, double, false, false, false, true>{1}, B, n, sp, 8);
            run("cosc_d", CosOp<double, double, true, false, false, true>{1}, B, n, sp, 8);
            run("cosc_f", CosOp<float, double, true, false, false, true>{2}, Bf, n, sp, 4);
            run("cos_f", CosOp<float, float, false, false, false, true>{1}, Bf, n, sp, 4);
        }
    }
    return 0;
}
