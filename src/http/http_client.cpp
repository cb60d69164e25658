#include "http/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"

namespace secpe {
namespace {

using Clock = std::chrono::steady_clock;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct MultiDeleter {
  void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// One request's state across its attempts.
struct Transfer {
  std::size_t index = 0;
  int attempts = 0;
  Clock::time_point not_before{};
  long last_status = 0;
  std::string last_error;  // curl's description of a transport failure (never a body)
  std::string response;
  std::size_t max_bytes = 0;
  bool too_large = false;  // the answer passed max_bytes (after decompression)
};

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (t->response.size() + size * n > t->max_bytes) {
    t->too_large = true;
    return 0;  // libcurl stops the transfer (CURLE_WRITE_ERROR)
  }
  t->response.append(data, size * n);
  return size * n;
}

// An easy handle in flight, removed from the multi handle and freed however the loop ends.
struct Easy {
  CURLM* multi;
  CURL* handle;
  Easy(CURLM* m, CURL* h) : multi(m), handle(h) {}
  Easy(const Easy&) = delete;
  Easy& operator=(const Easy&) = delete;
  ~Easy() {
    curl_multi_remove_handle(multi, handle);
    curl_easy_cleanup(handle);
  }
};

std::string describe_failure(const Transfer& t) {
  return t.last_status != 0 ? "HTTP " + std::to_string(t.last_status) : t.last_error;
}

std::string mib(std::size_t bytes) {
  const double m = static_cast<double>(bytes) / (1 << 20);
  return (m == static_cast<double>(static_cast<long long>(m)) ? std::to_string(static_cast<long long>(m)) : std::to_string(m).substr(0, 6)) + " MiB";
}

// One call of post_all: the transfers, the multi handle, the retry queue.
class Batch {
 public:
  Batch(const HttpClientOptions& options, const std::string& target, const std::string& authorization, const std::vector<std::string>& bodies,
        const HandBack* hand_back)
      : options_(options), target_(target), bodies_(bodies), hand_back_(hand_back), transfers_(bodies.size()), jitter_(std::random_device{}()) {
    multi_.reset(curl_multi_init());
    headers_.reset(curl_slist_append(nullptr, "Content-Type: application/json"));
    // No "Expect: 100-continue" on large bodies: a server that does not answer it would cost a
    // second per request.
    if (headers_) headers_.reset(curl_slist_append(headers_.release(), "Expect:"));
    if (!authorization.empty() && headers_) headers_.reset(curl_slist_append(headers_.release(), authorization.c_str()));
    if (!multi_ || !headers_) throw std::runtime_error("libcurl: cannot initialise");
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      transfers_[i].index = i;
      transfers_[i].max_bytes = options.max_response_bytes;
      waiting_.push_back(i);
    }
  }

  std::vector<HttpAnswer> run(const std::string& stage);

 private:
  void start(std::size_t i);
  void finished(CURLMsg* msg, Progress& progress);
  void wait();

  const HttpClientOptions& options_;
  const std::string& target_;
  const std::vector<std::string>& bodies_;
  const HandBack* hand_back_;
  std::unique_ptr<CURLM, MultiDeleter> multi_;
  std::unique_ptr<curl_slist, ListDeleter> headers_;
  std::vector<Transfer> transfers_;
  std::vector<long> statuses_ = std::vector<long>(bodies_.size(), 0);
  std::deque<std::size_t> waiting_;
  std::map<CURL*, std::pair<std::unique_ptr<Easy>, std::size_t>> active_;
  std::size_t done_ = 0, retries_ = 0;
  // Jitter only shapes the timing of retries, never a result: seeded from the OS.
  std::mt19937_64 jitter_;
};

void Batch::start(std::size_t i) {
  Transfer& t = transfers_[i];
  CURL* h = curl_easy_init();
  if (!h) throw std::runtime_error("libcurl: cannot create a transfer");
  auto easy = std::make_unique<Easy>(multi_.get(), h);
  t.response.clear();
  ++t.attempts;
  curl_easy_setopt(h, CURLOPT_URL, target_.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers_.get());
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, bodies_[i].data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(bodies_[i].size()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  // A declared length over the limit fails before any byte is kept; the write callback bounds
  // the rest (chunked or compressed answers).
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_response_bytes));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_s * 1000.0));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_multi_add_handle(multi_.get(), h);
  active_.emplace(h, std::make_pair(std::move(easy), i));
}

void Batch::finished(CURLMsg* msg, Progress& progress) {
  const CURLcode result = msg->data.result;
  auto node = active_.extract(msg->easy_handle);
  Transfer& t = transfers_[node.mapped().second];
  long status = 0;
  curl_off_t retry_after = 0;
  if (result == CURLE_OK) {
    curl_easy_getinfo(node.key(), CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(node.key(), CURLINFO_RETRY_AFTER, &retry_after);
  }
  t.last_status = status;
  t.last_error = result == CURLE_OK ? "" : curl_easy_strerror(result);
  node.mapped().first.reset();  // msg is not used past this point: removing the handle invalidates it
  if (t.too_large || result == CURLE_FILESIZE_EXCEEDED) {
    throw InputError(target_ + ": the answer is over the response size limit of " + mib(options_.max_response_bytes) +
                     " (after decompression)");
  }
  const bool success = result == CURLE_OK && status >= 200 && status < 300;
  if (success || (result == CURLE_OK && hand_back_ && (*hand_back_)(status, t.response))) {
    statuses_[t.index] = status;
    progress.step(++done_);
    return;
  }
  if (!retryable_status(status) || t.attempts > options_.max_retries) {
    throw InputError(target_ + ": " + describe_failure(t) + " after " + std::to_string(t.attempts) + " attempt(s)" +
                     (retryable_status(status) ? " (the retry cap)" : ""));
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double backoff = backoff_seconds(options_, t.attempts, unit(jitter_));
  const double wait = std::max(backoff, std::min(static_cast<double>(retry_after), options_.retry_after_max_s));
  // The first retry of a call is logged as it happens, the rest counted (a rate-limited
  // server would otherwise flood the log).
  if (retries_++ == 0) {
    log_warn(target_ + ": " + describe_failure(t) + "; retrying in " + std::to_string(wait).substr(0, 4) + " s" +
             (wait > backoff ? " (the server's Retry-After)" : "") + " (retry " + std::to_string(t.attempts) + " of " +
             std::to_string(options_.max_retries) + ")");
  }
  t.not_before = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
  waiting_.push_back(t.index);
}

void Batch::wait() {
  if (active_.empty()) {
    // Only retries wait: sleep until the first may start.
    auto first = Clock::time_point::max();
    for (std::size_t i : waiting_) first = std::min(first, transfers_[i].not_before);
    std::this_thread::sleep_until(std::min(first, Clock::now() + std::chrono::milliseconds(200)));
  } else {
    curl_multi_poll(multi_.get(), nullptr, 0, 100, nullptr);
  }
}

std::vector<HttpAnswer> Batch::run(const std::string& stage) {
  Progress progress(stage, bodies_.size());
  while (done_ < bodies_.size()) {
    const auto now = Clock::now();
    // Start what may start: the queue is ordered by readiness except for retries, so scan it.
    for (auto it = waiting_.begin(); it != waiting_.end() && active_.size() < static_cast<std::size_t>(options_.concurrency);) {
      if (transfers_[*it].not_before <= now) {
        start(*it);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    int running = 0;
    curl_multi_perform(multi_.get(), &running);
    int left = 0;
    bool freed = false;
    while (CURLMsg* msg = curl_multi_info_read(multi_.get(), &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      finished(msg, progress);
      freed = true;
    }
    // A finished transfer frees a slot: start the next at once. Waiting first would leave the
    // slot idle until another transfer stirs, which behind a slow server is one latency later
    // (at --concurrency 8 against a 50 ms server, 1.6x the ideal time).
    if (!freed && done_ < bodies_.size()) wait();
  }
  if (retries_ > 1) log_warn(target_ + ": " + std::to_string(retries_) + " retries for " + std::to_string(bodies_.size()) + " requests");
  std::vector<HttpAnswer> out;
  out.reserve(bodies_.size());
  for (auto& t : transfers_) out.push_back({statuses_[t.index], std::move(t.response)});
  return out;
}

}  // namespace

double backoff_seconds(const HttpClientOptions& options, int attempt, double jitter01) {
  const double base = std::min(options.backoff_max_s, options.backoff_initial_s * std::ldexp(1.0, std::max(0, attempt - 1)));
  return base * (0.5 + 0.5 * jitter01);
}

bool retryable_status(long status) { return status == 0 || status == 408 || status == 429 || status >= 500; }

void check_base_url(const std::string& url) {
  const std::size_t scheme = url.find("://");
  const std::string name = scheme == std::string::npos ? "" : url.substr(0, scheme);
  if (name != "http" && name != "https") throw InputError("the API URL must start with http:// or https://");
  const std::string rest = url.substr(scheme + 3);
  const std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string::npos) {
    throw InputError("the API URL holds credentials (user:password@host), which secpe refuses: URLs are written to run.json, datasets "
                     "and logs; give the key in an environment variable instead (sent as a Bearer token, never written)");
  }
  if (authority.empty()) throw InputError("the API URL names no host");
  if (rest.find_first_of("?#") != std::string::npos) {
    throw InputError("the API URL has a query or fragment (?... or #...); give a base URL such as http://host:8000/v1, keys in an environment variable");
  }
}

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) {
  global_init();
  check_base_url(options_.base_url);
  while (options_.base_url.ends_with("/")) options_.base_url.pop_back();
  if (options_.concurrency < 1) throw InputError("HTTP concurrency must be at least 1");
  if (options_.max_response_bytes < 1) throw InputError("the HTTP response size limit must be at least 1 byte");
  if (!options_.api_key_env.empty()) {
    const char* key = std::getenv(options_.api_key_env.c_str());
    if (!key || !*key) {
      throw InputError("the environment variable " + options_.api_key_env + " named for the API key is not set or empty");
    }
    authorization_ = std::string("Authorization: Bearer ") + key;
  }
}

std::string HttpClient::url(const std::string& path) const { return options_.base_url + path; }

std::vector<HttpAnswer> HttpClient::post_all(const std::string& path, const std::vector<std::string>& bodies, const std::string& stage,
                                             const HandBack& hand_back) const {
  const std::string target = url(path);
  return Batch(options_, target, authorization_, bodies, hand_back ? &hand_back : nullptr).run(stage);
}

std::vector<std::string> HttpClient::post_all(const std::string& path, const std::vector<std::string>& bodies, const std::string& stage) const {
  std::vector<std::string> out;
  out.reserve(bodies.size());
  for (auto& answer : post_all(path, bodies, stage, HandBack())) out.push_back(std::move(answer.body));
  return out;
}

}  // namespace secpe
