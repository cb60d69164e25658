#include "compute/cpu/screen_cascade.hpp"

#include <limits>

#include "core/parallel.hpp"

namespace secpe::screen {
namespace {

// Roughly how many times faster than sgemm an engine multiplies, as measured on this project's AMD
// EPYC (Zen 5) and Xeon (AMX) at d = 768. Other CPUs differ: a Xeon VM without AMX tiles ran
// AVX512-BF16 at about 0.6 of sgemm's speed and AVX512-VNNI at about 2 (4,096 centres), hence
// Speedups, measured on the CPU at hand.
double estimate(Engine engine) {
  switch (engine) {
    case Engine::kBf16Amx:
    case Engine::kInt8Avx512: return 4.0;
    case Engine::kBf16Avx512:
    case Engine::kInt8Avx: return 2.0;
    case Engine::kBf16Emulated:
    case Engine::kInt8Emulated: break;
  }
  return 0.0;  // the emulations: far slower
}

}  // namespace

double Speedups::of(Engine engine) const {
  const double measured = engine == Engine::kInt8Emulated || engine == Engine::kBf16Emulated ? 0.0 : is_int8(engine) ? int8 : bf16;
  return measured > 0.0 ? measured : estimate(engine);
}

// Rescoring a candidate (a float re-screen or an exact score, its row read from memory) costs about
// what sgemm spends on 32 centres (measured on the EPYC at d = 768); a screen k times faster than
// sgemm saves 1 - 1/k of its GEMM over fp32, and 1/k' - 1/k over a next level k' times faster. The
// limit is twice that break-even plus 8, since a block's average is a rough guide.
double level_limit(Engine engine, std::optional<Engine> next, Eigen::Index centres, const Speedups& speedups) {
  const double here = speedups.of(engine), there = next ? speedups.of(*next) : 1.0;
  if (here == 0.0) return std::numeric_limits<double>::infinity();
  return 8.0 + 2.0 * double(centres) * (1.0 / there - 1.0 / here) / 32.0;
}

Cascade::Cascade(const CascadeInputs& in, std::vector<Engine> engines)
    : in_(in), engines_(std::move(engines)), levels_(engines_.size() + 1) {
  if (!engines_.empty() && in_.shift) shift_ = choose_shift(in_.centres, in_.centre_norms, in_.max_row_norm, in_.threads);
  build(0);
}

void Cascade::step_down(int from) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (index_.load(std::memory_order_relaxed) != from || last(from)) return;
  build(static_cast<std::size_t>(from) + 1);
  index_.store(from + 1, std::memory_order_release);
}

void Cascade::build(std::size_t i) const {
  Level& level = levels_[i];
  const auto n = static_cast<std::size_t>(in_.centres.rows());
  const Eigen::Index d = in_.centres.cols();
  level.p.resize(n);
  level.q.resize(n);
  level.r.resize(n);
  if (i == engines_.size()) {  // fp32: the plain bound, each centre's norm
    level.limit = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < n; ++c) {
      const bound::CentreTerms t = bound::centre_terms(in_.metric, in_.centre_norms[c], in_.centre_inv_norms[c], 0.0);
      level.p[c] = t.p, level.q[c] = t.q, level.r[c] = t.r;
    }
    return;
  }
  const Engine engine = engines_[i];
  level.narrow = make_screen_gemm(engine, in_.centres, shift_, in_.threads);
  level.stats_level = is_int8(engine) ? 0 : 1;
  const std::optional<Engine> next = i + 1 < engines_.size() ? std::optional<Engine>(engines_[i + 1]) : std::nullopt;
  level.limit = in_.limit_override > 0.0 ? in_.limit_override : level_limit(engine, next, in_.centres.rows(), in_.speedups);
  double max_norm = 0.0;
  for (const double v : in_.centre_norms) max_norm = std::max(max_norm, v);
  level.shifted = {d, level.narrow->roundings(d), bound::kFloatUnit, shift_.norm, max_norm};
  const std::span<const double> units = level.narrow->centre_errors(), residuals = level.narrow->centre_residuals();
  level.offset.resize(n);
  run_chunks(chunk_count(in_.threads, n, double(d)), n, [&](int, std::size_t c0, std::size_t c1) {
    for (std::size_t c = c0; c < c1; ++c) {
      const bound::CentreTerms t =
          bound::shifted_centre_terms(in_.metric, units[c], residuals[c], in_.centre_norms[c], in_.centre_inv_norms[c]);
      level.p[c] = t.p, level.q[c] = t.q, level.r[c] = t.r;
      const double dot = shift_dot(shift_, in_.centres.row(static_cast<Eigen::Index>(c)).data(), d);
      level.offset[c] = bound::centre_offset(in_.metric, in_.centre_sq[c], dot, shift_.sq);
    }
  });
}

}  // namespace secpe::screen
