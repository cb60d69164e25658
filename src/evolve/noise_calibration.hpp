#pragma once
// The pipeline's calibration stage: the distributed side of SecretNoise (the maths is
// privacy/secret_noise.hpp). Every rank gathers every label's private secret sets in global
// record order (a few integers per private record) and builds the same SecretNoiseModel: the
// labels' LPs are shared out over the ranks (each solves its labels on its threads, then all
// exchange the weights) and each label's is the same bits wherever it is solved, so the LPs and
// sigmas do not depend on the rank count. The
// accountant's work (a few root searches, then one bound per distinct holder profile; see
// evolve/secret_certification.hpp) is split over the ranks and their threads and gathered with
// exact reductions, so the plan is the same for every split.
#include <cstdint>
#include <span>

#include "core/secret_matrix.hpp"
#include "comms/communicator.hpp"
#include "evolve/secret_certification.hpp"
#include "privacy/public_profile.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {

struct NoiseCalibrationInputs {
  const SecretMatrix& local_secrets;            // this rank's records
  std::span<const std::int32_t> local_labels;   // their label ids
  std::size_t num_labels = 0;
  const SecretBudgets& budgets;
  int iterations = 0;
  double batch = 0.0;                           // expected private records sampled per label and iteration
  CalibrationMode mode = CalibrationMode::kExact;
  PublicProfile profile{};                      // kPublicProfile: the user's public caps
  int threads = 1;                              // accountant threads per rank (results do not depend on it)
  CertificationOptions certification{};         // when and how the bulk of many profiles is certified cheaply
};

// The plan, with `rho` for this rank's records (0 for public ones) and the wall time. Under the
// public profile (privacy/public_profile.hpp): every label gets the profile's sigma, and every
// private record of label l is sampled with min(q, B / n_l).
SecretNoisePlan calibrate_secret_noise(const Communicator& comm, const NoiseCalibrationInputs& in);

// The most records any secret is held by, over all labels (collective). For the public profile's
// check that the data keep the user's cap, before any work.
std::int64_t max_holders_per_secret(const Communicator& comm, const SecretMatrix& local_secrets);

}  // namespace secpe
