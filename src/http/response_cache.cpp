#include "http/response_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

#include "core/atomic_file.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"

namespace secpe {

ResponseCache::ResponseCache(const std::filesystem::path& dir, const std::string& kind, const std::string& writer) {
  const std::string prefix = "http-cache." + kind + ".";
  ensure_private_folder(dir, "private state folder");  // made 0700; an existing one open to others is refused
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".jsonl")) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("k") && j["k"].is_string() && j.contains("v")) entries_[j["k"].get<std::string>()] = j["v"];
    }
  }
  const std::filesystem::path path = dir / (prefix + writer + ".jsonl");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0 || ::fchmod(fd, 0600) != 0 || !(file_ = ::fdopen(fd, "a"))) {
    throw InputError(path.string() + ": cannot open the HTTP response cache for appending");
  }
}

ResponseCache::~ResponseCache() {
  if (file_) std::fclose(file_);
}

ResponseCache::ResponseCache(ResponseCache&& other) noexcept
    : entries_(std::move(other.entries_)), file_(std::exchange(other.file_, nullptr)) {}

ResponseCache& ResponseCache::operator=(ResponseCache&& other) noexcept {
  if (this != &other) {
    if (file_) std::fclose(file_);
    entries_ = std::move(other.entries_);
    file_ = std::exchange(other.file_, nullptr);
  }
  return *this;
}

const nlohmann::json* ResponseCache::find(const std::string& key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void ResponseCache::put(const std::string& key, nlohmann::json value) {
  if (file_) {
    const std::string line = nlohmann::json{{"k", key}, {"v", value}}.dump() + "\n";
    // A failed write only costs a repeated request later; the run itself goes on.
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }
  entries_[key] = std::move(value);
}

std::string request_key(const std::string& path, const std::string& canonical_request) {
  return blake2b_256_hex(path + "\n" + canonical_request);
}

}  // namespace secpe
