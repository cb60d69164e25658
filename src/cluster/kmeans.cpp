#include "cluster/kmeans.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <thread>
#include <unordered_set>

#include "cluster/lloyd_assignment.hpp"
#include "compute/impl/fast_float.hpp"
#include "compute/impl/fixed_point.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/timer.hpp"

namespace secpe {

namespace {


// Seeding weights (D^2) are reduced as fixed point with 2^-20 resolution: enough to order
// candidates, and two million unit-sphere rows still sum far below 2^63.
constexpr double kWeightScale = 1048576.0;

// Random streams of the seeding, all under Stream::kKMeansInit and options.stream: (0, 0) the
// first centre and the k-means++ draws over rows; (r, global row id) for r = 1..R the k-means||
// sampling rounds; (0, 1) the reduction of the k-means|| candidates; (0, 2) the random init.
constexpr std::uint64_t kReductionStream = 1;
constexpr std::uint64_t kRandomStream = 2;

// Distance used for seeding and repairs: squared L2, or 1 - cos for the cosine metric (half the
// squared L2 distance between unit vectors), from the kernel's score.
double seeding_distance(double score, Metric metric) {
  return metric == Metric::kCosine ? std::max(0.0, 1.0 + score) : std::max(0.0, score);
}

std::int64_t weight_of(double distance) { return static_cast<std::int64_t>(std::llround(distance * kWeightScale)); }

// How many threads are worth starting for n items of `cost` units (about a flop) each.


// The seeding distance computed with compute/impl/fast_float.hpp (not the kernel's exact score):
// squared L2, or 1 - cos as half the squared distance of the normalised vectors (exactly 0 for a
// duplicate of the centre). Depends only on the two vectors, so every rank gets the same value.
class FastSeeding {
 public:
  FastSeeding(const MatrixF& x, Metric metric, int threads) : x_(x), metric_(metric), threads_(threads) {
    if (metric_ != Metric::kCosine) return;
    inv_norms_.resize(static_cast<std::size_t>(x.rows()));
    run_chunks(chunk_count(threads, inv_norms_.size(), 2.0 * double(x.cols())), inv_norms_.size(),
               [&](int, std::size_t b, std::size_t e) {
                 for (std::size_t i = b; i < e; ++i) inv_norms_[i] = inv_norm(x_.row(static_cast<Eigen::Index>(i)).data(), x_.cols());
               });
  }
  static float inv_norm(const float* c, Eigen::Index d) { return 1.0f / std::sqrt(fast::dot(c, c, d)); }
  float row_inv_norm(Eigen::Index i) const {
    return metric_ == Metric::kCosine ? inv_norms_[static_cast<std::size_t>(i)] : 0.0f;
  }

  // min_dist[i] = min(min_dist[i], distance(row i, c)) for every row; c_inv_norm = inv_norm(c)
  // under cosine (unused otherwise).
  void update(std::vector<double>& min_dist, const float* c, float c_inv_norm) const {
    const Eigen::Index d = x_.cols();
    run_chunks(chunk_count(threads_, min_dist.size(), 3.0 * double(d)), min_dist.size(),
               [&](int, std::size_t b, std::size_t e) {
                 for (std::size_t i = b; i < e; ++i) {
                   const float* xi = x_.row(static_cast<Eigen::Index>(i)).data();
                   const double v = metric_ == Metric::kCosine
                                        ? 0.5 * double(fast::scaled_squared_l2(xi, inv_norms_[i], c, c_inv_norm, d))
                                        : double(fast::squared_l2(xi, c, d));
                   if (v < min_dist[i]) min_dist[i] = v;
                 }
               });
  }

 private:
  const MatrixF& x_;
  Metric metric_;
  int threads_;
  std::vector<float> inv_norms_;
};

// Draws one global row with probability proportional to `weights` (fixed point, this rank's rows)
// and returns it on every rank. Returns false when every weight is zero.
bool draw_weighted_row(const Communicator& comm, const MatrixF& rows, const std::vector<std::int64_t>& weights,
                       CounterRng& rng, Eigen::Index d, Eigen::Ref<Eigen::RowVectorXf> out) {
  std::int64_t local_total = 0;
  for (auto w : weights) local_total += w;
  const std::int64_t before = comm.exclusive_scan_sum(local_total);
  const std::int64_t total = comm.allreduce_sum(local_total);
  if (total <= 0) return false;
  const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(total)));
  const bool owner = u >= before && u < before + local_total;
  const int owner_rank = static_cast<int>(comm.allreduce_max(owner ? comm.rank() : -1));
  std::vector<float> row(static_cast<std::size_t>(d));
  if (owner) {
    std::int64_t acc = before;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      acc += weights[i];
      if (u < acc) {
        std::copy_n(rows.row(static_cast<Eigen::Index>(i)).data(), d, row.begin());
        break;
      }
    }
  }
  comm.broadcast(std::span<float>(row), owner_rank);
  out = Eigen::Map<Eigen::RowVectorXf>(row.data(), d);
  return true;
}

// A local index drawn with probability proportional to `weights`; -1 when they are all zero.
std::int64_t draw_index(const std::vector<std::int64_t>& weights, CounterRng& rng) {
  std::int64_t total = 0;
  for (auto w : weights) total += w;
  if (total <= 0) return -1;
  const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(total)));
  std::int64_t acc = 0;
  for (std::size_t j = 0; j < weights.size(); ++j) {
    acc += weights[j];
    if (u < acc) return static_cast<std::int64_t>(j);
  }
  return -1;  // unreachable
}

// k-means++ draws over the rows (probability proportional to min_dist, the D^2 of each row to the
// centres so far) until `centres` holds all its rows or every weight is zero. Returns how many
// centres there are.
Eigen::Index extend_plus_plus(const Communicator& comm, const MatrixF& rows, const FastSeeding& fast,
                              std::vector<double>& min_dist, CounterRng& rng, MatrixF& centres, Eigen::Index seeded) {
  const Eigen::Index k = centres.rows(), d = centres.cols();
  std::vector<std::int64_t> weights(min_dist.size());
  for (; seeded < k; ++seeded) {
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = weight_of(min_dist[i]);
    if (!draw_weighted_row(comm, rows, weights, rng, d, centres.row(seeded))) break;  // all rows already centres
    if (seeded + 1 < k) {
      const float* c = centres.row(seeded).data();
      fast.update(min_dist, c, FastSeeding::inv_norm(c, d));
    }
  }
  return seeded;
}

struct Shape {
  Eigen::Index n;       // this rank's rows
  Eigen::Index d;       // dimension (global)
  Eigen::Index k;       // centres wanted (at most the global row count)
  std::int64_t offset;  // global id of this rank's first row
  std::int64_t total;   // global row count
  int threads;
};

// k-means++: a uniform first centre, then D^2-weighted draws; D^2 to the first centre from the
// kernel's exact score, updates with the fast float distance.
MatrixF seed_plus_plus(const Communicator& comm, const KeptRows& kept, const NearestCentreKernel& kernel,
                       const KMeansOptions& o, const Shape& s) {
  const MatrixF& rows = kept.rows();
  const auto nz = static_cast<std::size_t>(s.n);
  CounterRng rng(o.seed, Stream::kKMeansInit, o.stream);
  MatrixF centres(s.k, s.d);
  draw_weighted_row(comm, rows, std::vector<std::int64_t>(nz, 1), rng, s.d, centres.row(0));
  std::vector<std::int32_t> nearest(nz);
  std::vector<double> score(nz), min_dist(nz);
  kernel.search_kept(kept, centres.topRows(1), o.metric, 1, nearest, score);
  for (std::size_t i = 0; i < nz; ++i) min_dist[i] = seeding_distance(score[i], o.metric);
  const FastSeeding fast(rows, o.metric, s.threads);
  const Eigen::Index seeded = extend_plus_plus(comm, rows, fast, min_dist, rng, centres, 1);
  centres.conservativeResize(seeded, s.d);
  return centres;
}

// k distinct rows, uniformly (Floyd's algorithm on the global ids, the same draws on every rank),
// in ascending global order.
MatrixF seed_random(const Communicator& comm, const MatrixF& rows, const KMeansOptions& o, const Shape& s) {
  CounterRng rng(o.seed, Stream::kKMeansInit, o.stream, 0, kRandomStream);
  const auto total = static_cast<std::uint64_t>(s.total);
  std::unordered_set<std::uint64_t> picked;
  for (std::uint64_t j = total - static_cast<std::uint64_t>(s.k); j < total; ++j) {
    const std::uint64_t t = rng.below(j + 1);
    if (!picked.insert(t).second) picked.insert(j);
  }
  std::vector<std::uint64_t> ids(picked.begin(), picked.end());
  std::sort(ids.begin(), ids.end());
  std::vector<float> mine;
  for (auto id : ids) {
    const auto g = static_cast<std::int64_t>(id);
    if (g >= s.offset && g < s.offset + s.n) {
      const float* r = rows.row(static_cast<Eigen::Index>(g - s.offset)).data();
      mine.insert(mine.end(), r, r + s.d);
    }
  }
  const std::vector<float> all = comm.allgather(mine);
  return Eigen::Map<const MatrixF>(all.data(), s.k, s.d);
}

// k-means|| (Bahmani et al. 2012). Candidates are kept in global row order within a round and in
// round order overall; each row tracks its nearest candidate by the kernel's exact score (strict
// improvement only, so ties go to the earlier, lower-numbered candidate).
MatrixF seed_parallel(const Communicator& comm, const KeptRows& kept, const NearestCentreKernel& kernel,
                      const KMeansOptions& o, const Shape& s, KMeansResult& result) {
  const MatrixF& rows = kept.rows();
  const auto nz = static_cast<std::size_t>(s.n);
  const Eigen::Index d = s.d;
  CounterRng rng(o.seed, Stream::kKMeansInit, o.stream);
  MatrixF first(1, d);
  draw_weighted_row(comm, rows, std::vector<std::int64_t>(nz, 1), rng, d, first.row(0));
  std::vector<float> cand(first.data(), first.data() + d);
  std::vector<std::int32_t> owner(nz, 0), nearest(nz);
  std::vector<double> best(nz), score(nz);
  kernel.search_kept(kept, first, o.metric, 1, nearest, best);
  std::vector<std::int64_t> weights(nz);
  for (std::size_t i = 0; i < nz; ++i) weights[i] = weight_of(seeding_distance(best[i], o.metric));

  const double l = std::max(1.0, o.oversampling * double(s.k));
  for (int round = 1; round <= o.init_rounds; ++round) {
    std::int64_t local_psi = 0;
    for (auto w : weights) local_psi += w;
    const std::int64_t psi = comm.allreduce_sum(local_psi);
    if (psi <= 0) break;  // every row is a candidate already
    std::vector<float> picked;
    for (std::size_t i = 0; i < nz; ++i) {
      if (weights[i] <= 0) continue;
      const double p = std::min(1.0, l * double(weights[i]) / double(psi));
      const auto id = static_cast<std::uint64_t>(s.offset) + i;
      if (keyed_uniform(o.seed, Stream::kKMeansInit, o.stream, static_cast<std::uint64_t>(round), id) < p) {
        const float* r = rows.row(static_cast<Eigen::Index>(i)).data();
        picked.insert(picked.end(), r, r + d);
      }
    }
    const std::vector<float> gathered = comm.allgather(picked);
    const auto m = static_cast<Eigen::Index>(gathered.size() / static_cast<std::size_t>(d));
    if (m == 0) continue;
    const MatrixF block = Eigen::Map<const MatrixF>(gathered.data(), m, d);
    const auto base = static_cast<std::int32_t>(cand.size() / static_cast<std::size_t>(d));
    kernel.search_kept(kept, block, o.metric, 1, nearest, score);
    for (std::size_t i = 0; i < nz; ++i) {
      if (score[i] < best[i]) {
        best[i] = score[i];
        owner[i] = base + nearest[i];
        weights[i] = weight_of(seeding_distance(best[i], o.metric));
      }
    }
    cand.insert(cand.end(), gathered.begin(), gathered.end());
  }
  const auto m = static_cast<Eigen::Index>(cand.size() / static_cast<std::size_t>(d));
  result.init_candidates = m;
  const MatrixF candidates = Eigen::Map<const MatrixF>(cand.data(), m, d);
  std::vector<double> min_dist(nz);
  const FastSeeding fast(rows, o.metric, s.threads);
  CounterRng reduction_rng(o.seed, Stream::kKMeansInit, o.stream, 0, kReductionStream);
  MatrixF centres(s.k, d);
  if (m <= s.k) {  // too few candidates: all of them, then k-means++ over the rows for the rest
    centres.topRows(m) = candidates;
    for (std::size_t i = 0; i < nz; ++i) min_dist[i] = seeding_distance(best[i], o.metric);
    const Eigen::Index seeded = extend_plus_plus(comm, rows, fast, min_dist, reduction_rng, centres, m);
    centres.conservativeResize(seeded, d);
    return centres;
  }

  // Weight of each candidate: the rows nearest to it (exact integer counts).
  std::vector<std::int64_t> cw(static_cast<std::size_t>(m), 0);
  for (auto c : owner) ++cw[static_cast<std::size_t>(c)];
  comm.allreduce_sum(cw);

  // Weighted k-means++ over the candidates, identical on every rank (same data, same draws).
  const FastSeeding cfast(candidates, o.metric, s.threads);
  std::vector<double> cdist(static_cast<std::size_t>(m), std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> cweights(static_cast<std::size_t>(m));
  Eigen::Index chosen = 0;
  std::int64_t pick = draw_index(cw, reduction_rng);
  while (pick >= 0) {
    const auto p = static_cast<Eigen::Index>(pick);
    centres.row(chosen++) = candidates.row(p);
    if (chosen == s.k) break;
    cfast.update(cdist, candidates.row(p).data(), cfast.row_inv_norm(p));
    cdist[static_cast<std::size_t>(p)] = 0.0;
    for (std::size_t j = 0; j < cweights.size(); ++j) cweights[j] = cw[j] * weight_of(cdist[j]);
    pick = draw_index(cweights, reduction_rng);
  }
  if (chosen < s.k) {  // the candidates ran out of distinct points: k-means++ over the rows
    kernel.search_kept(kept, centres.topRows(chosen), o.metric, 1, nearest, score);
    for (std::size_t i = 0; i < nz; ++i) min_dist[i] = seeding_distance(score[i], o.metric);
    chosen = extend_plus_plus(comm, rows, fast, min_dist, reduction_rng, centres, chosen);
    centres.conservativeResize(chosen, d);
  }
  return centres;
}

// This rank's per-centre fixed-point sums and counts, kept from one assignment to the next: the
// rows that changed centre are taken from their old centre and added to their new one. Integer
// arithmetic, so the result is the full sum exactly; late iterations move few rows.
class LocalSums {
 public:
  // incremental false: every row summed every time (the plain reference).
  LocalSums(Eigen::Index k, Eigen::Index d, bool incremental)
      : sums_(static_cast<std::size_t>(k * d)), counts_(static_cast<std::size_t>(k)), incremental_(incremental) {}
  void update(const NearestCentreKernel& kernel, const KeptRows& kept, std::span<const std::int32_t> nearest) {
    std::vector<std::uint8_t> moved(nearest.size(), 0);
    std::size_t count = 0;
    for (std::size_t i = 0; i < previous_.size(); ++i) {
      moved[i] = previous_[i] != nearest[i];
      count += moved[i];
    }
    if (!incremental_ || previous_.empty() || 4 * count > nearest.size()) {  // many moved: the full sum is cheaper
      std::fill(sums_.begin(), sums_.end(), 0);
      std::fill(counts_.begin(), counts_.end(), 0);
      kernel.add_kept_to_centres(kept, nearest, {}, sums_, counts_);
    } else if (count > 0) {
      std::vector<std::int64_t> gone(sums_.size(), 0), gone_counts(counts_.size(), 0);
      kernel.add_kept_to_centres(kept, previous_, moved, gone, gone_counts);
      kernel.add_kept_to_centres(kept, nearest, moved, sums_, counts_);
      for (std::size_t j = 0; j < sums_.size(); ++j) sums_[j] -= gone[j];
      for (std::size_t c = 0; c < counts_.size(); ++c) counts_[c] -= gone_counts[c];
    }
    if (incremental_) previous_.assign(nearest.begin(), nearest.end());
  }
  const std::vector<std::int64_t>& sums() const { return sums_; }
  const std::vector<std::int64_t>& counts() const { return counts_; }

 private:
  std::vector<std::int64_t> sums_, counts_;
  std::vector<std::int32_t> previous_;
  bool incremental_;
};

void normalise_rows(MatrixF& m) {
  for (Eigen::Index k = 0; k < m.rows(); ++k) {
    const double n = m.row(k).cast<double>().norm();
    if (n > 0) m.row(k) = (m.row(k).cast<double>() / n).cast<float>();
  }
}

// Empty clusters take the row farthest from its centre (global, ties to the lowest index); a row
// once taken counts as at distance 0. `score` is every row's exact score to its centre. Returns how
// many were repaired.
int repair_empty_clusters(const Communicator& comm, const MatrixF& rows, std::span<const std::int64_t> counts,
                          std::span<const double> score, Metric metric, std::int64_t offset, MatrixF& updated) {
  const Eigen::Index n = rows.rows(), d = updated.cols();
  std::vector<std::uint8_t> taken;  // marked here: the Lloyd step's scores stay as its search left them
  int repaired = 0;
  for (Eigen::Index c = 0; c < updated.rows(); ++c) {
    if (counts[static_cast<std::size_t>(c)] != 0) continue;
    taken.resize(static_cast<std::size_t>(n), 0);
    MinLoc far{std::numeric_limits<double>::infinity(), std::numeric_limits<std::int64_t>::max()};
    for (std::size_t i = 0; i < taken.size(); ++i) {
      const double v = -seeding_distance(taken[i] ? -std::numeric_limits<double>::infinity() : score[i], metric);
      if (v < far.value) far = {v, offset + static_cast<std::int64_t>(i)};
    }
    comm.allreduce_min_loc(std::span<MinLoc>(&far, 1));
    const bool owner = far.index >= offset && far.index < offset + n;
    const int owner_rank = static_cast<int>(comm.allreduce_max(owner ? comm.rank() : -1));
    std::vector<float> row(static_cast<std::size_t>(d));
    if (owner) {
      const auto local = static_cast<Eigen::Index>(far.index - offset);
      std::copy_n(rows.row(local).data(), d, row.begin());
      taken[static_cast<std::size_t>(local)] = 1;
    }
    comm.broadcast(std::span<float>(row), owner_rank);
    updated.row(c) = Eigen::Map<Eigen::RowVectorXf>(row.data(), d);
    ++repaired;
  }
  return repaired;
}

}  // namespace

KMeansResult distributed_kmeans(const Communicator& comm, const MatrixF& rows, const NearestCentreKernel& kernel,
                                const KMeansOptions& options) {
  if (options.metric == Metric::kInnerProduct) throw InputError("k-means supports the l2 and cosine metrics");
  if (options.k < 1) throw InputError("k-means: k must be at least 1");
  if (options.init_rounds < 0) throw InputError("k-means: init_rounds must not be negative");
  if (!(options.oversampling > 0)) throw InputError("k-means: oversampling must be positive");
  const std::int64_t total_rows = comm.allreduce_sum(static_cast<std::int64_t>(rows.rows()));
  const auto d = static_cast<Eigen::Index>(comm.allreduce_max(static_cast<double>(rows.cols())));
  KMeansResult result;
  if (total_rows == 0) return result;
  const auto k = static_cast<Eigen::Index>(std::min<std::int64_t>(options.k, total_rows));
  const Eigen::Index n = rows.rows();
  const auto nz = static_cast<std::size_t>(n);
  const std::int64_t offset = comm.exclusive_scan_sum(n);
  const int threads = options.threads > 0 ? options.threads : default_threads();
  const Shape shape{n, d, k, offset, total_rows, threads};

  // The rows stay where the kernel computes (a GPU's memory) for every search and sum below.
  const std::unique_ptr<KeptRows> kept = kernel.keep(rows);

  // ---- seeding ----
  Timer t0;
  MatrixF centres;
  switch (options.init) {
    case KMeansInit::kParallel: centres = seed_parallel(comm, *kept, kernel, options, shape, result); break;
    case KMeansInit::kPlusPlus: centres = seed_plus_plus(comm, *kept, kernel, options, shape); break;
    case KMeansInit::kRandom: centres = seed_random(comm, rows, options, shape); break;
  }
  const Eigen::Index kk = centres.rows();
  result.seed_seconds = t0.seconds();
  t0.restart();

  // ---- Lloyd iterations ----
  std::vector<std::int32_t> nearest(nz);
  std::vector<double> score(nz);
  std::vector<std::int64_t> sums(static_cast<std::size_t>(kk * d)), counts(static_cast<std::size_t>(kk));
  const bool incremental = options.incremental && kernel.partial_passes_pay();
  LloydAssignment assignment(*kept, kernel, options.metric, incremental);
  LocalSums local(kk, d, incremental);
  auto accumulate = [&] {
    assignment.assign(centres, nearest, score);
    result.pairs_assigned += n * kk;
    local.update(kernel, *kept, nearest);
    sums = local.sums();
    counts = local.counts();
    comm.allreduce_sum(sums);
    comm.allreduce_sum(counts);
  };
  for (int it = 0; it < options.max_iterations; ++it) {
    accumulate();
    result.iterations = it + 1;
    MatrixF updated = centres;
    for (Eigen::Index c = 0; c < kk; ++c) {
      if (counts[c] == 0) continue;
      for (Eigen::Index j = 0; j < d; ++j) {
        updated(c, j) = static_cast<float>(from_fixed(sums[c * d + j]) / double(counts[c]));
      }
    }
    if (options.metric == Metric::kCosine) normalise_rows(updated);
    result.empty_repairs += repair_empty_clusters(comm, rows, counts, score, options.metric, offset, updated);
    const double shift = (updated - centres).rowwise().norm().maxCoeff();
    centres = std::move(updated);
    if (shift <= options.tolerance) break;
  }
  accumulate();  // sizes and assignment for the final centres
  result.lloyd_seconds = t0.seconds();
  result.pairs_scored = assignment.pairs_scored();
  result.centres = std::move(centres);
  result.sizes = counts;
  result.assignment = nearest;
  return result;
}

}  // namespace secpe
