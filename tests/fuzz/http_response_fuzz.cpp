// libFuzzer target: what the HTTP client reads from a model server (http/http_embedder.cpp,
// http_generator.cpp, refusal.cpp). The first byte picks the reader and its expectations; the
// rest is the answer's body. Promises checked: bad answers are InputErrors naming the URL; an
// embeddings answer that parses has one finite, unit-length (or zero) row per input of the
// expected dimension; a generated text is trimmed; classifying a refusal never throws.
#include <cmath>

#include "fuzz_util.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"
#include "http/refusal.hpp"

using namespace secpe;

namespace {

constexpr const char* kUrl = "http://fuzz/v1/x";

void check_message(const InputError& e) {
  if (!std::string_view(e.what()).starts_with(kUrl)) secpe::fuzz::finding("an error that does not name the URL");
}

void embeddings(const std::string& body, std::size_t inputs, int dim) {
  try {
    const MatrixF m = parse_embeddings_response(body, inputs, dim, kUrl);
    if (m.rows() != static_cast<Eigen::Index>(inputs) || (dim > 0 && m.cols() != dim)) secpe::fuzz::finding("wrong shape");
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      const double n = m.row(r).cast<double>().norm();
      if (!std::isfinite(n) || (n != 0 && std::abs(n - 1) > 1e-3)) secpe::fuzz::finding("a row neither unit nor zero");
    }
  } catch (const InputError& e) {
    check_message(e);
  }
}

void generation(const std::string& body, GenerationApi api) {
  try {
    const std::string text = parse_generation_response(body, api, kUrl);
    if (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) || std::isspace(static_cast<unsigned char>(text.back())))) {
      secpe::fuzz::finding("an untrimmed text");
    }
  } catch (const InputError& e) {
    check_message(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const unsigned mode = data[0];
  switch (mode % 4) {
    case 0: embeddings(body, 1 + (mode >> 2) % 4, static_cast<int>((mode >> 4) % 5)); break;
    case 1: generation(body, GenerationApi::kChat); break;
    case 2: generation(body, GenerationApi::kCompletions); break;
    default: {
      static constexpr long kStatuses[] = {400, 413, 422, 500, 429, 200, 503, 404};
      (void)classify_refusal(kStatuses[(mode >> 2) % 8], body);
    }
  }
  return 0;
}
