#pragma once
#include "compute/nearest.hpp"

namespace secpe {

// The optimised CPU kernel: blocks of X times blocks of C (transposed) with OpenBLAS cblas_sgemm,
// fused with the norm terms and a running per-row minimum, so only one block of approximate
// scores exists at a time (per thread). The float scores only select candidates: every centre
// whose approximate score is within a rigorous rounding-error bound of the best is rescored with
// the reference's exact double formula, so the results equal ReferenceKernel's bit for bit.
// Threads work on separate blocks of X (OpenBLAS itself is set to one thread).
struct BlasKernelOptions {
  // Worker threads. 0: the environment variable SECPE_THREADS if set (a positive integer),
  // else std::thread::hardware_concurrency(). An explicit value > 0 wins over the environment.
  int threads = 0;
  int row_block = 512;      // rows of X per block (a thread's unit of work); fewer for small X
  int centre_block = 1024;  // centres per GEMM call; a thread holds row_block x centre_block floats
};

class BlasKernel final : public NearestCentreKernel {
 public:
  explicit BlasKernel(BlasKernelOptions options = {});
  std::string name() const override { return "blas"; }
  int threads() const override { return threads_; }
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;

 private:
  int threads_;
  int row_block_;
  int centre_block_;
};

}  // namespace secpe
