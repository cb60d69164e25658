#pragma once
// Shared by the HTTP tests: a server on 127.0.0.1 (any free port) on its own thread, fast client
// settings, the message of an InputError, and a raw socket client for what no well-behaved
// client sends (malformed heads, slow bytes, idle connections).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "http/http_client.hpp"
#include "http/server.hpp"

namespace secpe::test {

inline constexpr const char* kKeyVariable = "SECPE_UNIT_API_KEY";
inline constexpr const char* kKey = "sk-unit-VALUE-4b1e8f";

class TestServer {
 public:
  explicit TestServer(HttpHandler handler, HttpServerLimits limits = {})
      : server_("127.0.0.1", 0, std::move(handler), limits), thread_([this] { server_.serve(); }) {}
  ~TestServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return server_.port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()) + "/v1"; }

 private:
  HttpServer server_;
  std::thread thread_;
};

inline HttpClientOptions fast(const std::string& url, const std::string& key_variable = kKeyVariable) {
  return {.base_url = url, .api_key_env = key_variable, .concurrency = 4, .timeout_s = 5, .max_retries = 3,
          .backoff_initial_s = 0.01, .backoff_max_s = 0.05};
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A plain TCP connection to 127.0.0.1:port.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& bytes) { return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()); }
  // Everything the server sends until it closes the connection or `wait_s` passes.
  std::string read_all(double wait_s = 5) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    while (std::chrono::steady_clock::now() < end && read_some(out)) {}
    return out;
  }
  // One answer: reads until the head and Content-Length bytes of body have arrived.
  std::string read_response(double wait_s = 5) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    while (std::chrono::steady_clock::now() < end && read_some(out)) {
      const std::size_t head = out.find("\r\n\r\n");
      if (head == std::string::npos) continue;
      const std::size_t cl = out.find("Content-Length: ");
      const std::size_t length = cl == std::string::npos ? 0 : std::stoul(out.substr(cl + 16));
      if (out.size() >= head + 4 + length) break;
    }
    return out;
  }
  bool closed() const { return closed_; }

 private:
  // Appends what arrives within 20 ms; false once the server closed the connection.
  bool read_some(std::string& out) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) return true;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return !(closed_ = true);
    out.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

}  // namespace secpe::test
