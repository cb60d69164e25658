#pragma once
// The CUDA backend, as the rest of secpe sees it: no CUDA header here, so every file compiles
// with or without it. In a build without CUDA (SECPE_HAVE_CUDA undefined) there is no device:
// cuda_device_count() is 0 and the rest throws an InputError saying so (compute/device.cpp).
// The implementation is compute/cuda/ (cuda_kernel.cpp: host side; kernels.cu: device code).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compute/nearest.hpp"

namespace secpe {

// CUDA devices this process can use (0 without a driver, a device or a CUDA build).
int cuda_device_count();

struct CudaKernelOptions {
  int device = -1;   // CUDA device; -1: the one for this process's local rank (compute/gpu_plan.hpp)
  int threads = 0;   // host threads for the exact rescoring (0: as BlasKernelOptions::threads)
  bool tf32 = false; // TF32 tensor cores for the GEMM: faster, a wider bound, more rows rescored
  // Device memory per tile of rows (two tiles are in flight): bounds the memory for any shard
  // size, on top of the centres themselves.
  std::size_t tile_bytes = std::size_t{256} << 20;
};

// A NearestCentreKernel on a CUDA device: cuBLAS SGEMM finds candidates, the host rescores them
// exactly, so results equal the reference kernel's bit for bit (as the blas kernel's). Also
// bytes_moved(): host <-> device bytes so far (for secpe bench).
class CudaKernel : public NearestCentreKernel {
 public:
  virtual std::uint64_t bytes_moved() const = 0;
  virtual std::string device_description() const = 0;  // "NVIDIA H100 80GB HBM3 (device 0)"
};

std::unique_ptr<CudaKernel> make_cuda_kernel(const CudaKernelOptions& options);

// cuBLAS SGEMM alone on an M x N x d shape (X C^T, data already on the device, output in row
// tiles of at most 2^26 entries): the best seconds of `repeats`, the baseline of secpe bench kernel.
double cuda_sgemm_seconds(std::int64_t m, std::int64_t n, std::int64_t d, int repeats, bool tf32);

}  // namespace secpe
