#include "evolve/selection.hpp"

#include <algorithm>
#include <numeric>

namespace secpe {

std::vector<std::size_t> rank_select(std::span<const double> votes, std::span<const double> tie_key, std::size_t n) {
  std::vector<std::size_t> order(votes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      if (votes[a] != votes[b]) return votes[a] > votes[b];
                      if (tie_key[a] != tie_key[b]) return tie_key[a] < tie_key[b];
                      return a < b;
                    });
  order.resize(n);
  return order;
}

}  // namespace secpe
