/*
 * make check-pool: the thread pool (cpu/gpudot_pool.c) alone, built with ThreadSanitizer.
 * Many jobs back to back, of random sizes (one task to more than one ticket's 65535), with
 * tasks that sometimes sleep so that threads come late, wake from the futex or are still
 * spinning on the last job:
 *   - gpudot_pool_run runs every task exactly once, with that job's context, and nothing
 *     of a job runs after it returned;
 *   - gpudot_pool_lead runs the lead on the calling thread, tasks only while the lead runs
 *     or were claimed before it returned, never a task twice, none after it returned;
 *   - a job posted from inside a task of a posted job (the pool busy) runs on its caller
 *     alone, and a lead then gets posted == 0.
 * TSan checks the memory ordering around the claims (the job's fields read after a claim,
 * the done count).  Prints one line and exits non-zero on any failure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpudot_hooks.h"

#define MAX_T 70000

typedef struct {
    int64_t job;
    int64_t n;
    _Atomic int hits[MAX_T];
    int64_t seen[MAX_T];
    _Atomic int64_t after; /* tasks that started after the call returned */
    _Atomic int returned;
    _Atomic int64_t claimed;
    int nested_posted;
} ctx_t;

static ctx_t C;
static _Atomic int64_t failures;

static void fail(const char *what, int64_t job, int64_t t)
{
    if (atomic_fetch_add(&failures, 1) < 10)
        fprintf(stderr, "pool_stress: %s (job %lld, task %lld)\n", what, (long long)job,
                (long long)t);
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void nap(unsigned us)
{
    struct timespec t = {0, (long)us * 1000};
    nanosleep(&t, NULL);
}

static void task(void *p, int64_t t)
{
    ctx_t *c = p;
    if (atomic_load(&c->returned))
        atomic_fetch_add(&c->after, 1);
    if (t < 0 || t >= c->n) {
        fail("task out of range", c->job, t);
        return;
    }
    atomic_fetch_add(&c->hits[t], 1);
    c->seen[t] = c->job;
    atomic_fetch_add(&c->claimed, 1);
    unsigned s = (unsigned)(c->job * 7919 + t);
    if (rnd(&s) % 97 == 0)
        nap(20 + rnd(&s) % 200);
}

static void nested_inner(void *p, int64_t t)
{
    (void)p;
    (void)t;
}

static int nested_lead(void *p, int posted)
{
    (void)p;
    return posted;
}

static void nested_task(void *p, int64_t t)
{
    ctx_t *c = p;
    task(p, t);
    if (t == 0) {
        gpudot_pool_run(5, nested_inner, NULL); /* busy pool: runs here, must not hang */
        c->nested_posted = gpudot_pool_lead(8, nested_inner, NULL, nested_lead, NULL);
    }
}

static int lead(void *p, int posted)
{
    ctx_t *c = p;
    unsigned s = (unsigned)c->job;
    if (posted < 0 || posted > c->n)
        fail("posted out of range", c->job, posted);
    nap(rnd(&s) % 100);
    return 7;
}

static void begin(int64_t job, int64_t n)
{
    C.job = job;
    C.n = n;
    for (int64_t t = 0; t < n; t++) {
        atomic_store(&C.hits[t], 0);
        C.seen[t] = -1;
    }
    atomic_store(&C.after, 0);
    atomic_store(&C.returned, 0);
    atomic_store(&C.claimed, 0);
    C.nested_posted = -1;
}

int main(int argc, char **argv)
{
    int jobs = argc > 1 ? atoi(argv[1]) : 3000;
    unsigned s = 12345;
    int threads = gpudot_pool_size();
    for (int64_t j = 0; j < jobs; j++) {
        unsigned r = rnd(&s);
        int64_t n = r % 10 == 0 ? 1 + rnd(&s) % MAX_T : 1 + rnd(&s) % 300;
        int kind = rnd(&s) % 4; /* 0-1 run, 2 lead, 3 run with a nested job */
        begin(j, n);
        if (kind == 2) {
            if (gpudot_pool_lead(n, task, &C, lead, &C) != 7)
                fail("lead's value lost", j, -1);
        } else {
            gpudot_pool_run(n, kind == 3 ? nested_task : task, &C);
        }
        atomic_store(&C.returned, 1);
        for (int64_t t = 0; t < n; t++) {
            int h = atomic_load(&C.hits[t]);
            if (kind != 2 && (h != 1 || C.seen[t] != j))
                fail("task not run exactly once", j, t);
            if (kind == 2 && h > 1)
                fail("lead job's task run twice", j, t);
        }
        if (kind == 3 && n > 1 && C.nested_posted != 0) /* (one task runs inline, unposted) */
            fail("nested lead was offered tasks", j, C.nested_posted);
        if (rnd(&s) % 8 == 0)
            nap(rnd(&s) % 400); /* let threads fall asleep now and then */
        if (atomic_load(&C.after) != 0)
            fail("task started after its job returned", j, -1);
    }
    /* the last job's stragglers, if any, would show here */
    nap(3000);
    if (atomic_load(&C.after) != 0)
        fail("task started after its job returned", jobs - 1, -1);
    long long nf = (long long)atomic_load(&failures);
    printf("pool_stress: %d jobs on %d threads: %s\n", jobs, threads, nf ? "FAILED" : "ok");
    return nf ? 1 : 0;
}
