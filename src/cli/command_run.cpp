// secpe run: its options, parsed into a run request for the run session (evolve/run_session.hpp)
// under MPI (one process per rank; rank 0 writes the outputs), and the exit code.
#include <charconv>
#include <H5public.h>
#include <filesystem>
#include <mpi.h>
#include <optional>

#include "bench/bench_report.hpp"
#include "cli/commands.hpp"
#include "cli/http_options.hpp"
#include "cli/mpi_session.hpp"
#include "cli/options.hpp"
#include "cluster/kmeans.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "devices/device_kind.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/dataset_ledger.hpp"
#include "evolve/generators/generator_kind.hpp"
#include "evolve/private_state.hpp"
#include "evolve/run_session.hpp"
#include "evolve/votes.hpp"

namespace secpe::cli {
namespace {

void describe_run_options(po::options_description& desc) {
  desc.add_options()
    ("data", po::value<std::string>()->default_value("data/demo/demo.h5"), "dataset written by 'secpe import'")
    ("out", po::value<std::string>()->default_value("out/run"), "output folder")
    ("seed", po::value<std::uint64_t>(), "public seed of the generator, k-means seeding and tie-breaks (default: from the OS); recorded in run.json")
    ("noise-key-file", po::value<std::string>(), "secret 256-bit key of the noise and private sampling (from 'secpe keygen'; default: a fresh key from the OS). Never publish it. One key may serve many runs: each run's noise is keyed by everything that determines its releases and by the run's nonce")
    ("noise-nonce", po::value<std::string>(), "the run's public nonce (32 hexadecimal digits, from run.json) to repeat a run exactly: same dataset, options, seed, key file and nonce give the same outputs (default: a fresh nonce from the OS; --resume takes the interrupted run's). Refused when the state folder shows that this key and nonce already made a run with other data or options")
    ("state-dir", po::value<std::string>(), "private state folder for --resume (default: OUT.state beside --out). Never publish it")
    ("method", po::value<std::string>()->default_value("secpe"), "secpe (cluster voting), augpe (the Aug-PE baseline) or random (the no-private-data control: uniform selection)")
    ("iterations", po::value<int>()->default_value(5), "evolution iterations T")
    ("synthetic", po::value<std::size_t>()->default_value(300), "synthetic samples N_syn over all labels (split by public label frequency)")
    ("variations", po::value<int>()->default_value(3), "variations L per selected sample (parents are kept)")
    ("clusters", po::value<int>()->default_value(20), "public clusters K per label")
    ("votes-per-center", po::value<std::string>()->default_value("auto"), "secpe: each noisy centre spreads its votes equally over its k nearest candidates (1: the paper's rule); auto: 1 with the per-label built-in generator, whose candidates are already on their label, else 4 (--generator-labels pooled or prompt, HTTP models), where the dev study measured 1 to 1.4 points more category accuracy (docs/studies.md)")
    ("eval-real", po::value<std::string>(), "real records (Aug-PE CSV with the dataset's label columns and a 'text' column) to score the initial population and every iteration's selection against, as secpe eval does; one metrics.jsonl line each. Use held-out records, never the private ones")
    ("near-duplicate-share", po::value<double>()->default_value(0.5, "0.5"), "selection skips a candidate when this share of its word 5-grams is in a kept candidate of its label, or the reverse (the near-duplicate rule of secpe eval); 1: only full copies")
    ("private-batch", po::value<double>()->default_value(1000.0, "1000"), "expected private records sampled per label and iteration (B)")
    ("p", po::value<double>()->default_value(1e-4, "1e-4"), "adversary prior p of every secret")
    ("r-over-p", po::value<double>()->default_value(10.0, "10.0"), "allowed reconstruction risk as a multiple of p")
    ("r", po::value<double>(), "allowed reconstruction risk r (overrides --r-over-p)")
    ("budgets", po::value<std::string>(), "CSV 'secret,p,r' of per-secret budgets (secret name or #index); others keep --p/--r")
    ("calibration", po::value<std::string>(), "secpe: exact (default; certified by the exact accountant; sigma depends on the private data, as in the paper), paper (the published formula: a single-Gaussian approximation that leaves out the sqrt(2) of releasing counts and centres, not certified) or public-profile (one sigma from public caps, --max-holders-per-secret and --sampling-rate, certified by the exact accountant: nothing published depends on the private records but the noisy releases); augpe: gdp")
    ("max-holders-per-secret", po::value<int>(), "secpe --calibration public-profile: the most records any secret is held by (a public cap, published; the run refuses data that exceed it)")
    ("sampling-rate", po::value<double>(), "secpe --calibration public-profile: the most a private record is sampled with per iteration (a public cap, published; default 1); each label samples min(this, B / its private records)")
    ("epsilon", po::value<double>()->default_value(0.0, "0"), "augpe: take mu from (epsilon, --delta) instead of (p, r) when > 0")
    ("delta", po::value<double>()->default_value(0.0, "0.0"), "delta of the reported (eps, delta) equivalent (0: 1/(N ln N))")
    ("metric", po::value<std::string>()->default_value("cosine"), "similarity: cosine, l2 or ip")
    ("clip-radius", po::value<double>()->default_value(1.0, "1.0"), "clipping radius R of private embeddings")
    ("kmeans-iterations", po::value<int>()->default_value(20), "Lloyd iterations cap of the public k-means")
    ("kmeans-init", po::value<std::string>()->default_value(kmeans_init_name(KMeansOptions{}.init)), "seeding of the public k-means: random (k distinct public rows, as FAISS), parallel (k-means||) or plusplus")
    ("kmeans-tolerance", po::value<double>()->default_value(1e-4, "1e-4"), "k-means stops when no centre moves more than this")
    ("threshold", po::value<double>()->default_value(0.0, "0.0"), "augpe: subtracted from the noisy histogram, which is then clipped at 0")
    ("augpe-voters", po::value<std::string>()->default_value("all"), "augpe: who votes: all (every record of the label, as in Aug-PE) or private (only records holding a secret)")
    ("max-words", po::value<int>()->default_value(64), "generator: words per synthetic text at most")
    ("blank-fraction", po::value<double>()->default_value(0.3, "0.3"), "generator: share of a text re-generated by a span or sentences variation (sentences: each sentence's chance, at least one; span: the span's share of the tokens)")
    ("variation", po::value<std::string>()->default_value("resample"), "generator: what a variation is: resample (a fresh sample of the parent's label; the parent is not edited), rephrase (every sentence of the parent re-generated around one of its content words: its topic, names and sentiment words are kept, the wording is new), span (re-generate one span of the parent from its left context) or sentences (re-sample whole sentences of the parent)")
    ("generator-labels", po::value<std::string>()->default_value("per-label"), "built-in generator: how the dataset's labels reach it: per-label (a model per label from its public records), pooled (one model of every public record, without labels: the paper's setting, where only the votes move each label's population) or prompt (the pooled model steered per label only by the label values and keyword lists of --prompts, as a prompt steers an LLM)")
    ("generator-topics", po::value<std::string>()->default_value("auto"), "built-in generator, --generator-labels pooled: latent topics T learned from the public texts without labels (spherical k-means of their TF-IDF), one model each; every text is drawn from one topic and a variation keeps its parent's, as an LLM's text stays on one subject (0: the one pooled model; auto: one topic per 50 training texts, at most 50, the paper's setting on Yelp)")
    ("generator-corpus", po::value<std::string>(), "generator: learn from this public Aug-PE CSV instead of the dataset's public records")
    ("generator-texts", po::value<std::size_t>()->default_value(5000), "generator: public training texts per label at most")
    ("kernel", po::value<std::string>()->default_value("blas"), "nearest-centre kernel: blas (blocked sgemm, exact) or reference")
    ("device", po::value<std::string>()->default_value("cpu"), ("where the nearest-centre searches and per-centre sums run: " + device_option_help() + ". A named device this rank cannot use is an error; the same results bit for bit on every device").c_str())
    ("threads", po::value<int>()->default_value(0), "compute threads per rank (0: the SECPE_THREADS environment variable if set, else all hardware threads)")
    ("shard-by", po::value<std::string>()->default_value("auto"), "how records are split over the ranks: record (contiguous ranges; all ranks evolve each label together), label (each rank holds every record of its labels and evolves them alone: no per-label work is repeated or exchanged) or auto (record for augpe, whose votes split well by record; otherwise label when there are at least as many labels as ranks and no label holds more than twice a rank's even share of the records, else record). Same outputs either way")
    ("resume", po::bool_switch(), "skip the labels finished in the state folder's checkpoint by an interrupted run with the same options")
    ("verify", po::bool_switch(), "first check the kernel against the reference kernel on this run's data (bit for bit)")
    ("drop-leaking", po::bool_switch(), "leave the texts in which the leak scan finds a PII pattern out of synthetic.csv and initial.csv (counts in privacy.json)")
    ("allow-over-budget", po::bool_switch(), "exit 0 even when privacy.json says some secret gets more than its budget (Aug-PE's record-level accounting, --calibration paper); without it such a run writes its outputs, says so on stderr and exits with code 4")
    ("total-r-over-p", po::value<double>(), "cap on every secret's cumulative r/p over the counted runs on this dataset in its privacy ledger, this one included: a run that would exceed it is refused before any release (exit 2); secpe privacy plan says what each of K runs may take")
    ("ledger-dir", po::value<std::string>(), "the privacy ledger (a private folder) that records every run on a dataset, by content, so that runs compose (default: SECPE_LEDGER_DIR if set, else ~/.local/share/secpe/ledger)")
    ("experiment", po::bool_switch(), "a run made only to measure (studies, audits): run.json and privacy.json say NOT FOR PUBLICATION; the ledger lists it but later runs do not count it")
    ("quiet", po::bool_switch(), "no progress output");
}

// --calibration (the method's to read) and the public profile's caps.
void calibration_config(const po::variables_map& vm, const Method& method, RunOptions& c) {
  method.settle_calibration(
      vm.count("calibration") ? std::optional<std::string>(vm["calibration"].as<std::string>()) : std::nullopt, c);
  if (c.calibration == CalibrationMode::kPublicProfile) {
    if (!vm.count("max-holders-per-secret")) throw InputError("--calibration public-profile needs --max-holders-per-secret (a public cap on any secret's holders)");
    c.max_holders_per_secret = option_in(vm, "max-holders-per-secret", 1, 1000000000);
    c.sampling_rate = vm.count("sampling-rate") ? option_in(vm, "sampling-rate", 0.0, 1.0) : 1.0;
    if (!(c.sampling_rate > 0)) throw InputError("--sampling-rate must be in (0, 1]");
    return;
  }
  for (const char* name : {"max-holders-per-secret", "sampling-rate"}) {
    if (vm.count(name)) throw InputError(std::string("--") + name + " is a setting of secpe's --calibration public-profile only");
  }
}

// --generator-labels and --generator-topics: how the labels reach the built-in generator.
void generator_labels_from(const po::variables_map& vm, RunOptions& c) {
  try {
    c.generator_labels = parse_generator_labels(vm["generator-labels"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--generator-labels: ") + e.what());
  }
  const std::optional<int> topics = auto_or_integer("generator-topics", vm["generator-topics"].as<std::string>(), 0, 100000);
  if (topics.value_or(0) > 0 && c.generator_labels != GeneratorLabels::kPooled) throw InputError("--generator-topics applies to --generator-labels pooled only");
  // auto: chosen from the training texts' count once they are read (run_models), pooled only.
  c.generator_topics = topics ? *topics : c.generator_labels == GeneratorLabels::kPooled ? kAutoGeneratorTopics : 0;
}

// --votes-per-center k or auto. Spreading a centre's released weight over its k nearest candidates
// is post-processing (no privacy cost). Where the generator does not know the labels most
// candidates are off-label, and k = 4 lets more of them be ranked by the clusters' weights than
// the K nearest alone; with per-label models the paper's k = 1 selects best (docs/studies.md).
int votes_per_centre_from(const std::string& value, const RunOptions& c) {
  const std::optional<int> k = auto_or_integer("votes-per-center", value, 1, 1000000);
  if (k) return *k;
  return generator_kind(c.generator_kind).learns_from_texts() && c.generator_labels == GeneratorLabels::kPerLabel ? 1 : kSpreadVotesPerCentre;
}

RunOptions run_config_from(const po::variables_map& vm) {
  RunOptions c;
  c.data = vm["data"].as<std::string>();
  if (vm.count("seed")) c.seed = vm["seed"].as<std::uint64_t>();  // else settled by the run session
  c.method = vm["method"].as<std::string>();
  const std::unique_ptr<Method> method = make_method(c.method);  // an unknown one is refused here, naming the known ones
  // Upper bounds only stop absurd values; whether the candidate pool fits in memory is checked
  // against the dataset when the run starts (evolve/run_estimate.hpp).
  c.iterations = option_in(vm, "iterations", 1, 100000);
  c.synthetic = option_in<std::size_t>(vm, "synthetic", 1, 1000000000);
  c.variations = option_in(vm, "variations", 1, 1000000);
  c.clusters = option_in(vm, "clusters", 1, 100000000);
  c.near_duplicate_share = option_in(vm, "near-duplicate-share", 0.0, 1.0);
  if (!(c.near_duplicate_share > 0)) throw InputError("--near-duplicate-share must be in (0, 1]");
  c.private_batch = vm["private-batch"].as<double>();
  if (!(c.private_batch > 0 && c.private_batch <= 1e12)) throw InputError("--private-batch must be in (0, 1e12]");
  c.p = vm["p"].as<double>();
  c.r = vm.count("r") ? vm["r"].as<double>() : c.p * vm["r-over-p"].as<double>();
  if (!(c.p > 0 && c.p < 1)) throw InputError("--p must be in (0, 1)");
  if (!(c.r > c.p && c.r < 1)) throw InputError("--r (or p * --r-over-p) must be in (p, 1)");
  if (vm.count("budgets")) c.budgets_file = vm["budgets"].as<std::string>();
  calibration_config(vm, *method, c);
  if (vm.count("noise-nonce")) {
    const auto nonce = parse_noise_nonce(vm["noise-nonce"].as<std::string>());
    if (!nonce) throw InputError("--noise-nonce must be 32 hexadecimal digits (a run's noise_nonce in run.json)");
    c.noise_nonce = *nonce;
  }
  c.epsilon = vm["epsilon"].as<double>();
  if (!(c.epsilon >= 0)) throw InputError("--epsilon must be 0 or more");
  c.delta = vm["delta"].as<double>();
  if (!(c.delta >= 0 && c.delta < 1)) throw InputError("--delta must be in [0, 1)");
  c.metric = parse_metric(vm["metric"].as<std::string>());
  c.clip_radius = vm["clip-radius"].as<double>();
  if (!(c.clip_radius > 0 && c.clip_radius <= 1e6)) throw InputError("--clip-radius must be in (0, 1e6]");
  c.kmeans_iterations = option_in(vm, "kmeans-iterations", 0, 1000000);
  c.kmeans_tolerance = option_in(vm, "kmeans-tolerance", 0.0, 1e6);
  c.kmeans_init = parse_kmeans_init(vm["kmeans-init"].as<std::string>());
  c.augpe_threshold = option_in(vm, "threshold", 0.0, 1e15);
  c.augpe_voters = parse_name(kAugPEVotersNames, vm["augpe-voters"].as<std::string>(), "--augpe-voters");
  c.generator.max_words = option_in(vm, "max-words", 1, 100000);
  c.generator.blank_fraction = vm["blank-fraction"].as<double>();
  try {
    c.generator.variation = parse_variation_mode(vm["variation"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError(std::string("--variation: ") + e.what());
  }
  if (!(c.generator.blank_fraction > 0 && c.generator.blank_fraction <= 1)) throw InputError("--blank-fraction must be in (0, 1]");
  http_generator_options(vm, c.http_generation);
  c.generator_kind = vm["generator"].as<std::string>();
  const bool learning = generator_kind(c.generator_kind).learns_from_texts();
  generator_labels_from(vm, c);
  c.votes_per_centre = votes_per_centre_from(vm["votes-per-center"].as<std::string>(), c);
  if (!learning && !vm["generator-labels"].defaulted()) {
    throw InputError("--generator-labels applies to generators that learn from texts only (--generator " + or_list(generator_kind_names(true)) + ")");
  }
  if (learning && vm.count("prompts") && c.generator_labels != GeneratorLabels::kPrompt)
    throw InputError("--prompts applies to --generator " + or_list(generator_kind_names(false)) + " or --generator-labels prompt only");
  if (vm.count("prompts")) {
    c.prompts = vm["prompts"].as<std::string>();
    if (!std::filesystem::is_regular_file(c.prompts)) throw InputError("--prompts: cannot read '" + c.prompts.string() + "'");
  }
  c.http_embedding = http_embedder_options(vm, false);
  if (vm.count("generator-corpus")) {
    c.generator_corpus = vm["generator-corpus"].as<std::string>();
    if (!std::filesystem::is_regular_file(c.generator_corpus)) throw InputError("--generator-corpus: cannot read '" + c.generator_corpus.string() + "'");
  }
  c.generator_texts = option_in<std::size_t>(vm, "generator-texts", 1, 1000000000);
  c.kernel = vm["kernel"].as<std::string>();
  c.device = vm["device"].as<std::string>();
  check_device_name(c.device);
  const int threads = option_in(vm, "threads", 0, 65536);
  c.threads = threads;
  c.shard_by = parse_shard_by(vm["shard-by"].as<std::string>());
  c.out = vm["out"].as<std::string>();
  check_output_folder("out", c.out, run_output_names());
  if (!vm["resume"].as<bool>() && std::filesystem::exists(c.out / "run.json")) {
    throw InputError("--out: '" + c.out.string() + "' holds a completed run (its run.json): give a new --out, or remove that "
                     "folder (and its private state folder) to run again there");
  }
  c.state_dir = vm.count("state-dir") ? std::filesystem::path(vm["state-dir"].as<std::string>()) : default_state_dir(c.out);
  check_state_dir(c.state_dir, c.out);
  c.resume = vm["resume"].as<bool>();
  c.ledger_dir = vm.count("ledger-dir") ? std::filesystem::path(vm["ledger-dir"].as<std::string>()) : default_ledger_dir();
  c.total_r_over_p = vm.count("total-r-over-p") ? vm["total-r-over-p"].as<double>() : 0.0;
  if (vm.count("total-r-over-p") && !(c.total_r_over_p > 1 && c.total_r_over_p < 1e12)) throw InputError("--total-r-over-p must be above 1");
  c.allow_over_budget = vm["allow-over-budget"].as<bool>();
  c.experiment = vm["experiment"].as<bool>();
  c.verify = vm["verify"].as<bool>();
  c.drop_leaking = vm["drop-leaking"].as<bool>();
  if (!std::filesystem::is_regular_file(c.data)) throw InputError("--data: cannot read '" + c.data.string() + "'");
  if (vm.count("eval-real")) {
    c.eval_real = vm["eval-real"].as<std::string>();
    if (!std::filesystem::is_regular_file(c.eval_real)) throw InputError("--eval-real: cannot read '" + c.eval_real.string() + "'");
  }
  return c;
}

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, static_cast<std::size_t>(len));
  return v.substr(0, v.find_first_of(",\n"));
}

// run.json's "options": every option as given or defaulted, input and output paths by file name
// only (a path may say more about the data than the run should publish), the key file never.
nlohmann::ordered_json recorded_options(const po::variables_map& vm, const RunOptions& c) {
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  for (const auto& [name, value] : option_values(vm)) {
    const bool path = name == "data" || name == "budgets" || name == "generator-corpus" || name == "eval-real" || name == "prompts" ||
                      name == "config" || name == "out" || name == "state-dir";
    options[name] = path ? std::filesystem::path(value).filename().string() : value;
  }
  if (vm["votes-per-center"].as<std::string>() == "auto") options["votes-per-center"] = "auto: " + std::to_string(c.votes_per_centre);
  if (vm.count("noise-key-file")) options["noise-key-file"] = "(given; not recorded)";
  if (vm.count("ledger-dir")) options["ledger-dir"] = "(given; not recorded)";
  return options;
}

// What privacy.json says about secrets over their budget: how many, and the one furthest over
// (its r_achieved / p against its r / p); empty when every secret is within its budget.
std::string over_budget_message(const nlohmann::ordered_json& privacy) {
  const std::size_t over = privacy.value("secrets_over_budget", std::size_t{0});
  if (over == 0) return "";
  const nlohmann::ordered_json* worst = nullptr;
  for (const auto& s : privacy["secrets"]) {
    if (!worst || s["r_achieved"].get<double>() / s["r"].get<double>() > (*worst)["r_achieved"].get<double>() / (*worst)["r"].get<double>()) worst = &s;
  }
  char text[160];
  std::snprintf(text, sizeof text, "worst: secret #%zu gets r/p = %.4g where r/p = %.4g was asked",
                (*worst)["secret"].get<std::size_t>(), (*worst)["r_achieved_over_p"].get<double>(),
                (*worst)["r"].get<double>() / (*worst)["p"].get<double>());
  return std::to_string(over) + " secret(s) get more than their budget (" + text + "; privacy.json lists each secret's r_achieved)";
}

// After the outputs are written: a run over its budget ends with exit code 4 unless the user
// accepted it. Every rank holds the same report, so every rank decides alike (no abort needed).
void end_if_over_budget(const nlohmann::ordered_json& privacy, const std::filesystem::path& out, bool allowed) {
  const std::string over = over_budget_message(privacy);
  if (over.empty()) return;
  if (!allowed) {
    throw AgreedExit(kOverBudgetExitCode, over + "; outputs written to " + out.string() +
                                              ". Exit code 4; --allow-over-budget accepts such a run (exit 0)");
  }
  log_warn(over + " (accepted: --allow-over-budget)");
}

}  // namespace

int command_run(const std::vector<std::string>& args) {
  po::options_description desc("secpe run options");
  add_common_options(desc);
  describe_run_options(desc);
  add_http_generator_options(desc);
  add_http_embedder_options(desc, true);
  add_http_client_options(desc);
  po::variables_map vm;
  if (!parse_options("run", "[mpirun -n RANKS] secpe run [--config FILE] [--data DATA.h5] [--out DIR] [--seed N] [--method secpe|augpe]",
                     desc, {}, args, vm)) {
    return 0;
  }
  const RunOptions options = run_config_from(vm);
  RunRequest request{.options = options,
                     .seed_given = vm.count("seed") > 0,
                     .nonce_given = vm.count("noise-nonce") > 0,
                     .key_file = vm.count("noise-key-file") ? std::optional<std::filesystem::path>(vm["noise-key-file"].as<std::string>())
                                                            : std::nullopt,
                     .recorded_options = recorded_options(vm, options)};
  set_log_quiet(vm["quiet"].as<bool>());
  const std::filesystem::path out = request.options.out;
  const bool allow_over_budget = request.options.allow_over_budget;
  return run_under_mpi([&](const Communicator& comm) {
    const DeviceKind& device = rank_device(request.options.device);  // first: --device cuda without a GPU fails before any state is made
    request.options.device = device.name();
    request.machine = machine_info();
    request.libraries = {{"mpi", mpi_library_version()},
                         {"hdf5", std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + "." + std::to_string(H5_VERS_RELEASE)},
                         {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION)},
                         {"build", build_options_json()}};
    const auto sums = device.sum_communicator(comm);
    const auto privacy = run_session(comm, sums ? *sums : comm, request);
    if (privacy) end_if_over_budget(*privacy, out, allow_over_budget);
  });
}

}  // namespace secpe::cli
