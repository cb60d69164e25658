// Device code of SecPE's release (CudaKernelImpl::noisy_centre_means, noisy_means.cpp): one
// thread per centre running compute/impl/noisy_means_label.hpp, the code the host's release shares
// (privacy/centre_release.hpp, core/secret_normal.hpp, core/chacha20_block.hpp), so the released
// bits are the host's: every floating-point operation there is an explicit round-to-nearest one
// (core/ieee_ops.hpp), and this file is compiled without multiply-add contraction besides.
#include <climits>
#include <stdexcept>

#include "compute/cuda/kernels.hpp"

namespace secpe::cuda {
namespace {

constexpr int kReleaseThreads = 128;

__global__ void release(const NoisyMeansLabel* __restrict__ labels, int n_labels, std::int64_t total, const SecretZiggurat* tables) {
  const std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * kReleaseThreads + threadIdx.x;
  if (g >= total) return;
  const NoisyMeansLabel& t = labels[label_of(labels, n_labels, g)];
  noisy_means_of_centre(t, g - t.centre0, tables);
}

}  // namespace

void launch_release(const NoisyMeansLabel* labels, int n_labels, std::int64_t centres, const SecretZiggurat* tables, cudaStream_t stream) {
  if (centres <= 0 || n_labels <= 0) return;
  const std::int64_t blocks = (centres + kReleaseThreads - 1) / kReleaseThreads;
  if (blocks > INT_MAX) throw std::length_error("release on the GPU: too many centres");
  release<<<static_cast<unsigned>(blocks), kReleaseThreads, 0, stream>>>(labels, n_labels, centres, tables);
}

}  // namespace secpe::cuda
