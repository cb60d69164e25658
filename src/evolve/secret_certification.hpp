#pragma once
// The exact calibration's search for lambda and the bound reported for every secret, split over
// the ranks and their threads (docs/method.md, section 5 'Noise calibration'). The maths is
// privacy/secret_noise.hpp (the model and its profiles) and privacy/holder_profiles.hpp
// (dominance); this is the orchestration.
//
// Work is per distinct holder profile: secrets with the same profile share every evaluation and
// root search, which gives them the same numbers bit for bit. Two regimes, by the number of
// distinct profiles:
//  * at most `exact_profiles`: every secret's bound is the accountant's at full precision on its
//    own profile, exactly as if each secret were computed alone;
//  * more: the bulk of the profiles is certified cheaply, each bound still rigorous: a profile
//    dominated by a certified one takes that one's bound (no computation), the others are
//    evaluated by the accountant on a coarser loss grid (slack_target `coarse_slack`; on the demo
//    corpus' profiles 25x faster and within 7e-4 of the full-precision bound), and at full
//    precision when that coarse bound lies within `confirm_band` above the budget. The roots that
//    set lambda are always searched at full precision.
// Every pass goes through the profiles in blocks of kBlock, in the order of the secrets' exposure;
// within a block entry k goes to worker k mod W of the W = ranks x threads workers, results are
// gathered with exact reductions, and dominance only looks at profiles certified in earlier
// blocks: so lambda, every bound and every dominator are the same for any number of ranks and
// threads.
#include <cstdint>
#include <memory>
#include <vector>

#include "comms/communicator.hpp"
#include "privacy/secret_noise.hpp"

namespace secpe {

struct CertificationOptions {
  std::size_t exact_profiles = 1000;  // distinct profiles up to which every bound is at full precision
  double coarse_slack = 1e-2;         // the bulk's accountant grid (AccountantOptions::slack_target)
  double confirm_band = 1e-2;         // coarse bounds in (r, r (1 + band)] are recomputed at full precision
};

// Per secret: the reported bound, where it comes from, and for a dominated one a secret of the
// dominating profile (-1 otherwise).
struct SecretBounds {
  std::vector<double> achieved_r;
  std::vector<BoundSource> source;
  std::vector<std::int64_t> dominated_by;
};

class SecretCertifier {
 public:
  SecretCertifier(const SecretNoiseModel& model, const Communicator& comm, int threads, const CertificationOptions& options);
  ~SecretCertifier();

  // Exact mode: the smallest lambda (to the root searches' 1e-6) at which every secret is
  // certified, found with few root searches (see the .cpp), and every secret's bound at it.
  // Returns 0, with no bounds, when no secret needs any noise.
  double certify(SecretBounds& bounds);
  // Every secret's bound at a given lambda (the paper's sigma, or a lambda chosen without search).
  SecretBounds bounds_at(double lambda);

 private:
  struct Workers;  // the accountant's workers over every rank's threads (the .cpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::int64_t> secrets_of_dominators() const;
};

}  // namespace secpe
