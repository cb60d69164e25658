// The whole run's stages in order (evolve/pipeline.hpp); each stage's work is in its own file:
// run_models, the method's calibration and set-up (methods/), evolution, run_evaluation,
// leak_report, run_report, run_resume.
#include "evolve/pipeline.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "evolve/evolution.hpp"
#include "evolve/generators/generator_kind.hpp"
#include "evolve/leak_report.hpp"
#include "evolve/release_keys.hpp"
#include "evolve/run_estimate.hpp"
#include "evolve/run_evaluation.hpp"
#include "evolve/run_models.hpp"
#include "evolve/run_report.hpp"
#include "evolve/run_resume.hpp"
#include "evolve/run_timings.hpp"
#include "evolve/synthetic_split.hpp"
#include "io/corpus.hpp"
#include "privacy/budgets.hpp"
#include "privacy/ledger.hpp"

namespace secpe {
namespace {

// Every label learns from its public records and N_syn follows their counts: a dataset without
// any public record can make nothing (refused before any work), and a label without one gets no
// synthetic text (named in a warning). Public counts are public under secret protection.
void check_public_records(const RunOptions& options, const DatasetInfo& info, const std::vector<std::int64_t>& public_counts) {
  std::string without;
  std::size_t count = 0;
  for (std::size_t l = 0; l < public_counts.size(); ++l) {
    if (public_counts[l] > 0) continue;
    if (count++ < 10) without += (without.empty() ? "'" : ", '") + info.labels.display(l) + "'";
  }
  const std::string change = "import it again with fewer or rarer secrets (secpe import --secret-count, --secret-quantile, a shorter "
                             "--secrets-file, fewer --pii-categories)";
  if (count == public_counts.size()) {
    throw InputError(options.data.string() + ": every record holds a secret, so there is no public text to learn from and no "
                     "label to make synthetic text for; " + change);
  }
  if (count > 0) {
    log_warn(std::to_string(count) + " label(s) have no public record and get no synthetic text: " + without +
             (count > 10 ? ", ..." : "") + "; to make text for them, " + change);
  }
}

// Records without a secret, over all labels: public under secret protection.
std::int64_t public_records(const Shard& shard) {
  std::int64_t n = 0;
  for (const auto c : shard.public_counts) n += c;
  return n;
}

// How the public k-means of the method's clusters ran (SecPE; null for a method without them): its
// seeding, its limits and the Lloyd iterations the labels took. Public: it clusters public rows only.
nlohmann::ordered_json kmeans_summary(const RunOptions& options, const Checkpoint& checkpoint) {
  std::vector<int> iterations;
  for (const auto& [label, outcome] : checkpoint.labels)
    if (outcome.report.contains("kmeans_iterations")) iterations.push_back(outcome.report["kmeans_iterations"].get<int>());
  if (iterations.empty()) return nullptr;
  const auto [low, high] = std::minmax_element(iterations.begin(), iterations.end());
  return {{"init", kmeans_init_name(options.kmeans_init)}, {"max_iterations", options.kmeans_iterations},
          {"tolerance", options.kmeans_tolerance}, {"labels", iterations.size()},
          {"iterations", {{"min", *low}, {"max", *high}}}};
}

// The delta of the reported (eps, delta) equivalents: --delta, or Aug-PE's 1 / (N ln N) with N
// the public records (the total would tell the number of private records).
double reported_delta(const RunOptions& options, const Shard& shard) {
  const auto n = static_cast<double>(std::max<std::int64_t>(public_records(shard), 3));
  return options.delta > 0 ? options.delta : 1.0 / (n * std::log(n));
}

}  // namespace

RunInputs prepare_run(const Communicator& comm, const RunOptions& options) {
  RunInputs in;
  in.method = make_method(options.method);
  in.shard = std::make_unique<Shard>(comm, options.data, shard_by_for(options.shard_by, in.method->shards_by_record()));
  const Shard& shard = *in.shard;
  const DatasetInfo& info = shard.info();
  if (!info.has_text && options.generator_corpus.empty() && generator_kind(options.generator_kind).learns_from_texts()) {
    throw InputError(options.data.string() + ": the dataset has no texts; give the generator a corpus of public texts");
  }
  const std::size_t num_labels = shard.num_labels();
  // Public records only: the total would tell the number of private ones.
  log_info("dataset " + options.data.string() + ": " + std::to_string(public_records(shard)) + " public records, " +
           std::to_string(num_labels) + " labels, " + std::to_string(info.num_secrets) + " secrets, d = " +
           std::to_string(info.embedding_dim) + "; " + std::to_string(comm.size()) + " rank(s), sharded by " + shard_by_name(shard.by));
  in.method->check_inputs(comm, options, shard);
  // Public records are public under secret protection, so N_syn follows their label counts.
  in.synthetic_per_label = split_synthetic(options.synthetic, shard.public_counts);
  check_public_records(options, info, shard.public_counts);
  check_run_fits(estimate_run(options, *in.method, in.synthetic_per_label, info.embedding_dim, shard.ids.size()), memory_per_rank_bytes());
  in.budgets = uniform_budgets(static_cast<std::size_t>(info.num_secrets), options.p, options.r);
  if (!options.budgets_file.empty()) in.budgets = read_budgets_file(options.budgets_file, shard.reader.secret_names(), in.budgets);
  in.eval_real = prepare_eval(comm, options, info, in.synthetic_per_label);
  const auto order = info.provenance.find("column_order");
  if (order != info.provenance.end()) in.column_order = parse_column_order(order->second, info.labels.columns.size(), options.data.string());
  return in;
}

RunResult run_pipeline(const Communicator& comm, const RunOptions& options, const RunSecrets& secrets, const RunInputs& inputs,
                       RunBudget& budget) {
  if (secrets.release_digest.empty()) throw std::logic_error("run_pipeline: the release digest is not set (evolve/release_keys.hpp)");
  const Timer run_timer;
  const Shard& shard = *inputs.shard;
  const DatasetInfo& info = shard.info();
  const std::size_t num_labels = shard.num_labels();
  PrivacyLedger ledger(num_labels, options.iterations);
  Checkpoint checkpoint{run_fingerprint(options, secrets, info), {}};
  std::map<std::size_t, LabelProgress> in_progress = resume_checkpoint(comm, options, secrets, num_labels, checkpoint, ledger);

  Timer timer;
  const Models models = build_models(comm, options, shard);
  const double setup_seconds = timer.seconds();
  timer.restart();
  // Stage "calibrate" (the method's). The method object is the run's: calibrating fills it.
  Method& method = *inputs.method;
  const double delta = reported_delta(options, shard);
  method.calibrate({.comm = comm, .options = options, .shard = shard, .budgets = inputs.budgets, .delta = delta});
  const double calibration_seconds = timer.seconds();
  timer.restart();
  budget.compose(comm, method, inputs.budgets);  // refuses a run over the dataset's total, before any release
  const double ledger_compose_seconds = timer.seconds();

  timer.restart();
  evolve_labels(comm,
                {.options = options, .secrets = secrets, .shard = shard, .models = models, .method = method, .ledger = ledger,
                 .run_key = run_release_key(secrets.noise_key, secrets.release_digest)},
                inputs.synthetic_per_label, std::move(in_progress), checkpoint);
  const double evolve_seconds = timer.seconds();

  RunResult result;
  result.synthetic.resize(num_labels);
  result.initial.resize(num_labels);
  // evolve_steps: each step's seconds over all labels and iterations, each on the rank that ran it
  // (labels sharded over ranks: the sum exceeds evolve_seconds).
  result.timings = {{"run", nlohmann::ordered_json::object()}, {"evolve_steps", nlohmann::ordered_json::object()},
                    {"iterations", nlohmann::ordered_json::array()}};
  for (auto& [label, outcome] : checkpoint.labels) {
    for (auto m : outcome.metrics) {
      add_timings(result.timings["evolve_steps"], m);
      // The timings of private work leave the published line (evolve/run_timings.hpp).
      nlohmann::ordered_json taken = take_private_timings(m);
      if (!taken.is_null()) {
        nlohmann::ordered_json entry{{"label", m["label"]}, {"iteration", m["iteration"]}};
        entry.update(taken);
        result.timings["iterations"].push_back(std::move(entry));
      }
      result.metrics.push_back(std::move(m));
    }
    result.synthetic[label] = outcome.synthetic;
    result.initial[label] = outcome.initial;
  }
  timer.restart();
  nlohmann::ordered_json leaks = scan_released_texts(comm.is_root(), {.reader = shard.reader,
                                                                      .state_dir = options.state_dir,
                                                                      .drop_leaking = options.drop_leaking},
                                                     result.synthetic, result.initial);
  const double leak_scan_seconds = timer.seconds();
  result.privacy = privacy_report_of({.options = options, .method = method, .budgets = inputs.budgets, .delta = delta, .ledger = ledger,
                                      .across_runs = budget, .generator = models.generator->describe()},
                                     checkpoint, std::move(leaks));
  timer.restart();
  if (inputs.eval_real) {
    for (auto& line : evaluate_populations(comm, options, info, checkpoint, *inputs.eval_real)) result.metrics.push_back(std::move(line));
  }
  const double eval_seconds = timer.seconds();
  result.label_columns = info.labels.columns;
  result.column_order = inputs.column_order;
  result.label_prefixes = info.labels.prefixes;
  result.label_values = info.labels.values;
  for (std::size_t l = 0; l < num_labels; ++l)
    for (std::size_t i = 0; i < result.synthetic[l].size(); ++i) result.synthetic_labels.push_back(static_cast<std::int32_t>(l));
  // Public counts only, and no bytes sent: the release sends each sampled private row to its
  // centre's rank, so the traffic counts sampled private records (secpe bench measures traffic).
  result.summary = {{"public_records", public_records(shard)}, {"labels", num_labels}, {"secrets", info.num_secrets},
                    {"embedding_dim", info.embedding_dim}, {"embedder", models.embedder->name()},
                    {"generator", models.generator->describe()}, {"generator_topics", models.generator_topics},
                    {"kernel", models.kernel->name()},
                    {"shard_by", shard_by_name(shard.by)},
                    {"dataset_provenance", public_provenance(info.provenance)}};
  if (nlohmann::ordered_json kmeans = kmeans_summary(options, checkpoint); !kmeans.is_null()) result.summary["kmeans"] = std::move(kmeans);
  // Every stage's wall time, this invocation's (a resumed run's earlier part is not in it): private,
  // as calibration, evolution and the leak scan work on private records.
  result.timings["run"] = {{"setup_seconds", setup_seconds}, {"calibration_seconds", calibration_seconds},
                           {"ledger_compose_seconds", ledger_compose_seconds},
                           {"evolve_seconds", evolve_seconds}, {"leak_scan_seconds", leak_scan_seconds},
                           {"evaluate_seconds", eval_seconds}, {"run_seconds", run_timer.seconds()}};
  return result;
}

}  // namespace secpe
