#include "evolve/synthetic_split.hpp"

#include <algorithm>

namespace secpe {

// N_syn split over labels in proportion to their public record counts (public under secret
// protection), by largest remainder; ties go to the lower label id.
std::vector<std::size_t> split_synthetic(std::size_t total, const std::vector<std::int64_t>& public_counts) {
  std::vector<std::size_t> share(public_counts.size(), 0);
  std::int64_t sum = 0;
  for (auto c : public_counts) sum += c;
  if (sum == 0) return share;
  std::vector<std::pair<double, std::size_t>> remainder;
  std::size_t given = 0;
  for (std::size_t l = 0; l < public_counts.size(); ++l) {
    const double exact = double(total) * double(public_counts[l]) / double(sum);
    share[l] = static_cast<std::size_t>(exact);
    given += share[l];
    remainder.emplace_back(exact - double(share[l]), l);
  }
  std::stable_sort(remainder.begin(), remainder.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; given < total && i < remainder.size(); ++i, ++given) ++share[remainder[i].second];
  return share;
}

}  // namespace secpe
