// secpe audit: the empirical privacy audit of one label's release (audit/privacy_audit.hpp).
// Exit code 0 when the measured leakage stays within the accountant's certificate, kExceedsCode
// when it provably exceeds it (at the stated confidence), 2 for bad options.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "audit/privacy_audit.hpp"
#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace secpe::cli {
namespace {

constexpr int kExceedsCode = 3;

nlohmann::ordered_json audit_json(const AuditOptions& o, bool calibrated, const AuditResult& res, int ranks) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const AuditThreshold& a : res.thresholds)
    rows.push_back({{"threshold", a.threshold}, {"model_fpr", a.model_fpr},
                    {"false_positives", a.false_positives}, {"true_positives", a.true_positives},
                    {"fpr", a.fpr}, {"tpr", a.tpr}, {"fpr_upper", a.fpr_upper}, {"tpr_lower", a.tpr_lower},
                    {"certified_tpr", a.certified}, {"ratio", a.ratio},
                    {"estimate_ratio", a.false_positives > 0 ? nlohmann::ordered_json(a.estimate_ratio) : nlohmann::ordered_json(nullptr)}});
  const AuditThreshold& worst = res.thresholds[res.worst];
  nlohmann::ordered_json j;
  j["setting"] = {{"holders", o.holders}, {"rho", o.rho}, {"iterations", o.iterations}, {"runs", o.runs}, {"dim", o.dim},
                  {"public_size", o.public_size}, {"clip_radius", o.clip_radius}, {"trials_per_dataset", o.trials},
                  {"seed", o.seed}, {"ranks", ranks}, {"threads_per_rank", o.threads},
                  {"description", "one public cluster at R u, every holder at -2R u (clipped to -R u by the mechanism), no other private record: the largest shift one secret can cause; D holds the holders, D' does not"}};
  j["accountant"] = {{"sigma", res.sigma}, {"sigma_source", calibrated ? "calibrated exactly for (p, r)" : "given (--sigma)"},
                     {"p", o.p}, {"r_target", calibrated ? nlohmann::ordered_json(o.r) : nlohmann::ordered_json(nullptr)},
                     {"certified_r", res.certified_r}, {"count_pmf", res.count_pmf},
                     {"bound", "exact accountant: mixture of Gaussians over the holders' Poisson-binomial count, counts and centres (sqrt(2)), composed over T"},
                     {"certified_runs", o.certified_runs > 0 ? o.certified_runs : o.runs},
                     {"runs_note", o.runs == 1 && o.certified_runs <= 1 ? "one run"
                                   : o.certified_runs > 0 && o.certified_runs < o.runs
                                       ? "DELIBERATELY UNDERCOUNTED (test only): the certificate composes fewer runs than were released"
                                       : "the privacy ledger's cumulative bound: every run's T releases composed (privacy/run_composition.hpp)"}};
  j["release"] = {{"noise_multiplier", o.noise_multiplier}, {"sigma_released", res.sigma_released},
                  {"note", o.noise_multiplier == 1.0 ? "the real mechanism" : "DELIBERATELY BROKEN (test only): the release uses noise_multiplier * sigma, the accountant sigma"}};
  j["attack"] = "log-likelihood ratio of the noisy size and the centre's component along the holders' shift (exact Poisson-binomial count, the certified sigma), summed over iterations; thresholds at the no-secret model's quantiles, fixed before the trials";
  j["statistics"] = {{"confidence", o.confidence}, {"bounds", 2 * res.thresholds.size()}, {"error_per_bound", res.error_per_bound},
                     {"method", "one-sided Clopper-Pearson on FPR (upper) and TPR (lower), Bonferroni over all bounds"},
                     {"smallest_resolved_fpr", res.thresholds.back().model_fpr}};
  j["thresholds"] = rows;
  j["verdict"] = {{"exceeds", res.exceeds},
                  {"worst_ratio", worst.ratio}, {"worst_fpr_upper", worst.fpr_upper}, {"worst_tpr_lower", worst.tpr_lower},
                  {"worst_certified_tpr", worst.certified},
                  {"implied_b_at_p_lower", res.implied_b_at_p}, {"certified_r", res.certified_r},
                  {"rule", "exceeds when some threshold has tpr_lower > certified_tpr (the accountant's U at fpr_upper), or when max tpr_lower * min(1, p / fpr_upper) (a lower bound on B(p)) > certified_r"}};
  j["timing"] = {{"trial_seconds", res.trial_seconds}, {"seconds", res.seconds}};
  return j;
}

void print_summary(const AuditOptions& o, bool calibrated, const AuditResult& res) {
  const AuditThreshold& worst = res.thresholds[res.worst];
  std::printf("audit: %d holders (rho %g), T = %d, %d run(s), %lld trials per dataset, %.1f s\n", o.holders, o.rho, o.iterations,
              o.runs, static_cast<long long>(o.trials), res.seconds);
  if (o.runs > 1 || o.certified_runs > 0) {
    std::printf("certificate: %d run(s) composed as the privacy ledger composes them%s\n", o.certified_runs > 0 ? o.certified_runs : o.runs,
                o.certified_runs > 0 && o.certified_runs < o.runs ? " (DELIBERATELY UNDERCOUNTED: test only)" : "");
  }
  std::printf("sigma %.6g (%s)%s\n", res.sigma, calibrated ? "calibrated exactly" : "given",
              o.noise_multiplier == 1.0 ? "" : ", released with a DELIBERATELY BROKEN noise multiplier (test only)");
  std::printf("at p = %g: certified r <= %.4g (r/p %.3g); empirical B(p) >= %.4g (r/p %.3g)\n", o.p, res.certified_r,
              res.certified_r / o.p, res.implied_b_at_p, res.implied_b_at_p / o.p);
  std::printf("trade-off curve, worst of %zu thresholds: at FPR <= %.4g the attack's TPR >= %.4g, certified <= %.4g (ratio %.3f)\n",
              res.thresholds.size(), worst.fpr_upper, worst.tpr_lower, worst.certified, worst.ratio);
  std::printf("confidence %g for all %zu bounds together\n", o.confidence, 2 * res.thresholds.size());
  if (o.p < res.thresholds.back().model_fpr)
    std::printf("note: p is below the smallest FPR these trials resolve (%.3g): the bound at p rests on concavity alone; the curve is the sharp check\n",
                res.thresholds.back().model_fpr);
  std::printf("verdict: %s\n", res.exceeds ? "EXCEEDS: the mechanism leaks more than the accountant certifies"
                                           : "pass: within the accountant's certificate");
}

// Every option once, before any work; messages name the option.
void validate_audit_options(const AuditOptions& o) {
  const auto finite_positive = [](double x) { return std::isfinite(x) && x > 0.0; };
  if (o.holders < 1 || o.holders > 10000) throw InputError("--holders must be in [1, 10000]");
  if (!(o.rho > 0.0 && o.rho <= 1.0)) throw InputError("--rho must be in (0, 1]");
  if (o.iterations < 1 || o.iterations > 1000) throw InputError("--iterations must be in [1, 1000]");
  if (!(std::isfinite(o.sigma) && o.sigma >= 0.0)) throw InputError("--sigma must be >= 0 (0: calibrate for --p and --r)");
  if (!(o.p > 0.0 && o.p < 1.0)) throw InputError("--p must be in (0, 1)");
  if (o.sigma == 0.0 && !(o.r > o.p && o.r < 1.0)) throw InputError("r must be in (p, 1) (r is --r, or p times --r-over-p)");
  // The threshold simulation keeps 4 x trials statistics in memory: 3.2 GB at the cap.
  if (o.trials < 100 || o.trials > 100'000'000) throw InputError("--trials must be in [100, 1e8]");
  if (o.dim < 1 || o.dim > 100000) throw InputError("--dim must be in [1, 100000]");
  if (o.public_size < 1) throw InputError("--public-size must be at least 1");
  if (!finite_positive(o.clip_radius)) throw InputError("--clip-radius must be finite and > 0");
  if (!(o.confidence > 0.0 && o.confidence < 1.0)) throw InputError("--confidence must be in (0, 1)");
  if (!finite_positive(o.noise_multiplier)) throw InputError("--noise-multiplier must be finite and > 0");
  if (o.runs < 1 || o.runs > 1000 || o.runs * o.iterations > 10000) throw InputError("--runs must be in [1, 1000], with --runs x --iterations at most 10000");
  if (o.certified_runs < 0 || o.certified_runs > o.runs) throw InputError("--certified-runs must be in [0, --runs] (0: --runs)");
}

}  // namespace

int command_audit(const std::vector<std::string>& args) {
  po::options_description desc("secpe audit options");
  add_common_options(desc);
  AuditOptions o;
  desc.add_options()
    ("holders", po::value<int>(&o.holders)->default_value(o.holders), "records holding the audited secret")
    ("rho", po::value<double>(&o.rho)->default_value(o.rho, "0.5"), "sampling probability of each holder per iteration")
    ("iterations", po::value<int>(&o.iterations)->default_value(o.iterations), "releases T per run")
    ("runs", po::value<int>(&o.runs)->default_value(o.runs), "runs K on one dataset, each of T releases with fresh noise (one key, fresh nonces): the attack sees all K T releases, the certificate is the privacy ledger's cumulative one")
    ("certified-runs", po::value<int>(&o.certified_runs)->default_value(0), "TEST ONLY: the certificate composes this many runs (0: --runs); fewer is a ledger that undercounts, which the audit must catch")
    ("sigma", po::value<double>(&o.sigma)->default_value(0.0, "0"), "the sigma to audit (0: calibrate exactly for --p and --r)")
    ("p", po::value<double>(&o.p)->default_value(o.p, "1e-4"), "adversary prior p of the secret (keep it above 20 / trials, the smallest FPR the trials resolve)")
    ("r-over-p", po::value<double>()->default_value(10.0, "10"), "target risk as a multiple of p (for the calibration)")
    ("r", po::value<double>(), "target risk r (overrides --r-over-p)")
    ("trials", po::value<std::int64_t>(&o.trials)->default_value(o.trials), "trials on each dataset (with and without the holders)")
    ("dim", po::value<int>(&o.dim)->default_value(o.dim), "embedding dimension")
    ("public-size", po::value<std::int64_t>(&o.public_size)->default_value(o.public_size), "public records of the cluster")
    ("clip-radius", po::value<double>(&o.clip_radius)->default_value(o.clip_radius, "1.0"), "clipping radius R")
    ("confidence", po::value<double>(&o.confidence)->default_value(o.confidence, "0.95"), "confidence of all Clopper-Pearson bounds together")
    ("noise-multiplier", po::value<double>(&o.noise_multiplier)->default_value(1.0, "1"), "TEST ONLY: release with this multiple of the certified sigma (0.5: a broken mechanism the audit must catch)")
    ("seed", po::value<std::uint64_t>(&o.seed)->default_value(o.seed), "seed of the trials")
    ("threads", po::value<int>()->default_value(0), "threads per rank for the trials and the threshold simulation (0: the SECPE_THREADS environment variable if set, else all hardware threads); same report for any number")
    ("out", po::value<std::string>(), "also write the JSON report here");
  po::variables_map vm;
  if (!parse_options("audit", "[mpirun -n R] secpe audit [--holders N --rho R --iterations T --runs K] [--sigma S | --p P --r-over-p K] [--trials N] [--threads N] [--out FILE.json]\n"
                     "exit code 0: within the accountant's certificate; 3: leaks more than certified; 2: bad options",
                     desc, {}, args, vm))
    return 0;
  o.r = vm.count("r") ? vm["r"].as<double>() : o.p * vm["r-over-p"].as<double>();
  const int threads = option_in(vm, "threads", 0, 65536);
  o.threads = threads > 0 ? threads : default_threads();
  validate_audit_options(o);
  if (vm.count("out")) check_output_file("out", vm["out"].as<std::string>());  // before the trials, not after them
  const bool calibrated = o.sigma == 0.0;

  bool exceeds = false;
  const int code = run_under_mpi([&](const Communicator& world) {
    const AuditResult res = run_audit(world, o);
    exceeds = res.exceeds;
    if (!world.is_root()) return;
    print_summary(o, calibrated, res);
    if (vm.count("out")) {
      const std::filesystem::path out = vm["out"].as<std::string>();
      if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
      const auto j = audit_json(o, calibrated, res, world.size());
      write_file_atomically(out, [&](std::ostream& os) { os << j.dump(2) << "\n"; });
    }
  });
  return code == 0 && exceeds ? kExceedsCode : code;
}

}  // namespace secpe::cli
