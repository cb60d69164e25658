#include "evolve/private_state.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "evolve/checkpoint.hpp"

namespace secpe {
namespace {

std::filesystem::path noise_key_path(const std::filesystem::path& dir) { return dir / "noise.key"; }

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
  ensure_private_folder(dir, "private state folder");
  const auto kept = noise_key_path(dir);
  if (key_file) {
    state.key = read_noise_key_file(*key_file);
    state.key_from_file = true;
    std::filesystem::remove(kept);  // an earlier OS-keyed run's key is of no further use
  } else if (resume && std::filesystem::exists(kept)) {
    state.key = read_noise_key_file(kept);
  } else if (resume && (std::filesystem::exists(checkpoint_path(dir)) || std::filesystem::exists(progress_path(dir)))) {
    throw InputError("resume: " + dir.string() + " holds a checkpoint but no noise key: either the run completed (its key was deleted) "
                     "or it used a noise key file, which must be given again");
  } else {
    if (std::filesystem::exists(kept) || std::filesystem::exists(checkpoint_path(dir))) {
      log_info("starting afresh: replacing an earlier run's private state in " + dir.string() +
               (std::filesystem::exists(kept) ? " (an unfinished run: --resume would have continued it)" : ""));
    }
    std::filesystem::remove(kept);
    std::filesystem::remove(checkpoint_path(dir));
    std::filesystem::remove(progress_path(dir));
    state.key = noise_key_from_os();
    write_noise_key_file(kept, state.key);
  }
  return state;
}

void close_private_state(const PrivateState& state) {
  if (!state.key_from_file) std::filesystem::remove(noise_key_path(state.dir));
}

void discard_unused_private_state(const PrivateState& state) {
  std::error_code ec;
  if (state.dir.empty() || std::filesystem::exists(checkpoint_path(state.dir), ec) || std::filesystem::exists(progress_path(state.dir), ec)) return;
  if (!state.key_from_file) std::filesystem::remove(noise_key_path(state.dir), ec);
  if (std::filesystem::is_empty(state.dir, ec)) std::filesystem::remove(state.dir, ec);
}

std::string noise_key_source(const PrivateState& state) {
  return state.key_from_file ? "key file (--noise-key-file)"
                             : "operating system CSPRNG (256 bits; kept in the private state folder until the run completed, then deleted)";
}

NoiseKey state_mac_key(const NoiseKey& key) { return derive_noise_key(key, "secpe private state MAC v1", ""); }

std::filesystem::path noise_nonces_path(const std::filesystem::path& dir) { return dir / "noise-nonces.json"; }

std::filesystem::path calibration_inputs_path(const std::filesystem::path& dir) { return dir / "calibration.json"; }

namespace {

// noise-nonces.json: {"format": "secpe-noise-nonces", "keys": {KEY_CHECK: {"nonces": {NONCE_ID: RELEASE_CHECK}, "mac": MAC}}},
// one entry per key file used with the folder; only values keyed by that key, never a nonce in clear.
nlohmann::ordered_json read_nonce_record(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return {{"format", "secpe-noise-nonces"}, {"keys", nlohmann::ordered_json::object()}};
  std::ifstream in(path);
  auto record = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || record.value("format", "") != "secpe-noise-nonces" || !record.contains("keys") || !record["keys"].is_object()) {
    throw InputError(path.string() + ": not a secpe noise nonce record (damaged?)");
  }
  return record;
}

}  // namespace

bool record_noise_nonce(const std::filesystem::path& dir, const NoiseKey& key, const NoiseNonce& nonce, const std::string& release_digest) {
  const auto path = noise_nonces_path(dir);
  auto record = read_nonce_record(path);
  auto& mine = record["keys"][noise_key_check(key)];
  if (!mine.is_object()) mine = {{"nonces", nlohmann::ordered_json::object()}, {"mac", ""}};
  auto& nonces = mine["nonces"];
  const NoiseKey mac_key = state_mac_key(key);
  if (!nonces.is_object() || mine.value("mac", "") != (nonces.empty() ? "" : keyed_digest_hex(mac_key, "secpe noise nonces", nonces.dump()))) {
    throw InputError(path.string() + ": edited outside secpe: its MAC (keyed by the noise key) does not match; restore the file secpe wrote");
  }
  const std::string id = keyed_digest_hex(key, "secpe noise nonce id", std::string(nonce.bytes.begin(), nonce.bytes.end()));
  const std::string release = keyed_digest_hex(key, "secpe noise nonce release", release_digest);
  if (nonces.contains(id)) return nonces[id] == release;
  nonces[id] = release;
  mine["mac"] = keyed_digest_hex(mac_key, "secpe noise nonces", nonces.dump());
  write_file_atomically(path, [&](std::ostream& o) { o << record.dump(1) << "\n"; }, FileAccess::kPrivate);
  return true;
}

}  // namespace secpe
