#pragma once
// Scores of a classifier on a test set from exact counts, so that counts from chunks and ranks
// add up to the same scores in any order.
#include <cstdint>
#include <span>
#include <vector>

namespace secpe {

// counts[(truth, predicted)] over classes [0, classes) of the training set; truth == classes
// stands for every test value the training set does not have (the classifier can never predict it).
class ConfusionCounts {
 public:
  explicit ConfusionCounts(int classes) : classes_(classes), counts_(static_cast<std::size_t>((classes + 1) * classes)) {}
  int classes() const { return classes_; }
  void add(int truth, int predicted, std::int64_t n = 1) { counts_[index(truth, predicted)] += n; }
  std::int64_t at(int truth, int predicted) const { return counts_[index(truth, predicted)]; }
  std::vector<std::int64_t>& raw() { return counts_; }  // for an exact allreduce
  // Test records per true class (classes + 1 entries, the last for unseen values).
  std::vector<std::int64_t> support() const;

 private:
  std::size_t index(int truth, int predicted) const {
    return static_cast<std::size_t>(truth) * static_cast<std::size_t>(classes_) + static_cast<std::size_t>(predicted);
  }
  int classes_;
  std::vector<std::int64_t> counts_;
};

// One class's counts on the test set: its records, the records predicted as it, and those both.
// Where a majority class dominates, accuracy hides which classes the training set taught at all;
// these show it (recall = correct / support, precision = correct / predicted).
struct ClassCounts {
  std::int64_t support = 0, predicted = 0, correct = 0;
};

struct ClassificationScores {
  std::int64_t records = 0;
  double accuracy = 0.0;
  // Unweighted mean of per-class F1 over every class that occurs in the test set or is predicted
  // (scikit-learn's f1_score(average="macro")); a class with no true positive scores 0.
  double macro_f1 = 0.0;
  std::vector<ClassCounts> per_class;  // per class of the confusion counts, in their order
};

// unseen_classes: how many distinct test values the training set does not have (each is a class
// with support and F1 = 0 in the macro average).
ClassificationScores score_classification(const ConfusionCounts& counts, std::int64_t unseen_classes);

// The most frequent class of y (ties to the lower class).
int most_frequent_class(std::span<const std::int32_t> y, int classes);

// The scores of predicting `predicted` for every test record: support[k] test records of class k
// (support.size() classes), unseen_records of values outside them, in unseen_classes values.
ClassificationScores constant_prediction_scores(std::span<const std::int64_t> support, std::int64_t unseen_records,
                                                std::int64_t unseen_classes, int predicted);

}  // namespace secpe
