// Text statistics of the evaluation: n-gram keys, distinct-n, near-duplicates, lengths.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "eval/diversity.hpp"
#include "eval/lengths.hpp"
#include "text/ngrams.hpp"
#include "text/demo_corpus.hpp"

namespace secpe {
namespace {

TEST(Ngrams, WordsIgnoreCaseAndPunctuation) {
  EXPECT_EQ(word_keys("Great food, GREAT staff!"), word_keys("great food great staff"));
  EXPECT_EQ(word_keys("Great food, GREAT staff!").size(), 4u);
  EXPECT_EQ(word_count("Great food, GREAT staff!"), 4u);
  EXPECT_EQ(word_count(" ,.! "), 0u);
  const auto w = word_keys("a b a b");
  std::vector<std::uint64_t> bigrams;
  append_ngram_keys(w, 2, bigrams);
  ASSERT_EQ(bigrams.size(), 3u);
  EXPECT_EQ(bigrams[0], bigrams[2]);  // "a b" twice
  EXPECT_NE(bigrams[0], bigrams[1]);  // "b a"
  // A one-word n-gram is not the word's own key, and n-grams of different n never share one.
  EXPECT_NE(ngram_key(std::span<const std::uint64_t>(w.data(), 1)), w[0]);
}

TEST(Diversity, DistinctNgramRatios) {
  const auto texts = words_of(std::vector<std::string>{"the food was good", "the food was bad"});
  EXPECT_DOUBLE_EQ(distinct_ngram_ratio(texts, 1), 5.0 / 8.0);  // the food was good bad / 8 words
  EXPECT_DOUBLE_EQ(distinct_ngram_ratio(texts, 2), 4.0 / 6.0);  // the-food food-was was-good was-bad
  EXPECT_DOUBLE_EQ(distinct_ngram_ratio(words_of(std::vector<std::string>{"one"}), 2), 0.0);
}

TEST(Diversity, NearDuplicatesOfAConstructedSet) {
  // Base: 10 words, 6 five-grams. Variation A changes the last two words (shares 4 of its 6: a
  // near-duplicate, and makes the base one too); B changes words 4 and 8 (shares none of its
  // five-grams with the base: not one). C is the base word for word, but under another label: not counted. D and
  // E are the same 3-word text (fewer than 5 words: one n-gram of all its words): both count.
  const std::string base = "we loved the pasta and the staff was very kind";
  const std::vector<std::string> texts = {
      base,
      "we loved the pasta and the staff was quite rude",
      "we loved the pizza and the staff is very kind",
      base,
      "tiny short text",
      "Tiny, short text!",
      "a completely different review about a hotel room and its view"};
  const std::vector<std::int32_t> groups = {0, 0, 0, 1, 0, 0, 0};
  // Texts 0 and 1 (each shares >= half with the other), 4 and 5: 4 near-duplicates.
  EXPECT_EQ(count_near_duplicates(words_of(texts), groups, {}), 4u);
  // The same texts with every label equal: the copy under label 1 joins them (0, 1, 3 and 4, 5).
  EXPECT_EQ(count_near_duplicates(words_of(texts), std::vector<std::int32_t>(7, 0), {}), 5u);
  // Stricter: at least 5 of 6 five-grams shared: only the exact copies 0 and 3 (same label) and 4, 5.
  EXPECT_EQ(count_near_duplicates(words_of(texts), std::vector<std::int32_t>(7, 0), {.n = 5, .share = 0.8}), 4u);
}

TEST(Diversity, ExactlyHalfCounts) {
  // 6 five-grams each; text 1 keeps the first 7 words of text 0 (3 shared five-grams of 6).
  const std::vector<std::string> texts = {"a b c d e f g h i j", "a b c d e f g x y z"};
  EXPECT_EQ(count_near_duplicates(words_of(texts), std::vector<std::int32_t>{0, 0}, {}), 2u);
  const std::vector<std::string> fewer = {"a b c d e f g h i j", "a b c d e f x y z w"};  // 2 of 6
  EXPECT_EQ(count_near_duplicates(words_of(fewer), std::vector<std::int32_t>{0, 0}, {}), 0u);
}

TEST(Diversity, EightThousandTextsTakeWellUnderASecond) {
  DemoCorpusOptions o;
  o.records = 8000;
  const DemoCorpus d = make_demo_corpus(o);
  auto words = words_of(d.corpus.texts);
  // Plant copies so posting lists are long: every tenth text from 100 on repeats an early text of
  // its group (group = index % 50).
  std::vector<std::int32_t> groups;
  for (std::size_t i = 0; i < words.size(); ++i) groups.push_back(static_cast<std::int32_t>(i % 50));
  for (std::size_t i = 100; i < words.size(); i += 10) words[i] = words[i % 50];
  const auto start = std::chrono::steady_clock::now();
  const std::size_t dups = count_near_duplicates(words, groups, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(dups, 790u);
  EXPECT_LT(seconds, 2.0);  // about 0.1 s on one core; generous for loaded test machines
  RecordProperty("near_duplicate_seconds", std::to_string(seconds));
}

TEST(Lengths, StatsQuantilesAndWasserstein) {
  LengthHistogram h;
  for (std::size_t w : {1, 2, 3, 4}) h.add(w);
  const LengthStats s = length_stats(h);
  EXPECT_EQ(s.texts, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(1.25));
  // numpy.quantile([1, 2, 3, 4], [0, .05, .25, .5, .75, .95, 1]) = 1, 1.15, 1.75, 2.5, 3.25, 3.85, 4
  const std::vector<double> expected = {1, 1.15, 1.75, 2.5, 3.25, 3.85, 4};
  ASSERT_EQ(s.quantiles.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(s.quantiles[i], expected[i], 1e-12) << i;

  LengthHistogram a, b;
  for (std::size_t w : {1, 2, 3}) a.add(w);
  for (std::size_t w : {2, 3, 4}) b.add(w);
  EXPECT_DOUBLE_EQ(wasserstein1(a, b), 1.0);  // every text one word longer
  EXPECT_DOUBLE_EQ(wasserstein1(a, a), 0.0);
  LengthHistogram c;
  c.add(10);
  EXPECT_DOUBLE_EQ(wasserstein1(a, c), 8.0);  // mean distance from {1, 2, 3} to 10
  EXPECT_DOUBLE_EQ(wasserstein1(a, LengthHistogram{}), 0.0);
}

}  // namespace
}  // namespace secpe
