// secpe bench <name>: benchmarks with one frame (bench/bench_report.hpp) and JSON output.
#include <cstdlib>
#include <algorithm>
#include <iostream>

#include "bench/bench_report.hpp"
#include "bench/histogram_bench.hpp"
#include "bench/privacy_bench.hpp"
#include "bench/synth_embeddings.hpp"
#include "bench/kernel_bench.hpp"
#ifdef SECPE_HAVE_FAISS
#include "bench/faiss/faiss_bench.hpp"
#endif
#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "devices/device_kind.hpp"

namespace secpe::cli {
namespace {

constexpr const char* kBenchUsage =
    "usage: secpe bench <name> [options]   (secpe bench <name> --help)\n\n"
    "benchmarks:\n"
    "  kernel      nearest-centre kernel GFLOP/s against OpenBLAS sgemm on the same shape\n"
    "  faiss       exact search and k-means against FAISS (IndexFlatIP, faiss::Clustering), same data and threads\n"
    "  privacy     noise calibration time (LP, exact and paper) for a Yelp-scale secret matrix or a dataset's\n"
    "  histogram   per-iteration vote histogram, SecPE against Aug-PE, on an embedding dataset (MPI)\n";

// --out of a benchmark, checked before it runs (empty: no file).
void check_bench_out(const po::variables_map& vm) {
  const std::string out = vm["out"].as<std::string>();
  if (!out.empty()) check_output_file("out", out);
}

// Options every benchmark takes, with one meaning everywhere: --repeats counts timed
// repetitions (each benchmark reports all of them and the best); --iterations, where a benchmark
// has it, is the number of releases T, as in secpe run.
void add_bench_options(po::options_description& desc) {
  desc.add_options()("out", po::value<std::string>()->default_value(""), "also write the JSON report to this file")(
      "kernel", po::value<std::string>()->default_value("blas"), "nearest-centre kernel: blas or reference")(
      "threads", po::value<int>()->default_value(1), "compute threads per process")(
      "repeats", po::value<int>()->default_value(3), "timed repetitions")(
      "seed", po::value<std::uint64_t>()->default_value(1), "seed");
}

// --device of the benchmarks that take it (kernel, histogram).
void add_device_option(po::options_description& desc) {
  desc.add_options()("device", po::value<std::string>()->default_value("cpu"), device_option_help().c_str());
}

// --synthetic-data of the benchmarks that read a dataset's private records (privacy, histogram).
void add_synthetic_data_option(po::options_description& desc) {
  desc.add_options()("synthetic-data", po::bool_switch(),
                     "--data holds no real person's data (made by secpe corpus): its report keeps the private work's timings and counts and may be "
                     "published. Without it, only a dataset made by secpe synth-embeddings counts as synthetic");
}

std::string device_of(const po::variables_map& vm) {
  const std::string device = vm["device"].as<std::string>();
  check_device_name(device);
  return device;
}

// The CUDA kernel's built-in check (compute/cuda/cuda_backend.hpp), as the GPU benchmarks report it.
nlohmann::ordered_json device_check_metric() {
  return metric_definition("device_check_failures", "count", "cuda: failed built-in checks of the device's results against the host's (any: the safe path ran instead, results still exact)");
}

nlohmann::ordered_json phases_metric(const std::string& per) {
  return metric_definition("phases", "s", "cuda, " + per + ": host wall seconds of the kernel's own steps (host_plan: checks and exact norms; host_stage: packing and queueing; host_wait: waiting for the device; host_collect: results out, overflows rescored; host_check: the built-in check; host_release, host_release_norms, host_sums: SecPE's release and the kept rows' sums around the device) and device seconds of each step on the stream of a call, from timing events between consecutive steps (upload, gemm, select, rescore, release, sums, download; an upload that waited for the host's packing includes the wait)");
}

// The options every benchmark takes, checked.
int repeats_of(const po::variables_map& vm) { return option_in(vm, "repeats", 1, 100000); }

// An option that is on or off (a switch whose default is on).
bool on_or_off(const po::variables_map& vm, const std::string& name) {
  const std::string v = vm[name].as<std::string>();
  if (v != "on" && v != "off") throw InputError("--" + name + ": '" + v + "' is not on or off");
  return v == "on";
}

int bench_kernel_command(const std::vector<std::string>& args) {
  po::options_description desc("secpe bench kernel options");
  add_common_options(desc);
  add_bench_options(desc);
  KernelBenchConfig c;
  std::string metric, screen;
  desc.add_options()
    ("rows", po::value<Eigen::Index>(&c.rows)->default_value(c.rows), "M: query rows")
    ("centres", po::value<Eigen::Index>(&c.centres)->default_value(c.centres), "N: centres (candidates)")
    ("dim", po::value<Eigen::Index>(&c.dim)->default_value(c.dim), "d")
    ("k", po::value<int>(&c.k)->default_value(c.k), "nearest centres per row")
    ("metric", po::value<std::string>(&metric)->default_value("l2"), "l2, ip or cosine")
    ("screen", po::value<std::string>(&screen)->default_value("auto"), "candidate screen: blas: auto, fp32, bf16 (AMX or AVX512-BF16), int8 (AVX512-VNNI or AVX-VNNI), bf16-emulated or int8-emulated (slow); cuda: auto (TF32 where the GPU has it), fp32 or tf32 (TF32 tensor cores for the kernel and cuBLAS alike; the kernel stays exact: a wider bound)")
    ("row-block", po::value<int>(&c.blocking.row_block)->default_value(c.blocking.row_block), "blas: rows of X per block")
    ("centre-block", po::value<int>(&c.blocking.centre_block)->default_value(c.blocking.centre_block), "blas: centres per GEMM call")
    ("verify-rows", po::value<int>(&c.verify_rows)->default_value(c.verify_rows), "leading rows checked bit for bit against the reference kernel");
  add_device_option(desc);
  po::variables_map vm;
  if (!parse_options("bench", "secpe bench kernel [--rows M --centres N --dim D --threads T]", desc, {}, args, vm)) return 0;
  check_bench_out(vm);
  c.threads = vm["threads"].as<int>();
  c.repeats = repeats_of(vm);
  c.seed = vm["seed"].as<std::uint64_t>();
  c.metric = parse_metric(metric);
  c.kernel = vm["kernel"].as<std::string>();
  c.device = rank_device(device_of(vm)).name();
  c.screen = screen;
  if (c.rows < 1 || c.centres < 1 || c.dim < 1 || c.threads < 1) throw InputError("--rows, --centres, --dim and --threads must be at least 1");
  const KernelBenchResult r = bench_kernel(c);
  auto report = bench_frame("kernel", args, c.threads, 1);
  report["kernel"] = r.kernel;
  report["device"] = c.device;
  report["figures"] = {{"rows", c.rows}, {"centres", c.centres}, {"dim", c.dim}, {"k", c.k}, {"metric", metric},
                       {"gflop", r.gflop}, {"kernel_seconds", r.kernel_seconds}, {"kernel_gflops", r.kernel_gflops},
                       {"sgemm_seconds", r.sgemm_seconds}, {"sgemm_gflops", r.sgemm_gflops},
                       {"kernel_over_sgemm", r.ratio}, {"kernel_cpu_seconds", r.kernel_cpu_seconds},
                       {"sgemm_cpu_seconds", r.sgemm_cpu_seconds}, {"verified_against_reference", r.verified},
                       {"screen", r.screen},
                       {"openblas_core", r.openblas_core}, {"openblas_config", r.openblas_config}, {"baseline", r.baseline}};
  if (!r.gpu.empty()) {
    report["figures"]["gpu"] = r.gpu;
    report["figures"]["bytes_moved"] = r.bytes_moved;
    report["figures"]["bytes_up"] = r.bytes_up;
    report["figures"]["bytes_down"] = r.bytes_down;
    report["figures"]["syncs"] = r.syncs;
    report["figures"]["host_rescored_rows"] = r.host_rescored_rows;
    report["figures"]["keep_seconds"] = r.keep_seconds;
    report["figures"]["device_check_failures"] = r.check_failures;
    report["figures"]["tf32"] = r.screen == "tf32";
    report["figures"]["phases"] = device_phases_json(r.phases, 1.0);
  }
  report["metrics"] = {metric_definition("gflop", "GFLOP", "2 M N d / 1e9, for the kernel and for sgemm alike (sgemm computes X C^T only: no argmin)"),
                       metric_definition("kernel_seconds", "s", "best wall time of --repeats searches with the chosen --kernel"),
                       metric_definition("sgemm_seconds", "s", "best wall time of --repeats sgemm calls on the same shape: OpenBLAS, or cuBLAS on --device cuda (data already on the GPU, device time)"),
                       metric_definition("bytes_moved", "bytes", "cuda: host <-> device bytes per timed search (bytes_up: centres and their norms; bytes_down: each row's nearest and score)"),
                       metric_definition("keep_seconds", "s", "cuda: the rows kept on the device before the searches (upload and exact norms)"),
                       metric_definition("syncs", "count", "cuda: times the host waited for the device, per timed search"),
                       metric_definition("host_rescored_rows", "rows", "cuda: rows per timed search rescored on the host (their candidate lists overflowed, or the safe path ran)"),
                       device_check_metric(), phases_metric("per timed search, their mean"),
                       metric_definition("kernel_over_sgemm", "ratio", "kernel GFLOP/s over sgemm GFLOP/s")};
  emit_bench_report(report, vm["out"].as<std::string>());
  return r.verified && r.check_failures == 0 ? 0 : 1;
}

int bench_faiss_command(const std::vector<std::string>& args) {
#ifdef SECPE_HAVE_FAISS
  po::options_description desc("secpe bench faiss options");
  add_common_options(desc);
  add_bench_options(desc);
  FaissBenchOptions o;
  desc.add_options()
    ("queries", po::value<std::size_t>(&o.queries)->default_value(o.queries), "query rows of the exact search")
    ("candidates", po::value<std::size_t>(&o.candidates)->default_value(o.candidates), "indexed rows of the exact search")
    ("dim", po::value<int>(&o.dim)->default_value(o.dim), "d")
    ("kmeans-points", po::value<std::size_t>(&o.kmeans_points)->default_value(o.kmeans_points), "k-means points (at most, with --kmeans-data)")
    ("kmeans-data", po::value<std::string>(&o.kmeans_data), "k-means on a dataset's clustered data instead of random unit rows: the public rows of its label with the most of them (private rows are never read out)")
    ("clusters", po::value<int>(&o.kmeans_clusters)->default_value(o.kmeans_clusters), "K of the k-means benchmark (as --clusters everywhere)")
    ("kmeans-iterations", po::value<int>(&o.kmeans_iterations)->default_value(o.kmeans_iterations), "Lloyd iterations")
    ("kmeans-init", po::value<std::string>(&o.kmeans_init)->default_value(o.kmeans_init), "our seeding: random, parallel (k-means||) or plusplus")
    ("kmeans-init-rounds", po::value<int>(&o.kmeans_init_rounds)->default_value(o.kmeans_init_rounds), "k-means|| rounds")
    ("search-data", po::value<std::string>(&o.search_data), "the exact search on a dataset's public rows of its label with the most of them (the first --candidates indexed, the next --queries searched) instead of random unit rows")
    ("screen", po::value<std::string>(&o.screen)->default_value(o.screen), "blas: candidate screen auto, fp32, bf16, int8, bf16-emulated or int8-emulated")
    ("screen-shift", po::value<std::string>()->default_value("on"), "blas: on (narrow screens round residuals from the centres' mean where the centres share a common part) or off (to measure what that gains)");
  po::variables_map vm;
  if (!parse_options("bench", "secpe bench faiss [--threads T]", desc, {}, args, vm)) return 0;
  check_bench_out(vm);
  o.threads = vm["threads"].as<int>();
  o.repeats = repeats_of(vm);
  o.kernel = vm["kernel"].as<std::string>();
  o.seed = vm["seed"].as<std::uint64_t>();
  if (o.threads < 1) throw InputError("--threads must be at least 1");
  o.screen_shift = on_or_off(vm, "screen-shift");
  // One process against one FAISS process: our side runs over a LocalCommunicator, no MPI.
  auto report = bench_frame("faiss", args, o.threads, 1);
  report["kernel"] = o.kernel;
  report["figures"] = bench_faiss(o);
  emit_bench_report(report, vm["out"].as<std::string>());
  return 0;
#else
  (void)args;
  throw InputError("this build has no FAISS (install libfaiss-dev and rebuild)");
#endif
}

int bench_privacy_command(const std::vector<std::string>& args) {
  po::options_description desc("secpe bench privacy options");
  add_common_options(desc);
  add_bench_options(desc);
  PrivacyBenchOptions o;
  SynthEmbeddingOptions& synth = o.synth;
  std::string data;
  desc.add_options()
    ("records", po::value<std::size_t>(&synth.records)->default_value(synth.records), "records (Yelp train: 1,939,290)")
    ("labels", po::value<std::string>(&synth.labels)->default_value(synth.labels), "yelp or a number of labels")
    ("secrets", po::value<int>(&synth.secrets)->default_value(synth.secrets), "secrets, 1 to 100,000")
    ("holders", po::value<std::string>(&synth.holders)->default_value(synth.holders),
     "who holds which secret: zipf (1-3 secrets per private record by Zipf popularity, like random words) or demo (as secpe corpus plants them: blocks sharing pools of secrets, a Zipf-like tail of holders per secret)")
    ("private-fraction", po::value<double>(&synth.private_fraction)->default_value(synth.private_fraction, "0.3"), "share of records holding a secret (the demo corpus: 0.25)")
    ("data", po::value<std::string>(&data), "calibrate this dataset's labels and secrets instead of synthetic ones (a real dataset's report is private: docs/privacy.md)")
    ("iterations", po::value<int>(&o.iterations)->default_value(o.iterations), "releases T the noise is calibrated for")
    ("private-batch", po::value<double>(&o.batch)->default_value(o.batch, "1000"), "expected private records sampled per label and iteration")
    ("ledger-runs", po::value<int>(&o.ledger_runs)->default_value(0), "also time the privacy ledger's composition of the exact plan with this many earlier runs (0: no)")
    ("ledger-noise-step", po::value<double>(&o.ledger_noise_step)->default_value(0.0, "0"),
     "earlier run k at (1 + this x k) times the plan's noise, as a grid of runs at several budgets (0: every earlier run alike, whose releases merge: the cheapest case)")
    ("ledger-check-every", po::value<std::size_t>(&o.ledger_check_every)->default_value(0),
     "also bound every this-many-th secret at full precision and report how much looser the composition's coarse figures are (0: no; 97 takes a minute or two at Yelp scale)")
    ("exact-profiles", po::value<std::size_t>(&o.certification.exact_profiles)->default_value(o.certification.exact_profiles),
     "distinct holder profiles up to which every secret's bound is the accountant's at full precision; beyond, dominance and a coarser grid certify the bulk");
  add_synthetic_data_option(desc);
  po::variables_map vm;
  if (!parse_options("bench", "secpe bench privacy [--records N --secrets M --holders zipf|demo --iterations T | --data DATA.h5]", desc, {}, args, vm)) return 0;
  check_bench_out(vm);
  option_in(vm, "iterations", 1, 100000);
  option_in(vm, "secrets", 1, 100000);
  option_in(vm, "ledger-runs", 0, 1000);
  option_in<std::size_t>(vm, "ledger-check-every", 0, 10000000);
  if (o.ledger_check_every > 0 && o.ledger_runs == 0) throw InputError("--ledger-check-every needs --ledger-runs");
  if (!(o.ledger_noise_step >= 0 && o.ledger_noise_step <= 100)) throw InputError("--ledger-noise-step must be in [0, 100]");
  o.repeats = repeats_of(vm);
  option_in<std::size_t>(vm, "records", 1, 10000000000);
  if (synth.holders != "zipf" && synth.holders != "demo") throw InputError("--holders must be zipf or demo, not '" + synth.holders + "'");
  if (!(synth.private_fraction >= 0 && synth.private_fraction <= 1)) throw InputError("--private-fraction must be in [0, 1]");
  if (!data.empty() && !std::filesystem::is_regular_file(data)) throw InputError("--data: cannot read '" + data + "'");
  if (data.empty() && vm["synthetic-data"].as<bool>()) throw InputError("--synthetic-data applies to --data only");
  o.data = data;
  synth.seed = vm["seed"].as<std::uint64_t>();
  synth.threads = static_cast<unsigned>(option_in(vm, "threads", 1, 4096));
  o.threads = static_cast<int>(synth.threads);
  return run_under_mpi([&](const Communicator& comm) {
    auto report = bench_frame("privacy", args, o.threads, comm.size());
    report["nodes"] = comm.hosts();
    if (!data.empty()) report["data"] = bench_data_json(data, vm["synthetic-data"].as<bool>());
    report["figures"] = bench_privacy(comm, o);
    report["metrics"] = {metric_definition("seconds", "s", "wall time of calibrate_secret_noise, slowest rank, once per --repeats: gather of the secret sets, exact LP per label, Poisson-binomial PMFs and holder profiles, paper sigma; exact adds the accountant's certification of every secret"),
                         metric_definition("worst_r_achieved_over_p", "ratio", "the largest r_j / p_j the calibrated sigma gives any secret"),
                         metric_definition("bounds", "secrets", "how many secrets got each kind of bound: the accountant at full precision, on a coarser grid, or a dominating profile's (docs/privacy.md)")};
    if (o.ledger_check_every > 0)
      report["metrics"].push_back(metric_definition("ledger.coarse_looser", "ratio", "on every --ledger-check-every-th secret whose runs released something, the composition's coarse figure over the same combination's at full precision, minus 1: median, p90 (90th percentile) and max"));
    if (comm.is_root()) emit_bench_report(report, vm["out"].as<std::string>());
  });
}

// --r-over-p and the options that only apply with it (bench histogram's private-signal figures).
void parse_signal_options(const po::variables_map& vm, PrivateSignalOptions& signal) {
  if (vm.count("r-over-p")) {
    for (const auto& value : split_list(vm["r-over-p"].as<std::string>(), ',')) {
      double ratio = 9999;
      if (value != "none") {
        std::size_t used = 0;
        try {
          ratio = std::stod(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != value.size() || !(ratio > 1 && ratio < 1e6)) throw InputError("--r-over-p: '" + value + "' is not a ratio in (1, 1e6) or none");
      }
      signal.r_over_p.push_back(ratio);
    }
    try {
      signal.calibration = parse_calibration(vm["calibration"].as<std::string>());
    } catch (const InputError& e) {
      throw InputError(std::string("--calibration: ") + e.what());
    }
    option_in(vm, "iterations", 1, 100000);
    if (!(signal.p > 0 && signal.p < 1)) throw InputError("--p must be in (0, 1)");
    if (signal.candidates != "random" && signal.candidates != "centres")
      throw InputError("--signal-candidates must be random or centres, not '" + signal.candidates + "'");
    option_in(vm, "candidate-spread", 0.0, 100.0);
  } else {
    for (const char* name : {"iterations", "calibration", "p", "signal-candidates", "candidate-spread"})
      if (!vm[name].defaulted()) throw InputError(std::string("--") + name + " applies to --r-over-p only");
  }
}

int bench_histogram_command(const std::vector<std::string>& args) {
  po::options_description desc("secpe bench histogram options");
  add_common_options(desc);
  add_bench_options(desc);
  HistogramBenchOptions o;
  std::string screen;
  desc.add_options()
    ("data", po::value<std::string>()->required(), "embedding dataset (e.g. from secpe synth-embeddings; a real dataset's report is private: docs/privacy.md)")
    ("synthetic", po::value<std::size_t>(&o.synthetic)->default_value(o.synthetic), "N_syn over all labels")
    ("variations", po::value<int>(&o.variations)->default_value(o.variations), "L: candidates = N_syn (L + 1)")
    ("clusters", po::value<int>(&o.clusters)->default_value(o.clusters), "K per label")
    ("kmeans-iterations", po::value<int>(&o.kmeans_iterations)->default_value(o.kmeans_iterations), "Lloyd iterations of the setup")
    ("kmeans-init", po::value<std::string>(&o.kmeans_init)->default_value(o.kmeans_init), "seeding of the setup: random, parallel (k-means||) or plusplus")
    ("kmeans-incremental", po::value<std::string>()->default_value("on"), "on: the setup's Lloyd iterations search rows against the centres that moved only (every centre for rows whose own centre moved: the same centres; on a GPU every row either way, which is faster there); off: every row against every centre in every iteration (to measure what that gains)")
    ("private-batch", po::value<double>(&o.private_batch)->default_value(o.private_batch, "1000"), "expected sampled private records per label")
    ("method", po::value<std::string>(&o.method)->default_value(o.method), "secpe, augpe or both")
    ("augpe-voters", po::value<std::string>(&o.augpe_voters)->default_value(o.augpe_voters), "augpe: all (every record votes, as in Aug-PE) or private")
    ("screen", po::value<std::string>(&screen)->default_value("auto"), "the searches' screen, as the device reads it: cpu (--kernel blas): auto, fp32, bf16, int8, bf16-emulated or int8-emulated; cuda: auto (TF32 where the GPU has it), fp32 or tf32 (the results stay exact: a wider bound, more candidates rescored)")
    ("augpe-fraction", po::value<double>(&o.augpe_fraction)->default_value(o.augpe_fraction, "1"),
     "share of the Aug-PE voters measured; 1 measures the full iteration, below 1 the time is a cost-model estimate")
    ("shard-by", po::value<std::string>()->default_value("auto"), "records split over the ranks by record or by label, as secpe run's --shard-by (auto: record for --method augpe; otherwise label when there are at least as many labels as ranks and none holds more than twice a rank's even share of the records)")
    ("r-over-p", po::value<std::string>(), "private-signal figures at each of these r/p (comma-separated; none: 9999), noise calibrated as a run calibrates it: how many noisy votes agree with the noise-free release, against the public-only votes")
    ("iterations", po::value<int>(&o.signal.iterations)->default_value(o.signal.iterations), "--r-over-p: iterations T the noise is calibrated for")
    ("calibration", po::value<std::string>()->default_value("exact"), "--r-over-p: SecPE's calibration, exact or paper")
    ("p", po::value<double>(&o.signal.p)->default_value(o.signal.p, "1e-4"), "--r-over-p: the prior p of every secret")
    ("signal-candidates", po::value<std::string>(&o.signal.candidates)->default_value(o.signal.candidates), "--r-over-p: the candidates voted on: random (the timing benchmark's, far from the data) or centres (record-like points around each label's public centres)")
    ("candidate-spread", po::value<double>(&o.signal.candidate_spread)->default_value(o.signal.candidate_spread, "0.6"), "--signal-candidates centres: a candidate's offset from its centre (a unit vector's length)");
  add_device_option(desc);
  add_synthetic_data_option(desc);
  po::variables_map vm;
  if (!parse_options("bench", "[mpirun -n R] secpe bench histogram --data FILE.h5 [options]", desc, {}, args, vm)) return 0;
  parse_signal_options(vm, o.signal);
  check_bench_out(vm);
  option_in<std::size_t>(vm, "synthetic", 1, 1000000000);
  option_in(vm, "variations", 1, 1000000);
  option_in(vm, "clusters", 1, 100000000);
  option_in(vm, "kmeans-iterations", 0, 1000000);
  o.kmeans_incremental = on_or_off(vm, "kmeans-incremental");
  if (!(o.private_batch > 0)) throw InputError("--private-batch must be positive");
  o.data = vm["data"].as<std::string>();
  if (o.augpe_voters != "all" && o.augpe_voters != "private") throw InputError("--augpe-voters must be all or private, not '" + o.augpe_voters + "'");
  if (!(o.augpe_fraction > 0 && o.augpe_fraction <= 1)) throw InputError("--augpe-fraction must be in (0, 1]");
  o.kernel = vm["kernel"].as<std::string>();
  o.repeats = repeats_of(vm);
  o.seed = vm["seed"].as<std::uint64_t>();
  if (!std::filesystem::is_regular_file(o.data)) throw InputError("--data: cannot read '" + o.data.string() + "'");
  o.threads = option_in(vm, "threads", 1, 4096);
  o.shard_by = parse_shard_by(vm["shard-by"].as<std::string>());
  const std::string requested = device_of(vm);

  return run_under_mpi([&](const Communicator& world) {
    const DeviceKind& device = rank_device(requested);
    const auto kernel = device.make_kernel(KernelRequest{.kernel = o.kernel, .threads = o.threads, .screen = screen, .time_phases = true});
    const auto sums = device.sum_communicator(world);
    const Communicator& comm = sums ? *sums : world;
    auto report = bench_frame("histogram", args, vm["threads"].as<int>(), comm.size());
    report["nodes"] = world.hosts();
    report["data"] = bench_data_json(o.data, vm["synthetic-data"].as<bool>());
    report["kernel"] = kernel->name();
    report["device"] = device.name();
    report["figures"] = bench_histogram(comm, *kernel, o);
    report["metrics"] = {
        metric_definition("secpe.iteration_seconds", "s", "one evolution iteration's votes over all labels, slowest rank, once per --repeats: sampling, sums and noise per centre, then one search of the noisy centres and every candidate read both ways (no generation or embedding), every label's search in one batch (on a GPU: one upload, one download, one wait). By record, each label on all ranks: each sampled row sent to the rank that owns its centre, the sizes gathered, each rank's block of centres searched; by label, each rank its own labels alone"),
        metric_definition("secpe.kmeans_pairs_scored_share", "share", "the (row, centre) pairs the setup's Lloyd iterations scored, over those a search of every public row against every centre in every iteration would score: below 1 where --kmeans-incremental on searched rows against the centres that moved only"),
        metric_definition("secpe.vote_gemm_floor_seconds", "s", "the votes' GEMM alone (one product per label: its candidates against its noisy centres), this rank: cuBLAS fp32 and TF32 on the GPU (data on the device, device time), OpenBLAS on the CPU"),
        metric_definition("augpe.iteration_seconds", "s", "one Aug-PE iteration's votes over all labels (median of --repeats), slowest rank, the voters kept by the kernel beforehand (augpe.keep_seconds; a GPU holds them in its memory): every voter's nearest candidate (every label's search in one batch), histogram allreduce (by record), noise (null when --augpe-fraction < 1: see iteration_seconds_cost_model)"),
        metric_definition("augpe.gemm_floor_seconds", "s", "the same shapes' GEMMs alone (each label's voters against its candidates), summed over the labels, slowest rank: cuBLAS SGEMM on the GPU (augpe.gemm_floor.tf32: with TF32 tensor cores), plain cblas_sgemm on the same threads on the CPU"),
        metric_definition("augpe.over_gemm_floor", "ratio", "Aug-PE votes (measured share) over their fp32 GEMM floor (over_tf32_gemm_floor: over the TF32 one)"),
        metric_definition("iteration_traffic", "bytes, count", "cuda: per iteration, host -> device and device -> host bytes, the times the host waited for the device (host_syncs), the search batches, the rows rescored on the host and SecPE's releases made on the device (device_releases: 1 when every label's release ran there)"),
        device_check_metric(), phases_metric("in each *_traffic, per iteration over the warm iterations, all but the first (phases.over says which; setup_traffic: the whole setup), slowest rank per phase"),
        metric_definition("vote_gflop", "GFLOP", "2 x (sum over labels of the search shape) x d / 1e9: K_l N_l for SecPE (one product read both ways), M_l N_l for Aug-PE"),
        metric_definition("bytes_sent_per_iteration_rank", "bytes", "bytes this rank sent through collectives during one SecPE iteration"),
        metric_definition("private_signal[].secpe.selection_agreement", "share", "of the N_syn candidates the noisy release's votes select (the run's shrunk estimate, iteration 0), the share the noise-free release (same private sample, no noise) selects too, summed over labels; selection_agreement_public_only: the same for the votes of the public clusters alone. The private records carry signal through the noise where the first exceeds the second"),
        metric_definition("private_signal[].secpe.centre_vote_agreement", "share", "centres whose estimate votes for the same candidate as their noise-free release (public_only: as their public part)"),
        metric_definition("private_signal[].secpe.centre_error_rms", "embedding units", "root mean square distance of a released (estimated) centre to its noise-free value; centre_private_shift_rms: of the noise-free centre to its public part (the private signal); size_error_rms and size_private_rms: the same for the sizes"),
        metric_definition("private_signal[].augpe.selection_agreement", "share", "as for SecPE, Aug-PE's noisy histogram against the noise-free one (public_only: the public records' votes alone); bin_error_rms and bin_private_rms: noise and private votes per bin")};
    if (comm.is_root()) emit_bench_report(report, vm["out"].as<std::string>());
  });
}

}  // namespace

int command_bench(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kBenchUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "histogram") return bench_histogram_command(rest);
  if (args[0] == "kernel") return bench_kernel_command(rest);
  if (args[0] == "faiss") return bench_faiss_command(rest);
  if (args[0] == "privacy") return bench_privacy_command(rest);
  throw InputError("unknown benchmark '" + args[0] + "'\n" + kBenchUsage);
}

}  // namespace secpe::cli
