#include "compute/cpu/screen_choice.hpp"

#include <algorithm>
#include <ctime>
#include <random>

namespace secpe {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// n random unit rows of dimension d (normal coordinates, normalised), from the seed alone.
MatrixF unit_rows(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal;
  MatrixF m(n, d);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  for (Eigen::Index i = 0; i < n; ++i) m.row(i).normalize();
  return m;
}

// The best of three searches with `screen`, in CPU seconds of this thread (the kernel runs on it).
double time_search(BlasScreen screen, const MatrixF& x, const MatrixF& c) {
  const BlasKernel kernel(BlasKernelOptions{.threads = 1, .screen = screen});
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(x.rows()));
  std::vector<double> score(nearest.size());
  double best = 0.0;
  for (int r = 0; r < 3; ++r) {
    const double t0 = thread_cpu_seconds();
    kernel.search(x, c, Metric::kInnerProduct, nearest, score);
    const double t = thread_cpu_seconds() - t0;
    if (r == 0 || t < best) best = t;
  }
  return best;
}

}  // namespace

AutoScreen choose_from(const std::vector<int>& centres, const std::vector<ScreenTimings>& timings) {
  AutoScreen out{.tiers = {}, .source = "secpe blas-check --choose-screen"};
  BlasScreen current = BlasScreen::kFp32;
  for (std::size_t i = 0; i < centres.size(); ++i) {
    // The fastest here, unless the screen of the tier below is within 3% of it (noise).
    const ScreenTimings* best = nullptr;
    double current_seconds = -1.0;
    for (const ScreenTimings& t : timings) {
      if (!best || t.seconds[i] < best->seconds[i]) best = &t;
      if (t.screen == current) current_seconds = t.seconds[i];
    }
    if (!best || best->screen == current || (current_seconds >= 0.0 && current_seconds <= 1.03 * best->seconds[i])) continue;
    current = best->screen;
    out.tiers.push_back({current, centres[i]});
  }
  // A tier of fp32 above narrow tiers stays; one at the start is the default anyway.
  if (!out.tiers.empty() && out.tiers.front().screen == BlasScreen::kFp32) out.tiers.erase(out.tiers.begin());
  // Each narrow screen's speed over sgemm with the most centres measured, where the GEMM dominates
  // (the cascade's limits: compute/cpu/screen_cascade.hpp).
  const auto fp32 = std::find_if(timings.begin(), timings.end(), [](const ScreenTimings& t) { return t.screen == BlasScreen::kFp32; });
  for (const ScreenTimings& t : timings)
    if (fp32 != timings.end() && t.screen != BlasScreen::kFp32 && t.seconds.back() > 0.0)
      out.speedups.push_back({t.screen, fp32->seconds.back() / t.seconds.back()});
  return out;
}

ScreenChoice choose_screen() {
  ScreenChoice r;
  r.centres = {32, 64, 128, 256, 512, 1024, 4096};
  const MatrixF x = unit_rows(2048, 768, 1), all = unit_rows(r.centres.back(), 768, 2);
  for (const BlasScreen screen : {BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kInt8}) {
    if (screen != BlasScreen::kFp32 && !screen_engine(screen)) continue;
    ScreenTimings t{screen, screen_label(screen), {}};
    for (const int n : r.centres) t.seconds.push_back(time_search(screen, x, all.topRows(n)));
    r.timings.push_back(std::move(t));
  }
  r.choice = choose_from(r.centres, r.timings);
  return r;
}

}  // namespace secpe
