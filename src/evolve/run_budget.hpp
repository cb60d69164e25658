#pragma once
// A run's place in its dataset's privacy budget (docs/privacy.md, "Across runs"). Runs on one
// dataset compose: three runs at r/p 10 give a secret three independent noisy views of it. So every
// completed run is recorded in the dataset's ledger (evolve/dataset_ledger.hpp), and each run
// composes its own releases with those of every counted run recorded before it, secret by secret,
// with the exact accountant (privacy/run_composition.hpp). privacy.json reports both figures, and
// --total-r-over-p caps the cumulative one: checked before calibration against the runs so far and
// again, with this run's own releases, before its first release.
//
// Counted runs: every recorded run of the dataset but experiments (--experiment: outputs marked not
// for publication; listed, not counted). A repeat of a recorded run (the same key, inputs and nonce:
// the same release, which tells nothing new) is not recorded again and composes with the runs
// recorded before the original, so that it reproduces the original's outputs byte for byte. A
// refused, failed or stopped run records nothing, and a resumed one is recorded once, when its
// outputs are written.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "evolve/dataset_ledger.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/run_options.hpp"
#include "privacy/budgets.hpp"
#include "privacy/run_composition.hpp"

namespace secpe {

class RunBudget {
 public:
  // Rank 0 reads the ledger; InputError on every rank when it does not check. Collective.
  RunBudget(const Communicator& comm, const RunOptions& options, std::string dataset_digest);

  // Before calibration: InputError (every rank) when the counted runs alone already take some
  // secret beyond --total-r-over-p. Collective.
  void check_spent(const Communicator& comm, const SecretBudgets& budgets) const;
  // The run's release identity (a MAC of its digest under the noise key): a recorded run with the
  // same one is this run repeated, not counted again.
  void identify(std::string release) { release_ = std::move(release); }
  // After calibration, before any release: this run composed with the counted runs, per secret;
  // InputError when that exceeds --total-r-over-p (without --allow-over-budget). Collective.
  void compose(const Communicator& comm, const Method& method, const SecretBudgets& budgets);

  // Per secret: whether the cumulative bound is the coarse grid's (a little looser than the
  // accountant's at full precision; empty: none is).
  const std::vector<bool>& coarse() const { return coarse_; }
  // Per secret: the cumulative bound (set by compose), and privacy.json's "across_runs". A run whose
  // own figures are public (--calibration public-profile) publishes no cumulative figure that an
  // earlier run's private-dependent releases enter: null then.
  const std::vector<double>* published_cumulative_r() const { return withheld_ ? nullptr : &cumulative_r_; }
  const nlohmann::ordered_json& report() const { return report_; }

  // After the outputs are written (rank 0): records the run, with the releases compose composed.
  void record(const Method& method, const SecretBudgets& budgets);

 private:
  // The dataset's runs recorded before this one: all of them, or for a repeat of a recorded run
  // (the same release) those before its first record, so that the repeat reproduces its report.
  std::span<const LedgerEntry> earlier() const;
  std::vector<const LedgerEntry*> counted() const;  // earlier() but experiments
  // Rank 0's spends composed per secret by all ranks together (each a share of the distinct
  // combinations); every rank gets the bounds, the same bits at any rank count. Empty when rank 0
  // gave none. Collective.
  ComposedBounds composed(const Communicator& comm, std::vector<RunSpend> spends, const SecretBudgets& budgets) const;
  // Secret j's cap on its cumulative r (infinite: none); `own`: it is the budgets file's total_r.
  double cap_of(std::size_t j, const SecretBudgets& budgets, bool* own) const;
  nlohmann::ordered_json describe(double worst, const SecretBudgets& budgets) const;  // privacy.json's "across_runs"
  // A cap applies: --total-r-over-p or per-secret totals, and the run is counted (no experiment).
  bool capped(const SecretBudgets& budgets) const;
  // The secret furthest over its cap (at it, with at_cap), in words; none when every one is within.
  std::optional<std::string> worst_over_cap(const std::vector<double>& r, const SecretBudgets& budgets, bool at_cap) const;
  nlohmann::ordered_json report_;        // privacy.json's "across_runs", the same on every rank

  const RunOptions& options_;
  std::string dataset_, release_;
  std::optional<DatasetLedger> ledger_;  // rank 0
  std::vector<LedgerEntry> runs_;        // rank 0: the dataset's recorded runs when the run began
  std::vector<double> cumulative_r_;
  RunSpend own_spend_;                   // rank 0: this run's releases (set by compose, recorded)
  double own_worst_ = 0.0;               // this run's worst r_j / p_j alone
  bool withheld_ = false;
  std::vector<bool> coarse_;
};

// The worst r_j / p_j of per-secret bounds (1 for none: nothing released).
double worst_r_over_p(const std::vector<double>& r, const SecretBudgets& budgets);

// Runs composed per secret as a run's ledger composes them: the bulk on the coarse grid, full
// precision near the worst and wherever a bound exceeds its cap (`caps`: per secret, or empty),
// every rank a share of the distinct combinations on its threads; every rank gets every bound, the
// same bits at any rank count. Every rank passes the same runs. Collective.
ComposedBounds compose_on_ranks(const Communicator& comm, std::span<const RunSpend> runs, std::span<const double> p, int threads,
                                std::span<const double> caps);

}  // namespace secpe
