/* Status tables and request checks shared by both engines. */
#include "gpudot.h"
#include "gpudot_math.h"

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
    if (r->accum < GPUDOT_ACC_NATIVE || r->accum > GPUDOT_ACC_COMP)
        return GPUDOT_BAD_OPTION;
    if (r->op < GPUDOT_OP_DOT || r->op > GPUDOT_OP_COS)
        return GPUDOT_BAD_OPTION;
    if (r->op == GPUDOT_OP_NORM && (r->pk < 0 || r->pk >= GD_NPK || r->cy))
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
