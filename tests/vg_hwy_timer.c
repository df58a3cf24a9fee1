/*
 * For make check-valgrind: valgrind decodes RDTSCP only where the CPU reports it, and some
 * VMs' CPUID hides it.  libhwy (loaded with Octave, through libjxl) runs RDTSCP as it loads,
 * calibrating the timer of Highway's own profiling (hwy::platform::TimerResolution, called
 * through its PLT), so Octave stopped there with SIGILL before any test.  Preloaded under
 * valgrind, this definition stands in for it.
 */
#include <stdint.h>

uint64_t _ZN3hwy8platform15TimerResolutionEv(void)
{
    return 1;
}
