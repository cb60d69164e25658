// cuBLAS SGEMM alone, the baseline of `secpe bench kernel --device cuda`: the same shape as the
// kernel's search, with the data already on the device and no selection after it.
#include <algorithm>
#include <vector>

#include "compute/cuda/device_memory.hpp"
#include "compute/cuda_backend.hpp"
#include "compute/gpu_plan.hpp"
#include "core/error.hpp"

namespace secpe {

double cuda_sgemm_seconds(std::int64_t m, std::int64_t n, std::int64_t d, int repeats, bool tf32) {
  const int devices = cuda_device_count();
  if (devices == 0) throw InputError("no CUDA device is usable by this process (no GPU, or no driver)");
  cuda::Context context(gpu::device_for_local_rank(gpu::local_rank_from_env(), devices), tf32);
  cuda::Slot& s = context.slot(0);
  const std::int64_t chunk = std::clamp<std::int64_t>((std::int64_t{1} << 26) / std::max<std::int64_t>(n, 1), 1, m);
  cuda::DeviceBuffer<float> x, c, g;
  x.reserve(static_cast<std::size_t>(m * d));
  c.reserve(static_cast<std::size_t>(n * d));
  g.reserve(static_cast<std::size_t>(chunk * n));
  // Values in [-1, 1) as the kernel benchmark's (the timing should not see zeros).
  std::vector<float> host(static_cast<std::size_t>(std::max(m, n) * d));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 2000u) / 1000.0f - 1.0f;
  SECPE_CUDA_CHECK(cudaMemcpy(x.get(), host.data(), static_cast<std::size_t>(m * d) * sizeof(float), cudaMemcpyHostToDevice));
  SECPE_CUDA_CHECK(cudaMemcpy(c.get(), host.data(), static_cast<std::size_t>(n * d) * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start = nullptr, stop = nullptr;
  SECPE_CUDA_CHECK(cudaEventCreate(&start));
  SECPE_CUDA_CHECK(cudaEventCreate(&stop));
  const float one = 1.0f, zero = 0.0f;
  double best = 0.0;
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up (cuBLAS picks and loads its kernel)
    SECPE_CUDA_CHECK(cudaEventRecord(start, s.stream));
    for (std::int64_t r0 = 0; r0 < m; r0 += chunk) {
      const std::int64_t rows = std::min(chunk, m - r0);
      SECPE_CUBLAS_CHECK(cublasSgemm(s.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                                     static_cast<int>(d), &one, c.get(), static_cast<int>(d), x.get() + r0 * d,
                                     static_cast<int>(d), &zero, g.get(), static_cast<int>(n)));
    }
    SECPE_CUDA_CHECK(cudaEventRecord(stop, s.stream));
    SECPE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    SECPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r == 0 || (r > 0 && ms * 1e-3 < best)) best = ms * 1e-3;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

}  // namespace secpe
