#pragma once
// A small HTTP/1.1 server with plain POSIX sockets (no dependency), for `secpe serve`: one thread
// per connection, keep-alive, Content-Length bodies only (no chunked requests). Meant for
// loopback and trusted networks: it has no TLS.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace secpe {

struct HttpRequest {
  std::string method, path;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  bool drop = false;  // close the connection without answering (fault injection)
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  // Binds `host` (an IPv4 address) and `port` (0: any free port) and listens; InputError naming
  // the address when it cannot. `handler` is called from many threads at once.
  HttpServer(const std::string& host, int port, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // Accepts connections until stop(); each is served on its own thread.
  void serve();
  // Makes serve() return (safe from another thread or a signal handler's watcher thread).
  void stop();

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::shared_ptr<const HttpHandler> handler_;
};

}  // namespace secpe
