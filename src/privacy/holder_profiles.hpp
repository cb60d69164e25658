#pragma once
// Holder profiles: what a secret's privacy loss depends on, so that the calibration certifies
// each distinct profile once and skips the profiles that a certified one dominates
// (docs/method.md, section 5 'Noise calibration', "Profiles and dominance").
//
// A secret's releases are, per label holding it, the mixture sum_c pi(c) N(step c, 1) against
// N(0, 1) repeated T times, with pi the Poisson-binomial PMF of the holders' sampled count
// (privacy/blow_up.hpp). The accountant reads nothing else: two secrets with the same releases
// (bit for bit, in the same order) and the same budget get the same bound and the same root, bit
// for bit. That is the profile's identity (`HolderProfiles` deduplicates on it).
//
// Dominance. Profile A is dominated by profile B (`dominated_by`) when p_A <= p_B and there is a
// one-to-one map phi from A's releases into B's with, for every release a,
//     step_a <= step_phi(a)   and   rho_a[i] <= rho_phi(a)[i] for every i
// (each release's holder probabilities sorted largest first, the shorter list padded with 0).
// Then B_A(p_A) <= B_B(p_B), so a bound certifying B at its budget is a bound for A, and A is
// certified if that bound is <= r_A. Proof:
//  1. Count coupling: holder i of a and holder i of phi(a) share one uniform U_i, sampled when
//     U_i < rho; then C_a <= C_phi(a) surely, so C_a is stochastically smaller (first order).
//     With step_a <= step_phi(a), the shift S_a = step_a C_a is stochastically smaller than S_phi(a).
//  2. Embedding: add to A, for every release of B not in phi's image, a release with count 0
//     (pure noise N(0, 1) under both hypotheses: independent noise, a post-processing either way),
//     and order A's coordinates as B's. A permutation of coordinates maps N(0, I) onto itself, so
//     neither changes B_A. Now both observe Y = S + Z in the same R^{k T}, Z ~ N(0, I), with
//     independent shift coordinates S_A <= S_B (coupled as in 1), and the same Q = N(0, I).
//  3. Monotone test: A's likelihood ratio prod_i E[exp(S_i y_i - S_i^2 / 2)] is non-decreasing in
//     every y_i (S_i >= 0), so A's Neyman-Pearson test of level alpha, phi*(y) in [0, 1]
//     (randomised on the boundary), is non-decreasing in every coordinate, hence so is
//     g(s) = E_Z phi*(s + Z). So B_A(alpha) = E g(S_A) <= E g(S_B) = P_B(phi*) <= B_B(alpha),
//     since E_Q phi* = alpha.
//  4. Budgets: B_A is non-decreasing, so B_A(p_A) <= B_A(p_B) <= B_B(p_B) <= the bound for B.
//     The accountant's PMF of B moves tail mass up (privacy/poisson_binomial.hpp), which only
//     makes its counts larger still, so its bound for B bounds the true B_B.
// Every comparison is made on the stored doubles (no arithmetic), so nothing here rounds. The
// check is complete for the map (a bipartite matching: Kuhn's augmenting paths, a secret holds at
// most a few dozen labels). Tests: privacy_holder_profiles_test.cpp checks the claim on random
// profiles against the closed form at T = 1 and the accountant at T > 1.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace secpe {

// One label's release of a secret, at lambda = 1.
struct ProfileRelease {
  double step = 0.0;         // mean shift per sampled holder, in units of the noise (s / sigma_paper_l)
  std::vector<double> pmf;   // the holders' count PMF, not a point mass at 0 (those release nothing)
  std::vector<double> rho;   // the holders' sampling probabilities that are > 0, largest first
};

struct HolderProfile {
  std::vector<ProfileRelease> releases;  // in label order (the order the accountant composes them)
  double p = 0.0, r = 0.0;               // the budget
};

// True when `small` is dominated by `big` in the sense above (releases and p_small <= p_big; the
// caller checks that big's bound is <= r_small).
bool dominated_by(const HolderProfile& small, const HolderProfile& big);

// Distinct profiles of a list of secrets' profiles, by exact comparison (hash, then equality of
// every double's bits): profile u's representative is its first secret.
class HolderProfiles {
 public:
  explicit HolderProfiles(std::vector<HolderProfile> per_secret);

  std::size_t num_secrets() const { return profile_of_.size(); }
  std::size_t size() const { return representative_.size(); }
  std::size_t profile_of(std::size_t secret) const { return profile_of_[secret]; }
  std::size_t representative(std::size_t profile) const { return representative_[profile]; }
  const HolderProfile& operator[](std::size_t profile) const { return profiles_[profile]; }

 private:
  std::vector<HolderProfile> profiles_;       // one per distinct profile
  std::vector<std::uint32_t> profile_of_;     // per secret
  std::vector<std::size_t> representative_;   // per profile: its first secret
};

// Certified profiles, and for a profile the tightest certified one that dominates it. The
// candidates are the certified profiles that have, for each of the profile's releases, a release
// of exactly the same step (the same label, or a label with the same sigma) whose most likely
// holder is at least as likely; the full check then matches every release. A dominator that can
// only match some release with a larger step is missed: the search is sound, and complete up to
// that. (Allowing those too made the search cost more than the evaluations it saved on the demo
// corpus.) Per step, the entries are kept sorted by that largest probability, so the candidates
// are a prefix of one list: the shortest such prefix over the profile's releases.
class DominanceIndex {
 public:
  explicit DominanceIndex(const HolderProfiles& profiles) : profiles_(profiles) {}
  // Adds a certified profile: `bound` is an upper bound on its B at its own budget when the
  // noise multiplier is `at` (and so at any larger one: more noise is a post-processing).
  // Returns the entry's index.
  std::size_t add(std::size_t profile, double bound, double at);
  // The entry with the smallest bound among those computed at a noise multiplier >= min_at whose
  // profile dominates `profile` and certifies it (bound <= r of `profile`), or -1 if none; ties go
  // to the one added first. Does not modify the index: safe to call from several threads at once
  // (not during add).
  std::int64_t best_dominator(std::size_t profile, double min_at) const;
  std::size_t entry_profile(std::size_t entry) const { return entries_[entry].profile; }
  double entry_bound(std::size_t entry) const { return entries_[entry].bound; }
  double entry_at(std::size_t entry) const { return entries_[entry].at; }

 private:
  // What every dominator of a profile must have at least as much of (releases, holders, largest
  // step, largest probability): a few comparisons that turn most candidates away.
  struct Reach {
    std::size_t releases = 0, holders = 0;
    double step = 0.0, rho = 0.0;
    bool covers(const Reach& o) const { return releases >= o.releases && holders >= o.holders && step >= o.step && rho >= o.rho; }
  };
  static Reach reach_of(const HolderProfile& p);
  struct Entry {
    std::size_t profile;
    double bound, at;
    Reach reach;
    std::uint64_t steps;  // the steps of its releases, one bit per distinct step (mod 64)
  };
  std::uint64_t step_mask(const HolderProfile& p) const;
  const HolderProfiles& profiles_;
  std::vector<Entry> entries_;
  // Step's bits -> (the entry's largest holder probability among its releases of that step,
  // entry), largest first, ties by entry.
  std::unordered_map<std::uint64_t, std::vector<std::pair<double, std::size_t>>> by_step_;
  std::unordered_map<std::uint64_t, unsigned> step_bit_;                 // step's bits -> its bit
};

}  // namespace secpe
