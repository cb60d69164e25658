#include "eval/evaluate.hpp"

#include <algorithm>
#include <map>

#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "comms/communicator.hpp"
#include "eval/downstream.hpp"
#include "eval/knn_coverage.hpp"
#include "text/ngrams.hpp"

namespace secpe {

namespace {

MatrixF embed(const Embedder& embedder, std::span<const std::string> texts) {
  MatrixF out;
  embedder.embed(texts, out);
  return out;
}

// Distinct n-grams and near-duplicates of texts[0, n), a text's group being its values in the
// evaluated label columns (labels[i][column] for each of `columns`).
DiversityReport diversity_of(const std::vector<std::string>& texts, const std::vector<std::vector<std::string>>& labels,
                             const std::vector<std::size_t>& columns, std::size_t n, const NearDuplicateOptions& options) {
  std::vector<std::vector<std::uint64_t>> words;
  std::vector<std::int32_t> groups;
  std::map<std::vector<std::string>, std::int32_t> group_of;
  std::vector<std::string> key;
  for (std::size_t i = 0; i < n; ++i) {
    words.push_back(word_keys(texts[i]));
    key.clear();
    for (const std::size_t c : columns) key.push_back(labels[i][c]);
    groups.push_back(group_of.try_emplace(key, static_cast<std::int32_t>(group_of.size())).first->second);
  }
  DiversityReport r;
  r.texts = n;
  r.distinct_1 = distinct_ngram_ratio(words, 1);
  r.distinct_2 = distinct_ngram_ratio(words, 2);
  r.near_duplicates = count_near_duplicates(words, groups, options);
  r.near_duplicate_rate = n > 0 ? static_cast<double>(r.near_duplicates) / static_cast<double>(n) : 0.0;
  return r;
}

// Precision: the share of synthetic points inside some real k-NN ball; recall: the share of real
// points inside some synthetic ball (equal set sizes, as Kynkaanniemi et al. compare them). Each
// rank takes its shard of the points.
void precision_recall(const MatrixF& synthetic, const MatrixF& real, const EvalOptions& options,
                      const Communicator& comm, EvalReport& report) {
  report.knn = options.knn;
  report.knn_synthetic = static_cast<std::size_t>(synthetic.rows());
  report.knn_real = static_cast<std::size_t>(real.rows());
  if (synthetic.rows() <= options.knn || real.rows() <= options.knn) return;
  const auto kernel = make_kernel(options.kernel, options.threads);
  auto radii = [&](const MatrixF& points) {
    const auto [begin, end] = comm.shard(static_cast<std::uint64_t>(points.rows()));
    const std::vector<double> mine = knn_ball_radii(points, static_cast<std::int64_t>(begin),
                                                    static_cast<std::int64_t>(end), options.knn, *kernel);
    return comm.allgather(std::span<const double>(mine));
  };
  auto share_in_balls = [&](const MatrixF& points, const MatrixF& centres, const std::vector<double>& r) {
    const auto [begin, end] = comm.shard(static_cast<std::uint64_t>(points.rows()));
    const std::int64_t inside = comm.allreduce_sum(count_in_balls(
        points, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end), centres, r, *kernel));
    return static_cast<double>(inside) / static_cast<double>(points.rows());
  };
  report.precision = share_in_balls(synthetic, real, radii(real));
  report.recall = share_in_balls(real, synthetic, radii(synthetic));
}

}  // namespace

EvalReport evaluate(const Corpus& synthetic, const RealSet& real, const EvalOptions& options, const Communicator& comm) {
  const Timer start;
  if (synthetic.texts.empty()) throw InputError(options.synthetic_name + ": no records");
  if (options.knn < 1) throw InputError("k of k-NN precision and recall must be at least 1");
  EvalReport report;
  report.synthetic_name = options.synthetic_name;
  report.real_name = real.source->name();
  report.synthetic_records = synthetic.texts.size();
  report.real_records = real.records;
  report.real_bad_records_skipped = real.bad_records_skipped;
  report.seed = options.seed;
  report.embedder = real.embedder->name();
  report.seconds.real_set = real.prepare_seconds;
  report.ranks = comm.size();

  const std::vector<LabelColumn> columns = common_label_columns(synthetic, real, options);
  report.labels = downstream_reports(synthetic, columns, real, options, comm, report.seconds);

  // FID over every record of both sets; the synthetic sums in the real set's chunks, sharded alike.
  Timer t;
  MomentSums moments(real.embedder->dim());
  MemoryRealSource(synthetic).for_each_owned_chunk(real.options.chunk_records, comm, "eval: synthetic set",
                                                   [&](const Corpus& chunk, std::uint64_t) {
                                                     moments.add(embed(*real.embedder, chunk.texts));
                                                   });
  moments.allreduce(comm);
  if (moments.count() >= 2 && real.embedding_moments.count() >= 2) {
    report.fid = frechet_distance(moments.fit(), real.embedding_moments.fit());
  }
  report.seconds.fid = t.seconds();

  t.restart();
  SampleCollector collector(options.seed, SampleSide::kSynthetic, options.sample_records);
  for (std::size_t i = 0; i < synthetic.texts.size(); ++i) collector.offer(i, synthetic.texts[i], synthetic.labels[i]);
  const RecordSample synthetic_sample = collector.finish();
  const std::size_t n = std::min(synthetic_sample.texts.size(), real.sample.texts.size());
  auto first_n = [n](const std::vector<std::string>& v) { return std::span<const std::string>(v.data(), n); };
  const MatrixF synthetic_embedded = embed(*real.embedder, first_n(synthetic_sample.texts));
  const MatrixF real_embedded = embed(*real.embedder, first_n(real.sample.texts));
  precision_recall(synthetic_embedded, real_embedded, options, comm, report);
  report.seconds.precision_recall = t.seconds();
  t.restart();
  if (n > 0) {
    report.mauve = mauve(synthetic_embedded, real_embedded, {.seed = options.seed, .kernel = options.kernel, .threads = options.threads});
  }
  report.seconds.mauve = t.seconds();

  LengthHistogram lengths;
  for (const auto& text : synthetic.texts) lengths.add(word_count(text));
  report.synthetic_lengths = length_stats(lengths);
  report.real_lengths = length_stats(real.lengths);
  report.length_wasserstein1 = wasserstein1(lengths, real.lengths);

  // Diversity of the whole synthetic set; for reference, of as many real records (the first of
  // the real sample; fewer when the sample is smaller).
  t.restart();
  std::vector<std::size_t> synthetic_columns, real_columns;
  for (const LabelColumn& c : columns) {
    synthetic_columns.push_back(c.synthetic_index);
    real_columns.push_back(c.real_index);
  }
  report.synthetic_diversity = diversity_of(synthetic.texts, synthetic.labels, synthetic_columns, synthetic.texts.size(),
                                            options.near_duplicates);
  report.real_diversity = diversity_of(real.sample.texts, real.sample.labels, real_columns,
                                       std::min(real.sample.texts.size(), synthetic.texts.size()), options.near_duplicates);
  report.seconds.diversity = t.seconds();

  // Next-word prediction: the paper's figure where there is no label to classify.
  if (options.next_word || columns.empty()) {
    t.restart();
    report.next_word = next_word_scores(synthetic.texts, real.sample.texts);
    report.seconds.next_word = t.seconds();
  }
  report.seconds.total = start.seconds() + real.prepare_seconds;
  return report;
}

}  // namespace secpe
