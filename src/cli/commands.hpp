#pragma once
// One function per `secpe <command>`; each returns the process exit code. `args` excludes the
// program and command names. User errors are thrown as InputError (exit code 2 in main).
#include <string>
#include <vector>

namespace secpe::cli {

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
int command_audit(const std::vector<std::string>& args);
int command_eval(const std::vector<std::string>& args);

}  // namespace secpe::cli
