#pragma once
// The screens one search of the blas kernel may use, fastest first: int8, then bf16, then fp32
// (sgemm), each with what its bound reads of every centre. A search starts on the first; a block
// of rows whose screen kept too many candidates per row (the screen cannot separate this data's
// centres, and rescoring them costs more than the faster GEMM saves) hands the rest of the search
// to the next one, built then. Every screen's candidates are rescored exactly: the cascade only
// changes the time. Internal to compute/cpu/blas_kernel.cpp.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "compute/cpu/screen_gemm.hpp"
#include "compute/metric.hpp"
#include "compute/impl/search_bound.hpp"

namespace secpe::screen {

// One screen of the cascade.
struct Level {
  std::unique_ptr<ScreenGemm> narrow;  // null: fp32 (sgemm)
  int stats_level = 2;                 // ScreenStats' index: 0 int8, 1 bf16, 2 fp32
  // Candidates per row, on a block's average, above which the next level takes over (inf: none).
  double limit = 0.0;
  bound::ShiftedScreen shifted;       // narrow: the search-wide constants of its bound
  std::vector<double> p, q, r;        // each centre's bound::CentreTerms
  std::vector<double> offset;         // narrow: each centre's Q for shifted rows (bound::centre_offset)
};

// The native int8 and bf16 engines' GEMM speed over sgemm's, as measured on this CPU
// (AutoScreen::speedups); 0: not measured, the built-in estimate.
struct Speedups {
  double int8 = 0.0, bf16 = 0.0;
  double of(Engine engine) const;  // measured or estimated; 0 for the emulations
};

// What a cascade reads of the search.
struct CascadeInputs {
  const MatrixF& centres;
  Metric metric;
  std::span<const double> centre_norms;      // the exact kernel's
  std::span<const double> centre_sq;         // |c|^2
  std::span<const double> centre_inv_norms;  // 1 / |c| (cosine; else 0)
  double max_row_norm;
  int threads;
  bool shift;            // narrow screens may round residuals from the centres' mean (choose_shift)
  double limit_override; // > 0: every level's limit (tests); else the measured ones (level_limit)
  Speedups speedups = {};
};

class Cascade {
 public:
  // `engines`: the narrow screens in order (each must be available and fit the search's data); fp32
  // follows them. Builds the first level.
  Cascade(const CascadeInputs& in, std::vector<Engine> engines);
  // The level the next block uses, and its index (stable once read: levels are never rebuilt).
  int index() const { return index_.load(std::memory_order_acquire); }
  const Level& level(int i) const { return levels_[static_cast<std::size_t>(i)]; }
  bool last(int i) const { return static_cast<std::size_t>(i) + 1 == levels_.size(); }
  // Moves on from level `from` (a block on it kept too many candidates), building the next level
  // unless another thread already did.
  void step_down(int from) const;

 private:
  void build(std::size_t i) const;

  CascadeInputs in_;
  std::vector<Engine> engines_;
  Shift shift_;
  mutable std::vector<Level> levels_;  // one per engine, then fp32; built when first reached
  mutable std::atomic<int> index_{0};
  mutable std::mutex mutex_;
};

// Candidates per row above which `engine`'s screen loses to the next level of the cascade (`next`;
// none: fp32), for a search with `centres` centres (inf for the emulations, which exist to test
// the narrow path).
double level_limit(Engine engine, std::optional<Engine> next, Eigen::Index centres, const Speedups& speedups = {});

}  // namespace secpe::screen
