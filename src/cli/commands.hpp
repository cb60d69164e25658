#pragma once
// One function per `secpe <command>`; each returns the process exit code. `args` excludes the
// program and command names. User errors are thrown as InputError (exit code 2 in main).
#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace secpe::cli {

// Every command's name: an INI file's [sections] must be one of them.
inline constexpr std::array<std::string_view, 13> kCommandNames = {
    "corpus", "import", "keygen", "run", "inspect", "synth-embeddings", "privacy", "ledger", "audit", "eval", "bench", "blas-check", "serve"};
inline bool is_command_name(std::string_view name) {
  return std::find(kCommandNames.begin(), kCommandNames.end(), name) != kCommandNames.end();
}

int command_corpus(const std::vector<std::string>& args);
int command_import(const std::vector<std::string>& args);
int command_keygen(const std::vector<std::string>& args);
int command_run(const std::vector<std::string>& args);
int command_inspect(const std::vector<std::string>& args);
int command_synth_embeddings(const std::vector<std::string>& args);
int command_blas_check(const std::vector<std::string>& args);
int command_bench(const std::vector<std::string>& args);
int command_privacy(const std::vector<std::string>& args);
int command_privacy_calibrate(const std::vector<std::string>& args);  // secpe privacy calibrate
int command_privacy_plan(const std::vector<std::string>& args);       // secpe privacy plan
int command_ledger(const std::vector<std::string>& args);
// The digest that names a dataset in the privacy ledger: its file's content (command_ledger.cpp).
std::string dataset_digest(const std::filesystem::path& data);
int command_audit(const std::vector<std::string>& args);
int command_eval(const std::vector<std::string>& args);
int command_serve(const std::vector<std::string>& args);

}  // namespace secpe::cli
