/*
 * The CUDA engine on host data (the staging ring: pack, copy, reduce) without Octave:
 * gdot's engine call on pageable host vectors, against the pinned-transfer floor (bytes
 * over a pinned host-to-device copy measured in the same run), and the 16-thread pack
 * alone.  Isolates the ring from the MEX call and Octave (issue 5, target 6).
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -Iinclude bench/ring_bench.cu \
 *        <build>/obj/gpudot_*.o -lcublas -o ring_bench &&
 *   ./ring_bench [slot_cap_MiB [piece_KiB [pack [sources]]]]   (pack: a GPUDOT_PACK_* number)
 * sources "octave": each input set's x and y their own malloc, filled by one thread, as an
 * Octave session holds its arrays (the default: two 1 GiB pools filled in parallel); for the
 * question why the same ring call takes longer from Octave (bench/notes.md, target 6).
 * Environment: RB_ALLOC how the "octave" sources are allocated: malloc (default), a64
 * (64-byte aligned), huge / nohuge (2 MiB aligned, madvise MADV_HUGEPAGE / MADV_NOHUGEPAGE
 * before they are written); RB_POOL_NOHUGE=1 madvises the pools MADV_NOHUGEPAGE;
 * RB_MINLOG / RB_MAXLOG / RB_CLASS (single, double) narrow the sizes.  Built with -DGPUDOT_AB
 * against an engine that has a variant switch gpudot_ab_set (an A/B build, e.g. fc574d1's),
 * RB_AB="v0 v1 ..." times the variants call by call in one process, so that the host's phases
 * hit them alike (bench/results/h100-ring-timeline-ab-2026-11-24.txt).  RB_THREADS="t0 t1 ..."
 * times the ring with that many threads (as OpenMP would use them), call by call in turn;
 * RB_PACK="w0 w1 ..." the ways of packing (GPUDOT_PACK_* numbers) the same way.
 * With a STAGES build it prints the engine's stage sums and the ring's timeline (gpudot_cuda_timeline) of the
 * last call of each size: every copy and kernel at 2^22 (RB_TIMELINE_ALL: at every size).
 * Median of RB_CALLS calls (default 15; the environment variable) after two that size the
 * ring, with the mean, the 90th percentile and the slowest of them: Octave's bench takes
 * means of loops, so a tail of slow calls moves its numbers and not this median.  Input
 * sets rotated so the last-level cache holds none of the data.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <omp.h>
#include <sys/mman.h>

#include "gpudot_hooks.h"


#ifdef GPUDOT_STAGES
/* built against engine objects of `make -f mex.mk STAGES=1` with -DGPUDOT_STAGES: the
 * engine's stage sums per call (us), in the order of the GPUDOT_STAGE_* enum */
static const char *stage_names[GPUDOT_NSTAGES] = {
    "calls", "parse", "resolve", "prepare", "engine_entry", "ring_alloc", "drain", "wait",
    "engine_exit", "launch_prep", "launch", "launch_check", "ring_calls", "ring_waits", "region_end", "exit"};
#endif

/* the process's anonymous memory in transparent huge pages (kB), from /proc/self/smaps_rollup */
static long thp_kb()
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

#ifdef GPUDOT_STAGES
/* The last call's copies and kernels on the GPU (the engine's timeline): when the copy
 * engine worked, how fast, and how long it waited for the host to queue the next piece (the
 * packing threads' pace); all of it with `full`, else the sums. */
static void timeline(bool full)
{
    enum { kMax = 1024 };
    static double g[kMax], h[kMax];
    static char k[kMax];
    static size_t b[kMax];
    int n = gpudot_cuda_timeline(1, g, h, k, b, kMax);
    double busy = 0, gaps = 0, first = -1, last_end = 0, kern_end = 0, r_host = 0, r_gpu = 0;
    size_t bytes = 0;
    int copies = 0;
    double prev_end = -1;
    for (int i = 0; i + 1 < n; i++) {
        if (k[i] == 'c' && k[i + 1] == 'C') {
            double d = g[i + 1] - g[i];
            if (first < 0)
                first = g[i];
            if (prev_end >= 0)
                gaps += g[i] - prev_end;
            if (full)
                printf("#    copy %2d: queued at %7.1f us (host), ran %7.1f .. %7.1f us: %6.1f us, %4zu KiB, %5.1f GB/s, idle before it %5.1f us\n",
                       copies, h[i], g[i], g[i + 1], d, b[i] >> 10, b[i] / d * 1e-3,
                       prev_end >= 0 ? g[i] - prev_end : g[i]);
            busy += d, bytes += b[i], copies++;
            prev_end = last_end = g[i + 1];
        } else if (k[i] == 'k' && k[i + 1] == 'K') {
            if (full)
                printf("#    kernel: queued at %7.1f us (host), ran %7.1f .. %7.1f us\n", h[i], g[i], g[i + 1]);
            kern_end = g[i + 1];
        }
    }
    for (int i = 0; i < n; i++)
        if (k[i] == 'r')
            r_host = h[i], r_gpu = g[i];
    printf("#  timeline of the last call: %d copies, %.1f MiB; first copy at %.1f us, last copy ends %.1f us; "
           "copy engine busy %.1f us (%.1f GB/s while busy), idle between copies %.1f us; last kernel ends %.1f us; "
           "result queued at %.1f us (host), reached at %.1f us\n",
           copies, bytes / 1048576.0, first, last_end, busy, bytes / busy * 1e-3, gaps, kern_end, r_host, r_gpu);
}
#endif

#ifdef GPUDOT_AB
extern "C" void gpudot_ab_set(int v);
#endif

/* RB_PACK: the way of packing, call by call, with the run's cap and piece */
static size_t g_cap, g_piece;
static void set_pack(int v)
{
    gpudot_cuda_set_staging_cap(g_cap, g_piece, v);
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    /* optional: a cap on the slot (MiB, x and y together) and the size of the ring's copies
     * (KiB) through the engine's test hook, to compare settings in one build */
    size_t cap = argc > 1 ? (size_t)atoi(argv[1]) << 20 : 0;
    size_t piece = argc > 2 ? (size_t)atoi(argv[2]) << 10 : 0;
    int pack = argc > 3 ? atoi(argv[3]) : GPUDOT_PACK_AUTO;
    gpudot_cuda_set_staging_cap(cap, piece, pack);
    g_cap = cap, g_piece = piece;
    const size_t pool = (size_t)1 << 30; /* per operand: 1 GiB of pageable data */
    char *px = (char *)malloc(pool), *py = (char *)malloc(pool);
    if (!px || !py)
        return 1;
    int octave_like = argc > 4 && !strcmp(argv[4], "octave");
    const char *alloc = getenv("RB_ALLOC") ? getenv("RB_ALLOC") : "malloc";
    if (getenv("RB_POOL_NOHUGE") && atoi(getenv("RB_POOL_NOHUGE"))) {
        /* whole pages inside the pools */
        uintptr_t a = ((uintptr_t)px + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)py + 4095) & ~(uintptr_t)4095;
        madvise((void *)a, pool - 4096, MADV_NOHUGEPAGE);
        madvise((void *)b, pool - 4096, MADV_NOHUGEPAGE);
    }
#pragma omp parallel for
    for (size_t i = 0; i < pool / 4; i++) {
        unsigned h = (unsigned)(i * 2654435761u);
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        ((float *)px)[i] = (float)(h & 0xffff) / 65536.0f - 0.5f;
        ((float *)py)[i] = (float)((h >> 16) & 0xffff) / 65536.0f - 0.5f;
    }
    /* "octave": the sets of a size are copied into arrays of their own, each allocated and
     * written by this one thread before that size's calls, and freed after them (by the
     * owner of that size's loop turn, whichever way the turn ends) */
    struct Sets {
        std::vector<char *> a; /* set k's x at 2k, its y at 2k + 1 */
        ~Sets()
        {
            for (char *p : a)
                free(p);
        }
    };
    /* the floor's rate: one 256 MiB pinned copy, median of 5 */
    size_t fb = (size_t)256 << 20;
    void *hp, *dp;
    if (cudaHostAlloc(&hp, fb, cudaHostAllocDefault) != cudaSuccess || cudaMalloc(&dp, fb) != cudaSuccess)
        return 1;
    memset(hp, 1, fb);
    std::vector<double> rv;
    for (int r = 0; r < 6; r++) {
        double t0 = omp_get_wtime();
        cudaMemcpy(dp, hp, fb, cudaMemcpyHostToDevice);
        if (r)
            rv.push_back(fb / (omp_get_wtime() - t0));
    }
    double rate = median(rv);
    cudaFreeHost(hp);
    cudaFree(dp);
    printf("# pinned host->device %.1f GB/s; gdot (\"double\") on pageable host data; slot cap %zu MiB, piece %zu KiB, pack %d (as done: %d); sources %s\n",
           rate / 1e9, cap >> 20, piece >> 10, pack, gpudot_pack_way(pack), octave_like ? "octave" : "pools");
    if (octave_like)
        printf("# sources allocated by %s\n", alloc);
    printf("# AnonHugePages after the pools' fill: %ld kB\n", thp_kb());
    int calls = getenv("RB_CALLS") ? atoi(getenv("RB_CALLS")) : 15;
    calls = calls < 1 ? 1 : calls;
    printf("%-7s %5s %10s %10s %7s %10s %10s %10s %6s\n", "class", "log2n", "us", "floor_us", "ratio",
           "mean_us", "p90_us", "max_us", "slow");
    int e0 = getenv("RB_MINLOG") ? atoi(getenv("RB_MINLOG")) : 20;
    int e1 = getenv("RB_MAXLOG") ? atoi(getenv("RB_MAXLOG")) : 26;
    const char *only = getenv("RB_CLASS");
    for (int dbl = 0; dbl < 2; dbl++) {
        if (only && strcmp(only, dbl ? "double" : "single"))
            continue;
        for (int e = e0; e <= e1; e++) {
            int64_t n = (int64_t)1 << e;
            size_t bytes = (size_t)n * (dbl ? 8 : 4);
            int sets = (int)std::min<size_t>(pool / bytes, 16);
            Sets owner;
            std::vector<char *> &own = owner.a;
            if (octave_like) {
                for (int k = 0; k < sets; k++)
                    for (char *base : {px, py}) {
                        char *a = nullptr;
                        size_t big = (bytes + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
                        if (!strcmp(alloc, "a64"))
                            a = (char *)aligned_alloc(64, (bytes + 63) & ~(size_t)63);
                        else if (!strcmp(alloc, "huge") || !strcmp(alloc, "nohuge")) {
                            a = (char *)aligned_alloc((size_t)2 << 20, big);
                            if (a)
                                madvise(a, big, !strcmp(alloc, "huge") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
                        } else
                            a = (char *)malloc(bytes);
                        if (!a)
                            return 1;
                        memcpy(a, base + (size_t)k * bytes, bytes);
                        own.push_back(a);
                    }
            }
            if (octave_like)
                printf("#  sets of 2^%d: AnonHugePages %ld kB, first x at %p\n", e, thp_kb(), (void *)own[0]);
            std::vector<double> t;
            double out;
            /* set k's call: its time (s), or < 0 where the engine failed */
            auto one_call = [&](int k) {
                gpudot_dot_req q;
                memset(&q, 0, sizeof q);
                q.op = GPUDOT_OP_DOT;
                q.type = dbl ? GPUDOT_F64 : GPUDOT_F32;
                q.x = octave_like ? own[2 * k] : px + (size_t)k * bytes;
                q.y = octave_like ? own[2 * k + 1] : py + (size_t)k * bytes;
                q.nb = 1, q.nk = n, q.na = 1;
                q.bx = 1, q.kx = n, q.ax = 1;
                q.by = 1, q.ky = n, q.ay = 1;
                q.accum = GPUDOT_ACC_DOUBLE;
                q.out = &out;
#ifdef GPUDOT_STAGES
                gpudot_mark(GPUDOT_STAGE_CALL);
#endif
                double t0 = omp_get_wtime();
                if (gpudot_cuda_dot(&q, NULL) != GPUDOT_OK) {
                    fprintf(stderr, "gpudot: %s\n", gpudot_cuda_last_error());
                    return -1.0;
                }
                return omp_get_wtime() - t0;
            };
            /* RB_THREADS or RB_AB: settings call by call, in turn (set(v) before each call),
             * so that the host's phases hit them alike; per setting the median, p10, p90 */
            auto interleaved = [&](const char *list, char tag, void (*set)(int)) {
                int vs[8], nv = 0;
                for (const char *q = list; *q && nv < 8;) {
                    char *end;
                    long v = strtol(q, &end, 10);
                    if (end == q)
                        break;
                    vs[nv++] = (int)v;
                    q = end;
                }
                std::vector<double> tv[8];
                for (int r = 0; r < calls + 2; r++)
                    for (int j = 0; j < nv; j++) {
                        set(vs[j]);
                        double dt = one_call((r * nv + j) % sets);
                        if (dt < 0)
                            return false;
                        if (r >= 2) /* the first calls size the ring */
                            tv[j].push_back(dt);
                    }
                double floor_us = 2.0 * bytes / rate * 1e6;
                for (int j = 0; j < nv; j++) {
                    std::vector<double> v = tv[j];
                    std::sort(v.begin(), v.end());
                    double us = v[v.size() / 2] * 1e6;
                    printf("%-7s %5d %c%-3d %10.1f %10.1f %7.3f p10 %8.1f p90 %8.1f\n", dbl ? "double" : "single", e,
                           tag, vs[j], us, floor_us, us / floor_us, v[v.size() / 10] * 1e6,
                           v[(size_t)(0.9 * (v.size() - 1))] * 1e6);
                }
                return true;
            };
            if (getenv("RB_THREADS")) {
                /* the ring packs with as many threads as OpenMP would use */
                int t_was = omp_get_max_threads();
                bool ok = interleaved(getenv("RB_THREADS"), 't', omp_set_num_threads);
                omp_set_num_threads(t_was);
                if (!ok)
                    return 1;
                continue;
            }
            if (getenv("RB_PACK")) {
                bool ok = interleaved(getenv("RB_PACK"), 'p', set_pack);
                gpudot_cuda_set_staging_cap(cap, piece, pack);
                if (!ok)
                    return 1;
                continue;
            }
#ifdef GPUDOT_AB
            if (getenv("RB_AB")) {
                if (!interleaved(getenv("RB_AB"), 'v', gpudot_ab_set))
                    return 1;
                continue;
            }
#endif
#ifdef GPUDOT_STAGES
            double sus[GPUDOT_NSTAGES];
#endif
            for (int r = 0; r < calls + 2; r++) {
                double dt = one_call(r % sets);
                if (dt < 0)
                    return 1;
                if (r >= 2) /* the first calls size the ring */
                    t.push_back(dt);
#ifdef GPUDOT_STAGES
                if (r == 1)
                    gpudot_stages(sus, GPUDOT_NSTAGES); /* reset */
#endif
            }
#ifdef GPUDOT_STAGES
            gpudot_stages(sus, GPUDOT_NSTAGES);
            printf("#  stages, us a call:");
            for (int i = 1; i < GPUDOT_NSTAGES; i++)
                if (sus[i] >= 0.5)
                    printf(" %s %.0f", stage_names[i], sus[i]);
            printf("\n");
            timeline(e == 22 || getenv("RB_TIMELINE_ALL"));
#endif
            double us = median(t) * 1e6, floor_us = 2.0 * bytes / rate * 1e6, mean = 0;
            for (double v : t)
                mean += v / t.size();
            std::sort(t.begin(), t.end());
            int slow = 0; /* calls over 1.5x the median */
            for (double v : t)
                slow += v * 1e6 > 1.5 * us;
            printf("%-7s %5d %10.1f %10.1f %7.2f %10.1f %10.1f %10.1f %6d\n", dbl ? "double" : "single", e, us,
                   floor_us, us / floor_us, mean * 1e6, t[(size_t)(0.9 * (t.size() - 1))] * 1e6, t.back() * 1e6,
                   slow);
        }
    }
    return 0;
}
