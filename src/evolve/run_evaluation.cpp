#include "evolve/run_evaluation.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "eval/evaluate.hpp"
#include "eval/report.hpp"
#include "io/corpus.hpp"

namespace secpe {

std::optional<RealSet> prepare_eval(const Communicator& comm, const RunOptions& options, const DatasetInfo& info,
                                    const std::vector<std::size_t>& synthetic_per_label) {
  if (options.eval_real.empty()) return std::nullopt;
  std::vector<std::string> prefixes = CsvReadOptions{}.label_prefixes;
  for (const auto& p : info.labels.prefixes)
    if (!p.empty() && std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) prefixes.push_back(p);
  const CsvReadOptions read{.text_column = "text", .label_columns = info.labels.columns, .label_prefixes = {},
                            .on_bad_record = OnBadRecord::kError};
  std::shared_ptr<const RealSource> source;
  if (corpus_format(options.eval_real, "") == CorpusFormat::kJsonl) {
    Corpus corpus = read_corpus(options.eval_real, CorpusFormat::kJsonl, read);
    strip_label_prefixes(corpus, prefixes);
    source = std::make_shared<MemoryRealSource>(std::move(corpus), options.eval_real.string());
  } else {
    source = std::make_shared<CsvRealSource>(options.eval_real, read, prefixes);
  }
  RealSet real = prepare_real_set(source, {.seed = options.seed}, comm);
  // The evaluation compares label values: some value the run makes text for must occur in the real
  // file, column by column (label values are public, so the message names them).
  for (std::size_t c = 0; c < info.labels.columns.size(); ++c) {
    std::vector<std::string> ours;
    bool matched = false;
    for (std::size_t l = 0; l < info.labels.size(); ++l) {
      if (synthetic_per_label[l] == 0) continue;
      ours.push_back(info.labels.values[l][c]);
      matched = matched || real.value_counts[c].count(info.labels.values[l][c]) > 0;
    }
    if (matched || ours.empty()) continue;
    std::string theirs;
    for (const auto& [value, n] : real.value_counts[c]) theirs += (theirs.empty() ? "'" : ", '") + value + "'";
    std::sort(ours.begin(), ours.end());
    ours.erase(std::unique(ours.begin(), ours.end()), ours.end());
    std::string mine;
    for (const auto& v : ours) mine += (mine.empty() ? "'" : ", '") + v + "'";
    throw InputError("the real records of " + options.eval_real.string() + " match none of the dataset's values of label column '" +
                     info.labels.columns[c] + "' (the dataset: " + mine + "; the file: " + theirs +
                     "), so nothing could be evaluated; give a file with the dataset's labels");
  }
  return real;
}

std::vector<nlohmann::ordered_json> evaluate_populations(const Communicator& comm, const RunOptions& options, const DatasetInfo& info,
                                                         const Checkpoint& checkpoint, const RealSet& real) {
  // t < 0: the initial population; else the selection after iteration t (a label's history is
  // empty when its share of N_syn is 0).
  auto population = [&](int t) {
    Corpus c;
    c.label_columns = info.labels.columns;
    for (const auto& [label, outcome] : checkpoint.labels) {
      const auto& texts = t < 0 ? outcome.initial
                                : static_cast<std::size_t>(t) < outcome.history.size() ? outcome.history[static_cast<std::size_t>(t)]
                                                                                        : outcome.synthetic;
      for (const auto& text : texts) {
        c.texts.push_back(text);
        c.labels.push_back(info.labels.values[label]);
      }
    }
    return c;
  };
  const EvalOptions eval_options{.seed = options.seed, .kernel = options.kernel, .threads = options.threads, .synthetic_name = "the population"};
  std::vector<nlohmann::ordered_json> lines;
  Progress progress("evaluate", static_cast<std::size_t>(options.iterations) + 1);
  for (int t = -1; t < options.iterations; ++t) {
    const Timer timer;
    nlohmann::ordered_json line = t < 0 ? nlohmann::ordered_json{{"population", "initial"}}
                                        : nlohmann::ordered_json{{"population", "selected"}, {"iteration", t}};
    nlohmann::ordered_json report = eval_report_json(evaluate(population(t), real, eval_options, comm));
    report.erase("run");  // ranks and timings: the line must not depend on the rank count
    report["real"]["file"] = options.eval_real.filename().string();  // a published file names files, not paths
    line["eval"] = std::move(report);
    line["eval_seconds"] = timer.seconds();
    lines.push_back(std::move(line));
    progress.step(static_cast<std::size_t>(t + 2), t < 0 ? "initial population" : "iteration " + std::to_string(t));
  }
  progress.finish();
  return lines;
}

}  // namespace secpe
