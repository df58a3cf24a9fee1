/*
 * gpudot's worker pool (the CPU engine's threads, and the staging ring's packing threads):
 * a call's work as numbered tasks that the calling thread and the pool's threads claim one
 * at a time, so that a call waits only for the tasks, never for a thread that has not
 * started.  Tested alone under ThreadSanitizer by tests/pool_stress.c (make check-pool).
 *
 * Why not OpenMP: a parallel region ends in a barrier that waits for every thread of the
 * team, one that the hypervisor has not run yet included.  On the H100 machine's VMs that
 * stalled whole rows of `make bench`: calls of 2^16-2^20 scalars that take 20-60 us took
 * 1-5 ms (multiples of a millisecond, like a timer tick) in some runs, for gdot "auto"
 * 2.4-9.7x Octave's dot.  Here a thread that wakes late
 * finds every task taken and goes back to waiting; the call's time depends only on threads
 * that did claim a task (a task is one chunk, ~1 us of work).
 *
 * Claims: one 64-bit ticket holds (job, next task, task count); a thread claims task `next`
 * by compare-and-swap of next + 1 on exactly that ticket, so a thread holding a stale
 * ticket of an ended job cannot claim in the next one.  After a claim the job's function
 * and context are read: the job cannot end (and the caller cannot post the next one) before
 * this task counts as done.  The caller posts a job only when no other job is running; a
 * second caller at the same time (or a task calling the pool) runs its tasks alone.
 *
 * Waiting: a thread spins for a while (SPIN_*_NS) after its last task (Octave's calls back
 * to back find it awake), then sleeps on a futex; a posted job wakes sleepers (post,
 * pass_on).  Results are the same whichever thread runs a task: callers give each task
 * its own output.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "gpudot_hooks.h"

/* A thread looks for work this long after its last task before it sleeps, the first
 * SPIN_HOT_NS in a tight loop, then yielding its vCPU between looks (to Octave's BLAS
 * threads, say).  After the staging ring's jobs (gpudot_pool_lead) SPIN_LEAD_NS: GPU calls
 * on host data leave 0.1-0.3 ms between one call's last packing and the next call's first
 * (the last copies, the kernel, the result, Octave), and on the H100 machine threads woken
 * from sleep for each call made the ring 1.2-2x slower at 2^20-2^22 than OpenMP's threads,
 * which spin ~20 ms there (GOMP_SPINCOUNT's 300000 pauses).  After the CPU engine's jobs
 * SPIN_RUN_NS, enough for calls back to back: a vCPU that spins is one the hypervisor may take
 * away, and a thread taken away while it holds a task holds up its call. */
#define SPIN_LEAD_NS 2000000
#define SPIN_RUN_NS 200000
#define SPIN_HOT_NS 50000
/* Jobs of at least this many tasks wake every thread they can use at once; smaller ones
 * wake one, which wakes two more (pass_on): a wake costs the waker a system call, and on a
 * VM an exit per interprocessor interrupt. */
#define WAKE_ALL_TASKS 64
/* The most tasks one job holds (16 bits of the ticket); longer runs are posted in parts. */
#define MAX_TASKS 65535
#define MAX_WORKERS 255

#define CACHE_LINE 64
typedef struct {
    _Alignas(CACHE_LINE) _Atomic uint64_t ticket; /* job << 32 | next << 16 | count */
    _Alignas(CACHE_LINE) _Atomic int64_t done;    /* tasks of the current job finished */
    _Alignas(CACHE_LINE) _Atomic uint32_t bell;   /* bumped at each job and at shutdown */
    _Atomic int sleepers;
    _Atomic int stop;
    _Atomic int64_t spin_ns;                /* how long threads look for work after this job */
    _Alignas(CACHE_LINE) gpudot_task_fn fn; /* the current job, read after a claim */
    void *ctx;
    int64_t base;     /* task numbers of this part start here */
    _Atomic int busy; /* a caller is posting or waiting on a job */
    uint32_t job;
    int started, nworkers;
    pthread_t threads[MAX_WORKERS];
} pool_t;

static pool_t P;

/* The ticket's fields */
static inline uint64_t t_next(uint64_t v)
{
    return (v >> 16) & 0xffff;
}
static inline uint64_t t_count(uint64_t v)
{
    return v & 0xffff;
}
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void bell_wait(uint32_t seen)
{
#ifdef __linux__
    syscall(SYS_futex, &P.bell, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
    (void)seen;
    struct timespec t = {0, 50000};
    nanosleep(&t, NULL);
#endif
}

static void bell_ring(int n)
{
#ifdef __linux__
    syscall(SYS_futex, &P.bell, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
#else
    (void)n;
#endif
}

/* Claims a task of the posted job and runs it; 0 where none is left to claim. */
static int run_one(void)
{
    uint64_t v = atomic_load_explicit(&P.ticket, memory_order_acquire);
    for (;;) {
        uint64_t next = t_next(v);
        if (next >= t_count(v))
            return 0;
        if (atomic_compare_exchange_weak_explicit(&P.ticket, &v, v + (1u << 16),
                                                  memory_order_acquire, memory_order_acquire)) {
            P.fn(P.ctx, P.base + (int64_t)next);
            atomic_fetch_add_explicit(&P.done, 1, memory_order_release);
            return 1;
        }
    }
}

/* Wakes two more sleepers while the job has tasks for them: where the caller woke one,
 * each woken thread wakes two, so the cost of waking is spread over the threads. */
static void pass_on(void)
{
    uint64_t v = atomic_load_explicit(&P.ticket, memory_order_relaxed);
    uint64_t next = t_next(v), count = t_count(v);
    if (count > next + 1 && atomic_load(&P.sleepers) > 0)
        bell_ring(count > next + 2 ? 2 : 1);
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        /* read the bell before looking for work: a job posted after this read rings it */
        uint32_t seen = atomic_load(&P.bell);
        if (atomic_load_explicit(&P.stop, memory_order_relaxed))
            return NULL;
        if (run_one())
            continue;
        int64_t t0 = now_ns();
        int64_t spin = atomic_load_explicit(&P.spin_ns, memory_order_relaxed);
        int rung = 0;
        for (int i = 1; !rung; i++) {
            cpu_relax();
            rung = atomic_load_explicit(&P.bell, memory_order_relaxed) != seen;
            if (!rung && i % 64 == 0) {
                int64_t t = now_ns() - t0;
                if (t > spin)
                    break;
                if (t > SPIN_HOT_NS)
                    sched_yield();
            }
        }
        if (rung)
            continue;
        atomic_fetch_add(&P.sleepers, 1);
        if (atomic_load(&P.bell) == seen)
            bell_wait(seen);
        atomic_fetch_sub(&P.sleepers, 1);
        pass_on();
    }
}

/* A forked child has none of the parent's threads: it starts a pool if it needs one. */
static void after_fork_child(void)
{
    atomic_store(&P.busy, 0);
    P.started = 0;
    P.nworkers = 0;
}

/* Once: the workers, one fewer than OpenMP's thread count (OMP_NUM_THREADS or the
 * processors), with every signal blocked so that Ctrl-C reaches Octave's thread. */
static void start(void)
{
    pthread_mutex_lock(&start_lock);
    if (!P.started) {
        static int fork_hook;
        if (!fork_hook)
            fork_hook = pthread_atfork(NULL, NULL, after_fork_child) == 0;
        int want = omp_get_max_threads() - 1;
        if (want > MAX_WORKERS)
            want = MAX_WORKERS;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        atomic_store(&P.stop, 0);
        for (P.nworkers = 0; P.nworkers < want; P.nworkers++)
            if (pthread_create(&P.threads[P.nworkers], NULL, worker, NULL) != 0)
                break; /* fewer workers: the caller does the rest */
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        P.started = 1;
    }
    pthread_mutex_unlock(&start_lock);
}

/* Unloading the MEX (clear all) or exiting: the workers run this object's code, so they
 * end before it goes. */
__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&start_lock);
    if (P.started && P.nworkers > 0) {
        atomic_store(&P.stop, 1);
        atomic_fetch_add(&P.bell, 1);
        bell_ring(MAX_WORKERS);
        for (int i = 0; i < P.nworkers; i++)
            pthread_join(P.threads[i], NULL);
    }
    P.started = 0;
    P.nworkers = 0;
    pthread_mutex_unlock(&start_lock);
}

/* Posts tasks [base, base + count) of fn(ctx, .) (the caller holds the pool). */
static void post(int64_t base, uint64_t count, gpudot_task_fn fn, void *ctx, int wake, int64_t spin)
{
    atomic_store_explicit(&P.spin_ns, spin, memory_order_relaxed);
    P.fn = fn;
    P.ctx = ctx;
    P.base = base;
    atomic_store_explicit(&P.done, 0, memory_order_relaxed);
    P.job++;
    atomic_store(&P.ticket, (uint64_t)P.job << 32 | count);
    atomic_fetch_add(&P.bell, 1);
    if (atomic_load(&P.sleepers) > 0)
        bell_ring(wake < P.nworkers ? wake : P.nworkers);
}

/* Waits until `claimed` tasks of the posted job are done: spin, then let this vCPU go
 * between looks. */
static void wait_done(int64_t claimed)
{
    for (int i = 0; atomic_load_explicit(&P.done, memory_order_acquire) < claimed; i++) {
        if (i < 20000)
            cpu_relax();
        else
            sched_yield();
    }
}

/* 1 where this caller may post jobs (until it clears P.busy); 0 where the pool has no
 * workers or another job runs (the caller then works alone). */
static int take_pool(void)
{
    if (!P.started)
        start();
    return P.nworkers > 0 && !atomic_exchange(&P.busy, 1);
}

void gpudot_pool_run(int64_t ntasks, gpudot_task_fn fn, void *ctx)
{
    if (ntasks <= 1 || !take_pool()) {
        for (int64_t t = 0; t < ntasks; t++)
            fn(ctx, t);
        return;
    }
    for (int64_t base = 0; base < ntasks; base += MAX_TASKS) {
        uint64_t count = ntasks - base < MAX_TASKS ? (uint64_t)(ntasks - base) : MAX_TASKS;
        int wake = count >= WAKE_ALL_TASKS ? (int)count - 1 : 1;
        post(base, count, fn, ctx, wake, SPIN_RUN_NS);
        while (run_one())
            ;
        wait_done((int64_t)count);
    }
    atomic_store(&P.busy, 0);
}

int gpudot_pool_lead(int64_t ntasks, gpudot_task_fn fn, void *ctx, gpudot_lead_fn lead, void *lctx)
{
    if (ntasks < 1 || !take_pool())
        return lead(lctx, 0);
    uint64_t count = ntasks < MAX_TASKS ? (uint64_t)ntasks : MAX_TASKS;
    post(0, count, fn, ctx, (int)count, SPIN_LEAD_NS);
    int ret = lead(lctx, (int)count);
    /* close the job: no claims from here on; wait for the tasks already claimed */
    uint64_t v = atomic_load(&P.ticket);
    while (!atomic_compare_exchange_weak(&P.ticket, &v, v + ((t_count(v) - t_next(v)) << 16)))
        ;
    wait_done((int64_t)t_next(v));
    atomic_store(&P.busy, 0);
    return ret;
}

int gpudot_pool_size(void)
{
    if (!P.started)
        start();
    return P.nworkers + 1;
}
