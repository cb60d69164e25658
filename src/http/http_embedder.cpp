#include "http/http_embedder.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

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

}  // namespace

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
    if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
      throw InputError(bad + "item " + std::to_string(i) + " has no 'embedding' array");
    }
    std::size_t row = i;
    if (item.contains("index")) {
      if (!item["index"].is_number_unsigned() || item["index"].get<std::size_t>() >= inputs) {
        throw InputError(bad + "item " + std::to_string(i) + " has an invalid 'index'");
      }
      row = item["index"].get<std::size_t>();
    }
    if (seen[row]) throw InputError(bad + "index " + std::to_string(row) + " appears twice");
    seen[row] = true;
    const auto& v = item["embedding"];
    const int d = static_cast<int>(v.size());
    if (d == 0) throw InputError(bad + "an empty embedding");
    if (dim > 0 && d != dim) {
      throw InputError(url + ": the model returned a " + std::to_string(d) + "-dimensional embedding, expected " + std::to_string(dim));
    }
    if (out.size() == 0) out.setZero(static_cast<Eigen::Index>(inputs), d);
    if (d != out.cols()) throw InputError(bad + "embeddings of different dimensions");
    for (int k = 0; k < d; ++k) {
      if (!v[static_cast<std::size_t>(k)].is_number()) throw InputError(bad + "a non-numeric embedding value");
      const double x = v[static_cast<std::size_t>(k)].get<double>();
      if (!std::isfinite(x)) throw InputError(bad + "a non-finite embedding value");
      out(static_cast<Eigen::Index>(row), k) = static_cast<float>(x);
    }
  }
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    const float norm = out.row(r).norm();
    if (norm > 0) out.row(r) /= norm;
  }
  return out;
}

HttpEmbedder::HttpEmbedder(HttpEmbedderOptions options)
    : options_(std::move(options)), client_(options_.client), dim_(options_.dim) {
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

void HttpEmbedder::embed(std::span<const std::string> texts, MatrixF& out) const {
  std::vector<std::string> keys;
  std::vector<std::size_t> missing;
  keys.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    keys.push_back(text_key(options_.model, texts[i]));
    if (!usable(cache_.find(keys.back()), dim_)) missing.push_back(i);
  }
  std::vector<std::string> bodies;
  const std::size_t batch = static_cast<std::size_t>(options_.batch);
  for (std::size_t b = 0; b < missing.size(); b += batch) {
    nlohmann::json input = nlohmann::json::array();
    for (std::size_t k = b; k < std::min(missing.size(), b + batch); ++k) input.push_back(texts[missing[k]]);
    bodies.push_back(json_text({{"model", options_.model}, {"input", input}, {"encoding_format", "float"}}));
  }
  const std::vector<std::string> responses = client_.post_all("/embeddings", bodies, "http embed");
  for (std::size_t r = 0; r < responses.size(); ++r) {
    const std::size_t b = r * batch, n = std::min(missing.size(), b + batch) - b;
    const MatrixF rows = parse_embeddings_response(responses[r], n, dim_, client_.url("/embeddings"));
    if (dim_ == 0) dim_ = static_cast<int>(rows.cols());
    for (std::size_t k = 0; k < n; ++k) {
      std::vector<float> row(static_cast<std::size_t>(rows.cols()));
      for (Eigen::Index c = 0; c < rows.cols(); ++c) row[static_cast<std::size_t>(c)] = rows(static_cast<Eigen::Index>(k), c);
      cache_.put(keys[missing[b + k]], std::move(row));
    }
  }
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
