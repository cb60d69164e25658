#pragma once
// Finished HTTP work kept on disk, so that a rerun (after a failure, a stop or with --resume)
// does not pay for a request twice: one JSON line {"k": key, "v": value} per result, appended as
// results arrive. Embeddings of private texts are private, so the cache lives only in a private
// state folder (mode 0700) in files of mode 0600, and never in an output.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace secpe {

class ResponseCache {
 public:
  // No cache: every lookup misses and nothing is written.
  ResponseCache() = default;
  // Loads every "http-cache.KIND.*.jsonl" file in `dir` and appends to "http-cache.KIND.WRITER.jsonl"
  // (each rank writes its own, so a rerun at another rank count finds everything). A damaged or
  // cut-off line, as a killed run leaves, is skipped. Creates `dir` (0700) and the file (0600).
  ResponseCache(const std::filesystem::path& dir, const std::string& kind, const std::string& writer);
  ~ResponseCache();
  ResponseCache(ResponseCache&&) noexcept;
  ResponseCache& operator=(ResponseCache&&) noexcept;

  const nlohmann::json* find(const std::string& key) const;
  void put(const std::string& key, nlohmann::json value);  // written and flushed at once
  std::size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<std::string, nlohmann::json> entries_;
  std::FILE* file_ = nullptr;
};

// The cache key of a request: BLAKE2b-256 of the endpoint path and the parts that determine the
// result (model, input, sampling settings). The server's URL is left out so that moving the
// server keeps the cache.
std::string request_key(const std::string& path, const std::string& canonical_request);

}  // namespace secpe
