/*
 * The launchers of one (op, element type) pair: mex.mk compiles this file once per pair
 * with GPUDOT_KERNELS_OP (DotLaunch, NormLaunch or CosLaunch), GPUDOT_KERNELS_F64 (0
 * or 1) and GPUDOT_KERNELS_LAUNCHER (its name in launch.cuh), so that the pairs' kernels compile in
 * parallel.  Each launcher picks one kernel per (mode, complexity) at run time.
 */
#include "launch.cuh"
#include "ops.cuh"

namespace gpudot
{
namespace
{

template <auto Kern, class Op> void kl(LaunchCtx &c, dim3 grid, Args p, Op op, unsigned smem = 0)
{
    static CUfunction fs[kMaxLaunchDevices] = {};
    CUfunction &f = fs[c.dev];
    cu_launch_fn drv = c.drv;
    if (drv && !f) {
        cudaFunction_t g;
        if (cudaGetFuncBySymbol(&g, (const void *)Kern) == cudaSuccess)
            f = (CUfunction)g;
        cudaGetLastError();
    }
    if (drv && f) {
        void *a[] = {&p, &op};
        CUresult r =
            drv(f, grid.x, grid.y, grid.z, kThreads, 1, 1, smem, (CUstream)c.stream, a, nullptr);
        if (r != CUDA_SUCCESS)
            c.err = (cudaError_t)r;
        return;
    }
    Kern<<<grid, kThreads, smem, c.stream>>>(p, op);
}

/*
 * Staged warp columns (columns_staged) where the runs allow: both operands' runs adjacent
 * (no broadcast), 16-byte aligned, whole 16-byte vectors, the same vectors as run_sum's
 * vector path reads, and at least a block's round of outputs (8 warps' groups) in a tile.
 * Sets p.stage_cols (a whole number of the block's rounds) and returns the grid, or 0
 * where columns_warp runs.
 */
template <class Op> unsigned staged_grid(LaunchCtx &c, Args &p)
{
    using T = typename Op::T;
    constexpr int ex = Op::CX ? 2 : 1, EV = Vec16<T>::n / ex;
    constexpr unsigned smem = kStages * kStagedBytes;
    static_assert(stages_runs<Op>(), "launch_op asks for stageable Ops alone");
    if (!c.staged || p.nk == 0 || p.nk % EV || p.kx != p.nk || p.ax != p.na ||
        (uintptr_t)p.x % 16 ||
        (!Op::UNARY && (p.ky != p.nk || p.ay != p.na || (uintptr_t)p.y % 16)))
        return 0;
    int64_t run = p.nk * ex * (int64_t)sizeof(T) * (Op::UNARY ? 1 : 2);
    int64_t round = (kThreads / 32) * (32 / p.lanes), cols = kStagedBytes / run;
    if (cols < round || p.na * run < kStagedFromBytes)
        return 0;
    p.stage_cols = (int)(cols / round * round);
    static int occs[kMaxLaunchDevices] = {};
    int &occ = occs[c.dev];
    if (!occ) {
        int o = 0;
        if (cudaFuncSetAttribute(columns_staged<Op>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 smem) == cudaSuccess)
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, columns_staged<Op>, kThreads, smem);
        cudaGetLastError();
        occ = o > 0 ? o : -1;
    }
    if (occ < 0)
        return 0;
    int64_t tiles = (p.na + p.stage_cols - 1) / p.stage_cols, most = (int64_t)occ * c.sm_count;
    return (unsigned)(tiles < most ? tiles : most);
}

/* Blocks of each kernel that fit one SM, from the occupancy calculator (once per kernel):
 * plan_launch assumes kBlocksPerSM, and a kernel whose registers allow fewer would run its
 * grid in more than one wave, the last partly empty.  Grids only shrink here, so the
 * workspace sized for the plan suffices. */
/* The host's merge of chunk states (HostMerge), with the Op's own merge and write. */
template <class Op> void merge_states(const Op &op, const HostMerge &m)
{
    using A = typename Op::A;
    for (int64_t o = 0; o < m.nout; o++) {
        typename Op::Acc acc;
        for (int64_t c = 0; c < m.nchunks; c++) {
            typename Op::Acc b;
            op.init(b);
            A *pb = reinterpret_cast<A *>(&b);
            const State &s = m.states[o * m.nchunks + c];
            for (int j = 0; j < nfields<Op>(); j++)
                if ((Op::kLive >> j) & 1u)
                    pb[j] = (A)s.v[j];
            if (c == 0)
                acc = b;
            else
                op.merge(acc, b);
        }
        op.write(m.out, o, acc);
    }
}

template <class Op> void launch_op(LaunchCtx &c, const Launch &L0, const Args &p0, const Op &op)
{
    if (c.merge) {
        merge_states(op, *c.merge);
        return;
    }
    static int occs[kMaxLaunchDevices][3] = {};
    int *occ = occs[c.dev];
    Launch L = L0;
    Args p = p0;
    if (!occ[L.kind]) {
        int o = 0;
        if (L.kind == 0)
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, columns_split<Op>, kThreads, 0);
        else if (L.kind == 1)
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, columns_warp<Op>, kThreads, 0);
        else
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, rows<Op>, kThreads, 0);
        cudaGetLastError();
        occ[L.kind] = o > 0 ? o : 1;
    }
    int64_t tb = (int64_t)occ[L.kind] * c.sm_count;
    if (occ[L.kind] < kBlocksPerSM && !c.fixed) {
        if (L.kind == 0 && p.na * p.splits > tb) {
            int64_t s = (tb + p.na - 1) / p.na;
            p.splits = (int)(s < 1 ? 1 : s < p.splits ? s : p.splits);
            L.grid = dim3((unsigned)(p.na * p.splits));
        } else if (L.kind == 2 && (int64_t)L.grid.x * L.grid.y > tb && L.grid.y > 1) {
            int64_t s = tb / L.grid.x;
            p.splits = (int)(s < 1 ? 1 : s < p.splits ? s : p.splits);
            L.grid.y = (unsigned)p.splits;
        }
    }
    if (L.kind == 0) {
        if constexpr (has_small_finish<Op>())
            if (p.splits <= kSmallSplits) {
                kl<columns_split<Op, true>>(c, L.grid, p, op);
                return;
            }
        kl<columns_split<Op>>(c, L.grid, p, op);
    } else if (L.kind == 1) {
        if constexpr (Op::kQuery)
            if (p.lanes == 32 && p.nk <= kQueryMax && p.kx == p.nk && p.ky == p.nk &&
                (p.ax == 1) != (p.ay == 1)) {
                kl<columns_query<Op>>(c, L.grid, p, op);
                return;
            }
        if constexpr (stages_runs<Op>())
            if (unsigned g = staged_grid<Op>(c, p)) {
                kl<columns_staged<Op>>(c, dim3(g), p, op, kStages * kStagedBytes);
                g_staged_launches++;
                return;
            }
        kl<columns_warp<Op>>(c, L.grid, p, op);
    } else
        kl<rows<Op>>(c, L.grid, p, op);
}

/* One functor per op; go<T, A, COMP>() picks the rest of the template arguments. */
struct DotLaunch {
    template <typename T, typename A, bool COMPM>
    static void go(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        constexpr int M = COMPM ? COMP : sizeof(A) == 4 ? NATIVE_F : PLAIN_D;
        if (r->cx && r->cy)
            launch_op(c, L, p, DotOp<T, M, true, true>{});
        else if (r->cx)
            launch_op(c, L, p, DotOp<T, M, true, false>{});
        else if (r->cy)
            launch_op(c, L, p, DotOp<T, M, false, true>{});
        else
            launch_op(c, L, p, DotOp<T, M, false, false>{});
    }
};

struct NormLaunch {
    template <typename T, typename A, bool COMPM, bool CX>
    static void go_cx(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        /* the fast 2-norm, 1 and Inf get code of their own; the rest (Blue's 2-norm, run
         * only where the fast one cannot vouch for its result, and other p) share one kernel
         * with the kind at run time */
        A pv = (A)r->p;
        if (r->pk == GD_P_SSQ || r->pk == GD_P_SSQX)
            launch_op(c, L, p, NormOp<T, A, GD_P_SSQ, COMPM, CX>{r->pk, pv});
        else if (r->pk == GD_P_ONE)
            launch_op(c, L, p, NormOp<T, A, GD_P_ONE, COMPM, CX>{r->pk, pv});
        else if (r->pk == GD_P_INF)
            launch_op(c, L, p, NormOp<T, A, GD_P_INF, COMPM, CX>{r->pk, pv});
        else
            launch_op(c, L, p, NormOp<T, A, -1, COMPM, CX>{r->pk, pv});
    }
    template <typename T, typename A, bool COMPM>
    static void go(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->cx)
            go_cx<T, A, COMPM, true>(c, L, p, r);
        else
            go_cx<T, A, COMPM, false>(c, L, p, r);
    }
};

struct CosLaunch {
    template <typename T, typename A, bool COMPM, bool FAST>
    static void go_f(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->cx && r->cy)
            launch_op(c, L, p, CosOp<T, A, COMPM, true, true, FAST>{r->fast});
        else if (r->cx)
            launch_op(c, L, p, CosOp<T, A, COMPM, true, false, FAST>{r->fast});
        else if (r->cy)
            launch_op(c, L, p, CosOp<T, A, COMPM, false, true, FAST>{r->fast});
        else
            launch_op(c, L, p, CosOp<T, A, COMPM, false, false, FAST>{r->fast});
    }
    template <typename T, typename A, bool COMPM>
    static void go(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
    {
        if (r->fast)
            go_f<T, A, COMPM, true>(c, L, p, r);
        else
            go_f<T, A, COMPM, false>(c, L, p, r);
    }
};

/* Accumulator type and compensation from the request's mode: single "native"
 * accumulates in float, everything else in double. */
template <class F>
void by_mode_f32(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    if (r->accum == GPUDOT_ACC_NATIVE)
        F::template go<float, float, false>(c, L, p, r);
    else if (r->accum == GPUDOT_ACC_DOUBLE)
        F::template go<float, double, false>(c, L, p, r);
    else
        F::template go<float, double, true>(c, L, p, r);
}

template <class F>
void by_mode_f64(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
{
    if (r->accum == GPUDOT_ACC_COMP)
        F::template go<double, double, true>(c, L, p, r);
    else
        F::template go<double, double, false>(c, L, p, r);
}

} // namespace

void GPUDOT_KERNELS_LAUNCHER(LaunchCtx &c, const Launch &L, const Args &p, const gpudot_dot_req *r)
{
#if GPUDOT_KERNELS_F64
    by_mode_f64<GPUDOT_KERNELS_OP>(c, L, p, r);
#else
    by_mode_f32<GPUDOT_KERNELS_OP>(c, L, p, r);
#endif
}

} // namespace gpudot
