// Next-word prediction's interpolated Kneser-Ney trigram against a hand-computed case.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "eval/next_word.hpp"

namespace secpe {
namespace {

// Training "a b": trigrams (S S a), (S a b) once each, so every level's D is n1 / (n1 + 2 n2) = 1,
// clamped to 0.9; vocabulary {a, b}, the unigram level's continuation counts a 1, b 1 (total 2):
//   P1(a) = P1(b) = (0.1 + 0.9 * 2 / 3) / 2 = 0.35,  P1(unknown) = 0.9 * 2 / 3 / 2 = 0.3
//   P2(a | S) = 0.1 + 0.9 * P1(a) = 0.415,           P3(a | S S) = 0.1 + 0.9 * 0.415 = 0.4735
//   and alike P3(b | S a) = 0.4735;  P3(unknown | S a) = 0.9 * (0.9 * 0.3) = 0.243.
TEST(NextWordTest, KneserNeyTrigramMatchesTheHandComputedCase) {
  const std::vector<std::string> training = {"a b"};
  const NextWordScores seen = next_word_scores(training, std::vector<std::string>{"A, b."});
  EXPECT_EQ(seen.texts, 1u);
  EXPECT_EQ(seen.words, 2u);
  EXPECT_EQ(seen.correct, 2u);
  EXPECT_EQ(seen.vocabulary, 2u);
  EXPECT_DOUBLE_EQ(seen.accuracy, 1.0);
  EXPECT_NEAR(seen.loss, -std::log(0.4735), 1e-12);
  EXPECT_NEAR(seen.perplexity, 1 / 0.4735, 1e-9);

  // An unknown word is a miss, and the unknown word's mass is shared by the held-out types
  // outside the vocabulary (here c and d: two).
  const NextWordScores unseen = next_word_scores(training, std::vector<std::string>{"a c", "a d"});
  EXPECT_EQ(unseen.words, 4u);
  EXPECT_EQ(unseen.correct, 2u);
  EXPECT_EQ(unseen.out_of_vocabulary, 2u);
  EXPECT_NEAR(unseen.loss, (-std::log(0.4735) - std::log(0.243 / 2)) / 2, 1e-12);
}

// Each level decides where the one above has not seen the context. At the start x (3 times)
// beats q (once): "q" is a miss, then x after (S q) and y after (q x) are the trigrams seen. An
// unknown "w" is a miss; after (S w) nothing above the unigrams has seen the context, and x has
// the most distinct left words (S, q); after (w x) the bigram level's x is followed by y (left
// words S, q) more than by z (S). "x y" is seen as it is. So 6 of 8.
TEST(NextWordTest, EachLevelDecidesWhereTheOneAboveHasNotSeenTheContext) {
  const std::vector<std::string> training = {"x y", "x y", "x z", "q x y"};
  const NextWordScores s = next_word_scores(training, std::vector<std::string>{"q x y", "w x y", "x y"});
  EXPECT_EQ(s.words, 8u);
  EXPECT_EQ(s.correct, 6u);
  EXPECT_EQ(s.out_of_vocabulary, 1u);
  const NextWordScores again = next_word_scores(training, std::vector<std::string>{"q x y", "w x y", "x y"});
  EXPECT_EQ(again.correct, s.correct);
  EXPECT_EQ(again.loss, s.loss);
}

// The argmax over a context's successors and the lower levels' best is the argmax over the whole
// vocabulary: the same predictions as the scan on random texts of a small vocabulary (many ties,
// unseen contexts, unknown words).
TEST(NextWordTest, PredictionsAreTheScansOverTheVocabulary) {
  CounterRng rng(7, Stream::kSimulation);
  auto texts = [&](std::size_t n, int vocabulary) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      std::string t;
      const std::uint64_t words = 1 + rng.next_u64() % 12;
      for (std::uint64_t k = 0; k < words; ++k) t += "w" + std::to_string(rng.next_u64() % static_cast<std::uint64_t>(vocabulary)) + " ";
      out.push_back(t);
    }
    return out;
  };
  const std::vector<std::string> training = texts(300, 40), held_out = texts(200, 50);
  const NextWordScores fast = next_word_scores(training, held_out), scan = next_word_scores_by_scan(training, held_out);
  EXPECT_GT(fast.correct, 0u);
  EXPECT_GT(fast.out_of_vocabulary, 0u);
  EXPECT_EQ(fast.correct, scan.correct);
  EXPECT_EQ(fast.loss, scan.loss);
}

TEST(NextWordTest, TrainingWithoutWordsIsRefused) {
  EXPECT_THROW(next_word_scores(std::vector<std::string>{"", "..."}, std::vector<std::string>{"a"}), InputError);
}

}  // namespace
}  // namespace secpe
