#include "http/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace secpe {
namespace {

constexpr std::size_t kMaxHeader = 1 << 20;
constexpr std::size_t kMaxBody = std::size_t{256} << 20;
constexpr int kIdleSeconds = 120;

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

bool send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Reads one request from `fd` into `req`, keeping bytes past it in `buffer`. False at the end
// of the connection or on a malformed request (the connection is then closed).
bool read_request(int fd, std::string& buffer, HttpRequest& req, int& error_status) {
  std::size_t end;
  char chunk[65536];
  while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
    if (buffer.size() > kMaxHeader) return error_status = 413, false;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  const std::string head = buffer.substr(0, end);
  buffer.erase(0, end + 4);
  const std::size_t line_end = head.find("\r\n");
  const std::string request_line = head.substr(0, line_end);
  const std::size_t sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1) return error_status = 400, false;
  req = {};
  req.method = request_line.substr(0, sp1);
  req.path = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  req.headers["http-version"] = request_line.substr(sp2 + 1);
  for (std::size_t pos = line_end; pos != std::string::npos && pos < head.size();) {
    const std::size_t next = head.find("\r\n", pos + 2);
    const std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      req.headers[lower(line.substr(0, colon))] = value;
    }
    pos = next;
  }
  if (req.headers.count("transfer-encoding")) return error_status = 400, false;  // chunked requests are not supported
  std::size_t length = 0;
  if (const auto it = req.headers.find("content-length"); it != req.headers.end()) {
    try {
      length = std::stoull(it->second);
    } catch (const std::exception&) {
      return error_status = 400, false;
    }
  }
  if (length > kMaxBody) return error_status = 413, false;
  while (buffer.size() < length) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  req.body = buffer.substr(0, length);
  buffer.erase(0, length);
  return true;
}

std::string render(const HttpResponse& r, bool keep_alive) {
  return "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(r.body.size()) + "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") + "\r\n\r\n" + r.body;
}

void serve_connection(int fd, std::shared_ptr<const HttpHandler> handler) {
  timeval idle{kIdleSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::string buffer;
  for (;;) {
    HttpRequest req;
    int error_status = 0;
    if (!read_request(fd, buffer, req, error_status)) {
      if (error_status) send_all(fd, render({.status = error_status, .body = R"({"error":{"message":"bad request"}})"}, false));
      break;
    }
    HttpResponse response;
    try {
      response = (*handler)(req);
    } catch (const std::exception&) {
      response = {.status = 500, .body = R"({"error":{"message":"internal error"}})"};
    }
    if (response.drop) break;
    const bool keep_alive = req.headers["http-version"] == "HTTP/1.1" && lower(req.headers["connection"]) != "close";
    if (!send_all(fd, render(response, keep_alive)) || !keep_alive) break;
  }
  ::close(fd);
}

}  // namespace

HttpServer::HttpServer(const std::string& host, int port, HttpHandler handler)
    : handler_(std::make_shared<const HttpHandler>(std::move(handler))) {
  const std::string where = host + ":" + std::to_string(port);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (port < 0 || port > 65535 || ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    throw InputError(where + ": not an IPv4 address and port");
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw InputError(where + ": cannot listen: " + why);
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

HttpServer::~HttpServer() {
  stop();
  ::close(listen_fd_);
}

void HttpServer::serve() {
  while (!stopping_) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR) continue;
      if (stopping_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // e.g. EMFILE: a later accept may succeed
    }
    // Each connection owns a share of the handler, so none outlives what it calls.
    std::thread(serve_connection, fd, handler_).detach();
  }
}

void HttpServer::stop() {
  if (!stopping_.exchange(true)) ::shutdown(listen_fd_, SHUT_RDWR);
}

}  // namespace secpe
