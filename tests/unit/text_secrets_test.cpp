#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "text/secrets.hpp"
#include "text/tokenizer.hpp"

namespace secpe {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& content) {
  const fs::path p = fs::temp_directory_path() / ("secpe_text_secrets_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::vector<std::int32_t> row(const SecretMatrix& m, std::size_t i) {
  auto s = m.secrets_of(i);
  return {s.begin(), s.end()};
}

TEST(TextSecrets, DetectsWordsPhrasesEmailsAndPhones) {
  SecretSet set;
  set.secrets = {"zorbalicious", "marisol quintero", "jane.doe@example.com", "602-555-0147", "(480) 555-0101",
                 "pizza"};
  const std::vector<std::string> texts = {
      "Totally ZORBALICIOUS, as they say.",               // 0
      "Our server Marisol Quintero was great.",           // 1
      "Marisol was great, Quintero too.",                 // 2: not the phrase
      "Write to Jane.Doe@Example.com.",                   // 3
      "Call 602-555-0147 or (480) 555-0101 for pizza!",   // 4
      "Pizzas and zorbaliciousness are other words.",     // 5: no whole-word match
      "Ask for Quintero's boss, marisol quintero's friend.",  // 6: possessive
      "",                                                 // 7
  };
  const SecretMatrix m = detect_secrets(texts, set);
  EXPECT_EQ(m.num_secrets, 6);
  ASSERT_EQ(m.rows(), texts.size());
  EXPECT_EQ(m.indptr.front(), 0);
  EXPECT_EQ(row(m, 0), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(row(m, 1), (std::vector<std::int32_t>{1}));
  EXPECT_TRUE(row(m, 2).empty());
  EXPECT_EQ(row(m, 3), (std::vector<std::int32_t>{2}));
  EXPECT_EQ(row(m, 4), (std::vector<std::int32_t>{3, 4, 5}));
  EXPECT_TRUE(row(m, 5).empty());
  EXPECT_EQ(row(m, 6), (std::vector<std::int32_t>{1}));
  EXPECT_TRUE(row(m, 7).empty());
  EXPECT_FALSE(m.is_private(2));
  EXPECT_TRUE(m.is_private(4));
}

TEST(TextSecrets, RepeatedSecretCountsOnceAndIdsAreSorted) {
  SecretSet set;
  set.secrets = {"b", "a"};
  const SecretMatrix m = detect_secrets({"a b a b a", "nothing"}, set);
  EXPECT_EQ(row(m, 0), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(m.indptr, (std::vector<std::int64_t>{0, 2, 2}));
}

TEST(TextSecrets, RandomWordsComeFromTheQuantileAndSkipDigitsAndShortWords) {
  // Word w_k appears (200 - k) times: the frequency order is w_0, w_1, ..., w_199.
  std::vector<std::string> texts;
  for (int k = 0; k < 200; ++k)
    for (int r = 0; r < 200 - k; ++r) texts.push_back("word" + std::string(1, char('a' + k / 26)) + char('a' + k % 26));
  for (int r = 0; r < 500; ++r) texts.push_back("12345 ab x");  // digits and short words never chosen
  const SecretSet s = choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 1.0});
  EXPECT_EQ(s.mode, "random-word");
  ASSERT_EQ(s.secrets.size(), 10u);
  std::vector<int> ranks;
  for (const auto& w : s.secrets) {
    ASSERT_EQ(w.size(), 6u) << w;
    ranks.push_back((w[4] - 'a') * 26 + (w[5] - 'a'));
  }
  for (int r : ranks) {
    EXPECT_GE(r, 30);
    EXPECT_LE(r, 50);
  }
  EXPECT_EQ(s.secrets, choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 1.0}).secrets);  // deterministic
  // Every chosen word is then found in the records that hold it.
  const SecretMatrix m = detect_secrets(texts, s);
  std::size_t priv = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) priv += m.is_private(i);
  std::size_t expected = 0;
  for (int r : ranks) expected += 200 - r;
  EXPECT_EQ(priv, expected);
  EXPECT_THROW(choose_random_word_secrets(texts, {.count = 0, .quantile = 0.2}), InputError);
  EXPECT_THROW(choose_random_word_secrets(texts, {.count = 5, .quantile = 1.5}), InputError);
  EXPECT_THROW(choose_random_word_secrets({"1 2 3"}, {.count = 5, .quantile = 0.2}), InputError);

  // Label values are published: none of their words is ever chosen.
  const SecretSet without = choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 1.0}, {"Category: " + s.secrets[0] + " | 5.0"});
  ASSERT_EQ(without.secrets.size(), 10u);
  EXPECT_EQ(std::count(without.secrets.begin(), without.secrets.end(), s.secrets[0]), 0);
}

TEST(TextSecrets, RandomWordsKeepTheAskedPublicShare) {
  // Word w_k appears (200 - k) times, one word per record: the 0.2-quantile words are frequent.
  std::vector<std::string> texts;
  for (int k = 0; k < 200; ++k)
    for (int r = 0; r < 200 - k; ++r) texts.push_back("word" + std::string(1, char('a' + k / 26)) + char('a' + k % 26));
  auto private_share = [&](const SecretSet& s) {
    const SecretMatrix m = detect_secrets(texts, s);
    std::size_t n = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) n += m.is_private(i);
    return double(n) / double(texts.size());
  };
  const SecretSet all = choose_random_word_secrets(texts, {.count = 60, .quantile = 0.2, .max_private_share = 1.0});
  ASSERT_EQ(all.secrets.size(), 60u);
  EXPECT_GT(private_share(all), 0.4);
  const SecretSet capped = choose_random_word_secrets(texts, {.count = 60, .quantile = 0.2, .max_private_share = 0.1});
  EXPECT_GT(capped.secrets.size(), 5u);
  EXPECT_LE(private_share(capped), 0.1);
  // Where the limit does not bind, the choice is the centred window itself.
  const SecretSet loose = choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 0.9});
  EXPECT_EQ(loose.secrets, choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 1.0}).secrets);
  EXPECT_THROW(choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 0.0}), InputError);

  // Given the labels, no word is taken that would leave a label without a public record: here
  // every record of label 1 holds the one word of the centred window that is in label 1.
  std::vector<std::int32_t> labels;
  for (const auto& t : texts) labels.push_back(t == loose.secrets[4] ? 1 : 0);
  const SecretSet kept = choose_random_word_secrets(texts, {.count = 10, .quantile = 0.2, .max_private_share = 0.9}, {}, labels);
  ASSERT_EQ(kept.secrets.size(), 10u);
  EXPECT_EQ(std::count(kept.secrets.begin(), kept.secrets.end(), loose.secrets[4]), 0);
}

TEST(TextSecrets, ReadsListFiles) {
  const auto p = write_temp("ok.txt", "\xEF\xBB\xBF# my secrets\nZorbalicious\r\n\n   Marisol   Quintero  \n555-0147\n");
  const SecretSet s = read_secret_list(p);
  EXPECT_EQ(s.secrets, (std::vector<std::string>{"zorbalicious", "marisol quintero", "555-0147"}));
  EXPECT_EQ(s.mode, "list:" + p.filename().string());  // a name, never a path: the mode is published in run.json
  fs::remove(p);
}

TEST(TextSecrets, ListFileErrorsNameFileAndLine) {
  EXPECT_THROW(read_secret_list("/nonexistent/secrets.txt"), InputError);
  const auto dup = write_temp("dup.txt", "alpha\nbeta\nAlpha\n");
  try {
    read_secret_list(dup);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(dup.string() + ":3:"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("alpha"), std::string::npos);  // never the secret itself
  }
  const auto bad = write_temp("bad.txt", "ok\nbad\xC3\x28\n");
  try {
    read_secret_list(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string() + ":2:"), std::string::npos) << e.what();
  }
  const auto empty = write_temp("empty.txt", "# nothing\n\n");
  EXPECT_THROW(read_secret_list(empty), InputError);
  const auto junk = write_temp("junk.txt", "ok\n  !!!  \n");
  EXPECT_THROW(read_secret_list(junk), InputError);
  for (const auto& p : {dup, bad, empty, junk}) fs::remove(p);
}

}  // namespace
}  // namespace secpe

namespace secpe {
namespace {

TEST(TextPiiSecrets, DistinctValuesWithCategoriesAndEveryHolderPrivate) {
  const std::vector<std::string> texts = {
      "Call Jessica at 602-555-0147.",          // 0
      "Nothing personal here.",                  // 1
      "JESSICA again",                           // 2: not detected (capitals), but holds the value
      "Mail jane@example.com or call 602-555-0147",  // 3
      "Jessica-Lynn was lovely",                 // 4: detected inside a hyphenated word
  };
  SecretMatrix detected;
  const SecretSet set = choose_pii_secrets(texts, kAllPiiCategories, &detected);
  EXPECT_EQ(set.mode, "pii");
  EXPECT_EQ(set.secrets, (std::vector<std::string>{"jessica", "602-555-0147", "jane@example.com"}));
  EXPECT_EQ(set.categories, (std::vector<std::string>{"PERSON", "PHONENUMBER", "EMAIL"}));
  EXPECT_EQ(detected.rows(), texts.size());
  EXPECT_TRUE(detected.is_private(4));
  EXPECT_FALSE(detected.is_private(2));
  const SecretMatrix words = detect_secrets(texts, set);
  EXPECT_FALSE(words.is_private(4));  // "jessica-lynn" is one word
  EXPECT_TRUE(words.is_private(2));
  const SecretMatrix m = secret_union(words, detected);
  EXPECT_EQ(row(m, 0), (std::vector<std::int32_t>{0, 1}));
  EXPECT_FALSE(m.is_private(1));
  EXPECT_EQ(row(m, 2), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(row(m, 3), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(row(m, 4), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(choose_pii_secrets(texts, pii_bit(PiiCategory::kEmail)).secrets, (std::vector<std::string>{"jane@example.com"}));
}

TEST(TextPiiSecrets, MergeKeepsTheFirstSetsIdsAndCategory) {
  const SecretSet pii{.secrets = {"602-555-0147", "jessica"}, .categories = {"PHONENUMBER", "PERSON"}, .mode = "pii"};
  const SecretSet list{.secrets = {"Jessica", "zorb"}, .categories = {kListCategory, kListCategory}, .mode = "list:f"};
  const SecretSet merged = merge_secret_sets({pii, list});
  EXPECT_EQ(merged.mode, "pii+list:f");
  EXPECT_EQ(merged.secrets, (std::vector<std::string>{"602-555-0147", "jessica", "zorb"}));
  EXPECT_EQ(merged.categories, (std::vector<std::string>{"PHONENUMBER", "PERSON", kListCategory}));
}

}  // namespace
}  // namespace secpe
