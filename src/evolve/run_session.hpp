#pragma once
// secpe run from one place: the run session settles the run's public inputs (seed, nonce) and its
// secrets (the release digest, the noise key), owns the private state folder, runs the stages of
// evolve/pipeline.hpp in order, and writes the publishable outputs and the private timings. The
// command (cli/command_run.cpp) only parses options into a RunRequest and decides the exit code.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comms/communicator.hpp"
#include "evolve/run_options.hpp"

namespace secpe {

struct RunRequest {
  RunOptions options;             // seed and noise_nonce: used when given, else settled by the session
  bool seed_given = false;        // --seed
  bool nonce_given = false;       // --noise-nonce
  std::optional<std::filesystem::path> key_file;  // --noise-key-file; else the kept key (--resume) or the OS's
  // run.json's record of the command: its options as given (paths by file name; the session adds
  // the settled seed and nonce), the machine, and the libraries it was built with.
  nlohmann::ordered_json recorded_options = nlohmann::ordered_json::object();
  nlohmann::ordered_json machine = nullptr;    // set by the CLI on the rank itself
  nlohmann::ordered_json libraries = nullptr;
};

// The publishable outputs a run writes to --out, as run.json lists them.
const std::vector<std::string>& run_output_names();

// Collective on `comm` (every rank of the job); the run's large sums go through `run_comm` (comm
// itself, or an NCCL communicator over the same ranks). Returns privacy.json (on every rank), or
// nothing when --resume found the run already complete. Throws InputError for a run that cannot
// succeed (before any secret is made), Interrupted when stopped (progress kept).
std::optional<nlohmann::ordered_json> run_session(const Communicator& comm, const Communicator& run_comm, RunRequest request);

}  // namespace secpe
