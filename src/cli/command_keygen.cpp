// secpe keygen: a new secret noise key file (256 bits from the OS CSPRNG, mode 0600), for runs
// that must be reproducible (`secpe run --noise-key-file FILE`). Whoever holds the file can
// recompute the noise of every run made with it: keep it with the private data, never publish it.
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/secret_key.hpp"

namespace secpe::cli {

int command_keygen(const std::vector<std::string>& args) {
  po::options_description desc("secpe keygen options");
  add_common_options(desc);
  desc.add_options()("out", po::value<std::string>(), "the key file to create (must not exist)");
  po::variables_map vm;
  if (!parse_options("keygen", "secpe keygen --out FILE", desc, {}, args, vm)) return 0;
  if (!vm.count("out")) throw InputError("--out is required: the key file to create");
  const std::filesystem::path out = vm["out"].as<std::string>();
  if (std::filesystem::exists(out)) throw InputError("--out: '" + out.string() + "' exists; a key file is never overwritten");
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_noise_key_file(out, noise_key_from_os());
  log_info("wrote a new noise key to " + out.string() + " (mode 0600): keep it with the private data and never publish it");
  return 0;
}

}  // namespace secpe::cli
