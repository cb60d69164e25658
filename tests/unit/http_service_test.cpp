// secpe serve's OpenAI API in the shapes the official SDKs parse: n choices, max_tokens counted
// in the built-in tokenizer's tokens, stop strings, usage and created on every answer, streaming
// (server-sent events ending in [DONE]), base64 embeddings, OpenAI-shaped errors, unsupported
// fields refused by name, per-request limits, and the API key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/http_embedder.hpp"
#include "http/openai_service.hpp"
#include "http_test_util.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

using nlohmann::json;

class Service : public ::testing::Test {
 protected:
  LabelSet labels{{"label1"}, {""}, {{"Bars"}, {"Grocery"}}};
  std::shared_ptr<const Generator> generator = std::make_shared<NgramGenerator>(
      std::vector<std::vector<std::string>>{{"The beer was cold. Great bar with kind staff and loud music every night of the week.",
                                             "Cold beer, loud music and a kind bartender. We stayed late.", "The staff was rude but the beer was great.",
                                             "Great music every night. The bar was loud and the beer cold."},
                                            {"Fresh apples and kind cashiers. The bread is baked every morning."},
                                            {}},
      "unit", NgramGeneratorOptions{});
  std::shared_ptr<const Embedder> hashing = std::make_shared<HashingEmbedder>(8);
  HttpHandler handler = openai_service(generator, hashing, labels, {.model = "m", .api_key = test::kKey, .limits = {.max_inputs = 8, .max_request_tokens = 200}});

  HttpResponse post(const std::string& path, const json& body, const std::string& key = test::kKey) {
    HttpRequest req{.method = "POST", .path = path, .version = "HTTP/1.1", .headers = {{"authorization", "Bearer " + key}}, .body = body.dump()};
    return handler(req);
  }
  // The error object of an answer that must be one.
  static json error_of(const HttpResponse& r) {
    const json j = json::parse(r.body);
    EXPECT_TRUE(j.contains("error")) << r.body;
    for (const char* field : {"message", "type", "param", "code"}) EXPECT_TRUE(j["error"].contains(field)) << r.body;
    return j["error"];
  }
};

TEST_F(Service, CompletionsGiveNChoicesWithinMaxTokensAndUsage) {
  const auto r = post("/v1/completions", {{"model", "m"}, {"prompt", "A review for Bars"}, {"n", 3}, {"max_tokens", 5}, {"seed", 7}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_TRUE(j["created"].is_number_integer());
  ASSERT_EQ(j["choices"].size(), 3u);
  std::size_t completion = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j["choices"][i]["index"], i);
    const std::size_t tokens = tokenize(j["choices"][i]["text"].get<std::string>()).size();
    EXPECT_LE(tokens, 5u);
    EXPECT_EQ(j["choices"][i]["finish_reason"], tokens == 5 ? "length" : "stop");
    completion += tokens;
  }
  // Each choice has its own stream.
  EXPECT_FALSE(j["choices"][0]["text"] == j["choices"][1]["text"] && j["choices"][1]["text"] == j["choices"][2]["text"]);
  EXPECT_EQ(j["usage"]["completion_tokens"], completion);
  EXPECT_EQ(j["usage"]["prompt_tokens"], tokenize("A review for Bars").size());
  EXPECT_EQ(j["usage"]["total_tokens"], j["usage"]["prompt_tokens"].get<std::size_t>() + completion);
  // Choice 0 is what n = 1 gives; the same request gets the same texts.
  const auto one = json::parse(post("/v1/completions", {{"model", "m"}, {"prompt", "A review for Bars"}, {"max_tokens", 5}, {"seed", 7}}).body);
  EXPECT_EQ(one["choices"][0]["text"], j["choices"][0]["text"]);
}

TEST_F(Service, MaxTokensHoldsForEveryLength) {
  for (int max = 1; max <= 30; ++max) {
    for (int seed = 0; seed < 5; ++seed) {
      const json j = json::parse(post("/v1/chat/completions", {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "About Grocery"}}}},
                                                               {"max_tokens", max}, {"seed", seed}}).body);
      EXPECT_LE(tokenize(j["choices"][0]["message"]["content"].get<std::string>()).size(), static_cast<std::size_t>(max));
      EXPECT_LE(j["usage"]["completion_tokens"].get<int>(), max);
    }
  }
}

TEST_F(Service, ChatAnswersWithAMessageUsageAndStopStrings) {
  const auto r = post("/v1/chat/completions", {{"model", "m"}, {"messages", {{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Grocery"}}}},
                                               {"stop", {"e"}}, {"temperature", 0.7}, {"top_p", 1}, {"user", "u"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(j["choices"][0]["message"]["content"].get<std::string>().find('e'), std::string::npos);
  EXPECT_EQ(j["usage"]["prompt_tokens"], tokenize("Be brief.").size() + tokenize("Grocery").size());
}

// The events of a server-sent-events body, "data: " stripped.
std::vector<std::string> events(const std::string& body) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < body.size();) {
    const std::size_t end = body.find("\n\n", pos);
    EXPECT_NE(end, std::string::npos);
    if (end == std::string::npos) break;
    const std::string event = body.substr(pos, end - pos);
    EXPECT_TRUE(event.starts_with("data: ")) << event;
    out.push_back(event.substr(6));
    pos = end + 2;
  }
  return out;
}

TEST_F(Service, StreamsChunksThatAddUpToTheAnswerThenDone) {
  const json request = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "Bars"}}}}, {"n", 2}, {"seed", 3}};
  const json whole = json::parse(post("/v1/chat/completions", request).body);
  json streaming = request;
  streaming["stream"] = true;
  streaming["stream_options"] = {{"include_usage", true}};
  const auto r = post("/v1/chat/completions", streaming);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "text/event-stream");
  const auto e = events(r.body);
  ASSERT_GE(e.size(), 4u);
  EXPECT_EQ(e.back(), "[DONE]");
  std::vector<std::string> text(2);
  std::vector<std::string> finish(2);
  for (std::size_t k = 0; k + 2 < e.size(); ++k) {
    const json c = json::parse(e[k]);
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    EXPECT_TRUE(c["usage"].is_null());
    const json& choice = c["choices"][0];
    const std::size_t i = choice["index"];
    if (choice["delta"].contains("content")) text[i] += choice["delta"]["content"].get<std::string>();
    if (!choice["finish_reason"].is_null()) finish[i] = choice["finish_reason"];
  }
  const json usage = json::parse(e[e.size() - 2]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"], whole["usage"]);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(text[i], whole["choices"][i]["message"]["content"]);
    EXPECT_EQ(finish[i], whole["choices"][i]["finish_reason"]);
  }
  // Completions stream their text the same way.
  const auto c = post("/v1/completions", {{"model", "m"}, {"prompt", "Bars"}, {"stream", true}});
  const auto ce = events(c.body);
  EXPECT_EQ(ce.back(), "[DONE]");
  EXPECT_EQ(json::parse(ce.front())["object"], "text_completion");
}

TEST_F(Service, EmbeddingsAsFloatsOrBase64WithUsage) {
  const json floats = json::parse(post("/v1/embeddings", {{"model", "m"}, {"input", {"cold beer", "kind staff"}}}).body);
  const json b64 = json::parse(post("/v1/embeddings", {{"model", "m"}, {"input", {"cold beer", "kind staff"}}, {"encoding_format", "base64"}}).body);
  ASSERT_EQ(b64["data"].size(), 2u);
  const MatrixF a = parse_embeddings_response(floats.dump(), 2, 8, "U"), b = parse_embeddings_response(b64.dump(), 2, 8, "U");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(b64["data"][0]["embedding"].is_string());
  EXPECT_EQ(floats["usage"]["prompt_tokens"], 4);
  EXPECT_EQ(floats["usage"]["total_tokens"], 4);
  EXPECT_EQ(post("/v1/embeddings", {{"model", "m"}, {"input", "x"}, {"dimensions", 8}}).status, 200);
  EXPECT_EQ(error_of(post("/v1/embeddings", {{"model", "m"}, {"input", "x"}, {"dimensions", 4}}))["param"], "dimensions");
}

TEST_F(Service, UnsupportedFieldsAreRefusedByName) {
  for (const std::string field : {"logprobs", "tools", "response_format", "presence_penalty", "logit_bias"}) {
    json body = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "Bars"}}}}};
    body[field] = true;
    const auto r = post("/v1/chat/completions", body);
    EXPECT_EQ(r.status, 400) << field;
    const json e = error_of(r);
    EXPECT_EQ(e["param"], field);
    EXPECT_EQ(e["code"], "unsupported_parameter");
    EXPECT_NE(e["message"].get<std::string>().find(field), std::string::npos);
  }
  EXPECT_EQ(error_of(post("/v1/embeddings", {{"model", "m"}, {"input", "x"}, {"truncate", true}}))["param"], "truncate");
  EXPECT_EQ(error_of(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"echo", true}}))["param"], "echo");
  EXPECT_EQ(error_of(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"n", 0}}))["param"], "n");
  EXPECT_EQ(error_of(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"max_tokens", "5"}}))["param"], "max_tokens");
  EXPECT_EQ(error_of(post("/v1/embeddings", {{"model", "m"}, {"input", {1, 2}}}))["param"], "input");
  EXPECT_EQ(error_of(post("/v1/chat/completions", {{"model", "m"}, {"messages", {{{"role", "tool"}, {"content", "x"}}}}}))["param"], "messages");
}

TEST_F(Service, ErrorsAreOpenAiShaped) {
  const auto wrong_key = post("/v1/completions", {{"model", "m"}, {"prompt", "x"}}, "nope");
  EXPECT_EQ(wrong_key.status, 401);
  EXPECT_EQ(error_of(wrong_key)["type"], "authentication_error");
  const auto unknown = post("/v1/completions", {{"model", "other"}, {"prompt", "x"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(error_of(unknown)["code"], "model_not_found");
  EXPECT_EQ(post("/v1/nothing", json::object()).status, 404);
  const auto models = handler({.method = "GET", .path = "/v1/models/m", .version = "HTTP/1.1", .headers = {{"authorization", std::string("Bearer ") + test::kKey}}});
  EXPECT_EQ(json::parse(models.body)["id"], "m");
}

TEST_F(Service, PerRequestLimitsAre413) {
  const auto inputs = post("/v1/embeddings", {{"model", "m"}, {"input", std::vector<std::string>(9, "x")}});
  EXPECT_EQ(inputs.status, 413);
  EXPECT_EQ(error_of(inputs)["code"], "request_too_large");
  EXPECT_EQ(post("/v1/embeddings", {{"model", "m"}, {"input", std::vector<std::string>(8, "x")}}).status, 200);
  EXPECT_EQ(post("/v1/embeddings", {{"model", "m"}, {"input", std::string(201 * 2, ' ') + std::string(201, 'a')}}).status, 200);
  std::string long_text;
  for (int i = 0; i < 201; ++i) long_text += "word ";
  EXPECT_EQ(post("/v1/embeddings", {{"model", "m"}, {"input", long_text}}).status, 413);
  EXPECT_EQ(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"n", 9}}).status, 413);
  EXPECT_EQ(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"n", 4}, {"max_tokens", 50}}).status, 413);
  EXPECT_EQ(post("/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"n", 4}, {"max_tokens", 40}}).status, 200);
}

}  // namespace
}  // namespace secpe
