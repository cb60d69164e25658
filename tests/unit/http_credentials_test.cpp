// Each endpoint gets its own key: --gen-api-key-env reaches the generation endpoint only and the
// embedding endpoint gets a key only from --embed-api-key-env; --api-key-env is refused naming
// both; a URL with user:password@ is refused naming the option, never quoting the password.
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "cli/http_options.hpp"
#include "http_test_util.hpp"

namespace secpe {
namespace {

namespace po = boost::program_options;
using test::error_of;
using test::TestServer;

constexpr const char* kGenVariable = "SECPE_UNIT_GEN_KEY";
constexpr const char* kGenKey = "sk-hosted-provider-9c1e";
constexpr const char* kEmbedVariable = "SECPE_UNIT_EMBED_KEY";
constexpr const char* kEmbedKey = "tei-local-key-55aa";

po::variables_map parse(const std::vector<std::string>& args) {
  po::options_description desc;
  cli::add_http_generator_options(desc);
  cli::add_http_embedder_options(desc, true);
  cli::add_http_client_options(desc);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  return vm;
}

// Records the Authorization field of every request and answers like both endpoints.
class KeyRecorder {
 public:
  HttpHandler handler() {
    return [this](const HttpRequest& req) {
      const auto it = req.headers.find("authorization");
      {
        const std::lock_guard lock(mutex_);
        seen_.insert(it == req.headers.end() ? "(none)" : it->second);
      }
      if (req.path == "/v1/embeddings") return HttpResponse{.body = R"({"data":[{"index":0,"embedding":[1,0]}]})"};
      return HttpResponse{.body = R"({"choices":[{"message":{"content":"hi"}}]})"};
    };
  }
  std::set<std::string> take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(seen_, {});
  }

 private:
  std::mutex mutex_;
  std::set<std::string> seen_;
};

class Credentials : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv(kGenVariable, kGenKey, 1);
    setenv(kEmbedVariable, kEmbedKey, 1);
  }
  KeyRecorder recorder;
  TestServer server{recorder.handler()};

  void use_both(const po::variables_map& vm) {
    HttpGeneratorOptions gen;
    ASSERT_TRUE(cli::http_generator_options(vm, gen));
    const HttpGenerator generator(gen, PromptTemplates::builtin(LabelSet{{"l"}, {""}, {{"a"}}}));
    CounterRng rng(1, Stream::kGeneration);
    generator.random_text(0, rng);
    HttpEmbedderOptions embed = cli::http_embedder_options(vm, false);
    embed.model = "m";
    MatrixF out;
    const std::string text = "a private text";
    HttpEmbedder(embed).embed(std::span<const std::string>(&text, 1), out);
  }
};

TEST_F(Credentials, TheGeneratorsKeyNeverReachesTheEmbeddingEndpoint) {
  use_both(parse({"--generator", "http", "--gen-url", server.url(), "--gen-model", "m", "--gen-api-key-env", kGenVariable, "--embed-url",
                  server.url()}));
  // Both requests went to one server: the generator's with its key, the embedder's with none.
  EXPECT_EQ(recorder.take(), (std::set<std::string>{std::string("Bearer ") + kGenKey, "(none)"}));
  use_both(parse({"--generator", "http", "--gen-url", server.url(), "--gen-model", "m", "--gen-api-key-env", kGenVariable, "--embed-url",
                  server.url(), "--embed-api-key-env", kEmbedVariable}));
  EXPECT_EQ(recorder.take(), (std::set<std::string>{std::string("Bearer ") + kGenKey, std::string("Bearer ") + kEmbedKey}));
}

TEST_F(Credentials, TheSharedOptionIsRefusedNamingBoth) {
  const auto vm = parse({"--generator", "http", "--gen-url", server.url(), "--gen-model", "m", "--api-key-env", kGenVariable});
  HttpGeneratorOptions gen;
  const std::string e = error_of([&] { cli::http_generator_options(vm, gen); });
  EXPECT_NE(e.find("--gen-api-key-env"), std::string::npos) << e;
  EXPECT_NE(e.find("--embed-api-key-env"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { cli::http_embedder_options(vm, false); }), "");
}

TEST_F(Credentials, UrlsWithPasswordsAreRefusedNamingTheOption) {
  HttpGeneratorOptions gen;
  const std::string e = error_of([&] {
    cli::http_generator_options(parse({"--generator", "http", "--gen-url", "http://me:hunter2@h:8000/v1", "--gen-model", "m"}), gen);
  });
  EXPECT_TRUE(e.starts_with("--gen-url: the API URL holds credentials")) << e;
  EXPECT_EQ(e.find("hunter2"), std::string::npos) << e;
  const std::string e2 = error_of([&] { cli::http_embedder_options(parse({"--embed-url", "http://h/v1?api_key=hunter2"}), false); });
  EXPECT_TRUE(e2.starts_with("--embed-url: ")) << e2;
  EXPECT_EQ(e2.find("hunter2"), std::string::npos) << e2;
}

}  // namespace
}  // namespace secpe
