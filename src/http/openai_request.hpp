#pragma once
// The request bodies of secpe serve's OpenAI API, read strictly (http/openai_service.hpp): every
// field is checked for type and range, a field the service does not implement is refused by
// name, and the limits of one request (inputs, tokens) are applied before any work is done.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/openai_service.hpp"

namespace secpe {

// A refused request: the status and OpenAI's error fields (`param`, `code` may be empty).
struct ApiError {
  int status;
  std::string message, param, code;
};

struct EmbeddingRequest {
  std::vector<std::string> texts;
  bool base64 = false;
  std::size_t tokens = 0;   // of all inputs, the built-in tokenizer's
};

struct GenerationRequest {
  std::vector<std::string> prompts;  // completions: each prompt; chat: the last user message
  std::size_t n = 1;                 // choices per prompt
  std::optional<std::size_t> max_tokens;
  std::vector<std::string> stop;
  std::uint64_t seed = 0;
  bool stream = false, include_usage = false;
  std::size_t prompt_tokens = 0;     // of every prompt (chat: of every message), the built-in tokenizer's
};

// Throw ApiError (400 for a malformed or unsupported field, 413 over a limit).
EmbeddingRequest parse_embedding_request(const nlohmann::json& body, int dim, const ServiceLimits& limits);
GenerationRequest parse_generation_request(const nlohmann::json& body, bool chat, const ServiceLimits& limits);

}  // namespace secpe
