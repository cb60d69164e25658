#include "audit/privacy_audit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "audit/clopper_pearson.hpp"
#include "cluster/secret_clustering.hpp"
#include "compute/nearest.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/timer.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/run_composition.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

constexpr std::uint64_t kLabel = 0;
// Which randomness a draw belongs to: the trials on D, those on D', the no-secret model.
enum class Source : std::uint64_t { kWithSecret = 0, kWithoutSecret = 1, kModel = 2 };

// The releases one trial sees: T of each of the K runs, every one with its own noise (a draw is
// keyed by its release number, so run k's iteration t is release k T + t).
int releases_per_trial(const AuditOptions& o) { return o.iterations * o.runs; }

// Trials or draws between a thread's progress reports: 4096 where they are cheap (the default audit
// draws 2 million in a third of a second), fewer as each costs more, down to every one, so that a
// line shows at least every second or so: a draw evaluates iterations x (holders + 1) mixture
// terms (a few ns each), and 10,000 holders over 1,000 iterations took 40 ms a draw and 0.3 s a
// trial, which reported nothing in 6 minutes at a fixed 4096.
std::size_t progress_every(const AuditOptions& o) {
  const double terms = double(releases_per_trial(o)) * double(o.holders + 1);
  return static_cast<std::size_t>(std::clamp(1e7 / terms, 1.0, 4096.0));
}

// Every call of the audited mechanism goes through here: (dataset, trial, iteration) -> one
// release. Each trial's sampling and noise are keyed by its own seed, derived from the audit seed,
// the dataset and the trial number, so no two trials (nor D and D') share randomness.
NoisyClusters release_trial(const SecretClustering& mechanism, std::uint64_t audit_seed, Source dataset,
                            std::int64_t trial, int iteration, double sigma) {
  // The audit is a simulation: its trials' noise keys may come from the public audit seed.
  CounterRng rng(audit_seed, Stream::kAudit, static_cast<std::uint64_t>(dataset), static_cast<std::uint64_t>(trial));
  NoiseKey key;
  for (std::size_t i = 0; i < key.bytes.size(); i += 8) {
    const std::uint64_t word = rng.next_u64();
    for (std::size_t b = 0; b < 8; ++b) key.bytes[i + b] = static_cast<unsigned char>(word >> (8 * b));
  }
  return mechanism.release(key, kLabel, iteration, sigma);
}

// The likelihood-ratio attack of the header, for the setting built in run_audit (centre R u with
// u the first axis, holders clipped to -R u).
class ShiftAttack {
 public:
  ShiftAttack(const AuditOptions& o, double sigma)
      : n_(static_cast<double>(o.public_size)), radius_(o.clip_radius),
        origin_(static_cast<float>(o.clip_radius)), sigma_(sigma) {
    const std::vector<double> pmf = poisson_binomial_pmf(std::vector<double>(static_cast<std::size_t>(o.holders), o.rho), 0.0);
    for (std::size_t c = 0; c < pmf.size(); ++c) {
      if (pmf[c] <= 0.0) continue;
      // c sampled holders add c to the size and move the centre by c (-2R u) / (n + c), which is
      // c n / ((n + c) sigma) in units of the centre noise (2R / n) sigma.
      const double count = static_cast<double>(c);
      log_pi_.push_back(std::log(pmf[c]));
      size_shift_.push_back(count / sigma);
      centre_shift_.push_back(count * n_ / ((n_ + count) * sigma));
    }
  }

  // log dP/dQ of one release. The centre starts at the public one's first coordinate (R, as a
  // float) and the holders pull it towards -R.
  double log_ratio(const NoisyClusters& release) const {
    const double z_size = (release.sizes[0] - n_) / sigma_;
    const double z_centre = (origin_ - double(release.centres(0, 0))) * n_ / (2.0 * radius_ * sigma_);
    return log_ratio(z_size, z_centre);
  }

  // The same in noise units: log sum_c pi_c exp(a_c x + b_c y - (a_c^2 + b_c^2) / 2). Two passes
  // (the largest term, then the sum) and no scratch space: threads share one attack.
  double log_ratio(double z_size, double z_centre) const {
    const auto term = [&](std::size_t i) {
      const double a = size_shift_[i], b = centre_shift_[i];
      return log_pi_[i] + a * z_size + b * z_centre - 0.5 * (a * a + b * b);
    };
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < log_pi_.size(); ++i) top = std::max(top, term(i));
    double sum = 0.0;
    for (std::size_t i = 0; i < log_pi_.size(); ++i) sum += std::exp(term(i) - top);
    return top + std::log(sum);
  }

 private:
  double n_, radius_, origin_, sigma_;
  std::vector<double> log_pi_, size_shift_, centre_shift_;
};

// FPR targets: 0.5 down to kMinEvents / trials, four per decade.
std::vector<double> fpr_grid(std::int64_t trials) {
  std::vector<double> grid;
  const double smallest = kMinEvents / static_cast<double>(trials);
  for (int i = 0;; ++i) {
    const double alpha = 0.5 * std::pow(10.0, -0.25 * i);
    if (alpha < smallest) break;
    grid.push_back(alpha);
  }
  return grid;
}

// The statistic's upper alpha-quantiles under the no-secret model (every observation standard
// normal), from its own simulation: the thresholds are fixed before any trial runs. Four times as
// many draws as trials: the thresholds need not be exact, only independent of the trials.
// Draw i is keyed by i alone, so the thresholds do not depend on the thread count.
std::vector<double> model_thresholds(const ShiftAttack& attack, const AuditOptions& o, const std::vector<double>& grid) {
  const auto draws = static_cast<std::size_t>(4 * o.trials);
  std::vector<double> stat(draws);
  SharedProgress progress("audit: thresholds (no-secret model)", draws);
  const std::size_t every = progress_every(o);
  run_chunks(o.threads, draws, [&](int chunk, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      CounterRng rng(o.seed, Stream::kAudit, static_cast<std::uint64_t>(Source::kModel), i);
      double s = 0.0;
      for (int t = 0; t < releases_per_trial(o); ++t) {
        const double x = rng.normal();  // drawn first: argument evaluation order is unspecified
        s += attack.log_ratio(x, rng.normal());
      }
      stat[i] = s;
      if ((i - begin) % every == every - 1) progress.add(chunk, every);
    }
  });
  progress.finish();
  std::sort(stat.begin(), stat.end(), std::greater<>());
  std::vector<double> out;
  for (const double alpha : grid) out.push_back(stat[static_cast<std::size_t>(std::ceil(alpha * double(draws))) - 1]);
  return out;
}

// Trials [range.first, range.second) on D and on D', on o.threads threads: for each threshold k,
// hits[k] counts the trials on D whose statistic reaches it, hits[m + k] those on D'. A trial's
// randomness is keyed by its index and the counts are integers, so they do not depend on how the
// trials are split over ranks and threads.
std::vector<std::int64_t> count_hits(const SecretClustering& with_secret, const SecretClustering& without_secret,
                                     const ShiftAttack& attack, const std::vector<double>& threshold, const AuditOptions& o,
                                     double sigma_released, std::pair<std::uint64_t, std::uint64_t> range) {
  const std::size_t m = threshold.size();
  const std::size_t n = range.second - range.first;
  const int chunks = std::max(1, o.threads);
  std::vector<std::vector<std::int64_t>> partial(static_cast<std::size_t>(chunks), std::vector<std::int64_t>(2 * m, 0));
  SharedProgress progress("audit: trials (rank 0's share, on D and D')", 2 * n);
  const std::size_t every = progress_every(o);
  for (const Source dataset : {Source::kWithSecret, Source::kWithoutSecret}) {
    const SecretClustering& mechanism = dataset == Source::kWithSecret ? with_secret : without_secret;
    const std::size_t offset = dataset == Source::kWithSecret ? 0 : m;
    run_chunks(chunks, n, [&](int chunk, std::size_t begin, std::size_t end) {
      std::int64_t* counts = partial[static_cast<std::size_t>(chunk)].data() + offset;
      for (std::size_t i = begin; i < end; ++i) {
        const auto trial = static_cast<std::int64_t>(range.first + i);
        double s = 0.0;
        for (int t = 0; t < releases_per_trial(o); ++t) s += attack.log_ratio(release_trial(mechanism, o.seed, dataset, trial, t, sigma_released));
        for (std::size_t k = 0; k < m; ++k) counts[k] += s >= threshold[k] ? 1 : 0;
        if ((i - begin) % every == every - 1) progress.add(chunk, every);
      }
    });
  }
  progress.finish();
  std::vector<std::int64_t> hits(2 * m, 0);
  for (const auto& p : partial)
    for (std::size_t k = 0; k < 2 * m; ++k) hits[k] += p[k];
  return hits;
}

}  // namespace

AuditResult run_audit(const Communicator& world, const AuditOptions& o) {
  const Timer start;
  AuditResult res;

  // The accountant's view of the secret: its count PMF, the certified sigma and r = U(p).
  const std::vector<double> rho(static_cast<std::size_t>(o.holders), o.rho);
  res.count_pmf = poisson_binomial_pmf(rho);
  res.sigma = o.sigma > 0.0 ? o.sigma : calibrate_sigma_exact(res.count_pmf, kCountsAndCentresScale, o.iterations, o.p, o.r);
  if (res.sigma == 0.0)
    throw InputError("even an exact count of the holders keeps B(p) <= r: nothing to audit (lower r or give a sigma)");
  res.sigma_released = o.noise_multiplier * res.sigma;
  // One run: the accountant's bound for T releases. Several: the ledger's cumulative bound, the
  // certified runs' releases composed as the privacy ledger composes runs.
  const int certified_runs = o.certified_runs > 0 ? o.certified_runs : o.runs;
  const RunSpend run{.releases = {{res.count_pmf, kCountsAndCentresScale / res.sigma, o.iterations}}, .lists = {{0}}, .profile_of = {0}};
  const auto certified = [&](double alpha) {
    if (alpha >= 1.0) return 1.0;
    if (certified_runs == 1) return blow_up_upper(res.count_pmf, kCountsAndCentresScale, res.sigma, o.iterations, alpha);
    return composed_bounds(std::vector<RunSpend>(static_cast<std::size_t>(certified_runs), run), std::vector<double>{alpha}, 1)[0];
  };
  res.certified_r = certified(o.p);

  // The label: one public cluster at R u, the holders at -2R u (clipped by the mechanism).
  MatrixF centre = MatrixF::Zero(1, o.dim);
  centre(0, 0) = static_cast<float>(o.clip_radius);
  MatrixF holders = MatrixF::Zero(o.holders, o.dim);
  holders.col(0).setConstant(static_cast<float>(-2.0 * o.clip_radius));
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(o.holders));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const LocalCommunicator self;
  const auto kernel_owner = make_kernel("reference");
  const NearestCentreKernel& kernel = *kernel_owner;
  const SecretClustering with_secret(self, centre, {o.public_size}, holders, ids, rho, kernel, Metric::kL2, o.clip_radius);
  const SecretClustering without_secret(self, centre, {o.public_size}, MatrixF(0, o.dim), {}, {}, kernel, Metric::kL2, o.clip_radius);

  const ShiftAttack attack(o, res.sigma);
  const std::vector<double> grid = fpr_grid(o.trials);
  const std::vector<double> threshold = model_thresholds(attack, o, grid);
  const std::size_t m = grid.size();

  // The trials, this rank's share, on its threads; hits[k] (D) and hits[m + k] (D') count
  // statistics >= threshold k.
  const Timer trial_start;
  std::vector<std::int64_t> hits = count_hits(with_secret, without_secret, attack, threshold, o, res.sigma_released,
                                              world.shard(static_cast<std::uint64_t>(o.trials)));
  world.allreduce_sum(hits);
  res.trial_seconds = world.allreduce_max(trial_start.seconds());

  // Bounds and the comparison with the certificate.
  res.error_per_bound = (1.0 - o.confidence) / (2.0 * static_cast<double>(m));
  const double n = static_cast<double>(o.trials);
  for (std::size_t k = 0; k < m; ++k) {
    AuditThreshold a;
    a.threshold = threshold[k];
    a.model_fpr = grid[k];
    a.true_positives = hits[k];
    a.false_positives = hits[m + k];
    a.tpr = double(a.true_positives) / n;
    a.fpr = double(a.false_positives) / n;
    a.tpr_lower = clopper_pearson_lower(a.true_positives, o.trials, res.error_per_bound);
    a.fpr_upper = clopper_pearson_upper(a.false_positives, o.trials, res.error_per_bound);
    a.certified = certified(a.fpr_upper);
    a.ratio = a.tpr_lower / a.certified;
    a.estimate_ratio = a.fpr > 0.0 ? a.tpr / certified(a.fpr) : 0.0;
    const double implied = a.tpr_lower * std::min(1.0, o.p / a.fpr_upper);
    if (implied > res.implied_b_at_p) {
      res.implied_b_at_p = implied;
      res.implied_from = k;
    }
    res.thresholds.push_back(a);
  }
  const auto by_ratio = [](const AuditThreshold& x, const AuditThreshold& y) { return x.ratio < y.ratio; };
  res.worst = static_cast<std::size_t>(std::max_element(res.thresholds.begin(), res.thresholds.end(), by_ratio) - res.thresholds.begin());
  res.exceeds = res.thresholds[res.worst].ratio > 1.0 || res.implied_b_at_p > res.certified_r;
  res.seconds = start.seconds();
  return res;
}

}  // namespace secpe
