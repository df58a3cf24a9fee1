/*
 * The garray registry (mex/registry.c): garrays by id, found in constant time.
 */
#ifndef GPUDOT_REGISTRY_H
#define GPUDOT_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "gateway.h"
#include "gpudot.h"

typedef struct {
    int64_t id;
    void *d;            /* device memory, or NULL for a host-held garray or one on several GPUs */
    gpudot_sharded *sh; /* on several GPUs (malloc'd), or NULL */
    size_t bytes;
    int nd;
    mwSize dims[MAXDIMS];
    int single, cplx;
} garr_t;

int registry_reserve(void);         /* room for one more entry; 0 where host memory ran out */
int64_t registry_next_id(void);     /* ids are never reused */
void registry_add(const garr_t *e); /* after registry_reserve */
garr_t *registry_find(int64_t id);  /* NULL where unknown */
void registry_remove(garr_t *g);
void registry_free_data(garr_t *g); /* its device memory, on one GPU or several */
size_t registry_count(void);
size_t registry_bytes(void);
void registry_release(void); /* frees every garray's device memory and the tables */

/* mex/garray_ops.c: the garray a struct ("garray_id", id) names (NULL where none); whether
 * its data is on a device (one or several) */
const garr_t *garray_of(const mxArray *a);
garr_t *garray_by_id(const mxArray *a); /* an id (a numeric scalar) */
int garray_live(const garr_t *g);
/* mex/__gpudot__.c: the garray whose data a garray object holds on a device (NULL where it
 * is no garray, is deleted or holds its data on the host) */
const garr_t *garray_resident(const mxArray *a);

#endif
