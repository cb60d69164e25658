// The HTTP client, embedder and generator against an in-process server on 127.0.0.1 (any free
// port): retries then clear errors, the API key sent but never in an error, URLs with
// credentials refused, answers bounded in size (a gzip bomb), malformed answers as errors, the
// cache, determinism.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <zlib.h>

#include "core/error.hpp"
#include "http/http_client.hpp"
#include "http/http_embedder.hpp"
#include "http/http_generator.hpp"
#include "http/openai_service.hpp"
#include "http/server.hpp"
#include "http_test_util.hpp"

namespace secpe {
namespace {

using test::error_of;
using test::fast;
using test::kKey;
using test::kKeyVariable;
using test::TestServer;

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv(kKeyVariable, kKey, 1); }
};

TEST(HttpBackoff, DoublesWithJitterUpToTheCap) {
  const HttpClientOptions o{.backoff_initial_s = 0.5, .backoff_max_s = 4};
  EXPECT_DOUBLE_EQ(backoff_seconds(o, 1, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(backoff_seconds(o, 1, 0.0), 0.25);
  EXPECT_DOUBLE_EQ(backoff_seconds(o, 3, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(backoff_seconds(o, 10, 1.0), 4.0);
  EXPECT_TRUE(retryable_status(429));
  EXPECT_TRUE(retryable_status(503));
  EXPECT_TRUE(retryable_status(0));
  EXPECT_FALSE(retryable_status(401));
  EXPECT_FALSE(retryable_status(400));
}

TEST_F(HttpClientTest, RetriesRateLimitsAndSendsTheKey) {
  std::atomic<int> calls{0};
  TestServer server([&](const HttpRequest& req) -> HttpResponse {
    if (req.headers.at("authorization") != std::string("Bearer ") + kKey) return {.status = 401, .body = "{}", .drop = false};
    return ++calls % 2 == 1 ? HttpResponse{.status = 429, .body = "{}", .drop = false} : HttpResponse{.status = 200, .body = req.body, .drop = false};
  });
  const HttpClient client(fast(server.url()));
  const std::vector<std::string> bodies = {"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"};
  EXPECT_EQ(client.post_all("/echo", bodies, "test"), bodies);
  EXPECT_GE(calls.load(), 4);
}

TEST_F(HttpClientTest, GivesUpWithTheUrlAndStatusButNeverTheKeyOrBody) {
  TestServer server([](const HttpRequest&) { return HttpResponse{.status = 500, .body = "{}", .drop = false}; });
  const HttpClient client(fast(server.url()));
  const std::string e = error_of([&] { client.post_all("/x", {"{\"private\":\"PRIVATE-TEXT\"}"}, "test"); });
  EXPECT_NE(e.find(server.url() + "/x: HTTP 500 after 4 attempt(s)"), std::string::npos) << e;
  EXPECT_EQ(e.find(kKey), std::string::npos);
  EXPECT_EQ(e.find("PRIVATE-TEXT"), std::string::npos);
}

TEST_F(HttpClientTest, NoRetryOnAClientError) {
  std::atomic<int> calls{0};
  TestServer server([&](const HttpRequest&) { ++calls; return HttpResponse{.status = 404, .body = "{}", .drop = false}; });
  const HttpClient client(fast(server.url()));
  EXPECT_NE(error_of([&] { client.post_all("/x", {"{}"}, "test"); }).find("HTTP 404 after 1 attempt(s)"), std::string::npos);
  EXPECT_EQ(calls.load(), 1);
}

TEST_F(HttpClientTest, DroppedConnectionsAreRetriedAndRefusedOnesNamed) {
  std::atomic<int> calls{0};
  TestServer server([&](const HttpRequest& req) {
    return ++calls == 1 ? HttpResponse{.status = 0, .body = {}, .drop = true} : HttpResponse{.status = 200, .body = req.body, .drop = false};
  });
  EXPECT_EQ(HttpClient(fast(server.url())).post_all("/x", {"{}"}, "test"), std::vector<std::string>{"{}"});
  std::string url;
  {
    TestServer gone([](const HttpRequest&) { return HttpResponse{}; });
    url = gone.url();
  }
  const std::string e = error_of([&] { HttpClient(fast(url)).post_all("/x", {"{}"}, "test"); });
  EXPECT_NE(e.find(url + "/x: "), std::string::npos) << e;
  EXPECT_NE(e.find("after 4 attempt(s) (the retry cap)"), std::string::npos) << e;
}

TEST_F(HttpClientTest, AMissingKeyVariableIsNamedNotItsValue) {
  unsetenv(kKeyVariable);
  const std::string e = error_of([] { HttpClient(fast("http://127.0.0.1:1/v1")); });
  EXPECT_NE(e.find(std::string(kKeyVariable) + " named for the API key is not set"), std::string::npos) << e;
  EXPECT_NE(error_of([] { HttpClient({.base_url = "ftp://x"}); }).find("must start with http://"), std::string::npos);
}

TEST(HttpUrl, CredentialsQueriesAndOtherSchemesAreRefusedWithoutQuotingTheUrl) {
  for (const std::string url : {"http://user:hunter2@h:8000/v1", "https://hunter2@h/v1", "http://h:1/v1?key=hunter2", "http://h/v1#hunter2",
                                "ftp://hunter2@h", "hunter2", "http:///v1"}) {
    const std::string e = error_of([&] { check_base_url(url); });
    EXPECT_FALSE(e.empty()) << url;
    EXPECT_EQ(e.find("hunter2"), std::string::npos) << e;
    EXPECT_NE(error_of([&] { HttpClient({.base_url = url}); }), "") << url;
  }
  EXPECT_NE(error_of([] { check_base_url("http://u:p@h/v1"); }).find("credentials"), std::string::npos);
  for (const std::string url : {"http://h:8000/v1", "https://node-1.cluster/v1/", "http://127.0.0.1:1", "http://[::1]:8000/v1"}) {
    EXPECT_EQ(error_of([&] { check_base_url(url); }), "") << url;
  }
  // An '@' in the path is no userinfo.
  EXPECT_EQ(error_of([] { check_base_url("http://h/models/a@b"); }), "");
}

// A gzip stream of `bytes` zeros (about 1000x smaller).
std::string gzip_zeros(std::size_t bytes) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  const std::string zeros(1 << 20, '\0');
  std::string out;
  char buf[1 << 16];
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(zeros.size(), bytes - done);
    done += n;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      deflate(&z, done == bytes ? Z_FINISH : Z_NO_FLUSH);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

TEST_F(HttpClientTest, AGzipBombIsStoppedAtTheLimitWithTheUrlAndNoBody) {
  const std::string bomb = gzip_zeros(std::size_t{256} << 20);  // 256 MiB inflated, about 250 KB sent
  ASSERT_LT(bomb.size(), std::size_t{1} << 20);
  std::atomic<int> calls{0};
  TestServer server([&](const HttpRequest&) {
    ++calls;
    return HttpResponse{.body = bomb, .headers = {{"Content-Encoding", "gzip"}}};
  });
  HttpClientOptions o = fast(server.url());
  o.max_response_bytes = std::size_t{8} << 20;
  const std::string e = error_of([&] { HttpClient(o).post_all("/embeddings", {"{}", "{}"}, "test"); });
  EXPECT_NE(e.find(server.url() + "/embeddings: the answer is over the response size limit of 8 MiB (after decompression)"), std::string::npos) << e;
  EXPECT_LE(calls.load(), 2);  // not retried
  // A declared length over the limit is refused the same way; an answer within it passes.
  TestServer plain([](const HttpRequest&) { return HttpResponse{.body = std::string(std::size_t{2} << 20, ' ') + "{}"}; });
  o = fast(plain.url());
  o.max_response_bytes = std::size_t{1} << 20;
  EXPECT_NE(error_of([&] { HttpClient(o).post_all("/x", {"{}"}, "test"); }).find("over the response size limit of 1 MiB"), std::string::npos);
  o.max_response_bytes = std::size_t{4} << 20;
  EXPECT_EQ(HttpClient(o).post_all("/x", {"{}"}, "test").front().size(), (std::size_t{2} << 20) + 2);
}

TEST_F(HttpClientTest, RetryAfterIsHonoured) {
  std::atomic<int> calls{0};
  TestServer server([&](const HttpRequest& req) {
    if (++calls == 1) return HttpResponse{.status = 429, .body = "{}", .headers = {{"Retry-After", "1"}}};
    return HttpResponse{.body = req.body};
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(HttpClient(fast(server.url())).post_all("/x", {"{}"}, "test"), std::vector<std::string>{"{}"});
  // The backoff alone would wait at most 0.05 s; the server asked for 1 s.
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.9);
  EXPECT_EQ(calls.load(), 2);
}

TEST_F(HttpClientTest, HandedBackAnswersComeWithTheirStatus) {
  TestServer server([](const HttpRequest& req) { return HttpResponse{.status = req.body == "{}" ? 200 : 413, .body = "x"}; });
  const HttpClient client(fast(server.url()));
  const auto answers = client.post_all("/x", {"{}", "[]"}, "test", [](long status, std::string_view) { return status == 413; });
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].status, 200);
  EXPECT_EQ(answers[1].status, 413);
  EXPECT_NE(error_of([&] { client.post_all("/x", {"[]"}, "test"); }).find("HTTP 413 after 1 attempt(s)"), std::string::npos);
}

TEST(HttpParse, InvalidUtf8IsReplacedNotThrown) {
  EXPECT_EQ(json_text({{"input", std::string("a\xff")}}), "{\"input\":\"a\xEF\xBF\xBD\"}");
}

TEST(HttpParse, EmbeddingsInIndexOrderNormalised) {
  const MatrixF m = parse_embeddings_response(
      R"({"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]})", 2, 2, "U");
  EXPECT_FLOAT_EQ(m(0, 0), 0.6f);
  EXPECT_FLOAT_EQ(m(0, 1), 0.8f);
  EXPECT_FLOAT_EQ(m(1, 1), 1.0f);
}

TEST(HttpParse, Base64EmbeddingsAreLittleEndianFloat32) {
  const float v[2] = {3.0f, 4.0f};
  const std::string b64 = base64_floats(v, 2);
  EXPECT_EQ(b64, "AABAQAAAgEA=");  // 3.0f = 0x40400000, 4.0f = 0x40800000, bytes little-endian
  const MatrixF m = parse_embeddings_response(R"({"data":[{"index":0,"embedding":")" + b64 + R"("}]})", 1, 2, "U");
  EXPECT_FLOAT_EQ(m(0, 0), 0.6f);
  EXPECT_FLOAT_EQ(m(0, 1), 0.8f);
  for (const std::string bad : {"\"AAB\"", "\"!!!!\"", "\"AAAA\""}) {
    EXPECT_TRUE(error_of([&] { parse_embeddings_response(R"({"data":[{"embedding":)" + bad + "}]}", 1, 0, "U"); }).starts_with("U: ")) << bad;
  }
}

TEST(HttpParse, MalformedEmbeddingsAreClearErrors) {
  for (const std::string body : {"{\"data\":[{\"embedding\":[1,2", "[]", "{\"data\":{}}", R"({"data":[{"embedding":[1,2]}]})",
                                 R"({"data":[{"embedding":[1,2,3]},{"embedding":[1,2,3]}]})", R"({"data":[{"embedding":["a","b"]},{"embedding":[1,2]}]})",
                                 R"({"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]})", R"({"data":[{"index":7,"embedding":[1,2]},{"embedding":[1,2]}]})"}) {
    const std::string e = error_of([&] { parse_embeddings_response(body, 2, 2, "http://h/v1/embeddings"); });
    EXPECT_TRUE(e.starts_with("http://h/v1/embeddings: ")) << body << " -> " << e;
  }
}

// Fuzzing findings: 1e58 is a finite double but no float; values whose squares overflow or
// underflow a float still normalise to a unit row.
TEST(HttpParse, EmbeddingValuesBeyondFloatAreErrorsAndLargeOnesStillNormalise) {
  const std::string e = error_of([&] { parse_embeddings_response(R"({"data":[{"index":0,"embedding":[1e58,-2]}]})", 1, 2, "U"); });
  EXPECT_TRUE(e.starts_with("U: ") && e.find("32-bit float") != std::string::npos) << e;
  for (const char* row : {"[3e30,4e30]", "[3e-40,4e-40]"}) {  // squares past a float's range, both ways
    const MatrixF m = parse_embeddings_response(std::string(R"({"data":[{"index":0,"embedding":)") + row + "}]}", 1, 2, "U");
    EXPECT_NEAR(m(0, 0), 0.6f, 1e-6) << row;
    EXPECT_NEAR(m(0, 1), 0.8f, 1e-6) << row;
  }
}

TEST(HttpParse, CompletionsOfBothApis) {
  EXPECT_EQ(parse_generation_response(R"({"choices":[{"message":{"content":"  hi there\n"}}]})", GenerationApi::kChat, "U"), "hi there");
  EXPECT_EQ(parse_generation_response(R"({"choices":[{"message":{"content":"\u000b hi \f"}}]})", GenerationApi::kChat, "U"), "hi");
  EXPECT_EQ(parse_generation_response(R"({"choices":[{"text":"hello"}]})", GenerationApi::kCompletions, "U"), "hello");
  for (const std::string body : {"", "{\"choices\":[", "{\"choices\":[]}", R"({"choices":[{"text":"x"}]})", R"({"choices":[{"message":{"content":3}}]})"}) {
    EXPECT_TRUE(error_of([&] { parse_generation_response(body, GenerationApi::kChat, "U"); }).starts_with("U: malformed completion response")) << body;
  }
  EXPECT_THROW(parse_generation_api("edits"), InputError);
}

TEST(HttpCache, KeptAcrossReopeningPrivatelyAndSkipsDamagedLines) {
  const auto dir = std::filesystem::temp_directory_path() / ("secpe-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    ResponseCache cache(dir, "embed", "r0");
    cache.put("k1", {1.0, 2.0});
    cache.put("k2", "text");
  }
  std::ofstream(dir / "http-cache.embed.r1.jsonl") << "{\"k\":\"k3\",\"v\":3}\n{\"k\":\"cut";
  const ResponseCache again(dir, "embed", "r0");
  ASSERT_NE(again.find("k1"), nullptr);
  EXPECT_EQ(*again.find("k2"), "text");
  EXPECT_EQ(*again.find("k3"), 3);
  EXPECT_EQ(again.size(), 3u);
  EXPECT_EQ(ResponseCache(dir, "generate", "r0").size(), 0u);
  struct stat st{};
  ASSERT_EQ(::stat((dir / "http-cache.embed.r0.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::filesystem::remove_all(dir);
}

// The service of secpe serve over a tiny generator and the hashing embedder.
class ServiceTest : public HttpClientTest {
 protected:
  LabelSet labels{{"label1"}, {""}, {{"Bars"}, {"Grocery"}}};
  std::shared_ptr<const Generator> generator = std::make_shared<NgramGenerator>(
      std::vector<std::vector<std::string>>{{"The beer was cold. Great bar."}, {"Fresh apples and kind cashiers."}, {}}, "unit", NgramGeneratorOptions{});
  std::shared_ptr<const Embedder> hashing = std::make_shared<HashingEmbedder>(32);
  HttpHandler service(ServiceFaults faults = {}) {
    return openai_service(generator, hashing, labels, {.model = "m", .api_key = kKey, .faults = faults});
  }
};

TEST_F(ServiceTest, EmbeddingsMatchTheEmbedderBehindTheServer) {
  TestServer server(service());
  const HttpEmbedder embedder({.client = fast(server.url()), .model = "m", .dim = 0, .batch = 2});
  EXPECT_EQ(embedder.dim(), 32);
  EXPECT_EQ(embedder.name(), "http(model=m, d=32)");
  const std::vector<std::string> texts = {"cold beer", "", "fresh apples here", "kind cashiers", "great bar"};
  MatrixF got, want;
  embedder.embed(texts, got);
  hashing->embed(texts, want);
  ASSERT_EQ(got.rows(), 5);
  EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-6f);
  const HttpEmbedder wrong({.client = fast(server.url()), .model = "m", .dim = 16});
  EXPECT_NE(error_of([&] { wrong.embed(texts, got); }).find("returned a 32-dimensional embedding, expected 16"), std::string::npos);
  const HttpEmbedder unknown({.client = fast(server.url()), .model = "other", .dim = 32});
  EXPECT_NE(error_of([&] { unknown.embed(texts, got); }).find("HTTP 404 after 1 attempt(s)"), std::string::npos);
}

TEST_F(ServiceTest, CachedEmbeddingsNeedNoServer) {
  const auto dir = std::filesystem::temp_directory_path() / ("secpe-embed-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::vector<std::string> texts = {"cold beer", "fresh apples"};
  MatrixF first, again;
  {
    TestServer server(service());
    HttpEmbedder({.client = fast(server.url()), .model = "m", .cache_dir = dir}).embed(texts, first);
  }
  // The dimension is not given and the server is gone: both come from the cache.
  const HttpEmbedder cached({.client = fast("http://127.0.0.1:1/v1"), .model = "m", .cache_dir = dir});
  cached.embed(texts, again);
  EXPECT_EQ(cached.dim(), 32);
  EXPECT_EQ(first, again);
  std::filesystem::remove_all(dir);
}

TEST_F(ServiceTest, GenerationIsDeterministicPerTextAndCached) {
  const auto dir = std::filesystem::temp_directory_path() / ("secpe-gen-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string parent = "The beer was cold.";
  auto tasks = [&] {
    return std::vector<GenerationTask>{{0, nullptr, CounterRng(1, Stream::kGeneration, 0, 0, 0)},
                                       {1, nullptr, CounterRng(1, Stream::kGeneration, 1, 0, 1)},
                                       {0, &parent, CounterRng(1, Stream::kGeneration, 0, 1, 2)}};
  };
  std::vector<std::string> first;
  for (const auto api : {GenerationApi::kChat, GenerationApi::kCompletions}) {
    TestServer server(service({.fail_every = 2, .fail_status = 503}));
    const HttpGenerator g({.client = fast(server.url()), .model = "m", .api = api, .cache_dir = dir}, PromptTemplates::builtin(labels));
    auto t1 = tasks(), t2 = tasks();
    const auto a = g.generate(t1);
    EXPECT_EQ(a, g.generate(t2));
    for (const auto& text : a) EXPECT_FALSE(text.empty());
    if (first.empty()) first = a;
  }
  // With no server at all, the cache answers.
  const HttpGenerator cached({.client = fast("http://127.0.0.1:1/v1"), .model = "m", .cache_dir = dir}, PromptTemplates::builtin(labels));
  auto t = tasks();
  EXPECT_EQ(cached.generate(t), first);
  std::filesystem::remove_all(dir);
}

TEST_F(ServiceTest, FaultsAndBadRequests) {
  TestServer truncating(service({.truncate = true}));
  const HttpGenerator g({.client = fast(truncating.url()), .model = "m"}, PromptTemplates::builtin(labels));
  CounterRng rng(1, Stream::kGeneration);
  EXPECT_NE(error_of([&] { g.random_text(0, rng); }).find("/chat/completions: malformed completion response: not JSON"), std::string::npos);
  TestServer plain(service());
  const HttpClient client(fast(plain.url()));
  for (const std::string body : {"not json", "{\"model\":\"m\"}", R"({"model":"m","input":[1,2]})"}) {
    EXPECT_NE(error_of([&] { client.post_all("/embeddings", {body}, "t"); }).find("HTTP 400"), std::string::npos) << body;
  }
  EXPECT_EQ(prompt_label("a review for Grocery", labels), 1u);
  EXPECT_EQ(prompt_label("nothing", labels), 2u);
}

}  // namespace
}  // namespace secpe
