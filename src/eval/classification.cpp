#include "eval/classification.hpp"

#include <algorithm>

namespace secpe {

std::vector<std::int64_t> ConfusionCounts::support() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(classes_ + 1), 0);
  for (int t = 0; t <= classes_; ++t) {
    for (int p = 0; p < classes_; ++p) out[static_cast<std::size_t>(t)] += at(t, p);
  }
  return out;
}

ClassificationScores score_classification(const ConfusionCounts& counts, std::int64_t unseen_classes) {
  const int k = counts.classes();
  ClassificationScores out;
  std::int64_t correct = 0;
  std::vector<std::int64_t> predicted(static_cast<std::size_t>(k), 0);
  for (int t = 0; t <= k; ++t) {
    for (int p = 0; p < k; ++p) {
      out.records += counts.at(t, p);
      predicted[static_cast<std::size_t>(p)] += counts.at(t, p);
      if (t == p) correct += counts.at(t, p);
    }
  }
  if (out.records == 0) return out;
  out.accuracy = static_cast<double>(correct) / static_cast<double>(out.records);
  const std::vector<std::int64_t> support = counts.support();
  for (int c = 0; c < k; ++c) {
    const auto i = static_cast<std::size_t>(c);
    out.per_class.push_back({.support = support[i], .predicted = predicted[i], .correct = counts.at(c, c)});
  }
  double f1_sum = 0.0;
  std::int64_t scored = unseen_classes;  // each unseen value: support > 0, never predicted, F1 = 0
  for (const ClassCounts& c : out.per_class) {
    const auto tp = static_cast<double>(c.correct), s = static_cast<double>(c.support), p = static_cast<double>(c.predicted);
    if (s == 0 && p == 0) continue;  // neither in the test set nor predicted: not a class of the score
    ++scored;
    if (tp > 0) f1_sum += 2.0 * tp / (s + p);  // 2PR / (P + R) with P = tp/p, R = tp/s
  }
  out.macro_f1 = scored > 0 ? f1_sum / static_cast<double>(scored) : 0.0;
  return out;
}

int most_frequent_class(std::span<const std::int32_t> y, int classes) {
  std::vector<std::int64_t> frequency(static_cast<std::size_t>(classes), 0);
  for (const std::int32_t c : y) ++frequency[static_cast<std::size_t>(c)];
  return static_cast<int>(std::max_element(frequency.begin(), frequency.end()) - frequency.begin());
}

ClassificationScores constant_prediction_scores(std::span<const std::int64_t> support, std::int64_t unseen_records,
                                                std::int64_t unseen_classes, int predicted) {
  ConfusionCounts counts(static_cast<int>(support.size()));
  for (std::size_t k = 0; k < support.size(); ++k) counts.add(static_cast<int>(k), predicted, support[k]);
  counts.add(counts.classes(), predicted, unseen_records);
  return score_classification(counts, unseen_classes);
}

}  // namespace secpe
