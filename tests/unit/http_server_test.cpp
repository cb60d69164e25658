// The server of secpe serve under clients that misbehave: strict request parsing (a byte at a
// time, pipelined, malformed lengths and heads), and over real sockets on 127.0.0.1 the limits
// (request deadline, idle timeout, connection cap with eviction or 503, answer size), the fixed
// worker pool, and honest clients still served beside slow ones.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "http/request_reader.hpp"
#include "http_test_util.hpp"

namespace secpe {
namespace {

using test::RawClient;
using test::TestServer;

RequestReader::Status feed(RequestReader& r, const std::string& bytes) { return r.append(bytes); }

int status_of(const std::string& request, RequestLimits limits = {}) {
  RequestReader r(limits);
  return feed(r, request) == RequestReader::Status::kBad ? r.error_status() : 0;
}

TEST(RequestReader, ReadsWholeRequestsByteByByteAndPipelined) {
  const std::string one = "POST /v1/embeddings HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nX-A: 1\r\nX-A: 2\r\n\r\nhello";
  RequestReader r({});
  for (std::size_t i = 0; i + 1 < one.size(); ++i) ASSERT_EQ(r.append(one.substr(i, 1)), RequestReader::Status::kIncomplete) << i;
  ASSERT_EQ(r.append(one.substr(one.size() - 1)), RequestReader::Status::kReady);
  const HttpRequest req = r.take();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/v1/embeddings");
  EXPECT_EQ(req.version, "HTTP/1.1");
  EXPECT_EQ(req.body, "hello");
  EXPECT_EQ(req.headers.at("x-a"), "1, 2");
  EXPECT_TRUE(r.idle());
  RequestReader p({});
  ASSERT_EQ(p.append(one + "GET /v1/models HTTP/1.1\r\n\r\n" + "POST"), RequestReader::Status::kReady);
  EXPECT_EQ(p.take().body, "hello");
  ASSERT_EQ(p.status(), RequestReader::Status::kReady);
  EXPECT_EQ(p.take().path, "/v1/models");
  EXPECT_EQ(p.status(), RequestReader::Status::kIncomplete);
  EXPECT_FALSE(p.idle());
}

TEST(RequestReader, NumbersAreStrict) {
  for (const std::string length : {"2abc", "-1", "+3", "4 4", "0x10", "", "1234567890123456789", "1e3"}) {
    EXPECT_EQ(status_of("POST / HTTP/1.1\r\nContent-Length: " + length + "\r\n\r\nab"), 400) << length;
  }
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"), 400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length:  2 \r\n\r\nab"), 0);
}

TEST(RequestReader, MalformedHeadsAndLimits) {
  for (const std::string head : {"GET\r\n\r\n", "GET / \r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
                                 "GET / HTTP/1.1\r\nNo colon\r\n\r\n", "GET / HTTP/1.1\r\nName : v\r\n\r\n", "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
                                 "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", "GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n"}) {
    EXPECT_EQ(status_of(head), 400) << head;
  }
  EXPECT_EQ(status_of("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 501);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nX: " + std::string(70000, 'a') + "\r\n\r\n"), 431);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nX: " + std::string(70000, 'a')), 431);  // no end of head in sight
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(status_of(many + "\r\n"), 431);
  // The body limit is decided from Content-Length, before any body byte.
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", {.max_body_bytes = 1000}), 413);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n", {.max_body_bytes = 1000}), 0);
}

HttpResponse echo(const HttpRequest& req) { return {.body = req.body.empty() ? "{}" : req.body}; }

std::string post(const std::string& body) {
  return "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(HttpServer, BadLengthsAreAnswered400AndClosed) {
  TestServer server(echo);
  RawClient c(server.port());
  ASSERT_TRUE(c.send("POST /x HTTP/1.1\r\nContent-Length: 2abc\r\n\r\nab"));
  const std::string answer = c.read_all(2);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 ")) << answer;
  EXPECT_NE(answer.find("\"error\""), std::string::npos);
  EXPECT_TRUE(c.closed());
}

TEST(HttpServer, SlowAndIdleClientsAreDroppedWhileOthersAreServed) {
  TestServer server(echo, {.request_timeout_s = 1.0, .idle_timeout_s = 0.3});
  RawClient slow(server.port()), idle(server.port());
  ASSERT_TRUE(slow.send("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nab"));
  // A byte now and then does not extend the deadline.
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    slow.send("c");
    RawClient honest(server.port());
    ASSERT_TRUE(honest.send(post("{\"a\":1}")));
    EXPECT_NE(honest.read_response().find("{\"a\":1}"), std::string::npos);
  }
  EXPECT_TRUE(slow.read_all(2).starts_with("HTTP/1.1 408 "));
  EXPECT_TRUE(slow.closed());
  EXPECT_EQ(idle.read_all(2), "");
  EXPECT_TRUE(idle.closed());
}

TEST(HttpServer, KeepAliveServesManyRequestsOnOneConnection) {
  TestServer server(echo);
  RawClient c(server.port());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c.send(post("{\"i\":" + std::to_string(i) + "}")));
    const std::string answer = c.read_response();
    EXPECT_NE(answer.find("Connection: keep-alive"), std::string::npos);
    EXPECT_NE(answer.find("{\"i\":" + std::to_string(i) + "}"), std::string::npos);
  }
}

TEST(HttpServer, TheConnectionCapEvictsIdleConnectionsElseAnswers503) {
  TestServer server(echo, {.max_connections = 2});
  {
    // Two idle connections: a third client takes the place of the one idle longest.
    RawClient a(server.port());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    RawClient b(server.port());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    RawClient c(server.port());
    ASSERT_TRUE(c.send(post("{}")));
    EXPECT_TRUE(c.read_response().starts_with("HTTP/1.1 200 "));
    EXPECT_EQ(a.read_all(1), "");
    EXPECT_TRUE(a.closed());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Two connections mid-request: nothing to evict, so the third is refused.
  RawClient a(server.port()), b(server.port());
  a.send("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
  b.send("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  RawClient c(server.port());
  const std::string refused = c.read_all(2);
  EXPECT_TRUE(refused.starts_with("HTTP/1.1 503 ")) << refused;
  EXPECT_NE(refused.find("Retry-After: 1"), std::string::npos);
  a.send("12345");
  EXPECT_TRUE(a.read_response().starts_with("HTTP/1.1 200 "));
}

TEST(HttpServer, ExpectContinueIsAnsweredAndOversizedBodiesRefusedFirst) {
  TestServer server(echo, {.request = {.max_body_bytes = 100}});
  RawClient c(server.port());
  ASSERT_TRUE(c.send("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n"));
  EXPECT_EQ(c.read_all(0.5), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(c.send("{\"a\":1}"));
  EXPECT_NE(c.read_response().find("{\"a\":1}"), std::string::npos);
  RawClient big(server.port());
  ASSERT_TRUE(big.send("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"));
  EXPECT_TRUE(big.read_all(2).starts_with("HTTP/1.1 413 "));
}

TEST(HttpServer, AnswersOverTheLimitBecome413) {
  TestServer server([](const HttpRequest&) { return HttpResponse{.body = std::string(5000, 'x')}; }, {.max_response_bytes = 4096});
  RawClient c(server.port());
  c.send(post("{}"));
  EXPECT_TRUE(c.read_response().starts_with("HTTP/1.1 413 "));
}

TEST(HttpServer, AtMostWorkersHandlersRunAtOnce) {
  std::atomic<int> running{0}, most{0};
  TestServer server(
      [&](const HttpRequest& req) {
        const int now = ++running;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {}
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        --running;
        return HttpResponse{.body = req.body};
      },
      {.workers = 3});
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 12; ++i) {
    clients.push_back(std::make_unique<RawClient>(server.port()));
    clients.back()->send(post("{}"));
  }
  for (auto& c : clients) EXPECT_TRUE(c->read_response().starts_with("HTTP/1.1 200 "));
  EXPECT_EQ(most.load(), 3);
}

TEST(HttpServer, LimitsOutOfRangeAreRefused) {
  EXPECT_THROW(HttpServer("127.0.0.1", 0, echo, {.workers = 0}), InputError);
  EXPECT_THROW(HttpServer("127.0.0.1", 0, echo, {.request_timeout_s = 0}), InputError);
  EXPECT_THROW(HttpServer("not-an-ip", 0, echo), InputError);
}

}  // namespace
}  // namespace secpe
