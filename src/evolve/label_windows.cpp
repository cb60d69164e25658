#include "evolve/label_windows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace secpe {

std::vector<std::vector<std::size_t>> label_windows(std::span<const std::size_t> labels, std::span<const std::size_t> requests,
                                                    std::size_t in_flight) {
  if (labels.size() != requests.size()) throw std::logic_error("label_windows: a request count per label");
  const std::size_t fill = in_flight <= 1 ? 0 : kRoundRequestsPerSlot * in_flight;
  std::vector<std::vector<std::size_t>> windows;
  std::size_t held = 0;  // requests per round of the last window
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (windows.empty() || held >= fill) {
      windows.emplace_back();
      held = 0;
    }
    windows.back().push_back(labels[i]);
    held += requests[i];
  }
  return windows;
}

std::vector<std::vector<std::vector<std::size_t>>> paced_windows(const std::vector<std::vector<std::size_t>>& labels_of_rank,
                                                                 std::span<const std::int64_t> cost) {
  const std::size_t ranks = labels_of_rank.size();
  std::vector<std::vector<std::size_t>> queue(labels_of_rank);
  std::int64_t largest = 0;
  for (auto& labels : queue) {
    for (const std::size_t label : labels) {
      if (label >= cost.size()) throw std::logic_error("paced_windows: label " + std::to_string(label) + " has no cost");
      largest = std::max(largest, cost[label]);
    }
    std::stable_sort(labels.begin(), labels.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  }
  std::vector<std::vector<std::vector<std::size_t>>> windows(ranks);
  std::vector<std::size_t> next(ranks, 0);
  std::vector<std::int64_t> done(ranks, 0);  // each rank's running cost
  for (;;) {
    std::int64_t pace = -1;
    for (std::size_t r = 0; r < ranks; ++r)
      if (next[r] < queue[r].size()) pace = std::max(pace, done[r] + cost[queue[r][next[r]]]);
    if (pace < 0) return windows;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (next[r] >= queue[r].size()) continue;
      std::vector<std::size_t>& window = windows[r].emplace_back();
      std::int64_t held = 0;
      do {
        const std::size_t label = queue[r][next[r]++];
        window.push_back(label);
        held += cost[label];
        done[r] += cost[label];
      } while (next[r] < queue[r].size() && done[r] + cost[queue[r][next[r]]] <= pace && held + cost[queue[r][next[r]]] <= largest);
    }
  }
}

}  // namespace secpe
