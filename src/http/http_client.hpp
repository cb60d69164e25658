#pragma once
// A client of OpenAI-compatible HTTP APIs (vLLM, llama.cpp's server, Text Embeddings Inference,
// secpe serve): JSON POSTs with many requests in flight (libcurl multi), timeouts, and retries
// with exponential backoff and jitter on 429, 5xx and dropped connections.
//
// The API key is read from the environment variable the caller names and is only ever put in
// the Authorization header: no message, log line or error this client makes contains it. Base
// URLs with credentials (user:password@), a query or a fragment are refused, so a URL written to
// run.json, a dataset or a log never carries a secret. Error messages name the URL and the HTTP
// status, never a request or response body (a request may hold private text; an error body may
// echo it). Every answer is bounded: at most `max_response_bytes` after decompression.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace secpe {

// The JSON text of a request or answer; invalid UTF-8 in a text becomes U+FFFD instead of an
// exception (a request must not fail on one odd byte of a candidate or keyword).
inline std::string json_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

struct HttpClientOptions {
  std::string base_url;         // e.g. "http://node:8000/v1"; endpoint paths are appended
  std::string api_key_env;      // name of the environment variable holding the key; empty: no key
  int concurrency = 8;          // requests in flight at most
  double timeout_s = 300.0;     // per attempt, connection included
  int max_retries = 6;          // retries of one request after its first attempt
  double backoff_initial_s = 0.5;  // first retry waits about this long, doubling each time
  double backoff_max_s = 30.0;
  double retry_after_max_s = 600.0;  // a server's Retry-After is honoured up to this long
  std::size_t max_response_bytes = std::size_t{64} << 20;  // one answer, after decompression
};

// InputError unless `url` is http(s)://HOST[:PORT][/PATH] without user:password@, query or
// fragment. The message never quotes the URL (it may hold a password).
void check_base_url(const std::string& url);

// One answer: its HTTP status and body.
struct HttpAnswer {
  long status = 0;
  std::string body;
};

// Decides, for an answer that is not a success, whether the caller handles it itself (true:
// it is returned, neither retried nor an error), e.g. a batch the server refuses as too large.
using HandBack = std::function<bool(long status, std::string_view body)>;

// The wait before retry `attempt` (1, 2, ...): initial * 2^(attempt-1), capped, times a jitter
// factor in [0.5, 1] (`jitter01` in [0, 1)), so that clients that failed together spread out.
double backoff_seconds(const HttpClientOptions& options, int attempt, double jitter01);

// Whether a failed attempt is worth retrying: 429 (rate limited), 408 and any 5xx; status 0
// stands for a transport failure (refused or dropped connection, timeout).
bool retryable_status(long status);

class HttpClient {
 public:
  // InputError when the base URL is not http(s) or the named key variable is unset or empty
  // (naming the variable, never a value).
  explicit HttpClient(HttpClientOptions options);

  // POSTs every body (JSON) to base_url + path, at most `concurrency` at a time, and returns the
  // response bodies in the order of `bodies`. Retries wait the backoff, or the server's
  // Retry-After when that is longer. After the retry cap, an InputError names the URL, the last
  // status or transport error and the number of attempts; an answer over the size limit is an
  // InputError at once. `stage` names the progress line (rate and ETA, rank 0 only).
  std::vector<std::string> post_all(const std::string& path, const std::vector<std::string>& bodies, const std::string& stage) const;
  // The same, but answers `hand_back` accepts come back with their status instead of failing.
  std::vector<HttpAnswer> post_all(const std::string& path, const std::vector<std::string>& bodies, const std::string& stage,
                                   const HandBack& hand_back) const;

  const HttpClientOptions& options() const { return options_; }
  std::string url(const std::string& path) const;

 private:
  HttpClientOptions options_;
  std::string authorization_;  // "Authorization: Bearer ..." or empty; never printed
};

}  // namespace secpe
