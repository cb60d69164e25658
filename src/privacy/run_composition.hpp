#pragma once
// Composition across runs: every run on one dataset releases something about each secret, and the
// releases of all runs add up, as the iterations and labels of one run do. A run's spend is what it
// released per secret, in the accountant's own form (privacy/blow_up.hpp: per release a count PMF,
// a shift per unit count in units of the noise, and repetitions); the cumulative guarantee of
// several runs is the same accountant on every run's releases of the secret together, with the
// same pessimistic discretisation. Pure maths: where the spends are kept is evolve/dataset_ledger.hpp.
//
//   SecPE (exact, paper):  per label holding the secret, {its holders' count PMF, sqrt(2) / sigma_l, T}
//   SecPE (public profile): one release {Binomial(H, q), sqrt(2) / sigma, T} that dominates every
//                           secret (privacy/public_profile.hpp), so the cumulative figure stays public
//   Aug-PE:                 the Gaussian shift mu_j of the secret's holders {point mass at 1, mu_j, 1}
//   the control:            nothing
// Domination composes (a product of dominating pairs dominates the product), so a cumulative bound
// from dominating releases is as rigorous as each run's own.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include "privacy/blow_up.hpp"

namespace secpe {

struct RunSpend {
  // The run's distinct releases. Secrets' lists share them: on the demo corpus at Yelp scale its
  // 45,579 lists hold 323,324 releases, 5,149 distinct, so a spend is kept (and stored in the
  // ledger, and read back from it) about 13 times smaller than with every list's releases in full.
  std::vector<MixtureRelease> releases;
  // Distinct release lists, each one secret's releases in one run, as indices into `releases`.
  std::vector<std::vector<std::int32_t>> lists;
  // Per secret: its list in `lists`, or -1 when the run released nothing about it. Empty: the run
  // released nothing about any secret (the control).
  std::vector<std::int32_t> profile_of;
  // The lists depend on nothing private (the public profile's caps); a run that released nothing
  // is public too (is_public).
  bool public_only = false;
};
// Builds a spend's lists: each list's releases enter `releases` once, whatever the lists that
// share them (alike: the same repetitions and the same bits of step and PMF).
class SpendBuilder {
 public:
  // Appends a list (its releases in order) and returns its index in spend().lists.
  std::int32_t add_list(std::span<const MixtureRelease> list);
  RunSpend& spend() { return spend_; }

 private:
  std::map<std::vector<std::uint64_t>, std::int32_t> index_of_;  // a release's bits -> its index
  RunSpend spend_;
};
inline bool is_public(const RunSpend& spend) { return spend.public_only || spend.profile_of.empty(); }

// Aug-PE's spend from each secret's Gaussian shift (0: its holders cast no vote).
RunSpend gaussian_spend(std::span<const double> mu);
// The public profile's spend: the one dominating release for every one of `secrets`.
RunSpend uniform_spend(MixtureRelease release, std::size_t secrets);

struct CompositionOptions {
  int threads = 1;
  // 0: the accountant at full precision for every distinct combination. Otherwise every one first
  // on the coarse grid of kCoarseGrid (as rigorous, a little looser, several times faster), then at
  // full precision only those whose coarse r/p reaches this share of the largest (those that may be
  // the worst) and the secrets whose coarse bound is above their `exact_above` (a cap to check).
  double exact_share = 0.0;
  std::span<const double> exact_above;  // per secret, or empty
  // Several processes may share the work (a run's ranks): at full precision each evaluates the
  // distinct combinations i with i % parts == part; on the coarse grid each finds those ones' grids,
  // and then the combinations of a grid go to one process (a rung's discretisations are made once).
  // `gather` returns every process's values concatenated in process order (the caller's
  // communicator: this file knows no MPI). Every process gets every bound, the same bits as one
  // process alone; a failure on any fails them all with the same error.
  int part = 0, parts = 1;
  std::function<std::vector<double>(std::span<const double>)> gather;
  // Called on one thread as the combinations of this process's share are bounded, with the pass
  // ("coarse grid", then "full precision" where any bound is refined), how many of the share are
  // done and its size; only the last call of a pass has done == size. Every process has a like share,
  // so one process's progress is the whole composition's.
  std::function<void(const char* pass, std::size_t done, std::size_t size)> progress;
};
// The coarse pass's accountant: as rigorous as full precision, a little looser, several times faster.
// Its slack target is twice the calibration's bulk's (secret_certification.hpp), and its cut and
// window leave out 1e-4 and 1e-6 of alpha (AccountantOptions::cut_share, window_share; full
// precision 1e-7 and 1e-10: at most about 1e-4 relative on a bound), and it prepares releases with
// less precision (cut_tolerance 1e-4 and spread_points 64 against 1e-12 and 256: cuts on the safe
// side and a spread that only chooses the grid, so as rigorous; its share of the pass from 15 % to
// 5 %, the looseness below unchanged). Measured at Yelp scale with 10
// earlier runs at other noise, on every 97th secret against full precision (secpe bench privacy
// --ledger-check-every), its bounds are looser by 1.1 % (median), 1.7 % (90th percentile) and 3.8 %
// at most (with runs alike 1.1, 1.8 and 4.0 %), where a target of 1e-2 with the narrower tails gave 0.5, 0.8 and 1.9 % in about 45 %
// more time (docs/performance.md). Secrets near the worst or above a cap are refined at full
// precision (CompositionOptions::exact_share, exact_above): the worst figure (the looseness stays
// under kExactShareOfWorst's 5 %) and every refusal are full precision's. The pass puts it on the
// grid ladder (AccountantOptions::grid_ladder): combinations share their runs' releases, and on the
// ladder their grids too, and the pass bounds them in order of grid, so that a thread's ReleaseMemo
// discretises a release once per rung for every combination that meets it, and forgets a rung's
// discretisations once its bounds are done.
inline constexpr AccountantOptions kCoarseGrid{
    .slack_target = 2e-2, .cut_share = 1e-4, .window_share = 1e-6, .cut_tolerance = 1e-4, .spread_points = 64, .grid_ladder = true};
// A thread's memo starts again once it holds this much (ReleaseMemo::bytes), a cap it does not meet
// at Yelp scale: with 10 earlier runs at other noise, 2 processes each prepare about 54,000
// releases and hold one rung's discretisations at a time (each process's peak in that bench, the
// calibration's included, fell from 0.54 to 0.38 GB). The bounds are the same bits either way; a smaller memo finds
// fewer. The groups' transforms have a cap of their own, as large (privacy/blow_up.cpp).
inline constexpr std::size_t kCompositionMemoBytes = std::size_t{256} << 20;
// The share of the largest coarse r/p from which secpe run refines at full precision.
inline constexpr double kExactShareOfWorst = 0.95;

struct ComposedBounds {
  std::vector<double> r;      // per secret: an upper bound on B_j(p_j) for all runs together
  std::vector<bool> coarse;   // per secret: r is the coarse grid's, not the accountant's at full precision
};

// Per secret j: an upper bound on B_j(p_j) for all `runs` together (p_j itself when none released
// anything about it). Secrets whose releases are alike share one computation; the distinct ones are
// spread over the threads (and the processes); within one, releases alike in several runs (the
// same count PMF and step) are one release with their repetitions summed, which composes to the
// same. InputError when a run's spend covers another number of secrets than p.
ComposedBounds compose_runs(std::span<const RunSpend> runs, std::span<const double> p, const CompositionOptions& options);
// Every bound the accountant's at full precision.
inline std::vector<double> composed_bounds(std::span<const RunSpend> runs, std::span<const double> p, int threads) {
  return compose_runs(runs, p, {.threads = threads, .exact_share = 0.0, .exact_above = {}, .part = 0, .parts = 1, .gather = {}, .progress = {}}).r;
}

// A plan for K runs of equal budget within a total r at prior p: the r each may take so that K
// Gaussian mechanisms of that risk compose to the total exactly (mu_run = mu_total / sqrt(K)).
// SecPE's and Aug-PE's releases are not exactly Gaussian, so this is a guide: the ledger composes
// the real releases and refuses a run over the total. InputError unless 0 < p < total_r < 1 and K >= 1.
double equal_run_r(double p, double total_r, int runs);

}  // namespace secpe
