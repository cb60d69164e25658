// A label's human-readable name, for logs and reports: its column values joined by " | ".
#include <stdexcept>

#include "io/dataset.hpp"

namespace secpe {

std::string LabelSet::display(std::size_t label) const {
  if (label >= values.size()) throw std::out_of_range("LabelSet::display: label id out of range");
  std::string out;
  for (std::size_t c = 0; c < values[label].size(); ++c) {
    if (c > 0) out += " | ";
    out += values[label][c];
  }
  return out;
}

}  // namespace secpe
