// The HTTP client, embedder and generator against the answers of the servers people deploy
// (vLLM, Text Embeddings Inference, llama.cpp's server, Ollama, a rate-limiting gateway),
// replayed from tests/data/http_servers/*.json by a fake server that also enforces each one's
// limits: answers parse; a batch over the server's limit is halved until it passes and the
// smaller size is kept; an input or prompt over the context length is an error naming the URL
// and the input, never its text; a busy server is retried.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"
#include "http_test_util.hpp"

namespace secpe {
namespace {

using nlohmann::json;
using test::error_of;
using test::TestServer;

constexpr const char* kOverlong = "OVERLONG";

// The vector the fake server gives a text (before the client normalises it).
std::vector<float> vector_for(const std::string& text) { return {1.0f + static_cast<float>(text.size()), 2, 3, 4}; }

HttpResponse recorded(const json& refusal) {
  HttpResponse r{.status = refusal["status"].get<int>(), .body = refusal["body"].dump()};
  const json headers = refusal.value("headers", json::object());
  for (const auto& [name, value] : headers.items()) r.headers.emplace_back(name, value.get<std::string>());
  return r;
}

// A server answering as the fixture says, with its limits.
class FakeServer {
 public:
  explicit FakeServer(json fixture) : f_(std::move(fixture)) {}
  void busy_first(int n) { busy_left_ = n; }
  HttpHandler handler() {
    return [this](const HttpRequest& req) { return answer(req); };
  }

 private:
  HttpResponse answer(const HttpRequest& req) {
    if (busy_left_-- > 0) return recorded(f_["busy"]);
    const json body = json::parse(req.body);
    if (req.path == "/v1/embeddings") return embeddings(body);
    const std::string api = req.path == "/v1/chat/completions" ? "chat" : "completions";
    if (req.body.find(kOverlong) != std::string::npos) return recorded(f_[api]["too_long"]);
    return {.body = f_[api]["answer"].dump()};
  }

  HttpResponse embeddings(const json& body) {
    const json& e = f_["embeddings"];
    const auto& inputs = body["input"];
    if (e.contains("batch_limit") && inputs.size() > e["batch_limit"].get<std::size_t>()) return recorded(e["too_many"]);
    json out = e["answer"];
    const json item = out["data"][0];
    out["data"] = json::array();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::string text = inputs[i];
      if (e.contains("max_input_chars") && text.size() > e["max_input_chars"].get<std::size_t>()) return recorded(e["too_long"]);
      json it = item;
      it["index"] = i;
      it["embedding"] = vector_for(text);
      out["data"].push_back(it);
    }
    return {.body = out.dump()};
  }

  json f_;
  std::atomic<int> busy_left_{0};
};

class ServerShapes : public ::testing::TestWithParam<std::string> {
 protected:
  json fixture = json::parse(std::ifstream(std::filesystem::path(SECPE_TEST_DATA) / "http_servers" / GetParam()));
  FakeServer fake{fixture};
  TestServer server{fake.handler()};
  HttpClientOptions client = test::fast(server.url(), "");
};

std::vector<std::string> texts(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back("a short review number " + std::to_string(i));
  return out;
}

TEST_P(ServerShapes, EmbeddingsParseAndRefusedBatchesAreSplit) {
  if (!fixture.contains("embeddings")) GTEST_SKIP() << "no embeddings endpoint";
  const HttpEmbedder embedder({.client = client, .model = "m", .batch = 8});
  const auto t = texts(19);
  MatrixF got;
  embedder.embed(t, got);
  ASSERT_EQ(got.rows(), 19);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto v = vector_for(t[i]);
    const Eigen::Map<const Eigen::RowVectorXf> want(v.data(), 4);
    EXPECT_LT((got.row(static_cast<Eigen::Index>(i)) - want.normalized()).cwiseAbs().maxCoeff(), 1e-6f) << i;
  }
  const auto& e = fixture["embeddings"];
  if (e.contains("batch_limit")) {
    // 8 refused, then 4, then 2 accepted: kept for the rest of the run.
    EXPECT_LE(embedder.batch_limit(), e["batch_limit"].get<int>());
    EXPECT_GE(embedder.batch_limit(), e["batch_limit"].get<int>() / 2);
  } else {
    EXPECT_EQ(embedder.batch_limit(), 8);
  }
}

TEST_P(ServerShapes, AnOverlongInputIsNamedByIndexNeverByText) {
  if (!fixture.contains("embeddings") || !fixture["embeddings"].contains("too_long")) GTEST_SKIP() << "no refusal of long inputs recorded";
  const HttpEmbedder embedder({.client = client, .model = "m", .batch = 4});
  auto t = texts(7);
  t[5] = "PRIVATE-" + std::string(400, 'x');
  MatrixF got;
  const std::string e = error_of([&] { embedder.embed(t, got); });
  EXPECT_TRUE(e.starts_with(server.url() + "/embeddings: input 5 is longer than the model takes")) << e;
  EXPECT_EQ(e.find("PRIVATE"), std::string::npos) << e;
}

TEST_P(ServerShapes, CompletionsParseAndContextOverflowsAreNamed) {
  for (const auto api : {GenerationApi::kChat, GenerationApi::kCompletions}) {
    const std::string name = api == GenerationApi::kChat ? "chat" : "completions";
    if (!fixture.contains(name)) continue;
    const json& answer = fixture[name]["answer"]["choices"][0];
    const std::string want = api == GenerationApi::kChat ? answer["message"]["content"] : answer["text"];
    const LabelSet labels{{"l"}, {""}, {{"a"}}};
    const HttpGenerator g({.client = client, .model = "m", .api = api}, PromptTemplates::builtin(labels));
    CounterRng rng(1, Stream::kGeneration);
    EXPECT_EQ(g.random_text(0, rng), want.substr(want.find_first_not_of(' '), want.find_last_not_of(" \n") - want.find_first_not_of(' ') + 1));
    if (!fixture[name].contains("too_long")) continue;
    const std::string parent = std::string(kOverlong) + " parent text";
    const std::string e = error_of([&] { g.vary(0, parent, rng); });
    EXPECT_NE(e.find(server.url() + (api == GenerationApi::kChat ? "/chat/completions" : "/completions") +
                     ": the prompt of text 0 of this batch (label 0) and its 128 completion tokens are longer than the model takes"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find(kOverlong), std::string::npos) << e;
  }
}

TEST_P(ServerShapes, ABusyServerIsRetried) {
  if (!fixture.contains("busy")) GTEST_SKIP() << "no busy answer recorded";
  fake.busy_first(2);
  const HttpEmbedder embedder({.client = client, .model = "m", .batch = 2});
  MatrixF got;
  embedder.embed(texts(2), got);
  EXPECT_EQ(got.rows(), 2);
}

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SECPE_TEST_DATA) / "http_servers")) {
    if (entry.path().extension() == ".json") out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Recorded, ServerShapes, ::testing::ValuesIn(fixtures()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.size() - 5);
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
});

}  // namespace
}  // namespace secpe
