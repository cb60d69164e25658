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

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// One request's state across its attempts.
struct Transfer {
  std::size_t index = 0;
  int attempts = 0;
  Clock::time_point not_before{};
  long last_status = 0;
  std::string last_error;  // curl's description of a transport failure (never a body)
  std::string response;
};

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

}  // namespace

double backoff_seconds(const HttpClientOptions& options, int attempt, double jitter01) {
  const double base = std::min(options.backoff_max_s, options.backoff_initial_s * std::ldexp(1.0, std::max(0, attempt - 1)));
  return base * (0.5 + 0.5 * jitter01);
}

bool retryable_status(long status) { return status == 0 || status == 408 || status == 429 || status >= 500; }

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) {
  global_init();
  if (!options_.base_url.starts_with("http://") && !options_.base_url.starts_with("https://")) {
    throw InputError("the API URL must start with http:// or https://, not '" + options_.base_url + "'");
  }
  while (options_.base_url.ends_with("/")) options_.base_url.pop_back();
  if (options_.concurrency < 1) throw InputError("HTTP concurrency must be at least 1");
  if (!options_.api_key_env.empty()) {
    const char* key = std::getenv(options_.api_key_env.c_str());
    if (!key || !*key) {
      throw InputError("the environment variable " + options_.api_key_env + " named for the API key is not set or empty");
    }
    authorization_ = std::string("Authorization: Bearer ") + key;
  }
}

std::string HttpClient::url(const std::string& path) const { return options_.base_url + path; }

std::vector<std::string> HttpClient::post_all(const std::string& path, const std::vector<std::string>& bodies,
                                              const std::string& stage) const {
  const std::string target = url(path);
  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
  std::unique_ptr<curl_slist, ListDeleter> headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  if (!authorization_.empty()) headers.reset(curl_slist_append(headers.release(), authorization_.c_str()));
  if (!multi || !headers) throw std::runtime_error("libcurl: cannot initialise");

  std::vector<Transfer> transfers(bodies.size());
  std::deque<std::size_t> waiting;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    transfers[i].index = i;
    waiting.push_back(i);
  }
  // Jitter only shapes the timing of retries, never a result: seeded from the OS.
  std::mt19937_64 jitter(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::map<CURL*, std::pair<std::unique_ptr<Easy>, std::size_t>> active;
  std::size_t done = 0, retries = 0;
  Progress progress(stage, bodies.size());

  auto start = [&](std::size_t i) {
    Transfer& t = transfers[i];
    CURL* h = curl_easy_init();
    if (!h) throw std::runtime_error("libcurl: cannot create a transfer");
    auto easy = std::make_unique<Easy>(multi.get(), h);
    t.response.clear();
    ++t.attempts;
    curl_easy_setopt(h, CURLOPT_URL, target.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, bodies[i].data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(bodies[i].size()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t.response);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_s * 1000.0));
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_multi_add_handle(multi.get(), h);
    active.emplace(h, std::make_pair(std::move(easy), i));
  };

  while (done < bodies.size()) {
    const auto now = Clock::now();
    // Start what may start: the queue is ordered by readiness except for retries, so scan it.
    for (auto it = waiting.begin(); it != waiting.end() && active.size() < static_cast<std::size_t>(options_.concurrency);) {
      if (transfers[*it].not_before <= now) {
        start(*it);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    int running = 0;
    curl_multi_perform(multi.get(), &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const CURLcode result = msg->data.result;
      auto node = active.extract(msg->easy_handle);
      Transfer& t = transfers[node.mapped().second];
      long status = 0;
      if (result == CURLE_OK) curl_easy_getinfo(node.key(), CURLINFO_RESPONSE_CODE, &status);
      t.last_status = status;
      t.last_error = result == CURLE_OK ? "" : curl_easy_strerror(result);
      node.mapped().first.reset();  // msg is not used past this point: removing the handle invalidates it
      if (result == CURLE_OK && status >= 200 && status < 300) {
        progress.step(++done);
        continue;
      }
      if (!retryable_status(status) || t.attempts > options_.max_retries) {
        throw InputError(target + ": " + describe_failure(t) + " after " + std::to_string(t.attempts) + " attempt(s)" +
                         (retryable_status(status) ? " (the retry cap)" : ""));
      }
      const double wait = backoff_seconds(options_, t.attempts, unit(jitter));
      // The first retry of a call is logged as it happens, the rest counted (a rate-limited
      // server would otherwise flood the log).
      if (retries++ == 0) {
        log_warn(target + ": " + describe_failure(t) + "; retrying in " + std::to_string(wait).substr(0, 4) + " s (retry " +
                 std::to_string(t.attempts) + " of " + std::to_string(options_.max_retries) + ")");
      }
      t.not_before = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
      waiting.push_back(t.index);
    }
    if (done == bodies.size()) break;
    if (active.empty()) {
      // Only retries wait: sleep until the first may start.
      auto first = Clock::time_point::max();
      for (std::size_t i : waiting) first = std::min(first, transfers[i].not_before);
      std::this_thread::sleep_until(std::min(first, Clock::now() + std::chrono::milliseconds(200)));
    } else {
      curl_multi_poll(multi.get(), nullptr, 0, 100, nullptr);
    }
  }
  if (retries > 1) log_warn(target + ": " + std::to_string(retries) + " retries for " + std::to_string(bodies.size()) + " requests");
  std::vector<std::string> out;
  out.reserve(bodies.size());
  for (auto& t : transfers) out.push_back(std::move(t.response));
  return out;
}

}  // namespace secpe
