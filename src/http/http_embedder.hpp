#pragma once
// An embedder behind an OpenAI-compatible /embeddings endpoint (Text Embeddings Inference, vLLM,
// llama.cpp's server, Ollama, secpe serve). Texts go in batches, many batches in flight; every
// text's vector is cached (see response_cache.hpp) and L2-normalised like the built-in embedders'.
// A batch the server refuses as too large (http/refusal.hpp) is halved, and the smaller size
// kept for the rest of the run; a text longer than the model's context is a ContextOverflowError
// naming its index, never its text. Embeddings may come as floats or base64 (little-endian
// float32). Private texts are sent to this endpoint: it must run where the private data may go.
#include <filesystem>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "http/http_client.hpp"
#include "http/response_cache.hpp"
#include "text/embedder.hpp"

namespace secpe {

struct HttpEmbedderOptions {
  HttpClientOptions client;
  std::string model;
  int dim = 0;             // expected dimension; 0: whatever the model returns (asked once)
  int batch = 32;          // texts per request
  std::filesystem::path cache_dir;  // private state folder for the cache; empty: no cache
  std::string cache_writer = "0";  // who appends (a rank): response_cache.hpp
};

// A text longer than the model takes: the URL, the text's index in the embed() call and the
// status, never the text. Callers that know the record add its id.
class ContextOverflowError : public InputError {
 public:
  ContextOverflowError(std::string url, std::size_t index, long status);
  std::size_t index() const { return index_; }
  // The same error about `subject` (e.g. "record #12") instead of "input INDEX".
  InputError about(const std::string& subject) const;

 private:
  std::string url_;
  std::size_t index_;
  long status_;
};

class HttpEmbedder final : public Embedder {
 public:
  explicit HttpEmbedder(HttpEmbedderOptions options);
  int dim() const override;  // asks the model once (with a fixed public text) when not given
  std::string name() const override;  // "http(model=M, d=D)", recorded in the dataset
  void embed(std::span<const std::string> texts, MatrixF& out) const override;
  int batch_limit() const { return batch_limit_; }  // the batch size in use (lowered when a server refused one)

 private:
  // Asks for the texts at `missing` (indices into `texts`) and caches their vectors.
  void request(std::span<const std::string> texts, const std::vector<std::string>& keys, const std::vector<std::size_t>& missing) const;
  // A group the server refused: its parts to ask again (or an error).
  void split_refused(const std::vector<std::size_t>& group, long status, std::string_view body,
                     std::vector<std::vector<std::size_t>>& again) const;

  HttpEmbedderOptions options_;
  HttpClient client_;
  mutable ResponseCache cache_;
  mutable int dim_;
  mutable int batch_limit_;
};

// The embeddings of one /embeddings response, one row per input in input order, L2-normalised;
// each embedding a list of numbers or a base64 string of little-endian float32 values.
// InputError naming `url` for a response that is not JSON, lacks data or has the wrong count,
// dimension (`dim` > 0) or non-finite values; never quotes the response.
MatrixF parse_embeddings_response(const std::string& body, std::size_t inputs, int dim, const std::string& url);

}  // namespace secpe
