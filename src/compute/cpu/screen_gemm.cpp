// The screens' engines behind one interface: which run here, what they can screen, and the two
// formats' GEMMs (compute/cpu/bf16_gemm.hpp, compute/cpu/int8_gemm.hpp) as ScreenGemms.
#include "compute/cpu/screen_gemm.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/int8_gemm.hpp"
#include "compute/impl/exact_score.hpp"
#include "core/parallel.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SECPE_SHIFT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SECPE_SHIFT_CLONES
#endif

namespace secpe::screen {

bool available(Engine engine) {
  switch (engine) {
    case Engine::kBf16Amx: return bf16::amx_available();
    case Engine::kBf16Avx512: return bf16::avx512_bf16_available();
    case Engine::kInt8Avx512: return int8::avx512_vnni_available();
    case Engine::kInt8Avx: return int8::avx_vnni_available();
    case Engine::kBf16Emulated:
    case Engine::kInt8Emulated: return true;
  }
  return false;
}

bool is_int8(Engine engine) {
  return engine == Engine::kInt8Avx512 || engine == Engine::kInt8Avx || engine == Engine::kInt8Emulated;
}

bool fits(Engine engine, Eigen::Index d, double min_norm, double max_norm) {
  if (d == 0) return false;
  if (!is_int8(engine)) return max_norm < 1e38;
  return d <= 65536 && min_norm >= 0x1p-40 && max_norm <= 0x1p40;
}

double relative_error_bound(double error, double norm, Eigen::Index d) {
  if (norm == 0.0) return 0.0;
  return std::sqrt(error / norm) * (1.0 + double(d + 4) * 0x1p-51);
}

Measured measured_residual(double error, double norm, Eigen::Index d, bool shifted) {
  const double r = relative_error_bound(error, norm, d);
  return {shifted ? r * (1.0 + 0x1p-50) + 0x1p-52 : r, std::sqrt(norm) * (1.0 + double(d + 6) * 0x1p-51)};
}

Shift choose_shift(const MatrixF& centres, std::span<const double> centre_norms, double max_row_norm, int threads) {
  const Eigen::Index n = centres.rows(), d = centres.cols();
  Shift shift;
  if (n < 2 || d == 0) return shift;
  // The mean, coordinate by coordinate in index order of the centres (chunks of coordinates on
  // the threads: the same sums whatever their number).
  std::vector<float> m(static_cast<std::size_t>(d));
  run_chunks(chunk_count(threads, static_cast<std::size_t>(d), double(n)), static_cast<std::size_t>(d),
             [&](int, std::size_t j0, std::size_t j1) {
               std::vector<double> sum(j1 - j0, 0.0);
               for (Eigen::Index c = 0; c < n; ++c) {
                 const float* row = centres.row(c).data();
                 for (std::size_t j = j0; j < j1; ++j) sum[j - j0] += double(row[j]);
               }
               for (std::size_t j = j0; j < j1; ++j) m[j] = static_cast<float>(sum[j - j0] / double(n));
             });
  const double sq = exact::dot(m.data(), m.data(), d);
  double mean_sq = 0.0, max_norm = 0.0;
  for (const double v : centre_norms) mean_sq += v * v, max_norm = std::max(max_norm, v);
  mean_sq /= double(n);
  const double norm = std::sqrt(sq) * (1.0 + 0x1p-40);
  if (!(sq >= 0.1 * mean_sq) || !((max_row_norm + norm) * (max_norm + norm) < 1e36)) return shift;
  shift.m = std::move(m);
  shift.sq = sq;
  shift.norm = norm;
  return shift;
}

SECPE_SHIFT_CLONES double shift_dot(const Shift& shift, const float* __restrict x, Eigen::Index d) {
  if (shift.m.empty()) return 0.0;
  using D8 = double __attribute__((vector_size(64)));
  using F8 = float __attribute__((vector_size(32)));
  const float* __restrict m = shift.m.data();
  D8 acc = {};
  Eigen::Index j = 0;
  for (; j + 8 <= d; j += 8) {
    F8 a, b;
    std::memcpy(&a, x + j, sizeof a);
    std::memcpy(&b, m + j, sizeof b);
    acc += __builtin_convertvector(a, D8) * __builtin_convertvector(b, D8);
  }
  double sum = 0.0;
  for (int t = 0; t < 8; ++t) sum += acc[t];
  for (; j < d; ++j) sum += double(x[j]) * double(m[j]);
  return sum;
}

void RoundedRows::shift_rows(const Shift& shift, const MatrixF& x, Eigen::Index r0, Eigen::Index rows) {
  const auto n = static_cast<std::size_t>(rows);
  errors.resize(n);
  residuals.resize(n);
  shift_dots.resize(n);
  shifted.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    shift_dots[i] = shift_dot(shift, x.row(r0 + static_cast<Eigen::Index>(i)).data(), x.cols());
    shifted[i] = shift_row(shift, shift_dots[i]) ? 1 : 0;
  }
}

namespace {

// Either format behind the interface: Centres is int8::PackedCentres or bf16::PackedCentres.
template <class Centres>
class PackedScreen final : public ScreenGemm {
  static constexpr bool kInt8 = std::is_same_v<Centres, int8::PackedCentres>;

 public:
  PackedScreen(Engine engine, const MatrixF& centres, const Shift& shift, int threads)
      : engine_(engine), shift_(shift), centres_(centres, shift_, threads) {}
  Engine engine() const override { return engine_; }
  std::span<const double> centre_errors() const override { return centres_.relative_errors(); }
  std::span<const double> centre_residuals() const override { return centres_.residuals(); }
  const Shift& shift() const override { return shift_; }
  long long roundings(Eigen::Index d) const override { return kInt8 ? 3 : d; }
  void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, RoundedRows& out) const override {
    out.shift_rows(shift_, x, r0, rows);
    if constexpr (kInt8) {
      int8::round_rows(x, r0, rows, shift_, out);
    } else {
      bf16::round_rows(x, r0, rows, shift_, out);
    }
  }
  void gemm(const RoundedRows& rows, Eigen::Index mbp, Eigen::Index c0, Eigen::Index nbp, float* g) const override {
    if constexpr (kInt8) {
      int8::gemm(engine_, rows, mbp, centres_, c0, nbp, g);
    } else {
      bf16::gemm(engine_, rows.bf16.data(), mbp, centres_, c0, nbp, g);
    }
  }

 private:
  Engine engine_;
  Shift shift_;
  Centres centres_;
};

}  // namespace

std::unique_ptr<ScreenGemm> make_screen_gemm(Engine engine, const MatrixF& centres, const Shift& shift, int threads) {
  if (is_int8(engine)) return std::make_unique<PackedScreen<int8::PackedCentres>>(engine, centres, shift, threads);
  return std::make_unique<PackedScreen<bf16::PackedCentres>>(engine, centres, shift, threads);
}

}  // namespace secpe::screen
