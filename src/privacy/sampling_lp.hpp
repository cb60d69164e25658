#pragma once
// The sampling-weight LP of paper Algorithm 1 (SecretNoise), solved exactly:
//
//   maximise  sum_i w_i   over the private records i of a subset (e.g. one label)
//   subject to  sum_{i holds s_j} w_i <= eta_j   for every secret j,   0 <= w_i <= 1.
//
// How it is solved (see sampling_lp.cpp for the details):
//  - Records with the same secret set are interchangeable, so they are grouped first; the LP then
//    has one variable per distinct secret set, which makes Yelp-scale instances small.
//  - Exact shortcuts before any solver: all weights 1 when no constraint can bind, and the
//    per-secret closed form w = min(1, eta_j / n_j) when every record holds at most one secret
//    with finite eta (the LP decomposes per secret).
//  - Otherwise COIN-OR Clp (primal simplex) on the grouped LP.
//  - Among the optimal solutions, one that the exact accountant prefers: each group's total weight
//    sits on as few of its records as possible, at the largest weight of the solution (the others
//    get 0), rather than spread evenly; objective, constraints and maximum weight are unchanged.
//  - The solver's answer is clamped to [0, 1] and every violated constraint is repaired by
//    scaling its holders down, so feasibility never rests on a solver tolerance.
//  - A dual solution (a price y_j >= 0 per secret) comes back with the weights; by weak duality
//    it certifies an upper bound on the optimum: objective <= optimum <= dual_bound.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/enum_names.hpp"
#include "core/secret_matrix.hpp"

namespace secpe {

enum class SamplingLpPath {
  kEmpty,      // no rows: nothing to solve
  kAllOnes,    // every secret has at most eta_j holders: w = 1 is feasible, hence optimal
  kPerSecret,  // every record holds at most one finite-eta secret: w = min(1, eta_j / n_j)
  kClp,        // the general case, COIN-OR Clp on the grouped LP
};
inline constexpr EnumNames<SamplingLpPath, 4> kSamplingLpPathNames{{{SamplingLpPath::kEmpty, "empty"},
                                                                   {SamplingLpPath::kAllOnes, "all-ones"},
                                                                   {SamplingLpPath::kPerSecret, "per-secret"},
                                                                   {SamplingLpPath::kClp, "clp"}}};
inline std::string to_string(SamplingLpPath path) { return std::string(name_of(kSamplingLpPathNames, path)); }

// Primal simplex is by far the fastest here (see sampling_lp.cpp); the others are for comparisons.
enum class ClpAlgorithm { kPrimal, kDual, kBarrier };

struct SamplingLpOptions {
  bool use_shortcuts = true;  // false: always solve with Clp (tests compare the paths)
  bool group_rows = true;     // false: one LP variable per record (tests check the reduction)
  ClpAlgorithm algorithm = ClpAlgorithm::kPrimal;
  // true: each group's total on as few records as possible (see sampling_lp.cpp); false: every
  // record of a group at the group's weight (the plain grouped optimum, for comparisons).
  bool concentrate = true;
};

struct SamplingLpResult {
  std::vector<double> weights;        // w_i per requested row, in the order given; all in [0, 1]
                                      // (with concentrate, records of a group differ: the first ones carry it)
  double objective = 0.0;             // sum_i w_i of the returned (feasible) weights
  std::vector<double> secret_prices;  // dual y_j >= 0 per secret (0 where eta_j = inf or unconstrained)
  double dual_bound = 0.0;            // sum_j eta_j y_j + sum_i max(0, 1 - sum_{j in i} y_j) >= optimum
  SamplingLpPath path = SamplingLpPath::kEmpty;
  std::size_t groups = 0;             // distinct secret sets among the rows, after dropping the secrets
                                      // that cannot bind (eta_j = inf or at most eta_j holders)
  std::size_t lp_rows = 0;            // size of the problem handed to Clp (0 on the other paths)
  std::size_t lp_columns = 0;
  int solver_iterations = 0;
  double solver_seconds = 0.0;        // wall time inside Clp
  std::size_t repaired_secrets = 0;   // constraints the raw answer violated (round-off), scaled back to feasible
  double max_violation = 0.0;         // largest relative excess (load_j - eta_j) / eta_j before the repair
};

// Solves the LP over rows `rows` of `secrets` (row indices into the matrix, in any order; a row
// listed twice counts as two records); a secret repeated within a row counts once. eta has one
// entry per secret (size secrets.num_secrets); each is finite and > 0, or +infinity (no constraint).
// InputError for: eta of the wrong size, eta_j NaN / <= 0 / -inf, a row out of range, a requested
// row with no secret (a public record is not part of the LP), a secret index out of range.
// std::runtime_error if Clp does not report an optimal solution (a solver failure, not bad input).
SamplingLpResult solve_sampling_lp(const SecretMatrix& secrets, std::span<const std::size_t> rows,
                                   std::span<const double> eta, const SamplingLpOptions& options = {});
// The same over every row of `secrets` (all of which must be private).
SamplingLpResult solve_sampling_lp(const SecretMatrix& secrets, std::span<const double> eta,
                                   const SamplingLpOptions& options = {});

}  // namespace secpe
