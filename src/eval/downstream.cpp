#include "eval/downstream.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "comms/communicator.hpp"
#include "text/ngrams.hpp"

namespace secpe {

namespace {

// The classifier's input rows for `texts` under one kind of features.
struct FeatureMaker {
  const TfidfVectorizer* tfidf;  // set for kTfidf
  const Embedder* embedder;      // set for kEmbeddings
  SparseRows rows(std::span<const std::string> texts) const {
    if (tfidf) return tfidf->transform(words_of(texts));
    MatrixF e;
    embedder->embed(texts, e);
    return e.cast<double>().sparseView();
  }
  std::size_t num_features() const { return tfidf ? tfidf->num_features() : static_cast<std::size_t>(embedder->dim()); }
};

// Sends the owner's model to every rank: the same model everywhere whatever the machines.
void broadcast_model(LogisticModel& m, Eigen::Index features, int classes, int owner, const Communicator& comm) {
  if (comm.rank() != owner) {
    m.weights.resize(features, classes);
    m.bias.resize(classes);
  }
  comm.broadcast(std::span<double>(m.weights.data(), static_cast<std::size_t>(m.weights.size())), owner);
  comm.broadcast(std::span<double>(m.bias.data(), static_cast<std::size_t>(m.bias.size())), owner);
  std::int64_t meta[2] = {m.iterations, m.converged ? 1 : 0};
  comm.broadcast(std::span<std::int64_t>(meta, 2), owner);
  m.iterations = static_cast<int>(meta[0]);
  m.converged = meta[1] != 0;
}

// "a, b, c and 9 more": label values are public, and naming them shows why none matched.
template <class Range, class Name>
std::string some_values(const Range& values, Name name) {
  constexpr std::size_t kShown = 12;
  std::string out;
  std::size_t n = 0;
  for (const auto& v : values) {
    if (n++ < kShown) out += (out.empty() ? "'" : ", '") + name(v) + "'";
  }
  if (n > kShown) out += " and " + std::to_string(n - kShown) + " more";
  return out.empty() ? "none" : out;
}

// models[column][features].
using LabelModels = std::vector<std::vector<LogisticModel>>;

// Trains every (column, features) classifier on the synthetic texts and gives every rank all of
// them. Each model is trained on one thread (so it is the same whoever trains it): model m goes to
// rank m % ranks, and a rank trains its models side by side on up to options.threads threads.
LabelModels train_classifiers(const Corpus& synthetic, const std::vector<LabelColumn>& columns,
                         const std::vector<FeatureMaker>& makers, const EvalOptions& options, const Communicator& comm) {
  LabelModels models(columns.size(), std::vector<LogisticModel>(makers.size()));
  auto owner = [&](std::size_t c, std::size_t f) { return static_cast<int>((f * columns.size() + c) % comm.size()); };
  std::vector<SparseRows> rows;
  for (const FeatureMaker& maker : makers) rows.push_back(maker.rows(synthetic.texts));
  std::vector<std::pair<std::size_t, std::size_t>> mine;  // (column, features)
  for (std::size_t f = 0; f < makers.size(); ++f) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (owner(c, f) == comm.rank()) mine.emplace_back(c, f);
    }
  }
  log_info("eval: training " + std::to_string(columns.size() * makers.size()) + " classifiers");
  std::exception_ptr error;
  std::mutex error_mutex;
  run_chunks(std::min(options.threads > 0 ? options.threads : default_threads(), static_cast<int>(mine.size())), mine.size(),
             [&](int, std::size_t begin, std::size_t end) {
               for (std::size_t i = begin; i < end; ++i) {
                 const auto [c, f] = mine[i];
                 try {
                   models[c][f] = train_logistic(rows[f], columns[c].synthetic_y,
                                                 static_cast<int>(columns[c].classes.size()), options.classifier);
                 } catch (...) {
                   const std::lock_guard<std::mutex> lock(error_mutex);
                   if (!error) error = std::current_exception();
                 }
               }
             });
  if (error) std::rethrow_exception(error);
  for (std::size_t f = 0; f < makers.size(); ++f) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      broadcast_model(models[c][f], static_cast<Eigen::Index>(makers[f].num_features()),
                      static_cast<int>(columns[c].classes.size()), owner(c, f), comm);
    }
  }
  return models;
}

// Per column, the class index of each synthetic label value.
using ClassIndex = std::unordered_map<std::string, std::int32_t>;

std::vector<ClassIndex> class_indices(const std::vector<LabelColumn>& columns) {
  std::vector<ClassIndex> class_of(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    for (std::size_t k = 0; k < columns[c].classes.size(); ++k) class_of[c][columns[c].classes[k]] = static_cast<std::int32_t>(k);
  }
  return class_of;
}

// counts[column][features]: (true class, predicted class) counts over the real records this rank
// owns; a real value that no synthetic record has is the extra class `classes.size()`.
std::vector<std::vector<ConfusionCounts>> score_real_records(const std::vector<LabelColumn>& columns,
                                                             const std::vector<ClassIndex>& class_of,
                                                             const std::vector<FeatureMaker>& makers, const LabelModels& models,
                                                             const RealSet& real, const Communicator& comm) {
  std::vector<std::vector<ConfusionCounts>> counts(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    counts[c].assign(makers.size(), ConfusionCounts(static_cast<int>(columns[c].classes.size())));
  }
  real.source->for_each_owned_chunk(real.options.chunk_records, comm, "eval: scoring", [&](const Corpus& chunk, std::uint64_t) {
    for (std::size_t f = 0; f < makers.size(); ++f) {
      const SparseRows x = makers[f].rows(chunk.texts);
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::vector<std::int32_t> predicted = models[c][f].predict(x);
        const auto unseen = static_cast<std::int32_t>(columns[c].classes.size());
        for (std::size_t i = 0; i < predicted.size(); ++i) {
          const auto it = class_of[c].find(chunk.labels[i][columns[c].real_index]);
          counts[c][f].add(it == class_of[c].end() ? unseen : it->second, predicted[i]);
        }
      }
    }
  });
  return counts;
}

// One column's report: its classifiers' scores (counts summed over the ranks here) beside the
// majority-class baseline, and the values that only one side has.
LabelColumnReport column_report(const LabelColumn& col, const ClassIndex& class_of, std::vector<ConfusionCounts>& counts,
                                const std::vector<LogisticModel>& models, const std::vector<FeatureMaker>& makers,
                                const RealSet& real, const EvalOptions& options, const Communicator& comm) {
  LabelColumnReport r;
  r.column = col.name;
  r.classes = col.classes;
  const auto& real_counts = real.value_counts[col.real_index];
  for (const auto& v : col.classes) {
    if (!real_counts.count(v)) r.classes_absent_from_real.push_back(v);
  }
  for (const auto& [value, n] : real_counts) {
    if (class_of.count(value)) continue;
    r.real_values_unseen.push_back(value);
    r.real_records_unseen += n;
  }
  const auto unseen = static_cast<std::int64_t>(r.real_values_unseen.size());
  for (std::size_t f = 0; f < makers.size(); ++f) {
    comm.allreduce_sum(counts[f].raw());
    r.classifiers.push_back({.features = options.features[f],
                             .num_features = makers[f].num_features(),
                             .iterations = models[f].iterations,
                             .converged = models[f].converged,
                             .scores = score_classification(counts[f], unseen)});
  }
  const int majority = most_frequent_class(col.synthetic_y, static_cast<int>(col.classes.size()));
  r.majority_class = col.classes[static_cast<std::size_t>(majority)];
  std::vector<std::int64_t> support;
  for (const auto& v : col.classes) {
    const auto it = real_counts.find(v);
    support.push_back(it == real_counts.end() ? 0 : it->second);
  }
  r.majority = constant_prediction_scores(support, r.real_records_unseen, unseen, majority);
  return r;
}

}  // namespace

std::vector<LabelColumn> common_label_columns(const Corpus& synthetic, const RealSet& real, const EvalOptions& options) {
  const std::vector<std::string> real_columns = real.source->label_columns();
  std::vector<LabelColumn> out;
  for (std::size_t s = 0; s < synthetic.label_columns.size(); ++s) {
    const auto it = std::find(real_columns.begin(), real_columns.end(), synthetic.label_columns[s]);
    if (it == real_columns.end()) continue;
    LabelColumn c{synthetic.label_columns[s], s, static_cast<std::size_t>(it - real_columns.begin()), {}, {}};
    for (const auto& values : synthetic.labels) c.classes.push_back(values[s]);
    std::sort(c.classes.begin(), c.classes.end());
    c.classes.erase(std::unique(c.classes.begin(), c.classes.end()), c.classes.end());
    for (const auto& values : synthetic.labels) {
      c.synthetic_y.push_back(static_cast<std::int32_t>(
          std::lower_bound(c.classes.begin(), c.classes.end(), values[s]) - c.classes.begin()));
    }
    const auto& counts = real.value_counts[c.real_index];
    if (std::none_of(c.classes.begin(), c.classes.end(), [&](const std::string& v) { return counts.count(v) > 0; })) {
      throw InputError("label column '" + c.name + "': no value of " + options.synthetic_name + " (" +
                       some_values(c.classes, [](const std::string& v) { return v; }) + ") occurs in " + real.source->name() +
                       " (" + some_values(counts, [](const auto& entry) { return entry.first; }) +
                       "); values are compared as written, after removing the label prefixes");
    }
    out.push_back(std::move(c));
  }
  // An unlabelled corpus (PubMed) has no classification to score: the label-blind figures remain.
  if (out.empty() && !synthetic.label_columns.empty()) {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
      return s.empty() ? std::string("none") : s;
    };
    throw InputError("no label column common to " + options.synthetic_name + " (" + join(synthetic.label_columns) +
                     ") and " + real.source->name() + " (" + join(real_columns) + ")");
  }
  return out;
}

std::vector<LabelColumnReport> downstream_reports(const Corpus& synthetic, const std::vector<LabelColumn>& columns,
                                                  const RealSet& real, const EvalOptions& options,
                                                  const Communicator& comm, EvalReport::Seconds& seconds) {
  Timer start;
  std::optional<TfidfVectorizer> tfidf;
  std::vector<FeatureMaker> makers;
  for (const ClassifierFeatures f : options.features) {
    if (f == ClassifierFeatures::kTfidf && !tfidf) tfidf.emplace(words_of(synthetic.texts), options.tfidf);
    makers.push_back(f == ClassifierFeatures::kTfidf ? FeatureMaker{&*tfidf, nullptr}
                                                     : FeatureMaker{nullptr, real.embedder.get()});
  }
  const LabelModels models = train_classifiers(synthetic, columns, makers, options, comm);
  seconds.classifiers = start.seconds();

  start.restart();
  const std::vector<ClassIndex> class_of = class_indices(columns);
  std::vector<std::vector<ConfusionCounts>> counts = score_real_records(columns, class_of, makers, models, real, comm);
  seconds.scoring = start.seconds();

  std::vector<LabelColumnReport> out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out.push_back(column_report(columns[c], class_of[c], counts[c], models[c], makers, real, options, comm));
  }
  return out;
}

}  // namespace secpe
