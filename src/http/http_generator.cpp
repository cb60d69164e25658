#include "http/http_generator.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "http/refusal.hpp"

namespace secpe {
namespace {

// Every character std::isspace takes as white space in the C locale, form and vertical feeds too
// (a model may end a text with one: the HTTP fuzzer found it).
constexpr const char* kWhiteSpace = " \t\r\n\f\v";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(kWhiteSpace);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(kWhiteSpace) - b + 1);
}

}  // namespace

std::string parse_generation_response(const std::string& body, GenerationApi api, const std::string& url) {
  const std::string bad = url + ": malformed completion response: ";
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) throw InputError(bad + "not JSON (" + std::to_string(body.size()) + " bytes)");
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() || !j["choices"][0].is_object()) {
    throw InputError(bad + "no 'choices'");
  }
  const auto& choice = j["choices"][0];
  const nlohmann::json* text = nullptr;
  if (api == GenerationApi::kChat) {
    if (choice.contains("message") && choice["message"].is_object() && choice["message"].contains("content")) text = &choice["message"]["content"];
  } else if (choice.contains("text")) {
    text = &choice["text"];
  }
  if (!text || !text->is_string()) throw InputError(bad + (api == GenerationApi::kChat ? "no choices[0].message.content string" : "no choices[0].text string"));
  return trim(text->get<std::string>());
}

HttpGenerator::HttpGenerator(HttpGeneratorOptions options, PromptTemplates prompts)
    : options_(std::move(options)), prompts_(std::move(prompts)), client_(options_.client) {
  if (options_.model.empty()) throw InputError("the HTTP generator needs a model name");
  if (!options_.cache_dir.empty()) cache_ = ResponseCache(options_.cache_dir, "generate", options_.cache_writer);
}

std::string HttpGenerator::path() const { return options_.api == GenerationApi::kChat ? "/chat/completions" : "/completions"; }

std::string HttpGenerator::request(const GenerationTask& task, CounterRng& rng) const {
  // The seed is the stream's first draw, then the prompt's own draws (keyword, tone, blanks).
  const std::uint64_t seed = rng.next_u64() & 0x7fffffffu;  // 31 bits: every server takes it
  const std::string prompt = task.parent ? prompts_.variation_prompt(task.label, *task.parent, rng) : prompts_.random_prompt(task.label, rng);
  nlohmann::json body = {{"model", options_.model},
                         {"temperature", options_.temperature},
                         {"max_tokens", options_.max_tokens},
                         {"seed", seed},
                         {"n", 1}};
  if (options_.api == GenerationApi::kChat) {
    nlohmann::json messages = nlohmann::json::array();
    if (!prompts_.system().empty()) messages.push_back({{"role", "system"}, {"content", prompts_.system()}});
    messages.push_back({{"role", "user"}, {"content", prompt}});
    body["messages"] = std::move(messages);
  } else {
    body["prompt"] = prompts_.system().empty() ? prompt : prompts_.system() + "\n\n" + prompt;
  }
  return json_text(body);
}

std::vector<std::string> HttpGenerator::generate(std::vector<GenerationTask>& tasks) const {
  std::vector<std::string> keys, bodies, out(tasks.size());
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::string body = request(tasks[i], tasks[i].rng);
    keys.push_back(request_key(path(), body));
    if (const auto* hit = cache_.find(keys.back()); hit && hit->is_string()) {
      out[i] = hit->get<std::string>();
    } else {
      missing.push_back(i);
      bodies.push_back(std::move(body));
    }
  }
  const HandBack overflow = [](long status, std::string_view body) { return classify_refusal(status, body) == Refusal::kContextOverflow; };
  const std::vector<HttpAnswer> answers = client_.post_all(path(), bodies, "http generate", overflow);
  for (std::size_t k = 0; k < answers.size(); ++k) {
    if (answers[k].status < 200 || answers[k].status >= 300) {
      throw InputError(client_.url(path()) + ": the prompt of text " + std::to_string(missing[k]) + " of this batch (label " +
                       std::to_string(tasks[missing[k]].label) + ") and its " + std::to_string(options_.max_tokens) +
                       " completion tokens are longer than the model takes (its context length; HTTP " + std::to_string(answers[k].status) +
                       "); lower the maximum tokens or shorten the prompts");
    }
    out[missing[k]] = parse_generation_response(answers[k].body, options_.api, client_.url(path()));
    cache_.put(keys[missing[k]], out[missing[k]]);
  }
  return out;
}

std::string HttpGenerator::random_text(std::size_t label, CounterRng& rng) const {
  std::vector<GenerationTask> tasks{{label, nullptr, rng}};
  return generate(tasks).front();
}

std::string HttpGenerator::vary(std::size_t label, const std::string& parent, CounterRng& rng) const {
  std::vector<GenerationTask> tasks{{label, &parent, rng}};
  return generate(tasks).front();
}

std::string HttpGenerator::describe() const {
  return "http(" + std::string(options_.api == GenerationApi::kChat ? "chat" : "completions") + ", model=" + options_.model +
         ", temperature=" + nlohmann::json(options_.temperature).dump() + ", max_tokens=" + std::to_string(options_.max_tokens) +
         ") at " + options_.client.base_url + " with " + prompts_.describe();
}

}  // namespace secpe
