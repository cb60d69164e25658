#pragma once
// Distributed k-means over row shards (cuVS kmeans_mg style): each rank holds some rows, the
// communicator is passed in; assign locally, reduce per-centre sums and counts, allreduce.
// Sums are fixed point and counts integers, so the result is identical for any rank count.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compute/nearest.hpp"
#include "core/enum_names.hpp"
#include "core/matrix.hpp"
#include "comms/communicator.hpp"

namespace secpe {

// How the initial centres are chosen.
enum class KMeansInit {
  // k-means|| (Bahmani et al., "Scalable K-Means++", VLDB 2012): a uniform first centre, then
  // `init_rounds` rounds that each sample every row independently with probability
  // min(1, l D^2 / psi), l = oversampling * k (a GEMM-shaped search per round instead of k
  // sequential passes); the candidates, weighted by the rows nearest to them, are reduced to k by
  // weighted k-means++ (run identically on every rank).
  kParallel,
  kPlusPlus,  // k-means++ (Arthur and Vassilvitskii): k sequential D^2-weighted draws
  kRandom,    // k distinct rows chosen uniformly (what FAISS does)
};

// "kmeans||" and "kmeans++" are accepted for parallel and plusplus.
inline constexpr EnumNames<KMeansInit, 5> kKMeansInitNames{{{KMeansInit::kParallel, "parallel"},
                                                           {KMeansInit::kPlusPlus, "plusplus"},
                                                           {KMeansInit::kRandom, "random"},
                                                           {KMeansInit::kParallel, "kmeans||"},
                                                           {KMeansInit::kPlusPlus, "kmeans++"}}};
inline KMeansInit parse_kmeans_init(const std::string& name) { return parse_name(kKMeansInitNames, name, "the k-means initialisation"); }
inline std::string kmeans_init_name(KMeansInit init) { return std::string(name_of(kKMeansInitNames, init)); }

struct KMeansOptions {
  int k = 20;
  int max_iterations = 20;
  double tolerance = 1e-4;      // stop when no centre moves more than this (L2)
  Metric metric = Metric::kCosine;  // cosine: spherical k-means, centres re-normalised
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;     // e.g. the label id: separates the seeding streams of labels
  // Random seeding, as FAISS does: it keeps the spherical k-means objective within 1% of
  // k-means|| on uniform, clustered (synth-embeddings) and real text embeddings (the Yelp dev set)
  // and costs nothing, where k-means|| was three quarters of SecPE's setup (README, Performance).
  KMeansInit init = KMeansInit::kRandom;
  // Lloyd's iterations redo only what can have changed (cluster/lloyd_assignment.hpp): rows are
  // searched against the centres that moved (every centre for rows whose own centre moved), and
  // only rows that changed centre update the sums; the same results bit for bit. false: every row
  // searched and summed in every iteration (the plain reference the tests compare with), as with a
  // kernel whose partial passes do not pay (NearestCentreKernel::partial_passes_pay: a GPU).
  bool incremental = true;
  int init_rounds = 5;          // k-means||: sampling rounds R
  double oversampling = 2.0;    // k-means||: expected candidates per round l = oversampling * k
  // Threads of the seeding distances and of the Lloyd sums (the kernel has its own setting).
  // 0: SECPE_THREADS if set, else the hardware's. Results do not depend on it.
  int threads = 0;
};

struct KMeansResult {
  MatrixF centres;                    // k x d (k lowered to the number of rows if fewer)
  std::vector<std::int64_t> sizes;    // rows assigned to each centre (global)
  std::vector<std::int32_t> assignment;  // for this rank's rows
  int iterations = 0;
  int empty_repairs = 0;
  std::int64_t init_candidates = 0;   // k-means||: candidates sampled before the reduction to k
  // Lloyd's assignments on this rank: pairs (row, centre) scored, of those a search of every row
  // against every centre in every assignment (the final one included) would score.
  std::int64_t pairs_scored = 0, pairs_assigned = 0;
  // Wall time on this rank (timings are the only outputs that differ between runs).
  double seed_seconds = 0.0;   // choosing the initial centres
  double lloyd_seconds = 0.0;  // the Lloyd iterations and the final assignment pass
};

// Seeding (options.init) then Lloyd iterations. `rows` are this rank's rows; the global row order
// is rank order (ranks own contiguous record ranges), which seeding relies on to be rank-count
// independent: every random draw is keyed by global row ids, every reduction is exact, and the
// seeding distances are computed by rank-independent routines (the kernel's exact scores, or
// compute/impl/fast_float.hpp). `kernel` computes assignments and sums; it keeps the rows (a GPU: in
// its memory, uploaded once) for the whole call.
KMeansResult distributed_kmeans(const Communicator& comm, const MatrixF& rows,
                                const NearestCentreKernel& kernel, const KMeansOptions& options);

}  // namespace secpe
