// The registries of embedders and generators (embedders/embedder_kind.hpp,
// evolve/generators/generator_kind.hpp): every kind is found by its name, a dataset's recorded
// embedder by its kind's name, and an unknown name is refused naming the known ones.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "embedders/embedder_kind.hpp"
#include "evolve/generators/generator_kind.hpp"

namespace secpe {
namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EmbedderKinds, EachIsFoundByItsNameAndTellsWhatItTakes) {
  EXPECT_EQ(embedder_kind_names(), (std::vector<std::string>{"hashing", "tfidf-svd", "ppmi-sif", "http"}));
  EXPECT_EQ(embedder_kind_names(true), (std::vector<std::string>{"tfidf-svd", "ppmi-sif"}));
  for (const std::string& name : embedder_kind_names()) EXPECT_EQ(embedder_kind(name).name(), name);
  EXPECT_TRUE(embedder_kind("http").remote());
  EXPECT_FALSE(embedder_kind("hashing").remote() || embedder_kind("hashing").learned());
  EXPECT_EQ(refusal([] { embedder_kind("bert", "auto"); }), "--embedder must be auto, hashing, tfidf-svd, ppmi-sif or http, not 'bert'");
  EXPECT_NE(embedder_kinds_help().find("ppmi-sif (word vectors"), std::string::npos);
}

TEST(EmbedderKinds, ARecordedEmbedderIsRebuiltByTheKindThatNamedIt) {
  EXPECT_EQ(embedder_kind_of(HashingEmbedder(32).name()), &embedder_kind("hashing"));
  EXPECT_EQ(embedder_kind_of("tfidf-svd(d=64, V=100, digest=0123456789abcdef)"), &embedder_kind("tfidf-svd"));
  EXPECT_EQ(embedder_kind_of("ppmi-sif(d=64, V=100, digest=0123456789abcdef)"), &embedder_kind("ppmi-sif"));
  EXPECT_EQ(embedder_kind_of("http(model=e5, d=8)"), &embedder_kind("http"));  // HttpEmbedder::name()
  EXPECT_EQ(embedder_kind_of("bert-base"), nullptr);
  EXPECT_EQ(embedder_kind_of(""), nullptr);
}

TEST(GeneratorKinds, EachIsFoundByItsNameAndOnlyTheHttpOneKeysSettingsOfItsOwn) {
  EXPECT_EQ(generator_kind_names(), (std::vector<std::string>{"builtin", "http"}));
  EXPECT_EQ(generator_kind_names(true), std::vector<std::string>{"builtin"});
  EXPECT_EQ(generator_kind_names(false), std::vector<std::string>{"http"});
  EXPECT_EQ(refusal([] { generator_kind("llama"); }), "--generator must be builtin or http, not 'llama'");
  RunOptions options;
  EXPECT_TRUE(generator_kind("builtin").release_settings(options).is_null());  // the release digest of every earlier built-in run holds
  options.http_generation.model = "m";
  const nlohmann::ordered_json http = generator_kind("http").release_settings(options);
  EXPECT_EQ(http["model"], "m");
  EXPECT_EQ(http["api"], "chat");
  EXPECT_EQ(generator_kinds_help(), "builtin (the offline trigram model) or http (a model behind an OpenAI-compatible API; only public text goes there)");
}

}  // namespace
}  // namespace secpe
