#include "http/refusal.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace secpe {
namespace {

// Phrases of over-long inputs: vLLM ("maximum context length is N tokens"), TEI ("must have
// less than N tokens"), llama.cpp ("exceeds the available context size", and for embeddings
// "input (N tokens) is too large to process"), Ollama ("input length exceeds the context length").
constexpr std::array<std::string_view, 7> kContextPhrases = {"maximum context length", "context length", "context size",
                                                             "exceed_context_size", "too large to process", "must have less than",
                                                             "input length exceeds"};

bool contains(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

Refusal classify_refusal(long status, std::string_view body) {
  if (status != 400 && status != 413 && status != 422 && status != 500) return Refusal::kNone;
  // Error texts are short; a long body is read only as far as an error text would go.
  std::string text(body.substr(0, 65536));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::any_of(kContextPhrases.begin(), kContextPhrases.end(), [&](std::string_view p) { return contains(text, p); })) {
    return Refusal::kContextOverflow;
  }
  if (contains(text, "batch size") || status == 413) return Refusal::kBatchTooLarge;
  return Refusal::kNone;
}

}  // namespace secpe
