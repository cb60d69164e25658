#include "http/openai_service.hpp"

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/digest.hpp"
#include "core/rng.hpp"
#include "http/http_client.hpp"

namespace secpe {
namespace {

using nlohmann::json;

HttpResponse error(int status, const std::string& message) {
  return {.status = status, .body = json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}}.dump()};
}

std::string prompt_of(const json& body, bool chat) {
  if (!chat) return body.contains("prompt") && body["prompt"].is_string() ? body["prompt"].get<std::string>() : "";
  std::string prompt;
  if (body.contains("messages") && body["messages"].is_array()) {
    for (const auto& m : body["messages"])
      if (m.is_object() && m.value("role", "") == "user" && m.contains("content") && m["content"].is_string()) prompt = m["content"].get<std::string>();
  }
  return prompt;
}

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

class Service {
 public:
  Service(std::shared_ptr<const Generator> g, std::shared_ptr<const Embedder> e, LabelSet labels, OpenAiServiceOptions o)
      : generator_(std::move(g)), embedder_(std::move(e)), labels_(std::move(labels)), options_(std::move(o)) {}

  HttpResponse operator()(const HttpRequest& req) {
    if (!options_.api_key.empty()) {
      const auto it = req.headers.find("authorization");
      if (it == req.headers.end() || it->second != "Bearer " + options_.api_key) return error(401, "missing or wrong API key");
    }
    if (req.method == "GET" && (req.path == "/v1/models" || req.path == "/models")) {
      return {.body = json{{"object", "list"}, {"data", {{{"id", options_.model}, {"object", "model"}, {"owned_by", "secpe"}}}}}.dump()};
    }
    const bool embeddings = req.path == "/v1/embeddings", chat = req.path == "/v1/chat/completions";
    if (!embeddings && !chat && req.path != "/v1/completions") return error(404, "no such endpoint");
    if (req.method != "POST") return error(405, "use POST");
    const long n = ++requests_;
    const ServiceFaults& f = options_.faults;
    if (f.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(f.delay_ms));
    if (f.drop_every > 0 && n % f.drop_every == 0) return {.status = 0, .body = {}, .drop = true};
    if (f.fail_every > 0 && n % f.fail_every == 0) return error(f.fail_status, "injected failure");
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return error(400, "the body is not a JSON object");
    if (body.value("model", "") != options_.model) return error(404, "unknown model; this server has '" + options_.model + "'");
    HttpResponse response = embeddings ? embed(body) : complete(body, chat);
    if (f.truncate && response.status == 200) response.body.resize(response.body.size() / 2);
    return response;
  }

 private:
  HttpResponse embed(const json& body) const {
    std::vector<std::string> texts;
    if (!body.contains("input")) return error(400, "no 'input'");
    const json& input = body["input"];
    if (input.is_string()) {
      texts.push_back(input.get<std::string>());
    } else if (input.is_array()) {
      for (const auto& t : input) {
        if (!t.is_string()) return error(400, "'input' must be a string or a list of strings");
        texts.push_back(t.get<std::string>());
      }
    } else {
      return error(400, "'input' must be a string or a list of strings");
    }
    MatrixF vectors;
    embedder_->embed(texts, vectors);
    json data = json::array();
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const auto row = vectors.row(static_cast<Eigen::Index>(i));
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::vector<float>(row.data(), row.data() + row.size())}});
    }
    return {.body = json{{"object", "list"}, {"data", data}, {"model", options_.model}, {"usage", {{"prompt_tokens", 0}, {"total_tokens", 0}}}}.dump()};
  }

  HttpResponse complete(const json& body, bool chat) const {
    const std::string prompt = prompt_of(body, chat);
    if (prompt.empty()) return error(400, chat ? "no user message" : "no 'prompt' string");
    const std::uint64_t seed = body.contains("seed") && body["seed"].is_number_unsigned() ? body["seed"].get<std::uint64_t>() : 0;
    const std::size_t label = prompt_label(prompt, labels_);
    CounterRng rng(seed, Stream::kGeneration, label, prompt_hash(prompt));
    const std::string parent = parent_of(prompt);
    const std::string text = parent.empty() ? generator_->random_text(label, rng) : generator_->vary(label, parent, rng);
    json choice = {{"index", 0}, {"finish_reason", "stop"}};
    if (chat) choice["message"] = {{"role", "assistant"}, {"content", text}};
    else choice["text"] = text;
    return {.body = json_text({{"id", "secpe-" + std::to_string(seed)}, {"object", chat ? "chat.completion" : "text_completion"},
                               {"model", options_.model}, {"choices", json::array({choice})}})};
  }

  std::shared_ptr<const Generator> generator_;
  std::shared_ptr<const Embedder> embedder_;
  LabelSet labels_;
  OpenAiServiceOptions options_;
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

HttpHandler openai_service(std::shared_ptr<const Generator> generator, std::shared_ptr<const Embedder> embedder, LabelSet labels,
                           OpenAiServiceOptions options) {
  auto service = std::make_shared<Service>(std::move(generator), std::move(embedder), std::move(labels), std::move(options));
  return [service](const HttpRequest& req) { return (*service)(req); };
}

}  // namespace secpe
