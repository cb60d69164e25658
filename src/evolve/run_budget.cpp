#include "evolve/run_budget.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"

namespace secpe {
namespace {

constexpr double kNoCap = std::numeric_limits<double>::infinity();
// Seconds between progress lines of a long composition (as the calibration's).
constexpr double kCompositionProgressSeconds = 5.0;

// Runs a step on rank 0 (which alone holds the ledger) and throws what it threw on every rank, so
// that no rank waits for one that has left: an InputError as one, anything else as internal.
template <typename F>
void on_root(const Communicator& comm, F&& step) {
  std::string failed;
  std::int64_t input_error = 0;
  if (comm.is_root()) {
    try {
      step();
    } catch (const InputError& e) {
      failed = e.what();
      input_error = 1;
    } catch (const std::exception& e) {
      failed = std::string("the privacy ledger: ") + e.what();
    }
  }
  comm.broadcast(failed);
  comm.broadcast(std::span<std::int64_t>(&input_error, 1));
  if (failed.empty()) return;
  if (input_error) throw InputError(failed);
  throw std::runtime_error(failed);
}

// Rank 0's spends on every rank, so that all ranks share the composition: flattened into integers
// (per spend: public_only, its releases and per release its repetitions and PMF length, its lists
// and per list its length and indices, then profile_of's length and entries) and reals (per
// release its step and PMF).
void share_spends(const Communicator& comm, std::vector<RunSpend>& spends) {
  if (comm.size() == 1) return;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  if (comm.is_root()) {
    ints.push_back(static_cast<std::int64_t>(spends.size()));
    for (const RunSpend& s : spends) {
      ints.insert(ints.end(), {s.public_only ? 1 : 0, static_cast<std::int64_t>(s.releases.size())});
      for (const MixtureRelease& r : s.releases) {
        ints.insert(ints.end(), {r.repetitions, static_cast<std::int64_t>(r.pi.size())});
        reals.push_back(r.mean_step);
        reals.insert(reals.end(), r.pi.begin(), r.pi.end());
      }
      ints.push_back(static_cast<std::int64_t>(s.lists.size()));
      for (const auto& list : s.lists) {
        ints.push_back(static_cast<std::int64_t>(list.size()));
        ints.insert(ints.end(), list.begin(), list.end());
      }
      ints.push_back(static_cast<std::int64_t>(s.profile_of.size()));
      ints.insert(ints.end(), s.profile_of.begin(), s.profile_of.end());
    }
  }
  std::int64_t sizes[2] = {static_cast<std::int64_t>(ints.size()), static_cast<std::int64_t>(reals.size())};
  comm.broadcast(std::span<std::int64_t>(sizes));
  ints.resize(static_cast<std::size_t>(sizes[0]));
  reals.resize(static_cast<std::size_t>(sizes[1]));
  comm.broadcast(std::span<std::int64_t>(ints));
  comm.broadcast(std::span<double>(reals));
  if (comm.is_root()) return;
  auto i = ints.begin();
  auto x = reals.begin();
  const auto take = [&i](std::vector<std::int32_t>& out) {
    const auto length = static_cast<std::ptrdiff_t>(*i++);
    out.assign(i, i + length);
    i += length;
  };
  spends.assign(static_cast<std::size_t>(*i++), RunSpend{});
  for (RunSpend& s : spends) {
    s.public_only = *i++ != 0;
    s.releases.resize(static_cast<std::size_t>(*i++));
    for (MixtureRelease& r : s.releases) {
      r.repetitions = static_cast<int>(*i++);
      const auto length = static_cast<std::ptrdiff_t>(*i++);
      r.mean_step = *x++;
      r.pi.assign(x, x + length);
      x += length;
    }
    s.lists.resize(static_cast<std::size_t>(*i++));
    for (auto& list : s.lists) take(list);
    take(s.profile_of);
  }
}

std::string figure(double value) {
  std::ostringstream o;
  o.precision(4);
  o << value;
  return o.str();
}

}  // namespace

ComposedBounds compose_on_ranks(const Communicator& comm, std::span<const RunSpend> runs, std::span<const double> p, int threads,
                                std::span<const double> caps) {
  // One progress line every few seconds on rank 0, per pass: at Yelp scale, runs that differ (a
  // grid of budgets) take minutes to compose (docs/privacy.md, "Speed").
  std::optional<Progress> progress;
  std::string pass_shown;
  const auto show = [&](const char* pass, std::size_t done, std::size_t total) {
    if (pass != pass_shown) {
      progress.emplace(std::string("compose runs, ") + pass, total, kCompositionProgressSeconds, /*percent=*/true);
      pass_shown = pass;
    }
    if (done < total) progress->step(done);
    else if (progress->reported()) progress->finish();
  };
  return compose_runs(runs, p,
                      {.threads = threads,
                       .exact_share = kExactShareOfWorst,
                       .exact_above = caps,
                       .part = comm.rank(),
                       .parts = comm.size(),
                       .gather = [&comm](std::span<const double> local) { return comm.allgather(local); },
                       .progress = show});
}

double worst_r_over_p(const std::vector<double>& r, const SecretBudgets& budgets) {
  double worst = 1.0;
  for (std::size_t j = 0; j < r.size(); ++j) worst = std::max(worst, r[j] / budgets.p[j]);
  return worst;
}

RunBudget::RunBudget(const Communicator& comm, const RunOptions& options, std::string dataset_digest)
    : options_(options), dataset_(std::move(dataset_digest)) {
  on_root(comm, [&] {
    // A ledger folder the run could not record in (open to others, another user's) refuses the
    // run now, before its work, not when its outputs are written.
    ensure_private_folder(options.ledger_dir, "privacy ledger folder");
    ledger_.emplace(options.ledger_dir);
    runs_ = ledger_->runs_of(dataset_);
  });
}

std::span<const LedgerEntry> RunBudget::earlier() const {
  const auto same = std::find_if(runs_.begin(), runs_.end(), [&](const LedgerEntry& e) { return e.release == release_; });
  return {runs_.begin(), same};
}

std::vector<const LedgerEntry*> RunBudget::counted() const {
  std::vector<const LedgerEntry*> out;
  for (const LedgerEntry& e : earlier())
    if (!e.experiment) out.push_back(&e);
  return out;
}

double RunBudget::cap_of(std::size_t j, const SecretBudgets& budgets, bool* own) const {
  const double uniform = options_.total_r_over_p > 0 ? options_.total_r_over_p * budgets.p[j] : kNoCap;
  const double file = !budgets.total_r.empty() && budgets.total_r[j] > 0 ? budgets.total_r[j] : kNoCap;
  if (own) *own = file < uniform;
  return std::min(uniform, file);
}

ComposedBounds RunBudget::composed(const Communicator& comm, std::vector<RunSpend> spends, const SecretBudgets& budgets) const {
  share_spends(comm, spends);
  if (spends.empty()) return {};
  std::vector<double> caps;
  if (capped(budgets))
    for (std::size_t j = 0; j < budgets.p.size(); ++j) caps.push_back(cap_of(j, budgets, nullptr));
  try {  // every rank sees the same spends, and a failure on one fails all with the same error (compose_runs)
    return compose_on_ranks(comm, spends, budgets.p, options_.threads > 0 ? options_.threads : default_threads(), caps);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the privacy ledger: ") + e.what());
  }
}

std::optional<std::string> RunBudget::worst_over_cap(const std::vector<double>& r, const SecretBudgets& budgets, bool at_cap) const {
  std::optional<std::string> worst;
  double worst_ratio = 0.0;
  for (std::size_t j = 0; j < r.size(); ++j) {
    bool own = false;
    const double cap = cap_of(j, budgets, &own);
    const double ratio = r[j] / cap;
    if ((at_cap ? ratio >= 1.0 : ratio > 1.0) && ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = "secret #" + std::to_string(j) + " at r/p " + figure(r[j] / budgets.p[j]) + " where " +
              (own ? "its total_r in the budgets file" : "--total-r-over-p") + " allows " + figure(cap / budgets.p[j]);
    }
  }
  return worst;
}

bool RunBudget::capped(const SecretBudgets& budgets) const {
  return !options_.experiment && (options_.total_r_over_p > 0 || !budgets.total_r.empty());
}

void RunBudget::check_spent(const Communicator& comm, const SecretBudgets& budgets) const {
  if (!capped(budgets)) return;
  std::vector<RunSpend> spends;  // rank 0's
  if (comm.is_root())
    for (const LedgerEntry* e : counted()) spends.push_back(e->spend);
  const std::size_t runs = spends.size();
  const ComposedBounds spent = composed(comm, std::move(spends), budgets);
  on_root(comm, [&] {
    if (spent.r.empty()) return;
    const auto over = worst_over_cap(spent.r, budgets, true);
    if (!over) return;
    const std::string what = "the total budget: after the " + std::to_string(runs) + " run(s) on this dataset recorded in the "
                             "privacy ledger (" + options_.ledger_dir.string() + ") nothing is left for another run (" +
                             *over + ")";
    if (!options_.allow_over_budget) throw InputError(what + "; secpe ledger lists them, --allow-over-budget runs anyway");
    log_warn(what + " (going ahead: --allow-over-budget)");
  });
}

nlohmann::ordered_json RunBudget::describe(double worst, const SecretBudgets& budgets) const {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  std::size_t experiments = 0;
  for (const LedgerEntry& e : earlier()) {
    if (e.experiment) ++experiments;
    else if (withheld_) runs.push_back({{"noise_nonce", e.nonce}, {"method", e.method}});
    else runs.push_back({{"noise_nonce", e.nonce}, {"method", e.method}, {"r_over_p", e.r_over_p}});
  }
  nlohmann::ordered_json out = {
      {"what", "every secret's r_cumulative composes this run's releases with those of every earlier counted run on the same dataset (the "
               "same data, by content) in its privacy ledger, with the exact accountant, as iterations and labels compose within a run"},
      {"this_run", options_.experiment ? "an experiment (--experiment): NOT FOR PUBLICATION, and not counted in later runs' figures"
                                       : "counted: recorded in the ledger once its outputs are written"},
      {"earlier_counted_runs", runs},
      {"experiments_not_counted", experiments},
      {"total_r_over_p", capped(budgets) && options_.total_r_over_p > 0 ? nlohmann::ordered_json(options_.total_r_over_p) : nlohmann::ordered_json(nullptr)},
      {"per_secret_totals", capped(budgets) && !budgets.total_r.empty() ? "the budgets file's total_r column" : nlohmann::ordered_json(nullptr)}};
  if (withheld_) {
    out["withheld"] = "earlier runs' releases were calibrated from the private records, so the cumulative figures depend on them: under "
                      "--calibration public-profile they stay in the ledger (secpe ledger); the run enforced --total-r-over-p with them";
  } else {
    out["worst_r_cumulative_over_p"] = worst;
    if (std::find(coarse_.begin(), coarse_.end(), true) != coarse_.end()) {
      out["bounds"] = "r_cumulative is the exact accountant's at full precision for the secrets that may be the worst (on a coarser "
                      "loss grid they come within 5 % of the largest r/p) and wherever a cap was checked; for the others "
                      "(r_cumulative_bound: coarse-accountant) it is the same accountant's on the coarser grid: as rigorous, and looser by about "
                      "1 % (at Yelp scale 1.1 % in the median, 4 % at most: docs/privacy.md)";
    }
    out["all_secrets_within_total"] = !capped(budgets) || !worst_over_cap(cumulative_r_, budgets, false);
  }
  return out;
}

void RunBudget::compose(const Communicator& comm, const Method& method, const SecretBudgets& budgets) {
  const Timer timer;
  std::vector<RunSpend> spends;  // rank 0's: of the earlier runs that released anything, then this run's
  if (comm.is_root()) {
    own_spend_ = method.spend();
    for (const LedgerEntry* e : counted())
      if (!e->spend.profile_of.empty()) spends.push_back(e->spend);
    if (!spends.empty()) spends.push_back(own_spend_);
  }
  const ComposedBounds all = composed(comm, std::move(spends), budgets);  // empty: no earlier run released anything
  std::string report_text;
  on_root(comm, [&] {
    const std::vector<const LedgerEntry*> earlier = counted();
    std::vector<double> own = method.achieved_r();
    if (own.empty()) own = budgets.p;
    own_worst_ = worst_r_over_p(own, budgets);
    cumulative_r_ = own;
    if (!all.r.empty()) {
      // Both are upper bounds; the larger keeps the cumulative figure at least this run's own.
      for (std::size_t j = 0; j < all.r.size(); ++j) cumulative_r_[j] = std::max(all.r[j], own[j]);
      coarse_ = all.coarse;
    }
    const double worst = worst_r_over_p(cumulative_r_, budgets);
    if (const auto over = capped(budgets) ? worst_over_cap(cumulative_r_, budgets, false) : std::nullopt) {
      const std::string what = "the total budget: this run (worst r/p " + figure(own_worst_) + " alone) with the " + std::to_string(earlier.size()) +
                               " earlier run(s) on this dataset in the privacy ledger (" + options_.ledger_dir.string() + ") would leave " + *over;
      if (!options_.allow_over_budget) {
        throw InputError(what + "; nothing was released. Give this run a smaller --r-over-p (secpe privacy plan --runs K "
                         "--total-r-over-p R says what each of K runs may take), or --allow-over-budget to run anyway");
      }
      log_warn(what + " (going ahead: --allow-over-budget)");
    }
    // Under the public profile nothing published may depend on private records: a cumulative
    // figure that an earlier run's private-dependent releases enter is kept to the ledger.
    withheld_ = is_public(own_spend_) && std::any_of(earlier.begin(), earlier.end(), [](const LedgerEntry* e) { return !is_public(e->spend); });
    report_ = describe(worst, budgets);
    report_text = report_.dump();
    log_info("privacy across runs: " + std::to_string(earlier.size()) + " earlier counted run(s) of this dataset; worst r/p " +
             figure(own_worst_) + " for this run alone, " + figure(worst) + " with them (" + std::to_string(timer.seconds()) + " s)");
  });
  comm.broadcast(report_text);
  report_ = nlohmann::ordered_json::parse(report_text);
  cumulative_r_.resize(budgets.p.size());
  comm.broadcast(std::span<double>(cumulative_r_));
  std::int64_t withheld = withheld_ ? 1 : 0;
  comm.broadcast(std::span<std::int64_t>(&withheld, 1));
  withheld_ = withheld != 0;
  std::vector<unsigned char> coarse(budgets.p.size(), 0);
  for (std::size_t j = 0; j < coarse_.size(); ++j) coarse[j] = coarse_[j] ? 1 : 0;
  comm.broadcast(std::span<unsigned char>(coarse));
  coarse_.assign(coarse.begin(), coarse.end());
}

void RunBudget::record(const Method& method, const SecretBudgets& budgets) {
  const LedgerEntry entry{.dataset = dataset_, .release = release_, .nonce = options_.noise_nonce.hex(), .method = method.name(), .recorded_utc = "",
                          .experiment = options_.experiment, .iterations = options_.iterations, .r_over_p = own_worst_,
                          .cumulative_r_over_p = worst_r_over_p(cumulative_r_, budgets), .spend = own_spend_};
  const bool added = ledger_->record(entry);
  log_info(added ? "recorded in the privacy ledger " + options_.ledger_dir.string() + (options_.experiment ? " (an experiment: not counted)" : "")
                 : "the privacy ledger " + options_.ledger_dir.string() + " holds this very release already: not counted again");
}

}  // namespace secpe
