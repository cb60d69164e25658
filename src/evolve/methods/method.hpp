#pragma once
// A generation method as a strategy: how a run calibrates its noise, what each label sets up
// before its iterations, how each iteration's candidates get their released votes, and what the
// method adds to privacy.json. The run (evolve/pipeline.cpp) and the evolution loop
// (evolve/label_evolution.cpp) call only this interface; SecPE, Aug-PE and the no-private-data
// control are its implementations (secpe_method.cpp, augpe_method.cpp, control_method.cpp), and
// registry.cpp lists them by name. A new method is one new file and one line there
// (docs/architecture.md, "Where new things go").
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/nearest.hpp"
#include "core/secret_key.hpp"
#include "comms/communicator.hpp"
#include "evolve/candidates.hpp"
#include "evolve/release_estimate.hpp"
#include "evolve/run_options.hpp"
#include "evolve/shard.hpp"
#include "evolve/votes.hpp"
#include "privacy/budgets.hpp"
#include "privacy/ledger.hpp"
#include "privacy/report.hpp"
#include "privacy/run_composition.hpp"

namespace secpe {

// One iteration's votes and what they cost. A release is private work (it reads private
// records); voting against released values is public work: each clock is present only where its
// work was done (evolve/run_timings.hpp), so a method without a release reports no release time.
struct VoteRound {
  VoteResult votes;
  ReleaseShrinkage shrinkage;             // SecPE's post-processing of its release (zeros elsewhere)
  std::optional<double> vote_seconds;     // public work
  std::optional<double> release_seconds;  // private work
};

// A label's voting, set up once before its iterations (SecPE's public clusters and secret
// clustering, Aug-PE's voters) and asked for the votes of every iteration. It charges the run's
// ledger before any release.
class LabelVoting {
 public:
  virtual ~LabelVoting() = default;
  virtual VoteRound vote(const CandidatePool& pool, int iteration) = 0;
  // Timings of the set-up, added to the label's first metrics line; keys as in run_timings.hpp.
  virtual nlohmann::ordered_json setup_timings() const { return nlohmann::ordered_json::object(); }
};

// What a label's set-up may read. `comm` is the label's communicator: all ranks (sharded by
// record) or this rank alone (by label).
struct LabelSetup {
  const Communicator& comm;
  const RunOptions& options;
  const Shard& shard;
  const NearestCentreKernel& kernel;
  const NoiseKey& run_key;  // every label's release key derives from it (evolve/release_keys.hpp)
  PrivacyLedger& ledger;
  std::size_t label;
};

// What a calibration may read. Collective: every rank calls it with its own shard.
struct CalibrationInputs {
  const Communicator& comm;
  const RunOptions& options;
  const Shard& shard;
  const SecretBudgets& budgets;
  double delta;  // of the reported (eps, delta) equivalents; Aug-PE's mu may be taken from it
};

class Method {
 public:
  virtual ~Method() = default;
  virtual std::string name() const = 0;
  // --calibration: `given` or the method's default, checked and stored in `options`.
  virtual void settle_calibration(const std::optional<std::string>& given, RunOptions& options) const = 0;
  // Whether --shard-by auto splits records by range (votes that split well by record).
  virtual bool shards_by_record() const { return false; }
  // Memory a label holds beside its candidate pool, for the run's memory estimate.
  virtual double label_state_bytes(const RunOptions&, int /*dim*/) const { return 0.0; }
  // Checks of this rank's shard that can fail the run, before any secret is made. Collective.
  virtual void check_inputs(const Communicator&, const RunOptions&, const Shard&) const {}
  // Stage "calibrate": the noise of every release. Collective.
  virtual void calibrate(const CalibrationInputs&) {}
  // Stage "set up a label": its voting; adds the label's public settings to `report` (privacy.json).
  virtual std::unique_ptr<LabelVoting> set_up_label(const LabelSetup& setup, nlohmann::ordered_json& report) const = 0;
  // Stage "report": the method's part of privacy.json (its calibration and what each secret gets).
  virtual void report(PrivacyReportInputs&) const {}
  // After calibration, what the run releases about each secret: for composing it with the
  // dataset's other runs (privacy/run_composition.hpp), and per secret the bound on B_j(p_j) of
  // this run alone (privacy.json's r_achieved). Empty: nothing released (every r_j is p_j).
  virtual RunSpend spend() const { return {}; }
  virtual std::vector<double> achieved_r() const { return {}; }
};

// The registered methods (registry.cpp).
std::unique_ptr<Method> make_method(const std::string& name);  // InputError naming the methods for an unknown one
std::vector<std::string> method_names();

}  // namespace secpe
