#include "privacy/holder_profiles.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <unordered_map>
#include <utility>

namespace secpe {
namespace {

bool release_dominated(const ProfileRelease& a, const ProfileRelease& b) {
  if (!(a.step <= b.step) || a.rho.size() > b.rho.size()) return false;
  for (std::size_t i = 0; i < a.rho.size(); ++i)
    if (!(a.rho[i] <= b.rho[i])) return false;
  return true;
}

// Kuhn's augmenting path from small release a; match[b] is the small release mapped to b, or -1.
bool augment(std::size_t a, const std::vector<std::vector<char>>& edge, std::vector<std::int64_t>& match,
             std::vector<char>& seen) {
  for (std::size_t b = 0; b < match.size(); ++b) {
    if (!edge[a][b] || seen[b]) continue;
    seen[b] = 1;
    if (match[b] < 0 || augment(static_cast<std::size_t>(match[b]), edge, match, seen)) {
      match[b] = static_cast<std::int64_t>(a);
      return true;
    }
  }
  return false;
}

std::uint64_t mix(std::uint64_t h, double x) {
  h ^= std::bit_cast<std::uint64_t>(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t hash_of(const HolderProfile& p) {
  std::uint64_t h = mix(mix(0, p.p), p.r);
  for (const ProfileRelease& rel : p.releases) {
    h = mix(h, rel.step);
    h = mix(h, static_cast<double>(rel.pmf.size()));
    for (const double x : rel.pmf) h = mix(h, x);
    h = mix(h, static_cast<double>(rel.rho.size()));
    for (const double x : rel.rho) h = mix(h, x);
  }
  return h;
}

// Equality of every double's bits (so -0.0 and 0.0 differ, and nothing is equal to a NaN but
// itself): two profiles are the same exactly when the accountant cannot tell them apart.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

bool same_profile(const HolderProfile& a, const HolderProfile& b) {
  if (!same_bits({a.p, a.r}, {b.p, b.r}) || a.releases.size() != b.releases.size()) return false;
  for (std::size_t l = 0; l < a.releases.size(); ++l) {
    const ProfileRelease& x = a.releases[l];
    const ProfileRelease& y = b.releases[l];
    if (!same_bits({x.step}, {y.step}) || !same_bits(x.pmf, y.pmf) || !same_bits(x.rho, y.rho)) return false;
  }
  return true;
}

}  // namespace

bool dominated_by(const HolderProfile& small, const HolderProfile& big) {
  const std::size_t ks = small.releases.size(), kb = big.releases.size();
  if (ks > kb || !(small.p <= big.p)) return false;
  // Scratch reused across calls on a thread: the index calls this for many candidates.
  thread_local std::vector<std::vector<char>> edge;
  thread_local std::vector<std::int64_t> match;
  thread_local std::vector<char> seen;
  if (edge.size() < ks) edge.resize(ks);
  for (std::size_t a = 0; a < ks; ++a) {
    edge[a].assign(kb, 0);
    bool any = false;
    for (std::size_t b = 0; b < kb; ++b) {
      edge[a][b] = release_dominated(small.releases[a], big.releases[b]) ? 1 : 0;
      any = any || edge[a][b];
    }
    if (!any) return false;  // most candidates stop here
  }
  match.assign(kb, -1);
  seen.resize(kb);
  for (std::size_t a = 0; a < ks; ++a) {
    std::fill(seen.begin(), seen.end(), 0);
    if (!augment(a, edge, match, seen)) return false;
  }
  return true;
}

HolderProfiles::HolderProfiles(std::vector<HolderProfile> per_secret) {
  profile_of_.resize(per_secret.size());
  std::unordered_multimap<std::uint64_t, std::uint32_t> seen;
  seen.reserve(per_secret.size());
  for (std::size_t j = 0; j < per_secret.size(); ++j) {
    const std::uint64_t h = hash_of(per_secret[j]);
    std::int64_t found = -1;
    for (auto [it, end] = seen.equal_range(h); it != end; ++it) {
      if (same_profile(profiles_[it->second], per_secret[j])) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      found = static_cast<std::int64_t>(profiles_.size());
      seen.emplace(h, static_cast<std::uint32_t>(found));
      profiles_.push_back(std::move(per_secret[j]));
      representative_.push_back(j);
    }
    profile_of_[j] = static_cast<std::uint32_t>(found);
  }
}

DominanceIndex::Reach DominanceIndex::reach_of(const HolderProfile& p) {
  Reach r;
  r.releases = p.releases.size();
  for (const ProfileRelease& rel : p.releases) {
    r.holders += rel.rho.size();
    r.step = std::max(r.step, rel.step);
    if (!rel.rho.empty()) r.rho = std::max(r.rho, rel.rho.front());
  }
  return r;
}

// One bit per distinct step, in the order the index first sees them (the same on every rank), so
// that "has every one of these steps" is one mask test (with more than 64 steps, bits are shared:
// the test only lets more candidates through to the full check).
std::uint64_t DominanceIndex::step_mask(const HolderProfile& p) const {
  std::uint64_t mask = 0;
  for (const ProfileRelease& rel : p.releases) {
    const auto it = step_bit_.find(std::bit_cast<std::uint64_t>(rel.step));
    if (it != step_bit_.end()) mask |= std::uint64_t{1} << it->second;
  }
  return mask;
}

namespace {

// Largest probability first, then entry: the order of DominanceIndex's lists.
bool before(const std::pair<double, std::size_t>& a, const std::pair<double, std::size_t>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

}  // namespace

std::size_t DominanceIndex::add(std::size_t profile, double bound, double at) {
  const std::size_t entry = entries_.size();
  const HolderProfile& p = profiles_[profile];
  for (const ProfileRelease& rel : p.releases)
    step_bit_.try_emplace(std::bit_cast<std::uint64_t>(rel.step), static_cast<unsigned>(step_bit_.size() % 64));
  entries_.push_back({profile, bound, at, reach_of(p), step_mask(p)});
  // One item per step: the largest first probability among its releases of that step.
  std::unordered_map<std::uint64_t, double> top;
  for (const ProfileRelease& rel : p.releases) {
    double& t = top[std::bit_cast<std::uint64_t>(rel.step)];
    t = std::max(t, rel.rho.empty() ? 0.0 : rel.rho.front());
  }
  for (const auto& [step, rho] : top) {
    auto& list = by_step_[step];
    const std::pair<double, std::size_t> item{rho, entry};
    list.insert(std::upper_bound(list.begin(), list.end(), item, before), item);
  }
  return entry;
}

std::int64_t DominanceIndex::best_dominator(std::size_t profile, double min_at) const {
  const HolderProfile& small = profiles_[profile];
  if (small.releases.empty()) return -1;
  // Candidates: per release, the entries with a release of its step and at least its largest
  // probability (a prefix of the step's list); the release with the fewest gives them.
  const std::vector<std::pair<double, std::size_t>>* list = nullptr;
  std::size_t count = 0;
  for (const ProfileRelease& rel : small.releases) {
    const auto it = by_step_.find(std::bit_cast<std::uint64_t>(rel.step));
    if (it == by_step_.end()) return -1;  // no certified profile has this step
    const double need = rel.rho.empty() ? 0.0 : rel.rho.front();
    const auto end = std::partition_point(it->second.begin(), it->second.end(), [&](const auto& x) { return x.first >= need; });
    const auto n = static_cast<std::size_t>(end - it->second.begin());
    if (!list || n < count) {
      list = &it->second;
      count = n;
    }
  }
  const Reach need = reach_of(small);
  const std::uint64_t steps = step_mask(small);
  std::int64_t best = -1;
  double best_bound = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t e = (*list)[k].second;
    const Entry& c = entries_[e];
    if (!(c.bound <= small.r) || !(c.bound <= best_bound) || !(c.at >= min_at) || c.profile == profile) continue;
    if (c.bound == best_bound && static_cast<std::int64_t>(e) > best) continue;  // ties: the entry added first
    if ((c.steps & steps) != steps || !c.reach.covers(need)) continue;
    if (!dominated_by(small, profiles_[c.profile])) continue;
    best = static_cast<std::int64_t>(e);
    best_bound = c.bound;
  }
  return best;
}

}  // namespace secpe
