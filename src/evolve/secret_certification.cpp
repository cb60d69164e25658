#include "evolve/secret_certification.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <utility>

#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/timer.hpp"
#include "privacy/holder_profiles.hpp"

namespace secpe {
namespace {

// Profiles per block of a pass: the unit of work sharing, of progress, and of dominance (a block
// is checked against the profiles certified in earlier blocks). Fixed, so that no result depends
// on the number of workers.
constexpr std::size_t kSecretsPerBlock = 128;
// Root searches that open the exact calibration (the most exposed secrets first).
constexpr std::size_t kProbes = 2;
// A bound from a lambda more than this (relative) below the final one is computed again there.
constexpr double kCloseEnough = 1e-4;
// Progress lines on rank 0, at most one per this many seconds (so passes shorter than this print
// none).
constexpr double kProgressSeconds = 5.0;
// Bulk: the grid of the ranking sweep (on the demo corpus' profiles 0.18 ms a bound, within 6% of
// the full-precision bound), and how many of its worst profiles are searched per worker.
constexpr double kRankSlack = 1.0;
constexpr std::size_t kRankSearchesPerWorker = 4;

// f(worker) for this rank's `threads` workers, one thread each; the first exception (an
// uncertifiable secret, say) is rethrown once all have finished.
template <typename F>
void for_each_worker(int threads, F&& f) {
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(threads));
  run_chunks(threads, static_cast<std::size_t>(threads), [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      try {
        f(t);
      } catch (...) {
        failed[t] = std::current_exception();
      }
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

// One profile's outcome in a pass, packed into a MinLoc for the reduction: the bound, and
// index = 4 * (dominance entry + 1) + source.
MinLoc pack(double bound, BoundSource source, std::int64_t entry = -1) {
  return {bound, 4 * (entry + 1) + static_cast<std::int64_t>(source)};
}
BoundSource source_of(const MinLoc& m) { return static_cast<BoundSource>(m.index % 4); }
std::int64_t entry_of(const MinLoc& m) { return m.index / 4 - 1; }

}  // namespace

// The accountant's workers: worker w = rank x threads + t of W = ranks x threads (every rank has
// the same thread count) takes entries w, w + W, ... of a list.
struct SecretCertifier::Workers {
  const Communicator& comm;
  std::size_t threads, first, count;

  Workers(const Communicator& c, int per_rank)
      : comm(c),
        threads(static_cast<std::size_t>(std::max(1, per_rank))),
        first(static_cast<std::size_t>(c.rank()) * threads),
        count(static_cast<std::size_t>(c.size()) * threads) {}

  // f(k, t) = {value, code} for k < n, each on its entry's worker (t: its thread on this rank);
  // every rank gets every result (exact: each comes from the one worker that computed it, the
  // others offer +infinity).
  template <typename F>
  std::vector<MinLoc> map_coded(std::size_t n, F&& f) const {
    std::vector<MinLoc> mine(n, MinLoc{std::numeric_limits<double>::infinity(), 0});
    for_each_worker(static_cast<int>(threads), [&](std::size_t t) {
      for (std::size_t k = first + t; k < n; k += count) mine[k] = f(k, t);
    });
    comm.allreduce_min_loc(mine);
    return mine;
  }
  template <typename F>
  std::vector<double> map(std::size_t n, F&& f) const {
    const auto coded = map_coded(n, [&](std::size_t k, std::size_t t) { return MinLoc{f(k, t), 0}; });
    std::vector<double> out(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = coded[k].value;
    return out;
  }
};

struct SecretCertifier::Impl {
  const SecretNoiseModel& model;
  const HolderProfiles& profiles;
  Workers workers;
  CertificationOptions options;
  bool bulk;                     // more profiles than options.exact_profiles
  AccountantOptions coarse;
  DominanceIndex index;           // bulk: the profiles certified so far
  std::vector<double> root;      // per profile: its root, NaN until searched
  // Per secret: the bound, the lambda it holds at, its source, its dominating profile or -1.
  std::vector<double> bound, at;
  std::vector<BoundSource> source;
  std::vector<std::int64_t> dominator;

  Impl(const SecretNoiseModel& m, const Communicator& comm, int threads, const CertificationOptions& o)
      : model(m),
        profiles(m.profiles()),
        workers(comm, threads),
        options(o),
        bulk(m.profiles().size() > o.exact_profiles),
        coarse{.slack_target = o.coarse_slack},
        index(m.profiles()),
        root(m.profiles().size(), std::numeric_limits<double>::quiet_NaN()),
        bound(m.num_secrets(), 0.0),
        at(m.num_secrets(), 0.0),
        source(m.num_secrets(), BoundSource::kAccountant),
        dominator(m.num_secrets(), -1) {}

  // The distinct profiles of `secrets`, in the order of their first secret.
  std::vector<std::size_t> distinct_profiles(const std::vector<std::size_t>& secrets) const {
    std::vector<char> seen(profiles.size(), 0);
    std::vector<std::size_t> out;
    for (const std::size_t j : secrets) {
      const std::size_t u = profiles.profile_of(j);
      if (!seen[u]) out.push_back(u);
      seen[u] = 1;
    }
    return out;
  }

  // Profile u's bound at lambda: its full-precision bound in the exact regime; in the bulk, a
  // certified dominator's, or the coarse grid's (at full precision when that is just over r).
  MinLoc evaluate(std::size_t u, double lambda, ReleaseMemo& memo) const {
    if (!bulk) return pack(model.profile_bound(u, lambda, {}, &memo), BoundSource::kAccountant);
    const std::int64_t e = index.best_dominator(u, lambda * (1.0 - kCloseEnough));
    if (e >= 0) return pack(index.entry_bound(static_cast<std::size_t>(e)), BoundSource::kDominated, e);
    const double r = profiles[u].r;
    const double rough = model.profile_bound(u, lambda, coarse, &memo);
    if (rough > r && rough <= r * (1.0 + options.confirm_band))
      return pack(model.profile_bound(u, lambda, {}, &memo), BoundSource::kAccountant);
    return pack(rough, BoundSource::kCoarseAccountant);
  }

  // The bound of every secret in `secrets` at lambda (see evaluate), block by block.
  void pass(const std::vector<std::size_t>& secrets, double lambda) {
    const std::vector<std::size_t> todo = distinct_profiles(secrets);
    std::vector<ReleaseMemo> memos(workers.threads);  // per thread: the releases met at this lambda
    std::vector<MinLoc> result(profiles.size());
    std::vector<double> result_at(profiles.size(), lambda);
    Progress progress("certify secrets", todo.size(), kProgressSeconds, /*percent=*/true);
    for (std::size_t b = 0; b < todo.size(); b += kSecretsPerBlock) {
      const std::size_t n = std::min(kSecretsPerBlock, todo.size() - b);
      const auto block = workers.map_coded(n, [&](std::size_t k, std::size_t t) { return evaluate(todo[b + k], lambda, memos[t]); });
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t u = todo[b + k];
        result[u] = block[k];
        const std::int64_t e = entry_of(block[k]);
        if (e >= 0) {
          result_at[u] = index.entry_at(static_cast<std::size_t>(e));
        } else if (bulk && block[k].value <= profiles[u].r) {
          index.add(u, block[k].value, lambda);
        }
      }
      if (b + n < todo.size()) progress.step(b + n);
    }
    if (progress.reported()) progress.finish();
    for (const std::size_t j : secrets) {
      const std::size_t u = profiles.profile_of(j);
      bound[j] = result[u].value;
      at[j] = result_at[u];
      source[j] = source_of(result[u]);
      const std::int64_t e = entry_of(result[u]);
      dominator[j] = e < 0 ? -1 : static_cast<std::int64_t>(index.entry_profile(static_cast<std::size_t>(e)));
    }
  }

  // The roots of `todo` (distinct profiles), searched where not known yet.
  void search(const std::vector<std::size_t>& todo) {
    std::vector<std::size_t> unknown;
    for (const std::size_t u : todo)
      if (std::isnan(root[u])) unknown.push_back(u);
    const auto found = workers.map(unknown.size(), [&](std::size_t k, std::size_t) { return model.lambda_of_profile(unknown[k]); });
    for (std::size_t k = 0; k < unknown.size(); ++k) root[unknown[k]] = found[k];
  }

  // The largest root of all profiles (when the probes need no noise at all).
  double largest_root() {
    std::vector<std::size_t> all(profiles.size());
    for (std::size_t u = 0; u < all.size(); ++u) all[u] = u;
    double largest = 0.0;
    Progress progress("certify secrets", all.size(), kProgressSeconds, /*percent=*/true);
    for (std::size_t b = 0; b < all.size(); b += kSecretsPerBlock) {
      const std::vector<std::size_t> block(all.begin() + static_cast<std::ptrdiff_t>(b),
                                           all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), b + kSecretsPerBlock)));
      search(block);
      for (const std::size_t u : block) largest = std::max(largest, root[u]);
      if (b + block.size() < all.size()) progress.step(b + block.size());
    }
    if (progress.reported()) progress.finish();
    return largest;
  }

  // The failed secrets of a pass, most over budget first (ties: pending order); `searched` gets
  // the first secret of each of the first `count` distinct profiles among them.
  std::vector<std::size_t> failures(const std::vector<std::size_t>& pending, std::size_t count,
                                    std::vector<std::size_t>& searched) const {
    std::vector<std::size_t> failed;
    for (const std::size_t j : pending)
      if (!(bound[j] <= profiles[profiles.profile_of(j)].r)) failed.push_back(j);
    std::vector<std::size_t> by_excess(failed);
    std::stable_sort(by_excess.begin(), by_excess.end(), [&](std::size_t a, std::size_t b) {
      return excess(a) > excess(b);
    });
    std::vector<char> taken(profiles.size(), 0);
    for (const std::size_t j : by_excess) {
      if (searched.size() == count) break;
      const std::size_t u = profiles.profile_of(j);
      if (!taken[u]) searched.push_back(j);
      taken[u] = 1;
    }
    return failed;
  }
  double excess(std::size_t j) const { return std::log(bound[j] / profiles[profiles.profile_of(j)].r); }

  // Bulk: every profile's bound at lambda on a very coarse grid, then a root search for the
  // `count` most over budget. Returns the largest of lambda and those roots: near the final lambda,
  // so that the first full pass fails few secrets (each failure costs a search, and a rise of lambda
  // a pass over the secrets certified below it).
  double rank_and_search(const std::vector<std::size_t>& order, double lambda, std::size_t count) {
    const std::vector<std::size_t> todo = distinct_profiles(order);
    const AccountantOptions rough{.slack_target = kRankSlack};
    std::vector<ReleaseMemo> memos(workers.threads);  // per thread: the releases met at this lambda
    std::vector<double> excess(todo.size());
    Progress progress("rank secrets", todo.size(), kProgressSeconds, /*percent=*/true);
    for (std::size_t b = 0; b < todo.size(); b += kSecretsPerBlock) {
      const std::size_t n = std::min(kSecretsPerBlock, todo.size() - b);
      const auto block = workers.map(n, [&](std::size_t k, std::size_t t) {
        const std::size_t u = todo[b + k];
        return std::log(model.profile_bound(u, lambda, rough, &memos[t]) / profiles[u].r);
      });
      std::copy(block.begin(), block.end(), excess.begin() + static_cast<std::ptrdiff_t>(b));
      if (b + n < todo.size()) progress.step(b + n);
    }
    if (progress.reported()) progress.finish();
    std::vector<std::size_t> by_excess(todo.size());
    for (std::size_t k = 0; k < todo.size(); ++k) by_excess[k] = k;
    std::stable_sort(by_excess.begin(), by_excess.end(), [&](std::size_t a, std::size_t b) { return excess[a] > excess[b]; });
    std::vector<std::size_t> worst;
    for (const std::size_t k : by_excess)
      if (worst.size() < count && excess[k] > 0) worst.push_back(todo[k]);
    search(worst);
    for (const std::size_t u : worst) lambda = std::max(lambda, root[u]);
    return lambda;
  }

  double certify();
  void refresh_stale(const std::vector<std::size_t>& order, double lambda);
};

// The search. The probes (the most exposed secrets' profiles) are searched first and lambda set
// to their largest root (in the bulk, then raised by rank_and_search); every secret's bound is then
// evaluated once at lambda. While some fail,
// the ones that fail by the most (one in the exact regime, one per worker in the bulk) are
// searched (each one's bound at its root is its certificate), lambda rises to the largest of
// those roots, and only the failed secrets are evaluated again. Then a secret whose bound holds at
// a lambda more than kCloseEnough below the final one is evaluated again at the final lambda; the
// others keep theirs: the noise of a larger lambda is that release plus independent noise, a
// post-processing, so the bound still holds, and it is within a few 1e-4 (relative) of the bound
// at the final lambda. Every decision depends on the data alone, never on the split over ranks and
// threads, so neither lambda nor any bound does. Returns lambda (0 when no secret needs noise).
double SecretCertifier::Impl::certify() {
  const std::size_t width = bulk ? std::max<std::size_t>(kProbes, workers.count) : 1;
  const auto order = model.secrets_by_exposure();
  const std::vector<std::size_t> probes(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                           bulk ? width : kProbes, order.size())));
  search(distinct_profiles(probes));
  double lambda = 0.0;
  for (const std::size_t j : probes) lambda = std::max(lambda, root[profiles.profile_of(j)]);
  if (!(lambda > 0)) return largest_root();
  if (bulk) lambda = rank_and_search(order, lambda, kRankSearchesPerWorker * workers.count);
  std::vector<std::size_t> pending = order;
  while (!pending.empty()) {
    pass(pending, lambda);
    std::vector<std::size_t> searched;
    std::vector<std::size_t> failed = failures(pending, width, searched);
    if (failed.empty()) break;
    const std::vector<std::size_t> todo = distinct_profiles(searched);
    search(todo);
    // A root of 0 (no noise needed at all, by the closed form) keeps the bound at lambda.
    const auto at_root = workers.map(searched.size(), [&](std::size_t k, std::size_t) {
      const std::size_t u = profiles.profile_of(searched[k]);
      return root[u] > 0 ? model.profile_bound(u, root[u]) : 0.0;
    });
    for (std::size_t k = 0; k < searched.size(); ++k) {
      const std::size_t j = searched[k], u = profiles.profile_of(j);
      if (root[u] > 0) {
        bound[j] = at_root[k];
        at[j] = root[u];
        source[j] = BoundSource::kAccountant;
        dominator[j] = -1;
      }
      lambda = std::max(lambda, root[u]);
      std::erase(failed, j);
    }
    pending = std::move(failed);
  }
  refresh_stale(order, lambda);
  return lambda;
}

void SecretCertifier::Impl::refresh_stale(const std::vector<std::size_t>& order, double lambda) {
  std::vector<std::size_t> stale;
  for (const std::size_t j : order)
    if (at[j] < lambda * (1.0 - kCloseEnough)) stale.push_back(j);
  if (!stale.empty()) pass(stale, lambda);
}

SecretCertifier::SecretCertifier(const SecretNoiseModel& model, const Communicator& comm, int threads,
                                 const CertificationOptions& options)
    : impl_(std::make_unique<Impl>(model, comm, threads, options)) {}
SecretCertifier::~SecretCertifier() = default;

double SecretCertifier::certify(SecretBounds& out) {
  const double lambda = impl_->certify();
  if (lambda > 0) out = {impl_->bound, impl_->source, secrets_of_dominators()};
  return lambda;
}

SecretBounds SecretCertifier::bounds_at(double lambda) {
  impl_->pass(impl_->model.secrets_by_exposure(), lambda);
  return {impl_->bound, impl_->source, secrets_of_dominators()};
}

std::vector<std::int64_t> SecretCertifier::secrets_of_dominators() const {
  std::vector<std::int64_t> out(impl_->dominator.size(), -1);
  for (std::size_t j = 0; j < out.size(); ++j)
    if (impl_->dominator[j] >= 0) out[j] = static_cast<std::int64_t>(impl_->profiles.representative(static_cast<std::size_t>(impl_->dominator[j])));
  return out;
}

}  // namespace secpe
