// secpe <command> [options]: the entry point. Turns errors into exit codes: 2 for anything the
// user can fix (options, files, records), 1 for internal errors.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace {

constexpr const char* kUsage =
    "usage: secpe <command> [options]      (secpe <command> --help lists every option)\n"
    "       secpe --version                (version, source commit and build options)\n\n"
    "commands:\n"
    "  corpus    write the built-in demo corpus (Aug-PE CSV) and its planted secrets\n"
    "  import    turn a corpus (augpe-csv or jsonl) into a secpe HDF5 dataset\n"
    "  keygen    make a secret noise key file (for reproducible runs: run --noise-key-file)\n"
    "  run       run SecPE (or the Aug-PE baseline) under MPI: synthetic text + privacy report\n"
    "  inspect   summarise a dataset, a checkpoint or an output folder\n"
    "  synth-embeddings   write a Yelp-scale embedding dataset (no text) for scaling studies\n"
    "  privacy   calibrate a dataset's (or a simulated) secret matrix in every mode; what a sigma really gives\n"
    "            (privacy calibrate: the sigma for given holders' sampling probabilities, no dataset)\n"
    "            (privacy plan: the r/p each of K runs on one dataset may take within a total)\n"
    "  ledger    the runs recorded in the privacy ledger, per dataset: what each spent alone and in all\n"
    "  audit     measure one label's release on neighbouring datasets against the accountant's certificate\n"
    "  eval      score a synthetic set against real records: downstream accuracy, FID, precision/recall, lengths, diversity\n"
    "  bench     benchmarks, written as JSON (secpe bench --help)\n"
    "  blas-check   which OpenBLAS core runs, whether it fits the CPU, and a self-test of it\n"
    "  serve     the built-in generator and embedder behind an OpenAI-compatible HTTP API (for --generator http, --embedder http)\n";

// Under mpirun, only the first process prints errors that every process would print alike.
bool first_process() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  return !rank || std::string(rank) == "0";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version") {
    std::cout << secpe::version_text();
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "corpus") return secpe::cli::command_corpus(args);
    if (command == "import") return secpe::cli::command_import(args);
    if (command == "keygen") return secpe::cli::command_keygen(args);
    if (command == "run") return secpe::cli::command_run(args);
    if (command == "inspect") return secpe::cli::command_inspect(args);
    if (command == "synth-embeddings") return secpe::cli::command_synth_embeddings(args);
    if (command == "blas-check") return secpe::cli::command_blas_check(args);
    if (command == "bench") return secpe::cli::command_bench(args);
    if (command == "privacy") return secpe::cli::command_privacy(args);
    if (command == "ledger") return secpe::cli::command_ledger(args);
    if (command == "audit") return secpe::cli::command_audit(args);
    if (command == "eval") return secpe::cli::command_eval(args);
    if (command == "serve") return secpe::cli::command_serve(args);
    if (first_process()) std::cerr << "secpe: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const secpe::InputError& e) {
    if (first_process()) std::cerr << "secpe: error: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    if (first_process()) std::cerr << "secpe: internal error: " << e.what() << std::endl;
    return 1;
  }
}
