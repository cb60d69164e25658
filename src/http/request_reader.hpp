#pragma once
// The HTTP/1.1 request reader of `secpe serve` (http/server.hpp): bytes in, whole requests out,
// strict about what it accepts and bounded in what it keeps. Separate from the sockets so that
// the fuzz target (tests/fuzz/http_request_fuzz.cpp) drives exactly the code the server runs.
//
// Accepted: "METHOD SP TARGET SP HTTP/1.0|HTTP/1.1" CRLF, header lines "name: value" CRLF (name a
// token, value without control bytes), CRLF, then a body of exactly Content-Length bytes (1 to
// 18 digits, nothing else; repeated only with the same value; none: no body). Refused with a
// status and a message that never quotes the request: anything else, chunked or other
// Transfer-Encodings (501), a head over the header limit or with over 100 fields (431), a body
// over the body limit (413, decided from Content-Length before any body byte is kept).
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace secpe {

struct HttpRequest {
  std::string method, path, version;           // version: "HTTP/1.0" or "HTTP/1.1"
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct RequestLimits {
  std::size_t max_header_bytes = std::size_t{64} << 10;  // request line and fields together
  std::size_t max_body_bytes = std::size_t{2} << 20;
};

class RequestReader {
 public:
  enum class Status { kIncomplete, kReady, kBad };

  explicit RequestReader(RequestLimits limits) : limits_(limits) {}

  // Appends received bytes, then tells whether the next request is complete (take() it), needs
  // more bytes, or is malformed (error_status(), error_message(); the connection should close).
  Status append(std::string_view bytes);
  // The complete request; bytes after it (a pipelined next request) stay buffered. Call status()
  // afterwards: the next one may already be complete.
  HttpRequest take();
  Status status();

  bool idle() const { return buffer_.empty() && !head_done_; }  // no byte of a next request yet
  // True once per request whose head asked "Expect: 100-continue" and was accepted while its body
  // is still to come: the server should answer "100 Continue" (RFC 9110 10.1.1).
  bool take_continue() { return std::exchange(continue_pending_, false); }
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  Status fail(int status, std::string message);
  Status parse_head(std::string_view head);

  RequestLimits limits_;
  std::string buffer_;
  std::size_t scanned_ = 0;  // the head's end was searched for up to here
  bool head_done_ = false;
  bool continue_pending_ = false;
  std::size_t body_length_ = 0;
  HttpRequest request_;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace secpe
