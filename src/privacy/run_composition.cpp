#include "privacy/run_composition.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
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

// The other processes' shares of bound[which[...]] (process owner[i] bounds which[i]): every process
// sends its first failing combination plus one (0: none), then its bounds. Returns the smallest
// failing combination plus one over all processes (0: none failed).
std::size_t gather_bounds(const CompositionOptions& options, const std::vector<std::size_t>& which, const std::vector<int>& owner,
                          std::size_t failed_here, std::vector<double>& bound) {
  std::vector<double> local{static_cast<double>(failed_here)};
  for (std::size_t i = 0; i < which.size(); ++i)
    if (owner[i] == options.part) local.push_back(bound[which[i]]);
  const std::vector<double> all = options.gather(local);
  std::size_t failed = 0;
  for (int q = 0, at = 0; q < options.parts; ++q) {
    const auto f = static_cast<std::size_t>(all.at(at++));
    if (f > 0 && (failed == 0 || f < failed)) failed = f;
    for (std::size_t i = 0; i < which.size(); ++i)
      if (owner[i] == q) bound[which[i]] = all.at(at++);
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

// A thread's state in a pass: its memo (combinations share their runs' releases, and on the
// coarse pass their discretisations per rung of the grid ladder), and combined_releases' index of
// the list it builds (seen[id] == stamp: the release of that id sits at at[id]).
struct Worker {
  ReleaseMemo memo;
  std::vector<std::uint32_t> seen, at;
  std::uint32_t stamp = 0;
};
using Workers = std::vector<Worker>;

// A combination's releases: each run's list in turn, a release alike (the same id) to an earlier
// run's merged into it (its repetitions summed; into the first, if an earlier run's list holds two).
// Merged only with earlier runs' releases: a run's own list stays as its calibration bounded it.
std::vector<SharedRelease> combined_releases(std::span<const RunSpend> runs, const std::vector<std::vector<std::size_t>>& ids,
                                             const Combination& c, Worker& worker) {
  if (++worker.stamp == 0) {  // wrapped: every stamp is stale
    std::fill(worker.seen.begin(), worker.seen.end(), 0);
    worker.stamp = 1;
  }
  std::vector<SharedRelease> releases;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::int32_t list = c.first[k];
    if (list < 0) continue;
    const std::size_t earlier = releases.size();
    for (const std::int32_t i : runs[k].lists.at(static_cast<std::size_t>(list))) {
      const auto at = static_cast<std::size_t>(i);
      const MixtureRelease& r = runs[k].releases.at(at);
      const std::size_t id = ids[k][at];
      if (id < worker.seen.size() && worker.seen[id] == worker.stamp) releases[worker.at[id]].repetitions += r.repetitions;
      else releases.push_back({.id = id, .release = &r, .repetitions = r.repetitions});
    }
    for (std::size_t m = earlier; m < releases.size(); ++m) {  // this run's, found by the next runs'
      const std::size_t id = releases[m].id;
      if (id >= worker.seen.size()) {
        worker.seen.resize(id + 1, 0);
        worker.at.resize(id + 1);
      }
      if (worker.seen[id] == worker.stamp) continue;
      worker.seen[id] = worker.stamp;
      worker.at[id] = static_cast<std::uint32_t>(m);
    }
  }
  return releases;
}

// Chunk `chunk`'s worker, its memo started again once it holds kCompositionMemoBytes.
Worker& worker_of(Workers& workers, int chunk) {
  Worker& worker = workers[static_cast<std::size_t>(chunk)];
  if (worker.memo.bytes() > kCompositionMemoBytes) worker.memo = ReleaseMemo();
  return worker;
}

// The grid spacing (composed_grid) of each combination of `mine`, 0 where it fails (its bound then
// fails alike, and reports it). The releases prepared to find them stay in the memos for the bounds.
std::vector<double> grids_of(std::span<const RunSpend> runs, const std::vector<std::vector<std::size_t>>& ids,
                             const std::vector<const Combination*>& combinations, const std::vector<std::size_t>& mine, Workers& workers) {
  std::vector<double> grid(mine.size(), 0.0);
  run_chunks(static_cast<int>(workers.size()), mine.size(), [&](int chunk, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Combination& c = *combinations[mine[i]];
      Worker& worker = worker_of(workers, chunk);
      try {
        grid[i] = composed_grid(combined_releases(runs, ids, c, worker), c.second, kCoarseGrid, worker.memo);
      } catch (...) {  // the bound fails alike, and reports it
      }
    }
  });
  return grid;
}

// The coarse pass's share of each process (owner[i] bounds which[i]), from every combination's grid:
// combinations on one grid (a rung of the ladder) go to one process, so that a release's
// discretisation on a rung is made by one process, not by each that meets it. At Yelp scale with 10
// earlier runs at other noise, each of 2 processes then makes about half of what one process alone
// makes (70,600 and 75,300 of 145,900), against 71 % when every other combination went to each. Rungs
// go to the least loaded process, heaviest first (load: a combination's releases); a rung heavier
// than half a process's share is split first, in combination order, into pieces no heavier.
std::vector<int> owners_by_grid(const std::vector<double>& grid, const std::vector<std::size_t>& load, int parts) {
  std::size_t total = 0;
  for (const std::size_t l : load) total += l;
  const std::size_t cap = std::max<std::size_t>(1, total / (2 * static_cast<std::size_t>(parts)));
  std::map<double, std::vector<std::size_t>> rungs;  // grid -> its combinations, in order
  for (std::size_t i = 0; i < grid.size(); ++i) rungs[grid[i]].push_back(i);
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> pieces;  // (load, combinations)
  for (const auto& [h, members] : rungs) {
    std::size_t rung_load = 0;
    for (const std::size_t i : members) rung_load += load[i];
    const std::size_t piece_load = rung_load / std::max<std::size_t>(1, (rung_load + cap - 1) / cap) + 1;
    pieces.emplace_back();
    for (const std::size_t i : members) {
      if (pieces.back().first >= piece_load) pieces.emplace_back();
      pieces.back().first += load[i];
      pieces.back().second.push_back(i);
    }
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::size_t> held(static_cast<std::size_t>(parts), 0);
  std::vector<int> owner(grid.size(), 0);
  for (const auto& [piece_load, members] : pieces) {
    const auto q = static_cast<std::size_t>(std::min_element(held.begin(), held.end()) - held.begin());
    held[q] += piece_load;
    for (const std::size_t i : members) owner[i] = static_cast<int>(q);
  }
  return owner;
}

// A process's share of a pass: the combinations it bounds, in order, and which process bounds each
// of the pass's (owner, by position).
struct Share {
  std::vector<std::size_t> mine;
  std::vector<double> grid;  // on the coarse grid: mine[i]'s, ascending
  std::vector<int> owner;
};

// Every parts-th combination of `which`.
Share round_robin(const std::vector<std::size_t>& which, const CompositionOptions& options) {
  Share share;
  for (std::size_t i = 0; i < which.size(); ++i) {
    share.owner.push_back(static_cast<int>(i % static_cast<std::size_t>(options.parts)));
    if (share.owner.back() == options.part) share.mine.push_back(which[i]);
  }
  return share;
}

// The coarse pass's share: each process finds the grids of every parts-th combination, and with
// several processes they share them (gather) and the combinations go to processes by grid
// (owners_by_grid). A process bounds its own in order of grid, so that a thread's memo meets a
// release on a rung of the ladder while that rung's bounds run (and forgets the rung's entries
// after them, keeping the prepared releases). The bounds are the same bits in any order and share.
Share coarse_share(std::span<const RunSpend> runs, const std::vector<std::vector<std::size_t>>& ids,
                   const std::vector<const Combination*>& combinations, const std::vector<std::size_t>& which,
                   const CompositionOptions& options, Workers& workers) {
  Share share = round_robin(which, options);
  share.grid = grids_of(runs, ids, combinations, share.mine, workers);
  if (options.parts > 1) {
    const std::vector<double> all = options.gather(share.grid);
    std::vector<double> grid(which.size());
    std::vector<std::size_t> load(which.size(), 0);  // a combination's releases in all runs
    for (std::size_t q = 0, at = 0; q < static_cast<std::size_t>(options.parts); ++q)
      for (std::size_t i = q; i < which.size(); i += static_cast<std::size_t>(options.parts)) grid[i] = all.at(at++);
    for (std::size_t i = 0; i < which.size(); ++i)
      for (std::size_t k = 0; k < runs.size(); ++k)
        if (const std::int32_t list = combinations[which[i]]->first[k]; list >= 0) load[i] += runs[k].lists.at(static_cast<std::size_t>(list)).size();
    share.owner = owners_by_grid(grid, load, options.parts);
    share.mine.clear();
    share.grid.clear();
    for (std::size_t i = 0; i < which.size(); ++i) {
      if (share.owner[i] != options.part) continue;
      share.mine.push_back(which[i]);
      share.grid.push_back(grid[i]);
    }
  }
  std::vector<std::pair<double, std::size_t>> by_grid;
  for (std::size_t i = 0; i < share.mine.size(); ++i) by_grid.emplace_back(share.grid[i], share.mine[i]);
  std::sort(by_grid.begin(), by_grid.end());
  for (std::size_t i = 0; i < by_grid.size(); ++i) std::tie(share.grid[i], share.mine[i]) = by_grid[i];
  return share;
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
  const auto parts = static_cast<std::size_t>(options.parts);
  const std::vector<std::vector<std::size_t>> ids = shared_ids(runs);
  const auto bound_of = [&](std::size_t u, bool coarse, Worker& worker) {
    const auto releases = combined_releases(runs, ids, *combinations[u], worker);
    const double alpha = combinations[u]->second;
    return releases.empty() ? alpha : blow_up_bound_shared(releases, alpha, coarse ? kCoarseGrid : AccountantOptions{}, worker.memo).value;
  };
  const auto evaluate = [&](const std::vector<std::size_t>& which, bool coarse) {
    Workers workers(static_cast<std::size_t>(chunk_count(options.threads, (which.size() + parts - 1) / parts, 1e6)));
    const Share share = coarse ? coarse_share(runs, ids, combinations, which, options, workers) : round_robin(which, options);
    const std::vector<std::size_t>& mine = share.mine;
    std::vector<std::exception_ptr> failed(mine.size());
    const char* pass = coarse ? "coarse grid" : "full precision";
    std::atomic<std::size_t> done{0};  // of `mine`, by all threads
    run_chunks(static_cast<int>(workers.size()), mine.size(), [&](int chunk, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (coarse && i > begin && share.grid[i] != share.grid[i - 1]) workers[static_cast<std::size_t>(chunk)].memo.forget_grids();
        try {
          bound[mine[i]] = bound_of(mine[i], coarse, worker_of(workers, chunk));
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
    if (const std::size_t u = gather_bounds(options, which, share.owner, failed_here, bound); u > 0) {
      Worker fresh;
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
