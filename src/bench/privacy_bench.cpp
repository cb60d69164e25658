#include "bench/privacy_bench.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#include "core/timer.hpp"
#include "evolve/noise_calibration.hpp"
#include "evolve/run_budget.hpp"
#include "io/dataset.hpp"
#include "privacy/run_composition.hpp"

namespace secpe {
namespace {

// This rank's records (labels and secret sets), as `secpe run` would read them by record.
struct SyntheticShard {
  SecretMatrix secrets;
  std::vector<std::int32_t> labels;
  std::size_t num_labels = 0, records = 0, private_records = 0;
  int num_secrets = 0;
};

SyntheticShard synthetic_shard(const Communicator& comm, const SynthEmbeddingOptions& synth) {
  // Every rank builds the same matrix and keeps its shard.
  const DatasetContents data = synth_embeddings(synth);
  const auto [b, e] = comm.shard(synth.records);
  SyntheticShard s;
  s.secrets.num_secrets = data.secrets.num_secrets;
  s.secrets.indptr.assign(data.secrets.indptr.begin() + static_cast<std::ptrdiff_t>(b), data.secrets.indptr.begin() + static_cast<std::ptrdiff_t>(e + 1));
  s.secrets.indices.assign(data.secrets.indices.begin() + s.secrets.indptr.front(), data.secrets.indices.begin() + s.secrets.indptr.back());
  s.labels.assign(data.label_ids.begin() + static_cast<std::ptrdiff_t>(b), data.label_ids.begin() + static_cast<std::ptrdiff_t>(e));
  s.num_labels = data.labels.size();
  s.records = synth.records;
  s.num_secrets = synth.secrets;
  for (std::size_t i = 0; i < data.secrets.rows(); ++i) s.private_records += data.secrets.is_private(i) ? 1 : 0;
  return s;
}

SyntheticShard dataset_shard(const Communicator& comm, const std::filesystem::path& path) {
  const DatasetReader reader(path);
  const auto [b, e] = comm.shard(reader.info().num_records);
  SyntheticShard s;
  s.secrets = reader.secrets(b, e);
  s.labels = reader.label_ids(b, e);
  s.num_labels = reader.info().labels.values.size();
  s.records = reader.info().num_records;
  s.num_secrets = reader.info().num_secrets;
  return s;
}

// How much looser the coarse pass's figures are than full precision's (each >= 1), on every
// `every`-th secret: the median, 90th percentile and largest of coarse / full - 1, over the secrets
// whose runs released something. On each rank alike, one thread.
nlohmann::ordered_json coarse_looseness(std::vector<RunSpend> runs, std::span<const double> p, std::size_t every) {
  std::vector<double> sample_p;
  for (std::size_t j = 0; j < p.size(); j += every) sample_p.push_back(p[j]);
  for (RunSpend& run : runs) {
    std::vector<std::int32_t> sample;
    for (std::size_t j = 0; j < run.profile_of.size(); j += every) sample.push_back(run.profile_of[j]);
    run.profile_of = std::move(sample);
  }
  const auto bounds = [&](double exact_share) {  // 0: all at full precision; infinity: none refined
    return compose_runs(runs, sample_p, {.threads = 1, .exact_share = exact_share, .exact_above = {}, .part = 0, .parts = 1, .gather = {}, .progress = {}}).r;
  };
  const std::vector<double> full = bounds(0.0), coarse = bounds(std::numeric_limits<double>::infinity());
  std::vector<double> looser;
  for (std::size_t i = 0; i < full.size(); ++i)
    if (full[i] > sample_p[i]) looser.push_back(coarse[i] / full[i] - 1);
  std::sort(looser.begin(), looser.end());
  if (looser.empty()) return {{"every", every}, {"secrets", 0}};
  return {{"every", every}, {"secrets", looser.size()}, {"median", looser[looser.size() / 2]},
          {"p90", looser[looser.size() * 9 / 10]}, {"max", looser.back()}};
}

// The ledger's work in a run (evolve/run_budget.hpp): this run's spend composed with ledger_runs
// earlier runs, per secret: alike, or each at more noise (ledger_noise_step), so that a secret's
// releases in different runs differ in their step and compose as separate releases.
nlohmann::ordered_json bench_ledger(const Communicator& comm, const PrivacyBenchOptions& o, const SecretNoisePlan& plan,
                                    const SecretBudgets& budgets) {
  std::vector<RunSpend> runs(static_cast<std::size_t>(o.ledger_runs) + 1, plan.spend);  // the earlier runs, then this one
  for (std::size_t k = 0; k + 1 < runs.size(); ++k)
    for (MixtureRelease& r : runs[k].releases) r.mean_step /= 1.0 + o.ledger_noise_step * static_cast<double>(k + 1);
  comm.barrier();
  const Timer timer;
  const ComposedBounds cumulative = compose_on_ranks(comm, runs, budgets.p, o.threads, {});  // as secpe run composes them
  const double seconds = comm.allreduce_max(timer.seconds());
  double worst = 0;
  for (std::size_t j = 0; j < cumulative.r.size(); ++j) worst = std::max(worst, cumulative.r[j] / budgets.p[j]);
  nlohmann::ordered_json out = {{"earlier_runs", o.ledger_runs},
          {"earlier_noise_step", o.ledger_noise_step},
          {"release_lists", plan.spend.lists.size()},
          {"distinct_releases", plan.spend.releases.size()},
          {"seconds", seconds},
          {"coarse_secrets", std::count(cumulative.coarse.begin(), cumulative.coarse.end(), true)},
          {"worst_r_cumulative_over_p", worst}};
  if (o.ledger_check_every > 0) out["coarse_looser"] = coarse_looseness(runs, budgets.p, o.ledger_check_every);
  return out;
}

}  // namespace

nlohmann::ordered_json bench_privacy(const Communicator& comm, const PrivacyBenchOptions& o) {
  const SyntheticShard shard = o.data.empty() ? synthetic_shard(comm, o.synth) : dataset_shard(comm, o.data);
  const auto budgets = uniform_budgets(static_cast<std::size_t>(shard.num_secrets), o.p, o.r);
  nlohmann::ordered_json figures = {{"records", shard.records}, {"labels", shard.num_labels}, {"secrets", shard.num_secrets}};
  if (o.data.empty()) {
    figures["holders"] = o.synth.holders;
    figures["private_records"] = shard.private_records;  // synthetic: nothing private here
  } else {
    figures["data"] = o.data.filename().string();
  }
  figures["iterations"] = o.iterations;
  figures["p"] = o.p;
  figures["r"] = o.r;
  for (const auto mode : {CalibrationMode::kPaper, CalibrationMode::kExact}) {
    std::vector<double> seconds;
    SecretNoisePlan plan;
    for (int rep = 0; rep < o.repeats; ++rep) {
      comm.barrier();
      plan = calibrate_secret_noise(comm, {.local_secrets = shard.secrets,
                                           .local_labels = shard.labels,
                                           .num_labels = shard.num_labels,
                                           .budgets = budgets,
                                           .iterations = o.iterations,
                                           .batch = o.batch,
                                           .mode = mode,
                                           .threads = o.threads,
                                           .certification = o.certification});
      seconds.push_back(comm.allreduce_max(plan.accounting_seconds));
    }
    double worst = 0;
    for (std::size_t j = 0; j < plan.achieved_r.size(); ++j) worst = std::max(worst, plan.achieved_r[j] / budgets.p[j]);
    nlohmann::ordered_json sources;
    for (const auto source : {BoundSource::kAccountant, BoundSource::kCoarseAccountant, BoundSource::kDominated})
      sources[to_string(source)] = plan.bound_source.empty()
                                       ? (source == BoundSource::kAccountant ? plan.achieved_r.size() : 0)
                                       : static_cast<std::size_t>(std::count(plan.bound_source.begin(), plan.bound_source.end(), source));
    figures[calibration_name(mode)] = {{"seconds", seconds}, {"seconds_best", *std::min_element(seconds.begin(), seconds.end())},
                                       {"lambda", plan.lambda}, {"worst_r_achieved_over_p", worst}, {"bounds", sources}};
    if (mode == CalibrationMode::kExact && o.ledger_runs > 0) figures["ledger"] = bench_ledger(comm, o, plan, budgets);
  }
  return figures;
}

}  // namespace secpe
