#pragma once
// What a run is asked to do (RunOptions, public) and what it must keep secret (RunSecrets).
#include <cstdint>
#include <filesystem>
#include <string>

#include "cluster/kmeans.hpp"
#include "compute/metric.hpp"
#include "compute/nearest.hpp"
#include "core/enum_names.hpp"
#include "core/secret_key.hpp"
#include "evolve/shard.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"
#include "privacy/secret_noise.hpp"
#include "text/generator.hpp"
#include "text/generator_training.hpp"

namespace secpe {

// Who votes in Aug-PE: every record of the label (as in Aug-PE and the paper's comparison), or
// only the private ones (records holding a secret; the public ones are known anyway).
enum class AugPEVoters { kAll, kPrivate };
inline constexpr EnumNames<AugPEVoters, 2> kAugPEVotersNames{{{AugPEVoters::kAll, "all"}, {AugPEVoters::kPrivate, "private"}}};
inline std::string augpe_voters_name(AugPEVoters voters) { return std::string(name_of(kAugPEVotersNames, voters)); }

// A run's options: public, recorded in run.json (paths by file name) and covered by the release
// digest where they determine the releases (evolve/release_keys.hpp). The run's secrets are apart,
// in RunSecrets, so that no options struct ever holds a key.
struct RunOptions {
  std::filesystem::path data;
  std::filesystem::path out;        // publishable outputs (written by the run session)
  std::filesystem::path state_dir;  // private: rank 0 writes checkpoint.json here after each label
  bool resume = false;              // skip labels finished in state_dir/checkpoint.json
  std::uint64_t seed = 0;           // public: generator, k-means seeding, tie-breaks
  NoiseNonce noise_nonce;           // public: the run's nonce, an input of every release key (evolve/release_keys.hpp)
  std::string method = "secpe";     // a registered method (evolve/methods/registry.cpp)
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
  int generator_topics = 0;         // pooled: latent topics of the public texts, a model each (0: one model;
                                    // kAutoGeneratorTopics: chosen from the training texts' count)
  std::string generator_kind = "builtin";  // --generator: a kind of evolve/generators/generator_kind.hpp
  HttpGeneratorOptions http_generation;     // its connection and sampling (cache: state_dir, set by the pipeline)
  std::filesystem::path prompts;            // its prompt file, or the built-in generator's (prompt labels); empty: the built-in prompts
  HttpEmbedderOptions http_embedding;       // connection of a dataset's HTTP embedder (base URL, model: see dataset_embedder)
  std::filesystem::path generator_corpus;  // empty: learn from the dataset's public records
  std::size_t generator_texts = 5000;      // public training texts per label, at most
  std::string kernel = "blas";
  std::string device = "cpu";       // where the kernel runs: a registered device (devices/registry.cpp), never auto here
  int threads = 0;                  // compute threads per rank (0: SECPE_THREADS, else the hardware's)
  ShardBy shard_by = ShardBy::kAuto;  // records split by record range or by label (evolve/shard.hpp)
  bool verify = false;              // check the kernel against the reference kernel on this rank's data first
  bool drop_leaking = false;        // leave texts with a PII pattern out of synthetic.csv and initial.csv (evolve/leak_report.hpp)
  std::filesystem::path eval_real;  // real records (Aug-PE CSV or JSON lines): score every iteration's population (secpe eval)
  // Across runs (evolve/run_budget.hpp): the dataset's privacy ledger, the cap on every secret's
  // cumulative r_j / p_j over the counted runs (0: none), whether a run over it goes ahead anyway,
  // and whether the run is an experiment (outputs not for publication, not counted).
  std::filesystem::path ledger_dir;
  double total_r_over_p = 0.0;
  bool allow_over_budget = false;
  bool experiment = false;
};

// The run's secrets, settled by the run session (evolve/run_session.hpp) after the options are
// checked: never written to an output, a log or an error.
struct RunSecrets {
  NoiseKey noise_key;          // noise and private sampling (from a key file, the kept key or the OS)
  std::string release_digest;  // D of evolve/release_keys.hpp: a digest of everything that determines the releases
};

}  // namespace secpe
