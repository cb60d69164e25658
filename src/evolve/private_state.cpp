#include "evolve/private_state.hpp"

#include <sys/stat.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "evolve/checkpoint.hpp"

namespace secpe {
namespace {

std::filesystem::path key_path(const std::filesystem::path& dir) { return dir / "noise.key"; }

std::filesystem::path resolved(const std::filesystem::path& p) {
  return std::filesystem::weakly_canonical(std::filesystem::absolute(p));
}

}  // namespace

std::filesystem::path default_state_dir(const std::filesystem::path& out) {
  std::filesystem::path base = out;
  if (!base.has_filename()) base = base.parent_path();  // "out/run/" names the folder "run"
  return base.parent_path() / (base.filename().string() + ".state");
}

void check_state_dir(const std::filesystem::path& state_dir, const std::filesystem::path& out) {
  const auto state = resolved(state_dir), published = resolved(out);
  auto s = state.begin();
  for (auto o = published.begin(); o != published.end(); ++o, ++s) {
    if (o->empty()) continue;  // a trailing separator
    if (s == state.end() || *s != *o) return;
  }
  throw InputError("the private state folder '" + state_dir.string() + "' is inside the output folder '" + out.string() +
                   "': the output folder is publishable and the state folder must never be published");
}

PrivateState open_private_state(const std::filesystem::path& dir, bool resume,
                                const std::optional<std::filesystem::path>& key_file) {
  PrivateState state;
  state.dir = dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || ::chmod(dir.c_str(), 0700) != 0) {
    throw InputError("cannot create the private state folder '" + dir.string() + "'");
  }
  const auto kept = key_path(dir);
  if (key_file) {
    state.key = read_noise_key_file(*key_file);
    state.key_from_file = true;
    std::filesystem::remove(kept);  // an earlier OS-keyed run's key is of no further use
  } else if (resume && std::filesystem::exists(kept)) {
    state.key = read_noise_key_file(kept);
  } else if (resume && std::filesystem::exists(checkpoint_path(dir))) {
    throw InputError("resume: " + dir.string() + " holds a checkpoint but no noise key: either the run completed (its key was deleted) "
                     "or it used a noise key file, which must be given again");
  } else {
    if (std::filesystem::exists(kept) || std::filesystem::exists(checkpoint_path(dir))) {
      log_info("starting afresh: replacing an earlier run's private state in " + dir.string() +
               (std::filesystem::exists(kept) ? " (an unfinished run: --resume would have continued it)" : ""));
    }
    std::filesystem::remove(kept);
    std::filesystem::remove(checkpoint_path(dir));
    state.key = noise_key_from_os();
    write_noise_key_file(kept, state.key);
  }
  return state;
}

void close_private_state(const PrivateState& state) {
  if (!state.key_from_file) std::filesystem::remove(key_path(state.dir));
}

void discard_unused_private_state(const PrivateState& state) {
  std::error_code ec;
  if (state.dir.empty() || std::filesystem::exists(checkpoint_path(state.dir), ec) || std::filesystem::exists(progress_path(state.dir), ec)) return;
  if (!state.key_from_file) std::filesystem::remove(key_path(state.dir), ec);
  if (std::filesystem::is_empty(state.dir, ec)) std::filesystem::remove(state.dir, ec);
}

std::string noise_key_source(const PrivateState& state) {
  return state.key_from_file ? "key file (--noise-key-file)"
                             : "operating system CSPRNG (256 bits; kept in the private state folder until the run completed, then deleted)";
}

}  // namespace secpe
