// SecPE (the paper's Algorithm 3): noise calibrated per secret; each label's private records are
// sampled and summed per nearest public k-means centre, and the noisy centres vote for the
// candidates nearest to them.
#include "evolve/methods/method.hpp"

#include "cluster/kmeans.hpp"
#include "cluster/secret_clustering.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "evolve/noise_calibration.hpp"
#include "evolve/private_state.hpp"
#include "evolve/release_keys.hpp"

namespace secpe {
namespace {

// calibration.json in the private state folder: what the calibration read from the private data
// (per label: private records, the batch used, how its LP was solved), which privacy.json must not show.
void write_calibration_inputs(const std::filesystem::path& state_dir, const SecretNoisePlan& plan, const DatasetInfo& info) {
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
  write_file_atomically(calibration_inputs_path(state_dir), [&](std::ostream& o) { o << report.dump(2) << "\n"; },
                        FileAccess::kPrivate);
}

class SecPEVoting : public LabelVoting {
 public:
  SecPEVoting(const LabelSetup& setup, std::unique_ptr<SecretClustering> clustering, double sigma, double kmeans_seconds)
      : setup_(setup),
        clustering_(std::move(clustering)),
        sigma_(sigma),
        kmeans_seconds_(kmeans_seconds),
        key_(secpe_label_key(setup.run_key, setup_.label, clustering_->public_centres(), clustering_->public_sizes(), sigma)) {}

  VoteRound vote(const CandidatePool& pool, int iteration) override {
    Timer timer;
    const auto k = std::to_string(clustering_->clusters());
    setup_.ledger.charge(setup_.label, iteration, {{"released", {"noisy cluster sizes (" + k + ")",
                                                     "noisy cluster centres (" + k + " x " + std::to_string(pool.embeddings.cols()) + ")"}},
                                       {"sigma", sigma_}});
    const NoisyClusters noisy = clustering_->release(key_, setup_.label, iteration, sigma_);
    VoteRound round;
    round.release_seconds = timer.seconds();
    timer.restart();
    const NoisyClusters estimate = shrink_release(setup_.comm, noisy, clustering_->public_centres(), clustering_->public_sizes(), sigma_,
                                                  setup_.options.clip_radius, &round.shrinkage);
    round.votes = secpe_votes(setup_.comm, estimate, pool.embeddings, setup_.kernel, setup_.options.metric, setup_.options.votes_per_centre);
    round.vote_seconds = timer.seconds();
    return round;
  }

  // Public work, published only when this rank held all of the label's public records (run_timings.hpp).
  nlohmann::ordered_json setup_timings() const override {
    return {{setup_.comm.size() == 1 ? "kmeans_seconds" : "kmeans_sharded_seconds", kmeans_seconds_}};
  }

 private:
  const LabelSetup setup_;  // the label's communicator, options, kernel, ledger
  std::unique_ptr<SecretClustering> clustering_;
  double sigma_, kmeans_seconds_;
  NoiseKey key_;  // the label's release key
};

class SecPEMethod : public Method {
 public:
  std::string name() const override { return "secpe"; }

  void settle_calibration(const std::optional<std::string>& given, RunOptions& options) const override {
    try {
      options.calibration = parse_calibration(given.value_or("exact"));
    } catch (const InputError& e) {
      throw InputError(std::string("--calibration: ") + e.what());
    }
  }

  double label_state_bytes(const RunOptions& options, int dim) const override { return 16.0 * dim * options.clusters; }

  // The public-profile calibration holds only if the data keep the user's caps: checked before any
  // work. The message gives no count (it would be a private statistic); calibration.json does not
  // exist yet, so the operator looks at the dataset (`secpe inspect`).
  void check_inputs(const Communicator& comm, const RunOptions& options, const Shard& shard) const override {
    if (options.calibration != CalibrationMode::kPublicProfile) return;
    if (options.max_holders_per_secret < 1) throw InputError("the public-profile calibration needs a cap on the holders per secret");
    if (max_holders_per_secret(comm, shard.secrets) > options.max_holders_per_secret) {
      throw InputError(options.data.string() + ": some secret is held by more than " + std::to_string(options.max_holders_per_secret) +
                       " records, the public cap on holders per secret: the public-profile calibration would not cover it. Raise the cap "
                       "(it is published) or use the exact calibration");
    }
  }

  void calibrate(const CalibrationInputs& in) override {
    const RunOptions& options = in.options;
    const Timer timer;
    log_info("calibrating noise (" + calibration_name(options.calibration) + ")");
    plan_ = calibrate_secret_noise(in.comm, {.local_secrets = in.shard.secrets,
                                             .local_labels = in.shard.labels,
                                             .num_labels = in.shard.num_labels(),
                                             .budgets = in.budgets,
                                             .iterations = options.iterations,
                                             .batch = options.private_batch,
                                             .mode = options.calibration,
                                             .profile = {.max_holders = options.max_holders_per_secret, .sampling_rate = options.sampling_rate},
                                             .threads = options.threads > 0 ? options.threads : default_threads()});
    if (in.comm.is_root()) write_calibration_inputs(options.state_dir, plan_, in.shard.info());
    // The same words whatever the data: whether a label's batch was lowered is private.
    log_info("noise calibrated in " + std::to_string(timer.seconds()) + " s; per-label inputs (private: private records, the batch "
             "actually used) in " + calibration_inputs_path(options.state_dir).string());
  }

  // The label's public clusters (k-means of its public rows) and its secret clustering.
  std::unique_ptr<LabelVoting> set_up_label(const LabelSetup& s, nlohmann::ordered_json& report) const override {
    const RunOptions& options = s.options;
    const Shard& shard = s.shard;
    const double sigma = plan_.labels[s.label].sigma;
    const Timer timer;
    KMeansOptions km{options.clusters, options.kmeans_iterations, options.kmeans_tolerance,
                     options.metric == Metric::kInnerProduct ? Metric::kL2 : options.metric, options.seed, s.label};
    km.threads = options.threads;
    km.init = options.kmeans_init;
    KMeansResult clusters = distributed_kmeans(s.comm, select_rows(shard.embeddings, shard.public_rows[s.label], options.threads), s.kernel, km);
    std::vector<std::uint64_t> ids;
    std::vector<double> rho;
    for (auto i : shard.private_rows[s.label]) {
      ids.push_back(shard.ids[i]);
      rho.push_back(plan_.rho[i]);
    }
    report["clusters"] = clusters.centres.rows();
    report["clip_radius"] = options.clip_radius;
    report["kmeans_iterations"] = clusters.iterations;
    const double kmeans_seconds = timer.seconds();
    auto clustering = std::make_unique<SecretClustering>(s.comm, std::move(clusters.centres), std::move(clusters.sizes),
                                                         select_rows(shard.embeddings, shard.private_rows[s.label], options.threads),
                                                         std::move(ids), std::move(rho), s.kernel, options.metric, options.clip_radius);
    // The public settings and sigma; the batch actually used, the LP and the private counts are the
    // calibration's private inputs (calibration.json in the state folder).
    report["public_centres_clipped"] = clustering->clipped_centres();
    report["sigma"] = sigma;
    report["private_batch_requested"] = plan_.labels[s.label].batch_requested;
    return std::make_unique<SecPEVoting>(s, std::move(clustering), sigma, kmeans_seconds);
  }

  void report(PrivacyReportInputs& report) const override { report.plan = &plan_; }
  RunSpend spend() const override { return plan_.spend; }
  std::vector<double> achieved_r() const override { return plan_.achieved_r; }

 private:
  SecretNoisePlan plan_;
};

}  // namespace

std::unique_ptr<Method> make_secpe_method() { return std::make_unique<SecPEMethod>(); }

}  // namespace secpe
