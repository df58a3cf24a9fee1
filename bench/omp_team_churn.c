/*
 * Why every parallel region in gpudot has the full team (include/gpudot.h, gpudot_workers): empty
 * OpenMP regions, 20000 of each pattern, with the team size constant and alternating
 * between the full team and half of it.  libgomp ends the surplus threads of its pool when
 * a team is smaller than the last and creates new ones for the next larger team; the span
 * of thread ids seen shows how many were created.
 *   gcc -O2 -fopenmp bench/omp_team_churn.c -o omp_team_churn && ./omp_team_churn
 */
#include <omp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void)
{
    int full = omp_get_max_threads();
    int half = full > 2 ? full / 2 : 1;
    const int regions = 20000;
    for (int mode = 0; mode < 2; mode++) {
        long lo = -1, hi = -1;
        double t0 = now_us();
        for (int i = 0; i < regions; i++) {
            int nt = mode == 1 && (i & 1) ? half : full;
#pragma omp parallel num_threads(nt)
            {
                long tid = syscall(SYS_gettid);
#pragma omp critical
                {
                    lo = lo < 0 || tid < lo ? tid : lo;
                    hi = tid > hi ? tid : hi;
                }
            }
        }
        printf("%-36s %8.2f us per region, thread ids span %ld\n",
               mode ? "teams alternating full and half:" : "teams of the full size:",
               (now_us() - t0) / regions, hi - lo);
    }
    printf("(%d threads: OMP_NUM_THREADS or the cores)\n", full);
    return 0;
}
