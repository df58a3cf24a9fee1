/*
 * Copies into pinned staging memory (the CUDA engine's ring, cuda/ring.cu): the
 * copy engine reads the packed bytes back over PCIe right after the CPU wrote them, and
 * how the stores reached memory decides how fast it can (lines still dirty in a core's
 * cache are read through a snoop).  The ways of storing, chosen per call by the ring:
 *   PLAIN     memcpy: the lines stay dirty in the caches;
 *   STREAM    non-temporal SSE2 stores: straight to memory;
 *   DEMOTE    memcpy, then each line pushed from the core's caches to the shared last
 *             level with cldemote, where the copy engine reads it without a snoop of the
 *             core and without a trip to memory (PLAIN where the CPU has no cldemote).
 * Every way but PLAIN needs gpudot_pack_fence before the bytes count as packed.
 */
#include <stdint.h>
#include <string.h>

#include "gpudot_hooks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define GPUDOT_X86 1
#else
#define GPUDOT_X86 0
#endif

#if GPUDOT_X86
static void stream(char *d, const char *s, size_t m)
{
    for (; m >= 64; d += 64, s += 64, m -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, m);
}

__attribute__((target("cldemote"))) static void demote(char *d, size_t m)
{
    uintptr_t a = (uintptr_t)d & ~(uintptr_t)63, e = (uintptr_t)d + m;
    for (; a < e; a += 64)
        _cldemote((void *)a);
}

/* asked once: cpuid is a trap to the hypervisor in a VM, and the ring asks every call */
static int has_cldemote(void)
{
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        known = __get_cpuid_count(7, 0, &a, &b, &c, &d) ? (int)((c >> 25) & 1u) : 0;
    }
    return known;
}
#endif

int gpudot_pack_way(int way)
{
#if GPUDOT_X86
    if (way == GPUDOT_PACK_DEMOTE && !has_cldemote())
        return GPUDOT_PACK_PLAIN;
    return way;
#else
    (void)way;
    return GPUDOT_PACK_PLAIN;
#endif
}

void gpudot_pack_copy(void *dst, const void *src, size_t m, int way)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
#if GPUDOT_X86
    if (way == GPUDOT_PACK_STREAM && m >= 256) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        stream(d + head, s + head, m - head);
        return;
    }
    memcpy(d, s, m);
    if (way == GPUDOT_PACK_DEMOTE)
        demote(d, m);
#else
    (void)way;
    memcpy(d, s, m);
#endif
}

void gpudot_pack_fence(int way)
{
#if GPUDOT_X86
    if (way != GPUDOT_PACK_PLAIN)
        _mm_sfence();
#else
    (void)way;
#endif
}
