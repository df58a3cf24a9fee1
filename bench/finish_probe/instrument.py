#!/usr/bin/env python3
"""Writes rk.cuh: cuda/reduce_kernels.cuh as of commit e8d2a07 (the kernels of 941b57c) with
clock64/%globaltimer probe points in columns_split's split finishes (PROBE(0..6), defined by
probe.cu), kSlotWords settable (-DSLOTW=n) and the two variants measured in
bench/results/h100-small-finish-probe-2026-11-23.txt: -DVAR_WARPFIN (warp 0 alone merges
<= 32 blocks' sums) and -DVAR_FASTMERGE (the fast cosine's merge without rescaling).

    git show e8d2a07:cuda/reduce_kernels.cuh > /tmp/rk0.cuh
    python3 instrument.py /tmp/rk0.cuh rk.cuh
    nvcc -O3 -std=c++17 -arch=sm_90 [-DVAR_WARPFIN] [-DVAR_FASTMERGE] -I../../include -I. \\
        probe.cu -o probe
"""
import sys

s = open(sys.argv[1]).read()

# the end of both warp finishes (VAR_WARPFIN): warp 0's tree, then the result
WARP_TAIL = """            PROBE(4);
            tot = warp_reduce(op, tot);
            PROBE(5);
            if (threadIdx.x == 0) {
                finish(op, p, a, tot);
                p.tickets[a] = 0;
            }
            PROBE(6);
        }
        return;
    }
#endif
"""


def rep(old, new, count=1):
    global s
    assert s.count(old) == count, (old, s.count(old))
    s = s.replace(old, new)


s = s.replace('namespace gpudot {', '#ifndef PROBE\n#define PROBE(i)\n#endif\nnamespace gpudot {', 1)
rep("constexpr int kSlotWords = 2;",
    "#ifndef SLOTW\n#define SLOTW 2\n#endif\nconstexpr int kSlotWords = SLOTW;")
rep("""    typename Op::Acc acc;
    op.init(acc);
    /* the run's blocks stride""", """    PROBE(0);
    typename Op::Acc acc;
    op.init(acc);
    /* the run's blocks stride""")
rep("""            p.splits * kThreads, kThreads, p.tiles);
    if constexpr""", """            p.splits * kThreads, kThreads, p.tiles);
    PROBE(1);
    if constexpr""")
rep("""            ticket = atomicAdd(&p.tickets[a], 1u);
    });""", """            ticket = atomicAdd(&p.tickets[a], 1u);
    });
    PROBE(2);""")
rep("""    __shared__ bool is_last;
    acc = block_reduce(op, acc);
    if (p.splits == 1) {""", """    __shared__ bool is_last;
    acc = block_reduce(op, acc);
    PROBE(2);
    if (p.splits == 1) {""")
rep("""    tot = block_reduce(op, tot);
    if (threadIdx.x == 0) {
        finish(op, p, a, tot);
        p.tickets[a] = 0;
    }""", """    PROBE(4);
    tot = block_reduce(op, tot);
    PROBE(5);
    if (threadIdx.x == 0) {
        finish(op, p, a, tot);
        p.tickets[a] = 0;
    }
    PROBE(6);""", 2)
# the slots finish: is_last known
rep("""    __syncthreads();
    if (!is_last)
        return;
    typename Op::Acc tot;
    op.init(tot);
    constexpr int kPre = K == 1""", """    __syncthreads();
    PROBE(3);
    if (!is_last)
        return;
    typename Op::Acc tot;
    op.init(tot);
#ifdef VAR_WARPFIN
    if (p.splits <= 32) {
        if (threadIdx.x < 32) {
            int sl = threadIdx.x;
            if (sl < p.splits) {
                typename Op::Acc part;
                op.init(part);
                static_for<0, K>([&](auto I) {
                    constexpr int i = decltype(I)::value;
                    unsigned long long w = sl == b ? own[i] : slot_load(&slots[(int64_t)sl * K + i]);
                    while (w == kSlotEmpty)
                        w = slot_load(&slots[(int64_t)sl * K + i]);
                    if (sl != b)
                        slots[(int64_t)sl * K + i] = kSlotEmpty;
                    from_slot<Op, i>(part, w);
                });
                op.merge(tot, part);
            }
""" + WARP_TAIL + """    constexpr int kPre = K == 1""")
# the partials finish
rep("""    __syncthreads();
    if (!is_last)
        return;
    __threadfence();
    /* the last block: thread""", """    __syncthreads();
    PROBE(3);
    if (!is_last)
        return;
#ifdef VAR_WARPFIN
    if (p.splits <= 32) {
        if (threadIdx.x < 32) {
            __threadfence();
            typename Op::Acc tot;
            op.init(tot);
            if (threadIdx.x < p.splits) {
                typename Op::Acc part = load<Op>(op, &p.partials[a * p.splits + threadIdx.x]);
                op.merge(tot, part);
            }
""" + WARP_TAIL + """    __threadfence();
    /* the last block: thread""")
rep("""template <int M> __device__ __forceinline__ void acc_merge""", """template <typename A> __device__ __forceinline__ void two_sum_t(A a, A b, A &s, A &e)
{
    A t = a + b;
    A z = t - a;
    e = (a - (t - z)) + (b - z);
    s = t;
}
template <int M> __device__ __forceinline__ void acc_merge""")
rep("""    __device__ void merge(Acc &a, const Acc &b) const
    {
        if constexpr (sizeof(A) == 8)
            gd_cos_merge_d(&a, &b, COMPM);""", """    __device__ void merge(Acc &a, const Acc &b) const
    {
#ifdef VAR_FASTMERGE
        if constexpr (FAST) {
            A q;
            if constexpr (COMPM) {
                two_sum_t(a.xr, b.xr, a.xr, q), a.cxr += b.cxr + q;
                if constexpr (CX || CY) two_sum_t(a.xi, b.xi, a.xi, q), a.cxi += b.cxi + q;
                two_sum_t(a.xx, b.xx, a.xx, q), a.cxx += b.cxx + q;
                two_sum_t(a.yy, b.yy, a.yy, q), a.cyy += b.cyy + q;
            } else {
                a.xr += b.xr, a.xx += b.xx, a.yy += b.yy;
                if constexpr (CX || CY) a.xi += b.xi;
            }
            return;
        }
#endif
        if constexpr (sizeof(A) == 8)
            gd_cos_merge_d(&a, &b, COMPM);""")
open(sys.argv[2], 'w').write(s)
