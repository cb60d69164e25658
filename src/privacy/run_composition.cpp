#include "privacy/run_composition.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "privacy/conversions.hpp"

namespace secpe {

std::int32_t SpendBuilder::add_list(std::span<const MixtureRelease> list) {
  std::vector<std::int32_t> indices;
  for (const MixtureRelease& r : list) {
    std::vector<std::uint64_t> bits{static_cast<std::uint64_t>(r.repetitions), std::bit_cast<std::uint64_t>(r.mean_step)};
    for (const double x : r.pi) bits.push_back(std::bit_cast<std::uint64_t>(x));
    const auto [it, fresh] = index_of_.try_emplace(std::move(bits), static_cast<std::int32_t>(spend_.releases.size()));
    if (fresh) spend_.releases.push_back(r);
    indices.push_back(it->second);
  }
  spend_.lists.push_back(std::move(indices));
  return static_cast<std::int32_t>(spend_.lists.size() - 1);
}

RunSpend gaussian_spend(std::span<const double> mu) {
  SpendBuilder builder;
  std::map<double, std::int32_t> index_of;  // one release list per distinct shift
  for (const double m : mu) {
    if (!(m > 0)) {
      builder.spend().profile_of.push_back(-1);
      continue;
    }
    auto [it, fresh] = index_of.try_emplace(m, 0);
    if (fresh) it->second = builder.add_list(std::vector<MixtureRelease>{MixtureRelease{{0.0, 1.0}, m, 1}});
    builder.spend().profile_of.push_back(it->second);
  }
  return std::move(builder.spend());
}

RunSpend uniform_spend(MixtureRelease release, std::size_t secrets) {
  return {.releases = {std::move(release)}, .lists = {{0}}, .profile_of = std::vector<std::int32_t>(secrets, 0), .public_only = true};
}

namespace {

// The other processes' shares of bound[which[...]] (process q bounds which[i] for i % parts == q):
// every process sends its first failing combination plus one (0: none), then its bounds. Returns
// the smallest failing combination plus one over all processes (0: none failed).
std::size_t gather_bounds(const CompositionOptions& options, const std::vector<std::size_t>& which, std::size_t failed_here,
                          std::vector<double>& bound) {
  const auto parts = static_cast<std::size_t>(options.parts);
  std::vector<double> local{static_cast<double>(failed_here)};
  for (std::size_t i = static_cast<std::size_t>(options.part); i < which.size(); i += parts) local.push_back(bound[which[i]]);
  const std::vector<double> all = options.gather(local);
  std::size_t failed = 0;
  for (std::size_t q = 0, at = 0; q < parts; ++q) {
    const auto f = static_cast<std::size_t>(all.at(at++));
    if (f > 0 && (failed == 0 || f < failed)) failed = f;
    for (std::size_t i = q; i < which.size(); i += parts) bound[which[i]] = all.at(at++);
  }
  return failed;
}

// The distinct (each run's release list, p) combinations: secrets alike share one bound.
using Combination = std::pair<std::vector<std::int32_t>, double>;
struct Combinations {
  std::map<Combination, std::size_t> index_of;
  std::vector<const Combination*> list;  // in order of first appearance
  std::vector<std::size_t> of_secret;    // per secret, its combination in `list`
};
Combinations distinct_combinations(std::span<const RunSpend> runs, std::span<const double> p) {
  Combinations out;
  out.of_secret.resize(p.size());
  for (std::size_t j = 0; j < p.size(); ++j) {
    Combination c{{}, p[j]};
    for (const RunSpend& run : runs) c.first.push_back(run.profile_of.empty() ? -1 : run.profile_of[j]);
    auto [it, fresh] = out.index_of.try_emplace(std::move(c), out.list.size());
    if (fresh) out.list.push_back(&it->first);
    out.of_secret[j] = it->second;
  }
  return out;
}

// Every run's releases numbered for the memos (SharedRelease::id): releases alike (the same step
// and PMF, whatever their repetitions) in several runs get one id. id[k][i] is run k's release i's.
std::vector<std::vector<std::size_t>> shared_ids(std::span<const RunSpend> runs) {
  std::map<std::vector<std::uint64_t>, std::size_t> id_of;  // a release's bits but its repetitions -> its id
  std::vector<std::vector<std::size_t>> id(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    for (const MixtureRelease& r : runs[k].releases) {
      std::vector<std::uint64_t> bits{std::bit_cast<std::uint64_t>(r.mean_step)};
      for (const double x : r.pi) bits.push_back(std::bit_cast<std::uint64_t>(x));
      id[k].push_back(id_of.try_emplace(std::move(bits), id_of.size()).first->second);
    }
  }
  return id;
}

// A combination's releases: each run's list in turn, a release alike (the same id) to an earlier
// run's merged into it (its repetitions summed). Merged only with earlier runs' releases: a run's
// own list stays as its calibration bounded it.
std::vector<SharedRelease> combined_releases(std::span<const RunSpend> runs, const std::vector<std::vector<std::size_t>>& ids,
                                             const Combination& c) {
  std::vector<SharedRelease> releases;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::int32_t list = c.first[k];
    if (list < 0) continue;
    const auto earlier = static_cast<std::ptrdiff_t>(releases.size());
    for (const std::int32_t i : runs[k].lists.at(static_cast<std::size_t>(list))) {
      const auto at = static_cast<std::size_t>(i);
      const MixtureRelease& r = runs[k].releases.at(at);
      const auto end = releases.begin() + earlier;
      const auto same = std::find_if(releases.begin(), end, [&](const SharedRelease& x) { return x.id == ids[k][at]; });
      if (same == end) releases.push_back({.id = ids[k][at], .release = &r, .repetitions = r.repetitions});
      else same->repetitions += r.repetitions;
    }
  }
  return releases;
}

constexpr AccountantOptions kCoarseGrid{.slack_target = kCoarseSlack, .grid_ladder = true};

// Per chunk of a pass, its thread's memo: combinations share their runs' releases, and on the
// coarse pass their discretisations per rung of the grid ladder. It starts again once it holds
// kCompositionMemoBytes.
using Memos = std::vector<ReleaseMemo>;
ReleaseMemo& memo_of(Memos& memos, int chunk) {
  ReleaseMemo& memo = memos[static_cast<std::size_t>(chunk)];
  if (memo.bytes() > kCompositionMemoBytes) memo = ReleaseMemo();
  return memo;
}

// On the coarse grid a process bounds its share `mine` in order of grid spacing (composed_grid),
// so that a thread's memo meets a release on a rung of the ladder while that rung's bounds run, not
// again after it has started again. The releases prepared to find the grids stay in the memos for
// the bounds. The bounds are the same bits in any order. (Each process keeps every parts-th
// combination: blocks of the order by grid, one to a process, left the processes' work unequal,
// and the rungs that each process meets are not what costs most.)
void order_by_grid(std::span<const RunSpend> runs, const std::vector<std::vector<std::size_t>>& ids,
                   const std::vector<const Combination*>& combinations, std::vector<std::size_t>& mine, Memos& memos) {
  std::vector<std::pair<double, std::size_t>> grid(mine.size());
  run_chunks(static_cast<int>(memos.size()), mine.size(), [&](int chunk, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Combination& c = *combinations[mine[i]];
      grid[i] = {0.0, mine[i]};
      try {
        grid[i].first = composed_grid(combined_releases(runs, ids, c), c.second, kCoarseGrid, memo_of(memos, chunk));
      } catch (...) {  // the bound fails alike, and reports it
      }
    }
  });
  std::sort(grid.begin(), grid.end());
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = grid[i].second;
}

}  // namespace

ComposedBounds compose_runs(std::span<const RunSpend> runs, std::span<const double> p, const CompositionOptions& options) {
  if (!(options.parts >= 1 && options.part >= 0 && options.part < options.parts && (options.parts == 1 || options.gather)))
    throw std::logic_error("compose_runs: part " + std::to_string(options.part) + " of " + std::to_string(options.parts) + " without a gather");
  for (const RunSpend& run : runs) {
    if (!run.profile_of.empty() && run.profile_of.size() != p.size()) {
      throw InputError("a recorded run covers " + std::to_string(run.profile_of.size()) + " secrets, the dataset " + std::to_string(p.size()));
    }
  }
  const Combinations distinct = distinct_combinations(runs, p);
  const std::vector<const Combination*>& combinations = distinct.list;
  const std::vector<std::size_t>& combination_of = distinct.of_secret;
  // bound[u] for every u in `which`, on the threads, each process its share.
  std::vector<double> bound(combinations.size());
  const std::size_t parts = static_cast<std::size_t>(options.parts), part = static_cast<std::size_t>(options.part);
  const std::vector<std::vector<std::size_t>> ids = shared_ids(runs);
  const auto bound_of = [&](std::size_t u, bool coarse, ReleaseMemo& memo) {
    const auto releases = combined_releases(runs, ids, *combinations[u]);
    const double alpha = combinations[u]->second;
    return releases.empty() ? alpha : blow_up_bound_shared(releases, alpha, coarse ? kCoarseGrid : AccountantOptions{}, memo).value;
  };
  const auto evaluate = [&](const std::vector<std::size_t>& which, bool coarse) {
    std::vector<std::size_t> mine;
    for (std::size_t i = part; i < which.size(); i += parts) mine.push_back(which[i]);
    Memos memos(static_cast<std::size_t>(chunk_count(options.threads, mine.size(), 1e6)));
    if (coarse) order_by_grid(runs, ids, combinations, mine, memos);
    std::vector<std::exception_ptr> failed(mine.size());
    const char* pass = coarse ? "coarse grid" : "full precision";
    std::atomic<std::size_t> done{0};  // of `mine`, by all threads
    run_chunks(static_cast<int>(memos.size()), mine.size(), [&](int chunk, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        try {
          bound[mine[i]] = bound_of(mine[i], coarse, memo_of(memos, chunk));
        } catch (...) {
          failed[i] = std::current_exception();
        }
        const std::size_t now = done.fetch_add(1) + 1;
        if (chunk == 0 && now < mine.size() && options.progress) options.progress(pass, now, mine.size());
      }
    });
    if (options.progress) options.progress(pass, mine.size(), mine.size());
    // The failing combination reported is the first in `which`, whatever the order they ran in.
    std::size_t first = mine.size();
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (failed[i] && (first == mine.size() || mine[i] < mine[first])) first = i;
    if (parts == 1) {
      if (first < mine.size()) std::rethrow_exception(failed[first]);
      return;
    }
    const std::size_t failed_here = first == mine.size() ? 0 : mine[first] + 1;
    // A failure anywhere fails every process with the same error: each bounds the first failing
    // combination itself (the accountant is deterministic), so every rank reports the real cause.
    if (const std::size_t u = gather_bounds(options, which, failed_here, bound); u > 0) {
      ReleaseMemo fresh;
      bound_of(u - 1, coarse, fresh);
      throw std::logic_error("compose_runs: combination " + std::to_string(u - 1) + " failed on one process only");
    }
  };
  std::vector<std::size_t> all(combinations.size());
  for (std::size_t u = 0; u < all.size(); ++u) all[u] = u;
  std::vector<bool> coarse(combinations.size(), false);
  if (options.exact_share > 0) {
    evaluate(all, true);
    double worst = 0.0;
    for (std::size_t u = 0; u < all.size(); ++u) worst = std::max(worst, bound[u] / combinations[u]->second);
    std::vector<bool> refine(combinations.size(), false);
    for (std::size_t u = 0; u < all.size(); ++u) refine[u] = bound[u] / combinations[u]->second >= options.exact_share * worst;
    for (std::size_t j = 0; j < p.size() && !options.exact_above.empty(); ++j)
      if (bound[combination_of[j]] > options.exact_above[j]) refine[combination_of[j]] = true;
    all.clear();
    for (std::size_t u = 0; u < refine.size(); ++u) {
      if (refine[u]) all.push_back(u);
      else coarse[u] = true;
    }
  }
  evaluate(all, false);
  ComposedBounds out{std::vector<double>(p.size()), std::vector<bool>(p.size())};
  for (std::size_t j = 0; j < p.size(); ++j) {
    out.r[j] = bound[combination_of[j]];
    out.coarse[j] = coarse[combination_of[j]];
  }
  return out;
}

double equal_run_r(double p, double total_r, int runs) {
  if (!(p > 0 && p < total_r && total_r < 1)) throw InputError("a plan needs 0 < p < total r < 1");
  if (runs < 1) throw InputError("a plan needs at least one run");
  return r_from_mu(p, mu_from_pr(p, total_r) / std::sqrt(double(runs)));
}

}  // namespace secpe
