#pragma once
// A small HTTP/1.1 server with plain POSIX sockets (no dependency), for `secpe serve`, built to
// stay up under hostile clients. One thread does all socket work (poll, non-blocking reads and
// writes, deadlines); a fixed pool of workers calls the handler on complete requests. A slow or
// idle client therefore costs a buffer, never a thread, and every buffer has a cap:
//   - requests are read by http/request_reader.hpp (head and body limits, strict parsing);
//   - a request must arrive whole within `request_timeout_s` of its first byte, an answer be
//     taken by the client within the same time, and a keep-alive connection with no request in
//     progress is closed after `idle_timeout_s`;
//   - at most `max_connections` are open: one more first closes the longest-idle keep-alive
//     connection, and when every connection is busy it is answered 503 (Retry-After: 1) and closed;
//   - an answer over `max_response_bytes` is replaced by a 413 error;
//   - a failed accept never yields a connection; when the process is out of file descriptors,
//     accepting pauses for 100 ms instead of spinning.
// Memory: at most max_connections x (max_header_bytes + max_body_bytes + 64 KiB) of requests,
// plus the answers being written (each at most max_response_bytes). Meant for loopback and
// trusted networks: no TLS.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http/request_reader.hpp"

namespace secpe {

struct HttpResponse {
  int status = 200;
  std::string body;
  bool drop = false;  // close the connection without answering (fault injection)
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers = {};  // extra fields, e.g. Retry-After
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerLimits {
  int workers = 4;                 // threads calling the handler
  int max_connections = 128;       // open connections at most
  RequestLimits request;           // head and body size caps
  std::size_t max_response_bytes = std::size_t{16} << 20;
  double request_timeout_s = 30;   // a request's first byte to its last; an answer's writing
  double idle_timeout_s = 15;      // keep-alive connection with no request in progress
};

// The JSON body of an error answer in OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
std::string error_body(int status, const std::string& message, const std::string& param = "", const std::string& code = "");

class HttpServer {
 public:
  // Binds `host` (an IPv4 address) and `port` (0: any free port) and listens; InputError naming
  // the address when it cannot, or when a limit is out of range. `handler` is called from the
  // worker threads, several at once.
  HttpServer(const std::string& host, int port, HttpHandler handler, HttpServerLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  const HttpServerLimits& limits() const { return limits_; }
  // Serves until stop(), then closes every connection and joins the workers.
  void serve();
  // Makes serve() return (safe from another thread; async-signal-safe).
  void stop();

 private:
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: wakes the polling thread (a worker finished, or stop())
  int port_ = 0;
  HttpServerLimits limits_;
  std::atomic<bool> stopping_{false};
  HttpHandler handler_;
};

}  // namespace secpe
