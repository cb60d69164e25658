#pragma once
// The GPU benchmarks' floor: cuBLAS GEMMs of the searches' shapes alone (bench/cuda/sgemm_bench.cpp,
// built with CUDA; without it, bench/kernel_bench.cpp's stand-in refuses).
#include <cstdint>
#include <span>

namespace secpe {

// One GEMM shape: X (m x d) times C (n x d) transposed.
struct GemmShape {
  std::int64_t m = 0, n = 0, d = 0;
};
// cuBLAS SGEMM alone (TF32 tensor cores with `tf32`) on each shape, one after the other on one
// stream, data already on the device, output in row tiles of at most 2^26 entries: the best
// device seconds of `repeats` for the whole list, after a warm-up. The GEMM floor of secpe
// bench's searches on the GPU.
double cuda_gemm_seconds(std::span<const GemmShape> shapes, int repeats, bool tf32);

}  // namespace secpe
