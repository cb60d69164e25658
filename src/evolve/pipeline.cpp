#include "evolve/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "compute/verify.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/stop_signal.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "eval/evaluate.hpp"
#include "eval/real_set.hpp"
#include "eval/report.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/dataset_embedder.hpp"
#include "evolve/leak_report.hpp"
#include "evolve/label_evolution.hpp"
#include "evolve/noise_calibration.hpp"
#include "evolve/private_state.hpp"
#include "evolve/release_keys.hpp"
#include "evolve/run_estimate.hpp"
#include "evolve/run_timings.hpp"
#include "evolve/shard.hpp"
#include "evolve/synthetic_split.hpp"
#include "evolve/training_texts.hpp"
#include "io/corpus.hpp"
#include "io/dataset.hpp"
#include "privacy/budgets.hpp"
#include "privacy/augpe_accounting.hpp"
#include "privacy/calibration.hpp"
#include "privacy/conversions.hpp"
#include "privacy/ledger.hpp"
#include "privacy/report.hpp"

namespace secpe {
namespace {


// Everything that determines a label's outcome, for checking a checkpoint before resuming: where
// the inputs are, the keyed checks, and every setting the release keys cover (release_settings),
// one field each, so that a refusal names the setting that differs.
nlohmann::ordered_json fingerprint(const RunConfig& c, const DatasetInfo& info) {
  const auto created = info.provenance.find("created_utc");
  // The dataset as a resolved path, so that ../big.h5 and /abs/big.h5 are the same file.
  nlohmann::ordered_json f = {{"data", std::filesystem::weakly_canonical(std::filesystem::absolute(c.data)).string()},
                              {"data_created_utc", created == info.provenance.end() ? "" : created->second},
                              {"records", info.num_records},
                              {"noise_key_check", noise_key_check(c.noise_key)},
                              {"noise_nonce", c.noise_nonce.hex()},
                              // Whether labels keep their selection history for --eval-real; the file itself is only an
                              // input of the evaluation (post-processing of the releases), so a corrected one may resume.
                              {"eval_history", !c.eval_real.empty()},
                              {"budgets_file", c.budgets_file.string()},
                              {"generator_corpus", c.generator_corpus.string()},
                              {"prompts", c.prompts.string()}};
  const nlohmann::ordered_json settings = release_settings(c);
  for (const auto& [key, value] : settings.items()) f[key] = value;
  // Last, so that a setting that differs is named first: everything that determines the releases
  // (the dataset's content included), checked with a keyed hash, never in clear.
  f["release_check"] = keyed_digest_hex(c.noise_key, "secpe release check", c.release_digest);
  return f;
}

// Every label learns from its public records and N_syn follows their counts: a dataset without
// any public record can make nothing (refused before any work), and a label without one gets no
// synthetic text (named in a warning). Public counts are public under secret protection.
void check_public_records(const RunConfig& config, const DatasetInfo& info, const std::vector<std::int64_t>& public_counts) {
  std::string without;
  std::size_t count = 0;
  for (std::size_t l = 0; l < public_counts.size(); ++l) {
    if (public_counts[l] > 0) continue;
    if (count++ < 10) without += (without.empty() ? "'" : ", '") + info.labels.display(l) + "'";
  }
  const std::string change = "import it again with fewer or rarer secrets (secpe import --secret-count, --secret-quantile, a shorter "
                             "--secrets-file, fewer --pii-categories)";
  if (count == public_counts.size()) {
    throw InputError(config.data.string() + ": every record holds a secret, so there is no public text to learn from and no "
                     "label to make synthetic text for; " + change);
  }
  if (count > 0) {
    log_warn(std::to_string(count) + " label(s) have no public record and get no synthetic text: " + without +
             (count > 10 ? ", ..." : "") + "; to make text for them, " + change);
  }
}

// ---- the stages of a run, in order ----

// Stage "models": the generator (public texts only), the candidate embedder, the kernel, and the
// optional built-in kernel check on this rank's data.
struct Models {
  std::unique_ptr<Generator> generator;
  std::unique_ptr<Embedder> embedder;
  std::unique_ptr<NearestCentreKernel> kernel;
};

// The built-in generator learns from public texts; the HTTP one needs only the labels and prompts.
std::unique_ptr<Generator> make_generator(const Communicator& comm, const RunConfig& config, const Shard& shard) {
  const DatasetInfo& info = shard.info();
  PromptTemplates prompts = config.prompts.empty() ? PromptTemplates::builtin(info.labels) : PromptTemplates::load(config.prompts, info.labels);
  if (config.http_generator) {
    HttpGeneratorOptions options = config.http_generation;
    options.cache_dir = config.state_dir;
    options.cache_writer = "r" + std::to_string(comm.rank());
    return std::make_unique<HttpGenerator>(options, std::move(prompts));
  }
  const auto texts = config.generator_corpus.empty() ? public_training_texts(shard.reader, config.generator_texts)
                                                     : corpus_training_texts(config.generator_corpus, info.labels);
  // File names only: a path may say more about the data than the run should publish.
  const std::string source = config.generator_corpus.empty()
                                 ? "the public records (no secret) of " + config.data.filename().string()
                                 : config.generator_corpus.filename().string();
  return std::make_unique<NgramGenerator>(generator_training(config.generator_labels, texts, source, prompts, config.generator_topics),
                                          config.generator);
}

Models build_models(const Communicator& comm, const RunConfig& config, const Shard& shard) {
  HttpEmbedderOptions http_embedding = config.http_embedding;
  http_embedding.cache_dir = config.state_dir;
  http_embedding.cache_writer = "r" + std::to_string(comm.rank());
  Models m{.generator = make_generator(comm, config, shard),
           .embedder = dataset_embedder(shard.reader, config.data, &http_embedding),
           .kernel = make_kernel(config.kernel, config.threads, config.device)};
  if (config.verify) {
    // HPCG-style built-in check on real data: this rank's first rows against the next rows as centres.
    const MatrixF& x = shard.embeddings;
    const Eigen::Index n = x.rows(), rows = std::min<Eigen::Index>(n / 2, 512);
    const Eigen::Index centres = std::min<Eigen::Index>(n - rows, 256);
    std::string report;
    const bool ok = rows == 0 || verify_against_reference(*m.kernel, x.topRows(rows), x.middleRows(rows, centres), config.metric, &report,
                                                          std::min<int>(3, static_cast<int>(centres)));
    if (comm.allreduce_max(ok ? 0.0 : 1.0) > 0) throw std::runtime_error("kernel check: kernel '" + m.kernel->name() + "' disagrees with the reference kernel: " + report);
    log_info("kernel check: kernel '" + m.kernel->name() + "' agrees with the reference kernel bit for bit");
  }
  return m;
}

// Stage "calibrate": budgets, then SecPE's noise plan or Aug-PE's record-level sigma and what each
// secret gets from it.
struct Calibration {
  SecretBudgets budgets;
  double delta = 0.0;                       // for the reported (eps, delta)
  SecretNoisePlan plan;                     // SecPE
  AugPECalibration augpe;                   // Aug-PE
  std::vector<AugPESecretCost> augpe_costs;
};

// Records without a secret, over all labels: public under secret protection.
std::int64_t public_records(const Shard& shard) {
  std::int64_t n = 0;
  for (const auto c : shard.public_counts) n += c;
  return n;
}

// The public-profile calibration holds only if the data keep the user's caps: checked before any
// work. The message gives no count (it would be a private statistic); calibration.json does not
// exist yet, so the operator looks at the dataset (`secpe inspect`).
void check_public_caps(const Communicator& comm, const RunConfig& config, const Shard& shard) {
  if (config.max_holders_per_secret < 1) throw InputError("the public-profile calibration needs a cap on the holders per secret");
  if (max_holders_per_secret(comm, shard.secrets) > config.max_holders_per_secret) {
    throw InputError(config.data.string() + ": some secret is held by more than " + std::to_string(config.max_holders_per_secret) +
                     " records, the public cap on holders per secret: the public-profile calibration would not cover it. Raise the cap "
                     "(it is published) or use the exact calibration");
  }
}

// A secret mode with each list's file by name: "list:/data/s.txt+pii" -> "list:s.txt+pii".
// secpe import stores names only; datasets imported by earlier versions hold the list's path.
std::string secret_mode_by_names(const std::string& mode) {
  std::string out;
  for (std::size_t begin = 0; begin <= mode.size();) {
    const std::size_t end = std::min(mode.find('+', begin), mode.size());
    const std::string part = mode.substr(begin, end - begin);
    out += (begin ? "+" : "") + (part.starts_with("list:") ? "list:" + std::filesystem::path(part.substr(5)).filename().string() : part);
    begin = end + 1;
  }
  return out;
}

// The dataset's provenance as run.json may show it: the import's public settings and the names of
// its input files, never their paths or counts that involve private records. The import stores
// names already; a dataset of an earlier version may hold paths, so they are cut here too.
nlohmann::ordered_json public_provenance(const std::map<std::string, std::string>& provenance) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : provenance) {
    if (key == "source" || key == "embeddings_file") {
      out[key] = std::filesystem::path(value).filename().string();
    } else if (key == "secret_mode") {
      out[key] = secret_mode_by_names(value);
    } else if (key != "bad_records_skipped") {  // malformed rows of the private input file
      out[key] = value;
    }
  }
  return out;
}

// calibration.json in the private state folder: what the calibration read from the private data
// (per label: private records, the batch used, how its LP was solved), which privacy.json must not show.
void write_calibration_inputs(const RunConfig& config, const SecretNoisePlan& plan, const DatasetInfo& info) {
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < plan.labels.size(); ++l) {
    const LabelNoise& n = plan.labels[l];
    labels.push_back({{"id", l}, {"name", info.labels.display(l)}, {"private_records", n.private_records}, {"has_private", n.has_private},
                      {"private_batch_requested", n.batch_requested}, {"private_batch_used", n.batch_used},
                      {"batch_lowered", n.has_private && n.batch_used < n.batch_requested}, {"sampling_lp", n.lp_path},
                      {"sigma_paper", n.sigma_paper}, {"sigma", n.sigma}});
  }
  const nlohmann::ordered_json report = {{"note", "PRIVATE (the calibration's inputs from the private records): never publish this file"},
                                         {"calibration", calibration_name(plan.mode)},
                                         {"labels", labels}};
  write_file_atomically(calibration_inputs_path(config.state_dir), [&](std::ostream& o) { o << report.dump(2) << "\n"; },
                        FileAccess::kPrivate);
}

Calibration calibrate(const Communicator& comm, const RunConfig& config, const Shard& shard, const SecretBudgets& budgets) {
  const DatasetInfo& info = shard.info();
  const std::size_t num_labels = shard.num_labels(), m = static_cast<std::size_t>(info.num_secrets);
  Calibration c;
  // Aug-PE's delta = 1 / (N ln N), with N the public records: the total would tell the number of
  // private records.
  const auto n = static_cast<double>(std::max<std::int64_t>(public_records(shard), 3));
  c.delta = config.delta > 0 ? config.delta : 1.0 / (n * std::log(n));
  c.budgets = budgets;
  const Timer timer;
  if (config.method == Method::kSecPE) {
    log_info("calibrating noise (" + calibration_name(config.calibration) + ")");
    c.plan = calibrate_secret_noise(comm, {.local_secrets = shard.secrets,
                                           .local_labels = shard.labels,
                                           .num_labels = num_labels,
                                           .budgets = c.budgets,
                                           .iterations = config.iterations,
                                           .batch = config.private_batch,
                                           .mode = config.calibration,
                                           .profile = {.max_holders = config.max_holders_per_secret, .sampling_rate = config.sampling_rate},
                                           .threads = config.threads > 0 ? config.threads : default_threads()});
    if (comm.is_root()) write_calibration_inputs(config, c.plan, info);
    // The same words whatever the data: whether a label's batch was lowered is private.
    log_info("noise calibrated in " + std::to_string(timer.seconds()) + " s; per-label inputs (private: private records, the batch "
             "actually used) in " + calibration_inputs_path(config.state_dir).string());
  } else if (config.method == Method::kAugPE) {
    // Aug-PE protects records, not secrets: sigma from a record-level mu; then what each secret
    // really gets from its voting holders per label (an exact Gaussian shift).
    c.augpe = calibrate_augpe(c.budgets, config.p, config.r, config.epsilon, c.delta, config.iterations);
    std::vector<std::int64_t> holders(num_labels * m, 0);
    for (std::size_t i = 0; i < shard.labels.size(); ++i)
      for (const auto j : shard.secrets.secrets_of(i)) ++holders[static_cast<std::size_t>(shard.labels[i]) * m + static_cast<std::size_t>(j)];
    comm.allreduce_sum(holders);  // every holder is private, so it votes under either voter set
    std::vector<std::int64_t> square_sums(m, 0);
    for (std::size_t l = 0; l < num_labels; ++l)
      for (std::size_t j = 0; j < m; ++j) square_sums[j] += holders[l * m + j] * holders[l * m + j];
    c.augpe_costs = augpe_secret_costs(square_sums, c.budgets, config.iterations, c.augpe.sigma);
  }
  return c;
}

// Stage "resume" (before any costly work): the labels an interrupted run with the same settings
// finished, and those it was in the middle of with their complete iterations, their releases
// restored to the ledger (nothing when not resuming or no checkpoint exists). Rank 0 reads and
// checks the files and sends their content to the other ranks.
std::map<std::size_t, LabelProgress> resume_checkpoint(const Communicator& comm, const RunConfig& config, std::size_t num_labels,
                                                       Checkpoint& checkpoint, PrivacyLedger& ledger) {
  if (!config.resume) return {};
  const auto path = checkpoint_path(config.state_dir), partial = progress_path(config.state_dir);
  std::string saved_labels, saved_progress;  // the files' checked bytes, or empty
  if (comm.is_root()) {
    if (std::filesystem::is_regular_file(path)) {
      const Checkpoint saved = load_checkpoint(path, num_labels, &config.noise_key);
      check_fingerprint(saved.fingerprint, checkpoint.fingerprint, path);
      saved_labels = path.string();
    }
    if (std::filesystem::is_regular_file(partial)) {
      load_progress(partial, num_labels, config.iterations, checkpoint.fingerprint, config.noise_key);  // checks it
      saved_progress = partial.string();
    }
  }
  comm.broadcast(saved_labels);
  comm.broadcast(saved_progress);
  if (saved_labels.empty() && saved_progress.empty()) {
    log_info("resume: no checkpoint in " + config.state_dir.string() + "; starting afresh");
    return {};
  }
  if (!saved_labels.empty()) {
    checkpoint.labels = load_checkpoint(path, num_labels, &config.noise_key).labels;
    for (const auto& [label, outcome] : checkpoint.labels) ledger.restore(label, outcome.releases);
  }
  std::map<std::size_t, LabelProgress> in_progress;
  if (!saved_progress.empty()) in_progress = load_progress(partial, num_labels, config.iterations, checkpoint.fingerprint, config.noise_key);
  // A label may be in both when the run stopped after finishing it, before rewriting the progress.
  std::erase_if(in_progress, [&](const auto& entry) { return checkpoint.labels.count(entry.first) > 0; });
  std::string continued;
  for (const auto& [label, p] : in_progress) {
    ledger.restore(label, p.outcome.releases);
    continued += ", label " + std::to_string(label) + " after " + std::to_string(p.iterations_done) + " of " +
                 std::to_string(config.iterations) + " iterations";
  }
  log_info("resuming: " + std::to_string(checkpoint.labels.size()) + " label(s) finished in " + path.string() + continued);
  return in_progress;
}

// Stops the run at an iteration or label boundary when a rank was asked to (core/stop_signal.hpp);
// every rank calls it at the same point and they agree, so all of them stop there. `where` says
// where rank 0 stopped; `finished` counts the labels in the checkpoint (as `secpe inspect` does).
void stop_if_asked(const Communicator& comm, const std::string& where, std::size_t finished, std::size_t labels,
                   const std::filesystem::path& state_dir) {
  const int signal = static_cast<int>(comm.allreduce_max(static_cast<double>(stop_signal())));
  if (signal != 0) {
    throw Interrupted("asked to stop by " + signal_name(signal) + "; stopped " + where + " with " + std::to_string(finished) +
                      " of " + std::to_string(labels) + " labels finished; progress kept in the private state folder " +
                      state_dir.string() + ": run the same command again with --resume to continue from there");
  }
}

// Stage "evolve a label": SecPE clusters the label's public rows and builds its secret
// clustering; Aug-PE gathers its voters; then T iterations of protected evolution.
struct RunContext {
  const RunConfig& config;
  const Shard& shard;
  const Models& models;
  const Calibration& calibration;
  PrivacyLedger& ledger;
  NoiseKey run_key;  // evolve/release_keys.hpp: every label's release key derives from it
};

// `after_iteration(outcome so far, iterations done)` runs after every iteration but the last.
LabelOutcome evolve_one_label(const RunContext& run, std::size_t label, std::size_t n_syn, const LabelProgress* resumed,
                              const std::function<void(const LabelOutcome&, int)>& after_iteration) {
  const RunConfig& config = run.config;
  const Shard& shard = run.shard;
  const Communicator& comm = shard.label_comm();  // all ranks (by record), or this one alone (by label)
  const SecretNoisePlan& plan = run.calibration.plan;
  const auto& public_rows = shard.public_rows[label];
  const auto& private_rows = shard.private_rows[label];
  const std::string name = shard.info().labels.display(label);
  LabelOutcome outcome;
  if (resumed) outcome = resumed->outcome;
  outcome.report = {{"id", label}, {"name", name}, {"synthetic", n_syn}};
  outcome.releases = resumed ? resumed->outcome.releases : nlohmann::ordered_json::array();

  std::unique_ptr<SecretClustering> clustering;
  MatrixF voters;  // Aug-PE's (SecPE's private rows reach the release through the clustering)
  NoiseKey label_key;  // the label's release key (evolve/release_keys.hpp); unused by the control
  double sigma = run.calibration.augpe.sigma, kmeans_seconds = 0.0;
  if (config.method == Method::kSecPE) {
    sigma = plan.labels[label].sigma;
    const Timer timer;
    KMeansOptions km{config.clusters, config.kmeans_iterations, config.kmeans_tolerance,
                     config.metric == Metric::kInnerProduct ? Metric::kL2 : config.metric, config.seed, label};
    km.threads = config.threads;
    km.init = config.kmeans_init;
    KMeansResult clusters = distributed_kmeans(comm, select_rows(shard.embeddings, public_rows, config.threads), *run.models.kernel, km);
    std::vector<std::uint64_t> ids;
    std::vector<double> rho;
    for (auto i : private_rows) {
      ids.push_back(shard.ids[i]);
      rho.push_back(plan.rho[i]);
    }
    outcome.report["clusters"] = clusters.centres.rows();
    outcome.report["clip_radius"] = config.clip_radius;
    outcome.report["kmeans_iterations"] = clusters.iterations;
    kmeans_seconds = timer.seconds();
    clustering = std::make_unique<SecretClustering>(comm, std::move(clusters.centres), std::move(clusters.sizes),
                                                    select_rows(shard.embeddings, private_rows, config.threads), std::move(ids), std::move(rho),
                                                    *run.models.kernel, config.metric, config.clip_radius);
    // The public settings and sigma; the batch actually used, the LP and the private counts are the
    // calibration's private inputs (calibration.json in the state folder).
    outcome.report["public_centres_clipped"] = clustering->clipped_centres();
    outcome.report["sigma"] = sigma;
    outcome.report["private_batch_requested"] = plan.labels[label].batch_requested;
    label_key = secpe_label_key(run.run_key, label, clustering->public_centres(), clustering->public_sizes(), sigma);
  } else if (config.method == Method::kAugPE) {
    std::vector<std::size_t> rows = private_rows;
    if (config.augpe_voters == AugPEVoters::kAll) {
      rows.insert(rows.end(), public_rows.begin(), public_rows.end());
      std::sort(rows.begin(), rows.end());
    }
    voters = select_rows(shard.embeddings, rows, config.threads);
    label_key = augpe_label_key(run.run_key, label);
    outcome.report["sigma"] = sigma;
    outcome.report["threshold"] = config.augpe_threshold;
    outcome.report["voters"] = augpe_voters_name(config.augpe_voters);
  }
  if (config.method == Method::kRandom) outcome.report["selection"] = "uniformly random (no private record used)";
  evolve_label({.comm = comm,
                .generator = *run.models.generator,
                .embedder = *run.models.embedder,
                .kernel = *run.models.kernel,
                .metric = config.metric,
                .seed = config.seed,
                .noise_key = label_key,
                .label = label,
                .label_name = name,
                .synthetic = n_syn,
                .iterations = config.iterations,
                .variations = config.variations,
                .sigma = sigma,
                .clustering = clustering.get(),
                .clip_radius = config.clip_radius,
                .voters = config.method == Method::kAugPE ? &voters : nullptr,
                .augpe_threshold = config.augpe_threshold,
                .ledger = run.ledger,
                .votes_per_centre = config.votes_per_centre,
                .distinct = {.n = 5, .share = config.near_duplicate_share},
                .keep_history = !config.eval_real.empty(),
                .first_iteration = resumed ? resumed->iterations_done : 0,
                .after_iteration = [&](const LabelOutcome& so_far, int done) {
                  if (done < config.iterations) after_iteration(so_far, done);  // the label's end: the caller takes it
                }},
               outcome);
  // Public work; published only when this rank held all of the label's public records (run_timings.hpp).
  if (!outcome.metrics.empty() && clustering) outcome.metrics.front()[comm.size() == 1 ? "kmeans_seconds" : "kmeans_sharded_seconds"] = kmeans_seconds;
  return outcome;
}

// Stage "evolve": every label not finished yet, into the checkpoint; at the end every rank holds
// every outcome and every release. Rank 0 rewrites progress.json after every iteration and
// checkpoint.json after every finished label, and every rank checks for a stop request at the
// same points.
class Evolution {
 public:
  Evolution(const Communicator& comm, const RunContext& run, const std::vector<std::size_t>& synthetic_per_label,
            std::map<std::size_t, LabelProgress> in_progress, Checkpoint& checkpoint)
      : comm_(comm),
        run_(run),
        synthetic_(synthetic_per_label),
        in_progress_(std::move(in_progress)),
        checkpoint_(checkpoint),
        pending_(pending_labels(run.shard, synthetic_per_label, checkpoint)),
        progress_("evolve", pending_.size()) {}

  void run() {
    if (run_.shard.by == ShardBy::kRecord) {
      by_record();
    } else {
      by_label();
    }
    progress_.finish();
  }

 private:
  // The labels left to evolve; those without a synthetic share go into the checkpoint as skipped.
  static std::vector<std::size_t> pending_labels(const Shard& shard, const std::vector<std::size_t>& synthetic_per_label,
                                                 Checkpoint& checkpoint) {
    std::vector<std::size_t> pending;
    for (std::size_t label = 0; label < shard.num_labels(); ++label) {
      if (checkpoint.labels.count(label)) continue;
      if (synthetic_per_label[label] > 0) {
        pending.push_back(label);
        continue;
      }
      LabelOutcome skipped;
      skipped.report = {{"id", label}, {"name", shard.info().labels.display(label)}, {"synthetic", 0},
                        {"skipped", "no public records: nothing to learn from and no synthetic share"}};
      skipped.releases = nlohmann::ordered_json::array();
      checkpoint.labels[label] = std::move(skipped);
    }
    return pending;
  }

  // All ranks evolve each label together, one label after another.
  void by_record() {
    for (const std::size_t label : pending_) {
      LabelOutcome outcome = evolve(label, [&](const LabelOutcome& so_far, int done) {
        in_progress_[label] = {label, done, so_far};
        save(false);
        stop_here("after iteration " + std::to_string(done - 1) + " of label " + std::to_string(label));
      });
      in_progress_.erase(label);
      checkpoint_.labels[label] = std::move(outcome);
      save(true);
      progress_.step(++finished_, name(label));
      stop_here("after label " + std::to_string(label));
    }
  }

  // Each rank evolves its own labels while the others evolve theirs, and after every iteration the
  // ranks exchange their labels' state: one exchange per iteration of a rank's labels, so a rank
  // with fewer iterations left takes part in the others' remaining ones.
  void by_label() {
    const int iterations = run_.config.iterations;
    std::vector<std::size_t> steps(static_cast<std::size_t>(comm_.size()), 0);
    for (const std::size_t label : pending_) {
      const auto from = in_progress_.find(label);
      const int done = from == in_progress_.end() ? 0 : from->second.iterations_done;
      steps[static_cast<std::size_t>(run_.shard.label_rank[label])] += static_cast<std::size_t>(iterations - done);
    }
    const std::size_t all_steps = *std::max_element(steps.begin(), steps.end());
    std::size_t taken = 0;
    for (const std::size_t label : pending_) {
      if (!run_.shard.evolves(label)) continue;
      LabelOutcome outcome = evolve(label, [&](const LabelOutcome& so_far, int done) {
        const LabelProgress now{label, done, so_far};
        exchange(&now, "after iteration " + std::to_string(done - 1) + " of label " + std::to_string(label));
        ++taken;
      });
      const LabelProgress finished{label, iterations, std::move(outcome)};
      exchange(&finished, "after label " + std::to_string(label));
      ++taken;
    }
    for (; taken < all_steps; ++taken) exchange(nullptr, "while the other ranks evolve their labels");
  }

  // Every rank's label state (or none) to every rank: in progress, it is kept for progress.json;
  // finished, its outcome goes into the checkpoint and its releases into the ledger.
  void exchange(const LabelProgress* mine, const std::string& where) {
    const auto states = comm_.allgather_strings({mine ? progress_json(*mine).dump() : std::string()});
    std::string finished;
    for (std::size_t r = 0; r < states.size(); ++r) {
      if (states[r].empty()) continue;
      LabelProgress p = progress_from_json(nlohmann::ordered_json::parse(states[r]), "rank " + std::to_string(r) + "'s label state",
                                           run_.shard.num_labels(), run_.config.iterations);
      if (p.iterations_done < run_.config.iterations) {
        in_progress_[p.label] = std::move(p);
        continue;
      }
      in_progress_.erase(p.label);
      run_.ledger.restore(p.label, p.outcome.releases);
      checkpoint_.labels[p.label] = std::move(p.outcome);
      finished += (finished.empty() ? "" : ", ") + name(p.label);
      ++finished_;
    }
    save(!finished.empty());
    if (!finished.empty()) progress_.step(finished_, finished);
    stop_here(where);
  }

  void stop_here(const std::string& where) const {
    stop_if_asked(comm_, where, checkpoint_.labels.size(), run_.shard.num_labels(), run_.config.state_dir);
  }

  LabelOutcome evolve(std::size_t label, const std::function<void(const LabelOutcome&, int)>& after_iteration) {
    const std::optional<LabelProgress> from = resumed(label);  // a copy: after_iteration replaces the entry
    return evolve_one_label(run_, label, synthetic_[label], from ? &*from : nullptr, after_iteration);
  }

  std::optional<LabelProgress> resumed(std::size_t label) const {
    const auto it = in_progress_.find(label);
    return it == in_progress_.end() ? std::nullopt : std::optional<LabelProgress>(it->second);
  }

  void save(bool finished_some) const {
    if (!comm_.is_root()) return;
    const auto& state_dir = run_.config.state_dir;
    if (finished_some) save_checkpoint(checkpoint_path(state_dir), checkpoint_, run_.config.noise_key);
    if (in_progress_.empty()) {
      std::filesystem::remove(progress_path(state_dir));
    } else {
      save_progress(progress_path(state_dir), checkpoint_.fingerprint, in_progress_, run_.config.noise_key);
    }
  }

  std::string name(std::size_t label) const {
    const LabelSet& labels = run_.shard.info().labels;
    if (labels.columns.empty()) return "the corpus (unlabelled)";
    return "label " + std::to_string(label) + " (" + labels.display(label) + ")";
  }

  const Communicator& comm_;
  const RunContext& run_;
  const std::vector<std::size_t>& synthetic_;
  std::map<std::size_t, LabelProgress> in_progress_;
  Checkpoint& checkpoint_;
  std::vector<std::size_t> pending_;
  Progress progress_;
  std::size_t finished_ = 0;
};

// Stage "evaluate" (--eval-real): the real file is read once before the run (so that a bad file
// or real labels that never match fail before any work); after the run, the initial population
// and the selection after every iteration, over all labels, are scored as `secpe eval` would, one
// metrics.jsonl line each. Label prefixes are removed from the real values as secpe eval does:
// the dataset's and Aug-PE's.
std::optional<RealSet> prepare_eval(const Communicator& comm, const RunConfig& config, const DatasetInfo& info,
                                    const std::vector<std::size_t>& synthetic_per_label) {
  if (config.eval_real.empty()) return std::nullopt;
  std::vector<std::string> prefixes = CsvReadOptions{}.label_prefixes;
  for (const auto& p : info.labels.prefixes)
    if (!p.empty() && std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) prefixes.push_back(p);
  const CsvReadOptions read{.text_column = "text", .label_columns = info.labels.columns, .label_prefixes = {},
                            .on_bad_record = OnBadRecord::kError};
  std::shared_ptr<const RealSource> source;
  if (corpus_format(config.eval_real, "") == CorpusFormat::kJsonl) {
    Corpus corpus = read_corpus(config.eval_real, CorpusFormat::kJsonl, read);
    strip_label_prefixes(corpus, prefixes);
    source = std::make_shared<MemoryRealSource>(std::move(corpus), config.eval_real.string());
  } else {
    source = std::make_shared<CsvRealSource>(config.eval_real, read, prefixes);
  }
  RealSet real = prepare_real_set(source, {.seed = config.seed}, comm);
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
    throw InputError("the real records of " + config.eval_real.string() + " match none of the dataset's values of label column '" +
                     info.labels.columns[c] + "' (the dataset: " + mine + "; the file: " + theirs +
                     "), so nothing could be evaluated; give a file with the dataset's labels");
  }
  return real;
}

std::vector<nlohmann::ordered_json> evaluate_populations(const Communicator& comm, const RunConfig& config, const DatasetInfo& info,
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
  const EvalOptions options{.seed = config.seed, .kernel = config.kernel, .threads = config.threads, .synthetic_name = "the population"};
  std::vector<nlohmann::ordered_json> lines;
  Progress progress("evaluate", static_cast<std::size_t>(config.iterations) + 1);
  for (int t = -1; t < config.iterations; ++t) {
    const Timer timer;
    nlohmann::ordered_json line = t < 0 ? nlohmann::ordered_json{{"population", "initial"}}
                                        : nlohmann::ordered_json{{"population", "selected"}, {"iteration", t}};
    nlohmann::ordered_json report = eval_report_json(evaluate(population(t), real, options, comm));
    report.erase("run");  // ranks and timings: the line must not depend on the rank count
    report["real"]["file"] = config.eval_real.filename().string();  // a published file names files, not paths
    line["eval"] = std::move(report);
    line["eval_seconds"] = timer.seconds();
    lines.push_back(std::move(line));
    progress.step(static_cast<std::size_t>(t + 2), t < 0 ? "initial population" : "iteration " + std::to_string(t));
  }
  progress.finish();
  return lines;
}

// Stage "report": privacy.json from the calibration, the finished labels and the ledger.
nlohmann::ordered_json privacy_report_of(const RunConfig& config, const Calibration& c, const Checkpoint& checkpoint,
                                         const PrivacyLedger& ledger, const Models& models, nlohmann::ordered_json leak_scan) {
  nlohmann::ordered_json label_reports = nlohmann::ordered_json::array();
  for (const auto& [label, outcome] : checkpoint.labels) label_reports.push_back(outcome.report);
  PrivacyReportInputs report{.method = method_name(config.method),
                             .iterations = config.iterations,
                             .p = config.p,
                             .r = config.r,
                             .budgets_file = config.budgets_file.string(),
                             .budgets = &c.budgets,
                             .delta = c.delta,
                             .augpe_voters = augpe_voters_name(config.augpe_voters),
                             .labels = label_reports,
                             .releases = ledger.all_entries(),
                             .generator = models.generator->describe(),
                             .leak_scan = std::move(leak_scan)};
  if (config.method == Method::kSecPE) report.plan = &c.plan;
  report.profile = {.max_holders = config.max_holders_per_secret, .sampling_rate = config.sampling_rate};
  if (config.method == Method::kAugPE) {
    report.augpe = &c.augpe;
    report.augpe_costs = &c.augpe_costs;
  }
  return privacy_report(report);
}

}  // namespace

std::string method_name(Method method) {
  switch (method) {
    case Method::kSecPE: return "secpe";
    case Method::kAugPE: return "augpe";
    case Method::kRandom: return "random";
  }
  return "?";
}
std::string augpe_voters_name(AugPEVoters voters) { return voters == AugPEVoters::kAll ? "all" : "private"; }

void check_completed_run(const RunConfig& config, const DatasetInfo& info, bool key_known) {
  const auto path = checkpoint_path(config.state_dir);
  if (!std::filesystem::is_regular_file(path)) return;  // state folder gone: nothing to compare
  nlohmann::ordered_json saved = load_checkpoint(path, std::nullopt, key_known ? &config.noise_key : nullptr).fingerprint,
                         current = fingerprint(config, info);
  saved.erase("eval_history");  // nothing is evaluated again
  current.erase("eval_history");
  if (!key_known) {  // an OS-drawn key is deleted when its run completes: nothing keyed can be compared
    for (const char* keyed : {"noise_key_check", "release_check"}) {
      saved.erase(keyed);
      current.erase(keyed);
    }
  }
  check_fingerprint(saved, current, path);
}

RunInputs prepare_run(const Communicator& comm, const RunConfig& config) {
  RunInputs in;
  in.shard = std::make_unique<Shard>(comm, config.data, shard_by_for(config.shard_by, config.method == Method::kAugPE));
  const Shard& shard = *in.shard;
  const DatasetInfo& info = shard.info();
  if (!info.has_text && config.generator_corpus.empty() && !config.http_generator) {
    throw InputError(config.data.string() + ": the dataset has no texts; give the generator a corpus of public texts");
  }
  const std::size_t num_labels = shard.num_labels();
  // Public records only: the total would tell the number of private ones.
  log_info("dataset " + config.data.string() + ": " + std::to_string(public_records(shard)) + " public records, " +
           std::to_string(num_labels) + " labels, " + std::to_string(info.num_secrets) + " secrets, d = " +
           std::to_string(info.embedding_dim) + "; " + std::to_string(comm.size()) + " rank(s), sharded by " + shard_by_name(shard.by));
  if (config.method == Method::kSecPE && config.calibration == CalibrationMode::kPublicProfile) check_public_caps(comm, config, shard);
  // Public records are public under secret protection, so N_syn follows their label counts.
  in.synthetic_per_label = split_synthetic(config.synthetic, shard.public_counts);
  check_public_records(config, info, shard.public_counts);
  check_run_fits(estimate_run(config, in.synthetic_per_label, info.embedding_dim, shard.ids.size()), memory_per_rank_bytes());
  in.budgets = uniform_budgets(static_cast<std::size_t>(info.num_secrets), config.p, config.r);
  if (!config.budgets_file.empty()) in.budgets = read_budgets_file(config.budgets_file, shard.reader.secret_names(), in.budgets);
  in.eval_real = prepare_eval(comm, config, info, in.synthetic_per_label);
  const auto order = info.provenance.find("column_order");
  if (order != info.provenance.end()) in.column_order = parse_column_order(order->second, info.labels.columns.size(), config.data.string());
  return in;
}

RunResult run_pipeline(const Communicator& comm, const RunConfig& config, const RunInputs& inputs) {
  if (config.release_digest.empty()) throw std::logic_error("run_pipeline: the release digest is not set (evolve/release_keys.hpp)");
  const Timer run_timer;
  const Shard& shard = *inputs.shard;
  const DatasetInfo& info = shard.info();
  const std::size_t num_labels = shard.num_labels();
  PrivacyLedger ledger(num_labels, config.iterations);
  Checkpoint checkpoint{fingerprint(config, info), {}};
  std::map<std::size_t, LabelProgress> in_progress = resume_checkpoint(comm, config, num_labels, checkpoint, ledger);

  Timer timer;
  const Models models = build_models(comm, config, shard);
  const double setup_seconds = timer.seconds();
  timer.restart();
  const Calibration calibration = calibrate(comm, config, shard, inputs.budgets);
  const double calibration_seconds = timer.seconds();

  const RunContext run{.config = config, .shard = shard, .models = models, .calibration = calibration, .ledger = ledger,
                       .run_key = run_release_key(config.noise_key, config.release_digest)};
  timer.restart();
  Evolution(comm, run, inputs.synthetic_per_label, std::move(in_progress), checkpoint).run();
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
                                                                      .state_dir = config.state_dir,
                                                                      .drop_leaking = config.drop_leaking},
                                                     result.synthetic, result.initial);
  const double leak_scan_seconds = timer.seconds();
  result.privacy = privacy_report_of(config, calibration, checkpoint, ledger, models, std::move(leaks));
  timer.restart();
  if (inputs.eval_real) {
    for (auto& line : evaluate_populations(comm, config, info, checkpoint, *inputs.eval_real)) result.metrics.push_back(std::move(line));
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
                    {"generator", models.generator->describe()}, {"kernel", models.kernel->name()},
                    {"shard_by", shard_by_name(shard.by)},
                    {"dataset_provenance", public_provenance(info.provenance)}};
  // Every stage's wall time, this invocation's (a resumed run's earlier part is not in it): private,
  // as calibration, evolution and the leak scan work on private records.
  result.timings["run"] = {{"setup_seconds", setup_seconds}, {"calibration_seconds", calibration_seconds},
                           {"evolve_seconds", evolve_seconds}, {"leak_scan_seconds", leak_scan_seconds},
                           {"evaluate_seconds", eval_seconds}, {"run_seconds", run_timer.seconds()}};
  return result;
}


}  // namespace secpe
