#pragma once
// Text lengths in words as exact histograms: statistics of each set and the distance between them.
#include <cstdint>
#include <vector>

namespace secpe {

class Communicator;

struct LengthHistogram {
  std::vector<std::int64_t> counts;  // counts[w]: texts of w words
  void add(std::size_t words);
  std::int64_t total() const;
  void allreduce(const Communicator& comm);  // every rank gets the sum over every rank
};

struct LengthStats {
  std::int64_t texts = 0;
  double mean = 0.0, std = 0.0;  // std: of the population (divides by n)
  // Quantiles interpolated linearly between order statistics (numpy's default) at 0, 5, 25, 50,
  // 75, 95 and 100%.
  static constexpr double kLevels[] = {0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0};
  std::vector<double> quantiles;
};

LengthStats length_stats(const LengthHistogram& h);

// Wasserstein-1 (earth mover's) distance in words between the two empirical distributions:
// sum over w of |F_a(w) - F_b(w)|, the area between the two step CDFs. 0 for no texts on either side.
double wasserstein1(const LengthHistogram& a, const LengthHistogram& b);

}  // namespace secpe
