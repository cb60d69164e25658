#pragma once
// The noise calibration's cost (secpe bench privacy): the whole calibration stage of `secpe run`
// (gather of the secret sets, exact LP per label, profiles, the accountant) in the paper's and the
// exact mode, on a synthetic secret matrix (bench/synth_embeddings.hpp) or on a dataset's.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/synth_embeddings.hpp"
#include "comms/communicator.hpp"
#include "evolve/secret_certification.hpp"

namespace secpe {

struct PrivacyBenchOptions {
  SynthEmbeddingOptions synth{.dim = 1};  // records, labels, secrets, holders, seed (only labels and secrets matter)
  std::filesystem::path data;             // a dataset instead of synthetic data (its labels and secrets only)
  int iterations = 5;                     // releases T the noise is calibrated for
  double batch = 1000.0;                  // expected private records sampled per label and iteration
  double p = 1e-4, r = 1e-3;
  int threads = 1;                        // accountant threads per rank
  int repeats = 1;
  int ledger_runs = 0;                    // > 0: also time composing the exact plan with this many earlier runs (the ledger's work)
  // Earlier run k (1 .. ledger_runs) at (1 + ledger_noise_step k) times the plan's noise, as a grid
  // of runs at several budgets; 0: every earlier run alike (their releases merge: the cheapest case).
  double ledger_noise_step = 0.0;
  // > 0: also bound every this-many-th secret's combination at full precision and on the coarse pass
  // alone, and report how much looser the coarse figures are (figures.ledger.coarse_looser).
  std::size_t ledger_check_every = 0;
  CertificationOptions certification{};
};

// Figures per mode: seconds of every repeat (slowest rank), lambda, the worst r_j / p_j and how
// many secrets got each kind of bound (privacy/secret_noise.hpp, BoundSource); with ledger_runs,
// the seconds a run's composition with that many earlier runs takes (evolve/run_budget.hpp).
nlohmann::ordered_json bench_privacy(const Communicator& comm, const PrivacyBenchOptions& options);

}  // namespace secpe
