/*
 * 16-byte vectors of an element type (internal to the CUDA engine): the loads of the
 * reduction kernels and the exact sums where runs are contiguous and aligned.
 */
#pragma once

#include <cuda_runtime.h>

namespace gpudot
{

template <typename T> struct Vec16;
template <> struct Vec16<float> {
    using type = float4;
    static constexpr int n = 4;
};
template <> struct Vec16<double> {
    using type = double2;
    static constexpr int n = 2;
};

template <typename T> __device__ __forceinline__ T vget(const float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}
template <typename T> __device__ __forceinline__ T vget(const double2 &v, int j)
{
    return j == 0 ? v.x : v.y;
}

} // namespace gpudot
