#include "http/openai_service.hpp"

#include <sodium.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <ctime>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/digest.hpp"
#include "core/rng.hpp"
#include "http/http_client.hpp"
#include "http/openai_request.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

using nlohmann::json;

HttpResponse error(const ApiError& e) { return {.status = e.status, .body = error_body(e.status, e.message, e.param, e.code)}; }

// The last paragraph of a prompt with a blank line, with the fill-in blanks dropped.
std::string parent_of(const std::string& prompt) {
  const std::size_t cut = prompt.rfind("\n\n");
  if (cut == std::string::npos) return "";
  std::istringstream in(prompt.substr(cut + 2));
  std::string out;
  for (std::string w; in >> w;) {
    if (w == "_") continue;
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

std::uint64_t prompt_hash(const std::string& prompt) {
  return std::stoull(blake2b_256_hex(prompt).substr(0, 15), nullptr, 16);
}

// Whether the Authorization field carries the key, compared in constant time: digests of equal
// length, compared with sodium_memcmp, so the time taken says nothing about the key.
bool key_matches(const HttpRequest& req, const std::string& key) {
  const auto it = req.headers.find("authorization");
  const std::string given = blake2b_256_hex(it == req.headers.end() ? std::string("\x01no key") : it->second);
  const std::string wanted = blake2b_256_hex("Bearer " + key);
  return sodium_memcmp(given.data(), wanted.data(), given.size()) == 0;
}

// How deeply a JSON text nests arrays and objects (strings skipped), read before parsing, so that
// no request makes the server recurse without bound.
std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, most = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      most = std::max(most, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return most;
}

struct Choice {
  std::string text;
  std::string finish_reason;
};

// Cuts a text at its first stop string, then to `max_tokens` tokens of the built-in tokenizer.
Choice bounded(std::string text, const GenerationRequest& r) {
  std::string finish = "stop";
  std::size_t cut = std::string::npos;
  for (const auto& s : r.stop) cut = std::min(cut, text.find(s));
  if (cut != std::string::npos) text.resize(cut);
  if (r.max_tokens) {
    std::vector<std::string> tokens = tokenize(text);
    if (tokens.size() > *r.max_tokens) {
      finish = "length";
      tokens.resize(*r.max_tokens);
      // Joining may glue two tokens into one, never split one: the count can only drop.
      text = detokenize(tokens);
    }
  }
  return {std::move(text), finish};
}

json usage(std::size_t prompt, std::size_t completion) {
  return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

std::string sse(const json& chunk) { return "data: " + json_text(chunk) + "\n\n"; }

// A text in a few deltas (up to 8 words each), as a model would stream it.
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  std::size_t words = 0, start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ' ' && ++words % 8 == 0)) {
      if (i > start) out.push_back(text.substr(start, i - start));
      start = i;
    }
  }
  return out;
}

class Service {
 public:
  Service(std::shared_ptr<const Generator> g, std::shared_ptr<const Embedder> e, LabelSet labels, OpenAiServiceOptions o)
      : generator_(std::move(g)), embedder_(std::move(e)), labels_(std::move(labels)), options_(std::move(o)), created_(std::time(nullptr)) {}

  HttpResponse operator()(const HttpRequest& req) {
    try {
      return route(req);
    } catch (const ApiError& e) {
      return error(e);
    }
  }

 private:
  HttpResponse route(const HttpRequest& req) {
    if (!options_.api_key.empty() && !key_matches(req, options_.api_key)) throw ApiError{401, "missing or wrong API key", "", "invalid_api_key"};
    if (req.path == "/v1/models" || req.path == "/models" || req.path.starts_with("/v1/models/")) return models(req);
    const bool embeddings = req.path == "/v1/embeddings", chat = req.path == "/v1/chat/completions";
    if (!embeddings && !chat && req.path != "/v1/completions") throw ApiError{404, "no such endpoint", "", "unknown_url"};
    if (req.method != "POST") throw ApiError{405, "use POST", "", "method_not_allowed"};
    const long n = ++requests_;
    const ServiceFaults& f = options_.faults;
    if (f.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(f.delay_ms));
    if (f.drop_every > 0 && n % f.drop_every == 0) return {.status = 0, .body = {}, .drop = true};
    if (f.fail_every > 0 && n % f.fail_every == 0) throw ApiError{f.fail_status, "injected failure", "", ""};
    if (json_depth(req.body) > 32) throw ApiError{400, "the body nests arrays and objects deeper than 32 levels", "", "invalid_json"};
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) throw ApiError{400, "the body is not a JSON object", "", "invalid_json"};
    if (!body.contains("model") || !body["model"].is_string()) throw ApiError{400, "'model' is required", "model", "invalid_value"};
    if (body["model"] != options_.model) throw ApiError{404, "unknown model; this server has '" + options_.model + "'", "model", "model_not_found"};
    HttpResponse response = embeddings ? embed(body) : complete(body, chat);
    if (f.truncate && response.status == 200) response.body.resize(response.body.size() / 2);
    return response;
  }

  json model_object() const { return {{"id", options_.model}, {"object", "model"}, {"created", created_}, {"owned_by", "secpe"}}; }

  HttpResponse models(const HttpRequest& req) const {
    if (req.method != "GET") throw ApiError{405, "use GET", "", "method_not_allowed"};
    if (req.path.starts_with("/v1/models/")) {
      if (req.path.substr(11) != options_.model) throw ApiError{404, "unknown model; this server has '" + options_.model + "'", "model", "model_not_found"};
      return {.body = model_object().dump()};
    }
    return {.body = json{{"object", "list"}, {"data", json::array({model_object()})}}.dump()};
  }

  HttpResponse embed(const json& body) const {
    const EmbeddingRequest r = parse_embedding_request(body, embedder_->dim(), options_.limits);
    MatrixF vectors;
    embedder_->embed(r.texts, vectors);
    json data = json::array();
    for (std::size_t i = 0; i < r.texts.size(); ++i) {
      const auto row = vectors.row(static_cast<Eigen::Index>(i));
      const json embedding = r.base64 ? json(base64_floats(row.data(), static_cast<std::size_t>(row.size())))
                                      : json(std::vector<float>(row.data(), row.data() + row.size()));
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embedding}});
    }
    return {.body = json{{"object", "list"}, {"data", data}, {"model", options_.model},
                         {"usage", {{"prompt_tokens", r.tokens}, {"total_tokens", r.tokens}}}}.dump()};
  }

  // Choice j of prompt p: its own stream of the request's seed, so choice 0 is what n = 1 gives.
  std::vector<Choice> choices(const GenerationRequest& r) const {
    std::vector<Choice> out;
    for (const std::string& prompt : r.prompts) {
      const std::size_t label = prompt_label(prompt, labels_);
      const std::string parent = parent_of(prompt);
      for (std::size_t j = 0; j < r.n; ++j) {
        CounterRng rng(r.seed, Stream::kGeneration, label, prompt_hash(prompt), j);
        out.push_back(bounded(parent.empty() ? generator_->random_text(label, rng) : generator_->vary(label, parent, rng), r));
      }
    }
    return out;
  }

  HttpResponse complete(const json& body, bool chat) const {
    const GenerationRequest r = parse_generation_request(body, chat, options_.limits);
    const std::vector<Choice> made = choices(r);
    std::size_t completion_tokens = 0;
    for (const Choice& c : made) completion_tokens += tokenize(c.text).size();
    const json frame = {{"id", std::string(chat ? "chatcmpl-" : "cmpl-") + blake2b_256_hex(json_text(body)).substr(0, 24)},
                        {"object", chat ? "chat.completion" : "text_completion"},
                        {"created", static_cast<std::int64_t>(std::time(nullptr))},
                        {"model", options_.model}};
    if (r.stream) return stream(frame, made, r, chat, usage(r.prompt_tokens, completion_tokens));
    json list = json::array();
    for (std::size_t i = 0; i < made.size(); ++i) {
      json c = {{"index", i}, {"logprobs", nullptr}, {"finish_reason", made[i].finish_reason}};
      if (chat) c["message"] = {{"role", "assistant"}, {"content", made[i].text}};
      else c["text"] = made[i].text;
      list.push_back(std::move(c));
    }
    json out = frame;
    out["choices"] = std::move(list);
    out["usage"] = usage(r.prompt_tokens, completion_tokens);
    return {.body = json_text(out)};
  }

  // Server-sent events in OpenAI's chunk shapes: per choice, (chat) a role delta, the text in
  // pieces, a finish chunk; with include_usage, a last chunk with no choices and the usage; then
  // "data: [DONE]".
  static HttpResponse stream(json frame, const std::vector<Choice>& made, const GenerationRequest& r, bool chat, const json& totals) {
    frame["object"] = chat ? "chat.completion.chunk" : "text_completion";
    if (r.include_usage) frame["usage"] = nullptr;
    auto chunk = [&](std::size_t index, const std::string* text, const json& finish) {
      json c = {{"index", index}, {"logprobs", nullptr}, {"finish_reason", finish}};
      if (chat) c["delta"] = text ? json{{"content", *text}} : json::object();
      else c["text"] = text ? *text : "";
      json out = frame;
      out["choices"] = json::array({c});
      return sse(out);
    };
    std::string body;
    for (std::size_t i = 0; i < made.size(); ++i) {
      if (chat) {
        json out = frame;
        out["choices"] = json::array({{{"index", i}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"logprobs", nullptr}, {"finish_reason", nullptr}}});
        body += sse(out);
      }
      for (const std::string& piece : pieces(made[i].text)) body += chunk(i, &piece, nullptr);
      body += chunk(i, nullptr, made[i].finish_reason);
    }
    if (r.include_usage) {
      frame["choices"] = json::array();
      frame["usage"] = totals;
      body += sse(frame);
    }
    body += "data: [DONE]\n\n";
    return {.body = std::move(body), .content_type = "text/event-stream", .headers = {{"Cache-Control", "no-cache"}}};
  }

  std::shared_ptr<const Generator> generator_;
  std::shared_ptr<const Embedder> embedder_;
  LabelSet labels_;
  OpenAiServiceOptions options_;
  std::int64_t created_;
  std::atomic<long> requests_{0};
};

}  // namespace

std::size_t prompt_label(const std::string& prompt, const LabelSet& labels) {
  std::size_t best = labels.size(), best_length = 0;
  for (std::size_t l = 0; l < labels.size(); ++l) {
    std::size_t length = 0;
    bool all = true;
    for (const auto& value : labels.values[l]) {
      all = all && prompt.find(value) != std::string::npos;
      length += value.size();
    }
    if (all && length > best_length) best = l, best_length = length;
  }
  return best;
}

std::string base64_floats(const float* values, std::size_t count) {
  std::string bytes(count * 4, '\0');
  for (std::size_t i = 0; i < count; ++i) {
    const auto bits = std::bit_cast<std::uint32_t>(values[i]);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + static_cast<std::size_t>(b)] = static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

HttpHandler openai_service(std::shared_ptr<const Generator> generator, std::shared_ptr<const Embedder> embedder, LabelSet labels,
                           OpenAiServiceOptions options) {
  auto service = std::make_shared<Service>(std::move(generator), std::move(embedder), std::move(labels), std::move(options));
  return [service](const HttpRequest& req) { return (*service)(req); };
}

}  // namespace secpe
