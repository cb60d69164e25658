// The GPU's one-read candidate selection (compute/impl/select_order.hpp) emulated on the CPU: a warp
// (32 threads) or a block (256) per row, each thread scanning its stripe, then the threshold from
// the group's minimum, then the held candidates or a second read. It must select exactly the
// centres within the row's width of the best approximate score, and so a superset of what the
// per-centre bound (select_candidates) selects.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "compute/impl/search_bound.hpp"
#include "compute/impl/select_order.hpp"

namespace secpe {
namespace {

// The candidates of one row of approximate scores `a`, as a group of `threads` selects them.
std::set<std::int32_t> emulate(const std::vector<double>& a, double width, int threads, bool* second_read = nullptr) {
  std::vector<select_order::Scan> scans(static_cast<std::size_t>(threads));
  for (std::size_t j = 0; j < a.size(); ++j) scans[j % static_cast<std::size_t>(threads)].see(a[j], static_cast<std::int32_t>(j), width);
  double m = __builtin_huge_val();
  bool overflow = false;
  for (const auto& s : scans) m = std::min(m, s.best), overflow = overflow || s.overflow;
  const double threshold = m + width;
  std::set<std::int32_t> out;
  if (!overflow) {
    for (const auto& s : scans)
      for (int h = 0; h < s.held; ++h)
        if (s.value[h] <= threshold) out.insert(s.index[h]);
  } else {
    for (std::size_t j = 0; j < a.size(); ++j)
      if (a[j] <= threshold) out.insert(static_cast<std::int32_t>(j));
  }
  if (second_read) *second_read = overflow;
  return out;
}

std::set<std::int32_t> brute_force(const std::vector<double>& a, double width) {
  const double threshold = *std::min_element(a.begin(), a.end()) + width;
  std::set<std::int32_t> out;
  for (std::size_t j = 0; j < a.size(); ++j)
    if (a[j] <= threshold) out.insert(static_cast<std::int32_t>(j));
  return out;
}

TEST(SelectOrder, SelectsExactlyTheCentresWithinReach) {
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int second_reads = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = 1 + gen() % 3000;
    const double width = trial % 3 == 0 ? 0.0 : std::ldexp(1.0, -static_cast<int>(gen() % 30));
    std::vector<double> a(n);
    for (auto& v : a) v = u(gen);
    if (trial % 5 == 0) {  // near-ties: many centres within reach
      for (std::size_t j = 0; j < n; j += 1 + gen() % 7) a[j] = -1.0 + width * 0.5 * u(gen) * u(gen);
    }
    if (trial % 7 == 0) std::sort(a.begin(), a.end(), std::greater<>());  // a decreasing row: held lists refill
    if (trial % 11 == 0) std::fill(a.begin(), a.end(), 0.25);              // every centre ties
    for (const int threads : {32, 256}) {
      bool second = false;
      ASSERT_EQ(emulate(a, width, threads, &second), brute_force(a, width)) << trial << " " << threads;
      second_reads += second ? 1 : 0;
    }
  }
  EXPECT_GT(second_reads, 0);  // the second read was exercised
}

// With real scores and the search's bound: a superset of the per-centre bound's candidates, and
// the exact nearest always among them.
TEST(SelectOrder, CoversThePerCentreBoundAndTheNearest) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> z;
  const int d = 64, n = 500;
  for (const Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
    std::vector<std::vector<float>> c(n, std::vector<float>(d));
    std::vector<double> norm(n), sq(n), inv(n);
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (auto& v : c[static_cast<std::size_t>(j)]) v = static_cast<float>(z(gen) * (1.0 + j % 3)), s += double(v) * v;
      norm[static_cast<std::size_t>(j)] = std::sqrt(s), sq[static_cast<std::size_t>(j)] = s, inv[static_cast<std::size_t>(j)] = 1.0 / std::sqrt(s);
    }
    const bound::ScoreBound b = bound::make_score_bound(metric, d, bound::kTf32InputUnit, bound::kTensorCoreAccumulationUnit);
    const double max_norm = *std::max_element(norm.begin(), norm.end()), max_inv = *std::max_element(inv.begin(), inv.end());
    for (int row = 0; row < 50; ++row) {
      std::vector<float> x(d);
      double sx = 0.0;
      for (auto& v : x) v = static_cast<float>(z(gen)), sx += double(v) * v;
      const double rx = std::sqrt(sx);
      const select_order::RowTerms t = select_order::row_terms(metric, rx);
      std::vector<double> a(n), exact(n);
      for (int j = 0; j < n; ++j) {
        float g = 0.0f;
        double e = 0.0;
        for (int q = 0; q < d; ++q) g += x[static_cast<std::size_t>(q)] * c[static_cast<std::size_t>(j)][static_cast<std::size_t>(q)],
                                    e += double(x[static_cast<std::size_t>(q)]) * c[static_cast<std::size_t>(j)][static_cast<std::size_t>(q)];
        const auto jj = static_cast<std::size_t>(j);
        a[jj] = bound::approx_score(metric, g, t.sq_x, sq[jj], t.inv_x, inv[jj]);
        exact[jj] = metric == Metric::kL2 ? sx + sq[jj] - 2 * e : metric == Metric::kInnerProduct ? -e : -e / (rx * norm[jj]);
      }
      const auto chosen = emulate(a, select_order::row_width(b, metric, rx, max_norm, metric == Metric::kCosine ? max_inv : 0.0), 32);
      double t_old = __builtin_huge_val();
      for (int j = 0; j < n; ++j) t_old = std::min(t_old, a[static_cast<std::size_t>(j)] + bound::score_error(b, metric, rx, norm[static_cast<std::size_t>(j)], inv[static_cast<std::size_t>(j)]));
      for (int j = 0; j < n; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        if (a[jj] - bound::score_error(b, metric, rx, norm[jj], inv[jj]) <= t_old) EXPECT_TRUE(chosen.count(j)) << j;
      }
      const auto nearest = std::min_element(exact.begin(), exact.end()) - exact.begin();
      EXPECT_TRUE(chosen.count(static_cast<std::int32_t>(nearest)));
    }
  }
}

}  // namespace
}  // namespace secpe
