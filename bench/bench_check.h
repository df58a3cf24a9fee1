/*
 * CK (call): the benchmark programs' check of a CUDA call (bench/kernel_bench.cu,
 * bench/latency_probe.cu): a failure prints where and why, and ends the program.  (The
 * engine never exits; these are stand-alone tools.)
 */
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
