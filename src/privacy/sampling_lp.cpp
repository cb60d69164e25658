#include "privacy/sampling_lp.hpp"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/error.hpp"
#include "core/timer.hpp"

// How the LP is made small, and why that is exact.
//
// 1. Grouping. Two records with the same secret set appear in exactly the same constraints with
//    the same coefficient (1), so they are interchangeable. Take any optimal w and replace the
//    weights of a group g (n_g records sharing one set) by their average: every constraint sum
//    and the objective are unchanged (each sums the whole group), and the bounds [0, 1] still
//    hold (convexity). So some optimal solution is constant on every group, and the LP
//      maximise sum_g n_g w_g  s.t.  sum_{g holds j} n_g w_g <= eta_j,  0 <= w_g <= 1
//    with one variable per distinct set has the same optimum. Clp gets it in the scaled variables
//    x_g = n_g w_g in [0, n_g], which leaves a 0/1 constraint matrix and a unit objective.
//    Yelp-scale labels (millions of records, a few hundred secrets, 1-3 secrets per record) have
//    far fewer distinct sets than records.
// 2. Constraints that cannot bind. With w <= 1, secret j's load is at most its holder count N_j,
//    so a secret with N_j <= eta_j (or eta_j = +infinity) never constrains anything and is dropped
//    from the sets before grouping (price y_j = 0). This merges more groups.
// 3. Closed forms. No constraint left: w = 1. Every record holds at most one remaining secret:
//    the LP splits into one problem per secret, max N_j w s.t. N_j w <= eta_j, w <= 1, so
//    w = eta_j / N_j (< 1 here) with price y_j = 1 (binding), and w = 1 for records left with no
//    secret.
//
// Concentration (SamplingLpOptions::concentrate). Grouping returns the optimum that is constant on
// every group, which is the worst choice for the accountant: a secret whose capacity eta_j is
// spread over k interchangeable holders at rho / k each has a random count with a tail up to k,
// where one holder at rho (rho = 1: a fixed count) has the same mean and a far lighter tail. So
// each group's total x_g = n_g w_g is moved onto floor(x_g / u) of its records at u, the largest
// weight of the solution, plus one record at the remainder, the others at 0. This is again an
// optimal solution, exactly: every constraint and the objective sum whole groups, and the group
// total is unchanged; every weight stays in [0, u] with u <= 1, and the largest weight is still u,
// so the batch scaling (which depends on the sum and the maximum of the weights only) and every
// secret's mean count Delta_j (hence the paper's sigma) are unchanged too. What changes is the
// spread of each secret's count: the holders' rho now majorise the equal ones, which makes the
// Poisson-binomial count smaller in convex order (Hoeffding 1956). That is what the exact
// accountant rewards (at T = 1, B(alpha) = E Phi(s C / sigma - z_alpha) is convex in C wherever
// s C / sigma < z_alpha), though it is not a theorem for every T and budget; the accountant
// certifies whichever weights are used, and `secpe privacy` reports the sigma of both choices.
// The records that get the weight are the first of their group in the order of `rows`, so every
// rank that passes the same rows gets the same weights.
//
// Feasibility without trusting tolerances. Clp satisfies constraints only to its primal tolerance
// (1e-7) and the closed form eta_j / N_j can round up by half an ulp, so after any path the
// weights are clamped to [0, 1] and every secret's load sum_g n_g w_g is recomputed in long double
// with compensated summation (error about one long-double rounding whatever the number of terms);
// a load above eta_j (1 - 4 LDBL_EPSILON), the margin that covers that error, so that the sum holds
// in exact arithmetic, gives the secret a factor f_j = (eta_j (1 - 4 LDBL_EPSILON) / load_j)
// (1 - 2 DBL_EPSILON) and every group is multiplied by the smallest factor among its secrets
// (so an exactly tight closed form such as 2 x 0.5 <= 1 also comes out scaled by 1 - 4e-16).
// Scaling down only lowers loads, so one pass fixes all violations; the pass repeats (at most a
// few times) until none is left, otherwise it throws. In practice most tight constraints come out of the solver over eta_j by an
// ulp or so (repaired_secrets counts them, max_violation gives the largest relative excess), and
// the objective loses about that much.
//
// Optimality certificate. For any y >= 0, weak duality of the LP gives
//   optimum <= sum_j eta_j y_j + sum_i max(0, 1 - sum_{j in i} y_j)
// (the dual min eta.y + 1.z s.t. A^T y + z >= 1, y, z >= 0 with the best z for that y). The
// prices come from Clp's row duals (or the closed forms), so objective <= optimum <= dual_bound,
// and tests check that the gap is at round-off level.

namespace secpe {
namespace {

[[noreturn]] void fail(const std::string& what) { throw InputError("solve_sampling_lp: " + what); }

struct SetKey {
  const std::int32_t* data;
  std::size_t size;
  bool operator==(const SetKey& o) const { return size == o.size && std::equal(data, data + size, o.data); }
};
struct SetKeyHash {
  std::size_t operator()(const SetKey& k) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ k.size;
    for (std::size_t t = 0; t < k.size; ++t) {
      h ^= static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.data[t])) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 31;
    }
    return static_cast<std::size_t>(h);
  }
};

// Sets as CSR: set t is data[offsets[t] .. offsets[t + 1]).
struct SetList {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> data;
  std::size_t size() const { return offsets.size() - 1; }
  std::span<const std::int32_t> operator[](std::size_t t) const {
    return {data.data() + offsets[t], static_cast<std::size_t>(offsets[t + 1] - offsets[t])};
  }
};

// Compensated (Neumaier) summation: sum + carry is the sum of the terms to about one rounding,
// independent of their number.
void neumaier_add(long double& sum, long double& carry, long double term) {
  const long double t = sum + term;
  if (std::fabs(sum) >= std::fabs(term)) {
    carry += (sum - t) + term;
  } else {
    carry += (term - t) + sum;
  }
  sum = t;
}


// The weights of one group of n_g interchangeable records: the first `full` records at `level`,
// the next one (if any) at `partial`, the rest at 0. Every constraint and the objective see only
// the group's total full * level + partial.
struct GroupWeights {
  std::vector<std::int64_t> full;
  std::vector<double> level, partial;
};

// Every record of group g at the group's LP weight w_g.
GroupWeights spread(const std::vector<double>& w, const std::vector<std::int64_t>& size) {
  return {size, w, std::vector<double>(w.size(), 0.0)};
}

// The same group totals x_g = n_g w_g on as few records as possible, each at the largest weight u
// of the solution: floor(x_g / u) records at u and one at the remainder (see the comment at the top).
GroupWeights concentrated(const std::vector<double>& w, const std::vector<std::int64_t>& size) {
  const double u = w.empty() ? 0.0 : *std::max_element(w.begin(), w.end());
  GroupWeights out{size, w, std::vector<double>(w.size(), 0.0)};
  if (!(u > 0.0)) return out;
  for (std::size_t g = 0; g < w.size(); ++g) {
    if (w[g] >= u) continue;  // already at the top level
    const long double x = static_cast<long double>(size[g]) * w[g];
    const auto k = std::min<std::int64_t>(size[g] - 1, static_cast<std::int64_t>(std::floor(x / u)));
    out.full[g] = k;
    out.level[g] = u;
    out.partial[g] = std::clamp(static_cast<double>(x - static_cast<long double>(k) * u), 0.0, u);
  }
  return out;
}

}  // namespace

namespace {

void check_eta(std::int32_t m, std::span<const double> eta) {
  if (m < 0) fail("negative number of secrets");
  if (eta.size() != static_cast<std::size_t>(m)) {
    fail("eta has " + std::to_string(eta.size()) + " entries but there are " + std::to_string(m) + " secrets");
  }
  for (std::size_t j = 0; j < eta.size(); ++j) {
    const double e = eta[j];
    if (!(e > 0.0)) {  // NaN, <= 0 and -inf; +inf (no constraint) is allowed
      std::ostringstream msg;
      msg.precision(17);
      msg << "eta[secret " << j << "] must be > 0 or +infinity, got " << e;
      fail(msg.str());
    }
  }
}

// Each requested row's set of finite-eta secrets, sorted and without repeats, and each secret's
// holders among them.
struct RowSets {
  SetList sets;
  std::vector<std::int64_t> holders;
};

RowSets row_sets_of(const SecretMatrix& secrets, std::span<const std::size_t> rows, std::span<const double> eta) {
  const std::int32_t m = secrets.num_secrets;
  const std::size_t num_rows = secrets.rows();
  RowSets out;
  out.sets.offsets.reserve(rows.size() + 1);
  out.holders.assign(static_cast<std::size_t>(m), 0);
  std::vector<std::int32_t> scratch;
  for (const std::size_t r : rows) {
    if (r >= num_rows) fail("row " + std::to_string(r) + " out of range [0, " + std::to_string(num_rows) + ")");
    const auto s = secrets.secrets_of(r);
    if (s.empty()) fail("row " + std::to_string(r) + " holds no secret: a public record is not part of the LP");
    scratch.assign(s.begin(), s.end());
    for (const std::int32_t j : scratch) {
      if (j < 0 || j >= m) {
        fail("row " + std::to_string(r) + ": secret index " + std::to_string(j) + " out of range [0, " +
             std::to_string(m) + ")");
      }
    }
    if (!std::is_sorted(scratch.begin(), scratch.end()) ||
        std::adjacent_find(scratch.begin(), scratch.end()) != scratch.end()) {
      std::sort(scratch.begin(), scratch.end());
      scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    }
    for (const std::int32_t j : scratch) {
      if (!std::isfinite(eta[static_cast<std::size_t>(j)])) continue;
      ++out.holders[static_cast<std::size_t>(j)];
      out.sets.data.push_back(j);
    }
    out.sets.offsets.push_back(static_cast<std::int64_t>(out.sets.data.size()));
  }
  return out;
}

// The secrets kept as constraints (reduction 2 when shortcuts are on), and with shortcuts the
// others dropped from the row sets.
std::vector<char> keep_active_secrets(RowSets& rs, std::span<const double> eta, bool use_shortcuts) {
  const std::size_t m = rs.holders.size();
  std::vector<char> active(m, 0);
  for (std::size_t j = 0; j < m; ++j) {
    active[j] = std::isfinite(eta[j]) && rs.holders[j] > 0 && (!use_shortcuts || static_cast<double>(rs.holders[j]) > eta[j]);
  }
  if (use_shortcuts) {
    SetList& sets = rs.sets;
    std::size_t out = 0;
    std::int64_t begin = 0;
    for (std::size_t t = 0; t < sets.size(); ++t) {
      const std::int64_t end = sets.offsets[t + 1];
      for (std::int64_t p = begin; p < end; ++p) {
        const std::int32_t j = sets.data[static_cast<std::size_t>(p)];
        if (active[static_cast<std::size_t>(j)]) sets.data[out++] = j;
      }
      begin = end;
      sets.offsets[t + 1] = static_cast<std::int64_t>(out);
    }
    sets.data.resize(out);
  }
  return active;
}

// Reduction 1: rows grouped by set, groups numbered in order of first appearance (one group per
// row without grouping).
struct Groups {
  std::vector<std::int32_t> of_row;
  std::vector<std::size_t> first_row;  // a representative row (index into `rows`)
  std::vector<std::int64_t> size;
  std::size_t count() const { return size.size(); }
};

Groups group_rows(const SetList& sets, bool group) {
  const std::size_t n = sets.size();
  Groups g;
  g.of_row.resize(n);
  if (!group) {
    g.first_row.resize(n);
    std::iota(g.first_row.begin(), g.first_row.end(), std::size_t{0});
    std::iota(g.of_row.begin(), g.of_row.end(), 0);
    g.size.assign(n, 1);
    return g;
  }
  std::unordered_map<SetKey, std::int32_t, SetKeyHash> index;
  index.reserve(std::min<std::size_t>(n, 1u << 20));
  for (std::size_t t = 0; t < n; ++t) {
    const auto s = sets[t];
    const auto [it, inserted] = index.try_emplace(SetKey{s.data(), s.size()}, static_cast<std::int32_t>(g.size.size()));
    if (inserted) {
      g.first_row.push_back(t);
      g.size.push_back(0);
    }
    g.of_row[t] = it->second;
    ++g.size[static_cast<std::size_t>(it->second)];
  }
  return g;
}

// Closed form when every group holds at most one active secret: w = eta_j / N_j, price 1.
void solve_per_secret(const SetList& sets, const Groups& groups, const std::vector<std::int64_t>& holders,
                      std::span<const double> eta, std::vector<double>& w, std::vector<double>& y) {
  for (std::size_t g = 0; g < groups.count(); ++g) {
    const auto s = sets[groups.first_row[g]];
    if (s.empty()) continue;
    const auto j = static_cast<std::size_t>(s[0]);
    w[g] = std::min(1.0, eta[j] / static_cast<double>(holders[j]));
    y[j] = 1.0;  // active means N_j > eta_j: the constraint binds
  }
}

// The grouped LP with Clp: rows are the active secrets, columns the groups with a non-empty set
// (the others keep w = 1), in the scaled variables x_g = n_g w_g.
void solve_with_clp(const SetList& sets, const Groups& groups, const std::vector<char>& active, std::span<const double> eta,
                    ClpAlgorithm algorithm, std::vector<double>& w, SamplingLpResult& result) {
  const auto m = static_cast<std::int32_t>(active.size());
  std::vector<int> row_of_secret(static_cast<std::size_t>(m), -1);
  std::vector<std::int32_t> secret_of_row;
  for (std::int32_t j = 0; j < m; ++j) {
    if (active[static_cast<std::size_t>(j)]) {
      row_of_secret[static_cast<std::size_t>(j)] = static_cast<int>(secret_of_row.size());
      secret_of_row.push_back(j);
    }
  }
  std::vector<std::size_t> column_group;
  std::vector<CoinBigIndex> start{0};
  std::vector<int> index;
  for (std::size_t g = 0; g < groups.count(); ++g) {
    const auto s = sets[groups.first_row[g]];
    if (s.empty()) continue;
    if (index.size() + s.size() > static_cast<std::size_t>(std::numeric_limits<CoinBigIndex>::max()) ||
        column_group.size() >= static_cast<std::size_t>(INT_MAX)) {
      throw std::runtime_error("solve_sampling_lp: the grouped LP is too large for Clp's index type");
    }
    for (const std::int32_t j : s) index.push_back(row_of_secret[static_cast<std::size_t>(j)]);
    start.push_back(static_cast<CoinBigIndex>(index.size()));
    column_group.push_back(g);
  }
  const int ncols = static_cast<int>(column_group.size());
  const int nrows = static_cast<int>(secret_of_row.size());
  std::vector<double> value(index.size(), 1.0);
  std::vector<double> col_lo(column_group.size(), 0.0), col_hi(column_group.size()), obj(column_group.size(), -1.0);
  for (std::size_t c = 0; c < column_group.size(); ++c) col_hi[c] = static_cast<double>(groups.size[column_group[c]]);
  std::vector<double> row_lo(secret_of_row.size(), -COIN_DBL_MAX), row_hi(secret_of_row.size());
  for (std::size_t r = 0; r < secret_of_row.size(); ++r) row_hi[r] = eta[static_cast<std::size_t>(secret_of_row[r])];

  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(ncols, nrows, start.data(), index.data(), value.data(), col_lo.data(), col_hi.data(),
                    obj.data(), row_lo.data(), row_hi.data());
  model.setOptimizationDirection(1.0);  // minimise -sum x_g
  // Primal simplex: x = 0 is a feasible start, and on Yelp-like instances (400 x 240k) it takes
  // ~0.7 s where barrier + crossover takes ~3 s and dual simplex did not finish in 6 minutes.
  const Timer t0;
  switch (algorithm) {
    case ClpAlgorithm::kPrimal: model.primal(); break;
    case ClpAlgorithm::kDual: model.dual(); break;
    case ClpAlgorithm::kBarrier: model.barrier(true); break;
  }
  result.solver_seconds = t0.seconds();
  if (!model.isProvenOptimal()) {
    std::ostringstream msg;
    msg << "solve_sampling_lp: Clp did not find an optimal solution (status " << model.status()
        << ", secondary status " << model.secondaryStatus() << ") for an LP with " << nrows << " secrets and "
        << ncols << " secret sets; the LP is always feasible and bounded, so this is a solver failure";
    throw std::runtime_error(msg.str());
  }
  result.lp_rows = static_cast<std::size_t>(nrows);
  result.lp_columns = static_cast<std::size_t>(ncols);
  result.solver_iterations = model.numberIterations();
  const double* x = model.primalColumnSolution();
  for (std::size_t c = 0; c < column_group.size(); ++c) {
    // A degenerate basic variable can come back as 1e-12 instead of 0: snapping loads below
    // 1e-9 records to 0 lowers every constraint and spares the repair below.
    const std::size_t g = column_group[c];
    w[g] = x[c] <= 1e-9 ? 0.0 : x[c] / static_cast<double>(groups.size[g]);
  }
  // For a minimisation with <= rows, Clp's row duals are <= 0; the LP's prices are their negation.
  const double* dual = model.dualRowSolution();
  for (std::size_t r = 0; r < secret_of_row.size(); ++r) {
    result.secret_prices[static_cast<std::size_t>(secret_of_row[r])] = std::max(0.0, -dual[r]);
  }
}

// Feasibility without trusting tolerances (see the comment at the top): scales groups down until
// every load, summed in compensated long double, is within eta_j.
void repair_feasibility(GroupWeights& gw, const SetList& sets, const Groups& groups, std::span<const double> eta,
                        SamplingLpResult& result) {
  const std::size_t m = eta.size();
  std::vector<char> repaired(m, 0);
  constexpr long double kMargin = 1.0L - 4.0L * LDBL_EPSILON;  // covers the rounding of the load sums
  for (int pass = 0;; ++pass) {
    std::vector<long double> load(m, 0.0L), carry(m, 0.0L);
    for (std::size_t g = 0; g < groups.count(); ++g) {
      const long double full = static_cast<long double>(gw.full[g]) * gw.level[g];
      for (const std::int32_t j : sets[groups.first_row[g]]) {
        const auto ju = static_cast<std::size_t>(j);
        neumaier_add(load[ju], carry[ju], full);
        neumaier_add(load[ju], carry[ju], gw.partial[g]);
      }
    }
    std::vector<double> factor(m, 1.0);
    bool violated = false;
    for (std::size_t j = 0; j < m; ++j) {
      if (!std::isfinite(eta[j])) continue;
      const long double total = load[j] + carry[j];
      if (total <= static_cast<long double>(eta[j]) * kMargin) continue;
      violated = true;
      repaired[j] = 1;
      if (pass == 0) {
        result.max_violation = std::max(result.max_violation, static_cast<double>((total - eta[j]) / eta[j]));
      }
      // 2 DBL_EPSILON covers the roundings of the factor and of w * f.
      factor[j] = static_cast<double>(static_cast<long double>(eta[j]) * kMargin / total) * (1.0 - 2.0 * DBL_EPSILON);
    }
    if (!violated) break;
    if (pass == 8) throw std::runtime_error("solve_sampling_lp: could not restore feasibility of the LP weights");
    for (std::size_t g = 0; g < groups.count(); ++g) {
      double f = 1.0;
      for (const std::int32_t j : sets[groups.first_row[g]]) f = std::min(f, factor[static_cast<std::size_t>(j)]);
      gw.level[g] *= f;
      gw.partial[g] *= f;
    }
  }
  result.repaired_secrets = static_cast<std::size_t>(std::count(repaired.begin(), repaired.end(), 1));
}

// The objective and the weak-duality bound of the prices.
void objective_and_dual_bound(const GroupWeights& gw, const SetList& sets, const Groups& groups, std::span<const double> eta,
                              SamplingLpResult& result) {
  const std::vector<double>& y = result.secret_prices;
  long double objective = 0.0L;
  long double bound = 0.0L;
  for (std::size_t j = 0; j < eta.size(); ++j) {
    if (y[j] > 0.0) bound += static_cast<long double>(eta[j]) * y[j];  // y_j = 0 whenever eta_j = inf
  }
  for (std::size_t g = 0; g < groups.count(); ++g) {
    const auto n = static_cast<long double>(groups.size[g]);
    objective += static_cast<long double>(gw.full[g]) * gw.level[g] + gw.partial[g];
    long double price = 0.0L;
    for (const std::int32_t j : sets[groups.first_row[g]]) price += y[static_cast<std::size_t>(j)];
    if (price < 1.0L) bound += n * (1.0L - price);
  }
  result.objective = static_cast<double>(objective);
  result.dual_bound = static_cast<double>(bound);
}

// Rows of a group in the order given: the first `full` at `level`, the next at `partial`, the rest 0.
std::vector<double> weights_per_row(const GroupWeights& gw, const Groups& groups) {
  std::vector<double> weights(groups.of_row.size());
  std::vector<std::int64_t> seen(groups.count(), 0);
  for (std::size_t t = 0; t < weights.size(); ++t) {
    const auto g = static_cast<std::size_t>(groups.of_row[t]);
    const std::int64_t position = seen[g]++;
    weights[t] = position < gw.full[g] ? gw.level[g] : (position == gw.full[g] ? gw.partial[g] : 0.0);
  }
  return weights;
}

}  // namespace

SamplingLpResult solve_sampling_lp(const SecretMatrix& secrets, std::span<const std::size_t> rows,
                                   std::span<const double> eta, const SamplingLpOptions& options) {
  check_eta(secrets.num_secrets, eta);
  RowSets rs = row_sets_of(secrets, rows, eta);
  const std::vector<char> active = keep_active_secrets(rs, eta, options.use_shortcuts);
  const Groups groups = group_rows(rs.sets, options.group_rows);

  SamplingLpResult result;
  result.groups = groups.count();
  result.secret_prices.assign(eta.size(), 0.0);
  std::vector<double> w(groups.count(), 1.0);
  std::size_t largest_set = 0;
  for (std::size_t g = 0; g < groups.count(); ++g) largest_set = std::max(largest_set, rs.sets[groups.first_row[g]].size());
  const bool any_active = std::find(active.begin(), active.end(), 1) != active.end();
  if (rows.empty()) {
    result.path = SamplingLpPath::kEmpty;
  } else if (options.use_shortcuts && !any_active) {
    result.path = SamplingLpPath::kAllOnes;
  } else if (options.use_shortcuts && largest_set <= 1) {
    result.path = SamplingLpPath::kPerSecret;
    solve_per_secret(rs.sets, groups, rs.holders, eta, w, result.secret_prices);
  } else {
    result.path = SamplingLpPath::kClp;
    solve_with_clp(rs.sets, groups, active, eta, options.algorithm, w, result);
  }

  for (double& v : w) v = std::clamp(std::isnan(v) ? 0.0 : v, 0.0, 1.0);
  GroupWeights gw = options.concentrate ? concentrated(w, groups.size) : spread(w, groups.size);
  repair_feasibility(gw, rs.sets, groups, eta, result);
  objective_and_dual_bound(gw, rs.sets, groups, eta, result);
  result.weights = weights_per_row(gw, groups);
  return result;
}

SamplingLpResult solve_sampling_lp(const SecretMatrix& secrets, std::span<const double> eta,
                                   const SamplingLpOptions& options) {
  std::vector<std::size_t> rows(secrets.rows());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return solve_sampling_lp(secrets, rows, eta, options);
}

}  // namespace secpe
