#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

constexpr const char* kHeader = "text,label1,label2\n";

// Expects reading `content` to fail with exactly "FILE:LINE: ..." and never to quote `secret`.
void expect_bad(const std::string& content, long long line, const std::string& what, const std::string& secret) {
  TempFile file("bad.csv", content);
  try {
    read_augpe_csv(file.path(), {});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(file.str() + ":" + std::to_string(line) + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find(secret), std::string::npos) << message;
  }
  CsvReadOptions skip;
  skip.on_bad_record = OnBadRecord::kSkip;
  const auto corpus = read_augpe_csv(file.path(), skip);
  EXPECT_EQ(corpus.bad_records_skipped, 1u);
}

TEST(AugpeCsv, ReadsQuotingCommasDoubledQuotesAndNewlines) {
  TempFile file("good.csv", std::string(kHeader) +
                                "plain text,Business Category: Restaurants,Review Stars: 5.0\n"
                                "\"with, comma\",Business Category: Bars,Review Stars: 1.0\n"
                                "\"say \"\"hi\"\"\",Business Category: Bars,Review Stars: 2.0\n"
                                "\"line one\nline two\r\nline three\",Business Category: Home,Review Stars: 3.0\n"
                                "no prefix,Hotels,4.0");  // no final newline
  const auto corpus = read_augpe_csv(file.path(), {});
  ASSERT_EQ(corpus.texts.size(), 5u);
  EXPECT_EQ(corpus.texts[0], "plain text");
  EXPECT_EQ(corpus.texts[1], "with, comma");
  EXPECT_EQ(corpus.texts[2], "say \"hi\"");
  EXPECT_EQ(corpus.texts[3], "line one\nline two\r\nline three");
  EXPECT_EQ(corpus.texts[4], "no prefix");
  EXPECT_EQ(corpus.labels[0], (std::vector<std::string>{"Restaurants", "5.0"}));
  EXPECT_EQ(corpus.labels[3], (std::vector<std::string>{"Home", "3.0"}));
  EXPECT_EQ(corpus.labels[4], (std::vector<std::string>{"Hotels", "4.0"}));
  EXPECT_EQ(corpus.label_columns, (std::vector<std::string>{"label1", "label2"}));
  EXPECT_EQ(corpus.bad_records_skipped, 0u);
}

TEST(AugpeCsv, CrlfLineEndingsAndBlankLines) {
  TempFile file("crlf.csv", "text,label1,label2\r\na,Business Category: X,Review Stars: 1.0\r\n\r\n"
                            "\"b\r\nc\",Business Category: Y,Review Stars: 2.0\r\n");
  const auto corpus = read_augpe_csv(file.path(), {});
  ASSERT_EQ(corpus.texts.size(), 2u);
  EXPECT_EQ(corpus.texts[0], "a");
  EXPECT_EQ(corpus.labels[0][1], "1.0");
  EXPECT_EQ(corpus.texts[1], "b\r\nc");
  EXPECT_EQ(corpus.labels[1][0], "Y");
}

TEST(AugpeCsv, ColumnsByNameInAnyOrderExtraColumnsIgnored) {
  TempFile file("order.csv", "id,stars,text,\"cat\"\n7,5,hello,Food\n8,3,\"bye, now\",Bars\n");
  CsvReadOptions options;
  options.label_columns = {"cat", "stars"};
  options.label_prefixes = {};
  const auto corpus = read_augpe_csv(file.path(), options);
  ASSERT_EQ(corpus.texts.size(), 2u);
  EXPECT_EQ(corpus.texts[1], "bye, now");
  EXPECT_EQ(corpus.labels[0], (std::vector<std::string>{"Food", "5"}));
  EXPECT_EQ(corpus.label_prefixes, (std::vector<std::string>{"", ""}));
}

TEST(AugpeCsv, MissingHeaderColumnIsAnErrorOnLineOne) {
  TempFile file("nohdr.csv", "text,label1\nsecret words,A\n");
  try {
    read_augpe_csv(file.path(), {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.str() + ":1: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("label2"), std::string::npos);
  }
}

TEST(AugpeCsv, MissingFileNamesIt) {
  try {
    read_augpe_csv("/nonexistent/secpe/dev.csv", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/secpe/dev.csv"), std::string::npos);
  }
}

TEST(AugpeCsv, UnterminatedQuote) {
  expect_bad(std::string(kHeader) + "ok,A,B\n\"ok\ntwo\",A,B\n\"top secret text,A,B\nmore\n", 5,
             "unterminated quoted field", "top secret");
}

TEST(AugpeCsv, InvalidUtf8) {
  expect_bad(std::string(kHeader) + "ok,A,B\n\"multi\nline\",A,B\ntop secret \xC3\x28 text,A,B\nfine,A,B\n", 5,
             "invalid UTF-8", "top secret");
}

TEST(AugpeCsv, MissingColumn) {
  expect_bad(std::string(kHeader) + "ok,A,B\ntop secret text,A\nfine,A,B\n", 3, "missing column", "top secret");
}

TEST(AugpeCsv, TooManyFields) {
  expect_bad(std::string(kHeader) + "top secret text,A,B,C\nfine,A,B\n", 2, "too many fields", "top secret");
}

TEST(AugpeCsv, EmptyText) {
  expect_bad(std::string(kHeader) + "ok,A,B\n\"\",top secret label,B\nfine,A,B\n", 3, "empty text",
             "top secret");
}

TEST(AugpeCsv, CharacterAfterClosingQuote) {
  expect_bad(std::string(kHeader) + "\"top secret\" text,A,B\nfine,A,B\n", 2, "closing quote", "top secret");
}

TEST(AugpeCsv, SkipModeCountsEveryBadRecordAndKeepsTheRest) {
  TempFile file("skip.csv", std::string(kHeader) + "a,A,B\nb,A\n\"\",A,B\nc\xFF,A,B\nd,A,B\n\"e,A,B\n");
  CsvReadOptions options;
  options.on_bad_record = OnBadRecord::kSkip;
  const auto corpus = read_augpe_csv(file.path(), options);
  EXPECT_EQ(corpus.texts, (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(corpus.bad_records_skipped, 4u);
}

TEST(AugpeCsv, WriterQuotesOnlyWhenNeeded) {
  std::ostringstream out;
  write_augpe_csv(out, {"label1", "label2"}, {"Business Category: ", "Review Stars: "},
                  {"plain", "a,b", "say \"x\"", "l1\nl2", "cr\rhere"},
                  {{"R", "5.0"}, {"R", "1.0"}, {"R", "2.0"}, {"R", "3.0"}, {"R, S", "4.0"}});
  EXPECT_EQ(out.str(),
            "text,label1,label2\n"
            "plain,Business Category: R,Review Stars: 5.0\n"
            "\"a,b\",Business Category: R,Review Stars: 1.0\n"
            "\"say \"\"x\"\"\",Business Category: R,Review Stars: 2.0\n"
            "\"l1\nl2\",Business Category: R,Review Stars: 3.0\n"
            "\"cr\rhere\",\"Business Category: R, S\",Review Stars: 4.0\n");
}

TEST(AugpeCsv, WriteThenReadRoundTrips) {
  const std::vector<std::string> texts = {"simple", "comma, here", "\"quoted\" start", "new\nline", "crlf\r\nline",
                                          "trailing quote\"", "ünïcödé ✓", "  padded  "};
  std::vector<std::vector<std::string>> labels;
  for (std::size_t i = 0; i < texts.size(); ++i) labels.push_back({"Cat " + std::to_string(i), std::to_string(i) + ".0"});
  labels[2][0] = "with, \"quote\"";
  std::ostringstream out;
  write_augpe_csv(out, {"label1", "label2"}, {"Business Category: ", "Review Stars: "}, texts, labels);
  TempFile file("roundtrip.csv", out.str());
  const auto corpus = read_augpe_csv(file.path(), {});
  EXPECT_EQ(corpus.texts, texts);
  EXPECT_EQ(corpus.labels, labels);
}

TEST(Utf8, ValidatesStrictly) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii text that is longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9\xE2\x9C\x93\xF0\x9F\x98\x80"));  // é ✓ 😀
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));                             // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));                         // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));                         // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));                     // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("abc\xE2\x9C"));                          // truncated
  EXPECT_FALSE(is_valid_utf8("\x80"));                                 // stray continuation
}

TEST(AugpeCsv, RealYelpDevFile) {
  const std::filesystem::path path = SECPE_SHARED_DIR "/data/yelp/dev.csv";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "the Yelp dev file " << path << " is not present; skipping the real-data import test";
  }
  const auto corpus = read_augpe_csv(path, {});
  EXPECT_EQ(corpus.texts.size(), 5000u);
  EXPECT_EQ(corpus.bad_records_skipped, 0u);
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& row : corpus.labels) {
    ASSERT_EQ(row.size(), 2u);
    pairs.emplace(row[0], row[1]);
  }
  EXPECT_EQ(pairs.size(), 50u);
  EXPECT_TRUE(pairs.count({"Restaurants", "5.0"}));
}

}  // namespace
}  // namespace secpe
