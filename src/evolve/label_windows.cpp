#include "evolve/label_windows.hpp"

#include <stdexcept>

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

}  // namespace secpe
