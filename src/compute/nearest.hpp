#pragma once
// Nearest-centre search: for each row of X, the nearest row of C. One interface (FAISS-style
// Index), several kernels behind it; every kernel must agree with the reference kernel,
// ties going to the lowest centre index.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/matrix.hpp"

namespace secpe {

enum class Metric { kL2, kInnerProduct, kCosine };

Metric parse_metric(const std::string& name);  // "l2" | "ip" | "cosine"; InputError otherwise
std::string metric_name(Metric metric);

class NearestCentreKernel {
 public:
  virtual ~NearestCentreKernel() = default;
  virtual std::string name() const = 0;
  // nearest[i] = argmin_k score(X_i, C_k), with score the squared L2 distance (kL2), the
  // negated inner product (kInnerProduct) or the negated cosine (kCosine); score[i] its value.
  // Every kernel returns exactly what ReferenceKernel returns: the same index and the same score,
  // bit for bit, whatever its blocking or thread count.
  // InputErrors (naming the row or centre by index): no centres, a dimension mismatch, a NaN or
  // infinite value in a row or a centre, a zero row or centre under cosine. An empty X is no error.
  virtual void search(const MatrixF& x, const MatrixF& centres, Metric metric,
                      std::span<std::int32_t> nearest, std::span<double> score) const = 0;
  // The k nearest centres of each row, best first: nearest[i*k + j], score[i*k + j] for j < k, in
  // ascending score, ties by the lower centre index (so search_k with k = 1 equals search).
  // 1 <= k <= centres.rows(), else an InputError; the spans hold at least x.rows() * k entries.
  // The default implementation is the reference one; kernels override it with a faster one.
  virtual void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                        std::span<std::int32_t> nearest, std::span<double> score) const;
};

// The plain reference kernel: one dot product at a time, accumulated in double in a fixed order,
// so each result depends only on the two vectors involved (never on blocking or threads).
class ReferenceKernel final : public NearestCentreKernel {
 public:
  std::string name() const override { return "reference"; }
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;
};

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
  int threads() const { return threads_; }
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;

 private:
  int threads_;
  int row_block_;
  int centre_block_;
};

// The thread count BlasKernelOptions{threads = 0} resolves to (SECPE_THREADS or the hardware's).
int default_kernel_threads();

std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name);  // "reference" | "blas"

}  // namespace secpe
