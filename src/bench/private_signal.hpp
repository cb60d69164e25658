#pragma once
// Where private votes start to carry signal (`secpe bench histogram --r-over-p LIST`): per r/p,
// noise calibrated as a run calibrates it (SecPE: the sampling LP and the accountant,
// --calibration; Aug-PE: record-level GDP), then one iteration's release of every label, noisy
// and noise-free (the same private sample, no noise), and the votes each gives the candidates.
// The figures compare the noisy votes, and the public-only votes (what is known without any
// private record), with the noise-free ones: the private records carry signal through the noise
// where the noisy votes agree with the noise-free release more often than the public-only votes
// do. SecPE votes with the shrunk estimate a run votes with (evolve/release_estimate.hpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/nearest.hpp"
#include "core/matrix.hpp"
#include "core/secret_key.hpp"
#include "comms/communicator.hpp"
#include "evolve/shard.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {

struct PrivateSignalOptions {
  std::vector<double> r_over_p;   // each r/p to measure (9999 stands for "no privacy")
  double p = 1e-4;
  int iterations = 10;            // T of the calibration
  CalibrationMode calibration = CalibrationMode::kExact;
  double private_batch = 1000.0;  // B per label
  int threads = 1;
  // The candidates voted on: "random" (the timing benchmark's random unit vectors, far from the
  // data, so a centre's nearest candidate changes only when the centre moves far) or "centres"
  // (record-like points around the label's public centres: centre + candidate_spread times a
  // random unit vector, normalised, as texts near the data would embed).
  std::string candidates = "random";
  double candidate_spread = 0.6;
};

// One label's public clustering (k-means of its public rows), as the benchmark's setup made it.
struct PublicClusters {
  MatrixF centres;
  std::vector<std::int64_t> sizes;
};

// `clusters[l]` and `candidates[l]` for every label this rank evolves (by label; every label by
// record), `synthetic[l]` its N_syn share (0: skipped). Figures are summed over labels (and over
// ranks when sharded by label): one JSON object per r/p.
nlohmann::ordered_json private_signal(const Communicator& comm, const Shard& shard, const std::vector<PublicClusters>& clusters,
                                      const std::vector<MatrixF>& candidates, const std::vector<std::size_t>& synthetic,
                                      const NearestCentreKernel& kernel, const NoiseKey& key, const PrivateSignalOptions& options);

}  // namespace secpe
