#pragma once
// An embedder behind an OpenAI-compatible /embeddings endpoint (Text Embeddings Inference, vLLM,
// llama.cpp's server, secpe serve). Texts go in batches, many batches in flight; every text's
// vector is cached (see response_cache.hpp) and L2-normalised like the built-in embedders'.
// Private texts are sent to this endpoint: it must run where the private data may go.
#include <filesystem>
#include <memory>
#include <string>

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

class HttpEmbedder final : public Embedder {
 public:
  explicit HttpEmbedder(HttpEmbedderOptions options);
  int dim() const override;  // asks the model once (with a fixed public text) when not given
  std::string name() const override;  // "http(model=M, d=D)", recorded in the dataset
  void embed(std::span<const std::string> texts, MatrixF& out) const override;

 private:
  HttpEmbedderOptions options_;
  HttpClient client_;
  mutable ResponseCache cache_;
  mutable int dim_;
};

// The embeddings of one /embeddings response, one row per input in input order, L2-normalised.
// InputError naming `url` for a response that is not JSON, lacks data or has the wrong count,
// dimension (`dim` > 0) or non-finite values; never quotes the response.
MatrixF parse_embeddings_response(const std::string& body, std::size_t inputs, int dim, const std::string& url);

}  // namespace secpe
