#pragma once
// The OpenAI-compatible API of `secpe serve`, over the built-in generator and an embedder:
// GET /v1/models (and /v1/models/ID), POST /v1/embeddings, /v1/chat/completions and
// /v1/completions, in the shapes the official SDKs parse: `usage` on every answer, `created`,
// `n` choices, `max_tokens` counted in the built-in tokenizer's tokens (text/tokenizer.hpp),
// `stop` strings, server-sent-events streaming (`stream`, `stream_options.include_usage`),
// `encoding_format: base64` (little-endian float32), and errors as {"error": {"message", "type",
// "param", "code"}}. A request field it does not implement is a 400 naming it, never ignored;
// `temperature`, `top_p` and `user` are accepted and have no effect on the built-in model.
// It lets the HTTP path of secpe run end to end without a GPU, and its fault switches let tests
// see how the client copes with rate limits, server errors, dropped connections, slow and
// malformed answers.
//
// A stand-in for a language model, it reads prompts by convention: the label is the one whose
// values all appear in the prompt (the longest such; none: the all-label model); a prompt with
// a blank line varies its last paragraph (blanks "_" dropped), any other samples a fresh text.
// The request's `seed` keys the randomness (choice i of n its own stream), so the same request
// gets the same texts.
#include <memory>
#include <string>

#include "http/server.hpp"
#include "io/dataset.hpp"
#include "text/embedder.hpp"
#include "text/generator.hpp"

namespace secpe {

struct ServiceFaults {
  int fail_every = 0;      // every N-th API request is answered with `fail_status` (0: never)
  int fail_status = 500;
  int drop_every = 0;      // every N-th API request gets its connection closed, no answer (0: never)
  int delay_ms = 0;        // every API request waits this long first
  bool truncate = false;   // answers are cut in half: invalid JSON with a consistent length
};

// What one request may ask for; over a limit the answer is a 413 naming it.
struct ServiceLimits {
  std::size_t max_inputs = 512;             // embedding inputs, or completion choices (prompts x n)
  std::size_t max_request_tokens = 262144;  // input tokens (built-in tokenizer) + choices x max_tokens
};

struct OpenAiServiceOptions {
  std::string model = "secpe-builtin";  // the one model name it knows (others: 404)
  std::string api_key;                  // required as "Authorization: Bearer KEY" when not empty
  ServiceFaults faults;
  ServiceLimits limits;
};

// `generator` was trained with one text list per label of `labels`, plus an empty last one (the
// all-label model).
HttpHandler openai_service(std::shared_ptr<const Generator> generator, std::shared_ptr<const Embedder> embedder, LabelSet labels,
                           OpenAiServiceOptions options);

// Which label a prompt is about (labels.size() when none): see above.
std::size_t prompt_label(const std::string& prompt, const LabelSet& labels);

// Float32 values as little-endian bytes in standard base64, as OpenAI's `encoding_format: base64`.
std::string base64_floats(const float* values, std::size_t count);

}  // namespace secpe
