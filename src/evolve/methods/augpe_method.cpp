// Aug-PE, the baseline: every voting record of a label votes for its nearest candidate and the
// histogram is released with Gaussian noise calibrated for record-level GDP; what each secret
// really gets follows from how many of its holders vote.
#include "evolve/methods/method.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "evolve/release_keys.hpp"
#include "privacy/augpe_accounting.hpp"

namespace secpe {


namespace {

class AugPEVoting : public LabelVoting {
 public:
  AugPEVoting(const LabelSetup& setup, MatrixF voters, double sigma)
      : setup_(setup),
        sigma_(sigma),
        key_(augpe_label_key(setup.run_key, setup_.label)),
        voters_(std::move(voters)),
        kept_(setup_.kernel.keep(voters_)) {}

  VoteRound vote(const CandidatePool& pool, int iteration) override {
    const Timer timer;
    setup_.ledger.charge(setup_.label, iteration, {{"released", {"noisy vote histogram (" + std::to_string(pool.texts.size()) + " candidates)"}},
                                       {"sigma", sigma_}});
    VoteRound round;
    // The histogram's noise is indexed by candidate: its key binds this pool (release_keys.hpp).
    round.votes = augpe_votes(setup_.comm, *kept_, pool.embeddings, setup_.kernel, setup_.options.metric, sigma_, setup_.options.augpe_threshold,
                              candidates_key(key_, iteration, pool.texts, pool.embeddings), setup_.label, iteration);
    round.release_seconds = timer.seconds();  // every private voter's vote: all of Aug-PE's voting is private work
    return round;
  }

 private:
  const LabelSetup setup_;  // the label's communicator, options, kernel, ledger
  double sigma_;
  NoiseKey key_;  // the label's release key
  MatrixF voters_;
  std::unique_ptr<KeptRows> kept_;  // the voters where the kernel computes (a GPU's memory), for every iteration
};

class AugPEMethod : public Method {
 public:
  std::string name() const override { return "augpe"; }

  void settle_calibration(const std::optional<std::string>& given, RunOptions&) const override {
    if (given && *given != "gdp") throw InputError("--method augpe uses --calibration gdp (Aug-PE's record-level accounting)");
  }

  // Its votes cost M_l x N per label and split well by record.
  bool shards_by_record() const override { return true; }

  // Aug-PE protects records, not secrets: sigma from a record-level mu; then what each secret
  // really gets from its voting holders per label (an exact Gaussian shift).
  void calibrate(const CalibrationInputs& in) override {
    const RunOptions& o = in.options;
    const Shard& shard = in.shard;
    const std::size_t num_labels = shard.num_labels(), m = static_cast<std::size_t>(shard.info().num_secrets);
    calibration_ = calibrate_augpe(in.budgets, o.p, o.r, o.epsilon, in.delta, o.iterations);
    std::vector<std::int64_t> holders(num_labels * m, 0);
    for (std::size_t i = 0; i < shard.labels.size(); ++i)
      for (const auto j : shard.secrets.secrets_of(i)) ++holders[static_cast<std::size_t>(shard.labels[i]) * m + static_cast<std::size_t>(j)];
    in.comm.allreduce_sum(holders);  // every holder is private, so it votes under either voter set
    std::vector<std::int64_t> square_sums(m, 0);
    for (std::size_t l = 0; l < num_labels; ++l)
      for (std::size_t j = 0; j < m; ++j) square_sums[j] += holders[l * m + j] * holders[l * m + j];
    costs_ = augpe_secret_costs(square_sums, in.budgets, o.iterations, calibration_.sigma);
  }

  // The label's voters: its private records, and its public ones too with --augpe-voters all.
  std::unique_ptr<LabelVoting> set_up_label(const LabelSetup& s, nlohmann::ordered_json& report) const override {
    std::vector<std::size_t> rows = s.shard.private_rows[s.label];
    if (s.options.augpe_voters == AugPEVoters::kAll) {
      const auto& public_rows = s.shard.public_rows[s.label];
      rows.insert(rows.end(), public_rows.begin(), public_rows.end());
      std::sort(rows.begin(), rows.end());
    }
    auto voting = std::make_unique<AugPEVoting>(s, select_rows(s.shard.embeddings, rows, s.options.threads), calibration_.sigma);
    report["sigma"] = calibration_.sigma;
    report["threshold"] = s.options.augpe_threshold;
    report["voters"] = augpe_voters_name(s.options.augpe_voters);
    return voting;
  }

  void report(PrivacyReportInputs& report) const override {
    report.augpe = &calibration_;
    report.augpe_costs = &costs_;
  }

  RunSpend spend() const override {
    std::vector<double> mu;
    for (const AugPESecretCost& c : costs_) mu.push_back(c.mu);
    return gaussian_spend(mu);
  }

  std::vector<double> achieved_r() const override {
    std::vector<double> r;
    for (const AugPESecretCost& c : costs_) r.push_back(c.r);
    return r;
  }

 private:
  AugPECalibration calibration_;
  std::vector<AugPESecretCost> costs_;
};

}  // namespace

std::unique_ptr<Method> make_augpe_method() { return std::make_unique<AugPEMethod>(); }

}  // namespace secpe
