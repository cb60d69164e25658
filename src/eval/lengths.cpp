#include "eval/lengths.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "comms/communicator.hpp"

namespace secpe {

void LengthHistogram::add(std::size_t words) {
  if (words >= counts.size()) counts.resize(words + 1, 0);
  ++counts[words];
}

std::int64_t LengthHistogram::total() const { return std::accumulate(counts.begin(), counts.end(), std::int64_t{0}); }

void LengthHistogram::allreduce(const Communicator& comm) {
  counts.resize(static_cast<std::size_t>(comm.allreduce_max(static_cast<double>(counts.size()))), 0);
  comm.allreduce_sum(counts);
}

namespace {

// The i-th smallest length (0-based).
double order_statistic(const std::vector<std::int64_t>& counts, std::int64_t i) {
  std::int64_t seen = 0;
  for (std::size_t w = 0; w < counts.size(); ++w) {
    seen += counts[w];
    if (seen > i) return static_cast<double>(w);
  }
  return static_cast<double>(counts.size() - 1);
}

}  // namespace

LengthStats length_stats(const LengthHistogram& h) {
  LengthStats s;
  s.texts = h.total();
  if (s.texts == 0) return s;
  const auto n = static_cast<double>(s.texts);
  double sum = 0.0;
  for (std::size_t w = 0; w < h.counts.size(); ++w) sum += static_cast<double>(w) * static_cast<double>(h.counts[w]);
  s.mean = sum / n;
  double squares = 0.0;
  for (std::size_t w = 0; w < h.counts.size(); ++w) {
    const double d = static_cast<double>(w) - s.mean;
    squares += d * d * static_cast<double>(h.counts[w]);
  }
  s.std = std::sqrt(squares / n);
  for (const double level : LengthStats::kLevels) {
    const double position = level * (n - 1.0);
    const auto lo = static_cast<std::int64_t>(std::floor(position));
    const double a = order_statistic(h.counts, lo);
    const double b = order_statistic(h.counts, std::min(lo + 1, s.texts - 1));
    s.quantiles.push_back(a + (position - static_cast<double>(lo)) * (b - a));
  }
  return s;
}

double wasserstein1(const LengthHistogram& a, const LengthHistogram& b) {
  const auto na = static_cast<double>(a.total()), nb = static_cast<double>(b.total());
  if (na == 0 || nb == 0) return 0.0;
  double ca = 0.0, cb = 0.0, distance = 0.0;
  for (std::size_t w = 0; w < std::max(a.counts.size(), b.counts.size()); ++w) {
    if (w < a.counts.size()) ca += static_cast<double>(a.counts[w]);
    if (w < b.counts.size()) cb += static_cast<double>(b.counts[w]);
    distance += std::abs(ca / na - cb / nb);
  }
  return distance;
}

}  // namespace secpe
