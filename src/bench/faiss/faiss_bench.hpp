#pragma once
// Our kernels against FAISS (Debian's libfaiss-dev) on the same data and thread count:
// exact 1-NN search (IndexFlatIP / IndexFlatL2) and k-means (faiss::Clustering).
// Built only when FAISS is found (SECPE_HAVE_FAISS).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/kmeans.hpp"

namespace secpe {

struct FaissBenchOptions {
  std::size_t queries = 20000;     // private records voting
  std::size_t candidates = 35000;  // N_syn (L + 1) at Yelp scale
  int dim = 768;
  std::size_t kmeans_points = 100000;
  // k-means points from a dataset instead of random unit rows: the public rows (no secret) of its
  // label with the most of them, in record order, at most kmeans_points (clustered, real-shaped
  // data, as one label of SecPE's setup sees it). Empty: random unit rows.
  std::string kmeans_data;
  // The exact search on a dataset's public rows (of the same label as above) instead of random unit
  // rows: the first `candidates` indexed, the next `queries` searched. Empty: random unit rows.
  std::string search_data;
  int kmeans_clusters = 600;
  int kmeans_iterations = 5;
  std::string kmeans_init = kmeans_init_name(KMeansOptions{}.init);  // our seeding: random, parallel (k-means||) or plusplus
  int kmeans_init_rounds = KMeansOptions{}.init_rounds;  // k-means|| rounds R
  int threads = 1;
  int repeats = 3;                 // FAISS and ours back to back, this many times; medians and ratios reported
  std::string kernel = "blas";
  std::string screen = "auto";     // blas: the candidate screen (blas_kernel.hpp)
  bool screen_shift = true;        // blas: BlasKernelOptions::screen_shift (false: to measure what it gains)
  std::uint64_t seed = 1;
};

nlohmann::ordered_json bench_faiss(const FaissBenchOptions& options);

}  // namespace secpe
