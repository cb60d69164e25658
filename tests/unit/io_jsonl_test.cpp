#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/corpus.hpp"
#include "io_test_util.hpp"

namespace secpe {
namespace {

using testing_io::TempFile;

TEST(Jsonl, ReadsStringsAndNumbersAndSkipsBlankLines) {
  TempFile file("good.jsonl",
                "{\"text\": \"first, \\\"quoted\\\"\", \"label1\": \"Restaurants\", \"label2\": 5}\n"
                "\n"
                "   \r\n"
                "{\"label2\": 4.5, \"text\": \"second\\nline\", \"label1\": \"Bars\", \"extra\": [1,2]}\r\n"
                "{\"text\": \"third\", \"label1\": -3, \"label2\": 1e3}\n"
                "{\"text\": \"fourth\", \"label1\": \"05\", \"label2\": 5.0, \"label1x\": {\"label2\": 7}}");
  const auto corpus = read_jsonl(file.path(), {});
  ASSERT_EQ(corpus.texts.size(), 4u);
  EXPECT_EQ(corpus.texts[0], "first, \"quoted\"");
  EXPECT_EQ(corpus.texts[1], "second\nline");
  EXPECT_EQ(corpus.labels[0], (std::vector<std::string>{"Restaurants", "5"}));
  EXPECT_EQ(corpus.labels[1], (std::vector<std::string>{"Bars", "4.5"}));
  // Values as written: a number is never re-printed ("5.0" stays "5.0", not "5"), a string stays
  // itself, and a field of a nested object is not the top-level field.
  EXPECT_EQ(corpus.labels[2], (std::vector<std::string>{"-3", "1e3"}));
  EXPECT_EQ(corpus.labels[3], (std::vector<std::string>{"05", "5.0"}));
  EXPECT_EQ(corpus.label_prefixes, (std::vector<std::string>{"", ""}));
}

TEST(Jsonl, ConfigurableFieldsAndPrefixes) {
  TempFile file("fields.jsonl", "{\"review\": \"nice\", \"cat\": \"Category: Food\"}\n");
  JsonlReadOptions options;
  options.text_field = "review";
  options.label_fields = {"cat"};
  options.label_prefixes = {"Category: "};
  const auto corpus = read_jsonl(file.path(), options);
  ASSERT_EQ(corpus.texts.size(), 1u);
  EXPECT_EQ(corpus.labels[0], (std::vector<std::string>{"Food"}));
  EXPECT_EQ(corpus.label_columns, (std::vector<std::string>{"cat"}));
}

struct BadLine {
  std::string line;
  std::string what;
};

void PrintTo(const BadLine& bad, std::ostream* os) { *os << "bad line expecting '" << bad.what << "'"; }

class JsonlBadLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(JsonlBadLine, NamesFileAndLineWithoutTheText) {
  const auto& param = GetParam();
  TempFile file("bad.jsonl", "{\"text\": \"ok\", \"label1\": \"A\", \"label2\": 1}\n\n" + param.line +
                                 "\n{\"text\": \"fine\", \"label1\": \"A\", \"label2\": 1}\n");
  try {
    read_jsonl(file.path(), {});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(file.str() + ":3: ", 0), 0u) << message;
    EXPECT_NE(message.find(param.what), std::string::npos) << message;
    EXPECT_EQ(message.find("top secret"), std::string::npos) << message;
  }
  JsonlReadOptions skip;
  skip.on_bad_record = OnBadRecord::kSkip;
  const auto corpus = read_jsonl(file.path(), skip);
  EXPECT_EQ(corpus.texts, (std::vector<std::string>{"ok", "fine"}));
  EXPECT_EQ(corpus.bad_records_skipped, 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, JsonlBadLine,
    ::testing::Values(BadLine{"{\"text\": \"top secret\", \"label1\": \"A\", \"label2\": 1", "invalid JSON"},
                      BadLine{"[\"top secret\", \"A\", 1]", "not a JSON object"},
                      BadLine{"{\"txt\": \"top secret\", \"label1\": \"A\", \"label2\": 1}", "missing field 'text'"},
                      BadLine{"{\"text\": \"top secret\", \"label1\": \"A\"}", "missing field 'label2'"},
                      BadLine{"{\"text\": \"top secret\", \"label1\": null, \"label2\": 1}", "label1"},
                      BadLine{"{\"text\": 5, \"label1\": \"top secret\", \"label2\": 1}", "not a string"},
                      BadLine{"{\"text\": \"  \", \"label1\": \"top secret\", \"label2\": 1}", "empty text"},
                      BadLine{"{\"text\": \"top secret \xC3\x28\", \"label1\": \"A\", \"label2\": 1}",
                              "invalid UTF-8"}));

TEST(Jsonl, MissingFileNamesIt) {
  try {
    read_jsonl("/nonexistent/secpe/train.jsonl", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/secpe/train.jsonl"), std::string::npos);
  }
}

}  // namespace
}  // namespace secpe
