#pragma once
#include "compute/nearest.hpp"

namespace secpe {

// The optimised CPU kernel: blocks of X times blocks of C (transposed) with OpenBLAS cblas_sgemm,
// fused with the norm terms and a running per-row minimum, so only one block of approximate
// scores exists at a time (per thread). The float scores only select candidates: every centre
// whose approximate score is within a rigorous rounding-error bound of the best is rescored with
// the reference's exact double formula, so the results equal ReferenceKernel's bit for bit.
// Threads work on separate blocks of X (OpenBLAS itself is set to one thread).
//
// The screen is the GEMM that selects the candidates. fp32: cblas_sgemm. bf16: X and C rounded to
// bf16 and multiplied on AMX tiles with float accumulation (compute/cpu/bf16_gemm.hpp), several
// times faster than sgemm; its bound is wider (each vector's measured bf16 rounding error, about
// 2^-9.3 relative), so a few more centres per row are rescored, and the results are the same bit
// for bit. With few centres that rescoring costs more than the GEMM saves (below ~300 centres at
// d = 768 on uniform data), hence bf16_min_centres. A search whose norms reach 1e38 (bf16 would
// overflow) screens in fp32.
enum class BlasScreen {
  kAuto,          // SECPE_BLAS_SCREEN if set (auto, fp32, bf16 or bf16-emulated); else bf16 where AMX
                  // runs and the search has at least bf16_min_centres centres, fp32 otherwise
  kFp32,          // cblas_sgemm
  kBf16,          // AMX for every search where it runs, else fp32
  kBf16Emulated,  // bf16 arithmetic emulated one product at a time: any CPU, very slow (tests)
};
BlasScreen parse_blas_screen(const std::string& name);  // InputError for an unknown name
std::string blas_screen_name(BlasScreen screen);

struct BlasKernelOptions {
  // Worker threads. 0: the environment variable SECPE_THREADS if set (a positive integer),
  // else std::thread::hardware_concurrency(). An explicit value > 0 wins over the environment.
  int threads = 0;
  int row_block = 512;      // rows of X per block (a thread's unit of work); fewer for small X
  int centre_block = 1024;  // centres per GEMM call; a thread holds row_block x centre_block floats
  BlasScreen screen = BlasScreen::kAuto;  // the candidate screen (above); bf16 rounds centre_block up to 32s
  int bf16_min_centres = 300;             // auto: fewer centres than this screen in fp32
};

class BlasKernel final : public NearestCentreKernel {
 public:
  explicit BlasKernel(BlasKernelOptions options = {});
  std::string name() const override { return "blas"; }
  int threads() const override { return threads_; }
  // The screen of a search with `centres` centres: kFp32, kBf16 or kBf16Emulated (auto resolved).
  BlasScreen screen_for(Eigen::Index centres) const;
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;
  // One screen for both directions: each block of X C^T also folds into every centre's state
  // (its smallest upper bound over the rows, and the rows that may beat it), and each centre then
  // rescores its candidate rows exactly. The norms, the bf16 rounding and the GEMM are shared.
  void search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                     std::span<double> score, std::span<std::int32_t> centre_nearest,
                     std::span<double> centre_score) const override;

 private:
  // search_k, and with `centre_nearest` non-empty the centres' side of search_mutual.
  void run(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
           std::span<double> score, std::span<std::int32_t> centre_nearest, std::span<double> centre_score) const;

  int threads_;
  int row_block_;
  int centre_block_;
  BlasScreen screen_;  // kAuto here: AMX runs, the number of centres decides
  int bf16_min_centres_;
};

}  // namespace secpe
