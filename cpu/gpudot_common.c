/* Status tables and request checks shared by both engines. */
#include "gpudot_hooks.h"
#include "gpudot_math.h"

#include <omp.h>
#include <string.h>

#define GPUDOT_ID_ENTRY(name, id, msg) id,
#define GPUDOT_MSG_ENTRY(name, id, msg) msg,
static const char *const status_ids[] = {GPUDOT_STATUS_LIST(GPUDOT_ID_ENTRY)};
static const char *const status_msgs[] = {GPUDOT_STATUS_LIST(GPUDOT_MSG_ENTRY)};

const char *gpudot_status_id(gpudot_status s)
{
    return (s >= 0 && s < GPUDOT_NSTATUS) ? status_ids[s] : "internal";
}

const char *gpudot_status_msg(gpudot_status s)
{
    return (s >= 0 && s < GPUDOT_NSTATUS) ? status_msgs[s] : "internal error";
}

static int extent_ok(int64_t e, int64_t full)
{
    return e == full || e == 1;
}

gpudot_status gpudot_check_req(const gpudot_dot_req *r)
{
    if (r->type != GPUDOT_F32 && r->type != GPUDOT_F64)
        return GPUDOT_BAD_TYPE;
    if (r->accum < GPUDOT_ACC_NATIVE || r->accum > GPUDOT_ACC_EXACT)
        return GPUDOT_BAD_OPTION;
    if (r->op < GPUDOT_OP_DOT || r->op > GPUDOT_OP_COS)
        return GPUDOT_BAD_OPTION;
    if (r->op == GPUDOT_OP_NORM && (r->pk < 0 || r->pk >= GD_NPK || r->cy))
        return GPUDOT_BAD_OPTION;
    if (r->out_other && r->accum != GPUDOT_ACC_EXACT)
        return GPUDOT_BAD_OPTION;
    if (r->fast < 0 || r->fast > 2)
        return GPUDOT_BAD_OPTION;
    if (r->nb < 0 || r->nk < 0 || r->na < 0)
        return GPUDOT_SIZE_MISMATCH;
    if (!extent_ok(r->bx, r->nb) || !extent_ok(r->kx, r->nk) || !extent_ok(r->ax, r->na))
        return GPUDOT_SIZE_MISMATCH;
    if (r->op != GPUDOT_OP_NORM &&
        (!extent_ok(r->by, r->nb) || !extent_ok(r->ky, r->nk) || !extent_ok(r->ay, r->na)))
        return GPUDOT_SIZE_MISMATCH;
    return GPUDOT_OK;
}

void gpudot_run_start(const gpudot_dot_req *r, int64_t o, size_t esx, size_t esy, const char **x,
                      const char **y)
{
    int64_t i = o % r->nb, a = o / r->nb;
    *x = (const char *)r->x +
         (size_t)((r->ax > 1 ? a : 0) * r->bx * r->kx + (r->bx > 1 ? i : 0)) * esx;
    *y = r->op != GPUDOT_OP_NORM
             ? (const char *)r->y +
                   (size_t)((r->ay > 1 ? a : 0) * r->by * r->ky + (r->by > 1 ? i : 0)) * esy
             : NULL;
}

/* Shard i of nd takes units [i u / nd, (i + 1) u / nd): as even as whole units allow. */
void gpudot_shard_layout(gpudot_sharded *L, int64_t k, int64_t a, int vector, int64_t q,
                         const int *devs, int nd)
{
    memset(L, 0, sizeof *L);
    L->n = nd;
    L->k = k;
    L->a = a;
    L->q = q;
    L->qa = vector || k <= 0 || k >= q ? 1 : q / k;
    int64_t units = vector ? (k + q - 1) / q : (a + L->qa - 1) / L->qa;
    for (int i = 0; i < nd; i++) {
        gpudot_shard *s = &L->s[i];
        int64_t u0 = units * i / nd, u1 = units * (i + 1) / nd;
        s->dev = devs[i];
        if (vector) {
            s->k0 = u0 * q;
            s->kn = (u1 * q < k ? u1 * q : k) - s->k0;
            s->a0 = 0;
            s->an = a;
        } else {
            s->k0 = 0;
            s->kn = k;
            s->a0 = u0 * L->qa;
            s->an = (u1 * L->qa < a ? u1 * L->qa : a) - s->a0;
        }
        if (s->kn <= 0 || s->an <= 0)
            s->kn = s->an = 0;
    }
}

int gpudot_same_layout(const gpudot_sharded *A, const gpudot_sharded *B)
{
    if (A->n != B->n || A->k != B->k || A->a != B->a || A->q != B->q || A->qa != B->qa)
        return 0;
    for (int i = 0; i < A->n; i++)
        if (A->s[i].dev != B->s[i].dev || A->s[i].k0 != B->s[i].k0 || A->s[i].kn != B->s[i].kn ||
            A->s[i].a0 != B->s[i].a0 || A->s[i].an != B->s[i].an)
            return 0;
    return 1;
}

int gpudot_fast_variant(gpudot_dot_req *r)
{
    int two =
        r->op == GPUDOT_OP_NORM && (r->pk == GD_P_TWO || r->pk == GD_P_SSQ || r->pk == GD_P_SSQX);
    if (!two && r->op != GPUDOT_OP_COS)
        return 0;
    int exact = r->type == GPUDOT_F32 && r->accum != GPUDOT_ACC_NATIVE;
    r->fast = exact ? 2 : 1;
    if (two)
        r->pk = exact ? GD_P_SSQX : GD_P_SSQ;
    return !exact;
}

static int fast_failed(const gpudot_dot_req *r)
{
    int64_t n = r->nb * r->na * (r->op == GPUDOT_OP_COS && (r->cx || r->cy) ? 2 : 1);
    if (r->type == GPUDOT_F32) {
        const float *o = (const float *)r->out;
        for (int64_t i = 0; i < n; i++)
            if (o[i] != o[i])
                return 1;
    } else {
        const double *o = (const double *)r->out;
        for (int64_t i = 0; i < n; i++)
            if (o[i] != o[i])
                return 1;
    }
    return 0;
}

gpudot_status gpudot_two_step(const gpudot_dot_req *r, gpudot_poll_fn poll, gpudot_pass_fn pass)
{
    gpudot_dot_req f = *r;
    int check = gpudot_fast_variant(&f);
    gpudot_status st = pass(&f, poll);
    if (st == GPUDOT_OK && check && fast_failed(&f))
        st = pass(r, poll);
    return st;
}

#ifdef GPUDOT_STAGES
#include <time.h>
static double stage_sum[GPUDOT_NSTAGES], stage_last;

void gpudot_mark(int stage)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double now = t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
    /* the call stage counts calls; every other one sums the time since the last mark */
    stage_sum[stage] += stage == GPUDOT_STAGE_CALL ? 1 : now - stage_last;
    stage_last = now;
}

void gpudot_stages(double *us, int n)
{
    double calls = stage_sum[GPUDOT_STAGE_CALL];
    for (int i = 0; i < n && i < GPUDOT_NSTAGES; i++) {
        us[i] = i == GPUDOT_STAGE_CALL ? calls : calls > 0 ? stage_sum[i] / calls : 0;
        stage_sum[i] = 0;
    }
}
#endif

/* One per per_thread of work, at most one per unit and per thread of the team. */
int gpudot_workers(int64_t work, int64_t per_thread, int64_t units)
{
    int64_t nt = work / per_thread;
    if (nt > units)
        nt = units;
    if (nt > omp_get_max_threads())
        nt = omp_get_max_threads();
    return nt < 1 ? 1 : (int)nt;
}
