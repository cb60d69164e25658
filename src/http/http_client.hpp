#pragma once
// A client of OpenAI-compatible HTTP APIs (vLLM, llama.cpp's server, Text Embeddings Inference,
// secpe serve): JSON POSTs with many requests in flight (libcurl multi), timeouts, and retries
// with exponential backoff and jitter on 429, 5xx and dropped connections.
//
// The API key is read from the environment variable the caller names and is only ever put in
// the Authorization header: no message, log line or error this client makes contains it. Error
// messages name the URL and the HTTP status, never a request or response body (a request may
// hold private text; an error body may echo it).
#include <string>
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
};

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
  // response bodies in the order of `bodies`. After the retry cap, an InputError names the URL,
  // the last status or transport error and the number of attempts. `stage` names the progress
  // line (rate and ETA, rank 0 only).
  std::vector<std::string> post_all(const std::string& path, const std::vector<std::string>& bodies, const std::string& stage) const;

  const HttpClientOptions& options() const { return options_; }
  std::string url(const std::string& path) const;

 private:
  HttpClientOptions options_;
  std::string authorization_;  // "Authorization: Bearer ..." or empty; never printed
};

}  // namespace secpe
