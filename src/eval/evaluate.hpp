#pragma once
// `secpe eval` as a library: how good a synthetic text set is, measured against real records.
// - downstream: per label column, a classifier trained on the synthetic texts and tested on the
//   real ones (accuracy, macro-F1), beside the majority-class baseline;
// - distribution: FID between Gaussian fits of the embeddings, k-NN precision and recall, MAUVE;
// - form: length distributions in words and their Wasserstein-1 distance; diversity (distinct
//   1- and 2-grams, near-duplicate rate), with the same figures of a real sample for reference;
// - next-word prediction (eval/next_word.hpp): for unlabelled corpora, and on request for others.
// Every figure is identical for any rank count (exact counts and sums, seeded samples).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "eval/classification.hpp"
#include "eval/diversity.hpp"
#include "eval/lengths.hpp"
#include "eval/logistic.hpp"
#include "eval/mauve.hpp"
#include "eval/next_word.hpp"
#include "eval/real_set.hpp"
#include "text/tfidf.hpp"
#include "io/corpus.hpp"

namespace secpe {

class Communicator;

enum class ClassifierFeatures { kTfidf, kEmbeddings };
inline constexpr EnumNames<ClassifierFeatures, 2> kClassifierFeaturesNames{
    {{ClassifierFeatures::kTfidf, "tfidf"}, {ClassifierFeatures::kEmbeddings, "embeddings"}}};
inline std::string features_name(ClassifierFeatures features) { return std::string(name_of(kClassifierFeaturesNames, features)); }
inline ClassifierFeatures parse_features(const std::string& name) { return parse_name(kClassifierFeaturesNames, name, "classifier features"); }

struct EvalOptions {
  std::vector<ClassifierFeatures> features = {ClassifierFeatures::kTfidf};
  TfidfOptions tfidf{};
  LogisticOptions classifier{};
  int knn = 3;                          // k of precision and recall
  std::size_t sample_records = 10000;   // synthetic records in the precision/recall sample
  NearDuplicateOptions near_duplicates{};
  bool next_word = false;               // next-word prediction for a labelled corpus too (always for unlabelled ones)
  std::uint64_t seed = 1;               // picks the synthetic sample
  std::string kernel = "blas";          // nearest-centre kernel of precision and recall
  int threads = 0;                      // per rank: classifiers side by side, the kernel (0: default_threads())
  std::string synthetic_name = "the synthetic set";  // for messages and the report (its file)
};

struct ClassifierReport {
  ClassifierFeatures features;
  std::size_t num_features = 0;
  int iterations = 0;
  bool converged = true;
  ClassificationScores scores;
};

struct LabelColumnReport {
  std::string column;
  std::vector<std::string> classes;                   // the synthetic set's values, sorted
  std::vector<std::string> classes_absent_from_real;  // fine, but the classifier may predict them
  std::vector<std::string> real_values_unseen;        // real values the synthetic set lacks
  std::int64_t real_records_unseen = 0;               // real records holding one (always misclassified)
  std::string majority_class;                         // the synthetic set's most frequent value
  ClassificationScores majority;                      // predicting it for every real record
  std::vector<ClassifierReport> classifiers;
};

struct DiversityReport {
  std::size_t texts = 0;
  double distinct_1 = 0.0, distinct_2 = 0.0;
  std::size_t near_duplicates = 0;
  double near_duplicate_rate = 0.0;
};

struct EvalReport {
  std::string synthetic_name, real_name;
  std::uint64_t synthetic_records = 0, real_records = 0, real_bad_records_skipped = 0;
  std::uint64_t seed = 0;
  std::string embedder;
  std::vector<LabelColumnReport> labels;
  std::optional<double> fid;  // needs two records on each side
  int knn = 0;
  std::size_t knn_synthetic = 0, knn_real = 0;  // sample sizes
  std::optional<double> precision, recall;       // need more than k records on each side
  std::optional<MauveScore> mauve;               // on the same samples (a record on each side)
  LengthStats synthetic_lengths, real_lengths;
  double length_wasserstein1 = 0.0;
  DiversityReport synthetic_diversity, real_diversity;  // real: the first records of the real sample
  std::optional<NextWordScores> next_word;              // on the real sample's texts
  struct Seconds {
    double real_set = 0, classifiers = 0, scoring = 0, fid = 0, precision_recall = 0, mauve = 0, diversity = 0, next_word = 0, total = 0;
  } seconds;
  int ranks = 1;
};

// Columns: the synthetic set's label columns the real set also has (InputError when none, or
// when a column's synthetic values never occur in the real set).
EvalReport evaluate(const Corpus& synthetic, const RealSet& real, const EvalOptions& options, const Communicator& comm);

}  // namespace secpe
