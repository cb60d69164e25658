#pragma once
// BLAS kernels under test and the bit-for-bit check against the reference, shared by the BLAS
// kernel tests (compute_kernel_test.cpp, blas_bf16_screen_test.cpp, blas_int8_screen_test.cpp): not a
// test itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/reference_kernel.hpp"
#include "core/error.hpp"
#include "compute/verify.hpp"
#include "kernel_test_util.hpp"

namespace secpe::test {

// 1 and 2 threads, small blocks so that block edges are crossed often, and every screen: the
// default (auto), auto with narrow screens from one centre on, fp32, bf16 and int8 (their
// fastest engine here, else fp32), and both emulations, which run on any CPU.
inline std::vector<BlasKernel> blas_kernels() {
  std::vector<BlasKernel> v;
  v.emplace_back(BlasKernelOptions{.threads = 1, .row_block = 7, .centre_block = 5});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 16, .centre_block = 33});
  v.emplace_back(BlasKernelOptions{.threads = 2});  // default blocking
  v.emplace_back(BlasKernelOptions{.threads = 2, .auto_choice = AutoScreen{.tiers = {{BlasScreen::kBf16, 1}, {BlasScreen::kInt8, 40}}, .source = "test"}});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 16, .centre_block = 33, .screen = BlasScreen::kFp32});
  v.emplace_back(BlasKernelOptions{.threads = 1, .row_block = 7, .centre_block = 5, .screen = BlasScreen::kBf16});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 40, .centre_block = 33, .screen = BlasScreen::kBf16});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 9, .centre_block = 40, .screen = BlasScreen::kBf16Emulated});
  v.emplace_back(BlasKernelOptions{.threads = 1, .row_block = 7, .centre_block = 5, .screen = BlasScreen::kInt8});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 40, .centre_block = 70, .screen = BlasScreen::kInt8});
  v.emplace_back(BlasKernelOptions{.threads = 2, .row_block = 9, .centre_block = 40, .screen = BlasScreen::kInt8Emulated});
  return v;
}

// search_mutual against the reference's two searches: the same indices, scores bit for bit, and
// the same error (or none).
inline void expect_mutual_agrees(const NearestCentreKernel& kernel, const MatrixF& x, const MatrixF& c, Metric m) {
  const auto rows = static_cast<std::size_t>(x.rows()), centres = static_cast<std::size_t>(c.rows());
  std::vector<std::int32_t> ref_i(rows), ref_ci(centres), got_i(rows), got_ci(centres);
  std::vector<double> ref_s(rows), ref_cs(centres), got_s(rows), got_cs(centres);
  std::string ref_error, error;
  try {
    ReferenceKernel().search_mutual(x, c, m, ref_i, ref_s, ref_ci, ref_cs);
  } catch (const InputError& e) {
    ref_error = e.what();
  }
  try {
    kernel.search_mutual(x, c, m, got_i, got_s, got_ci, got_cs);
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(error, ref_error);
  if (!ref_error.empty()) return;
  EXPECT_EQ(got_i, ref_i);
  EXPECT_EQ(got_s, ref_s);
  EXPECT_EQ(got_ci, ref_ci);
  EXPECT_EQ(got_cs, ref_cs);
}

// Every BLAS kernel agrees with the reference on search_k, and for k = 1 on search_mutual too.
inline void expect_agree(const MatrixF& x, const MatrixF& c, int k = 1) {
  for (const BlasKernel& kernel : blas_kernels()) {
    for (Metric m : kMetrics) {
      const std::string where = " (threads " + std::to_string(kernel.threads()) + ", screen " +
                                blas_screen_name(kernel.screen_for(c.rows())) + ", metric " + metric_name(m) + ")";
      std::string report;
      EXPECT_TRUE(verify_against_reference(kernel, x, c, m, &report, k)) << report << where;
      if (k != 1) continue;
      SCOPED_TRACE("search_mutual" + where);
      expect_mutual_agrees(kernel, x, c, m);
    }
  }
}

// The narrow screens' worst case: centre A (row 0 of `c`) is the nearest by inner product, but its
// coordinates round one way and B's (row 1) the other, so the screen alone ranks B first. Rows of
// ones (one scaled down) and one row equal to centre 3 agree with the reference, and `screen`
// still finds A: only the rescoring saves it.
inline void expect_aligned_rounding_agrees(const MatrixF& c, BlasScreen screen) {
  MatrixF x = MatrixF::Ones(3, c.cols());
  x.row(1) *= 1e-3f;
  x.row(2) = c.row(3);
  expect_agree(x, c);
  expect_agree(x, c, 2);
  BlasKernel kernel(BlasKernelOptions{.threads = 1, .screen = screen});
  std::vector<std::int32_t> nearest(3);
  std::vector<double> score(3);
  kernel.search(x, c, Metric::kInnerProduct, nearest, score);
  EXPECT_EQ(nearest[0], 0);
}

// Sets (or unsets) an environment variable for a scope; its previous state comes back afterwards.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v;
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const char* value) const { setenv(name_, value, 1); }
  void unset() const { unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

}  // namespace secpe::test
