#include "evolve/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "compute/verify.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/label_evolution.hpp"
#include "evolve/run_estimate.hpp"
#include "evolve/synthetic_split.hpp"
#include "io/corpus.hpp"
#include "io/dataset.hpp"
#include "privacy/augpe_accounting.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/ledger.hpp"
#include "privacy/report.hpp"
#include "text/embedder.hpp"

namespace secpe {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Public training texts per label for the built-in generator: up to `cap` public records of
// each label, evenly spaced over the file. Every rank reads the same records, so every rank
// builds the same generator.
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

// Training texts from another public corpus (Aug-PE CSV), matched to the dataset's labels by value.
std::vector<std::vector<std::string>> corpus_training_texts(const std::filesystem::path& path, const LabelSet& labels) {
  CsvReadOptions options;
  options.label_columns = labels.columns;
  options.label_prefixes = labels.prefixes;
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

std::unique_ptr<Embedder> embedder_for(const DatasetInfo& info, const std::filesystem::path& data) {
  const auto it = info.provenance.find("embedder");
  const std::string name = it == info.provenance.end() ? "" : it->second;
  if (name.rfind("hashing", 0) != 0) {
    throw InputError(data.string() + ": embeddings come from '" + name +
                     "'; secpe run can embed candidates only with the built-in hashing embedder");
  }
  return std::make_unique<HashingEmbedder>(info.embedding_dim);
}


// Everything that determines a label's outcome, for checking a checkpoint before resuming.
nlohmann::ordered_json fingerprint(const RunConfig& c, const DatasetInfo& info) {
  const auto created = info.provenance.find("created_utc");
  return {{"data", std::filesystem::absolute(c.data).string()},
          {"data_created_utc", created == info.provenance.end() ? "" : created->second},
          {"records", info.num_records},
          {"seed", c.seed},
          {"noise_key_check", noise_key_check(c.noise_key)},
          {"method", method_name(c.method)},
          {"iterations", c.iterations},
          {"synthetic", c.synthetic},
          {"variations", c.variations},
          {"clusters", c.clusters},
          {"votes_per_centre", c.votes_per_centre},
          {"private_batch", c.private_batch},
          {"p", c.p},
          {"r", c.r},
          {"budgets_file", c.budgets_file.string()},
          {"calibration", calibration_name(c.calibration)},
          {"epsilon", c.epsilon},
          {"delta", c.delta},
          {"metric", metric_name(c.metric)},
          {"clip_radius", c.clip_radius},
          {"kmeans_iterations", c.kmeans_iterations},
          {"kmeans_tolerance", c.kmeans_tolerance},
          {"threshold", c.augpe_threshold},
          {"augpe_voters", augpe_voters_name(c.augpe_voters)},
          {"max_words", c.generator.max_words},
          {"blank_fraction", c.generator.blank_fraction},
          {"generator_corpus", c.generator_corpus.string()},
          {"generator_texts", c.generator_texts}};
}

}  // namespace

std::string method_name(Method method) { return method == Method::kSecPE ? "secpe" : "augpe"; }
std::string augpe_voters_name(AugPEVoters voters) { return voters == AugPEVoters::kAll ? "all" : "private"; }

RunResult run_pipeline(const Communicator& comm, const RunConfig& config) {
  const auto run_start = Clock::now();
  if (config.iterations < 1) throw InputError("--iterations must be at least 1");
  if (config.variations < 1) throw InputError("--variations must be at least 1");
  if (config.clusters < 1) throw InputError("--clusters must be at least 1");
  if (config.synthetic < 1) throw InputError("--synthetic must be at least 1");
  if (!(config.private_batch > 0)) throw InputError("--private-batch must be positive");
  if (!(config.clip_radius > 0)) throw InputError("--clip-radius must be positive");

  // ---- this rank's shard ----
  DatasetReader reader(config.data);
  const DatasetInfo& info = reader.info();
  if (info.embedding_dim == 0) throw InputError(config.data.string() + ": the dataset has no embeddings");
  if (!info.has_text && config.generator_corpus.empty()) {
    throw InputError(config.data.string() + ": the dataset has no texts; name public texts with --generator-corpus");
  }
  const auto [begin, end] = comm.shard(info.num_records);
  const auto labels = reader.label_ids(begin, end);
  const SecretMatrix secrets = reader.secrets(begin, end);
  const MatrixF embeddings = reader.embeddings(begin, end);
  const std::size_t num_labels = info.labels.size();
  log_info("dataset " + config.data.string() + ": " + std::to_string(info.num_records) + " records, " +
           std::to_string(num_labels) + " labels, " + std::to_string(info.num_secrets) + " secrets, d = " +
           std::to_string(info.embedding_dim) + "; " + std::to_string(comm.size()) + " rank(s)");

  // Public records per label: public under secret protection, so N_syn follows them.
  std::vector<std::int64_t> public_counts(num_labels, 0);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!secrets.is_private(i)) ++public_counts[static_cast<std::size_t>(labels[i])];
  comm.allreduce_sum(public_counts);
  const auto synthetic_per_label = split_synthetic(config.synthetic, public_counts);
  check_run_fits(estimate_run(config, synthetic_per_label, info.embedding_dim, end - begin), memory_per_rank_bytes());

  // ---- generator and embedder ----
  auto t0 = Clock::now();
  const auto training = config.generator_corpus.empty() ? public_training_texts(reader, config.generator_texts)
                                                        : corpus_training_texts(config.generator_corpus, info.labels);
  const std::string source = config.generator_corpus.empty()
                                 ? "the public records (no secret) of " + config.data.filename().string()
                                 : config.generator_corpus.string();
  const NgramGenerator generator(training, source, config.generator);
  const auto embedder = embedder_for(info, config.data);
  const auto kernel = make_kernel(config.kernel);
  if (config.verify) {
    // HPCG-style built-in check on real data: this rank's first rows against the next rows as centres.
    const Eigen::Index n = embeddings.rows(), rows = std::min<Eigen::Index>(n / 2, 512);
    std::string report;
    const bool ok = rows == 0 || verify_against_reference(*kernel, embeddings.topRows(rows), embeddings.middleRows(rows, std::min<Eigen::Index>(n - rows, 256)),
                                                          config.metric, &report, std::min<int>(3, static_cast<int>(std::min<Eigen::Index>(n - rows, 256))));
    if (comm.allreduce_max(ok ? 0.0 : 1.0) > 0) throw std::runtime_error("--verify: kernel '" + kernel->name() + "' disagrees with the reference kernel: " + report);
    log_info("--verify: kernel '" + kernel->name() + "' agrees with the reference kernel bit for bit");
  }
  const double setup_seconds = seconds_since(t0);

  // ---- noise calibration ----
  const double delta = config.delta > 0 ? config.delta
                                        : 1.0 / (double(info.num_records) * std::log(double(std::max<std::uint64_t>(info.num_records, 3))));
  SecretBudgets budgets = uniform_budgets(static_cast<std::size_t>(info.num_secrets), config.p, config.r);
  if (!config.budgets_file.empty()) budgets = read_budgets_file(config.budgets_file, reader.secret_names(), budgets);
  SecretNoisePlan plan;
  AugPECalibration augpe;
  std::vector<AugPESecretCost> augpe_costs;
  t0 = Clock::now();
  if (config.method == Method::kSecPE) {
    log_info("calibrating noise (" + calibration_name(config.calibration) + ")");
    plan = plan_secret_noise(comm, secrets, labels, num_labels, budgets, config.iterations, config.private_batch,
                             config.calibration);
    std::size_t lowered = 0;
    for (const auto& l : plan.labels) lowered += l.has_private && l.batch_used < l.batch_requested ? 1 : 0;
    if (lowered > 0) {
      log_warn("--private-batch " + std::to_string(config.private_batch) + " was lowered for " + std::to_string(lowered) +
               " label(s) so that no sampling probability exceeds 1 (see private_batch_used in privacy.json)");
    }
    log_info("noise calibrated in " + std::to_string(seconds_since(t0)) + " s" +
             (config.calibration == CalibrationMode::kExact ? " (lambda = " + std::to_string(plan.lambda) + ")" : ""));
  } else {
    // Aug-PE protects records, not secrets: sigma from a record-level mu; then what each secret
    // really gets from its voting holders per label (an exact Gaussian shift).
    augpe = calibrate_augpe(budgets, config.p, config.r, config.epsilon, delta, config.iterations);
    std::vector<std::int64_t> holders(num_labels * static_cast<std::size_t>(info.num_secrets), 0);
    for (std::size_t i = 0; i < labels.size(); ++i)
      for (const auto j : secrets.secrets_of(i)) ++holders[static_cast<std::size_t>(labels[i]) * static_cast<std::size_t>(info.num_secrets) + static_cast<std::size_t>(j)];
    comm.allreduce_sum(holders);  // every holder is private, so it votes under either voter set
    std::vector<std::int64_t> square_sums(static_cast<std::size_t>(info.num_secrets), 0);
    for (std::size_t l = 0; l < num_labels; ++l)
      for (std::size_t j = 0; j < square_sums.size(); ++j) {
        const std::int64_t n = holders[l * square_sums.size() + j];
        square_sums[j] += n * n;
      }
    augpe_costs = augpe_secret_costs(square_sums, budgets, config.iterations, augpe.sigma);
  }
  const double calibration_seconds = seconds_since(t0);
  PrivacyLedger ledger(num_labels, config.iterations);

  RunResult result;
  result.synthetic.resize(num_labels);
  result.label_columns = info.labels.columns;
  result.label_prefixes = info.labels.prefixes;
  result.label_values = info.labels.values;

  // ---- checkpoint: labels finished by an earlier, interrupted run with the same settings ----
  Checkpoint checkpoint{fingerprint(config, info), {}};
  const auto ckpt_path = checkpoint_path(config.state_dir);
  if (config.resume) {
    std::string text;
    if (comm.is_root() && std::filesystem::is_regular_file(ckpt_path)) {
      text = load_checkpoint(ckpt_path, num_labels).fingerprint.dump();  // validates the file on rank 0
    }
    comm.broadcast(text);
    if (!text.empty()) {
      const Checkpoint saved = load_checkpoint(ckpt_path, num_labels);
      check_fingerprint(saved.fingerprint, checkpoint.fingerprint, ckpt_path);
      checkpoint.labels = saved.labels;
      for (const auto& [label, outcome] : saved.labels) ledger.restore(label, outcome.releases);
      log_info("resuming: " + std::to_string(saved.labels.size()) + " label(s) finished in " + ckpt_path.string());
    } else {
      log_info("--resume: no checkpoint in " + config.state_dir.string() + "; starting afresh");
    }
  }

  std::size_t active = 0;
  for (std::size_t l = 0; l < num_labels; ++l) active += synthetic_per_label[l] > 0 && !checkpoint.labels.count(l) ? 1 : 0;
  Progress progress("evolve", active);
  std::size_t done = 0;

  for (std::size_t label = 0; label < num_labels; ++label) {
    if (checkpoint.labels.count(label)) continue;
    const std::size_t n_syn = synthetic_per_label[label];
    LabelOutcome outcome;
    outcome.report = {{"id", label}, {"name", info.labels.display(label)}, {"synthetic", n_syn}};
    outcome.releases = nlohmann::ordered_json::array();
    if (n_syn == 0) {
      outcome.report["skipped"] = "no public records: nothing to learn from and no synthetic share";
      checkpoint.labels[label] = std::move(outcome);
      continue;
    }
    // This rank's public and private rows of the label.
    std::vector<std::size_t> public_rows, private_rows;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (static_cast<std::size_t>(labels[i]) != label) continue;
      (secrets.is_private(i) ? private_rows : public_rows).push_back(i);
    }
    const MatrixF private_embeddings = select_rows(embeddings, private_rows);
    // Aug-PE's voters (SecPE: none; its private rows reach the release through the clustering).
    MatrixF voters;
    if (config.method == Method::kAugPE) {
      std::vector<std::size_t> rows = private_rows;
      if (config.augpe_voters == AugPEVoters::kAll) {
        rows.insert(rows.end(), public_rows.begin(), public_rows.end());
        std::sort(rows.begin(), rows.end());
      }
      voters = select_rows(embeddings, rows);
    }

    std::unique_ptr<SecretClustering> clustering;
    double sigma = augpe.sigma;
    double kmeans_seconds = 0.0;
    if (config.method == Method::kSecPE) {
      sigma = plan.labels[label].sigma;
      t0 = Clock::now();
      KMeansOptions km{config.clusters, config.kmeans_iterations, config.kmeans_tolerance,
                       config.metric == Metric::kInnerProduct ? Metric::kL2 : config.metric, config.seed, label};
      KMeansResult clusters = distributed_kmeans(comm, select_rows(embeddings, public_rows), *kernel, km);
      std::vector<std::uint64_t> ids;
      std::vector<double> rho;
      for (auto i : private_rows) {
        ids.push_back(begin + i);
        rho.push_back(plan.rho[i]);
      }
      outcome.report["clusters"] = clusters.centres.rows();
      outcome.report["clip_radius"] = config.clip_radius;
      outcome.report["kmeans_iterations"] = clusters.iterations;
      kmeans_seconds = seconds_since(t0);
      clustering = std::make_unique<SecretClustering>(comm, std::move(clusters.centres), std::move(clusters.sizes),
                                                      private_embeddings, std::move(ids), std::move(rho), *kernel,
                                                      config.metric, config.clip_radius);
      outcome.report["public_centres_clipped"] = clustering->clipped_centres();
      outcome.report["sigma"] = sigma;
      outcome.report["sigma_paper"] = plan.labels[label].sigma_paper;
      outcome.report["sampling_lp"] = plan.labels[label].lp_path;
      outcome.report["private_batch_requested"] = plan.labels[label].batch_requested;
      outcome.report["private_batch_used"] = plan.labels[label].batch_used;
      if (plan.labels[label].has_private && plan.labels[label].batch_used < plan.labels[label].batch_requested) {
        outcome.report["private_batch_note"] = "lowered so that no sampling probability exceeds 1";
      }
    } else {
      outcome.report["sigma"] = sigma;
      outcome.report["threshold"] = config.augpe_threshold;
      outcome.report["voters"] = augpe_voters_name(config.augpe_voters);
    }
    const LabelEvolution job{.comm = comm,
                             .generator = generator,
                             .embedder = *embedder,
                             .kernel = *kernel,
                             .metric = config.metric,
                             .seed = config.seed,
                             .noise_key = config.noise_key,
                             .label = label,
                             .label_name = info.labels.display(label),
                             .synthetic = n_syn,
                             .iterations = config.iterations,
                             .variations = config.variations,
                             .sigma = sigma,
                             .clustering = clustering.get(),
                             .voters = &voters,
                             .augpe_threshold = config.augpe_threshold,
                             .ledger = ledger,
                             .votes_per_centre = config.votes_per_centre};
    evolve_label(job, outcome);
    if (!outcome.metrics.empty() && clustering) outcome.metrics.front()["kmeans_seconds"] = kmeans_seconds;
    checkpoint.labels[label] = std::move(outcome);
    if (comm.is_root()) save_checkpoint(ckpt_path, checkpoint);
    progress.step(++done, "label " + std::to_string(label) + " (" + info.labels.display(label) + ")");
  }
  progress.finish();

  nlohmann::ordered_json label_reports = nlohmann::ordered_json::array();
  for (auto& [label, outcome] : checkpoint.labels) {
    label_reports.push_back(outcome.report);
    for (auto& m : outcome.metrics) result.metrics.push_back(m);
    result.synthetic[label] = outcome.synthetic;
  }

  // ---- privacy report ----
  PrivacyReportInputs report;
  report.method = method_name(config.method);
  report.iterations = config.iterations;
  report.p = config.p;
  report.r = config.r;
  report.budgets_file = config.budgets_file.string();
  report.budgets = &budgets;
  report.delta = delta;
  if (config.method == Method::kSecPE) report.plan = &plan;
  if (config.method == Method::kAugPE) {
    report.augpe = &augpe;
    report.augpe_costs = &augpe_costs;
    report.augpe_voters = augpe_voters_name(config.augpe_voters);
  }
  report.labels = label_reports;
  report.releases = ledger.all_entries();
  report.generator = generator.describe();
  result.privacy = privacy_report(report);

  for (std::size_t l = 0; l < num_labels; ++l)
    for (std::size_t i = 0; i < result.synthetic[l].size(); ++i) result.synthetic_labels.push_back(static_cast<std::int32_t>(l));
  result.summary = {{"records", info.num_records}, {"labels", num_labels}, {"secrets", info.num_secrets},
                    {"embedding_dim", info.embedding_dim}, {"embedder", embedder->name()},
                    {"generator", generator.describe()}, {"kernel", kernel->name()},
                    {"setup_seconds", setup_seconds},
                    {"calibration_seconds", calibration_seconds}, {"run_seconds", seconds_since(run_start)},
                    {"bytes_sent_rank0", comm.bytes_sent()},
                    {"dataset_provenance", info.provenance}};
  return result;
}

}  // namespace secpe
