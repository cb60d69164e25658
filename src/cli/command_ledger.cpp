// secpe ledger: the runs a privacy ledger holds (evolve/dataset_ledger.hpp), for one dataset (by its
// content: a copy or a rename is the same dataset) or for every dataset in it, with what each run
// spent alone and with the runs before it.
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "comms/communicator.hpp"
#include "evolve/dataset_ledger.hpp"
#include "evolve/release_keys.hpp"

namespace secpe::cli {

std::string dataset_digest(const std::filesystem::path& data) {
  if (!std::filesystem::is_regular_file(data)) throw InputError("--data: cannot read '" + data.string() + "'");
  return file_digest(LocalCommunicator(), data, default_threads());
}

int command_ledger(const std::vector<std::string>& args) {
  po::options_description desc("secpe ledger options");
  add_common_options(desc);
  desc.add_options()
    ("data", po::value<std::string>(), "a dataset written by secpe import: list its runs only (found by content, whatever its name)")
    ("ledger-dir", po::value<std::string>(), "the privacy ledger folder (default: SECPE_LEDGER_DIR if set, else ~/.local/share/secpe/ledger)");
  po::variables_map vm;
  if (!parse_options("ledger", "secpe ledger [--data DATA.h5] [--ledger-dir DIR]\n\n"
                     "Every completed secpe run on a dataset is recorded in its privacy ledger; runs compose, and each run's\n"
                     "privacy.json reports both its own r/p and the cumulative one (docs/privacy.md, 'Across runs').",
                     desc, {}, args, vm)) return 0;
  const std::filesystem::path dir = vm.count("ledger-dir") ? std::filesystem::path(vm["ledger-dir"].as<std::string>()) : default_ledger_dir();
  const DatasetLedger ledger(dir);
  std::cout << "privacy ledger " << dir.string() << " (private: never publish it): " << ledger.entries().size() << " run(s) recorded\n";
  if (vm.count("data")) {
    const std::filesystem::path data = vm["data"].as<std::string>();
    const auto runs = ledger.runs_of(dataset_digest(data));
    std::cout << "dataset " << data.filename().string() << ": " << runs.size() << " run(s)\n";
    if (!runs.empty()) std::cout << describe_runs(runs);
    return 0;
  }
  std::map<std::string, std::vector<LedgerEntry>> by_dataset;
  for (const LedgerEntry& e : ledger.entries()) by_dataset[e.dataset].push_back(e);
  for (const auto& [digest, runs] : by_dataset) {
    std::cout << "dataset with content digest " << digest.substr(0, 16) << "...: " << runs.size() << " run(s)\n" << describe_runs(runs);
  }
  return 0;
}

}  // namespace secpe::cli
