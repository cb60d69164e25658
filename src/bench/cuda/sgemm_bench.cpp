// cuBLAS GEMMs alone, the floor of `secpe bench kernel --device cuda` and of `secpe bench
// histogram --device cuda`: the same shapes as the searches, with the data already on the device
// and no selection after them.
#include <algorithm>
#include <vector>

#include "bench/cuda/sgemm_bench.hpp"
#include "compute/cuda/device_memory.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

// The device's events, destroyed on every way out.
struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    SECPE_CUDA_CHECK(cudaEventCreate(&start));
    SECPE_CUDA_CHECK(cudaEventCreate(&stop));
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

}  // namespace

double cuda_gemm_seconds(std::span<const GemmShape> shapes, int repeats, bool tf32) {
  const int devices = cuda_device_count();
  if (devices == 0) throw InputError("no CUDA device is usable by this process (no GPU, or no driver)");
  std::int64_t max_m = 1, max_n = 1, max_d = 1, max_g = 1;
  for (const GemmShape& s : shapes) {
    max_m = std::max(max_m, s.m), max_n = std::max(max_n, s.n), max_d = std::max(max_d, s.d);
    max_g = std::max(max_g, std::clamp<std::int64_t>((std::int64_t{1} << 26) / std::max<std::int64_t>(s.n, 1), 1, std::max<std::int64_t>(s.m, 1)) * s.n);
  }
  cuda::Context context(gpu::device_for_local_rank(gpu::local_rank_from_env(), devices), tf32);
  cuda::Slot& slot = context.slot(0);
  cuda::DeviceBuffer<float> x, c, g;
  x.reserve(static_cast<std::size_t>(max_m * max_d));
  c.reserve(static_cast<std::size_t>(max_n * max_d));
  g.reserve(static_cast<std::size_t>(max_g));
  // Values in [-1, 1) as the kernel benchmark's (the timing should not see zeros).
  std::vector<float> host(static_cast<std::size_t>(std::max(max_m, max_n) * max_d));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 2000u) / 1000.0f - 1.0f;
  SECPE_CUDA_CHECK(cudaMemcpy(x.get(), host.data(), static_cast<std::size_t>(max_m * max_d) * sizeof(float), cudaMemcpyHostToDevice));
  SECPE_CUDA_CHECK(cudaMemcpy(c.get(), host.data(), static_cast<std::size_t>(max_n * max_d) * sizeof(float), cudaMemcpyHostToDevice));
  const Events events;
  const float one = 1.0f, zero = 0.0f;
  double best = 0.0;
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up (cuBLAS picks and loads its kernels)
    SECPE_CUDA_CHECK(cudaEventRecord(events.start, slot.stream));
    for (const GemmShape& s : shapes) {
      if (s.m <= 0 || s.n <= 0 || s.d <= 0) continue;
      const std::int64_t chunk = std::clamp<std::int64_t>((std::int64_t{1} << 26) / s.n, 1, s.m);
      for (std::int64_t r0 = 0; r0 < s.m; r0 += chunk) {
        const std::int64_t rows = std::min(chunk, s.m - r0);
        SECPE_CUBLAS_CHECK(cublasSgemm(slot.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(rows),
                                       static_cast<int>(s.d), &one, c.get(), static_cast<int>(s.d), x.get() + r0 * s.d,
                                       static_cast<int>(s.d), &zero, g.get(), static_cast<int>(s.n)));
      }
    }
    SECPE_CUDA_CHECK(cudaEventRecord(events.stop, slot.stream));
    SECPE_CUDA_CHECK(cudaEventSynchronize(events.stop));
    float ms = 0.0f;
    SECPE_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    if (r == 0 || (r > 0 && ms * 1e-3 < best)) best = ms * 1e-3;
  }
  return best;
}

}  // namespace secpe
