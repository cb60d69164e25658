// libFuzzer target: the request reader of secpe serve (http/request_reader.cpp) and the OpenAI
// service behind it (http/openai_service.cpp, openai_request.cpp). The first byte picks how the
// rest is cut into reads (1 to 64 bytes); the rest is what a client sent. Promises checked:
// reading in pieces gives the same requests and refusals as reading at once; a refusal is one of
// the reader's statuses; every request the reader completes gets an answer from the service that
// is a JSON error of OpenAI's shape, a JSON answer, or a server-sent-events stream ending in
// [DONE]; nothing but the service's own refusals escapes (an exception is a finding).
#include <nlohmann/json.hpp>

#include "fuzz_util.hpp"
#include "http/openai_service.hpp"
#include "http/request_reader.hpp"

using namespace secpe;
using nlohmann::json;

namespace {

const RequestLimits kLimits{.max_header_bytes = 4096, .max_body_bytes = 1 << 16};

struct Outcome {
  std::vector<HttpRequest> requests;
  int refusal = 0;
};

Outcome read_all(std::string_view bytes, std::size_t piece) {
  RequestReader reader(kLimits);
  Outcome out;
  for (std::size_t pos = 0; pos < bytes.size() && out.refusal == 0; pos += piece) {
    for (auto s = reader.append(bytes.substr(pos, piece)); s != RequestReader::Status::kIncomplete; s = reader.status()) {
      if (s == RequestReader::Status::kBad) {
        out.refusal = reader.error_status();
        break;
      }
      out.requests.push_back(reader.take());
    }
  }
  return out;
}

bool same(const HttpRequest& a, const HttpRequest& b) {
  return a.method == b.method && a.path == b.path && a.version == b.version && a.headers == b.headers && a.body == b.body;
}

const HttpHandler& service() {
  static const HttpHandler handler = [] {
    LabelSet labels{{"label1"}, {""}, {{"Bars"}, {"Grocery"}}};
    auto generator = std::make_shared<NgramGenerator>(
        std::vector<std::vector<std::string>>{{"The beer was cold. Great bar."}, {"Fresh apples and kind cashiers."}, {}}, "fuzz",
        NgramGeneratorOptions{.max_words = 16});
    return openai_service(generator, std::make_shared<HashingEmbedder>(8), labels,
                          {.model = "m", .limits = {.max_inputs = 16, .max_request_tokens = 2000}});
  }();
  return handler;
}

void check_answer(const HttpResponse& r) {
  if (r.content_type == "text/event-stream") {
    if (r.status != 200 || !r.body.ends_with("data: [DONE]\n\n")) secpe::fuzz::finding("a stream that does not end in [DONE]");
    return;
  }
  const json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded()) secpe::fuzz::finding("an answer that is not JSON");
  if (r.status == 200) return;
  if (!j.contains("error") || !j["error"].contains("message") || !j["error"].contains("type") || !j["error"].contains("param") ||
      !j["error"].contains("code")) {
    secpe::fuzz::finding("an error not in OpenAI's shape");
  }
  if (r.status != 400 && r.status != 401 && r.status != 404 && r.status != 405 && r.status != 413) secpe::fuzz::finding("an unexpected status");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = read_all(bytes, bytes.size() + 1), pieces = read_all(bytes, 1 + data[0] % 64);
  if (whole.refusal != pieces.refusal || whole.requests.size() != pieces.requests.size()) secpe::fuzz::finding("reading in pieces changed the outcome");
  for (std::size_t i = 0; i < whole.requests.size(); ++i) {
    if (!same(whole.requests[i], pieces.requests[i])) secpe::fuzz::finding("reading in pieces changed a request");
  }
  const int r = whole.refusal;
  if (r != 0 && r != 400 && r != 413 && r != 431 && r != 501 && r != 505) secpe::fuzz::finding("an unexpected refusal status");
  for (const HttpRequest& req : whole.requests) {
    if (req.body.size() > kLimits.max_body_bytes) secpe::fuzz::finding("a body over the limit");
    check_answer(service()(req));
  }
  return 0;
}
