#include "http/http_embedder.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/log.hpp"
#include "http/refusal.hpp"

namespace secpe {
namespace {

// A cached vector fit to use: numbers, and the expected dimension when it is known. Anything else
// (a damaged or foreign entry) is asked again.
bool usable(const nlohmann::json* v, int dim) {
  return v && v->is_array() && !v->empty() && (dim == 0 || static_cast<int>(v->size()) == dim) &&
         std::all_of(v->begin(), v->end(), [](const nlohmann::json& x) { return x.is_number(); });
}

std::string text_key(const std::string& model, const std::string& text) {
  return request_key("/embeddings", json_text({{"model", model}, {"input", text}}));
}

// One embedding's values: a list of numbers, or base64 of little-endian float32.
std::vector<double> embedding_values(const nlohmann::json& v, const std::string& bad, std::size_t item) {
  std::vector<double> out;
  if (v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    std::string bytes(text.size(), '\0');
    std::size_t length = 0;
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size(), text.data(), text.size(), nullptr, &length, nullptr,
                          sodium_base64_VARIANT_ORIGINAL) != 0 ||
        length % 4 != 0) {
      throw InputError(bad + "item " + std::to_string(item) + " has an embedding string that is not base64 float32");
    }
    for (std::size_t k = 0; k < length; k += 4) {
      std::uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) bits = (bits << 8) | static_cast<unsigned char>(bytes[k + static_cast<std::size_t>(b)]);
      out.push_back(std::bit_cast<float>(bits));
    }
    return out;
  }
  if (!v.is_array()) throw InputError(bad + "item " + std::to_string(item) + " has no 'embedding' array");
  out.reserve(v.size());
  for (const auto& x : v) {
    if (!x.is_number()) throw InputError(bad + "a non-numeric embedding value");
    out.push_back(x.get<double>());
  }
  return out;
}

std::vector<std::vector<std::size_t>> groups_of(const std::vector<std::size_t>& items, std::size_t size) {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t b = 0; b < items.size(); b += size) out.emplace_back(items.begin() + b, items.begin() + std::min(items.size(), b + size));
  return out;
}

}  // namespace

namespace {
std::string overflow_message(const std::string& url, const std::string& subject, long status) {
  return url + ": " + subject + " is longer than the model takes (its context length; HTTP " + std::to_string(status) +
         "); shorten the text or have the server truncate inputs";
}
}  // namespace

ContextOverflowError::ContextOverflowError(std::string url, std::size_t index, long status)
    : InputError(overflow_message(url, "input " + std::to_string(index), status)), url_(std::move(url)), index_(index), status_(status) {}

InputError ContextOverflowError::about(const std::string& subject) const { return InputError(overflow_message(url_, subject, status_)); }

MatrixF parse_embeddings_response(const std::string& body, std::size_t inputs, int dim, const std::string& url) {
  const std::string bad = url + ": malformed embeddings response: ";
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) throw InputError(bad + "not JSON (" + std::to_string(body.size()) + " bytes)");
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) throw InputError(bad + "no 'data' array");
  const auto& data = j["data"];
  if (data.size() != inputs) {
    throw InputError(bad + std::to_string(data.size()) + " embeddings for " + std::to_string(inputs) + " inputs");
  }
  MatrixF out;
  std::vector<bool> seen(inputs, false);
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto& item = data[i];
    if (!item.is_object() || !item.contains("embedding")) throw InputError(bad + "item " + std::to_string(i) + " has no 'embedding' array");
    std::size_t row = i;
    if (item.contains("index")) {
      if (!item["index"].is_number_unsigned() || item["index"].get<std::size_t>() >= inputs) {
        throw InputError(bad + "item " + std::to_string(i) + " has an invalid 'index'");
      }
      row = item["index"].get<std::size_t>();
    }
    if (seen[row]) throw InputError(bad + "index " + std::to_string(row) + " appears twice");
    seen[row] = true;
    const std::vector<double> v = embedding_values(item["embedding"], bad, i);
    const int d = static_cast<int>(v.size());
    if (d == 0) throw InputError(bad + "an empty embedding");
    if (dim > 0 && d != dim) {
      throw InputError(url + ": the model returned a " + std::to_string(d) + "-dimensional embedding, expected " + std::to_string(dim));
    }
    if (out.size() == 0) out.setZero(static_cast<Eigen::Index>(inputs), d);
    if (d != out.cols()) throw InputError(bad + "embeddings of different dimensions");
    for (int k = 0; k < d; ++k) {
      const double x = v[static_cast<std::size_t>(k)];
      if (!std::isfinite(x)) throw InputError(bad + "a non-finite embedding value");
      // Embeddings are stored as 32-bit floats: a value beyond their range would become infinite.
      if (std::abs(x) > std::numeric_limits<float>::max()) throw InputError(bad + "an embedding value beyond the range of a 32-bit float");
      out(static_cast<Eigen::Index>(row), k) = static_cast<float>(x);
    }
  }
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    float norm = out.row(r).norm();
    // Squares that overflow or underflow a float (no real embedding's norm is below 1e-15): scale
    // the row by its largest value first, so that it still comes out a unit vector.
    if (!(std::isfinite(norm) && norm >= 1e-15f)) {
      const float largest = out.row(r).cwiseAbs().maxCoeff();
      if (largest > 0) out.row(r) /= largest;
      norm = out.row(r).norm();
    }
    if (norm > 0) out.row(r) /= norm;
  }
  return out;
}

HttpEmbedder::HttpEmbedder(HttpEmbedderOptions options)
    : options_(std::move(options)), client_(options_.client), dim_(options_.dim), batch_limit_(options_.batch) {
  if (options_.model.empty()) throw InputError("the HTTP embedder needs a model name");
  if (options_.batch < 1) throw InputError("the HTTP embedder's batch size must be at least 1");
  if (!options_.cache_dir.empty()) cache_ = ResponseCache(options_.cache_dir, "embed", options_.cache_writer);
}

int HttpEmbedder::dim() const {
  if (dim_ == 0) {
    // A fixed public text: nothing about the data goes out to learn the dimension.
    MatrixF probe;
    const std::string text = "secpe dimension probe";
    embed(std::span<const std::string>(&text, 1), probe);
  }
  return dim_;
}

std::string HttpEmbedder::name() const { return "http(model=" + options_.model + ", d=" + std::to_string(dim()) + ")"; }

void HttpEmbedder::split_refused(const std::vector<std::size_t>& group, long status, std::string_view body,
                                 std::vector<std::vector<std::size_t>>& again) const {
  const std::string url = client_.url("/embeddings");
  if (classify_refusal(status, body) == Refusal::kContextOverflow) {
    if (group.size() == 1) throw ContextOverflowError(url, group.front(), status);
    // Which text is too long? Halves until it stands alone; the batch size is not the problem.
    const auto half = group.begin() + static_cast<std::ptrdiff_t>(group.size() / 2);
    again.emplace_back(group.begin(), half);
    again.emplace_back(half, group.end());
    return;
  }
  if (group.size() == 1) throw InputError(url + ": the server refuses even one text per request as too large (HTTP " + std::to_string(status) + ")");
  const int half = static_cast<int>((group.size() + 1) / 2);
  if (half < batch_limit_) {
    batch_limit_ = half;
    log_warn(url + ": the server refused " + std::to_string(group.size()) + " texts in one request (HTTP " + std::to_string(status) +
             "); sending at most " + std::to_string(half) + " from now on");
  }
  for (auto& part : groups_of(group, static_cast<std::size_t>(batch_limit_))) again.push_back(std::move(part));
}

void HttpEmbedder::request(std::span<const std::string> texts, const std::vector<std::string>& keys, const std::vector<std::size_t>& missing) const {
  const HandBack refused = [](long status, std::string_view body) { return classify_refusal(status, body) != Refusal::kNone; };
  std::vector<std::vector<std::size_t>> groups = groups_of(missing, static_cast<std::size_t>(batch_limit_));
  while (!groups.empty()) {
    std::vector<std::string> bodies;
    for (const auto& group : groups) {
      nlohmann::json input = nlohmann::json::array();
      for (const std::size_t i : group) input.push_back(texts[i]);
      bodies.push_back(json_text({{"model", options_.model}, {"input", input}, {"encoding_format", "float"}}));
    }
    const std::vector<HttpAnswer> answers = client_.post_all("/embeddings", bodies, "http embed", refused);
    std::vector<std::vector<std::size_t>> again;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (answers[g].status < 200 || answers[g].status >= 300) {
        split_refused(groups[g], answers[g].status, answers[g].body, again);
        continue;
      }
      const MatrixF rows = parse_embeddings_response(answers[g].body, groups[g].size(), dim_, client_.url("/embeddings"));
      if (dim_ == 0) dim_ = static_cast<int>(rows.cols());
      for (std::size_t k = 0; k < groups[g].size(); ++k) {
        std::vector<float> row(static_cast<std::size_t>(rows.cols()));
        for (Eigen::Index c = 0; c < rows.cols(); ++c) row[static_cast<std::size_t>(c)] = rows(static_cast<Eigen::Index>(k), c);
        cache_.put(keys[groups[g][k]], std::move(row));
      }
    }
    groups = std::move(again);
  }
}

void HttpEmbedder::embed(std::span<const std::string> texts, MatrixF& out) const {
  std::vector<std::string> keys;
  std::vector<std::size_t> missing;
  keys.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    keys.push_back(text_key(options_.model, texts[i]));
    if (!usable(cache_.find(keys.back()), dim_)) missing.push_back(i);
  }
  request(texts, keys, missing);
  // Nothing was asked: the dimension is that of the cached vectors (or, for no text, the probe's).
  if (dim_ == 0 && !texts.empty()) dim_ = static_cast<int>(cache_.find(keys.front())->size());
  out.resize(static_cast<Eigen::Index>(texts.size()), dim());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& v = *cache_.find(keys[i]);
    if (!usable(&v, dim_)) {
      throw InputError(options_.cache_dir.string() + ": the HTTP response cache holds a vector of another dimension; delete its http-cache files");
    }
    for (int k = 0; k < dim_; ++k) out(static_cast<Eigen::Index>(i), k) = v[static_cast<std::size_t>(k)].get<float>();
  }
}

}  // namespace secpe
