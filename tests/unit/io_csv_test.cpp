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

// Prefixes are recorded per column only where the input had them, so labels come back as given:
// Aug-PE's prefixed columns with their prefixes, plain columns plain.
TEST(AugpeCsv, LabelsRoundTripWithThePrefixesTheInputHad) {
  for (const std::string body : {"plain text,Restaurants,5.0\nmore,Bars,4.0\n",
                                 "plain text,Business Category: Restaurants,5.0\nmore,Business Category: Bars,4.0\n",
                                 "plain text,Business Category: Restaurants,Review Stars: 5.0\nmore,Business Category: Bars,Review Stars: 4.0\n"}) {
    const std::string content = std::string(kHeader) + body;
    TempFile file("roundtrip.csv", content);
    const Corpus corpus = read_augpe_csv(file.path(), {});  // Aug-PE's default prefixes
    EXPECT_EQ(corpus.labels[0], (std::vector<std::string>{"Restaurants", "5.0"}));
    std::ostringstream out;
    write_augpe_csv(out, corpus.label_columns, corpus.label_prefixes, corpus.texts, corpus.labels);
    EXPECT_EQ(out.str(), content);
  }
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

// Reads `path` through AugpeCsvStream with tiny blocks and chunks, concatenating the chunks.
Corpus read_streamed(const std::filesystem::path& path, const CsvReadOptions& options, std::size_t block_bytes,
                     std::size_t chunk_records) {
  AugpeCsvStream stream(path, options, block_bytes);
  Corpus all, chunk;
  while (stream.next(chunk_records, chunk)) {
    EXPECT_LE(chunk.texts.size(), chunk_records);
    all.texts.insert(all.texts.end(), chunk.texts.begin(), chunk.texts.end());
    all.labels.insert(all.labels.end(), chunk.labels.begin(), chunk.labels.end());
    all.bad_records_skipped += chunk.bad_records_skipped;
  }
  EXPECT_EQ(all.bad_records_skipped, stream.bad_records_skipped());
  EXPECT_EQ(stream.bytes_read(), stream.file_size());
  all.label_columns = chunk.label_columns;
  all.label_prefixes = chunk.label_prefixes;
  return all;
}

// Every block size cuts records, quoted newlines, CRLF pairs and the byte order mark somewhere.
TEST(AugpeCsvStream, AnyBlockAndChunkSizeReadsWhatTheWholeFileReaderReads) {
  const std::string content = "\xEF\xBB\xBFtext,label1,label2\r\na,Business Category: X,Review Stars: 1.0\r\n\r\n"
                              "\"b\r\nc, \"\"q\"\"\",Business Category: Y,Review Stars: 2.0\r"
                              "bad\xFF,A,B\nshort,A\n\"\"\"x\",A,B\n\"lone\rcr\",Z,W\r\"un\nterminated,A,B\n";
  TempFile file("stream.csv", content);
  CsvReadOptions skip;
  skip.on_bad_record = OnBadRecord::kSkip;
  const Corpus whole = read_augpe_csv(file.path(), skip);
  EXPECT_EQ(whole.texts, (std::vector<std::string>{"a", "b\r\nc, \"q\"", "\"x", "lone\rcr"}));
  EXPECT_EQ(whole.bad_records_skipped, 3u);
  for (std::size_t block : {1, 2, 3, 5, 7, 16, 64, 4096}) {
    for (std::size_t chunk : {1, 2, 1000}) {
      const Corpus streamed = read_streamed(file.path(), skip, block, chunk);
      EXPECT_EQ(streamed.texts, whole.texts) << block << " " << chunk;
      EXPECT_EQ(streamed.labels, whole.labels) << block << " " << chunk;
      EXPECT_EQ(streamed.bad_records_skipped, whole.bad_records_skipped) << block << " " << chunk;
      EXPECT_EQ(streamed.label_prefixes, whole.label_prefixes);
    }
  }
}

TEST(AugpeCsvStream, ErrorsNameTheSameLineForAnyBlockSize) {
  TempFile file("lines.csv", std::string(kHeader) + "ok,A,B\r\n\"two\r\nlines\",A,B\r\rsecret\xFF,A,B\n");
  for (std::size_t block : {1, 3, 8, 1 << 16}) {
    try {
      AugpeCsvStream stream(file.path(), {}, block);
      Corpus chunk;
      while (stream.next(1, chunk)) {
      }
      FAIL() << "expected an InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), file.str() + ":6: invalid UTF-8") << block;
    }
  }
}

TEST(AugpeCsvStream, HeaderOnlyFileHasNoRecords) {
  TempFile file("empty.csv", kHeader);
  AugpeCsvStream stream(file.path(), {});
  Corpus chunk;
  EXPECT_FALSE(stream.next(10, chunk));
  EXPECT_TRUE(chunk.texts.empty());
  EXPECT_EQ(read_csv_header(file.path()), (std::vector<std::string>{"text", "label1", "label2"}));
  TempFile nothing("nothing.csv", "");
  EXPECT_THROW(read_csv_header(nothing.path()), InputError);
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
