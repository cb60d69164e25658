#pragma once
// Per-iteration vote-histogram cost of SecPE (noisy public-cluster centres vote, O(K x N_cand))
// against Aug-PE (every private record votes, O(M x N_cand)), on an embedding dataset such as
// `secpe synth-embeddings` writes. Candidates are random unit vectors (generation and embedding
// are not part of the histogram).
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/private_signal.hpp"
#include "cluster/kmeans.hpp"
#include "compute/nearest.hpp"
#include "comms/communicator.hpp"
#include "evolve/shard.hpp"

namespace secpe {

struct HistogramBenchOptions {
  std::filesystem::path data;
  std::size_t synthetic = 5000;   // N_syn over all labels
  int variations = 6;             // L: N_cand = N_syn (L + 1)
  int clusters = 600;             // K per label
  int repeats = 3;                // timed repetitions of the iteration
  int kmeans_iterations = 10;
  std::string kmeans_init = kmeans_init_name(KMeansOptions{}.init);  // seeding of the setup
  bool kmeans_incremental = KMeansOptions{}.incremental;  // the setup's Lloyd iterations redo only what can have changed (off: every row searched)
  double private_batch = 1000.0;
  double sigma = 10.0;            // noise scale (its value does not change the cost)
  int threads = 1;                // compute threads per rank
  std::string method = "both";    // secpe | augpe | both
  std::string augpe_voters = "all";  // all (every record votes, as in Aug-PE) | private
  double augpe_fraction = 1.0;    // share of the voters measured; below 1 the time is a cost-model estimate
  std::string kernel = "blas";    // the CPU's kernel (a device's takes its place: devices/device_kind.hpp)
  std::uint64_t seed = 1;
  ShardBy shard_by = ShardBy::kAuto;  // records split by record range or by label (evolve/shard.hpp)
  // Per r/p of signal.r_over_p (none when empty): how much of the private records' votes survives
  // the noise (bench/private_signal.hpp); its private batch and threads are the ones above.
  PrivateSignalOptions signal;
};

// The figures, every search and sum made by `kernel` (its device's: devices/device_kind.hpp).
nlohmann::ordered_json bench_histogram(const Communicator& comm, const NearestCentreKernel& kernel, const HistogramBenchOptions& options);

}  // namespace secpe
