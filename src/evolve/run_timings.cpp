#include "evolve/run_timings.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"

namespace secpe {

bool is_timing(std::string_view key) { return key.ends_with("_seconds"); }

bool is_public_timing(std::string_view key) { return std::find(kPublicTimings.begin(), kPublicTimings.end(), key) != kPublicTimings.end(); }

nlohmann::ordered_json take_private_timings(nlohmann::ordered_json& line) {
  nlohmann::ordered_json taken;
  std::vector<std::string> keys;
  for (const auto& [key, value] : line.items()) {
    if (is_timing(key) && !is_public_timing(key)) keys.push_back(key);
  }
  for (const auto& key : keys) {
    taken[key] = std::move(line[key]);
    line.erase(key);
  }
  return taken;
}

void add_timings(nlohmann::ordered_json& sums, const nlohmann::ordered_json& line) {
  for (const auto& [key, value] : line.items()) {
    if (is_timing(key) && value.is_number()) sums[key] = (sums.contains(key) ? sums[key].get<double>() : 0.0) + value.get<double>();  // `sums` may start null
  }
}

std::filesystem::path timings_path(const std::filesystem::path& state_dir) { return state_dir / "timings.json"; }

void write_run_timings(const std::filesystem::path& state_dir, nlohmann::ordered_json timings) {
  nlohmann::ordered_json file{{"note", "PRIVATE: wall seconds of this invocation's stages and of each iteration's private work; they follow the number of "
                                       "private records, so they are kept out of run.json and metrics.jsonl (evolve/run_timings.hpp)"}};
  file.update(timings);
  write_file_atomically(timings_path(state_dir), [&](std::ostream& o) { o << file.dump(2) << "\n"; }, FileAccess::kPrivate);
}

}  // namespace secpe
