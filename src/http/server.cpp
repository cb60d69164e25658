#include "http/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/log.hpp"

namespace secpe {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 65536;
constexpr int kAcceptsPerWake = 64;  // then the open connections get their turn
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

std::string error_type(int status) {
  if (status == 401) return "authentication_error";
  if (status == 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

std::string render(const HttpResponse& r, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\nContent-Type: " + r.content_type +
                    "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") + "\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  out += r.body;
  return out;
}

std::string render_error(int status, const std::string& message, bool keep_alive) {
  HttpResponse r{.status = status, .body = error_body(status, message)};
  if (status == 503) r.headers.emplace_back("Retry-After", "1");
  return render(r, keep_alive);
}

bool keep_alive(const HttpRequest& req) {
  std::string connection;
  if (const auto it = req.headers.find("connection"); it != req.headers.end()) connection = it->second;
  std::transform(connection.begin(), connection.end(), connection.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (req.version == "HTTP/1.1") return connection.find("close") == std::string::npos;
  return connection.find("keep-alive") != std::string::npos;
}

// A short answer to a connection about to be closed; whatever does not fit the socket is dropped.
void send_and_forget(int fd, const std::string& bytes) { (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT); }

struct Connection {
  enum class State { kReading, kHandling, kWriting };
  int fd;
  RequestReader reader;
  State state = State::kReading;
  Clock::time_point since;  // reading: idle since, or the request's first byte; writing: since the answer was ready
  std::string out = {};
  std::size_t sent = 0;
  bool close_after = false;
};

struct Job {
  std::uint64_t id;
  HttpRequest request;
};
struct Answer {
  std::uint64_t id;
  std::string bytes;
  bool close = false, drop = false;
};

// The polling thread's state for one serve() call, and the worker pool it feeds.
class Loop {
 public:
  Loop(int listen_fd, int wake_fd, const HttpServerLimits& limits, const HttpHandler& handler, const std::atomic<bool>& stopping)
      : listen_fd_(listen_fd), wake_fd_(wake_fd), limits_(limits), handler_(handler), stopping_(stopping) {}
  void run();

 private:
  void worker();
  void accept_all(Clock::time_point now);
  void admit(int fd, Clock::time_point now);
  void read_from(std::uint64_t id, Connection& c, Clock::time_point now);
  void advance(std::uint64_t id, Connection& c, Clock::time_point now);
  void write_to(std::uint64_t id, Connection& c, Clock::time_point now);
  void answer(Connection& c, std::string bytes, bool close, Clock::time_point now);
  void take_answers(Clock::time_point now);
  void expire(Clock::time_point now);
  Clock::duration limit(const Connection& c) const;
  int poll_timeout_ms(Clock::time_point now) const;
  void poll_once(std::vector<pollfd>& fds, std::vector<std::uint64_t>& ids);
  void close(std::uint64_t id);

  int listen_fd_, wake_fd_;
  const HttpServerLimits& limits_;
  const HttpHandler& handler_;
  const std::atomic<bool>& stopping_;
  std::unordered_map<std::uint64_t, Connection> connections_;
  std::uint64_t next_id_ = 0;
  Clock::time_point accept_paused_until_{};
  long accept_failures_ = 0;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<Job> jobs_;
  std::deque<Answer> answers_;
  bool workers_stop_ = false;
};

void Loop::worker() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return workers_stop_ || !jobs_.empty(); });
      if (workers_stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    HttpResponse r;
    try {
      r = handler_(job.request);
    } catch (const std::exception&) {
      r = {.status = 500, .body = error_body(500, "internal error")};
    }
    if (r.body.size() > limits_.max_response_bytes) {
      r = {.status = 413, .body = error_body(413, "the answer (" + std::to_string(r.body.size()) + " bytes) is over the server's limit of " +
                                                      std::to_string(limits_.max_response_bytes) + " bytes; ask for less per request")};
    }
    const bool keep = keep_alive(job.request);
    {
      const std::lock_guard lock(mutex_);
      answers_.push_back({.id = job.id, .bytes = r.drop ? std::string() : render(r, keep), .close = !keep, .drop = r.drop});
    }
    const std::uint64_t one = 1;
    (void)::write(wake_fd_, &one, sizeof one);
  }
}

Clock::duration Loop::limit(const Connection& c) const {
  const double s = c.state == Connection::State::kReading && c.reader.idle() ? limits_.idle_timeout_s : limits_.request_timeout_s;
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

void Loop::close(std::uint64_t id) {
  const auto it = connections_.find(id);
  ::close(it->second.fd);
  connections_.erase(it);
}

void Loop::admit(int fd, Clock::time_point now) {
  if (connections_.size() >= static_cast<std::size_t>(limits_.max_connections)) {
    // Full: make room by closing the connection idle longest; if every one is busy, refuse.
    auto oldest = connections_.end();
    for (auto it = connections_.begin(); it != connections_.end(); ++it) {
      const Connection& c = it->second;
      // Ties go to the connection accepted first (the lower id).
      if (c.state == Connection::State::kReading && c.reader.idle() &&
          (oldest == connections_.end() || std::pair(c.since, it->first) < std::pair(oldest->second.since, oldest->first))) {
        oldest = it;
      }
    }
    if (oldest == connections_.end()) {
      send_and_forget(fd, render_error(503, "the server is at its connection limit; retry shortly", false));
      ::close(fd);
      return;
    }
    close(oldest->first);
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  connections_.emplace(next_id_++, Connection{.fd = fd, .reader = RequestReader(limits_.request), .since = now});
}

void Loop::accept_all(Clock::time_point now) {
  for (int k = 0; k < kAcceptsPerWake; ++k) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      admit(fd, now);
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      // Out of descriptors or memory: the pending connection stays queued; try again later.
      if (accept_failures_++ == 0) log_warn(std::string("serve: cannot accept a connection (") + std::strerror(errno) + "); pausing accepts");
      accept_paused_until_ = now + kAcceptPause;
      return;
    }
    // Any other failure (the client gave up, a protocol error) concerns that connection alone.
  }
}

void Loop::answer(Connection& c, std::string bytes, bool close_after, Clock::time_point now) {
  c.out = std::move(bytes);
  c.sent = 0;
  c.close_after = close_after;
  c.state = Connection::State::kWriting;
  c.since = now;
}

void Loop::advance(std::uint64_t id, Connection& c, Clock::time_point now) {
  switch (c.reader.status()) {
    case RequestReader::Status::kReady: {
      c.state = Connection::State::kHandling;
      {
        const std::lock_guard lock(mutex_);
        jobs_.push_back({id, c.reader.take()});
      }
      work_ready_.notify_one();
      return;
    }
    case RequestReader::Status::kBad:
      answer(c, render_error(c.reader.error_status(), c.reader.error_message(), false), true, now);
      write_to(id, c, now);
      return;
    case RequestReader::Status::kIncomplete:
      if (c.reader.take_continue()) send_and_forget(c.fd, "HTTP/1.1 100 Continue\r\n\r\n");
      return;
  }
}

void Loop::read_from(std::uint64_t id, Connection& c, Clock::time_point now) {
  char chunk[kReadChunk];
  const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) return close(id);
  if (c.reader.idle()) c.since = now;  // the first byte of a request starts its deadline
  c.reader.append(std::string_view(chunk, static_cast<std::size_t>(n)));
  advance(id, c, now);
}

void Loop::write_to(std::uint64_t id, Connection& c, Clock::time_point now) {
  while (c.sent < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return close(id);
    c.sent += static_cast<std::size_t>(n);
  }
  if (c.close_after) return close(id);
  std::string().swap(c.out);  // an answer's memory goes back at once, not with the connection
  c.state = Connection::State::kReading;
  c.since = now;  // idle, or (pipelined) the next request's start
  advance(id, c, now);
}

void Loop::take_answers(Clock::time_point now) {
  std::deque<Answer> ready;
  {
    const std::lock_guard lock(mutex_);
    ready.swap(answers_);
  }
  for (Answer& a : ready) {
    Connection& c = connections_.at(a.id);  // a connection being handled is never closed meanwhile
    if (a.drop) {
      close(a.id);
      continue;
    }
    answer(c, std::move(a.bytes), a.close, now);
    write_to(a.id, c, now);
  }
}

void Loop::expire(Clock::time_point now) {
  std::vector<std::uint64_t> late;
  for (auto& [id, c] : connections_) {
    if (c.state == Connection::State::kHandling || now - c.since <= limit(c)) continue;
    if (c.state == Connection::State::kReading && !c.reader.idle()) {
      send_and_forget(c.fd, render_error(408, "the request did not arrive in time", false));
    }
    late.push_back(id);
  }
  for (const std::uint64_t id : late) close(id);
}

int Loop::poll_timeout_ms(Clock::time_point now) const {
  Clock::time_point next = now + std::chrono::seconds(1);
  for (const auto& [id, c] : connections_) {
    if (c.state != Connection::State::kHandling) next = std::min(next, c.since + limit(c));
  }
  if (accept_paused_until_ > now) next = std::min(next, accept_paused_until_);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
  return static_cast<int>(std::clamp<long long>(ms, 0, 1000));
}

void Loop::poll_once(std::vector<pollfd>& fds, std::vector<std::uint64_t>& ids) {
  auto now = Clock::now();
  take_answers(now);
  expire(now);
  fds.assign({{wake_fd_, POLLIN, 0}});
  if (now >= accept_paused_until_) fds.push_back({listen_fd_, POLLIN, 0});
  const std::size_t first = fds.size();
  ids.clear();
  for (const auto& [id, c] : connections_) {
    if (c.state == Connection::State::kHandling) continue;
    fds.push_back({c.fd, static_cast<short>(c.state == Connection::State::kReading ? POLLIN : POLLOUT), 0});
    ids.push_back(id);
  }
  if (::poll(fds.data(), fds.size(), poll_timeout_ms(now)) < 0) {
    if (errno == EINTR) return;
    throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
  now = Clock::now();
  if (fds[0].revents & POLLIN) {
    std::uint64_t count = 0;
    (void)::read(wake_fd_, &count, sizeof count);
  }
  for (std::size_t k = first; k < fds.size(); ++k) {
    if (fds[k].revents == 0) continue;
    const auto it = connections_.find(ids[k - first]);
    if (it == connections_.end()) continue;
    if (it->second.state == Connection::State::kReading) read_from(it->first, it->second, now);
    else if (it->second.state == Connection::State::kWriting) write_to(it->first, it->second, now);
  }
  if (first == 2 && (fds[1].revents & POLLIN)) accept_all(now);
}

void Loop::run() {
  std::vector<std::thread> workers;
  // However the loop ends, the workers stop (after their current request) and are joined.
  struct Joiner {
    Loop& loop;
    std::vector<std::thread>& workers;
    ~Joiner() {
      {
        const std::lock_guard lock(loop.mutex_);
        loop.workers_stop_ = true;
      }
      loop.work_ready_.notify_all();
      for (auto& w : workers) w.join();
      for (auto& [id, c] : loop.connections_) ::close(c.fd);
      loop.connections_.clear();
    }
  } joiner{*this, workers};
  for (int w = 0; w < limits_.workers; ++w) workers.emplace_back([this] { worker(); });
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  while (!stopping_) poll_once(fds, ids);
}

}  // namespace

std::string error_body(int status, const std::string& message, const std::string& param, const std::string& code) {
  nlohmann::json error = {{"message", message}, {"type", error_type(status)}, {"param", nullptr}, {"code", nullptr}};
  if (!param.empty()) error["param"] = param;
  if (!code.empty()) error["code"] = code;
  return nlohmann::json{{"error", error}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HttpServer::HttpServer(const std::string& host, int port, HttpHandler handler, HttpServerLimits limits)
    : limits_(limits), handler_(std::move(handler)) {
  const std::string where = host + ":" + std::to_string(port);
  if (limits_.workers < 1 || limits_.max_connections < 1 || !(limits_.request_timeout_s > 0) || !(limits_.idle_timeout_s > 0) ||
      limits_.request.max_header_bytes < 1024 || limits_.max_response_bytes < 1024) {
    throw InputError(where + ": a server limit is out of range (workers and connections at least 1, timeouts above 0, sizes at least 1 KiB)");
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (port < 0 || port > 65535 || ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    throw InputError(where + ": not an IPv4 address and port");
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int one = 1;
  if (listen_fd_ >= 0) setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 512) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw InputError(where + ": cannot listen: " + why);
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

HttpServer::~HttpServer() {
  stop();
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void HttpServer::serve() {
  Loop loop(listen_fd_, wake_fd_, limits_, handler_, stopping_);
  loop.run();
}

void HttpServer::stop() {
  stopping_ = true;
  const std::uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof one);
}

}  // namespace secpe
