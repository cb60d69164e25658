#include "evolve/checkpoint.hpp"

#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace secpe {

std::filesystem::path checkpoint_path(const std::filesystem::path& state_dir) { return state_dir / "checkpoint.json"; }

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  nlohmann::ordered_json j;
  j["format"] = "secpe-checkpoint";
  j["format_version"] = 1;
  j["fingerprint"] = checkpoint.fingerprint;
  j["labels"] = nlohmann::ordered_json::array();
  for (const auto& [label, outcome] : checkpoint.labels) {
    j["labels"].push_back({{"label", label},
                           {"synthetic", outcome.synthetic},
                           {"report", outcome.report},
                           {"releases", outcome.releases},
                           {"metrics", outcome.metrics}});
  }
  write_file_atomically(path, [&](std::ostream& o) { o << j.dump() << "\n"; });
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read checkpoint " + path.string());
  Checkpoint c;
  try {
    const auto j = nlohmann::ordered_json::parse(in);
    if (j.value("format", "") != "secpe-checkpoint") throw InputError(path.string() + ": not a secpe checkpoint");
    c.fingerprint = j.at("fingerprint");
    for (const auto& l : j.at("labels")) {
      LabelOutcome o;
      o.synthetic = l.at("synthetic").get<std::vector<std::string>>();
      o.report = l.at("report");
      o.releases = l.at("releases");
      for (const auto& m : l.at("metrics")) o.metrics.push_back(m);
      c.labels[l.at("label").get<std::size_t>()] = std::move(o);
    }
  } catch (const nlohmann::json::exception&) {
    throw InputError(path.string() + ": not a valid secpe checkpoint");
  }
  return c;
}

void check_fingerprint(const nlohmann::ordered_json& saved, const nlohmann::ordered_json& current,
                       const std::filesystem::path& path) {
  for (const auto& [key, value] : current.items()) {
    if (saved.contains(key) && saved[key] == value) continue;
    if (key == "noise_key_check") {  // derived from the secret key: never printed
      throw InputError("--resume: " + path.string() + " was made with a different noise key; give the same --noise-key-file "
                       "(or none, to use the key kept in the state folder)");
    }
    std::string msg = "--resume: " + path.string() + " was made with a different '" + key + "' (" +
                      (saved.contains(key) ? saved[key].dump() : "unset") + ", now " + value.dump() + ")";
    if (key == "iterations") {
      msg += "; the finished labels were calibrated and released for the old number of iterations, so adding "
             "iterations would release more than their budget allows";
    }
    throw InputError(msg + "; use a new --out folder or the same options");
  }
}

}  // namespace secpe
