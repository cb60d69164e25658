#include "evolve/training_texts.hpp"

#include <algorithm>
#include <map>

#include "core/log.hpp"
#include "io/corpus.hpp"

namespace secpe {

std::vector<std::vector<std::string>> public_training_texts(const DatasetReader& reader, std::size_t cap) {
  const auto& info = reader.info();
  const auto labels = reader.label_ids(0, info.num_records);
  const auto secrets = reader.secrets(0, info.num_records);
  std::vector<std::vector<std::uint64_t>> public_ids(info.labels.size());
  for (std::uint64_t i = 0; i < info.num_records; ++i)
    if (!secrets.is_private(i)) public_ids[static_cast<std::size_t>(labels[i])].push_back(i);
  std::vector<std::uint64_t> chosen;
  std::vector<std::size_t> chosen_label;
  for (std::size_t l = 0; l < public_ids.size(); ++l) {
    const auto& ids = public_ids[l];
    const std::size_t take = std::min(cap, ids.size());
    for (std::size_t i = 0; i < take; ++i) {
      chosen.push_back(ids[i * ids.size() / take]);
      chosen_label.push_back(l);
    }
  }
  std::vector<std::size_t> order(chosen.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return chosen[a] < chosen[b]; });
  std::vector<std::uint64_t> sorted_ids;
  for (auto i : order) sorted_ids.push_back(chosen[i]);
  auto texts = reader.texts(sorted_ids);
  std::vector<std::vector<std::string>> per_label(info.labels.size());
  for (std::size_t k = 0; k < order.size(); ++k) per_label[chosen_label[order[k]]].push_back(std::move(texts[k]));
  return per_label;
}

std::vector<std::vector<std::string>> corpus_training_texts(const std::filesystem::path& path, const LabelSet& labels) {
  CsvReadOptions options;
  options.label_columns = labels.columns;
  // The dataset's prefix where it has one; else Aug-PE's, stripped only from values carrying it, so
  // an Aug-PE corpus matches a dataset imported from plain labels.
  const std::vector<std::string> augpe = options.label_prefixes;
  options.label_prefixes = labels.prefixes;
  for (std::size_t c = 0; c < options.label_prefixes.size() && c < augpe.size(); ++c)
    if (options.label_prefixes[c].empty()) options.label_prefixes[c] = augpe[c];
  const Corpus corpus = read_augpe_csv(path, options);
  std::map<std::vector<std::string>, std::size_t> id_of;
  for (std::size_t l = 0; l < labels.size(); ++l) id_of[labels.values[l]] = l;
  std::vector<std::vector<std::string>> per_label(labels.size());
  std::size_t unmatched = 0;
  for (std::size_t i = 0; i < corpus.texts.size(); ++i) {
    auto it = id_of.find(corpus.labels[i]);
    if (it == id_of.end()) ++unmatched;
    else per_label[it->second].push_back(corpus.texts[i]);
  }
  if (unmatched > 0) log_warn(std::to_string(unmatched) + " texts of " + path.string() + " have labels the dataset lacks; ignored");
  return per_label;
}

}  // namespace secpe
