#pragma once
// A generator behind an OpenAI-compatible API (vLLM, llama.cpp's server, secpe serve): RANDOM and
// VARIATION become prompts (text/prompts.hpp) sent to /chat/completions or /completions, many in
// flight. Only public data reaches the endpoint: label values, public keyword lists and
// candidate texts. Each request carries a `seed` drawn from the text's own random stream, so
// request i is the same at any rank count, and a server that honours seeds answers it the same.
#include <filesystem>
#include <string>

#include "core/enum_names.hpp"
#include "http/http_client.hpp"
#include "http/response_cache.hpp"
#include "text/generator.hpp"
#include "text/prompts.hpp"

namespace secpe {

enum class GenerationApi { kChat, kCompletions };
inline constexpr EnumNames<GenerationApi, 2> kGenerationApiNames{{{GenerationApi::kChat, "chat"}, {GenerationApi::kCompletions, "completions"}}};
inline GenerationApi parse_generation_api(const std::string& name) { return parse_name(kGenerationApiNames, name, "the generation API"); }

struct HttpGeneratorOptions {
  HttpClientOptions client;
  std::string model;
  GenerationApi api = GenerationApi::kChat;
  double temperature = 1.0;
  int max_tokens = 128;
  std::filesystem::path cache_dir;  // private state folder for the cache; empty: no cache
  std::string cache_writer = "0";  // who appends (a rank): response_cache.hpp
};

class HttpGenerator final : public Generator {
 public:
  HttpGenerator(HttpGeneratorOptions options, PromptTemplates prompts);
  std::string random_text(std::size_t label, CounterRng& rng) const override;
  std::string vary(std::size_t label, const std::string& parent, CounterRng& rng) const override;
  std::vector<std::string> generate(std::vector<GenerationTask>& tasks) const override;
  std::string describe() const override;
  std::size_t in_flight() const override { return static_cast<std::size_t>(options_.client.concurrency); }

 private:
  std::string path() const;
  std::string request(const GenerationTask& task, CounterRng& rng) const;

  HttpGeneratorOptions options_;
  PromptTemplates prompts_;
  HttpClient client_;
  mutable ResponseCache cache_;
};

// The generated text of one response (choices[0].message.content for chat, choices[0].text for
// completions), trimmed. InputError naming `url` for anything else; never quotes the response.
std::string parse_generation_response(const std::string& body, GenerationApi api, const std::string& url);

}  // namespace secpe
