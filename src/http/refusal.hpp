#pragma once
// What a model server's refusal means, from its status and error text, for the servers people
// deploy (docs/http.md lists the ones whose documented answers the tests replay: vLLM, Text
// Embeddings Inference, llama.cpp's server, Ollama). The body is only searched for known
// phrases; it is never copied into a message, since an error body may echo the request.
#include <string_view>

namespace secpe {

enum class Refusal {
  kNone,             // anything else: retried or reported as it is
  kBatchTooLarge,    // too many inputs in one request (TEI's client batch size, secpe serve's limits)
  kContextOverflow,  // one input (or prompt plus completion) longer than the model takes
};

// 400, 413, 422 and 500 answers are read; any other status is kNone.
Refusal classify_refusal(long status, std::string_view body);

}  // namespace secpe
