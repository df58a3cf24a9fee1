/*
 * The garray registry: the arrays kept on the device between calls, by id.  garray.m holds
 * an id; the data lives here (on the device), or, where no GPU is usable, in the garray
 * object itself (an entry with d == NULL, kept for the counts).
 */
#include <stdlib.h>

#include "gpudot.h"
#include "registry.h"

static garr_t *garr = NULL;
static size_t ngarr = 0, cap_garr = 0;
static int64_t next_garr_id = 1;

/* id -> position in garr, for every call on a garray (a scan of garr took time in
 * proportion to the garrays alive, and made deleting n of them O(n^2)): open addressing
 * with linear probing, slots hold position + 1 (0: empty), at most half full; deletion
 * shifts the rest of its run back, so no tombstones. */
static size_t *gidx = NULL;
static size_t cap_gidx = 0; /* a power of two, or 0 */

static size_t gidx_home(int64_t id)
{
    return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & (cap_gidx - 1);
}

/* the slot holding id, or the empty slot where it would go */
static size_t gidx_slot(int64_t id)
{
    size_t s = gidx_home(id);
    while (gidx[s] && garr[gidx[s] - 1].id != id)
        s = (s + 1) & (cap_gidx - 1);
    return s;
}

/* Room for one more entry (the table at most half full); 0 where memory ran out. */
static int gidx_reserve(void)
{
    if (2 * (ngarr + 1) <= cap_gidx)
        return 1;
    size_t nc = cap_gidx ? 2 * cap_gidx : 64;
    size_t *t = calloc(nc, sizeof *t);
    if (!t)
        return 0;
    free(gidx);
    gidx = t;
    cap_gidx = nc;
    for (size_t i = 0; i < ngarr; i++)
        gidx[gidx_slot(garr[i].id)] = i + 1;
    return 1;
}

garr_t *registry_find(int64_t id)
{
    if (!cap_gidx)
        return NULL;
    size_t s = gidx_slot(id);
    return gidx[s] ? &garr[gidx[s] - 1] : NULL;
}

/* Removes *g from garr (the last entry takes its place) and from the index. */
void registry_remove(garr_t *g)
{
    size_t s = gidx_slot(g->id), pos = (size_t)(g - garr);
    /* backward-shift deletion: later entries of the run move into the hole where their
     * home slot allows */
    for (size_t j = (s + 1) & (cap_gidx - 1); gidx[j]; j = (j + 1) & (cap_gidx - 1)) {
        size_t h = gidx_home(garr[gidx[j] - 1].id);
        int stays = s <= j ? (s < h && h <= j) : (s < h || h <= j); /* h in (s, j], cyclically */
        if (!stays) {
            gidx[s] = gidx[j];
            s = j;
        }
    }
    gidx[s] = 0;
    if (pos != ngarr - 1) {
        garr[pos] = garr[ngarr - 1];
        gidx[gidx_slot(garr[pos].id)] = pos + 1;
    }
    ngarr--;
}

/* Room for one more entry in both tables; 0 where host memory ran out. */
int registry_reserve(void)
{
    if (ngarr == cap_garr) {
        size_t nc = cap_garr ? 2 * cap_garr : 16;
        garr_t *g = realloc(garr, nc * sizeof *g);
        if (!g)
            return 0;
        garr = g;
        cap_garr = nc;
    }
    return gidx_reserve();
}

int64_t registry_next_id(void)
{
    return next_garr_id++;
}

void registry_add(const garr_t *e)
{
    garr[ngarr] = *e;
    gidx[gidx_slot(e->id)] = ++ngarr;
}

size_t registry_count(void)
{
    return ngarr;
}

size_t registry_bytes(void)
{
    size_t b = 0;
    for (size_t i = 0; i < ngarr; i++)
        b += garr[i].bytes;
    return b;
}

void registry_free_data(garr_t *g)
{
    gpudot_cuda_free(g->d);
    g->d = NULL;
    if (g->sh) {
        gpudot_cuda_shards_free(g->sh);
        free(g->sh);
        g->sh = NULL;
    }
}

void registry_release(void)
{
    for (size_t i = 0; i < ngarr; i++)
        registry_free_data(&garr[i]);
    free(garr);
    garr = NULL;
    ngarr = cap_garr = 0;
    free(gidx);
    gidx = NULL;
    cap_gidx = 0;
}
