// A label's human-readable name, for logs and reports: its column values joined by " | ".
#include <map>
#include <stdexcept>

#include "io/corpus.hpp"
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

LabelSet build_labels(const Corpus& corpus, std::vector<std::int32_t>& ids) {
  std::map<std::vector<std::string>, std::int32_t> index;
  for (const auto& l : corpus.labels) index.emplace(l, 0);
  LabelSet labels{corpus.label_columns, corpus.label_prefixes, {}};
  for (auto& [values, id] : index) {
    id = static_cast<std::int32_t>(labels.values.size());
    labels.values.push_back(values);
  }
  ids.clear();
  for (const auto& l : corpus.labels) ids.push_back(index.at(l));
  return labels;
}

}  // namespace secpe
