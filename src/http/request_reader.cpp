#include "http/request_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace secpe {
namespace {

constexpr std::size_t kMaxFields = 100;
constexpr std::size_t kMaxLengthDigits = 18;  // fits an unsigned 64-bit value with room to spare

bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), token_char); }

bool visible(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// A field value: any byte but controls (HTAB allowed); obs-text (>= 0x80) passes, as RFC 9110 allows.
bool field_value_ok(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
  });
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Content-Length: digits only ("2abc", "-1", "+3", " 4 4", "0x10" are not lengths).
bool parse_length(std::string_view s, std::size_t& out) {
  if (s.empty() || s.size() > kMaxLengthDigits) return false;
  std::size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  out = v;
  return true;
}

}  // namespace

RequestReader::Status RequestReader::fail(int status, std::string message) {
  error_status_ = status;
  error_message_ = std::move(message);
  return Status::kBad;
}

RequestReader::Status RequestReader::parse_head(std::string_view head) {
  request_ = {};
  const std::size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return fail(400, "malformed request line");
  const std::string_view method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1), version = line.substr(sp2 + 1);
  if (!is_token(method) || !visible(target)) return fail(400, "malformed request line");
  if (!version.starts_with("HTTP/")) return fail(400, "malformed request line");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return fail(505, "only HTTP/1.0 and HTTP/1.1 are served");
  request_.method = method;
  request_.path = target;
  request_.version = version;
  std::size_t fields = 0;
  bool has_length = false;
  for (std::size_t pos = line_end; pos != std::string_view::npos;) {
    const std::size_t next = head.find("\r\n", pos + 2);
    const std::string_view field = head.substr(pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2);
    pos = next;
    if (++fields > kMaxFields) return fail(431, "more than 100 header fields");
    const std::size_t colon = field.find(':');
    // No whitespace before the colon and no obsolete line folding (RFC 9112 5.1, 5.2).
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) return fail(400, "malformed header field");
    const std::string_view value = trim_ows(field.substr(colon + 1));
    if (!field_value_ok(value)) return fail(400, "a header field holds a control character");
    const std::string name = lower(field.substr(0, colon));
    if (name == "transfer-encoding") return fail(501, "Transfer-Encoding is not supported: send the body with Content-Length");
    if (name == "content-length") {
      std::size_t length = 0;
      if (!parse_length(value, length)) return fail(400, "Content-Length is not a number of bytes");
      if (has_length && length != body_length_) return fail(400, "two different Content-Length fields");
      has_length = true;
      body_length_ = length;
      continue;
    }
    auto [it, fresh] = request_.headers.try_emplace(name, value);
    if (!fresh) {
      if (name == "authorization" || name == "host") return fail(400, "a repeated " + name + " field");
      it->second += ", ";
      it->second += value;
    }
  }
  if (!has_length) body_length_ = 0;
  if (body_length_ > limits_.max_body_bytes) {
    return fail(413, "the body (" + std::to_string(body_length_) + " bytes) is over the server's limit of " +
                         std::to_string(limits_.max_body_bytes) + " bytes");
  }
  return Status::kIncomplete;
}

RequestReader::Status RequestReader::status() {
  if (error_status_ != 0) return Status::kBad;
  if (!head_done_) {
    // Resume the search a few bytes back: the terminator may straddle two reads.
    const std::size_t from = scanned_ >= 3 ? scanned_ - 3 : 0;
    const std::size_t end = buffer_.find("\r\n\r\n", from);
    if (end == std::string::npos) {
      scanned_ = buffer_.size();
      if (buffer_.size() > limits_.max_header_bytes) return fail(431, "the request head is over the server's limit");
      return Status::kIncomplete;
    }
    if (end + 4 > limits_.max_header_bytes) return fail(431, "the request head is over the server's limit");
    if (parse_head(std::string_view(buffer_).substr(0, end)) == Status::kBad) return Status::kBad;
    buffer_.erase(0, end + 4);
    head_done_ = true;
    scanned_ = 0;
    const auto expect = request_.headers.find("expect");
    continue_pending_ = expect != request_.headers.end() && lower(expect->second) == "100-continue" && buffer_.size() < body_length_;
  }
  return buffer_.size() >= body_length_ ? Status::kReady : Status::kIncomplete;
}

RequestReader::Status RequestReader::append(std::string_view bytes) {
  if (error_status_ != 0) return Status::kBad;
  buffer_.append(bytes);
  return status();
}

HttpRequest RequestReader::take() {
  HttpRequest out = std::move(request_);
  out.body = buffer_.substr(0, body_length_);
  buffer_.erase(0, body_length_);
  request_ = {};
  head_done_ = false;
  body_length_ = 0;
  return out;
}

}  // namespace secpe
