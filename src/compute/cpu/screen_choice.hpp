#pragma once
// Which screen `auto` should use on this CPU, measured (`secpe blas-check --choose-screen`;
// jobs/blas-core.sh exports the result as SECPE_BLAS_SCREEN_AUTO, as it exports the OpenBLAS core
// it chose): the blas kernel times one search with each screen that runs natively here, fp32
// (sgemm, on the loaded OpenBLAS core) included, on random unit rows (d = 768, 2048 rows) against
// 32 to 4096 centres. Every screen gives the same answers; only the time differs.
#include <string>
#include <vector>

#include "compute/cpu/blas_kernel.hpp"

namespace secpe {

struct ScreenTimings {
  BlasScreen screen;
  std::string label;             // screen_label(screen)
  std::vector<double> seconds;   // per entry of ScreenChoice::centres: the best of 3 searches, CPU time
};

struct ScreenChoice {
  AutoScreen choice;
  std::vector<int> centres;  // the centre counts measured
  std::vector<ScreenTimings> timings;  // fp32 first
};

// The rule: at each count of centres measured, the fastest screen, unless the one chosen for the
// count below is within 3% of it (timings are noisy); a tier starts wherever the choice changes.
// With it, each narrow screen's speedup over fp32 at the most centres (AutoScreen::speedups).
// CPU time of one thread, so that a shared machine's load weighs less.
ScreenChoice choose_screen();

// The choice from given timings (the rule above, without the measurement): tested on its own.
AutoScreen choose_from(const std::vector<int>& centres, const std::vector<ScreenTimings>& timings);

}  // namespace secpe
