#include "evolve/run_session.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>

#include "core/atomic_file.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/secret_normal.hpp"
#include "core/stop_signal.hpp"
#include "core/timer.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/pipeline.hpp"
#include "evolve/private_state.hpp"
#include "evolve/release_keys.hpp"
#include "evolve/run_budget.hpp"
#include "evolve/run_resume.hpp"
#include "evolve/run_timings.hpp"
#include "io/corpus.hpp"

namespace secpe {

const std::vector<std::string>& run_output_names() {
  static const std::vector<std::string> names = {"synthetic.csv", "initial.csv", "privacy.json", "metrics.jsonl", "run.json"};
  return names;
}

namespace {

// Written, so released: the ledger counts the run. Where it cannot (its folder changed under the
// run, a full disk), outputs it does not count would escape the dataset's budget, so they are
// removed (run.json, the mark of a complete set, first) and the error says so; the private state
// stays, and --resume writes them again once the ledger can take them.
void record_or_withdraw(RunBudget& budget, const Method& method, const SecretBudgets& budgets, const std::filesystem::path& out) {
  try {
    budget.record(method, budgets);
  } catch (const std::exception& e) {
    std::error_code ignored;
    std::filesystem::remove(out / "run.json", ignored);
    for (const std::string& name : run_output_names()) std::filesystem::remove(out / name, ignored);
    const std::string what = std::string(e.what()) + ". The run's outputs were removed from " + out.string() +
                             ", since the privacy ledger could not count them; once it can, run again with --resume to write them";
    if (dynamic_cast<const InputError*>(&e)) throw InputError(what);
    throw std::runtime_error(what);
  }
}

void write_outputs(const std::filesystem::path& out, const RunResult& result, const nlohmann::ordered_json& run_json) {
  std::filesystem::create_directories(out);
  auto csv_of = [&](const std::vector<std::vector<std::string>>& per_label) {
    return [&result, &population = per_label](std::ostream& o) {
      std::vector<std::string> texts;
      std::vector<std::vector<std::string>> labels;
      for (std::size_t l = 0; l < population.size(); ++l) {
        for (const auto& t : population[l]) {
          texts.push_back(t);
          labels.push_back(result.label_values[l]);
        }
      }
      write_augpe_csv(o, result.label_columns, result.label_prefixes, texts, labels, result.column_order);
    };
  };
  std::vector<FileWriter> files;
  for (const std::string& name : run_output_names()) {
    if (name == "synthetic.csv") files.push_back({name, csv_of(result.synthetic)});
    if (name == "initial.csv") files.push_back({name, csv_of(result.initial)});
    if (name == "privacy.json") files.push_back({name, [&](std::ostream& o) { o << result.privacy.dump(2) << "\n"; }});
    if (name == "metrics.jsonl") files.push_back({name, [&](std::ostream& o) { for (const auto& m : result.metrics) o << m.dump() << "\n"; }});
    if (name == "run.json") files.push_back({name, [&](std::ostream& o) { o << run_json.dump(2) << "\n"; }});
  }
  // The report is written first, so synthetic text never stands without it; run.json, last,
  // marks a complete set.
  std::stable_partition(files.begin(), files.end(), [](const FileWriter& f) { return f.first == "privacy.json"; });
  write_file_set(out, files);
}

// The run's public inputs, settled on rank 0 and sent to every rank: the seed from --seed, the
// interrupted run's (--resume) or the OS; the nonce from --noise-nonce, the interrupted run's or the
// OS. The interrupted run's are read from its checked files before the key is known; the MAC that
// binds them is checked when the run loads those files, before anything is released.
struct PublicInputs {
  std::string seed_source, nonce_source;  // for run.json
  bool resuming = false;                  // rank 0: an interrupted run's checkpoint or progress is there
};

PublicInputs settle_public_inputs(const Communicator& comm, RunRequest& request) {
  RunOptions& options = request.options;
  enum Source : std::int64_t { kGiven, kCheckpoint, kOs };
  std::array<std::int64_t, 3> settled{0, kGiven, kGiven};  // seed, its source, the nonce's source
  PublicInputs inputs;
  if (comm.is_root()) {
    const auto saved = options.resume ? saved_run_inputs(options.state_dir) : std::nullopt;
    inputs.resuming = saved.has_value();
    settled[0] = static_cast<std::int64_t>(request.seed_given ? options.seed : saved ? saved->seed : os_seed());
    settled[1] = request.seed_given ? kGiven : saved ? kCheckpoint : kOs;
    settled[2] = request.nonce_given ? kGiven : saved ? kCheckpoint : kOs;
    if (!request.nonce_given) options.noise_nonce = saved ? saved->nonce : noise_nonce_from_os();
  }
  comm.broadcast(std::span<std::int64_t>(settled));
  comm.broadcast(std::span<unsigned char>(options.noise_nonce.bytes));
  options.seed = static_cast<std::uint64_t>(settled[0]);
  const char* const names[] = {"given", "the interrupted run's (--resume)", "operating system"};
  inputs.seed_source = settled[1] == kGiven ? "--seed" : names[settled[1]];
  inputs.nonce_source = settled[2] == kGiven ? "--noise-nonce" : names[settled[2]];
  return inputs;
}

// D (evolve/release_keys.hpp): a digest of everything that determines the run's releases; returns
// the dataset file's digest, which names the dataset in its privacy ledger. Collective.
std::string digest_release_inputs(const Communicator& comm, const RunOptions& options, RunSecrets& secrets) {
  const Timer timer;
  const std::string data = file_digest(comm, options.data, options.threads > 0 ? options.threads : default_threads());
  secrets.release_digest = release_digest(comm, options, options.noise_nonce, data);
  log_info("release keys: the run's inputs digested in " + std::to_string(timer.seconds()) + " s (the dataset's bytes included)");
  return data;
}

// The secret noise key: settled on rank 0 (file, kept key or OS), sent to the other ranks in memory
// only (they need it for the private sampling). A key file may serve many runs; its nonce record
// refuses a second, different run with the same key and nonce (an OS key is new for every run and
// leaves with it). Resuming, the checkpoint's fingerprint compares everything D covers, with
// clearer messages.
PrivateState settle_noise_key(const Communicator& comm, const RunOptions& options, RunSecrets& secrets, const std::optional<std::filesystem::path>& key_file,
                              const PublicInputs& inputs) {
  PrivateState state;
  if (comm.is_root()) {
    state = open_private_state(options.state_dir, options.resume, key_file);
    secrets.noise_key = state.key;
  }
  comm.broadcast(std::span<unsigned char>(secrets.noise_key.bytes));
  if (comm.is_root() && state.key_from_file && !inputs.resuming &&
      !record_noise_nonce(options.state_dir, secrets.noise_key, options.noise_nonce, secrets.release_digest)) {
    throw InputError("--noise-nonce: the state folder '" + options.state_dir.string() + "' shows that this noise key and nonce already "
                     "made a run with other data or options; two different runs must never share a nonce under one key. Leave "
                     "--noise-nonce out (a fresh nonce), or give the nonce of the run you mean to repeat with its exact inputs");
  }
  return state;
}

// --resume into an --out that holds a completed run (a requeued job that had finished, say): true
// when its settings match (nothing to do, nothing redone); InputError naming the first that differs.
bool already_complete(const Communicator& comm, const RunOptions& options, const RunSecrets& secrets, const RunInputs& inputs,
                      const std::optional<std::filesystem::path>& key_file) {
  if (!options.resume || !std::filesystem::exists(options.out / "run.json")) return false;
  std::string differs;
  if (comm.is_root()) {
    try {
      RunSecrets given = secrets;
      if (key_file) given.noise_key = read_noise_key_file(*key_file);
      check_completed_run(options, given, inputs.shard->info(), key_file.has_value());
    } catch (const InputError& e) {
      differs = e.what();
    }
  }
  comm.broadcast(differs);
  if (!differs.empty()) throw InputError(differs);
  log_info(options.out.string() + " already holds the completed run (its run.json): nothing to resume, nothing redone. "
           "For another run, give a new --out");
  return true;
}

// The run; when it fails (not stopped), rank 0 deletes a noise key that protects no progress.
RunResult run_leaving_no_unused_key(const Communicator& comm, const Communicator& run_comm, const RunOptions& options,
                                    const RunSecrets& secrets, const RunInputs& inputs, RunBudget& budget, const PrivateState& state) {
  try {
    return run_pipeline(run_comm, options, secrets, inputs, budget);
  } catch (const Interrupted&) {
    throw;
  } catch (...) {
    if (comm.is_root()) discard_unused_private_state(state);
    throw;
  }
}

// run.json: what was run, how, where and with what; the run's summary (public counts and settings).
nlohmann::ordered_json run_json_of(const Communicator& comm, const RunRequest& request, const PublicInputs& inputs,
                                   const PrivateState& state, const RunResult& result, const std::vector<std::string>& nodes) {
  const RunOptions& options = request.options;
  nlohmann::ordered_json run_json;
  if (options.experiment) run_json["publication"] = "NOT FOR PUBLICATION: an experiment (--experiment), not counted in the dataset's privacy budget";
  run_json["command"] = "secpe run";
  run_json["seed"] = options.seed;
  run_json["seed_source"] = inputs.seed_source;
  run_json["noise_key"] = noise_key_source(state);
  run_json["noise_version"] = kSecretNoiseVersion;
  run_json["noise_nonce"] = options.noise_nonce.hex();
  run_json["noise_nonce_source"] = inputs.nonce_source;
  run_json["method"] = options.method;
  run_json["ranks"] = comm.size();
  const char* slurm_job = std::getenv("SLURM_JOB_ID");
  run_json["provenance"] = {{"nodes", nodes},
                            {"threads_per_rank", options.threads > 0 ? options.threads : default_threads()},
                            {"device", options.device},
                            {"slurm_job_id", slurm_job ? slurm_job : ""},
                            {"git_commit", build_info().commit},
                            {"machine", request.machine}};
  nlohmann::ordered_json recorded = request.recorded_options;
  recorded["seed"] = std::to_string(options.seed);
  recorded["noise-nonce"] = options.noise_nonce.hex();
  run_json["options"] = recorded;
  run_json["versions"] = {{"secpe", build_info().version},
                          {"noise_keying", "release keys v1 (evolve/release_keys.hpp): another key derivation than earlier versions, so their runs are not repeated bit for bit"},
                          {"checkpoint_format", 4}};
  run_json["versions"].update(request.libraries);
  run_json["summary"] = result.summary;
  run_json["outputs"] = run_output_names();
  return run_json;
}

}  // namespace

std::optional<nlohmann::ordered_json> run_session(const Communicator& comm, const Communicator& run_comm, RunRequest request) {
  const Timer wall;
  RunOptions& options = request.options;
  const PublicInputs public_inputs = settle_public_inputs(comm, request);
  // Every check that can fail the run, before any secret is made or any costly work done.
  Timer stage;
  const RunInputs inputs = prepare_run(run_comm, options);
  const double prepare_seconds = stage.seconds();
  stage.restart();
  RunSecrets secrets;
  const std::string dataset_digest = digest_release_inputs(comm, options, secrets);
  const double digest_seconds = stage.seconds();
  if (already_complete(comm, options, secrets, inputs, request.key_file)) return std::nullopt;
  // The dataset's budget across runs: nothing left, nothing made.
  stage.restart();
  RunBudget budget(comm, options, dataset_digest);
  budget.check_spent(comm, inputs.budgets);
  const double ledger_read_seconds = stage.seconds();
  const PrivateState state = settle_noise_key(comm, options, secrets, request.key_file, public_inputs);
  budget.identify(keyed_digest_hex(secrets.noise_key, "secpe ledger release v1", secrets.release_digest));

  install_stop_signals();  // SIGUSR1 / SIGTERM: stop at the next iteration boundary, progress kept
  const std::vector<std::string> nodes = comm.hosts();  // where it ran
  const RunResult result = run_leaving_no_unused_key(comm, run_comm, options, secrets, inputs, budget, state);
  if (comm.is_root()) {
    const nlohmann::ordered_json run_json = run_json_of(comm, request, public_inputs, state, result, nodes);
    stage.restart();
    write_outputs(options.out, result, run_json);
    const double outputs_seconds = stage.seconds();
    stage.restart();
    record_or_withdraw(budget, *inputs.method, inputs.budgets, options.out);
    // The run's timings (the private work's among them) go to the state folder, not to run.json.
    nlohmann::ordered_json timings = result.timings;
    nlohmann::ordered_json stages{{"prepare_seconds", prepare_seconds}, {"digest_seconds", digest_seconds},
                                  {"ledger_read_seconds", ledger_read_seconds}};
    stages.update(timings["run"]);
    stages["outputs_seconds"] = outputs_seconds;
    stages["ledger_record_seconds"] = stage.seconds();
    stages["wall_seconds"] = wall.seconds();
    timings["run"] = std::move(stages);
    write_run_timings(options.state_dir, std::move(timings));
    close_private_state(state);
    log_info("wrote " + std::to_string(result.synthetic_labels.size()) + " synthetic texts and the privacy report to " +
             options.out.string() + " (publishable); private state, never to be published: " + options.state_dir.string());
  }
  return result.privacy;
}

}  // namespace secpe
