#pragma once
// The whole run: load this rank's shard of the dataset, calibrate noise, then per label run
// protected evolution (SecPE) or the Aug-PE baseline, and assemble what rank 0 writes out.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/kmeans.hpp"
#include "compute/nearest.hpp"
#include "core/secret_key.hpp"
#include "dist/communicator.hpp"
#include "eval/real_set.hpp"
#include "evolve/shard.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"
#include "privacy/budgets.hpp"
#include "privacy/secret_noise.hpp"
#include "text/generator.hpp"
#include "text/generator_training.hpp"

namespace secpe {

// kRandom: the no-private-data control: the same generator, loop and sizes, uniform random
// selection; no private record is read, nothing about them is released.
enum class Method { kSecPE, kAugPE, kRandom };
// Who votes in Aug-PE: every record of the label (as in Aug-PE and the paper's comparison), or
// only the private ones (records holding a secret; the public ones are known anyway).
enum class AugPEVoters { kAll, kPrivate };

struct RunConfig {
  std::filesystem::path data;
  std::filesystem::path out;        // publishable outputs (written by the caller)
  std::filesystem::path state_dir;  // private: rank 0 writes checkpoint.json here after each label
  bool resume = false;              // skip labels finished in state_dir/checkpoint.json
  std::uint64_t seed = 0;           // public: generator, k-means seeding, tie-breaks
  NoiseKey noise_key;               // secret: noise and private sampling; never written to an output
  NoiseNonce noise_nonce;           // public: the run's nonce, an input of every release key (evolve/release_keys.hpp)
  std::string release_digest;       // private: D of evolve/release_keys.hpp (release_digest()); never written to an output
  Method method = Method::kSecPE;
  int iterations = 5;               // T
  std::size_t synthetic = 300;      // N_syn over all labels, split by public label frequencies
  int variations = 3;               // L
  int clusters = 20;                // K per label
  int votes_per_centre = 1;         // each noisy centre votes for its k nearest candidates
  double near_duplicate_share = 0.5;  // selection skips a candidate sharing this share of 5-grams with a kept one
  double private_batch = 1000.0;    // B per label
  double p = 1e-4;                  // uniform budget: prior p and risk r of every secret
  double r = 1e-3;
  std::filesystem::path budgets_file;  // per-secret (p, r) overrides
  CalibrationMode calibration = CalibrationMode::kExact;  // SecPE; Aug-PE is always gdp
  int max_holders_per_secret = 0;   // public-profile: the user's public cap on any secret's holders (0: no cap)
  double sampling_rate = 1.0;       // public-profile: the user's public cap on any record's sampling probability
  double epsilon = 0.0;             // Aug-PE: mu from (epsilon, delta) instead of (p, r) when > 0
  double delta = 0.0;               // for (eps, delta); 0 means 1/(N ln N)
  Metric metric = Metric::kCosine;
  double clip_radius = 1.0;         // R
  int kmeans_iterations = 20;
  double kmeans_tolerance = 1e-4;
  KMeansInit kmeans_init = KMeansOptions{}.init;
  double augpe_threshold = 0.0;
  AugPEVoters augpe_voters = AugPEVoters::kAll;
  NgramGeneratorOptions generator;
  GeneratorLabels generator_labels = GeneratorLabels::kPerLabel;  // how labels reach the built-in generator
  int generator_topics = 0;         // pooled: latent topics of the public texts, a model each (0: one model)
  bool http_generator = false;              // generate with a model behind an API instead of the built-in one
  HttpGeneratorOptions http_generation;     // its connection and sampling (cache: state_dir, set by the pipeline)
  std::filesystem::path prompts;            // its prompt file, or the built-in generator's (prompt labels); empty: the built-in prompts
  HttpEmbedderOptions http_embedding;       // connection of a dataset's HTTP embedder (base URL, model: see dataset_embedder)
  std::filesystem::path generator_corpus;  // empty: learn from the dataset's public records
  std::size_t generator_texts = 5000;      // public training texts per label, at most
  std::string kernel = "blas";
  Device device = Device::kCpu;     // where the kernel runs (resolved: never kAuto here)
  int threads = 0;                  // compute threads per rank (0: SECPE_THREADS, else the hardware's)
  ShardBy shard_by = ShardBy::kAuto;  // records split by record range or by label (evolve/shard.hpp)
  bool verify = false;              // check the kernel against the reference kernel on this rank's data first
  bool drop_leaking = false;        // leave texts with a PII pattern out of synthetic.csv and initial.csv (evolve/leak_report.hpp)
  std::filesystem::path eval_real;  // real records (Aug-PE CSV or JSON lines): score every iteration's population (secpe eval)
};

struct RunResult {
  std::vector<std::vector<std::string>> synthetic;  // per label, in selection order
  std::vector<std::vector<std::string>> initial;    // per label: the generator's output at iteration 0
  std::vector<std::int32_t> synthetic_labels;       // label of each line of synthetic.csv
  nlohmann::ordered_json privacy;                   // privacy.json
  std::vector<nlohmann::ordered_json> metrics;      // metrics.jsonl lines
  nlohmann::ordered_json summary;                   // part of run.json
  nlohmann::ordered_json timings;                   // timings.json in the private state folder (evolve/run_timings.hpp)
  std::vector<std::string> label_columns, label_prefixes;
  std::vector<int> column_order;  // synthetic.csv's columns in the input's order (io/corpus.hpp)
  std::vector<std::vector<std::string>> label_values;
};

// What a run reads and checks before it makes any secret or does any costly work: this rank's
// shard of the dataset, the per-secret budgets, N_syn per label, and the real set of --eval-real
// (read once, its labels checked against the dataset's). InputError for a run that cannot succeed:
// a dataset without public records, a budgets file that does not fit, real records whose label
// values never match, a candidate pool that does not fit in memory.
struct RunInputs {
  std::unique_ptr<Shard> shard;
  SecretBudgets budgets;
  std::vector<std::size_t> synthetic_per_label;
  std::optional<RealSet> eval_real;
  std::vector<int> column_order;  // the input's column order, from the dataset's provenance (io/corpus.hpp)
};
RunInputs prepare_run(const Communicator& comm, const RunConfig& config);

// --resume into an output folder that already holds a completed run (its run.json): rank 0
// compares the settings its checkpoint was made with to these; the noise key (config.noise_key),
// with the checkpoint's MAC and the keyed check of the release digest (config.release_digest),
// only when `key_known` (an OS-drawn key is deleted when its run completes), --eval-real not at
// all (nothing is evaluated again), and throws InputError naming the first that differs.
void check_completed_run(const RunConfig& config, const DatasetInfo& info, bool key_known);

// The run itself, on the communicator `inputs` were prepared on; config.noise_key is settled.
RunResult run_pipeline(const Communicator& comm, const RunConfig& config, const RunInputs& inputs);

std::string method_name(Method method);
std::string augpe_voters_name(AugPEVoters voters);

}  // namespace secpe
