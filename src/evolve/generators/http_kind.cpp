// --generator http: a model behind an OpenAI-compatible API (http/http_generator.hpp), prompted
// with the labels (--prompts or the built-in prompts); only public text goes there. Its model and
// sampling settings decide its texts, so they key the release.
#include "evolve/generators/generator_kind.hpp"
#include "http/http_generator.hpp"

namespace secpe {
namespace {

class HttpGeneratorKind final : public GeneratorKind {
 public:
  std::string name() const override { return "http"; }
  std::string description() const override { return "a model behind an OpenAI-compatible API; only public text goes there"; }
  bool learns_from_texts() const override { return false; }

  RunGenerator make(const GeneratorSetup& s) const override {
    HttpGeneratorOptions http = s.options.http_generation;
    http.cache_dir = s.options.state_dir;
    http.cache_writer = s.cache_writer;
    return {.generator = std::make_unique<HttpGenerator>(http, s.prompts), .topics = 0};
  }

  nlohmann::ordered_json release_settings(const RunOptions& c) const override {
    return {{"model", c.http_generation.model},
            {"api", name_of(kGenerationApiNames, c.http_generation.api)},
            {"temperature", c.http_generation.temperature},
            {"max_tokens", c.http_generation.max_tokens}};
  }
};

}  // namespace

const GeneratorKind& http_generator_kind() {
  static const HttpGeneratorKind kind;
  return kind;
}

}  // namespace secpe
